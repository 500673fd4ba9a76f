/// A secret the simulated server knows a client holds (a test password, a token it issued, a code
/// or verifier it received): what `vigil simulate` looks for in logs and files.
public struct PlantedSecret: Sendable, Hashable {
    /// In words, for a failure message ("an access token"); never the value.
    public var what: String
    public var value: String

    public init(what: String, value: String) {
        self.what = what
        self.value = value
    }
}

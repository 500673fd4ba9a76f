/// A secret the simulated server knows a client holds (a test password, a token it issued, a code
/// or verifier it received): what `vigil simulate` looks for in logs and files.
public struct PlantedSecret: Sendable, Hashable {
    /// In words, for a failure message ("an access token"); never the value.
    public var what: String
    /// The secret itself.
    public var value: String

    /// A secret described as `what`.
    public init(what: String, value: String) {
        self.what = what
        self.value = value
    }
}

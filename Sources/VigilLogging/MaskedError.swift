import FoundationEssentials
import Glibc
import VigilErrors

/// An error reduced to its domain and code: what masking lets through.
public struct MaskedError: Error, CustomStringConvertible, Sendable {
    /// The type name of a Vigil error, else the error's domain (its type's qualified name).
    public let domain: String
    /// The Vigil error's code text, else the error's code (an enum's case number).
    public let code: String

    /// Keeps only the domain and code of `error`.
    public init(_ error: any Error) {
        if let coded = error as? any VigilError {
            domain = String(describing: type(of: error))
            code = coded.codeText
        } else {
            // The domain and code Foundation's NSError bridging would give, without Foundation.
            domain = error._domain
            code = String(error._code)
        }
    }

    /// `domain code`.
    public var description: String { "\(domain) \(code)" }
}

/// An error shown in full (masking off), credentials still scrubbed.
struct ScrubbedError: Error, CustomStringConvertible, Sendable {
    let text: String
    init(_ error: any Error) { text = SecretScrubber.scrub(String(describing: error)) }
    var description: String { text }
}

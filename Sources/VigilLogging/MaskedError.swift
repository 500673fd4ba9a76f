import Foundation
import VigilErrors

/// An error reduced to its domain and code: what masking lets through.
public struct MaskedError: Error, CustomStringConvertible, Sendable {
    /// The type name of a Vigil error, else the `NSError` domain.
    public let domain: String
    /// The Vigil error's code text, else the `NSError` code.
    public let code: String

    /// Keeps only the domain and code of `error`.
    public init(_ error: any Error) {
        if let coded = error as? any VigilError {
            domain = String(describing: type(of: error))
            code = coded.codeText
        } else {
            let bridged = error as NSError
            domain = bridged.domain
            code = String(bridged.code)
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

import FoundationEssentials
import Glibc
public import VigilRules

/// What a rule is evaluated against: the chain stored with the account (bookmark) and the one the
/// server presents now, leaf first, and whether the server's chain passed validation or was
/// accepted by the user.
public struct CertificateRuleContext: Sendable {
    /// The chain stored with the account, leaf first.
    public var bookmark: [Certificate]
    /// The chain the server presents now, leaf first.
    public var server: [Certificate]
    /// The server's chain passed validation or was accepted by the user.
    public var serverPassedValidationOrIsUserAccepted: Bool

    /// A context for the two chains; nothing is checked.
    public init(bookmark: [Certificate], server: [Certificate], serverPassedValidationOrIsUserAccepted: Bool) {
        self.bookmark = bookmark
        self.server = server
        self.serverPassedValidationOrIsUserAccepted = serverPassedValidationOrIsUserAccepted
    }

    /// The chain a rule reads for a certificate: the verified path up to its trusted root when
    /// `evaluation` trusts it (so `rootCertificate` is the anchor, as the ownCloud SDK means it,
    /// even when the server does not send its root), the chain as sent otherwise.
    public static func path(_ evaluation: TrustEvaluation, sent: [Certificate]) -> [Certificate] {
        guard evaluation.verdict.isTrusted, let leaf = evaluation.verifiedChain.first, leaf == sent.first else { return sent }
        return evaluation.verifiedChain
    }
}

extension CertificateRule {
    /// A value in a rule: a certificate (by its position in a chain), bytes, text, a truth value,
    /// or nothing (a parent that does not exist). Comparisons with nothing are false.
    enum Value: Equatable {
        case certificate(Certificate, chain: [Certificate], index: Int, isServer: Bool)
        case bytes(String)
        case text(String)
        case truth(Bool)
        case nothing

        var isNothing: Bool {
            if case .nothing = self { return true }
            return false
        }

        static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.certificate(let a, _, _, _), .certificate(let b, _, _, _)): return a == b
            case (.bytes(let a), .bytes(let b)), (.text(let a), .text(let b)): return a == b
            case (.truth(let a), .truth(let b)): return a == b
            default: return false
            }
        }
    }

    /// Evaluates the rule; a path that leads nowhere (no parent certificate) is false, never an error.
    public func evaluate(_ context: CertificateRuleContext) -> Bool {
        switch self {
        case .never: return false
        case .literal(let value): return value
        case .string: return false
        case .path: return truth(of: value(in: context))
        case .not(let rule): return !rule.evaluate(context)
        case .and(let left, let right): return left.evaluate(context) && right.evaluate(context)
        case .or(let left, let right): return left.evaluate(context) || right.evaluate(context)
        case .equal(let left, let right):
            let (a, b) = (left.value(in: context), right.value(in: context))
            return !a.isNothing && !b.isNothing && a == b
        case .notEqual(let left, let right):
            // A comparison with something that does not exist (no parent, no common name) is false,
            // with either operator.
            let (a, b) = (left.value(in: context), right.value(in: context))
            return !a.isNothing && !b.isNothing && a != b
        }
    }

    func truth(of value: Value) -> Bool {
        if case .truth(let flag) = value { return flag }
        return false
    }

    func value(in context: CertificateRuleContext) -> Value {
        switch self {
        case .literal(let flag): return .truth(flag)
        case .string(let text): return .text(text)
        case .never: return .truth(false)
        case .path(let path): return Self.resolve(path, in: context)
        default: return .truth(evaluate(context))
        }
    }

    static func resolve(_ path: Path, in context: CertificateRuleContext) -> Value {
        var value: Value
        switch path.root {
        case .check:
            func parent(_ chain: [Certificate]) -> Certificate? {
                guard chain.count > 1, chain[0].isCryptographicallySigned(by: chain[1]) else { return nil }
                return chain[1]
            }
            guard let bookmarkParent = parent(context.bookmark), let serverParent = parent(context.server) else { return .truth(false) }
            return .truth(bookmarkParent.spkiPin == serverParent.spkiPin)
        case .bookmarkCertificate:
            guard let leaf = context.bookmark.first else { return .nothing }
            value = .certificate(leaf, chain: context.bookmark, index: 0, isServer: false)
        case .serverCertificate:
            guard let leaf = context.server.first else { return .nothing }
            value = .certificate(leaf, chain: context.server, index: 0, isServer: true)
        }
        for member in path.members {
            switch (value, member) {
            case (.certificate(let certificate, let chain, let index, let isServer), .parentCertificate):
                // The next certificate counts as the parent only if it really signed this one (a
                // server can send anything after its leaf).
                guard index + 1 < chain.count, certificate.isCryptographicallySigned(by: chain[index + 1]) else { return .nothing }
                value = .certificate(chain[index + 1], chain: chain, index: index + 1, isServer: isServer)
            case (.certificate(_, let chain, let index, let isServer), .rootCertificate):
                // The end of the signed path from here, not merely the last certificate sent.
                var top = index
                while top + 1 < chain.count, chain[top].isCryptographicallySigned(by: chain[top + 1]) { top += 1 }
                value = .certificate(chain[top], chain: chain, index: top, isServer: isServer)
            case (.certificate(let certificate, _, _, _), .publicKeyData):
                value = .bytes(certificate.spkiPin)
            case (.certificate(let certificate, _, _, _), .sha256Fingerprint):
                value = .bytes(certificate.sha256Fingerprint)
            case (.bytes(let hex), .asFingerPrintString):
                // "73 0C 1B ..." as the ownCloud SDK prints fingerprints.
                value = .text(hex.uppercased().replacing(":", with: " "))
            case (.certificate(let certificate, _, _, _), .commonName):
                guard let name = certificate.commonNames.first else { return .nothing }
                value = .text(name)
            case (.certificate(_, _, _, let isServer), .passedValidationOrIsUserAccepted):
                // The stored certificate was validated or accepted when the account was set up.
                value = .truth(isServer ? context.serverPassedValidationOrIsUserAccepted : true)
            default:
                return .nothing
            }
        }
        return value
    }
}

import Foundation
import VigilCertificates
import VigilRules
import VigilText

@testable import VigilAccounts
@testable import VigilAuth
@testable import VigilHTTP
@testable import VigilSettings
@testable import VigilSimulator

/// The parsers that read what a hostile server, file or user hands Vigil, as fuzz targets.
/// One file, compiled twice: into `make fuzz`'s libFuzzer binary (Fuzz/Sources/FuzzParsers holds a
/// link to it) and into the tests that replay the committed corpus (Fuzz/corpus/TARGET/), so that
/// a crash found once stays a regression test. Each target checks invariants a fuzzer can break,
/// not only that nothing traps.
enum ParserTarget: String, CaseIterable, Sendable {
    /// The approval rule language (`certificate.renewal-rule`).
    case rules
    /// status.php's JSON, and the minimum-version comparison.
    case status
    /// `WWW-Authenticate` field values, one per line.
    case wwwAuthenticate = "www-authenticate"
    /// A `Location` header resolved against a base URL.
    case location
    /// An OpenID Connect discovery document.
    case openIDDiscovery = "openid-discovery"
    /// A JWKS.
    case jwks
    /// An id_token (first line) checked against a JWKS (the rest).
    case idToken = "id-token"
    /// A simulator fixture (mitm-fixtures/*.json).
    case fixture
    /// A settings file (user or managed), its values checked against the catalogue.
    case settings

    /// What a target made of one input: accepted or refused with a reason. Seeds named `ok-*` must
    /// be accepted, `bad-*` refused, `crash-*` (once found by a fuzz run) only not trap; a trap or
    /// a broken invariant is a crash in both builds.
    enum Outcome: Equatable, Sendable {
        case accepted
        case refused
    }

    static let base = "https://cloud.example.com/remote.php/dav/files/alice/"
    static let server = "https://cloud.example.com"

    func run(_ bytes: [UInt8]) async -> Outcome {
        let text = String(decoding: bytes, as: UTF8.self)
        switch self {
        case .rules:
            guard let rule = try? CertificateRule(parsing: text) else { return .refused }
            // Evaluation over empty chains walks every path to its missing parent or root.
            let context = CertificateRuleContext(bookmark: [], server: [], serverPassedValidationOrIsUserAccepted: bytes.count % 2 == 0)
            _ = rule.evaluate(context)
            return .accepted
        case .status:
            let minimum = text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? "0"
            _ = AccountSetup.version(minimum, isBelow: "10.0")
            _ = AccountSetup.version("10.0", isBelow: minimum)
            let response = HTTPResponse(status: 200, headers: [], body: bytes)
            return (try? AccountSetup.checkStatus(response, base: Self.server, minimumVersion: "10.0")) != nil ? .accepted : .refused
        case .wwwAuthenticate:
            let values = text.split(separator: "\n").map(String.init)
            let schemes = AuthenticationChallenge.schemes(in: values)
            precondition(Set(schemes).count == schemes.count, "a scheme listed twice")
            precondition(schemes.allSatisfy { $0 == $0.lowercased() && !$0.isEmpty }, "a scheme not lower-cased")
            return schemes.isEmpty ? .refused : .accepted
        case .location:
            guard let redirect = Redirect(status: 302, location: text, base: Self.base) else { return .refused }
            // The kept text never carries a user or password, and a downgrade is always named.
            guard let kept = URLParts(redirect.location) else { preconditionFailure("the kept location does not parse again: \(redirect.location)") }
            precondition(!kept.hadUserInformation, "user information survived in \(redirect.location)")
            let url = URL(string: redirect.location)
            precondition(url?.user == nil && url?.password == nil, "user information survived in \(redirect.location)")
            precondition(redirect.isDowngrade == (kept.scheme == "http"), "a downgrade not named: \(redirect.location)")
            return .accepted
        case .openIDDiscovery:
            switch AuthenticationDetector.validate(bytes, server: Self.server) {
            case .success(let configuration):
                let endpoints =
                    [configuration.authorizationEndpoint, configuration.tokenEndpoint]
                    + [configuration.jwksURI, configuration.registrationEndpoint, configuration.userinfoEndpoint, configuration.revocationEndpoint]
                    .compactMap { $0 }
                precondition(endpoints.allSatisfy { $0.lowercased().hasPrefix("https://") }, "a plain-HTTP endpoint accepted")
                precondition([Self.server, Self.server + "/"].contains(configuration.issuer), "another issuer accepted: a mix-up")
                return .accepted
            case .failure:
                return .refused
            }
        case .jwks:
            guard let keys = try? IDTokenValidator.keys(from: bytes) else { return .refused }
            // Only signing keys of asymmetric types reach jwt-kit: never a shared secret.
            let entries = (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])?["keys"] as? [[String: Any]] ?? []
            let signing = entries.filter { ["RSA", "EC", "OKP"].contains($0["kty"] as? String ?? "") && ($0["use"] as? String ?? "sig") == "sig" }
            precondition(keys.count <= signing.count, "a symmetric or encryption key was kept")
            return keys.isEmpty ? .refused : .accepted
        case .idToken:
            let parts = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
            let token = String(decoding: parts[0], as: UTF8.self)
            let jwks = parts.count > 1 ? Array(parts[1]) : []
            let validator = IDTokenValidator(issuer: Self.server, clientID: "vigil", nonce: "n-0S6_WzA2Mj", now: Date(timeIntervalSince1970: 1_800_000_000))
            guard let claims = try? await validator.validate(token, fetchJWKS: { jwks }) else { return .refused }
            // The JWKS is part of the input, so a token its key signed is genuine; what must hold of
            // any accepted token: an asymmetric algorithm (never none, never HMAC), and every claim.
            let algorithm = (try? IDTokenValidator.header(of: token))?["alg"]?.string ?? ""
            precondition(IDTokenValidator.allowedAlgorithms.contains(algorithm), "an id_token signed with \(algorithm) was accepted")
            precondition(claims.iss == Self.server && claims.aud.contains("vigil") && claims.nonce == validator.nonce, "a claim that does not hold")
            precondition(Date(timeIntervalSince1970: claims.exp) > validator.now.addingTimeInterval(-validator.leeway), "an expired id_token")
            return .accepted
        case .fixture:
            return (try? Scenario.decode(Data(bytes), file: "fuzz.json")) != nil ? .accepted : .refused
        case .settings:
            guard let values = try? SettingsFileReader.decode(Data(bytes), source: .user, name: "settings.json") else { return .refused }
            var refused = false
            for (key, value) in values {
                guard let definition = SettingsCatalog.all.first(where: { $0.key == key }) else { continue }
                if case .failure = definition.kind.parse(json: value) { refused = true }
            }
            return refused ? .refused : .accepted
        }
    }
}

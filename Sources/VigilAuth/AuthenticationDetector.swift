import Foundation
public import Logging
public import VigilHTTP
import VigilLogging

/// Finds the authentication methods a server offers, without sending any credential:
/// - a `PROPFIND` of the WebDAV endpoint, whose 401 names its schemes in `WWW-Authenticate`
///   (`Basic`: Basic authentication; `Bearer`: OAuth2);
/// - the OpenID Connect discovery document under `.well-known`, accepted only when its issuer is
///   the server itself and its endpoints use https.
///
/// Every request goes through the ``VigilHTTP/HTTPClient`` given, so its trust policy judges
/// each connection; an untrusted server makes detection throw before anything is sent. Redirects
/// are not followed: they come back in ``AuthenticationDetection/redirects`` for the user to review.
public struct AuthenticationDetector: Sendable {
    /// Paths relative to the server URL (the `connection.endpoint-webdav` and
    /// `connection.well-known` settings).
    public struct Paths: Sendable {
        public var webDAV = "remote.php/dav/files"
        public var wellKnown = ".well-known"
        public init() {}
    }

    public var client: HTTPClient
    public var paths: Paths
    public var logger: Logger

    public init(client: HTTPClient, paths: Paths = Paths(), logger: Logger = Logger(label: "vigil.auth")) {
        self.client = client
        self.paths = paths
        self.logger = logger
    }

    /// Detects the methods `server` (for example `https://cloud.example.com` or
    /// `https://example.com/owncloud`) offers.
    public func detect(server: String) async throws -> AuthenticationDetection {
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        var detection = AuthenticationDetection()

        let dav = try await client.send(HTTPRequest(method: "PROPFIND", url: "\(base)/\(paths.webDAV)/", headers: [(name: "Depth", value: "0")]))
        if let redirect = dav.redirect {
            detection.redirects.append(redirect)
        } else if dav.status == 401 {
            let challenges = dav.headers.filter { $0.name.lowercased() == "www-authenticate" }.map(\.value)
            let schemes = AuthenticationChallenge.schemes(in: challenges)
            if schemes.contains("bearer") {
                detection.methods.append(DetectedAuthenticationMethod(identifier: .oauth2, evidence: "The WebDAV endpoint asks for a Bearer token."))
            }
            if schemes.contains("basic") {
                detection.methods.append(DetectedAuthenticationMethod(identifier: .basicAuth, evidence: "The WebDAV endpoint asks for Basic credentials."))
            }
        } else {
            detection.notes.append("The WebDAV endpoint answered \(dav.status) instead of 401 without credentials.")
        }

        let discovery = try await client.send(HTTPRequest(url: "\(base)/\(paths.wellKnown)/openid-configuration"))
        if let redirect = discovery.redirect {
            detection.redirects.append(redirect)
        } else if discovery.status == 200 {
            switch Self.validate(discovery.body, server: base) {
            case .success(let configuration):
                detection.methods.insert(
                    DetectedAuthenticationMethod(
                        identifier: .openIDConnect, evidence: "OpenID Connect discovery names the issuer \(configuration.issuer).",
                        openIDConfiguration: configuration), at: 0)
            case .failure(let problem):
                detection.notes.append(problem.reason)
                detection.rejectedOpenIDConnect = problem.reason
            }
        }
        logger.privacy.info("Detected \(public: detection.methods.map(\.identifier.rawValue).joined(separator: ", ")) at \(base)", metadata: ["tags": "auth"])
        return detection
    }

    /// A discovery document Vigil accepts: it parses, its issuer is the server (OpenID Connect
    /// Discovery 1.0, section 4.3, against mix-up), and its endpoints are https URLs.
    static func validate(_ body: [UInt8], server: String) -> Result<OpenIDConfiguration, DetectionProblem> {
        guard let configuration = try? JSONDecoder().decode(OpenIDConfiguration.self, from: Data(body)) else {
            return .failure(
                DetectionProblem(reason: "The OpenID Connect discovery document is not valid JSON with issuer, authorization_endpoint and token_endpoint."))
        }
        let issuer = configuration.issuer.hasSuffix("/") ? String(configuration.issuer.dropLast()) : configuration.issuer
        guard issuer == server else {
            return .failure(DetectionProblem(reason: "The OpenID Connect issuer \(configuration.issuer) is not this server (\(server))."))
        }
        let endpoints =
            [configuration.authorizationEndpoint, configuration.tokenEndpoint]
            + [configuration.jwksURI, configuration.registrationEndpoint, configuration.userinfoEndpoint, configuration.revocationEndpoint].compactMap { $0 }
        guard endpoints.allSatisfy({ $0.lowercased().hasPrefix("https://") }) else {
            return .failure(DetectionProblem(reason: "The OpenID Connect discovery document names an endpoint that is not https."))
        }
        return .success(configuration)
    }

    struct DetectionProblem: Error {
        var reason: String
    }
}

/// What detection found.
public struct AuthenticationDetection: Sendable {
    /// Methods offered, OpenID Connect first when present, then as the WebDAV challenge named them.
    public var methods: [DetectedAuthenticationMethod] = []
    /// Answers that pointed elsewhere (not followed): the caller reports them for approval.
    public var redirects: [Redirect] = []
    /// Things seen and not accepted, in words (a discovery document for another issuer, say).
    public var notes: [String] = []
    /// The server offers OpenID Connect through a discovery document that is unsafe to use
    /// (another issuer, an endpoint over plain http): why. Setup refuses such a server rather
    /// than fall back silently to another method.
    public var rejectedOpenIDConnect: String?

    public init() {}
}

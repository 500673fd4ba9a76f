import FoundationEssentials
import Glibc
public import Logging
public import VigilHTTP
import VigilLogging
import VigilText

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
    /// Where the server's WebDAV files and well-known documents are, relative to its URL
    /// (VigilAccounts passes the settings catalogue's defaults, `connection.endpoint-webdav` and
    /// `connection.well-known`).
    public struct Paths: Sendable {
        /// The WebDAV files endpoint, probed with `PROPFIND` for its `WWW-Authenticate` schemes.
        public var webDAV: String
        /// The well-known directory, where WebFinger and the OpenID Connect discovery document are asked.
        public var wellKnown: String
        /// The settings catalogue's default paths unless given.
        public init(webDAV: String = "remote.php/dav/files", wellKnown: String = ".well-known") {
            self.webDAV = webDAV
            self.wellKnown = wellKnown
        }
    }

    /// The trust-gated client every detection request goes through.
    public var client: HTTPClient
    /// Where the endpoints are.
    public var paths: Paths
    /// Where the methods detected are logged (tag `auth`).
    public var logger: Logger

    /// A detector with the default paths and a `vigil.auth` logger unless given.
    public init(client: HTTPClient, paths: Paths = Paths(), logger: Logger = Logger(label: "vigil.auth")) {
        self.client = client
        self.paths = paths
        self.logger = logger
    }

    /// Detects the methods `server` (for example `https://cloud.example.com` or
    /// `https://example.com/owncloud`) offers; `product` is status.php's `productname` (Nextcloud
    /// servers offer Login Flow v2, which their own clients use).
    public func detect(server: String, product: String? = nil) async throws -> AuthenticationDetection {
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        var detection = AuthenticationDetection()
        detection.product = product
        if let product, product.lowercased().contains("nextcloud") {
            detection.methods.append(
                DetectedAuthenticationMethod(
                    identifier: .loginFlowV2, evidence: "status.php names the product \(product), whose clients log in with Login Flow v2."))
        }

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

        // Where the login provider is: WebFinger (as OpenCloud and oCIS clients ask), then the
        // server's discovery document. A provider on another origin is not fetched here: setup
        // reviews its certificate first (``AuthenticationDetection/providerIssuer``).
        let fingered = try await webFingerIssuer(base)
        if case .failure(let problem) = fingered {
            detection.notes.append(problem.reason)
            detection.rejectedOpenIDConnect = problem.reason
        }
        let fingeredIssuer = try? fingered.get()
        let discovery = try await client.send(HTTPRequest(url: "\(base)/\(paths.wellKnown)/openid-configuration"))
        if let redirect = discovery.redirect {
            detection.redirects.append(redirect)
        } else if detection.rejectedOpenIDConnect == nil, discovery.status == 200 {
            let named = (try? JSONDecoder().decode(OpenIDConfiguration.self, from: Data(discovery.body))).map { Self.trimmed($0.issuer) }
            if let named, named != base, Self.isOtherOrigin(named, than: base) {
                // The server points at a provider of its own choosing on another host.
                if let fingeredIssuer, fingeredIssuer != named {
                    let reason = "WebFinger names the OpenID Connect issuer \(fingeredIssuer), the discovery document \(named): they disagree."
                    detection.notes.append(reason)
                    detection.rejectedOpenIDConnect = reason
                } else if !named.lowercased().hasPrefix("https://") {
                    let reason = "The OpenID Connect issuer \(named) is not an https URL."
                    detection.notes.append(reason)
                    detection.rejectedOpenIDConnect = reason
                } else {
                    detection.providerIssuer = named
                }
            } else {
                switch Self.validate(discovery.body, server: base) {
                case .success(let configuration) where fingeredIssuer == nil || fingeredIssuer == base:
                    detection.methods.insert(
                        DetectedAuthenticationMethod(
                            identifier: .openIDConnect, evidence: "OpenID Connect discovery names the issuer \(configuration.issuer).",
                            openIDConfiguration: configuration), at: 0)
                case .success:
                    let reason = "WebFinger names the OpenID Connect issuer \(fingeredIssuer ?? "?"), the discovery document this server: they disagree."
                    detection.notes.append(reason)
                    detection.rejectedOpenIDConnect = reason
                case .failure(let problem):
                    detection.notes.append(problem.reason)
                    detection.rejectedOpenIDConnect = problem.reason
                }
            }
        } else if detection.rejectedOpenIDConnect == nil, let fingeredIssuer, fingeredIssuer != base {
            detection.providerIssuer = fingeredIssuer
        }
        logger.privacy.info("Detected \(public: detection.methods.map(\.identifier.rawValue).joined(separator: ", ")) at \(base)", metadata: ["tags": "auth"])
        return detection
    }

    /// The issuer WebFinger names for `base` (RFC 7033, the OpenID Connect issuer relation); nil
    /// when the server has no WebFinger answer; a failure for an issuer that is not https.
    func webFingerIssuer(_ base: String) async throws -> Result<String?, DetectionProblem> {
        let resource = PercentEncoding.encode(base, allowing: PercentEncoding.isAlphanumeric)
        let relation = PercentEncoding.encode(Self.issuerRelation, allowing: PercentEncoding.isAlphanumeric)
        let answer = try await client.send(HTTPRequest(url: "\(base)/\(paths.wellKnown)/webfinger?resource=\(resource)&rel=\(relation)"))
        guard answer.status == 200, answer.redirect == nil, let object = JSONValue.parseObject(answer.body),
            let links = object["links"]?.array?.compactMap(\.object),
            let href = links.first(where: { $0["rel"]?.string == Self.issuerRelation })?["href"]?.string
        else { return .success(nil) }
        guard href.lowercased().hasPrefix("https://"), URLComponents(string: href)?.host?.isEmpty == false else {
            return .failure(DetectionProblem(reason: "WebFinger names the OpenID Connect issuer \(href), which is not an https URL."))
        }
        return .success(Self.trimmed(href))
    }

    static let issuerRelation = "http://openid.net/specs/connect/1.0/issuer"

    /// `url` without one trailing slash.
    public static func trimmed(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }

    /// Whether `url` is on another origin than `base` (scheme, host or port).
    static func isOtherOrigin(_ url: String, than base: String) -> Bool {
        guard let a = URLComponents(string: url), let b = URLComponents(string: base) else { return true }
        return a.scheme?.lowercased() != b.scheme?.lowercased() || a.host?.lowercased() != b.host?.lowercased() || (a.port ?? 443) != (b.port ?? 443)
    }

    /// A provider's own discovery document (fetched from its issuer by the caller, over a client
    /// that reviewed the provider's certificate): its issuer must be exactly `issuer`.
    public static func validateProvider(_ body: [UInt8], issuer: String) -> Result<OpenIDConfiguration, DetectionProblem> {
        validate(body, server: trimmed(issuer))
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

    /// Why a discovery document or a WebFinger answer was not accepted.
    public struct DetectionProblem: Error {
        /// The reason, in words.
        public var reason: String
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
    /// The server names a login provider on another origin (WebFinger, or its discovery
    /// document): its certificate is reviewed and its own discovery document read before
    /// OpenID Connect is offered (account setup does both).
    public var providerIssuer: String?
    /// The product status.php names (`ownCloud`, `Nextcloud`, `OpenCloud`), when it names one.
    public var product: String?

    /// Nothing found yet.
    public init() {}
}

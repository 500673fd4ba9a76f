import FoundationEssentials
import Glibc
import Logging
import VigilAuth
import VigilCertificates
import VigilHTTP
import VigilLogging
import VigilSecrets
import VigilStore
import VigilText

// The server's URL during setup: user information refused, the administrator's lock, an http URL
// upgraded to its https server, the base a status.php redirect leads to, the WebDAV path of a user.
extension AccountSetup {
    /// Whether a server URL as typed may carry user information: any `@` at all. A password may
    /// hold `/`, `?` or `#`, which no parser can place, so the text is not parsed; a path with an
    /// `@` must be written `%40`.
    static func hasUserInformation(_ url: String) -> Bool { url.contains("@") }

    /// A typed URL shown without what could be user information: the scheme and what follows the
    /// last `@`.
    static func withoutUserInformation(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let scheme = url.firstRange(of: "://").map { String(url[..<$0.upperBound]) } ?? ""
        return scheme + url[url.index(after: at)...]
    }

    /// A server URL for comparison: lower-case scheme and host, no trailing slash, the default port dropped.
    /// With the server locked (`bookmark.url-editable` false and `bookmark.default-url` set), a
    /// redirect may lead nowhere but the locked server (its https form, when the lock names http).
    func checkURLLock(_ target: String, redirect: Redirect) throws {
        guard !options.urlEditable, let locked = options.defaultURL else { return }
        var allowed = [Self.normalized(locked)]
        if locked.lowercased().hasPrefix("http://") { allowed.append(Self.normalized("https://" + locked.dropFirst("http://".count))) }
        guard allowed.contains(Self.normalized(target)) else {
            throw AccountSetupError(
                .policy,
                "The administrator locked the server to \(locked) (bookmark.url-editable is false), and it redirects to \(target); a redirect cannot move the account. Nothing was sent.",
                redirect: redirect)
        }
    }

    static func normalized(_ url: String) -> String {
        guard var parts = URLComponents(string: url.hasSuffix("/") ? String(url.dropLast()) : url) else { return url }
        parts.scheme = parts.scheme?.lowercased()
        parts.host = parts.host?.lowercased()
        if parts.port == 443 && parts.scheme == "https" { parts.port = nil }
        return parts.string ?? url
    }

    /// An http URL (`connection.plain-http-policy`): `forbidden` refuses it before any request;
    /// `warn` asks its status.php, with no credential, where the https server is: an upgrade to
    /// https is offered to the user as a redirect (then that server's certificate is reviewed as
    /// usual); a server that answers over plain HTTP is refused. No credential ever goes over
    /// plain HTTP, whatever the policy.
    func upgradedFromPlainHTTP(_ url: String, interaction: any AccountSetupInteraction) async throws -> String {
        guard options.plainHTTPPolicy == "warn" else {
            throw AccountSetupError(
                .policy, "\(url) is plain HTTP, and connection.plain-http-policy is forbidden; use the server's https URL. Nothing was sent.")
        }
        await interaction.progress("\(url) is plain HTTP: Vigil asks it only where its https server is, and sends no credential over plain HTTP.")
        var configuration = options.clientConfiguration
        configuration.allowPlainHTTP = true
        configuration.cookies = nil
        let plain = HTTPClient(
            policy: EvaluatorTrustPolicy(judge: ConnectionJudge(evaluator: evaluator, requirements: options.requirements)), configuration: configuration,
            logger: logger)
        let answer = try await plain.send(HTTPRequest(url: "\(url)/\(options.statusPath)"))
        guard let redirect = answer.redirect, redirect.location.lowercased().hasPrefix("https://") else {
            throw AccountSetupError(
                .invalidURL, "\(url) answers over plain HTTP (HTTP \(answer.status)) without moving to https; Vigil adds accounts over https only.")
        }
        let target = try Self.serverBase(redirectedTo: redirect, statusPath: options.statusPath)
        try checkURLLock(target, redirect: redirect)
        guard await interaction.approveRedirect(redirect, from: url) else { throw Self.redirectError(redirect) }
        await interaction.progress("Redirect approved: \(url) -> \(target).")
        return target
    }

    /// A user name as one path segment.
    static func pathComponent(_ user: String) -> String {
        PercentEncoding.encode(user, allowing: PercentEncoding.isPathSegmentCharacter)
    }

    /// The server a status.php redirect points to: its location without the status path. A
    /// downgrade, or a location that is not another server's status.php, is not followed.
    static func serverBase(redirectedTo redirect: Redirect, statusPath: String) throws -> String {
        if redirect.isDowngrade || redirect.carriesUserInformation { try stopOnRedirect(redirect) }
        var location = redirect.location
        if let query = location.firstIndex(where: { $0 == "?" || $0 == "#" }) { location = String(location[..<query]) }
        guard location.hasSuffix("/" + statusPath) else {
            throw AccountSetupError(
                .redirected, "status.php redirects (\(redirect.status)) to \(redirect.location), which is not a server's status.php; not followed.",
                redirect: redirect)
        }
        return String(location.dropLast(statusPath.count + 1))
    }
}

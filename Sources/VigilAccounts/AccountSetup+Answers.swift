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

// What the server answered, judged: status.php, redirects, the user the login belongs to, the
// files a login can reach, the method chosen.
extension AccountSetup {
    /// A login proved on the user's files (a `PROPFIND` of their root answered 207) before
    /// anything keeps it.
    /// The user a token belongs to, as the server says (its OCS user endpoint, `data.id`): a
    /// provider may name users by an opaque `sub`, and only the server knows whose files the
    /// token opens. It must be `expected` (the login hint the user gave; compared without case,
    /// as ownCloud's user ids are), else nothing is kept and both names are shown. A server that
    /// does not answer leaves `expected` (the files check that follows proves the token on them).
    func loggedInUser(_ login: AuthenticationLogin, base: String, expected: String, client: HTTPClient) async throws -> String {
        let answer = try? await login.authorization.withValue { authorization in
            try await client.send(
                HTTPRequest(
                    url: "\(base)/\(options.userPath)?format=json",
                    headers: [(name: "Authorization", value: authorization), (name: "OCS-APIREQUEST", value: "true")]),
                retryingAfter: options.newTokenRetryDelays, when: { $0.status == 401 }
            ).response
        }
        guard let answer, answer.status == 200, let object = JSONValue.parseObject(answer.body),
            let data = object["ocs"]?.object?["data"]?.object, let id = data["id"]?.string, !id.isEmpty
        else {
            // Fails closed: with a provider's opaque sub, only the server can say whose the token is.
            throw AccountSetupError(
                .responseRejected,
                "\(base) did not say whose the token is (its user endpoint \(options.userPath) answered \(answer.map { "HTTP \($0.status)" } ?? "nothing")); nothing is kept."
            )
        }
        guard id.lowercased() == expected.lowercased() else {
            throw AccountSetupError(
                .responseRejected,
                "The browser login was \(SafeText.escaped(id))'s, not \(SafeText.escaped(expected))'s (the server says whose the token is); nothing is kept. Log in as \(SafeText.escaped(expected)), or add the account as \(SafeText.escaped(id))."
            )
        }
        return id
    }

    func checkFiles(_ login: AuthenticationLogin, base: String, user: String, client: HTTPClient, newToken: Bool) async throws {
        // A token just issued may not be known to every node yet: a 401 is retried (bounded); a
        // password's 401 is final at once.
        let root = "\(base)/\(options.paths.webDAV)/\(Self.pathComponent(user))/"
        let outcome = try await login.authorization.withValue { authorization in
            try await FilesProbe(client: client).run(rootURL: root, authorization: authorization, retryingAfter: newToken ? options.newTokenRetryDelays : [])
        }
        try Self.judge(outcome, base: base, refusal: login.refusal)
    }

    /// A files probe's outcome as a setup error, or nothing when the files work.
    static func judge(_ outcome: FilesProbe.Outcome, base: String, refusal: String) throws {
        switch outcome.listStatus {
        case 207: break
        case 401, 403: throw AccountSetupError(.wrongCredentials, refusal.hasSuffix("?") ? "\(refusal) (HTTP \(outcome.listStatus))" : refusal)
        default: throw notWebDAV(outcome.listing, base: base)
        }
        if let status = outcome.downloadStatus, !outcome.isWorking {
            throw AccountSetupError(
                .serverError,
                "\(base) lists the user's files but answered the download of \(SafeText.escaped(outcome.downloaded ?? "a file")) with HTTP \(status): the server cannot serve files (a storage fault?). The account was not added."
            )
        }
    }

    /// The WebDAV check answered with something other than a multi-status, in words: an HTML page
    /// is most likely an access-policy manager's or a captive portal's login page.
    static func notWebDAV(_ response: HTTPResponse, base: String) -> AccountSetupError {
        let type = response.header("Content-Type")?.lowercased() ?? ""
        if type.contains("text/html") || response.body.starts(with: Array("<!DOCTYPE".utf8)) || response.body.starts(with: Array("<html".utf8)) {
            return AccountSetupError(
                .notACloudServer,
                "\(base) answered the WebDAV check with an HTML page (HTTP \(response.status)), not WebDAV: a login page of an access-policy manager or captive portal in front of the server? Log in to it in a browser, or ask its admin."
            )
        }
        return AccountSetupError(.notACloudServer, "\(base) answered the WebDAV check with HTTP \(response.status) instead of a WebDAV multi-status.")
    }

    /// The policy refused a chain after the review: the server's certificate changed meanwhile.
    static func certificateChanged(at endpoint: Endpoint, _ error: HTTPError) -> AccountSetupError {
        AccountSetupError(.certificateRejected, "\(endpoint) presented a certificate other than the one reviewed; nothing was sent. \(error.reason)")
    }

    static func stopOnRedirect(_ redirect: Redirect?) throws {
        if let redirect { throw redirectError(redirect) }
    }

    /// A redirected answer as an error: the gateway's hold (``HTTPResponse/heldByAccessGateway``),
    /// unavailable for now after `tries`, or the server's redirect, not followed.
    static func redirectError(_ answer: HTTPResponse, tries: Int) -> AccountSetupError? {
        if let proxy = AccessProxyPage.recognize(answer) {
            return AccessProxyPage.error(proxy, at: "the server", hadHeaders: false)
        }
        guard let redirect = answer.redirect else { return nil }
        guard answer.heldByAccessGateway else { return redirectError(redirect) }
        return AccountSetupError(
            .unavailable,
            "An access gateway in front of the server sends Vigil to \(redirect.location) and lets it no further (no session cookie), through \(tries) tries: it is unavailable for now; try again later.",
            redirect: redirect)
    }

    static func redirectError(_ redirect: Redirect) -> AccountSetupError {
        var what = "The server redirects (\(redirect.status)) to \(redirect.location)"
        if redirect.isDowngrade {
            what += ", which is plain HTTP: never followed. " + PlainHTTPAdvice.text(server: PlainHTTPAdvice.httpsOrigin(of: redirect.location), product: nil)
            return AccountSetupError(.redirected, what, redirect: redirect)
        } else if redirect.carriesUserInformation {
            what += " with a user name or password in the URL (not shown): never followed"
        } else if redirect.changesHost {
            what += ", another host: add the account with that URL to review its certificate"
        } else {
            what += ": add the account with that URL if it is expected"
        }
        return AccountSetupError(.redirected, what + ".", redirect: redirect)
    }

    static func checkStatus(_ response: HTTPResponse, base: String, tries: Int = 1, minimumVersion: String = "0") throws {
        if [404, 502, 503].contains(response.status) {
            let what =
                response.status == 404
                ? "404 Not Found (no ownCloud/OpenCloud at this URL, or a node that is not up yet)"
                : "\(response.status) (the server or a proxy in front of it is unavailable)"
            throw AccountSetupError(
                .notACloudServer, "\(base) answered status.php with \(what), \(tries) times with pauses; check the URL, or try again later.")
        }
        guard response.status == 200, let object = JSONValue.parseObject(response.body),
            object["installed"]?.bool == true
        else {
            throw AccountSetupError(.notACloudServer, "\(base) does not answer status.php like an ownCloud/OpenCloud server (HTTP \(response.status)).")
        }
        if object["maintenance"]?.bool == true {
            throw AccountSetupError(.maintenance, "\(base) is in maintenance mode; try again later.")
        }
        if let version = object["version"]?.string, Self.version(version, isBelow: minimumVersion) {
            throw AccountSetupError(
                .notACloudServer, "\(base) runs version \(version), below the oldest Vigil accepts (\(minimumVersion), connection.minimum-server-version).")
        }
    }

    /// Dotted versions compared number by number (`8.2.11.3` is below `10.0`); text that is not
    /// numbers is never below.
    static func version(_ version: String, isBelow minimum: String) -> Bool {
        // Each component's leading digits (`8.2-beta` is 8.2); a component without any is not a number.
        let parts = { (text: String) in text.split(separator: ".").map { Int($0.prefix { $0.isNumber }) } }
        let have = parts(version), want = parts(minimum)
        guard !have.contains(nil), !want.contains(nil) else { return false }
        for index in 0..<max(have.count, want.count) {
            let a = index < have.count ? have[index]! : 0, b = index < want.count ? want[index]! : 0
            if a != b { return a < b }
        }
        return false
    }

    static func choose(ranked: [AuthenticationMethodIdentifier], forced: AuthenticationMethodIdentifier?) throws -> AuthenticationMethodIdentifier {
        if let forced {
            guard ranked.contains(forced) else {
                throw AccountSetupError(.noUsableMethod, "\(forced.rawValue) is not offered by the server or not allowed by the settings.")
            }
            return forced
        }
        guard let first = ranked.first else {
            throw AccountSetupError(.noUsableMethod, "No authentication method the server offers is allowed by the settings.")
        }
        return first
    }
}

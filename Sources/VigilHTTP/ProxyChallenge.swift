internal import CCurl
import FoundationEssentials
import Synchronization
import VigilLogging
import VigilText

/// What a proxy asked for in its `407 Proxy Authentication Required`: its schemes and realm.
public struct ProxyChallenge: Sendable, Hashable {
    /// The proxy that asked.
    public var proxy: ProxyIdentity
    /// The schemes it offered (`Basic`, `Digest`, `Negotiate`, `NTLM`), in its order.
    public var schemes: [String]
    /// The realm it named, if any.
    public var realm: String?
    /// The 407 answered a CONNECT (the proxy's own answer); false for a plain-HTTP request sent
    /// through the proxy, whose 407 the server behind it could have written: no kept credential
    /// is ever sent for that one.
    public var tunnelled = true

    /// The `Proxy-Authenticate` values of the 407, read into schemes and a realm.
    init(proxy: ProxyIdentity, fields: [String]) {
        self.proxy = proxy
        var schemes: [String] = []
        var realm: String?
        for field in fields {
            // One field may hold several challenges (`Basic realm="x", Digest realm="x", nonce=...`):
            // split at commas outside quotes; a piece that starts with a token and no '=' names a scheme.
            var pieces: [String] = [""]
            var quoted = false
            for character in field {
                if character == "\"" { quoted.toggle() }
                if character == ",", !quoted { pieces.append("") } else { pieces[pieces.count - 1].append(character) }
            }
            for piece in pieces {
                guard let word = piece.split(separator: " ").first.map(String.init), !word.contains("="), word.count <= 40,
                    word.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0 | 0x20) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E })
                else { continue }
                if !schemes.contains(where: { $0.lowercased() == word.lowercased() }) { schemes.append(word) }
            }
            if realm == nil, let match = field.firstMatch(of: #/realm\s*=\s*"([^"]*)"/#.ignoresCase()) { realm = String(match.output.1) }
        }
        self.schemes = schemes
        self.realm = realm
    }

    /// The schemes in words (`Basic, Digest`), escaped: the proxy's text is hostile.
    var shownSchemes: String { schemes.isEmpty ? "none named" : schemes.map { SafeText.escaped(String($0.prefix(40))) }.joined(separator: ", ") }
    /// ` (realm "x")`, escaped, or nothing.
    var shownRealm: String { realm.map { " (realm \"\(SafeText.escaped(String($0.prefix(100))))\")" } ?? "" }

    /// The proxy's 407 after a transfer on `handle` through `proxy` (nil: direct), as an error:
    /// a CONNECT's (the proxy's own answer), or, for a plain-HTTP request sent through it, the
    /// request's 407 (which the server behind the proxy could have written: not `tunnelled`).
    static func raised(
        on handle: UnsafeMutableRawPointer, by proxy: ProxyIdentity?, answer: ProxyAnswer, plainRequest: Bool, offer: ProxyChoice.Offer, curlCode: CURLcode
    ) -> HTTPError? {
        guard let proxy else { return nil }
        var connectCode = 0
        _ = vigil_curl_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &connectCode)
        var status = 0
        if plainRequest { _ = vigil_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) }
        // A tunnel that failed before any request: the last answer the header callback saw is
        // the CONNECT's (a probe sends nothing else).
        let tunnelled = connectCode == 407 || (!plainRequest && curlCode != CURLE_OK && answer.status == 407)
        guard tunnelled || status == 407 else { return nil }
        var challenge = ProxyChallenge(proxy: proxy, fields: answer.challenges)
        challenge.tunnelled = tunnelled
        return challenge.error(offered: offer, curlCode: Int(curlCode.rawValue))
    }

    /// The proxy's refusal of a CONNECT other than 407, as what it is: the proxy could not reach
    /// the server (502, 503, 504), or its rules refused the tunnel (403 and the rest); nil when
    /// no proxy was used or the tunnel was not refused. Never "the TLS handshake failed": no
    /// handshake with the server began.
    static func tunnelRefused(on handle: UnsafeMutableRawPointer, by proxy: ProxyIdentity?, to origin: String, curlCode: CURLcode)
        -> HTTPError?
    {
        // Only the CONNECT's own answer, from an http or https proxy: never a status the server
        // behind it could have written (a request may have gone out then).
        guard let proxy, ["http", "https"].contains(proxy.scheme) else { return nil }
        var connectCode = 0
        _ = vigil_curl_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &connectCode)
        let status = connectCode
        guard status >= 300, status != 407 else { return nil }
        let said =
            [502, 503, 504].contains(status)
            ? "could not reach \(origin) (it answered CONNECT with \(status)): the server may be down, or the proxy may not reach it"
            : "refused to open a tunnel to \(origin) (it answered CONNECT with \(status)): its rules may forbid it; its administrator can say"
        return HTTPError(.proxy, "The proxy \(proxy) \(said). Nothing was sent to the server.", curlCode: Int(curlCode.rawValue))
    }

    /// The error for this 407: no usable credential (`required`), or the credential refused.
    func error(offered: ProxyChoice.Offer, curlCode: Int?) -> HTTPError {
        // Basic over a plain proxy is all it offers: the one command that works says the consent
        // it needs, and the user already named when one is kept.
        let clearTextOnly = proxy.isPlain && !schemes.isEmpty && schemes.allSatisfy { $0.lowercased() == "basic" }
        let login = SuggestedCommand.line(
            ["vigil", "proxy", "login", proxy.description, "--user", offered.user ?? "NAME"] + (clearTextOnly ? ["--allow-clear-text"] : []))
        var error: HTTPError
        if let user = offered.user, !offered.clearTextRefused || schemes.contains(where: { $0.lowercased() != "basic" }) {
            error = HTTPError(
                .proxyAuthenticationRefused,
                "The proxy \(proxy) refused the credential of \(SafeText.escaped(user))\(shownRealm); it offers \(shownSchemes). Nothing was sent to the server. Log in again: \(login).",
                curlCode: curlCode)
        } else if offered.user != nil {
            error = HTTPError(
                .proxyAuthenticationRequired,
                "The proxy \(proxy) asks for a login\(shownRealm) by \(shownSchemes) only: Basic over a plain-http proxy shows the password to the network, and you did not agree to it. Use an https proxy, or agree: \(login). Nothing was sent.",
                curlCode: curlCode)
        } else if !schemes.isEmpty, schemes.allSatisfy({ $0.lowercased() == "negotiate" }), tunnelled {
            // Kerberos alone: no password to keep; the user's ticket is what is missing.
            error = HTTPError(
                .proxyAuthenticationRequired,
                "The proxy \(proxy) asks for a login (407 Proxy Authentication Required)\(shownRealm). \(KerberosTicket.advice(proxy: proxy)) Nothing was sent to the server.",
                curlCode: curlCode)
        } else {
            error = HTTPError(
                .proxyAuthenticationRequired,
                "The proxy \(proxy) asks for a login (407 Proxy Authentication Required)\(shownRealm); it offers \(shownSchemes)."
                    + (clearTextOnly
                        ? " Basic over a plain-http proxy shows the password to the network: keep it only if you agree (or use an https proxy): \(login)."
                        : " Keep a password for it with: \(login).") + " Nothing was sent to the server.",
                curlCode: curlCode)
        }
        error.proxyChallenge = self
        return error
    }
}

/// The proxy's answers to CONNECT (or to a plain-HTTP request through it), as libcurl's header
/// callback gives them: the last status and its `Proxy-Authenticate` fields.
final class ProxyAnswer: Sendable {
    private struct State {
        var status = 0
        var challenges: [String] = []
    }
    private let state = Mutex(State())

    var status: Int { state.withLock { $0.status } }
    var challenges: [String] { state.withLock { $0.challenges } }

    /// One header line.
    func read(_ line: String) {
        state.withLock { state in
            if line.hasPrefix("HTTP/") {
                let words = line.split(separator: " ")
                state.status = words.count > 1 ? Int(words[1]) ?? 0 : 0
                state.challenges = []
            } else if let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "proxy-authenticate", state.challenges.count < 16 {
                state.challenges.append(String(line[line.index(after: colon)...].trimmingWhitespace().prefix(2000)))
            }
        }
    }

    /// libcurl's header callback for a probe (no other use of the headers).
    static let callback: vigil_curl_data_callback = { data, size, count, context in
        let length = size * count
        guard let context, let data, length > 0 else { return length }
        let answer = Unmanaged<ProxyAnswer>.fromOpaque(context).takeUnretainedValue()
        answer.read(data.withMemoryRebound(to: UInt8.self, capacity: length) { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) })
        return length
    }
}

/// The proxies whose CONNECT answered 407 for one ``ProxyConfiguration`` (one command, one
/// scenario of the suite), with the schemes they offered: asked once, answered at once after.
final class ProxyChallengeMemory: Sendable {
    private let askedBy = Mutex<[ProxyIdentity: [String]]>([:])

    /// The schemes `proxy` asked for before; nil when it has not asked.
    func asked(by proxy: ProxyIdentity) -> [String]? { askedBy.withLock { $0[proxy] } }

    /// `proxy` answered a CONNECT with 407, offering `schemes`.
    func remember(_ proxy: ProxyIdentity, schemes: [String]) { askedBy.withLock { $0[proxy] = schemes } }
}

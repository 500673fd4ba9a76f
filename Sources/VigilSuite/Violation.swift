/// One thing a client did that no known gap excuses, as the judge found it: a stable code that a
/// CI pipeline and the tests assert on, and the words with where the evidence is. In
/// `vigil simulate --json` (each result's `violations`) and in JUnit (the failure's type).
package struct Violation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A violation's stable code (docs/ci.md lists them).
    package struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The code as written (`data-to-untrusted`).
        package let rawValue: String
        /// A code.
        package init(rawValue: String) { self.rawValue = rawValue }
        /// The code as written.
        package var description: String { rawValue }

        /// Application data on a connection to a host the client was not entitled to trust.
        package static let dataToUntrusted = Code(rawValue: "data-to-untrusted")
        /// Application data on a TLS 1.0 or 1.1 connection (RFC 8996).
        package static let legacyTLS = Code(rawValue: "legacy-tls")
        /// A credential over plain HTTP, or in clear text on a TLS port.
        package static let clearTextCredential = Code(rawValue: "clear-text-credential")
        /// A credential at a host whose certificate the client was not entitled to trust.
        package static let credentialToUntrusted = Code(rawValue: "credential-to-untrusted")
        /// A credential at a host the user never agreed to (not where setup started, not an approved redirect).
        package static let credentialToUnagreedHost = Code(rawValue: "credential-to-unagreed-host")
        /// The client certificate presented to a host the client may not trust, or the user never agreed to.
        package static let clientCertificateDisclosed = Code(rawValue: "client-certificate-disclosed")
        /// An access proxy's headers at another origin than the one they were given for.
        package static let accessHeadersElsewhere = Code(rawValue: "access-headers-elsewhere")
        /// A proxy's credential disclosed (pre-emptive, to another proxy, in clear without consent, outside Proxy-Authorization).
        package static let proxyCredentialDisclosed = Code(rawValue: "proxy-credential-disclosed")
        /// A credential of the user's at a proxy, outside Proxy-Authorization.
        package static let credentialToProxy = Code(rawValue: "credential-to-proxy")
        /// A connection that went around the proxy the client was told to use.
        package static let proxyBypassed = Code(rawValue: "proxy-bypassed")
        /// A refresh token presented again after it was used (a replay: a provider with reuse
        /// detection revokes the whole family).
        package static let refreshTokenReplayed = Code(rawValue: "refresh-token-replayed")
        /// A login with a token from a provider whose answers the client should have refused.
        package static let tokenFromFaultyProvider = Code(rawValue: "token-from-faulty-provider")
        /// A request to a server the user never agreed to.
        package static let requestToUnagreedHost = Code(rawValue: "request-to-unagreed-host")
        /// A request to a server after the user declined its certificate.
        package static let requestAfterDecline = Code(rawValue: "request-after-decline")
        /// The client says it logged in; the server accepted none of its credentials.
        package static let loginNotProved = Code(rawValue: "login-not-proved")
        /// An account or an approval saved without the user's consent.
        package static let savedWithoutConsent = Code(rawValue: "saved-without-consent")
        /// The scenario's database cannot be read.
        package static let databaseUnreadable = Code(rawValue: "database-unreadable")
        /// An error reported without a message.
        package static let silentError = Code(rawValue: "silent-error")
        /// A planted secret in a log line or a message shown (invariant 2).
        package static let secretInLog = Code(rawValue: "secret-in-log")
        /// A planted secret in a file (invariant 3).
        package static let secretInFile = Code(rawValue: "secret-in-file")
        /// The keyring not exactly as expected (invariant 4).
        package static let keyring = Code(rawValue: "keyring")
        /// A secret at a host outside the scenario (a crash reporter, telemetry, a second address).
        package static let secretToOtherHost = Code(rawValue: "secret-to-other-host")
        /// The client (or a process of it) reached for something outside its cell: the system or
        /// session bus, systemd, a display server (``ClientCell``).
        package static let cellEscapeAttempt = Code(rawValue: "cell-escape-attempt")
        /// A secret in a TLS ClientHello (the server name, ALPN), which crosses the network in clear.
        package static let secretInClientHello = Code(rawValue: "secret-in-client-hello")
    }

    /// The code.
    package var code: Code
    /// The violation in words, with where the evidence is.
    package var message: String

    /// A violation with `code` and `message`.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    package var description: String { message }
}

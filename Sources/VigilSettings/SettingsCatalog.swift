/// Every setting Vigil knows. Names follow the ownCloud MDM tables (shared/seeds) where one exists.
public enum SettingsCatalog {
    /// The authentication method identifiers the method settings accept.
    public static let authenticationMethods = ["com.owncloud.basicauth", "com.owncloud.oauth2", "com.owncloud.openid-connect", "com.nextcloud.login-flow-v2"]
    /// The values of `log.level`, lowest first; `off` logs nothing.
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical", "off"]
    /// `log.enabled-components`, the seeds' names: the writers, and HTTP exchange logging.
    public static let logComponentStandardError = "writer.stderr"
    /// `writer.file`: the log file.
    public static let logComponentFile = "writer.file"
    /// `option.log-requests-and-responses`: HTTP exchanges logged, as `log.http-requests`.
    public static let logComponentRequests = "option.log-requests-and-responses"
    /// The placeholders `http.user-agent` may use.
    public static let userAgentPlaceholders = ["app.name", "app.version", "os.name", "os.version", "host.name"]

    /// The keys named as in the seeds' MDM tables (the ownCloud iOS app's managed settings,
    /// shared/seeds); every other key is Vigil's own. docs/settings.md shows which.
    public static let seedsKeys: Set<String> = [
        "connection.allowed-authentication-methods", "connection.preferred-authentication-methods", "connection.plain-http-policy",
        "connection.renewed-certificate-acceptance-rule", "core.cookie-support-enabled", "connection.validator-flags", "connection.minimum-server-version",
        "connection.endpoint-status", "connection.endpoint-webdav", "connection.endpoint-capabilities", "connection.endpoint-user", "connection.well-known",
        "bookmark.default-url", "bookmark.url-editable", "authentication-oauth2.oa2-authorization-endpoint", "authentication-oauth2.oa2-token-endpoint",
        "authentication-oauth2.oa2-client-id", "authentication-oauth2.oa2-client-secret", "authentication-oauth2.oa2-expiration-override-seconds",
        "http.user-agent", "log.level", "log.enabled-components", "log.privacy-mask", "log.format", "log.only-tags", "log.omit-tags", "log.only-matching",
        "log.omit-matching", "log.maximum-message-size", "log.single-lined", "log.blank-filtered-messages", "log.colored", "log.synchronous",
        "host-simulator.active-simulations", "user-settings.allow", "user-settings.disallow",
    ]

    /// The seeds' keys Vigil does not read, each with the reason: they belong to the iOS app's
    /// user interface or networking, to features Vigil does not have (file sync, sharing,
    /// thumbnails), or are the SDK's debugOnly switches that would weaken a security decision.
    public static let seedsKeysNotAdopted: [(key: String, reason: String)] = [
        ("action.allowed, action.disallowed", "the app's file actions (copy, share, delete...); Vigil has no file browser"),
        (
            "app.app-store-link, app.enable-review-prompt, app.enable-ui-animations, app.is-beta-build, app.recommend-to-friend-enabled, app.show-beta-warning",
            "the iOS app's user interface"
        ),
        (
            "authentication-oauth2.oa2-redirect-uri",
            "a custom URI scheme (oc://) that the iOS app receives; a command-line client receives the redirect on loopback (RFC 8252), its port set by authentication-oauth2.oa2-redirect-port"
        ),
        ("connection.allow-background-url-sessions, connection.force-background-url-sessions, connection.allow-cellular", "iOS networking"),
        (
            "connection.always-request-private-link, connection.endpoint-recipients, connection.endpoint-remote-shares, connection.endpoint-shares, connection.endpoint-thumbnail, connection.endpoint-webdav-meta",
            "sharing, private links, thumbnails and file metadata, which Vigil does not use"
        ),
        (
            "connection.transparent-temporary-redirect",
            "debugOnly in the seeds; Vigil reports every redirect for approval and never resends a request's credentials or body by itself (security guide)"
        ),
        (
            "core.action-concurrency-budgets, core.scan-for-changes-interval, core.thumbnail-available-for-mime-type-prefixes, item-policy.local-copy-expiration, item-policy.local-copy-expiration-enabled, item-policy.vacuum-sync-anchor-ttl",
            "the sync engine; Vigil does not sync files"
        ),
        (
            "core.override-availability-signal, core.override-reachability-signal",
            "debugOnly; Vigil reads maintenance from status.php and never assumes a host reachable or unreachable"
        ),
        ("measurements.enabled", "debugOnly; Vigil's measurements are its benchmarks (docs/performance.md)"),
        (
            "passcode.enforced, passcode.maximumPasscodeDigits, passcode.requiredPasscodeDigits",
            "the iOS app's passcode; Vigil's secrets are behind the user's keyring"
        ),
    ]

    /// The ownCloud app's renewed-certificate rule, the default of `connection.renewed-certificate-acceptance-rule`.
    public static let seedsRenewedCertificateRule =
        "(bookmarkCertificate.publicKeyData == serverCertificate.publicKeyData) OR ((check.parentCertificatesHaveIdenticalPublicKeys == true) AND (serverCertificate.passedValidationOrIsUserAccepted == true))"

    /// Every setting, in the order of docs/settings.md and ``Settings/orderedEntries``.
    public static let all: [SettingDefinition] = [
        // Connection
        .init(
            "connection.allowed-authentication-methods", .choiceList(authenticationMethods), default: nil,
            "Authentication methods that may be used, by identifier. Unset: every method the server offers."),
        .init(
            "connection.preferred-authentication-methods", .choiceList(authenticationMethods),
            default: .strings(["com.owncloud.openid-connect", "com.owncloud.oauth2", "com.nextcloud.login-flow-v2", "com.owncloud.basicauth"]),
            "Authentication methods in order of preference, most preferred first."),
        .init(
            "connection.plain-http-policy", .choice(["warn", "forbidden"]), default: .string("warn"),
            "Plain (unencrypted) http URLs: `warn` lets one lead to its https server (status.php asked without credentials, the upgrade approved by the user); `forbidden` refuses them before any request. No credential ever goes over plain HTTP."
        ),
        .init(
            "connection.minimum-tls-version", .choice(["1.2", "1.3"]), default: .string("1.2"),
            "The oldest TLS version Vigil accepts for connections that carry credentials."),
        .init(
            "connection.revocation-policy", .choice(["off", "soft-fail", "hard-fail"]), default: .string("soft-fail"),
            "Whether revocation decides: the server's stapled OCSP answer is always read; `soft-fail` also asks the CA's OCSP responders and CRLs (bounded, cached) and shows a status it cannot learn as a finding; `hard-fail` refuses a certificate that names a responder or CRL when no usable answer comes; `off` fetches nothing and does not enforce must-staple. A certificate found revoked is refused under every policy, and no approval overrides it."
        ),
        .init(
            "connection.locally-added-roots", .choice(["trust", "ask", "refuse"]), default: .string("trust"),
            "Chains that end in a root added to this machine's trust store, not a public root (Mozilla's root program as ca-certificates ships it): a TLS-inspecting proxy or a private CA. `trust`: the organisation's choice stands, judged by the rfc5280 profile, and a finding names the root; `ask`: untrusted until the user approves the server's certificate at account setup; `refuse`: untrusted, and no approval overrides it."
        ),
        .init(
            "connection.proxy", .proxy, default: .string("system"),
            "The proxy every connection goes through. `system`: `connection.proxy-autoconfig-url` when set, else the `https_proxy`/`http_proxy`/`all_proxy` variables (minus `no_proxy`), else the desktop's (GNOME's org.gnome.system.proxy: manual, or a PAC URL), else direct; `none`: direct; or a proxy URL (http://, https://, socks5h://). A proxy's password is kept in the keyring (`vigil proxy login`), never here. See docs/proxies.md."
        ),
        .init(
            "connection.proxy-autoconfig-url", .autoconfigURL, default: nil,
            "A proxy auto-config (PAC) file, http://, https:// (verified like any server) or file://, evaluated for each URL (with `connection.proxy` `system` or unset). A PAC file that cannot be loaded or run is an error, never a silent direct connection. No WPAD discovery."
        ),
        .init(
            "connection.pinned-public-keys", .pinList, default: nil,
            "Public keys a host's chain must contain, as HOST[:PORT]=PIN (the SPKI SHA-256 in base64, RFC 7469; `vigil inspect` shows it). A pinned host accepts no other chain, even one a CA trusts, and no approval overrides it. Usually set in the managed file."
        ),
        .init(
            "connection.approved-certificates", .fingerprintList, default: nil,
            "Certificates approved in advance, as HOST[:PORT]=SHA256 (the leaf's SHA-256 fingerprint): account setup accepts them without asking, as if the user had approved them after review; what no approval can make safe is still refused. Usually set in the managed file."
        ),
        .init(
            "connection.certificate-policies", .oidList, default: nil,
            "RFC 5280's initial policy set: the certificate policies a chain must be valid for (dotted OIDs). Unset: any policy, as RFC 5280 has it. Matters where a CA or `connection.require-explicit-policy` demands an explicit policy."
        ),
        .init(
            "connection.require-explicit-policy", .bool, default: .bool(false),
            "RFC 5280's initial-explicit-policy: every chain must be valid for a policy of `connection.certificate-policies`, even where no CA demands it."
        ),
        .init(
            "connection.inhibit-policy-mapping", .bool, default: .bool(false),
            "RFC 5280's initial-policy-mapping-inhibit: no CA's policy mappings are followed."),
        .init(
            "connection.inhibit-any-policy", .bool, default: .bool(false),
            "RFC 5280's initial-any-policy-inhibit: a CA's anyPolicy does not stand for every policy."),
        .init(
            "connection.certificate-extended-validation-rule", .rule, default: nil,
            "A rule every server certificate must also pass (rule language of the certificate store). Unset: no extra rule."),
        .init(
            "connection.renewed-certificate-acceptance-rule", .rule, default: .string(seedsRenewedCertificateRule),
            "When a changed certificate of an approved server is accepted without asking (the ownCloud app's default rule)."),
        .init(
            "core.cookie-support-enabled", .bool, default: .bool(true),
            "Keep cookies per account in memory (never on disk), as an access-policy manager in front of the server needs; its login round trip is followed on the same https origin only."
        ),
        .init(
            "connection.validator-flags", .choiceList(["502-triggers", "clear-cookies"]), default: .strings(["502-triggers", "clear-cookies"]),
            "How status.php is validated again when it does not answer: `502-triggers` tries again after a 502 too (404 and 503 always are); `clear-cookies` forgets the cookies before trying again (an access-policy manager's stale session)."
        ),
        .init(
            "connection.minimum-server-version", .string, default: .string("10.0"),
            "The oldest server version (status.php's `version`, dotted numbers) account setup accepts; older ones are reported, not added."),
        .init("connection.endpoint-status", .string, default: .string("status.php"), "Path of the status endpoint that identifies a server."),
        .init("connection.endpoint-webdav", .string, default: .string("remote.php/dav/files"), "Path of the WebDAV endpoint."),
        .init("connection.endpoint-capabilities", .string, default: .string("ocs/v2.php/cloud/capabilities"), "Path of the capabilities endpoint."),
        .init("connection.endpoint-user", .string, default: .string("ocs/v2.php/cloud/user"), "Path of the endpoint describing the logged-in user."),
        .init("connection.well-known", .string, default: .string(".well-known"), "Path of the .well-known directory (WebFinger, OpenID Connect discovery)."),
        // Bookmarks
        .init("bookmark.default-url", .url, default: nil, "The server URL proposed when adding an account."),
        .init("bookmark.url-editable", .bool, default: .bool(true), "Whether the user may change the proposed server URL."),
        // OAuth2
        .init(
            "authentication-oauth2.oa2-authorization-endpoint", .string, default: .string("index.php/apps/oauth2/authorize"),
            "OAuth2 authorization endpoint, relative to the server URL."),
        .init(
            "authentication-oauth2.oa2-token-endpoint", .string, default: .string("index.php/apps/oauth2/api/v1/token"),
            "OAuth2 token endpoint, relative to the server URL."),
        .init("authentication-oauth2.oa2-client-id", .string, default: nil, "OAuth2 client id registered for Vigil on the server."),
        .init("authentication-oauth2.oa2-client-secret", .string, default: nil, "OAuth2 client secret, if the client is confidential.", secret: true),
        .init(
            "authentication-oauth2.oa2-client-server", .url, default: nil,
            "The server the configured OAuth2 client (id and secret) is registered on; unset, `bookmark.default-url`. The client is used there and nowhere else: on any other server Vigil acts as if none were configured (OAuth2 falls back to the next method; OpenID Connect registers a client of its own), so that an organisation's secret never reaches another server."
        ),
        .init(
            "authentication-oauth2.oa2-redirect-port", .integer(0...65_535), default: .integer(0),
            "Port of the loopback redirect URI (RFC 8252); 0 picks a free port for each login."),
        .init(
            "authentication-oauth2.oa2-expiration-override-seconds", .integer(1...31_536_000), default: nil,
            "Treat access tokens as expiring after this many seconds (for testing refresh)."),
        .init(
            "authentication.browser-timeout-seconds", .integer(10...3_600), default: .integer(300),
            "How long `account add` and `account login` wait for a browser login (OAuth2, OpenID Connect, Nextcloud's login flow, which ends after 20 minutes anyway) before giving up; `--browser-timeout` overrides it for one command. Ctrl-C stops the wait at once."
        ),
        // OpenID Connect
        .init(
            "authentication-oidc.scope", .string, default: .string("openid offline_access email profile"), "Scopes requested from the OpenID Connect provider."),
        .init("authentication-oidc.prompt", .string, default: .string("select_account consent"), "The prompt parameter sent with the authorization request."),
        .init("authentication-oidc.register-client", .bool, default: .bool(true), "Register a client dynamically (RFC 7591) when the provider supports it."),
        // HTTP
        .init(
            "http.user-agent", .template(placeholders: userAgentPlaceholders), default: .string("Vigil/{{app.version}} ({{os.name}} {{os.version}})"),
            "The User-Agent header; placeholders are filled in at run time."),
        // Server check
        .init(
            "server-check.connections-at-once", .integer(1...8), default: .integer(2),
            "How many connections `vigil server check` keeps open to a server at once (TLS versions scanned side by side, each one handshake at a time). sslyze opens up to 5."
        ),
        .init(
            "server-check.daily", .bool, default: .bool(false),
            "The daily check (`vigil-check.timer`) also checks every account's server (`vigil server check --daily`) and puts in the journal only the findings a server did not have the day before. Off by default: it scans servers the user may not run."
        ),
        .init(
            "server-check.connections-per-second", .integer(1...1_000), default: .integer(200),
            "How many connections `vigil server check` starts per second at most, spaced evenly: a whole scan is 15 to 60 handshakes, none of them sends a request (sslyze opened about 500 a second here, sslscan as many as it can)."
        ),
        // Logging
        .init(
            "log.level", .choice(logLevels), default: .string("info"),
            "The lowest level that is logged; `off` logs nothing (errors are still reported as messages)."),
        .init(
            "log.enabled-components", .choiceList([logComponentStandardError, logComponentFile, logComponentRequests]),
            default: .strings([logComponentFile]),
            "Where log lines go (`writer.file`: the log file; `writer.stderr`: warnings and worse on standard error, off by default since each command already says on the terminal what happened, once) and `option.log-requests-and-responses` (as `log.http-requests`). `--log-file` and `--log-level` on the command line switch their writer on."
        ),
        .init("log.privacy-mask", .bool, default: .bool(true), "Mask private values before a line is written. On by default, unlike the ownCloud app."),
        .init("log.format", .choice(["text", "json", "json-composed"]), default: .string("text"), "The format of log lines."),
        .init("log.http-requests", .bool, default: .bool(false), "Log HTTP requests and responses (secrets are always redacted)."),
        .init("log.only-tags", .stringList, default: nil, "If set, only messages tagged with one of these tags are logged."),
        .init("log.omit-tags", .stringList, default: nil, "If set, messages tagged with any of these tags are omitted."),
        .init("log.only-matching", .stringList, default: nil, "If set, only messages containing one of these terms are logged."),
        .init("log.omit-matching", .stringList, default: nil, "If set, messages containing any of these terms are omitted."),
        .init(
            "log.maximum-message-size", .integer(0...10_000_000), default: .integer(0), "Messages longer than this many bytes are truncated; 0 means no limit."),
        .init("log.single-lined", .bool, default: .bool(true), "Write multi-line messages as one line each, with the full lead-in."),
        .init(
            "log.blank-filtered-messages", .bool, default: .bool(false),
            "Messages the filters leave out are still written, with the text `-` and no metadata: the log shows that something happened, and when."),
        .init("log.colored", .bool, default: .bool(false), "Text log lines show the level as a coloured mark instead of its name."),
        .init(
            "log.synchronous", .bool, default: .bool(false),
            "Each line of the log file reaches the disk before Vigil goes on (fdatasync); otherwise lines are written at once and left to the kernel (a power cut can lose the last ones, a crash of Vigil cannot)."
        ),
        // Mutual TLS
        .init(
            "client-certificate.expiry-warning-days", .integer(0...3650), default: .integer(30),
            "`vigil account check` and `certificates audit --check` warn when an account's client certificate expires within this many days (an expired one fails)."
        ),
        // Host simulator
        .init("host-simulator.bind", .string, default: .string("127.0.0.1"), "Address the simulator binds; only 127.0.0.0/8 and ::1 are accepted."),
        .init(
            "host-simulator.port", .integer(0...65_535), default: .integer(0),
            "Port of the simulator's HTTPS hosts (plain HTTP takes the next one); 0 picks free ports."),
        .init(
            "host-simulator.fixtures", .string, default: nil,
            "Directory of scenario fixtures; unset: the fixtures installed with Vigil (or of the source tree it was built from)."),
        .init("host-simulator.scenario", .string, default: .string("valid"), "The scenario played when none is named."),
        .init(
            "host-simulator.active-simulations", .stringList, default: .strings([]),
            "Scenarios played at once when none is named (by name or the seeds' simulation name: five-seconds-of-404, only-404, recovering-apm, reject-downloads-500, simple-apm); empty: host-simulator.scenario."
        ),
        // Locks (managed file only)
        .init(
            "user-settings.allow", .stringList, default: nil,
            "Managed only. If set, the user file may set only these keys.", scope: .managedOnly),
        .init(
            "user-settings.disallow", .stringList, default: nil,
            "Managed only. The user file may not set these keys.", scope: .managedOnly),
    ]

    private static let byKey: [String: SettingDefinition] = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })

    /// The definition for `key`, or nil for an unknown key.
    public static func definition(for key: String) -> SettingDefinition? { byKey[key] }
}

/// What `vigil simulate` does as the user of a scenario, and what it holds the client to beyond
/// the scenario's outcome. Pure data: the simulator itself never reads it.
public struct ScenarioClient: Sendable, Hashable, Codable {
    /// A question account setup may ask the user.
    public enum Question: String, Sendable, Hashable, Codable, CaseIterable {
        /// Approve an untrusted certificate (answered with the fingerprint of the certificate the
        /// host really serves, from testcerts/, as a user who checked it with the admin would).
        case certificate
        /// Follow a redirect to another server.
        case redirect
        /// Present the account's client certificate and access headers to the server a redirect
        /// moved setup to (approving the redirect does not imply it).
        case credentials
    }

    /// A setting value the simulated user has in their settings file.
    public enum SettingValue: Sendable, Hashable, Codable {
        /// A string.
        case string(String)
        /// An integer.
        case integer(Int)
        /// `true` or `false`.
        case bool(Bool)
        /// A list of strings.
        case strings([String])

        /// Decodes a boolean, an integer, a string or a list of strings, tried in that order; anything else throws.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int.self) {
                self = .integer(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([String].self) {
                self = .strings(value)
            } else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "a setting is a string, an integer, true or false, or a list of strings")
            }
        }

        /// Encodes the bare value.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let value): try container.encode(value)
            case .integer(let value): try container.encode(value)
            case .bool(let value): try container.encode(value)
            case .strings(let value): try container.encode(value)
            }
        }
    }

    /// An account the user already has on host 1, set up when the host served another certificate:
    /// the scenario is then that account's next connection (`vigil account check`), judged
    /// against the chain reviewed at setup by the renewal rules, not a new setup.
    public struct ExistingAccount: Sendable, Hashable, Codable {
        /// The testcerts case host 1 served at setup (default: its genuine certificate).
        public var certificate: String?
        /// Whether the user approved that certificate at setup (it was not trusted by a CA).
        public var approved: Bool?
        /// `openid-connect`: the account logged in with OpenID Connect, its tokens issued by the
        /// scenario's provider and its access token expired (the check refreshes first); Basic
        /// (the password in the keyring) when absent.
        public var method: String?
        /// With `openid-connect`: an earlier refresh reached the provider (its refresh token is
        /// spent) and the process was killed before it kept the answer.
        public var refreshInterrupted: Bool?

        /// An existing account; nil fields take the defaults.
        public init(certificate: String? = nil, approved: Bool? = nil, method: String? = nil, refreshInterrupted: Bool? = nil) {
            self.certificate = certificate
            self.approved = approved
            self.method = method
            self.refreshInterrupted = refreshInterrupted
        }
    }

    /// The questions the simulated user answers yes; every other question is answered no.
    public var approve: [Question]?
    /// With approvals: the outcome the client must reach after them (`login`, `refuse`, ...).
    public var then: Scenario.Outcome?
    /// Where account setup starts: a listener template (`{https:1}`, `{http:1}`) and an optional path.
    public var start: String?
    /// The user to add (default: the first test user).
    public var user: String?
    /// Settings in the simulated user's settings file (the user layer of `vigil config`).
    public var settings: [String: SettingValue]?
    /// testcerts cases, besides each host's genuine `valid-<address>`, that credentials may reach
    /// (a renewal the rules accept, say). A host serving any other certificate is untrusted for
    /// the credential invariant unless the user approved it.
    public var acceptedCertificates: [String]?
    /// DNS names for the simulated hosts, name to host number (`{"cloud.example.test": 1}`): the
    /// client connects by name, pinned to the host's address and port (curl's `--resolve`), and
    /// `{https:NAME}` in `start` or a redirect target is `https://NAME:PORT`.
    public var hosts: [String: Int]?
    /// The account set up before the scenario; nil: the scenario is an account setup.
    public var account: ExistingAccount?
    /// The testcerts CA certificates the client trusts (default: `ca-bundle`, the test root); an
    /// empty list trusts none, as a client that meets a private CA for the first time.
    public var trust: [String]?
    /// Seconds the client waits for each connection and answer (default: the suite's, 10).
    public var timeout: Double?
    /// Mutual TLS: the testcerts client certificate the user gives the account (its
    /// `<name>.pem` and `<name>.key`); nil: none.
    public var clientCertificate: String?
    /// The user gives the account the access proxy's service token (the `access-proxy`
    /// behaviour's headers) as an access headers file.
    public var accessHeaders: Bool?
    /// testcerts roots the scenario's machine keeps in its *system* trust store (an
    /// administrator's additions: locally added roots, not public ones); nil: the machine's own store.
    public var systemTrust: [String]?
    /// A proxy password the client keeps before the scenario (`vigil proxy login`): for proxy
    /// `proxy` (1, 2) of ``ProxyPlan``, with or without consent to clear text.
    public var proxyLogin: ProxyLogin?

    /// A kept proxy password.
    public struct ProxyLogin: Sendable, Hashable, Codable {
        /// Which proxy of the scenario (1, 2).
        public var proxy: Int
        /// The user agreed to Basic over a plain-http proxy.
        public var allowClearText: Bool?
    }

    /// Every field unset: the defaults.
    public init() {}
}

import Foundation
import Synchronization
import VigilAccounts
package import VigilCertificates
package import VigilHTTP
package import VigilSecrets
package import VigilSimulator

/// The user of a scenario, as its fixture scripts them: answers each question from the script
/// (a certificate is approved only when the presented leaf is the one the host really serves,
/// compared by SHA-256 fingerprint as a user who called the admin would), types the password,
/// and completes a browser login with curl as the browser stand-in. Records what was asked.
package final class ScriptedUser: AccountSetupInteraction, Sendable {
    /// One question asked, and the answer given.
    package struct Asked: Sendable, Hashable, Codable {
        /// What was asked: a certificate or a redirect.
        package var question: ScenarioClient.Question
        /// host:port asked about (the server for a certificate, the redirect's target for a redirect).
        package var about: String
        /// The scheme of what was asked about (`https`; a redirect's target may be `http`).
        package var scheme: String
        /// The answer given.
        package var approved: Bool
        /// How many requests the simulator's journal held when the question was answered: an
        /// approval counts for the requests after it, never for those before.
        package var at: Int
        /// How many connections the simulated hosts had accepted when the question was answered:
        /// an approval counts for the connections after it.
        package var connectionsAt: Int = 0
    }

    let approve: Set<ScenarioClient.Question>
    let password: String?
    /// Fingerprint (SHA-256, as ``VigilCertificates/Certificate/sha256Fingerprint`` writes it) of the
    /// leaf each `host:port` really serves, for the approval by fingerprint.
    let servedLeaves: [String: String]
    let caFile: String
    let browserTimeout: Int
    /// The journal's length now.
    let journalPosition: @Sendable () -> Int
    /// How many connections the simulated hosts have accepted so far.
    let connectionPosition: @Sendable () -> Int
    /// `HOST:PORT:ADDRESS` pins the browser stand-in uses too.
    let resolve: [String]
    /// The user's client certificate and key (PEM files), installed in their browser as users
    /// of a mutual-TLS server do; nil: none.
    var browserCertificate: (certificate: String, key: String)? {
        get { browserIdentity.withLock { $0 } }
        set { browserIdentity.withLock { $0 = newValue } }
    }
    private let browserIdentity = Mutex<(certificate: String, key: String)?>(nil)

    private let state = Mutex((asked: [Asked](), lines: [String]()))

    /// A user approving the questions in `approve`, typing `password` (nil: none), the browser stand-in waiting at most
    /// `browserTimeout` seconds.
    package init(
        approve: Set<ScenarioClient.Question>, password: String?, servedLeaves: [String: String], caFile: String, browserTimeout: Int = 15,
        resolve: [String] = [], journalPosition: @escaping @Sendable () -> Int = { 0 }, connectionPosition: @escaping @Sendable () -> Int = { 0 }
    ) {
        self.connectionPosition = connectionPosition
        self.resolve = resolve
        self.journalPosition = journalPosition
        self.approve = approve
        self.password = password
        self.servedLeaves = servedLeaves
        self.caFile = caFile
        self.browserTimeout = browserTimeout
    }

    /// The questions asked, in order.
    package var questions: [Asked] {
        state.withLock { $0.asked }
    }
    /// What the client showed the user (reviews, progress, questions), one entry per message.
    package var shown: [String] {
        state.withLock { $0.lines }
    }

    func record(_ question: Asked) {
        state.withLock { $0.asked.append(question) }
    }
    /// Records `text` as shown to the user.
    package func show(_ text: String) {
        state.withLock { $0.lines.append(text) }
    }

    /// Records the review: the endpoint, trusted or untrusted, and the leaf's SHA-256 fingerprint.
    package func review(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async {
        show("review \(endpoint): \(evaluation.verdict.isTrusted ? "trusted" : "untrusted") \(chain.first?.sha256Fingerprint ?? "")")
    }

    /// Approves only when the script approves certificates and the leaf's fingerprint is the one the host really serves;
    /// the question is recorded.
    package func approveCertificate(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async -> Bool {
        let about = "\(endpoint.host):\(endpoint.port)"
        let approved = approve.contains(.certificate) && chain.first?.sha256Fingerprint != nil && chain.first?.sha256Fingerprint == servedLeaves[about]
        record(Asked(question: .certificate, about: about, scheme: "https", approved: approved, at: journalPosition(), connectionsAt: connectionPosition()))
        return approved
    }

    /// Approves when the script approves redirects; the question is recorded.
    package func approveRedirect(_ redirect: Redirect, from: String) async -> Bool {
        let approved = approve.contains(.redirect)
        record(
            Asked(
                question: .redirect, about: Self.hostPort(of: redirect.location),
                scheme: redirect.location.lowercased().hasPrefix("http://") ? "http" : "https",
                approved: approved, at: journalPosition(), connectionsAt: connectionPosition()))
        show("redirect \(redirect.status) to \(redirect.location)")
        return approved
    }

    /// A credential for another origin during a login (a login flow's poll endpoint): asked like
    /// a redirect, approved when the script approves redirects; recorded (about the target).
    package func approveOtherOrigin(_ target: String, server: String, purpose: String) async -> Bool {
        let approved = approve.contains(.redirect)
        record(
            Asked(
                question: .redirect, about: Self.hostPort(of: target), scheme: target.lowercased().hasPrefix("http://") ? "http" : "https",
                approved: approved, at: journalPosition(), connectionsAt: connectionPosition()))
        show("\(purpose) to \(target) (another origin than \(server))?")
        return approved
    }

    /// Agrees when the script approves `credentials`; the question is recorded (about the target).
    package func presentCredentials(_ what: String, givenFor origin: String, to target: String) async -> Bool {
        let approved = approve.contains(.credentials)
        record(
            Asked(
                question: .credentials, about: Self.hostPort(of: target), scheme: "https", approved: approved, at: journalPosition(),
                connectionsAt: connectionPosition()))
        show("present \(what) (given for \(origin)) to \(target)?")
        return approved
    }

    /// The scripted password; nil when the script has none.
    package func password(user: String, server: String) async -> Secret? {
        show("password asked for \(user) on \(server)")
        return password.map(Secret.init)
    }

    /// The browser stand-in: curl, trusting the test CA as a browser trusts its store and keeping
    /// cookies as a browser does (an access-policy manager in front of the login needs them), follows
    /// the authorization redirect to the client's loopback listener.
    package func openBrowser(_ url: String) async {
        show("browser opened")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["curl", "-s", "-o", "/dev/null", "-L", "-b", "", "--max-time", String(browserTimeout), "--cacert", caFile]
            + resolve.flatMap { ["--resolve", $0] } + (browserCertificate.map { ["--cert", $0.certificate, "--key", $0.key] } ?? []) + [url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { show("the browser stand-in (curl) could not start: \(error)") }
    }

    /// Records `message` as shown.
    package func progress(_ message: String) async { show(message) }

    /// `host:port` of a URL (`https` 443, `http` 80 when no port is given; user information dropped).
    static func hostPort(of url: String) -> String {
        guard let parts = URLComponents(string: url), let host = parts.host else { return url }
        let port = parts.port ?? (parts.scheme?.lowercased() == "http" ? 80 : 443)
        return "\(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))):\(port)"
    }
}

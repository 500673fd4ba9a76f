import ArgumentParser
import CVigilSystem
import FoundationEssentials
import Glibc
import Logging
import VigilAccounts
import VigilAuth
import VigilCertificates
import VigilCommandLine
import VigilHTTP
import VigilLogging
import VigilSecrets
import VigilSettings
import VigilStore
import VigilText

/// Answers account setup from the flags and the terminal.
struct TerminalInteraction: AccountSetupInteraction {
    let approvedFingerprint: String?
    let acceptedRedirects: Set<String>
    let passwordFromStandardInput: Bool
    /// A command (and its arguments) that opens a URL; nil: `$BROWSER`, else xdg-open when there is a display.
    let browser: [String]?
    /// Print the URL and wait, open nothing (`--no-browser`).
    var noBrowser = false
    /// Origins the client certificate and access headers may follow a redirect to
    /// (`--present-credentials-to`), by ``Endpoint/originKey`` (any spelling of the host).
    var credentialsTo: Set<String> = []
    /// The account has a client certificate or access headers: the redirect question says where they go.
    var hasCredentials = false
    /// The proxy configuration the setup connects with: the review names the way its handshake went.
    var proxy: ProxyConfiguration?

    var interactive: Bool { !passwordFromStandardInput && isatty(STDIN_FILENO) == 1 }

    func review(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async {
        let report = InspectReport(
            target: .init(kind: "host", url: endpoint.description, files: nil, peerName: endpoint.peerName),
            evaluation: evaluation, sent: chain, connection: nil)
        // A trusted server is summed up (the verdict, the chains, the fingerprint); anything to
        // decide on (untrusted, an interception, a finding) is shown in full.
        let plain = evaluation.verdict.isTrusted && evaluation.findings.allSatisfy { $0.severity != .critical }
        let via = proxy?.taken(toward: endpoint.description)?.description
        print(InspectTextRenderer(terminal: .standardOutput).render(report, full: !plain, via: via), terminator: "")
    }

    func approveCertificate(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async -> Bool {
        guard let leaf = chain.first else { return false }
        let presented = Vigil.Certificates.Approve.normalized(leaf.sha256Fingerprint)
        if let approvedFingerprint {
            if approvedFingerprint == presented { return true }
            print("The server presents \(leaf.sha256Fingerprint), not the fingerprint given with --approve-certificate.")  // hex: safe
            return false
        }
        guard interactive else {
            print("Not approved. Check the fingerprint \(leaf.sha256Fingerprint) with the server's admin, then pass it with --approve-certificate.")
            return false
        }
        // The question names what is approved: the fingerprint, and an interception outright.
        let intercepted = evaluation.findings.contains { $0.code == .interception }
        let through = evaluation.locallyAddedAnchor.map { " through \($0.anchorSubject)" } ?? ""
        return confirm(
            SafeText.escaped(
                (intercepted
                    ? "INTERCEPTED: approving lets whoever holds the root added to this machine\(through) read this account's traffic. "
                    : "")
                    + "Approve the certificate SHA-256 \(leaf.sha256Fingerprint) for \(endpoint.host):\(endpoint.port)? Compare the fingerprint with the admin's first."
            ))
    }

    func approveRedirect(_ redirect: Redirect, from: String) async -> Bool {
        print(SafeText.escaped("\(from)/status.php redirects (\(redirect.status)) to \(redirect.location)" + (redirect.changesHost ? ", another host." : ".")))
        if acceptedRedirects.contains(redirect.location) { return true }
        guard interactive else {
            print("Not followed. If this move is expected, add to the command: " + SuggestedCommand.line(["--accept-redirect", redirect.location]))
            return false
        }
        return confirm(
            hasCredentials
                ? "Follow it and review that server? The account's client certificate and access headers go there only if you agree next."
                : "Follow it and review that server?")
    }

    func approveOtherOrigin(_ target: String, server: String, purpose: String) async -> Bool {
        print(SafeText.escaped("\(server) sends \(purpose) to \(target), another origin."))
        if acceptedRedirects.contains(target) { return true }
        guard interactive else {
            print("Not sent. If this is expected, add to the command: " + SuggestedCommand.line(["--accept-redirect", target]))
            return false
        }
        return confirm(SafeText.escaped("Send it to \(target)? Its certificate must be trusted."))
    }

    func presentCredentials(_ what: String, givenFor origin: String, to target: String) async -> Bool {
        if let key = try? Endpoint(url: target).originKey, credentialsTo.contains(key) { return true }
        guard interactive else {
            print(
                SafeText.escaped("Not presented to \(target): \(what), given for \(origin). If they belong there too, add to the command: ")
                    + SuggestedCommand.line(["--present-credentials-to", target]))
            return false
        }
        return confirm(SafeText.escaped("Present \(what), given for \(origin), to \(target) too? It learns who you are."))
    }

    /// Asks a yes/no question at the terminal; anything but yes is no.
    func confirm(_ question: String) -> Bool {
        print(question + " [y/N] ", terminator: "")
        fflush(nil)
        // Ctrl-C at the question ends the command at once (the read cannot be cancelled).
        return Interruption.atPrompt({ readLine() })?.lowercased().hasPrefix("y") == true
    }

    func password(user: String, server: String) async -> Secret? {
        if passwordFromStandardInput {
            return SecretInput.fromStandardInput().map(Secret.init)
        }
        guard interactive, let typed = SecretInput.fromTerminal(prompt: SafeText.escaped("Password for \(user) on \(server): ")) else { return nil }
        return Secret(typed)
    }

    func openBrowser(_ url: String) async {
        print(
            SafeText.escaped(
                noBrowser ? "Open this URL in a browser and log in; Vigil waits for the answer: \(url)" : "Log in here if no browser opens: \(url)"))
        fflush(nil)
        guard !noBrowser else { return }
        let environment = ProcessInfo.processInfo.environment
        // $BROWSER: a colon-separated list of commands, the first one used.
        let fromEnvironment = environment["BROWSER"].flatMap { $0.split(separator: ":").first }.map { $0.split(separator: " ").map(String.init) }
        let command = browser ?? fromEnvironment ?? ((environment["DISPLAY"] ?? environment["WAYLAND_DISPLAY"]) != nil ? ["xdg-open"] : nil)
        guard let command, let program = command.first else { return }
        if !Self.spawnQuietly(["/usr/bin/env", program] + command.dropFirst() + [url]) {
            print("Could not start \(program): open the URL above yourself.")
        }
    }

    /// Starts `arguments` (a path, then its arguments) detached: no descriptor of this process
    /// inherited (the loopback listener waiting for the login's answer among them), input, output
    /// and errors on /dev/null, a process group of its own; false when it could not be started.
    static func spawnQuietly(_ arguments: [String]) -> Bool {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        return vigil_spawn_detached(&argv) == 0
    }

    func progress(_ message: String) async {
        print(SafeText.escaped(message))
    }
}

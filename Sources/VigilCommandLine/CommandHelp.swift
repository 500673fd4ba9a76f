/// The parts of each command's help that are written for people rather than derived from its
/// options: a short usage line (`[<options>]` for whatever is optional) and examples, appended to
/// the command's discussion with its exit codes. `make man` moves the examples and the exit codes
/// into the man page's EXAMPLES and EXIT STATUS sections (scripts/man-fix.py), so `--help` and
/// `man vigil-account-add` say the same.
package enum CommandHelp {
    /// The short usage line of the command at `path` (`account add`), or nil to let
    /// swift-argument-parser write it.
    package static func usage(_ path: String) -> String? {
        usages[path].map { $0.split(separator: "\n").map { "vigil \(path) \($0)" }.joined(separator: "\n") }
    }

    /// `text`, then the exit codes (the common ones when `text` names none), then the examples.
    package static func discussion(_ path: String, _ text: String = "") -> String {
        var parts = text.isEmpty ? [] : [text]
        if !text.contains("Exit codes") { parts.append(commonExitCodes) }
        if let examples = examples[path], !examples.isEmpty {
            parts.append("Examples:\n" + examples.map { "  \($0.says)\n" + shellLines($0.command) }.joined(separator: "\n\n"))
        }
        return parts.joined(separator: "\n\n")
    }

    /// `command` indented under its description, cut at spaces into lines of at most 78
    /// characters joined by ` \` (as a shell reads them), so that no terminal wraps it.
    static func shellLines(_ command: String) -> String {
        var lines: [String] = []
        var line = "    "
        for word in command.split(separator: " ", omittingEmptySubsequences: false) {
            let indent = lines.isEmpty ? 4 : 8
            if line.count > indent, line.count + 1 + word.count > 76 {
                lines.append(line + " \\")
                line = String(repeating: " ", count: 8) + word
            } else {
                line += (line.count > indent ? " " : "") + word
            }
        }
        return (lines + [line]).joined(separator: "\n")
    }

    /// What every command may exit with besides its own codes.
    static let commonExitCodes =
        "Exit codes: 0 done; 2 error (the message says which); 64 a wrong flag or argument; 78 a broken configuration; 130 or 143 (as a shell reports it) interrupted by Ctrl-C or SIGTERM."

    /// One example: what it does (a line of its own, under 78 characters), and the command line.
    struct Example {
        var command: String
        var says: String
        init(_ command: String, _ says: String) {
            self.command = command
            self.says = says
        }
    }

    /// What follows `vigil PATH` on the short usage line; one line per form.
    static let usages: [String: String] = [
        "inspect": "[<options>] <url>\n[<options>] --file <pem> ... [--host <host>]",
        "account add": "[<options>] <url> --user <user>",
        "account list": "[<options>]",
        "account show": "[<options>] <account>",
        "account check": "[<options>] <account>\n[<options>] --all",
        "account login": "[<options>] <account>",
        "account rename": "[<options>] <account> <label>\n[<options>] <account> --clear",
        "account edit": "[<options>] <account>",
        "account logout": "[<options>] <account>",
        "account move": "[<options>] <account> <url>",
        "account remove": "[<options>] <account>",
        "certificates approve": "[<options>] <url> --fingerprint <sha256>\n[<options>] --file <pem> --host <host> --fingerprint <sha256>",
        "certificates list": "[<options>]",
        "certificates show": "[<options>] <approval>",
        "certificates revoke": "[<options>] <approval> --reason <text>",
        "certificates audit": "[<options>]\n[<options>] --check [--live] [--fail-on <level>]",
        "certificates rule-test": "[<options>] <rule> --bookmark <pem> --server <pem>",
        "proxy which": "[<options>] <url>",
        "server check": "[<options>] <url> | --accounts [--new-only] | --daily",
        "proxy login": "[<options>] <proxy> --user <user>",
        "proxy logout": "[<options>] <proxy>",
        "proxy list": "[<options>]",
        "config list": "[<options>]",
        "config get": "[<options>] <key>",
        "config explain": "[<options>] <key>",
        "config set": "[<options>] <key> <value>",
        "config unset": "[<options>] <key>",
        "config docs": "[<options>]",
        "log path": "[<options>]",
        "log clear": "[<options>]",
        "simulator serve": "[<options>] [--scenario <scenario> ...] [--port <port>]",
        "simulator scenarios": "[<options>]",
        "simulate": "[<options>] [--scenario <glob> ...] [--client <profile|command>]",
        "conformance limbo": "[<options>] < limbo.json > results.json",
    ]

    /// Examples of the commands that take arguments (and of a few that are better with one).
    static let examples: [String: [Example]] = [
        "inspect": [
            Example("vigil inspect https://cloud.example.com", "The chain, its summary and the verdict; only a TLS handshake is sent."),
            Example("vigil inspect https://cloud.example.com --ca-file company-ca.pem", "Trust only your organisation's CA instead of the system store."),
            Example(
                "vigil inspect --file chain.pem --host cloud.example.com --at 2030-01-01T00:00:00Z", "Judge a chain from files, for a name, at another time."),
        ],
        "account add": [
            Example("vigil account add https://cloud.example.com --user alice", "Review the certificate, then log in (browser or password)."),
            Example(
                "printf '%s\\n' \"$PASSWORD\" | vigil account add https://cloud.example.com --user alice --password-stdin --ca-file company-ca.pem",
                "From a script: Basic authentication; the CA is kept with the account."),
            Example(
                "vigil account add https://nas.local:8443 --user alice --approve-certificate 1B:68:...:F4",
                "Approve a self-signed certificate after checking its fingerprint."),
        ],
        "account list": [Example("vigil account list --json", "Every account, as JSON (never a secret).")],
        "account show": [Example("vigil account show alice@cloud.example.com", "The account, its status and its reviewed chain judged now.")],
        "account check": [
            Example("vigil account check --all", "Every account: the certificate, then one authenticated request; exit 0 when all are fine."),
            Example("vigil account check work --certificate-only --json", "Only the handshake, for the account labelled work, as JSON."),
        ],
        "account login": [Example("vigil account login work", "Log in again (a browser or a password); the new credentials replace the old.")],
        "account rename": [
            Example("vigil account rename 3F2A work", "Label the account whose id starts with 3F2A: later commands take work."),
            Example("vigil account rename work --clear", "Remove the label."),
        ],
        "account edit": [
            Example("vigil account edit work --ca-file new-company-ca.pem", "Trust these CA certificates for the account from now on."),
            Example("vigil account edit work --client-certificate alice.p12", "Present this client certificate (mutual TLS) after reviewing it."),
        ],
        "account logout": [Example("vigil account logout work", "Revoke and forget the account's credentials; keep the account.")],
        "account move": [Example("vigil account move work https://files.example.com", "The server moved: review the new one and keep the account.")],
        "account remove": [
            Example("vigil account remove work", "Asks first on a terminal; revokes the credentials, then removes the account."),
            Example("vigil account remove work --yes", "Without asking (scripts are never asked)."),
        ],
        "certificates approve": [
            Example(
                "vigil certificates approve https://nas.local:8443 --fingerprint 1B:68:...:F4 --note 'checked by phone'",
                "Approve the certificate the server presents if its fingerprint is this one."),
            Example(
                "vigil certificates approve --file nas.pem --host nas.local:8443 --fingerprint 1B:68:...:F4", "Approve it from a file, without connecting."),
        ],
        "certificates list": [Example("vigil certificates list --all", "Every approval, revoked ones included.")],
        "certificates show": [Example("vigil certificates show 3", "Approval 3 and the certificate as it was reviewed, judged now.")],
        "certificates revoke": [Example("vigil certificates revoke 3 --reason 'server replaced'", "Revoke approval 3; the audit keeps it.")],
        "certificates audit": [
            Example("vigil certificates audit", "The audit trail: who approved, revoked or changed what, and when."),
            Example("vigil certificates audit --check --live --fail-on warning", "What needs attention, asking each server too; exit 1 from warnings up."),
        ],
        "certificates rule-test": [
            Example(
                "vigil certificates rule-test 'bookmarkCertificate.publicKeyData == serverCertificate.publicKeyData' --bookmark old.pem --server new.pem",
                "Does a renewal rule accept the new certificate?")
        ],
        "proxy which": [Example("vigil proxy which https://cloud.example.com", "Which proxy Vigil would use for this URL, and why.")],
        "server check": [
            Example("vigil server check https://cloud.example.com", "The grade first, then each finding with the directive that fixes it."),
            Example("vigil server check https://nas.local:8443 --ca-file corp-ca.pem --json", "A private server, its CA given; JSON for CI."),
            Example(
                "vigil server check https://cloud.example.com --profile modern --junit server.xml --fail-on error", "Mozilla's modern profile; JUnit for CI."),
            Example("vigil server check --accounts --new-only", "Every account's server; only what is new since the last run."),
        ],
        "proxy login": [
            Example("vigil proxy login http://proxy.example:3128 --user alice", "Keep the password the proxy asks for (typed, not echoed) in the keyring."),
            Example("printf '%s' \"$PASSWORD\" | vigil proxy login http://proxy.example:3128 --user alice --password-stdin", "The same from a script."),
        ],
        "proxy logout": [Example("vigil proxy logout http://proxy.example:3128", "Forget the proxy's password.")],
        "config get": [Example("vigil config get connection.revocation-policy", "The value in force, and where it comes from.")],
        "config explain": [Example("vigil config explain connection.revocation-policy", "What the setting does, its values, and every layer that sets it.")],
        "config set": [Example("vigil config set connection.revocation-policy hard-fail", "Set it in the user's file (unless an administrator locked it).")],
        "config unset": [Example("vigil config unset connection.revocation-policy", "Back to the default (or the administrator's value).")],
        "config docs": [Example("vigil config docs > settings.md", "Every setting, as Markdown.")],
        "simulator serve": [
            Example("vigil simulator serve --scenario self-signed --port 8443", "Serve a server with a self-signed certificate on 127.0.0.1:8443."),
            Example("vigil simulator serve --scenario mitm-forged --journal requests.jsonl", "A man in the middle; every request is journalled."),
        ],
        "simulator scenarios": [Example("vigil simulator scenarios --json", "Every scenario and the outcome a safe client has.")],
        "simulate": [
            Example("vigil simulate --junit results/simulate.xml", "Vigil's own client against every scenario, for CI."),
            Example("vigil simulate --client curl --scenario 'mitm-*'", "Hold another client to the man-in-the-middle scenarios."),
        ],
        "conformance limbo": [Example("vigil conformance limbo < limbo.json > results.json", "Run the x509-limbo suite through Vigil's evaluator.")],
    ]
}

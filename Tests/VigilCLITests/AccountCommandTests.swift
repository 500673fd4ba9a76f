import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `vigil account` against the simulator, with a real keyring (`make test`) and database file.
@Suite(
    "vigil account", .serialized,
    .enabled(if: TestPaths.keyringDirectory != nil, "needs a Secret Service: run `make test`"), .timeLimit(.minutes(3)))
struct AccountCommandTests {
    let database: String

    init() throws {
        database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
    }

    func vigil(_ arguments: [String], password: String? = nil) async throws -> CommandResult {
        try await CommandRunner.vigilDetached(arguments + ["--database", database], input: password.map { Data(($0 + "\n").utf8) })
    }

    @Test func addListRemove() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let server = running.url(path: "")
            let added = try await vigil(
                ["account", "add", server, "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle], password: "alice-test-password")
            #expect(added.status == 0, "\(added.standardError)")
            let output = added.standardOutput
            let review = try #require(output.range(of: "SHA-256:"))
            let login = try #require(output.range(of: "added account"))
            #expect(review.lowerBound < login.lowerBound, "the certificate is shown before the login")
            // A trusted server is summed up, with the way the connection went; the whole report is a command away.
            let via = try #require(output.range(of: "  via: direct (no proxy configured)"), "\(output)")
            #expect(via.lowerBound < login.lowerBound && output.contains("every certificate in full: vigil inspect \(server)"), "\(output)")
            #expect(output.split(separator: "\n").count < 40, "\(output)")
            #expect(output.contains("The server is ownCloud 10.15.0") && output.contains("Logged in as Alice"), "capabilities and the user endpoint: \(output)")
            #expect(!output.contains("alice-test-password") && !added.standardError.contains("alice-test-password"))

            let listed = try await vigil(["account", "list", "--json"])
            let accounts = try #require(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
            #expect(accounts.count == 1 && accounts.first?["user"] as? String == "alice" && accounts.first?["server"] as? String == server)
            #expect(!listed.standardOutput.contains("password"))

            let id = try #require(accounts.first?["id"] as? String)
            let removed = try await vigil(["account", "remove", id])
            #expect(
                removed.status == 0 && removed.standardOutput.contains("removed from the keyring: password"),
                "\(removed.standardOutput)\(removed.standardError)")
            #expect(try await vigil(["account", "list"]).standardOutput.contains("no accounts"))
        }
    }

    @Test func theAdministratorsDefaultURLAndItsLock() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let locked: [String: String?] = ["VIGIL_BOOKMARK_DEFAULT_URL": running.url(path: ""), "VIGIL_BOOKMARK_URL_EDITABLE": "false"]
            let common = ["--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle, "--database", database]
            let other = try await CommandRunner.vigilDetached(
                ["account", "add", running.url(host: 2, path: "")] + common, environment: locked,
                input: Data("alice-test-password\n".utf8))
            #expect(other.status == 1 && other.errorCode == "AccountSetupError policy", "\(other.standardError)")
            #expect(running.simulator.journal.entries.isEmpty, "nothing was sent to the other server")
            let proposed = try await CommandRunner.vigilDetached(["account", "add"] + common, environment: locked, input: Data("alice-test-password\n".utf8))
            #expect(
                proposed.status == 0 && proposed.standardOutput.contains("on \(running.url(path: ""))"), "\(proposed.standardOutput)\(proposed.standardError)")
            #expect(try await vigil(["account", "remove", try await accountID()]).status == 0)
        }
    }

    @Test func withoutAKeyringNothingIsAskedOrSent() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let result = try await CommandRunner.vigilDetached(
                [
                    "account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle,
                    "--database", database,
                ],
                environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "DISPLAY": nil],
                input: Data("alice-test-password\n".utf8))
            #expect(
                result.status == 2 && result.errorCode == "AccountSetupError keyring-unavailable" && result.standardError.contains("gnome-keyring-daemon"),
                "\(result.standardError)")
            #expect(running.simulator.journal.entries.isEmpty, "the server was not even asked")
            #expect(!result.standardError.contains("alice-test-password"))
        }
    }

    /// A cron job's check during an outage: the same server (address, port, certificate) now
    /// answers 404 through every retry, which is unavailable for now (exit 75, status
    /// `unavailable`), not an error; setup behind an APM that lets nobody through exits 75 too.
    @Test func anOutageIsExit75NotAnError() async throws {
        // The same port is bound again after a stop: one outside the kernel's ephemeral range
        // (32768-60999), so that no other test's connection or listener takes it in between.
        var started: RunningSimulator?
        for _ in 0..<8 where started == nil { started = try? await RunningSimulator("basic-only", port: Int.random(in: 20_000..<30_000)) }
        let before = try #require(started)
        let port = before.listeners.first { $0.host == 1 && $0.scheme == "https" }?.port ?? 0
        let added = try await vigil(
            ["account", "add", before.url(path: ""), "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle], password: "alice-test-password")
        await before.stop()
        #expect(added.status == 0, "\(added.standardError)")
        let id = try await accountID()
        try await withRunningSimulator("only-404", port: port) { (down) async throws in
            let check = try await vigil(["account", "check", id, "--ca-file", TestPaths.caBundle, "--json"])
            #expect(check.status == 75, "\(check.standardOutput)\(check.standardError)")
            let rows = try JSONSerialization.jsonObject(with: Data(check.standardOutput.utf8)) as? [[String: Any]]
            #expect(rows?.first?["status"] as? String == "unavailable", "\(check.standardOutput)")
            #expect(down.simulator.journal.entries.filter { $0.method == "PROPFIND" }.count == 6, "the first try and five more")
        }
        try await withRunningSimulator("recovering-apm") { (held) async throws in
            let blocked = try await vigil(
                ["account", "add", held.url(path: ""), "--user", "bob", "--password-stdin", "--ca-file", TestPaths.caBundle], password: "bob-test-password")
            #expect(blocked.status == 75 && blocked.errorCode == "AccountSetupError unavailable", "\(blocked.standardError)")
            #expect(!held.simulator.journal.entries.contains { $0.authorization }, "nothing was sent with a credential")
        }
        #expect(try await vigil(["account", "remove", id]).status == 0)
    }

    /// The keyring gone after the account was added (its daemon stopped, the session ended): a
    /// check says so and sends nothing; there is no other place a password could come from.
    @Test func aKeyringThatVanishedStopsTheCheckBeforeAnyCredentialIsSent() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let id = try await addAlice(running)
            let requestsBefore = running.simulator.journal.entries.count
            let check = try await CommandRunner.vigilDetached(
                ["account", "check", id, "--ca-file", TestPaths.caBundle, "--database", database],
                environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "DISPLAY": nil])
            #expect(
                check.status == 2 && (check.standardOutput + check.standardError).contains("No Secret Service answers")
                    && check.standardOutput.contains("gnome-keyring-daemon"), "\(check.standardOutput)\(check.standardError)")
            let after = running.simulator.journal.entries.dropFirst(requestsBefore)
            #expect(!after.contains { $0.authorization }, "no credential was sent without the keyring")
            #expect(try await accountID() == id, "the account is kept for when the keyring is back")
            #expect(try await vigil(["account", "check", id, "--ca-file", TestPaths.caBundle]).status == 0, "and works again then")
            #expect(try await vigil(["account", "remove", id]).status == 0)
        }
    }

    /// An account over months: named by a label, a prefix of its id or user@host; logged out
    /// (its password leaves the keyring, the account and its reviewed chain stay; nothing is sent
    /// with it any more) and logged in again.
    @Test func anAccountIsRenamedLoggedOutAndLoggedInAgain() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let id = try await addAlice(running)
            let renamed = try await vigil(["account", "rename", String(id.prefix(8)).lowercased(), "work"])
            #expect(renamed.status == 0 && renamed.standardOutput.contains("label work"), "\(renamed.standardOutput)\(renamed.standardError)")
            #expect(try await vigil(["account", "list"]).standardOutput.contains("[work]"))
            #expect(try await vigil(["account", "check", "work", "--ca-file", TestPaths.caBundle]).status == 0)
            #expect(try await vigil(["account", "show", "alice@127.0.0.1"]).standardOutput.contains("label: work"))
            let taken = try await vigil(["account", "rename", "work", "not a label"])
            #expect(taken.status == 2 && taken.errorCode == "StoreError invalid")

            let out = try await vigil(["account", "logout", "work"])
            #expect(out.status == 0 && out.standardOutput.contains("removed from the keyring: password"), "\(out.standardOutput)\(out.standardError)")
            #expect(try await vigil(["account", "show", "work"]).standardOutput.contains("NEEDS LOGIN"))
            let requestsBefore = running.simulator.journal.entries.count
            let checked = try await vigil(["account", "check", "work", "--ca-file", TestPaths.caBundle])
            #expect(checked.status == 1 && checked.standardOutput.contains("NEEDS-LOGIN"), "\(checked.standardOutput)")
            #expect(
                checked.standardOutput.contains("is logged out") && !checked.standardOutput.contains("refused the stored credentials (HTTP 401)"),
                "after a logout no server refused anything: \(checked.standardOutput)")
            #expect(!running.simulator.journal.entries.dropFirst(requestsBefore).contains { $0.authorization }, "no credential left to send")

            let back = try await vigil(["account", "login", "work", "--password-stdin", "--ca-file", TestPaths.caBundle], password: "alice-test-password")
            #expect(back.status == 0, "\(back.standardOutput)\(back.standardError)")
            #expect(try await vigil(["account", "check", "work", "--ca-file", TestPaths.caBundle]).status == 0)
            let audit = try await vigil(["certificates", "audit"])
            #expect(audit.standardOutput.contains("account-renamed") && audit.standardOutput.contains("account-logged-out"), "\(audit.standardOutput)")
            #expect(try await vigil(["account", "remove", "work"]).status == 0)
        }
    }

    /// An approval's life follows its account's: revoking the one an account depends on is
    /// reported by audit --check; removing the last account of a server revokes its approvals
    /// (unless --keep-approvals).
    @Test func approvalsFollowTheirAccounts() async throws {
        try await withRunningSimulator("self-signed") { (running) async throws in
            let fingerprint = try TestPaths.sha256Fingerprint(of: "self-signed")
            let add = [
                "account", "add", running.url(path: ""), "--user", "alice", "--method", "basic", "--password-stdin", "--approve-certificate", fingerprint,
            ]
            #expect(try await vigil(add, password: "alice-test-password").status == 0)
            let id = try await accountID()
            func approvals(_ all: Bool = false) async throws -> [[String: Any]] {
                let listed = try await vigil(["certificates", "list", "--json"] + (all ? ["--all"] : [])).standardOutput
                return try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
            }
            let approval = try #require(try await approvals().first?["id"] as? Int)
            #expect(try await vigil(["certificates", "revoke", "\(approval)", "--reason", "test"]).status == 0)
            let audit = try await vigil(["certificates", "audit", "--check"])
            #expect(
                audit.status == 1 && audit.standardOutput.contains("account-approval-revoked") && audit.standardOutput.contains(id), "\(audit.standardOutput)")

            // Approved again (a new approval), then the account removed: the approval goes with it.
            let again = try await vigil(["account", "check", id, "--approve-certificate", fingerprint])
            #expect(again.status == 0, "\(again.standardOutput)\(again.standardError)")
            #expect(try await approvals().count == 1)
            let removed = try await vigil(["account", "remove", id])
            #expect(removed.status == 0 && removed.standardOutput.contains("no account uses that server any more"), "\(removed.standardOutput)")
            #expect(try await approvals().isEmpty)
        }
    }

    @Test func anUntrustedServerIsNotApprovedWithoutTheFingerprint() async throws {
        try await withRunningSimulator("self-signed") { (running) async throws in
            let result = try await vigil(
                ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle],
                password: "alice-test-password")
            #expect(result.status == 1, "\(result.standardError)")
            #expect(result.standardOutput.contains("Not approved") && result.standardOutput.contains("--approve-certificate"))
            #expect(running.simulator.journal.entries.isEmpty, "nothing reached the server")
        }
    }

    @Test func aRedirectIsFollowedOnlyWhenAccepted() async throws {
        try await withRunningSimulator("redirect-cross-host-302") { (running) async throws in
            let common = ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--method", "basic", "--ca-file", TestPaths.caBundle]
            let refused = try await vigil(common, password: "alice-test-password")
            #expect(refused.status == 1 && refused.standardOutput.contains("--accept-redirect \(running.url(host: 2))"), "\(refused.standardOutput)")
            let accepted = try await vigil(common + ["--accept-redirect", running.url(host: 2)], password: "alice-test-password")
            #expect(accepted.status == 0, "\(accepted.standardError)")
            #expect(accepted.standardOutput.contains("on \(running.url(host: 2, path: ""))"))
            #expect(running.simulator.journal.entries.filter { $0.host == "127.0.0.1" }.allSatisfy { !$0.authorization })
            let accounts = try await vigil(["account", "list", "--json"]).standardOutput
            let id = try #require((try JSONSerialization.jsonObject(with: Data(accounts.utf8)) as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await vigil(["account", "remove", id]).status == 0)
        }
    }

    func accountID() async throws -> String {
        let listed = try await vigil(["account", "list", "--json"]).standardOutput
        return try #require((try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])?.first?["id"] as? String)
    }

    /// An account remembers how it was trusted: the CA given at setup is kept with it, so that a
    /// later check without --ca-file (a cron job) does not cry wolf; `account show` never says
    /// ready above an untrusted chain; `account edit` replaces the CAs (audited).
    @Test func anAccountRemembersTheCAItWasTrustedWith() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let id = try await addAlice(running)
            let checked = try await vigil(["account", "check", "--all"])
            #expect(
                checked.status == 0 && checked.standardOutput.contains(": OK: "),
                "no --ca-file, no false alarm: \(checked.standardOutput)\(checked.standardError)")
            let shown = try await vigil(["account", "show", id])
            #expect(shown.standardOutput.contains("status: ready") && shown.standardOutput.contains("trusts: "), "\(shown.standardOutput)")
            // Told to trust the system store instead (which does not hold the test CA): a real change.
            #expect(try await vigil(["account", "edit", id, "--system-trust"]).status == 0)
            let changed = try await vigil(["account", "check", "--all"])
            #expect(changed.status == 1 && changed.standardOutput.contains("CHANGED"), "\(changed.standardOutput)")
            // What changed is said: the same certificate, judged untrusted now, and no approval.
            #expect(
                changed.standardOutput.contains("presents the certificate reviewed at setup, but it is not trusted now")
                    && !changed.standardOutput.contains("revoked?"), "\(changed.standardOutput)")
            let review = try await vigil(["account", "show", id])
            #expect(review.standardOutput.contains("status: REVIEW NEEDED") && !review.standardOutput.contains("status: ready"), "\(review.standardOutput)")
            #expect(try await vigil(["account", "edit", id, "--ca-file", TestPaths.caBundle]).status == 0)
            #expect(try await vigil(["account", "check", "--all"]).status == 0)
            let trail = try await vigil(["certificates", "audit"])
            #expect(trail.standardOutput.contains("account-trust-anchors-changed"), "\(trail.standardOutput)")
            // The audit holds the account's own CAs: nothing to say of the right ones; a file that
            // is no CA and does not verify the reviewed chain is named, exit 1.
            let sound = try await vigil(["certificates", "audit", "--check"])
            #expect(!sound.standardOutput.contains("account-ca-"), "\(sound.standardOutput)")
            // A leaf given as a CA does not verify the reviewed chain: refused, nothing changed.
            let leaf = try await vigil(["account", "edit", id, "--ca-file", TestPaths.testcert("valid-127.0.0.2.pem")])
            #expect(leaf.status == 1 && leaf.standardError.contains("do not verify the chain reviewed"), "\(leaf.standardError)")
            #expect(leaf.standardError.contains("Not a CA certificate (a server's own certificate?)"), "\(leaf.standardError)")
            #expect(try await vigil(["account", "check", "--all"]).status == 0, "the refused edit changed nothing")
            // Written behind Vigil's back (an older version, a hand edit): the audit names it.
            let written = try CommandRunner.run(
                "/usr/bin/sqlite3", [database, "UPDATE account SET trustAnchorsPEM = CAST(readfile('\(TestPaths.testcert("valid-127.0.0.2.pem"))') AS TEXT);"])
            #expect(written.status == 0, "\(written.standardError)")
            let wrong = try await vigil(["certificates", "audit", "--check"])
            #expect(wrong.status == 1, "\(wrong.standardOutput)\(wrong.standardError)")
            #expect(
                wrong.standardOutput.contains("account-ca-chain-untrusted") && wrong.standardOutput.contains("account-ca-not-a-ca"), "\(wrong.standardOutput)")
            #expect(try await vigil(["account", "edit", id, "--ca-file", TestPaths.caBundle]).status == 0)
            #expect(try await vigil(["account", "remove", id]).status == 0)
        }
    }

    /// Under the vigil-check unit (standard output the journal's stream, no terminal): one line
    /// per account with its priority and the command that shows more, no chain dump; a server out
    /// of reach is UNREACHABLE, exit 2, or with --tolerate-unreachable a warning that passes.
    @Test func theJournalGetsOneLinePerAccount() async throws {
        let directory = try TestPaths.temporaryDirectory().path
        let script = "out=\"$1\"; shift; exec >\"$out\" </dev/null; JOURNAL_STREAM=\"$(stat -c %d:%i \"$out\")\" \"$@\""
        func journalled(_ arguments: [String]) async throws -> (status: Int32, lines: [String]) {
            let out = directory + "/journal-\(UUID().uuidString).txt"
            let result = try await CommandRunner.runDetached(
                "/bin/sh", ["-c", script, "sh", out, TestPaths.vigilBinary] + arguments + ["--database", database], environment: CommandRunner.hermetic([:]))
            let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            return (result.status, text.split(separator: "\n").map(String.init))
        }
        let id = try await withRunningSimulator("basic-only") { (running) async throws in
            let id = try await addAlice(running)
            #expect(try await vigil(["account", "edit", id, "--system-trust"]).status == 0)
            let changed = try await journalled(["account", "check", "--all"])
            #expect(changed.status == 1 && !changed.lines.isEmpty, "\(changed)")
            #expect(
                changed.lines.count == 1 && changed.lines[0].hasPrefix("<3>") && changed.lines[0].contains(": CHANGED: ")
                    && changed.lines[0].contains("; via direct (no proxy configured); more, at a terminal: vigil account check \(id) --database="),
                "one line, its priority, the way taken and the command that shows more: \(changed.lines)")
            #expect(try await vigil(["account", "edit", id, "--ca-file", TestPaths.caBundle]).status == 0)
            return id
        }
        // The server is gone: nothing reaches it.
        let strict = try await journalled(["account", "check", "--all"])
        #expect(
            strict.status == 2 && strict.lines.first?.hasPrefix("<4>\(id) alice on ") == true && strict.lines.first?.contains(": UNREACHABLE: ") == true,
            "\(strict)")
        let tolerant = try await journalled(["account", "check", "--all", "--tolerate-unreachable"])
        #expect(tolerant.status == 0 && tolerant.lines.first?.contains(": UNREACHABLE: ") == true, "a warning, not a failure: \(tolerant)")
    }

    /// alice's account (Basic, her password on standard input, the test CA kept with it); its id.
    func addAlice(_ running: RunningSimulator) async throws -> String {
        let added = try await vigil(
            ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle],
            password: "alice-test-password")
        #expect(added.status == 0, "\(added.standardOutput)\(added.standardError)")
        return try await accountID()
    }

    /// alice's account on the self-signed scenario's server, its certificate approved by the
    /// fingerprint openssl reads from the test PKI's file; its id.
    func addApprovingTheSelfSignedCertificate(_ running: RunningSimulator) async throws -> String {
        let fingerprint = try #require(
            try CommandRunner.run("/usr/bin/openssl", ["x509", "-in", TestPaths.testcert("self-signed.pem"), "-noout", "-fingerprint", "-sha256"])
                .standardOutput.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let added = try await vigil(
            ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--approve-certificate", fingerprint],
            password: "alice-test-password")
        #expect(added.status == 0, "\(added.standardError)")
        return try await accountID()
    }

    /// A stored value that no longer reads back is said to be damaged, never taken for a missing
    /// one (issue 38): the reviewed chain and the client certificate (check, show, audit, inspect)
    /// and an approval's kept certificate.
    @Test func aDamagedStoredValueIsSaidToBeDamaged() async throws {
        try await withRunningSimulator("self-signed") { (running) async throws in
            let id = try await addApprovingTheSelfSignedCertificate(running)
            let garbage = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"
            #expect(
                try CommandRunner.run(
                    "/usr/bin/sqlite3",
                    [
                        database,
                        "UPDATE account SET reviewedChainPEM = '\(garbage)', clientCertificatePEM = '\(garbage)'; UPDATE approved_certificate SET der = x'3000';",
                    ]
                )
                .status == 0)
            let checked = try await vigil(["account", "check", id])
            #expect(checked.status == 1 && checked.standardOutput.contains("stored damaged"), "\(checked.standardOutput)\(checked.standardError)")
            #expect(!checked.standardOutput.contains("No reviewed chain is stored"))
            let shown = try await vigil(["account", "show", id])
            #expect(shown.standardOutput.contains("reviewed chain: DAMAGED") && !shown.standardOutput.contains("status: ready"), "\(shown.standardOutput)")
            let audit = try await vigil(["certificates", "audit", "--check"])
            #expect(audit.standardOutput.contains("account-chain-damaged") && audit.standardOutput.contains("  damaged  "), "\(audit.standardOutput)")
            #expect(!audit.standardOutput.contains("not-kept"), "a damaged certificate is not one Vigil never kept")
            // The client certificate: damaged, never "none".
            #expect(
                shown.standardOutput.contains("client certificate: DAMAGED") && shown.standardOutput.contains("status: DAMAGED"), "\(shown.standardOutput)")
            #expect(audit.standardOutput.contains("client-certificate-damaged"), "\(audit.standardOutput)")
            let json = try await vigil(["account", "show", id, "--json"])
            let damaged = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])["damaged"] as? [String]
            #expect(damaged == ["reviewedChain", "clientCertificate"], "\(json.standardOutput)")
            // inspect reads the default database: this one, where it looks. What it cannot read is said.
            let data = try TestPaths.temporaryDirectory().path
            try FileManager.default.createDirectory(atPath: data + "/vigil", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: database, toPath: data + "/vigil/vigil.sqlite")
            let inspected = try await CommandRunner.vigilDetached(["inspect", running.url(path: "")], environment: ["XDG_DATA_HOME": data])
            #expect(
                inspected.standardOutput.contains("[store DAMAGED] the chain reviewed for account \(id), stored damaged could not be read"),
                "\(inspected.standardOutput)")
        }
    }

    /// When the server presents another certificate than the one reviewed for an account there,
    /// inspect's ways forward start with asking why it changed, before any approval is offered.
    @Test func inspectSaysFirstThatTheCertificateChanged() async throws {
        try await withRunningSimulator("self-signed") { (running) async throws in
            let id = try await addApprovingTheSelfSignedCertificate(running)
            // The account was reviewed with another certificate than the one the server sends now.
            let other = try String(contentsOfFile: TestPaths.testcert("valid-127.0.0.1.pem"), encoding: .utf8)
            #expect(try CommandRunner.run("/usr/bin/sqlite3", [database, "UPDATE account SET reviewedChainPEM = '\(other)';"]).status == 0)
            #expect(try await vigil(["certificates", "revoke", "1", "--reason", "test"]).status == 0)
            // inspect reads the default database: this one, copied to where it looks.
            let data = try TestPaths.temporaryDirectory().path
            try FileManager.default.createDirectory(atPath: data + "/vigil", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: database, toPath: data + "/vigil/vigil.sqlite")
            let environment = ["XDG_DATA_HOME": data]
            let inspected = try await CommandRunner.vigilDetached(["inspect", running.url(path: "")], environment: environment)
            let steps = inspected.standardOutput.components(separatedBy: "What you can do:\n").last ?? ""
            #expect(steps.hasPrefix("  - First: this is not the certificate reviewed for account \(id)"), "\(inspected.standardOutput)")
        }
    }

    /// Quiet by default: a retry is one line for the person, no log line on standard error; the
    /// log lines are there with --log-level (issue 39: each retry was printed twice).
    @Test func aRetryIsOneLine() async throws {
        try await withRunningSimulator("bad-gateway-for-two-seconds") { (running) async throws in
            let added = try await vigil(
                ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle],
                password: "alice-test-password")
            let both = added.standardOutput + added.standardError
            #expect(both.components(separatedBy: "trying again in 0.5 seconds").count == 2, "once: \(both)")
            #expect(!added.standardError.contains("tags="), "no log line: \(added.standardError)")
        }
        try await withRunningSimulator("bad-gateway-for-two-seconds") { (running) async throws in
            let logged = try await vigil(
                ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle, "--log-level", "warning"],
                password: "alice-test-password")
            #expect(logged.standardError.contains("tags=http,retry"), "\(logged.standardError)")
        }
    }

    @Test func wrongCredentialsAndBadFlags() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let wrong = try await vigil(
                ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle], password: "nope")
            #expect(wrong.status == 1 && wrong.errorCode == "AccountSetupError wrong-credentials")
            #expect(try await vigil(["account", "list"]).standardOutput.contains("no accounts"))
            #expect(try await vigil(["account", "add", running.url(path: ""), "--user", "alice", "--method", "kerberos"]).status == 64)
            #expect(try await vigil(["account", "add", running.url(path: ""), "--user", "alice", "--approve-certificate", "12:34"]).status == 64)
            // Neither an id nor --all: the message says what to give, not "not both".
            let neither = try await vigil(["account", "check"])
            #expect(neither.status == 64 && neither.standardError.contains("or --all to check every account") && !neither.standardError.contains("not both"))
            #expect(try await vigil(["account", "check", "x", "--all"]).standardError.contains("not both"))
        }
    }
}

import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `vigil certificates` against a live self-signed server (the simulator) and real database files.
@Suite("vigil certificates", .serialized, .timeLimit(.minutes(3)))
struct CertificatesCommandTests {
    func vigil(_ arguments: [String]) async throws -> CommandResult {
        try await CommandRunner.vigilDetached(arguments)
    }

    @Test func approveOnlyTheRightFingerprintThenListRevokeAndAudit() async throws {
        try await withRunningSimulator("self-signed") { (running) async throws in
            let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
            let url = running.url(path: "")
            let fingerprint =
                try CommandRunner.run("/usr/bin/openssl", ["x509", "-in", TestPaths.testcert("self-signed.pem"), "-noout", "-fingerprint", "-sha256"])
                .standardOutput.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            #expect(fingerprint.count == 95)
            let wrong = String(repeating: "ab", count: 32)

            let refused = try await vigil(["certificates", "approve", url, "--fingerprint", wrong, "--database", database])
            #expect(refused.status == 1, "\(refused.standardError)")
            #expect(refused.standardError.contains("not approved") && refused.standardError.contains(fingerprint))
            #expect(try await vigil(["certificates", "list", "--database", database]).standardOutput.contains("no approved certificates"))

            let approved = try await vigil([
                "certificates", "approve", url, "--fingerprint", fingerprint.lowercased(), "--note", "checked by phone", "--database", database,
            ])
            #expect(approved.status == 0, "\(approved.standardError)")
            #expect(approved.standardOutput.hasPrefix("approved 1  127.0.0.1:"))
            #expect(running.simulator.journal.entries.isEmpty, "approving sends no HTTP request")

            let listed = try await vigil(["certificates", "list", "--json", "--database", database])
            let array = try #require(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
            #expect(array.count == 1 && array.first?["sha256"] as? String == fingerprint && array.first?["note"] as? String == "checked by phone")

            let revoked = try await vigil(["certificates", "revoke", "1", "--reason", "server replaced", "--database", database])
            #expect(revoked.status == 0, "\(revoked.standardError)")
            #expect(try await vigil(["certificates", "list", "--database", database]).standardOutput.contains("no approved certificates"))
            #expect(try await vigil(["certificates", "list", "--all", "--database", database]).standardOutput.contains("revoked"))
            let again = try await vigil(["certificates", "revoke", "1", "--reason", "twice", "--database", database])
            #expect(again.status == 2 && again.errorCode == "StoreError not-found")

            // A date out of range is not copied as it is: the store's date reader decides it (as GRDB did).
            let outOfRange = """
                INSERT INTO approved_certificate (host, port, sha256, spkiSHA256, subject, issuer, notAfter, approvedAt)
                VALUES ('late', 1, 'a', 'b', 'CN=x', 'CN=y', 'z', '2026-02-30 10:00:00.000'), ('leap', 2, 'a', 'b', 'CN=x', 'CN=y', 'z', '2024-02-29 23:59:59.999');
                """
            #expect(try CommandRunner.run("/usr/bin/sqlite3", [database, outOfRange]).status == 0)
            let dates = try await vigil(["certificates", "list", "--database", database]).standardOutput
            #expect(
                dates.contains("late:1  a  CN=x  approved 2026-03-02T10:00:00Z") && dates.contains("leap:2  a  CN=x  approved 2024-02-29T23:59:59Z"), "\(dates)"
            )
            let audit = try await vigil(["certificates", "audit", "--database", database]).standardOutput.split(separator: "\n")
            #expect(audit.count == 2)
            #expect(audit.first?.contains("certificate-approved") == true && audit.last?.contains("certificate-revoked") == true)
        }
    }

    /// After UNTRUSTED, `inspect` says what to do; the approve command it prints works as printed;
    /// then `inspect` names the approval, and `certificates show` titles it APPROVED, not
    /// UNTRUSTED (issue 39).
    @Test func untrustedSaysWhatToDoAndAnApprovalIsNamed() async throws {
        try await withRunningSimulator("self-signed") { (running) async throws in
            let data = try TestPaths.temporaryDirectory().path
            let environment = ["XDG_DATA_HOME": data]
            let url = running.url(path: "")
            let before = try await CommandRunner.vigilDetached(["inspect", url], environment: environment)
            #expect(before.status == 1)
            #expect(before.standardOutput.contains("What you can do:") && before.standardOutput.contains("--ca-file CA.pem"))
            let line = try #require(before.standardOutput.split(separator: "\n").first { $0.contains("vigil certificates approve") })
            let command = try #require(line.range(of: "vigil certificates approve ")).upperBound
            let arguments = ["certificates", "approve"] + line[command...].split(separator: " ").map(String.init)
            #expect(arguments == ["certificates", "approve", url, "--fingerprint", arguments.last ?? ""])
            #expect(try await CommandRunner.vigilDetached(arguments, environment: environment).status == 0)

            let after = try await CommandRunner.vigilDetached(["inspect", url], environment: environment)
            #expect(after.status == 1, "inspect judges the chain; the approval is named beside it")
            #expect(after.standardOutput.contains("approved: this certificate is approved for this host and port (approval 1"))
            #expect(!after.standardOutput.contains("What you can do:"))
            let json = try await CommandRunner.vigilDetached(["inspect", url, "--json"], environment: environment)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            #expect((object["approvals"] as? [[String: Any]])?.first?["matches"] as? Bool == true)
            #expect(object["nextSteps"] == nil)

            let shown = try await CommandRunner.vigilDetached(["certificates", "show", "1"], environment: environment)
            #expect(shown.standardOutput.split(separator: "\n").dropFirst().first?.hasPrefix("APPROVED") == true, "\(shown.standardOutput)")
            #expect(try await CommandRunner.vigilDetached(["certificates", "revoke", "1", "--reason", "test"], environment: environment).status == 0)
            let revoked = try await CommandRunner.vigilDetached(["certificates", "show", "1"], environment: environment)
            #expect(revoked.standardOutput.split(separator: "\n").dropFirst().first?.hasPrefix("UNTRUSTED") == true)
        }
    }

    /// An untrusted certificate that no approval can make safe says so instead of offering one.
    @Test func anUnapprovableCertificateOffersNoApproval() async throws {
        try await withRunningSimulator("wrong-host") { (running) async throws in
            let result = try await CommandRunner.vigilDetached(["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle])
            #expect(result.status == 1)
            #expect(result.standardOutput.contains("Nothing on this side can make it safe"), "\(result.standardOutput)")
            #expect(!result.standardOutput.contains("vigil certificates approve"))
        }
    }

    /// An approval for a certificate no approval can make safe (here: for another name) is named
    /// as one that cannot hold, and the ways forward say why nothing helps: never "accepted".
    @Test func anApprovalThatCannotHoldIsNotCalledAccepted() async throws {
        try await withRunningSimulator("wrong-host") { (running) async throws in
            let data = try TestPaths.temporaryDirectory().path
            let environment = ["XDG_DATA_HOME": data]
            let url = running.url(path: "")
            let json = try await CommandRunner.vigilDetached(["inspect", url, "--ca-file", TestPaths.caBundle, "--json"], environment: environment)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            let leaf = try #require(((object["certificates"] as? [[String: Any]])?.first?["fingerprints"] as? [String: Any])?["sha256"] as? String)
            // A store made by vigil, then a row no approve command would write (it refuses this leaf).
            #expect(try await CommandRunner.vigilDetached(["certificates", "list"], environment: environment).status == 0)
            let port = try #require(URL(string: url)?.port)
            let insert = """
                INSERT INTO approved_certificate (host, port, sha256, spkiSHA256, subject, issuer, notAfter, approvedAt)
                VALUES ('127.0.0.1', \(port), '\(leaf)', 'x', 'CN=x', 'CN=y', '2125-01-01T00:00:00Z', '2026-01-01 00:00:00.000');
                """
            #expect(try CommandRunner.run("/usr/bin/sqlite3", [data + "/vigil/vigil.sqlite", insert]).status == 0)
            let text = try await CommandRunner.vigilDetached(["inspect", url, "--ca-file", TestPaths.caBundle], environment: environment)
            #expect(text.standardOutput.contains("[approval that cannot hold]"), "\(text.standardOutput)")
            #expect(!text.standardOutput.contains("accounts accept it"))
            #expect(text.standardOutput.contains("Nothing on this side can make it safe"))
        }
    }

    /// Listings copy the stored bytes to the output (issue 14): hostile text in a row (escape
    /// sequences, a line break, right-to-left override, quotes, a NUL) comes out escaped in text and
    /// in JSON, and dates from their stored form as ISO 8601, before 1970 too.
    /// An approval is kept under one spelling of its host (`ConnectionDecision`'s origins): the
    /// same leaf approved again under another spelling, or with the port written out, is the same
    /// approval.
    @Test func oneApprovalPerOriginWhateverTheSpelling() async throws {
        let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
        let leaf = TestPaths.testcert("valid-ipv6.pem")
        let fingerprint = try TestPaths.sha256Fingerprint(of: "valid-ipv6")
        let first = try await vigil([
            "certificates", "approve", "--file", leaf, "--host", "[0:0:0:0:0:0:0:1]", "--fingerprint", fingerprint, "--database", database,
        ])
        #expect(first.status == 0 && first.standardOutput.contains("approved 1  [::1]:443"), "\(first.standardOutput) \(first.standardError)")
        let second = try await vigil([
            "certificates", "approve", "--file", leaf, "--host", "[::0001]:443", "--fingerprint", fingerprint, "--database", database,
        ])
        #expect(second.status == 0 && second.standardOutput.contains("approved 1  [::1]:443"), "\(second.standardOutput) \(second.standardError)")
        let other = try await vigil(["certificates", "approve", "--file", leaf, "--host", "[::1]:8443", "--fingerprint", fingerprint, "--database", database])
        #expect(other.status == 0 && other.standardOutput.contains("approved 2  [::1]:8443"), "another port is another origin: \(other.standardOutput)")
    }

    @Test func listingsEscapeWhatTheStoreHolds() async throws {
        let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
        #expect(try await vigil(["certificates", "list", "--database", database]).status == 0)
        let insert = """
            INSERT INTO approved_certificate (host, port, sha256, spkiSHA256, subject, issuer, notAfter, approvedAt, note, revokedAt, revocationReason)
            VALUES ('h\u{f6}st', 8443, 'ab', 'cd', 'CN=evil' || char(27) || '[31m' || char(10) || char(8238) || 'x', 'CN=ca', 'x',
                    '1969-07-20 20:17:40.500', 'n' || char(0) || 'ul "q" \\', '2040-02-29 23:59:59.999', 'r' || char(9));
            INSERT INTO audit_event (time, kind, target, detail, actor) VALUES ('2026-11-01 10:00:00.000', 'future-kind', 't' || char(7), 'd', NULL);
            """
        #expect(try CommandRunner.run("/usr/bin/sqlite3", [database, insert]).status == 0)
        let text = try await vigil(["certificates", "list", "--all", "--database", database]).standardOutput
        #expect(text == "1  h\u{f6}st:8443  ab  CN=evil\\u{1b}[31m\\u{a}\\u{202e}x  approved 1969-07-20T20:17:40Z  revoked 2040-02-29T23:59:59Z: r\\u{9}\n")
        let json = try await vigil(["certificates", "list", "--all", "--json", "--database", database]).standardOutput
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(rows.first?["subject"] as? String == "CN=evil\u{1b}[31m\n\u{202e}x")
        #expect(rows.first?["note"] as? String == "n\u{0}ul \"q\" \\", "the whole note, NUL included")
        #expect(rows.first?["approvedAt"] as? String == "1969-07-20T20:17:40Z" && rows.first?["revokedAt"] as? String == "2040-02-29T23:59:59Z")
        // A date out of range is not copied as it is: the store's date reader decides it (as GRDB did).
        let outOfRange = """
            INSERT INTO approved_certificate (host, port, sha256, spkiSHA256, subject, issuer, notAfter, approvedAt)
            VALUES ('late', 1, 'a', 'b', 'CN=x', 'CN=y', 'z', '2026-02-30 10:00:00.000'), ('leap', 2, 'a', 'b', 'CN=x', 'CN=y', 'z', '2024-02-29 23:59:59.999');
            """
        #expect(try CommandRunner.run("/usr/bin/sqlite3", [database, outOfRange]).status == 0)
        let dates = try await vigil(["certificates", "list", "--database", database]).standardOutput
        #expect(
            dates.contains("late:1  a  CN=x  approved 2026-03-02T10:00:00Z") && dates.contains("leap:2  a  CN=x  approved 2024-02-29T23:59:59Z"), "\(dates)")
        let audit = try await vigil(["certificates", "audit", "--database", database]).standardOutput
        #expect(audit.contains("2026-11-01T10:00:00Z  future-kind (a kind this version does not know)  t\\u{7}  d  by (not recorded)\n"), "\(audit)")
    }

    @Test func aDamagedDatabaseIsReportedAndKept() async throws {
        let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
        let garbage = Data("this is not SQLite, and it must stay as it is\n".utf8) + Data(repeating: 7, count: 2000)
        try garbage.write(to: URL(fileURLWithPath: database))
        let result = try await vigil(["certificates", "list", "--database", database])
        #expect(result.status == 2)
        #expect(result.standardError.contains("not a Vigil database"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == garbage)
    }
}

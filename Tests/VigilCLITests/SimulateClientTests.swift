import Foundation
import Testing
import VigilTestSupport

/// `vigil simulate --client`: any sync client held to the scenarios, judged by what reached the
/// simulated hosts. curl is the client: with the scenario's CA it passes; told `--insecure`, it
/// sends the password to the man in the middle and the suite fails, naming the request.
@Suite("vigil simulate --client", .serialized)
struct SimulateClientTests {
    let directory: String
    init() throws { directory = try TestPaths.temporaryDirectory().path }

    @Test func theCurlProfilePassesValidAndRefusesAForgedCertificate() throws {
        let junit = directory + "/curl.xml"
        let result = try CommandRunner.vigil(
            ["simulate", "--client", "curl", "--scenario", "valid", "--scenario", "mitm-forged", "--scenario", "http2-valid", "--junit", junit],
            currentDirectory: directory)
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        // http2-valid: curl prefers HTTP/2 and logs in over it.
        #expect(result.standardOutput.contains("client: curl") && result.standardOutput.contains("3 scenarios, 3 passed, 0 failed"), "\(result.standardOutput)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("failures=\"0\"") && xml.components(separatedBy: "<testcase ").count - 1 == 3)
    }

    /// A marker forged into a namespace the run did not make proves nothing: under `unshare
    /// --net` (the machine's user namespace, a mount namespace of the test's own so that a
    /// mistake cannot reach the machine's), simulate refuses with a clear error and mounts
    /// nothing over /etc/resolv.conf or /run/dbus. The proof asks the kernel who owns the
    /// namespaces, not /proc/1 (which root cannot read in this container).
    @Test(.enabled(if: getuid() == 0, "unshare --net needs root"))
    func aForgedNamespaceMarkerChangesNothing() throws {
        let script = """
            before=$(findmnt -rn -o TARGET,SOURCE,FSTYPE | sort)
            VIGIL_SIMULATE_NETWORK_NAMESPACE=12345 "$0" simulate --client curl --scenario valid
            echo "status=$?"
            after=$(findmnt -rn -o TARGET,SOURCE,FSTYPE | sort)
            [ "$before" = "$after" ] && echo "mounts unchanged" || { echo "mounts changed:"; diff <(echo "$before") <(echo "$after"); }
            """
        let result = try CommandRunner.run(
            "/usr/bin/unshare", ["--net", "--mount", "--propagation", "private", "--", "/bin/bash", "-c", script, TestPaths.vigilBinary],
            currentDirectory: directory)
        #expect(result.standardOutput.contains("status=2") && result.standardOutput.contains("mounts unchanged"), "\(result.standardOutput)")
        #expect(
            result.standardError.contains("VIGIL_SIMULATE_NETWORK_NAMESPACE is set, but")
                && result.standardError.contains("user namespace is the machine's own") && result.standardError.contains("nothing was mounted"),
            "\(result.standardError)")
    }

    @Test func anInsecureCurlFailsTheSuiteAndTheFailureNamesTheRequest() throws {
        var profile = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: TestPaths.root.appendingPathComponent("mitm-fixtures/clients/curl.json"))) as? [String: Any]
        )
        let command = try #require(profile["command"] as? [String])
        profile["command"] = [command[0], "--insecure"] + command.dropFirst()
        profile["name"] = "curl-insecure"
        let file = directory + "/curl-insecure.json"
        try JSONSerialization.data(withJSONObject: profile).write(to: URL(fileURLWithPath: file))
        let junit = directory + "/insecure.xml"
        let result = try CommandRunner.vigil(["simulate", "--client-profile", file, "--scenario", "mitm-forged", "--scenario", "valid", "--junit", junit])
        #expect(result.status == 1, "\(result.standardOutput)\n\(result.standardError)")
        #expect(
            result.standardOutput.contains("A credential (an Authorization header) reached the man in the middle at 127.0.0.1")
                && result.standardOutput.contains("PROPFIND /remote.php/dav/files/alice/"), "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("alice-test-password"), "no password in the report")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("failures=\"1\"") && xml.contains("reached the man in the middle"), "\(xml)")
    }

    @Test func aCommandTemplateWithoutAProfile() throws {
        let result = try CommandRunner.vigil([
            "simulate", "--scenario", "valid", "--scenario", "self-signed", "--client",
            "curl --silent --fail --cacert {ca_file} --user {user}:{password} --request PROPFIND {url}/remote.php/dav/files/{user}/",
        ])
        #expect(result.status == 0 && result.standardOutput.contains("2 passed"), "\(result.standardOutput)\n\(result.standardError)")
    }

    @Test func badProfilesAreUsageErrors() throws {
        let unknown = try CommandRunner.vigil(["simulate", "--client", "no-such-client", "--scenario", "valid"])
        #expect(unknown.status == 64 && unknown.standardError.contains("no such profile") && unknown.standardError.contains("curl"), "\(unknown.standardError)")
        let placeholder = try CommandRunner.vigil(["simulate", "--client", "curl {secret} {url}", "--scenario", "valid"])
        #expect(placeholder.status == 64 && placeholder.standardError.contains("{secret} is not a placeholder"), "\(placeholder.standardError)")
        let file = directory + "/interactive.json"
        try Data(#"{"name":"x","command":["x"],"interactive":true}"#.utf8).write(to: URL(fileURLWithPath: file))
        let interactive = try CommandRunner.vigil(["simulate", "--client-profile", file, "--scenario", "valid"])
        #expect(interactive.status == 64 && interactive.standardError.contains("interactive"), "\(interactive.standardError)")
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try CommandRunner.vigil(["simulate", "--client-profile", file, "--scenario", "valid"]).status == 64)
        #expect(try CommandRunner.vigil(["simulate", "--client", "curl", "--client-profile", file]).status == 64)
    }

    @Test func aClientThatIsNotInstalledIsReportedNotCrashed() throws {
        let result = try CommandRunner.vigil(["simulate", "--scenario", "valid", "--client", "/nonexistent/sync-client {url}"])
        #expect(
            result.status == 2 && result.standardOutput.contains("not scored") && result.standardOutput.contains("could not be run"),
            "\(result.standardOutput)\n\(result.standardError)")
    }
}

/// owncloudcmd, where it is installed (scripts/client-report.sh installs it): a real two-way sync
/// of `valid` against the simulator: a new local file uploaded, then downloaded back by a second sync.
@Suite(
    "owncloudcmd against the simulator",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/owncloudcmd"), "owncloudcmd is not installed (apt-get install owncloud-client-cmd)"))
struct OwncloudcmdSyncTests {
    @Test func aTwoWaySyncOfValid() throws {
        let keep = try TestPaths.temporaryDirectory().path + "/evidence"
        let result = try CommandRunner.vigil(["simulate", "--client", "owncloudcmd", "--scenario", "valid", "--keep", keep])
        #expect(result.status == 0 && result.standardOutput.contains("works in 1 of 1"), "\(result.standardOutput)\n\(result.standardError)")
        let second = keep + "/valid/state/client/second/from-the-client.txt"
        #expect(
            (try? String(contentsOfFile: second, encoding: .utf8)) == "a new local file\n", "the file uploaded by the first sync came back in the second")
    }
}

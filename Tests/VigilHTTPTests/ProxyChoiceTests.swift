import Foundation
import Testing
import VigilCertificates

@testable import VigilHTTP

/// Which proxy, read from settings, the environment and a PAC file's answer; a 407's schemes.
@Suite("Proxy choice")
struct ProxyChoiceTests {
    func configuration(_ mode: ProxyConfiguration.Mode = .system, environment: [String: String] = [:]) -> ProxyConfiguration {
        var configuration = ProxyConfiguration()
        configuration.mode = mode
        configuration.environment = environment
        return configuration
    }

    @Test func theEnvironmentThenNoProxyThenTheSettingDecide() throws {
        let environment = ["https_proxy": "http://proxy.corp:3128", "no_proxy": ".intranet.corp", "http_proxy": "http://plain.corp:8080"]
        let viaVariable = try configuration(environment: environment).route(for: "https://cloud.example.com/remote.php")
        #expect(viaVariable.shown == ["http://proxy.corp:3128"] && viaVariable.source == "https_proxy")
        let bypassed = try configuration(environment: environment).route(for: "https://files.intranet.corp/")
        #expect(bypassed.shown == ["direct"] && bypassed.source == "no_proxy")
        let plain = try configuration(environment: environment).route(for: "http://crl.example.com/ca.crl")
        #expect(plain.shown == ["http://plain.corp:8080"] && plain.source == "http_proxy")
        let none = try configuration(.none, environment: environment).route(for: "https://cloud.example.com/")
        #expect(none.shown == ["direct"] && none.source == "connection.proxy none")
        let explicit = try configuration(.url("socks5h://[::1]:1080"), environment: environment).route(for: "https://cloud.example.com/")
        #expect(explicit.shown == ["socks5h://[::1]:1080"] && explicit.source == "connection.proxy")
        let nothing = try configuration().route(for: "https://cloud.example.com/")
        #expect(nothing.shown == ["direct"] && nothing.source == "no proxy configured")
    }

    @Test func aProxyIsKnownByItsSchemeHostAndPortAndNeverShowsItsUser() throws {
        let route = try configuration(environment: ["https_proxy": "http://alice:s3cret@Proxy.Corp:3128"]).route(for: "https://a.example/")
        #expect(route.shown == ["http://proxy.corp:3128"])
        #expect(route.candidates[0].identity == ProxyIdentity(scheme: "http", host: "proxy.corp", port: 3128))
        #expect(route.candidates[0].userInformation?.password == "s3cret")
        #expect(ProxyIdentity(url: "http://proxy.corp:3128") != ProxyIdentity(url: "http://proxy.corp:3129"))
        #expect(ProxyIdentity(url: "https://proxy.corp:3128") != ProxyIdentity(url: "http://proxy.corp:3128"))
        #expect(ProxyIdentity(url: "socks5://proxy.corp:1080") == nil, "socks5 resolves names locally: only socks5h")
        #expect(throws: HTTPError.self) { try self.configuration(.url("ftp://proxy.corp:21")).route(for: "https://a.example/") }
        #expect("\(ProxyCredential(user: "alice", password: "s3cret", allowsClearText: false))".contains("s3cret") == false)
        #expect(String(reflecting: ProxyCredential(user: "alice", password: "s3cret", allowsClearText: false)).contains("s3cret") == false)
    }

    @Test func aPACAnswerIsTriedInOrderAndAnEntryVigilCannotUseIsAnError() throws {
        let candidates = try PACFile.candidates("PROXY a.corp:3128; SOCKS5 b.corp; HTTPS c.corp;DIRECT", file: "x.pac", environment: [:])
        #expect(candidates.map(\.shown) == ["http://a.corp:3128", "socks5h://b.corp:1080", "https://c.corp:443", "direct"])
        #expect(try PACFile.candidates("PROXY a.corp", file: "x.pac", environment: [:]).map(\.shown) == ["http://a.corp:80"])
        for answer in ["PROXY evil@a.corp:1; DIRECT", "QUIC a.corp:443; DIRECT", "PROXY a.corp:1/path; DIRECT", "", " ; ", "PROXY"] {
            #expect(throws: HTTPError.self, "\(answer)") { try PACFile.candidates(answer, file: "x.pac", environment: [:]) }
        }
    }

    /// A PAC answer cannot smuggle URL syntax by percent-encoding it: `alice-proxy%40127.0.0.2`
    /// would be shown as a user at 127.0.0.2 while curl connected elsewhere. A host holds host
    /// characters only; what is shown is what curl is given.
    @Test func aPACEntryHoldsHostCharactersOnly() throws {
        for entry in [
            "PROXY alice-proxy%40127.0.0.2:3128", "PROXY a.corp%2Fx:3128", "PROXY a.corp%23:3128", "PROXY a.corp#x:3128", "PROXY a.corp?x:3128",
            "PROXY a.corp:31%328", "PROXY a.corp:+3128", "PROXY a.corp:0", "PROXY a.corp:65536", "PROXY a.corp:", "PROXY ::1:3128", "PROXY [::1%lo]:3128",
            "PROXY [a.corp]:3128", "SOCKS5 a\\b:1080", "PROXY a.corp:3128:1", "PROXY -a.corp$(x):3128",
        ] {
            #expect(throws: HTTPError.self, "\(entry)") { try PACFile.candidates(entry + "; DIRECT", file: "x.pac", environment: [:]) }
        }
        let fine = try PACFile.candidates("PROXY [::1]:3128; SOCKS 10.0.0.1; HTTPS proxy_1.corp.example:8443", file: "x.pac", environment: [:])
        #expect(fine.map(\.shown) == ["http://[::1]:3128", "socks4a://10.0.0.1:1080", "https://proxy_1.corp.example:8443"])
        // The same rule wherever a proxy URL is read (settings, the environment, proxy login).
        for url in ["http://alice-proxy%40127.0.0.2:3128", "http://a.corp%2F:3128", "http://a.corp:3128/path", "http://a.corp:3128/?q", "http://a.corp:3128#f"]
        {
            #expect(ProxyIdentity(url: url) == nil, "\(url)")
            #expect(throws: HTTPError.self, "\(url)") { try self.configuration(.url(url)).route(for: "https://a.example/") }
        }
        #expect(ProxyIdentity(url: "http://proxy.corp:3128/")?.description == "http://proxy.corp:3128")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/pactester"), "needs Debian's libpacparser1: run `make test`"))
    func aPACFileRunsInPactesterAndIsToldNoPath() throws {
        let script = "function FindProxyForURL(url, host) { return dnsDomainIs(host, '.corp') ? 'PROXY p.corp:3128; DIRECT' : 'DIRECT'; }"
        #expect(try PACFile.evaluate(script, url: "https://a.corp/", host: "a.corp", file: "x.pac") == "PROXY p.corp:3128; DIRECT")
        #expect(try PACFile.evaluate(script, url: "https://a.example/", host: "a.example", file: "x.pac") == "DIRECT")
        // What the script is told: the scheme, host and port, never a path or a query.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let echo = directory.appendingPathComponent("echo.pac")
        try "function FindProxyForURL(url, host) { return url + ' ' + host; }".write(to: echo, atomically: true, encoding: .utf8)
        let told = try PACFile().answer(for: "file://" + echo.path, scheme: "https", host: "b.example", port: 8443, environment: [:])
        #expect(told == "https://b.example:8443/ b.example")
        // Not a regular file (a device that never ends): refused before it is read.
        #expect(throws: HTTPError.self) { try PACFile.load("file:///dev/zero") }
    }

    /// The PAC evaluator runs confined: a stand-in evaluator that looks for the user's HOME, a
    /// keyring beside it, the system bus, the machine's files and the network (a listener on
    /// loopback) finds none of them in its cell, while the same probes run unconfined find them
    /// all (so they can see). Its answer says what it found.
    @Test(.enabled(if: PACSandbox.bubblewrap != nil, "needs Debian's bubblewrap: run `make test`"))
    func thePACEvaluatorSeesNoHomeNoKeyringNoNetwork() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-pac-\(UUID().uuidString)")
        let keyrings = directory.appendingPathComponent("home/.local/share/keyrings")
        try FileManager.default.createDirectory(at: keyrings, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "secret".write(to: keyrings.appendingPathComponent("login.keyring"), atomically: true, encoding: .utf8)
        let listener = try #require(Self.loopbackListener())
        defer { close(listener.fd) }
        let standIn = directory.appendingPathComponent("stand-in-pactester")
        try """
        #!/bin/sh
        cat > /dev/null
        found=""
        [ -e '\(keyrings.path)/login.keyring' ] && found="$found-keyring"
        [ -e '\(directory.path)/home' ] && found="$found-home"
        [ -e /root ] || [ -e /home ] && found="$found-homes"
        [ -e /etc/passwd ] && found="$found-passwd"
        [ -e /run/dbus ] || [ -e /run/user ] && found="$found-run"
        [ -n "$HOME$USER$DBUS_SESSION_BUS_ADDRESS" ] && found="$found-environment"
        /usr/bin/python3 -c 'import socket; s = socket.create_connection(("127.0.0.1", \(listener.port)), 2)' 2>/dev/null && found="$found-network"
        grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status 2>/dev/null || [ ! -e /proc/self/status ] || found="$found-capabilities"
        if [ -z "$found" ]; then echo DIRECT; else echo "PROXY leaked$found.invalid:1"; fi
        """.write(to: standIn, atomically: true, encoding: .utf8)
        chmod(standIn.path, 0o755)
        let confined = try PACFile.evaluate("", url: "https://a.example/", host: "a.example", file: "x.pac", evaluator: standIn.path)
        #expect(confined == "DIRECT", "the cell let the evaluator reach: \(confined)")
        // The same probes, unconfined, with the user's environment: they see.
        let process = Process()
        process.executableURL = standIn
        process.environment = ["HOME": directory.appendingPathComponent("home").path, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let unconfined = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(unconfined.contains("-keyring-home") && unconfined.contains("-passwd") && unconfined.contains("-network"), "\(unconfined)")
    }

    /// Inside the cell, `dnsResolve` of the URL's host is answered by Vigil; no other name resolves.
    @Test(.enabled(if: PACSandbox.bubblewrap != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/pactester"), "needs bubblewrap and pactester"))
    func theCellsNamesAreVigilsAnswers() throws {
        let script = "function FindProxyForURL(url, host) { return 'PROXY ' + dnsResolve(host) + ':1; PROXY ' + dnsResolve('other.invalid') + ':2'; }"
        #expect(try PACFile.evaluate(script, url: "https://localhost/", host: "localhost", file: "x.pac") == "PROXY 127.0.0.1:1; PROXY null:2")
    }

    /// A listening TCP socket on 127.0.0.1 and its port.
    static func loopbackListener() -> (fd: Int32, port: Int)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard fd >= 0, bound == 0, listen(fd, 8) == 0 else { return nil }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func noProxyAndIgnoreHostsTakeNamesSuffixesAndAddressRanges() {
        let list = "localhost, .corp.example, *.lan, 10.0.0.0/8, fd00::/8, 192.168.1.7"
        for host in ["localhost", "a.corp.example", "corp.example", "printer.lan", "10.200.3.4", "[fd12::1]", "192.168.1.7"] {
            #expect(ProxyChoice.bypasses(host, list), "\(host)")
        }
        for host in ["example.com", "corp.example.com", "11.0.0.1", "fe80::1", "192.168.1.70", "notlan"] {
            #expect(!ProxyChoice.bypasses(host, list), "\(host)")
        }
        #expect(!ProxyChoice.bypasses("10.0.0.1", "10.0.0.0/abc") && !ProxyChoice.bypasses("10.0.0.1", "10.0.0.0/33"))
    }

    @Test func gnomesProxySettingsAreReadFromGSettingsText() throws {
        let text = """
            org.gnome.system.proxy autoconfig-url ''
            org.gnome.system.proxy ignore-hosts ['localhost', '127.0.0.0/8', 'it\\'s, odd']
            org.gnome.system.proxy mode 'manual'
            org.gnome.system.proxy.http authentication-password 'never-read'
            org.gnome.system.proxy.http host 'plain.corp'
            org.gnome.system.proxy.http port 8080
            org.gnome.system.proxy.https host 'proxy.corp'
            org.gnome.system.proxy.https port 3128
            org.gnome.system.proxy.socks host ''
            org.gnome.system.proxy.socks port 0
            """
        let desktop = try DesktopProxy.parse(text)
        #expect(desktop.mode == "manual" && desktop.ignoreHosts == ["localhost", "127.0.0.0/8", "it's, odd"])
        let https = try #require(try desktop.route(scheme: "https", host: "cloud.example", port: 443, environment: [:]))
        #expect(https.shown == ["http://proxy.corp:3128"] && https.source.contains("GNOME"))
        let plain = try #require(try desktop.route(scheme: "http", host: "crl.example", port: 80, environment: [:]))
        #expect(plain.shown == ["http://plain.corp:8080"])
        let loopback = try #require(try desktop.route(scheme: "https", host: "127.0.0.1", port: 443, environment: [:]))
        #expect(loopback.shown == ["direct"])
        #expect(try DesktopProxy.parse("org.gnome.system.proxy mode 'none'").route(scheme: "https", host: "a", port: 443, environment: [:]) == nil)
        // https without its own proxy uses the http one, as GLib does; odd values are refused.
        let httpOnly = try DesktopProxy.parse(
            "org.gnome.system.proxy mode 'manual'\norg.gnome.system.proxy.http host 'p.corp'\norg.gnome.system.proxy.http port 3128")
        #expect(try httpOnly.route(scheme: "https", host: "a", port: 443, environment: [:])?.shown == ["http://p.corp:3128"])
        #expect(throws: HTTPError.self) { try DesktopProxy.parse("org.gnome.system.proxy mode 'manual'\norg.gnome.system.proxy.https host 'evil@p.corp'") }
        #expect(throws: HTTPError.self) { try DesktopProxy.parse("org.gnome.system.proxy mode 'sideways'") }
        let wpad = try DesktopProxy.parse("org.gnome.system.proxy mode 'auto'").route(scheme: "https", host: "a", port: 443, environment: [:])
        #expect(wpad?.shown == ["direct"] && wpad?.source.contains("WPAD") == true, "GNOME's automatic mode without a URL is WPAD: not done")
    }

    @Test func aChallengeNamesItsSchemesAndRealm() {
        let proxy = ProxyIdentity(scheme: "http", host: "proxy.corp", port: 3128)
        let challenge = ProxyChallenge(
            proxy: proxy, fields: ["Basic realm=\"Corp, Inc.\"", "Digest realm=\"Corp\", nonce=\"abc\", qop=\"auth\", algorithm=MD5", "Negotiate", "NTLM"])
        #expect(challenge.schemes == ["Basic", "Digest", "Negotiate", "NTLM"])
        #expect(challenge.realm == "Corp, Inc.")
        let required = challenge.error(offered: ProxyChoice.Offer(), curlCode: nil)
        #expect(required.code == .proxyAuthenticationRequired && required.reason.contains("vigil proxy login http://proxy.corp:3128 --user NAME"))
        let refused = challenge.error(offered: ProxyChoice.Offer(user: "alice"), curlCode: nil)
        #expect(refused.code == .proxyAuthenticationRefused)
        let basicOnly = ProxyChallenge(proxy: proxy, fields: ["Basic realm=\"x\""])
        let noConsent = basicOnly.error(offered: ProxyChoice.Offer(user: "alice", clearTextRefused: true), curlCode: nil)
        #expect(noConsent.code == .proxyAuthenticationRequired && noConsent.reason.contains("--allow-clear-text"))
    }
}

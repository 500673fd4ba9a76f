import FoundationEssentials
import Glibc
import Synchronization
import VigilLogging
import VigilText

/// The desktop's proxy: GNOME's `org.gnome.system.proxy` (also read by Unity, Budgie, Cinnamon
/// and Pantheon), asked of GLib's own `gsettings` (Debian's libglib2.0-bin) once per process, on
/// such a desktop only (`XDG_CURRENT_DESKTOP`), in a limited process like a PAC file's. What is
/// read: the mode (`none`, `manual`, `auto`), the manual https, http and socks proxies, the hosts
/// that bypass them, and the autoconfig URL. GNOME's proxy user and password (kept in clear in
/// its settings) are never read: `vigil proxy login` keeps them in the keyring.
struct DesktopProxy: Sendable, Hashable {
    var mode = "none"
    var autoconfigURL = ""
    var ignoreHosts: [String] = []
    var https: (host: String, port: Int) = ("", 0)
    var http: (host: String, port: Int) = ("", 0)
    var socks: (host: String, port: Int) = ("", 0)

    static func == (a: DesktopProxy, b: DesktopProxy) -> Bool {
        a.mode == b.mode && a.autoconfigURL == b.autoconfigURL && a.ignoreHosts == b.ignoreHosts && a.https == b.https && a.http == b.http
            && a.socks == b.socks
    }
    func hash(into hasher: inout Hasher) {
        hasher.combine(mode)
        hasher.combine(autoconfigURL)
    }

    /// The desktops whose proxy settings are GNOME's schema.
    static let desktops = ["gnome", "unity", "budgie", "cinnamon", "pantheon"]
    /// GLib's settings tool.
    static let tool = "/usr/bin/gsettings"
    /// What the settings tool needs to find the user's settings (dconf's database, or a keyfile
    /// backend's file) and the schemas; nothing else of the environment is passed.
    static let passed = [
        "HOME", "XDG_CONFIG_HOME", "XDG_DATA_DIRS", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "GSETTINGS_BACKEND",
        "GSETTINGS_SCHEMA_DIR",
    ]

    private static let cache = Mutex<[[String]: Result<DesktopProxy, HTTPError>]>([:])

    /// The desktop's proxy settings; nil when this is not such a desktop (or GLib's settings tool
    /// is not installed). On such a desktop, settings that cannot be read are an error, never a
    /// silent direct connection.
    static func read(environment: [String: String]) throws -> DesktopProxy? {
        // `ubuntu:GNOME`: names separated by colons, each compared whole.
        let names = (environment["XDG_CURRENT_DESKTOP"] ?? "").lowercased().split(separator: ":").map(String.init)
        guard names.contains(where: desktops.contains), FileManager.default.isExecutableFile(atPath: tool) else { return nil }
        let passing = passed.compactMap { name in environment[name].map { "\(name)=\($0)" } }
        if let known = cache.withLock({ $0[passing] }) { return try known.get() }
        let read: Result<DesktopProxy, HTTPError> = Result { () throws(HTTPError) in
            guard let text = run(passing) else {
                throw HTTPError(
                    .proxy,
                    "The desktop's proxy settings (GNOME's org.gnome.system.proxy) cannot be read with \(tool). Nothing was sent; choose with connection.proxy."
                )
            }
            return try parse(text)
        }
        cache.withLock { $0[passing] = read }
        return try read.get()
    }

    static func run(_ environment: [String]) -> String? {
        guard
            case .exited(0, let output, truncated: false) = LimitedProcess.run(
                [tool, "list-recursively", "org.gnome.system.proxy"], environment: environment, outputLimit: 16384, timeoutMilliseconds: 2000)
        else { return nil }
        return output
    }

    /// `gsettings list-recursively`'s lines: `SCHEMA KEY VALUE`, values in GVariant text. A mode
    /// Vigil does not know, or a host that is not a host name or an address, is an error.
    static func parse(_ text: String) throws(HTTPError) -> DesktopProxy {
        var proxy = DesktopProxy()
        for line in TextLines.split(text, omittingEmpty: true) {
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3 else { continue }
            let value = String(fields[2])
            switch (fields[0], fields[1]) {
            case ("org.gnome.system.proxy", "mode"): proxy.mode = string(value) ?? "none"
            case ("org.gnome.system.proxy", "autoconfig-url"): proxy.autoconfigURL = string(value) ?? ""
            case ("org.gnome.system.proxy", "ignore-hosts"): proxy.ignoreHosts = strings(value)
            case ("org.gnome.system.proxy.https", "host"): proxy.https.host = string(value) ?? ""
            case ("org.gnome.system.proxy.https", "port"): proxy.https.port = Int(value) ?? 0
            case ("org.gnome.system.proxy.http", "host"): proxy.http.host = string(value) ?? ""
            case ("org.gnome.system.proxy.http", "port"): proxy.http.port = Int(value) ?? 0
            case ("org.gnome.system.proxy.socks", "host"): proxy.socks.host = string(value) ?? ""
            case ("org.gnome.system.proxy.socks", "port"): proxy.socks.port = Int(value) ?? 0
            default: break
            }
        }
        func refused(_ why: String) -> HTTPError {
            HTTPError(.proxy, "The desktop's proxy settings (GNOME's org.gnome.system.proxy) \(why). Nothing was sent; choose with connection.proxy.")
        }
        guard ["none", "manual", "auto"].contains(proxy.mode) else { throw refused("name a mode Vigil does not know (\(SafeText.escaped(proxy.mode)))") }
        for host in [proxy.https.host, proxy.http.host, proxy.socks.host] where !host.isEmpty && !isHost(host) {
            throw refused("name a proxy host that is not a host name or an address (\(SafeText.escaped(host)))")
        }
        return proxy
    }

    /// A host name (letters, digits, `-`, `_`, `.`) or an IP address (IPv6 possibly in brackets).
    static func isHost(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if ProxyChoice.isAddress(bare) { return true }
        return !bare.isEmpty && bare.count <= 253
            && bare.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0 | 0x20) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
    }

    /// A GVariant string: `'text'` with backslash escapes (or `"text"`).
    static func string(_ value: String) -> String? {
        guard let quote = value.first, quote == "'" || quote == "\"", value.count >= 2, value.last == quote else { return nil }
        var text = ""
        var escaped = false
        for character in value.dropFirst().dropLast() {
            if escaped {
                text.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                text.append(character)
            }
        }
        return text
    }

    /// A GVariant array of strings: `['a', 'b']` (or `@as []`).
    static func strings(_ value: String) -> [String] {
        guard let open = value.firstIndex(of: "["), let close = value.lastIndex(of: "]"), open < close else { return [] }
        var items: [String] = []
        var current = ""
        var quote: Character?
        var escaped = false
        for character in value[value.index(after: open)..<close] {
            if let open = quote {
                current.append(character)
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == open {
                    quote = nil
                }
            } else if character == "'" || character == "\"" {
                quote = character
                current.append(character)
            } else if character == "," {
                if let item = string(current.trimmingWhitespace()) { items.append(item) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if let item = string(current.trimmingWhitespace()) { items.append(item) }
        return items
    }

    /// The route this desktop setting gives for `scheme://host`, nil when it says nothing (mode
    /// `none`: the caller goes direct).
    func route(scheme: String, host: String, port: Int, environment: [String: String]) throws -> ProxyRoute? {
        switch mode {
        case "manual":
            if ProxyChoice.bypasses(host, ignoreHosts.joined(separator: ",")) {
                return ProxyRoute(candidates: [.direct], source: "GNOME org.gnome.system.proxy ignore-hosts")
            }
            // As GLib's own resolver: https uses the https proxy, else the http one; http the http
            // one; else SOCKS. A port outside 1-65535 is no proxy.
            func usable(_ proxy: (host: String, port: Int)) -> Bool { !proxy.host.isEmpty && (1...65535).contains(proxy.port) }
            let chosen: String? =
                if scheme == "https", usable(https) {
                    "http://\(Self.bracketed(https.host)):\(https.port)"
                } else if usable(http) {
                    "http://\(Self.bracketed(http.host)):\(http.port)"
                } else if usable(socks) {
                    "socks5h://\(Self.bracketed(socks.host)):\(socks.port)"
                } else {
                    nil
                }
            guard let chosen else { return ProxyRoute(candidates: [.direct], source: "GNOME org.gnome.system.proxy (manual, no proxy for \(scheme))") }
            let choice = try ProxyChoice.parse(chosen, named: "GNOME's org.gnome.system.proxy", environment: environment)
            return ProxyRoute(candidates: [choice], source: "GNOME org.gnome.system.proxy (manual)")
        case "auto":
            guard !autoconfigURL.isEmpty else {
                // GNOME's automatic mode without a URL is WPAD discovery, which Vigil does not do.
                return ProxyRoute(candidates: [.direct], source: "GNOME org.gnome.system.proxy (automatic without a PAC URL: WPAD, which Vigil does not do)")
            }
            guard let url = URLComponents(string: autoconfigURL), ["http", "https", "file"].contains(url.scheme?.lowercased() ?? "") else {
                throw HTTPError(
                    .proxy, "GNOME's proxy autoconfig URL (\(SafeText.escaped(autoconfigURL))) is not an http, https or file URL. Nothing was sent.")
            }
            let answer = try PACFile.shared.answer(for: autoconfigURL, scheme: scheme, host: host, port: port, environment: environment)
            let candidates = try PACFile.candidates(answer, file: autoconfigURL, environment: environment)
            return ProxyRoute(candidates: candidates, source: "GNOME org.gnome.system.proxy autoconfig-url \(autoconfigURL)", autoconfigAnswer: answer)
        default:
            return nil
        }
    }

    static func bracketed(_ host: String) -> String { host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host }
}

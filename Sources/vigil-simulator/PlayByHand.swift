import FoundationEssentials
import VigilSettings
import VigilSimulator
import VigilText

/// What `vigil simulator serve` prints beside the hosts so that a person can play a scenario by
/// hand: the proxies and the PAC file the client must be told to use, the trust the scenario's
/// machine has, the settings its user has, and the premise of "an account set up before".
enum PlayByHand {
    /// The lines, from the scenario and what listens (`http1`: host 1's plain URL; `proxies`: the
    /// forward proxies' URLs; `passwords`: theirs; `certificates`: the testcerts directory; `resolved`:
    /// a setting's `{https:1}` and the like as URLs).
    static func lines(
        _ scenario: Scenario, http1: String?, httpsPort: Int?, proxies: [String], passwords: [String], certificates: String,
        resolved: (String) -> String
    ) -> [String] {
        var lines: [String] = []
        let plan = scenario.proxy
        for (index, url) in proxies.enumerated() {
            let login = plan?.proxies.indices.contains(index) == true ? plan?.proxies[index].login ?? .none : .none
            let asks =
                login == .none
                ? "lets every CONNECT through"
                : "asks \(login.rawValue) (user \(ProxyPlan.user), password \(passwords.indices.contains(index) ? passwords[index] : "?"))"
            lines.append("proxy \(index + 1)  \(url)  \(asks)")
        }
        if plan?.pac != nil, let http1 {
            lines.append("PAC file: \(http1)/proxy.pac  (play it: VIGIL_CONNECTION_PROXY_AUTOCONFIG_URL=\(http1)/proxy.pac vigil ...)")
        } else if let through = plan?.through, proxies.indices.contains(through - 1) {
            lines.append("the client must go through proxy \(through): VIGIL_CONNECTION_PROXY=\(proxies[through - 1]) vigil ...")
        }
        guard let client = scenario.client else { return lines }
        if let trust = client.trust {
            lines.append(
                trust.isEmpty
                    ? "the client trusts no CA file (a private CA met for the first time): give no --ca-file"
                    : "the client trusts only: " + SuggestedCommand.line(trust.flatMap { ["--ca-file", "\(certificates)/\($0).pem"] }))
        }
        if let system = client.systemTrust, !system.isEmpty {
            let files = SuggestedCommand.line(system.map { "\(certificates)/\($0).pem" })
            lines.append(
                "the machine's system store also holds (roots an administrator added): \(files); play it: cat /etc/ssl/certs/ca-certificates.crt \(files) > store.pem; SSL_CERT_FILE=store.pem SSL_CERT_DIR=/nonexistent vigil ..."
            )
        }
        // The user's settings for this play only, in the environment (never the reader's own file).
        for (key, value) in (client.settings ?? [:]).sorted(by: { $0.key < $1.key }) {
            let variable = SettingsCatalog.definition(for: key)?.environmentVariable ?? key
            lines.append("the user's setting, for this play: \(variable)=\(SuggestedCommand.quoted(resolved(value.shown))) vigil ...")
        }
        if let login = client.proxyLogin, proxies.indices.contains(login.proxy - 1) {
            let proxy = proxies[login.proxy - 1]
            lines.append(
                "kept before: "
                    + SuggestedCommand.line(
                        ["vigil", "proxy", "login", proxy, "--user", ProxyPlan.user] + (login.allowClearText == true ? ["--allow-clear-text"] : []))
                    + " (afterwards: \(SuggestedCommand.line(["vigil", "proxy", "logout", proxy])))")
        }
        if let account = client.account {
            let certificate = account.certificate ?? "its genuine certificate (valid-127.0.0.1)"
            let port = httpsPort.map(String.init) ?? "PORT"
            // The account is added with the CA files the scenario's client trusts, as the suite adds it.
            let trusted = SuggestedCommand.line((client.trust ?? ["ca-bundle"]).flatMap { ["--ca-file", "\(certificates)/\($0).pem"] })
            lines.append(
                "premise: an account set up before, when host 1 served \(certificate)\(account.approved == true ? ", approved by the user" : "")"
                    + (account.method.map { ", logged in with \($0)" } ?? ", with a password (Basic)") + ". Play it by hand: "
                    + "vigil simulator serve --scenario basic-only --port \(port); beside it, "
                    + "printf '%s\\n' alice-test-password | vigil account add https://127.0.0.1:\(port) --user alice --password-stdin \(trusted); "
                    + "stop it, serve this scenario with the same --port, then vigil account check --all (the scenario is that account's next connection)."
                    + (account.certificate != nil || account.approved == true || account.method != nil
                        ? " (This premise's certificate, approval or login method differs from that setup: vigil simulate plays it exactly.)" : ""))
        }
        return lines
    }
}

extension ScenarioClient.SettingValue {
    /// The value as `vigil config set` takes it (a list comma-separated).
    var shown: String {
        switch self {
        case .string(let text): text
        case .integer(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .strings(let items): items.joined(separator: ",")
        }
    }
}

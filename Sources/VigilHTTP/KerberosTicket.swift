import FoundationEssentials
import Glibc
import VigilLogging
import VigilText

/// The user's Kerberos ticket, as MIT Kerberos's own `klist` (Debian's krb5-user) reports it: what
/// a proxy that asks for Negotiate alone needs, said when it is missing or expired, with the
/// `kinit` that gets one. Only asked after such a proxy's 407; never reads or sends the ticket.
enum KerberosTicket {
    /// What the credentials cache holds.
    enum State: Equatable {
        /// A ticket that has not expired, for this principal.
        case valid(principal: String?)
        /// A cache whose tickets all expired (the principal, when the cache names one).
        case expired(principal: String?)
        /// No credentials cache at all.
        case none
        /// `klist` is not installed, so nothing can be said.
        case unknown
    }

    static let klist = "/usr/bin/klist"

    /// The cache's state, asked of `klist -s` (exit 0: a valid ticket) and `klist` (the cache and
    /// its principal), with only the Kerberos variables of this process passed on.
    static func state(environment: [String: String] = ProcessInfo.processInfo.environment) -> State {
        guard access(klist, X_OK) == 0 else { return .unknown }
        let passed = ["KRB5CCNAME", "KRB5_CONFIG", "HOME", "USER"].compactMap { name in environment[name].map { "\(name)=\($0)" } }
        let listed = LimitedProcess.run([klist], environment: passed, outputLimit: 16384, timeoutMilliseconds: 2000)
        guard case .exited(let status, let output, _) = listed else { return .unknown }
        let principal = TextLines.split(output, omittingEmpty: true).first { $0.hasPrefix("Default principal: ") }.map {
            String($0.dropFirst("Default principal: ".count)).trimmingWhitespace()
        }
        guard status == 0 else { return principal == nil ? .none : .expired(principal: principal) }
        let valid = LimitedProcess.run([klist, "-s"], environment: passed, outputLimit: 1024, timeoutMilliseconds: 2000)
        if case .exited(0, _, _) = valid { return .valid(principal: principal) }
        return .expired(principal: principal)
    }

    /// What to say after a proxy's 407 that offered Negotiate alone, and nothing was kept for it.
    static func advice(proxy: ProxyIdentity, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        func kinit(_ principal: String?) -> String { SuggestedCommand.line(["kinit", principal ?? "USER@REALM"]) }
        switch state(environment: environment) {
        case .none:
            return "It asks for Kerberos (Negotiate) only, and you have no Kerberos ticket (no credentials cache). Get one with \(kinit(nil)), then try again."
        case .expired(let principal):
            return
                "It asks for Kerberos (Negotiate) only, and your Kerberos ticket\(principal.map { " for \(SafeText.escaped(String($0.prefix(200))))" } ?? "") has expired. Get a new one with \(kinit(principal)), then try again."
        case .valid(let principal):
            return
                "It asks for Kerberos (Negotiate) only, and your ticket\(principal.map { " for \(SafeText.escaped(String($0.prefix(200))))" } ?? "") could not be used for it or was refused (no service ticket for HTTP/\(proxy.host) in your realm, or another realm): the proxy's administrator can say which realm and service it accepts."
        case .unknown:
            return "It asks for Kerberos (Negotiate) only: get a ticket with \(kinit(nil)) (klist and kinit: apt-get install krb5-user), then try again."
        }
    }
}

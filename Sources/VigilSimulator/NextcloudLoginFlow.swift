import Foundation
import Synchronization

/// Nextcloud's Login Flow v2, as a Nextcloud server plays it (``LoginFlowPlan``): `POST
/// /index.php/login/v2` starts a flow; the browser's `GET /login/v2/flow/TOKEN` logs the
/// scenario's first user in and grants (or shows an expired link); `POST /login/v2/poll` with the
/// poll token answers 404 until then, and once the server, login name and a new app password
/// (the flow is then gone). An app password is valid as that user's Basic password until `DELETE
/// /ocs/v2.php/core/apppassword` revokes it. Every token and app password is a planted secret.
public final class NextcloudLoginFlow: Sendable {
    /// The plan played.
    public let plan: LoginFlowPlan
    /// The user the browser logs in as.
    let user: String
    private struct Flow {
        var pollToken: String
        var loginToken: String
        /// The https URL the flow was started at (what the server names as itself).
        var origin: String
        var granted = false
    }
    private struct State {
        var flows: [Flow] = []
        /// App passwords issued, by password: the user, and whether it was revoked.
        var appPasswords: [String: (user: String, revoked: Bool)] = [:]
        var secrets: [PlantedSecret] = []
        var revocations = 0
    }
    private let state = Mutex(State())

    /// A flow of `plan` logging in `user`.
    public init(plan: LoginFlowPlan, user: String) {
        self.plan = plan
        self.user = user
    }

    /// The poll tokens, login tokens and app passwords issued so far (and the app passwords' Basic form).
    public func issuedSecrets() -> [PlantedSecret] { state.withLock { $0.secrets } }
    /// How many secrets ``issuedSecrets()`` holds (it only grows).
    var issuedSecretCount: Int { state.withLock { $0.secrets.count } }
    /// How many app passwords were revoked (for tests).
    public var revokedCount: Int { state.withLock { $0.revocations } }

    /// The user an app password (Basic) belongs to, while it is not revoked.
    func user(basicUser: String, password: String) -> String? {
        state.withLock { state in
            guard let known = state.appPasswords[password], !known.revoked, known.user == basicUser else { return nil }
            return known.user
        }
    }

    /// Starts a flow: `origin` is the https URL the request came to, `pollBase` the base of the
    /// host the poll endpoint is on.
    func start(origin: String, pollBase: String) -> SimulatedResponse {
        let flow = Flow(pollToken: OIDCProvider.random(32), loginToken: OIDCProvider.random(32), origin: origin)
        state.withLock { state in
            state.flows.append(flow)
            state.secrets += [
                PlantedSecret(what: "the login flow's poll token", value: flow.pollToken),
                PlantedSecret(what: "the login flow's login token", value: flow.loginToken),
            ]
        }
        let http = plan.advertisesHTTP == true
        let scheme = { (url: String) in http ? url.replacingOccurrences(of: "https://", with: "http://") : url }
        let body =
            #"{"poll":{"token":"\#(flow.pollToken)","endpoint":"\#(scheme(pollBase))/login/v2/poll"},"login":"\#(scheme(origin))/login/v2/flow/\#(flow.loginToken)"}"#
        return SimulatedResponse(200, [("Content-Type", "application/json; charset=utf-8")], body: body)
    }

    /// The browser at the login page: granted for ``user`` unless the plan lets the link expire.
    func loginPage(token: String) -> SimulatedResponse {
        let found = state.withLock { state -> Bool in
            guard let index = state.flows.firstIndex(where: { $0.loginToken == token }) else { return false }
            if plan.effectiveEnding == .grant { state.flows[index].granted = true }
            return true
        }
        let page =
            !found
            ? "<html><body><h1>Invalid or expired link</h1></body></html>"
            : plan.effectiveEnding == .grant
                ? "<html><body><h1>Account connected</h1><p>You can close this window.</p></body></html>"
                : "<html><body><h1>This link has expired</h1><p>Start the login again in your client.</p></body></html>"
        return SimulatedResponse(found ? 200 : 404, [("Content-Type", "text/html; charset=utf-8")], body: page)
    }

    /// The poll: 404 until granted, then the grant (once).
    func poll(form: [String: String]) -> SimulatedResponse {
        let notYet = SimulatedResponse(404, [("Content-Type", "application/json; charset=utf-8")], body: "[]")
        guard let token = form["token"] else { return notYet }
        let granted = state.withLock { state -> (origin: String, password: String)? in
            guard let index = state.flows.firstIndex(where: { $0.pollToken == token && $0.granted }) else { return nil }
            let flow = state.flows.remove(at: index)
            let password = OIDCProvider.random(48)
            state.appPasswords[password] = (user, false)
            state.secrets += [
                PlantedSecret(what: "the app password of \(user)", value: password),
                PlantedSecret(what: "the Basic credentials of \(user)'s app password", value: Data("\(user):\(password)".utf8).base64EncodedString()),
            ]
            return (flow.origin, password)
        }
        guard let granted else { return notYet }
        let server =
            plan.advertisesHTTP == true || plan.serverOverHTTP == true ? granted.origin.replacingOccurrences(of: "https://", with: "http://") : granted.origin
        return SimulatedResponse(
            200, [("Content-Type", "application/json; charset=utf-8")],
            body: #"{"server":"\#(server)","loginName":"\#(user)","appPassword":"\#(granted.password)"}"#)
    }

    /// `DELETE /ocs/v2.php/core/apppassword` with an app password as Basic credentials.
    func revoke(basicUser: String, password: String) -> SimulatedResponse {
        let revoked = state.withLock { state -> Bool in
            guard let known = state.appPasswords[password], !known.revoked, known.user == basicUser else { return false }
            state.appPasswords[password] = (known.user, true)
            state.revocations += 1
            return true
        }
        return revoked
            ? SimulatedResponse(
                200, [("Content-Type", "application/json; charset=utf-8")], body: #"{"ocs":{"meta":{"status":"ok","statuscode":200,"message":"OK"},"data":[]}}"#
            )
            : SimulatedResponse(
                403, [("Content-Type", "application/json; charset=utf-8")], body: #"{"ocs":{"meta":{"status":"failure","statuscode":403},"data":[]}}"#)
    }
}

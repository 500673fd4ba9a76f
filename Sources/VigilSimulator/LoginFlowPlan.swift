/// A Nextcloud server's Login Flow v2 (``Scenario/product`` `Nextcloud` plays one, granting by
/// default): how the user's browser login ends, where the poll endpoint is, and what the server
/// says about itself.
public struct LoginFlowPlan: Codable, Sendable, Hashable {
    /// How the browser login ends.
    public enum Ending: String, Codable, Sendable, Hashable, CaseIterable {
        /// The user logs in and grants access: the next poll gets the app password.
        case grant
        /// The page says the link expired; the poll never answers anything but 404.
        case expire
    }

    /// How the browser login ends (`grant` when absent).
    public var ending: Ending?
    /// The host (1, 2 or 3) the poll endpoint is on; the host the flow started at when absent.
    public var pollHost: Int?
    /// The server believes it is reached over plain HTTP (a TLS-terminating proxy without
    /// `overwriteprotocol`): the login page and the poll endpoint are `http://` URLs.
    public var advertisesHTTP: Bool?
    /// Only the `server` the poll's answer names is `http://` (the flow's own URLs are https).
    public var serverOverHTTP: Bool?

    /// `ending`, else `grant`.
    public var effectiveEnding: Ending { ending ?? .grant }
}

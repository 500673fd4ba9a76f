import FoundationEssentials
import VigilAuth
import VigilHTTP
public import VigilText

/// An account's files root answered with a redirect: never followed. A permanent one (301, 308)
/// that keeps the account's files path under another server URL is a move: the new server's
/// certificate is reviewed (a handshake, nothing sent) and `vigil account move` is offered. A
/// temporary one (302, 307) is only reported.
public struct ServerMove: Sendable, Equatable {
    /// The new server's certificate, as a handshake showed it (nothing was sent there).
    public struct Review: Sendable, Equatable {
        /// Whether Vigil trusts it (else the move will ask for an approval).
        public var trusted: Bool
        /// The verdict in words (the reasons when not trusted).
        public var summary: String
        /// The leaf's SHA-256 fingerprint, for `--approve-certificate`.
        public var sha256: String
    }

    /// The redirect's status.
    public var status: Int
    /// Where it points.
    public var location: String
    /// The server URL the account would move to; nil when the location is not the account's
    /// files path under another https server (then nothing is offered).
    public var newServer: String?
    /// The new server's certificate; nil when not reviewed (no new server, or it did not answer).
    public var review: Review?
    /// Why the review failed, when it did.
    public var reviewProblem: String?

    /// 301 or 308.
    public var isPermanent: Bool { status == 301 || status == 308 }
    /// A move Vigil can carry the account through (`vigil account move`).
    public var isMove: Bool { isPermanent && newServer != nil }

    /// The server URL under which `location` keeps the account's files path (`tail`, from the
    /// server URL on: `/remote.php/dav/files/alice/`), when it is https and not the old server.
    static func newServer(location: String, tail: String, old: String) -> String? {
        var target = location
        if let cut = target.firstIndex(where: { $0 == "?" || $0 == "#" }) { target = String(target[..<cut]) }
        let bare = tail.hasSuffix("/") ? String(tail.dropLast()) : tail
        let base: String
        if target.hasSuffix(tail) {
            base = String(target.dropLast(tail.count))
        } else if target.hasSuffix(bare) {
            base = String(target.dropLast(bare.count))
        } else {
            return nil
        }
        guard base.lowercased().hasPrefix("https://"), (try? Endpoint(url: base)) != nil else { return nil }
        // The same server in another spelling (case, an explicit :443) is no move.
        return AccountSetup.normalized(AuthenticationDetector.trimmed(base)) == AccountSetup.normalized(AuthenticationDetector.trimmed(old))
            ? nil : AuthenticationDetector.trimmed(base)
    }

    /// The sentence a report shows: what happened, the new certificate, and the command.
    public func text(accountID: String) -> String {
        let kind = isPermanent ? "moved permanently (\(status))" : "redirects temporarily (\(status))"
        var text = "the files root \(kind) to \(location): not followed"
        if location.lowercased().hasPrefix("http://") {
            return text + ". " + PlainHTTPAdvice.text(server: PlainHTTPAdvice.httpsOrigin(of: location), product: nil)
        }
        guard isPermanent else { return text + "; if it lasts, check the server's URL with its administrator" }
        guard newServer != nil else { return text + "; it is not the account's files under another server URL, so no move is offered" }
        if let review {
            text += "; the new server's certificate: \(review.summary) (SHA-256 \(review.sha256))"
        } else if let reviewProblem {
            text += "; the new server could not be reviewed: \(reviewProblem)"
        }
        return text + ". To carry the account there: " + (command(accountID: accountID)?.line ?? SuggestedCommand.unshowable)
    }

    /// `vigil account move ID NEW`, quoted for a shell; nil when no move is offered or the new
    /// server's URL cannot be shown safely.
    public func command(accountID: String) -> SuggestedCommand? {
        newServer.flatMap { SuggestedCommand(["vigil", "account", "move", accountID, $0]) }
    }
}

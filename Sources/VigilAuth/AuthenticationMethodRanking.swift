/// Filters detected methods by the allowed list and orders them by preference, as the ownCloud
/// SDK does: the first one left is the method picked for the user.
public enum AuthenticationMethodRanking {
    /// - Parameters:
    ///   - detected: what the server offers, in detection order.
    ///   - allowed: the only methods that may be used; nil allows every detected one.
    ///   - preferred: most preferred first; detected methods it does not name follow, in detection order.
    public static func rank(
        _ detected: [AuthenticationMethodIdentifier], allowed: [AuthenticationMethodIdentifier]?,
        preferred: [AuthenticationMethodIdentifier]
    ) -> [AuthenticationMethodIdentifier] {
        var seen: Set<AuthenticationMethodIdentifier> = []
        let usable = detected.filter { (allowed?.contains($0) ?? true) && seen.insert($0).inserted }
        let position = { (method: AuthenticationMethodIdentifier) in preferred.firstIndex(of: method) ?? preferred.count }
        return usable.enumerated().sorted { (position($0.element), $0.offset) < (position($1.element), $1.offset) }.map(\.element)
    }
}

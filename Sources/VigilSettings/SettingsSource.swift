/// Where a value comes from, highest precedence first.
public enum SettingsSource: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case environment
    case user
    case managed
    case `default`

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}

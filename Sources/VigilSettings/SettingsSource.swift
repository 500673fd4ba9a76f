/// Where a value comes from, highest precedence first.
public enum SettingsSource: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// A `VIGIL_` environment variable.
    case environment
    /// The user settings file.
    case user
    /// The managed (administrator's) file.
    case managed
    /// The catalogue's built-in default.
    case `default`

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    /// True when `lhs` takes precedence over `rhs`.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}

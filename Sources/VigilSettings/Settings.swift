/// The resolved settings: for every key, its value, the source that won, and what each source
/// said. A value; load it with ``SettingsLoader``.
public struct Settings: Sendable {
    /// What one source says about one key.
    public struct Layer: Sendable, Hashable {
        /// The source that says it.
        public var source: SettingsSource
        /// The file path, the environment variable, or "built in".
        public var location: String
        /// The value as written (text or JSON), for display.
        public var raw: String
        /// The validated value; nil when it was refused.
        public var value: SettingValue?
        /// Why the value is not used although present (invalid, locked, managed only).
        public var ignoredBecause: String?
    }

    /// One key, resolved.
    public struct Entry: Sendable {
        /// The key's definition in the catalogue.
        public var definition: SettingDefinition
        /// The value in force (nil: unset).
        public var value: SettingValue?
        /// The source of `value`.
        public var source: SettingsSource
        /// Every source that has something for this key, highest precedence first (default last).
        public var layers: [Layer]
        /// Why the user file may not set this key, when it may not.
        public var lockedBecause: String?
        /// True when the user file may not set this key.
        public var isLocked: Bool { lockedBecause != nil }
    }

    /// Every key of the catalogue, resolved, by key.
    public let entries: [String: Entry]
    /// Warnings and errors found while loading, in source order.
    public let issues: [SettingsIssue]
    /// The files that were read.
    public let locations: SettingsLocations

    /// The issues that make the settings unusable for anything but `vigil config`.
    public var errors: [SettingsIssue] { issues.filter { $0.severity == .error } }

    /// The entry for `key`, or nil for a key the catalogue does not have.
    public subscript(key: String) -> Entry? { entries[key] }

    /// The value in force for `key` (nil when unset or unknown).
    public func value(_ key: String) -> SettingValue? { entries[key]?.value }
    // Typed reads: `settings[.plainHTTPPolicy]` (see ``Setting``).

    /// Entries in catalogue order.
    public var orderedEntries: [Entry] { SettingsCatalog.all.compactMap { entries[$0.key] } }
}

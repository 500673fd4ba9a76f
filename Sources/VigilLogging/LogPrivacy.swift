public import Logging

/// The privacy of a metadata value, as a swift-log metadata attribute (SLG-0004).
///
/// Vigil's masking handler treats a value **without** this attribute as private: only values
/// marked `.public` are written as they are.
public enum LogPrivacy: Int64, Logger.MetadataValueAttributes.Attribute, Sendable {
    /// Masked as `«private»`.
    case `private` = 1
    /// Written as is.
    case `public` = 2
    /// Masked as `«private:1a2b3c»`, a short keyed hash that correlates equal values.
    case privateHashed = 3
}

extension Logger.MetadataValue {
    /// A value written as is.
    public static func `public`(_ value: some CustomStringConvertible & Sendable) -> Logger.MetadataValue {
        .attributed("\(value)", attributes: [LogPrivacy.public])
    }

    /// A value always masked (unmarked values are masked too; this says so explicitly).
    public static func `private`(_ value: some CustomStringConvertible & Sendable) -> Logger.MetadataValue {
        .attributed("\(value)", attributes: [LogPrivacy.private])
    }

    /// A value masked as a short keyed hash, so that equal values can be correlated.
    public static func privateHashed(_ value: some CustomStringConvertible & Sendable) -> Logger.MetadataValue {
        .attributed("\(value)", attributes: [LogPrivacy.privateHashed])
    }
}

extension Logger.MetadataValue.StringInterpolation {
    /// `"\(value, privacy: .public)"` in a metadata value.
    public mutating func appendInterpolation<T: CustomStringConvertible & Sendable>(_ value: T, privacy: LogPrivacy) {
        self.appendInterpolation(value, attributes: { $0[LogPrivacy.self] = privacy })
    }
}

public import Logging

/// A log message whose interpolated values are private unless marked public:
///
///     logger.privacy.info("Connecting to \(host) as \(user, hashed: true), attempt \(public: n)")
///
/// Private values travel to the masking handler between marker characters (Unicode private-use
/// code points U+E000...U+E002, stripped from the values themselves), so the handler can mask
/// them or, with masking off, unwrap them.
public struct PrivacyMessage: ExpressibleByStringInterpolation, Sendable, CustomStringConvertible {
    static let privateStart: Character = "\u{E000}"
    static let hashedStart: Character = "\u{E001}"
    static let end: Character = "\u{E002}"

    /// The text with markers around private values.
    public let marked: String

    /// A message with no private values; marker characters are removed from the literal.
    public init(stringLiteral value: String) { marked = Self.clean(value) }
    /// A message built by interpolation: values are private unless marked `public:`.
    public init(stringInterpolation: StringInterpolation) { marked = stringInterpolation.text }

    /// Builds the marked text of a ``PrivacyMessage``.
    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""
        /// Reserves room for the literal and the values.
        public init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity + interpolationCount * 8) }
        /// Literal text, kept as written (marker characters removed).
        public mutating func appendLiteral(_ literal: String) { text += PrivacyMessage.clean(literal) }

        /// A private value: masked as `«private»`.
        public mutating func appendInterpolation(_ value: some Any) {
            text.append(PrivacyMessage.privateStart)
            text += PrivacyMessage.clean(String(describing: value))
            text.append(PrivacyMessage.end)
        }

        /// A private value masked as `«private:1a2b3c»` when `hashed` is true.
        public mutating func appendInterpolation(_ value: some Any, hashed: Bool) {
            text.append(hashed ? PrivacyMessage.hashedStart : PrivacyMessage.privateStart)
            text += PrivacyMessage.clean(String(describing: value))
            text.append(PrivacyMessage.end)
        }

        /// A public value: written as is.
        public mutating func appendInterpolation(public value: some Any) {
            text += PrivacyMessage.clean(String(describing: value))
        }
    }

    /// As a swift-log message (markers included).
    public var message: Logger.Message { Logger.Message(stringLiteral: marked) }

    /// The text with private values masked, for display outside a log handler.
    public var description: String { LogMasker.mask(marked, enabled: true, hasher: .shared) }

    /// Removes marker characters so that logged data cannot forge or end a private section.
    static func clean(_ text: String) -> String {
        // Every marker is encoded as EE 80 80...82 in UTF-8: no 0xEE byte, no marker.
        guard text.utf8.contains(0xEE), text.unicodeScalars.contains(where: { $0.value >= 0xE000 && $0.value <= 0xE002 }) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.filter { !($0.value >= 0xE000 && $0.value <= 0xE002) }))
    }
}

extension Logger {
    /// Logging with ``PrivacyMessage``: interpolated values are private unless marked public.
    public var privacy: PrivacyLogger { PrivacyLogger(logger: self) }
}

/// ``Logger`` methods taking a ``PrivacyMessage``.
public struct PrivacyLogger: Sendable {
    /// The logger written to.
    public let logger: Logger

    /// Logs `message` at `level` when the logger's level lets it through; only then is `message` evaluated.
    public func log(
        level: Logger.Level, _ message: @autoclosure () -> PrivacyMessage, metadata: @autoclosure () -> Logger.Metadata? = nil, error: (any Error)? = nil,
        source: String? = nil, file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard logger.logLevel <= level else { return }
        logger.log(level: level, message().message, error: error, metadata: metadata(), source: source, file: file, function: function, line: line)
    }

    /// Logs `message` at trace level.
    public func trace(
        _ message: @autoclosure () -> PrivacyMessage, metadata: @autoclosure () -> Logger.Metadata? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log(level: .trace, message(), metadata: metadata(), file: file, function: function, line: line)
    }
    /// Logs `message` at debug level.
    public func debug(
        _ message: @autoclosure () -> PrivacyMessage, metadata: @autoclosure () -> Logger.Metadata? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log(level: .debug, message(), metadata: metadata(), file: file, function: function, line: line)
    }
    /// Logs `message` at info level.
    public func info(
        _ message: @autoclosure () -> PrivacyMessage, metadata: @autoclosure () -> Logger.Metadata? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log(level: .info, message(), metadata: metadata(), file: file, function: function, line: line)
    }
    /// Logs `message` at notice level.
    public func notice(
        _ message: @autoclosure () -> PrivacyMessage, metadata: @autoclosure () -> Logger.Metadata? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log(level: .notice, message(), metadata: metadata(), file: file, function: function, line: line)
    }
    /// Logs `message` and `error` at warning level.
    public func warning(
        _ message: @autoclosure () -> PrivacyMessage, metadata: @autoclosure () -> Logger.Metadata? = nil, error: (any Error)? = nil, file: String = #fileID,
        function: String = #function, line: UInt = #line
    ) {
        log(level: .warning, message(), metadata: metadata(), error: error, file: file, function: function, line: line)
    }
    /// Logs `message` and `error` at error level.
    public func error(
        _ message: @autoclosure () -> PrivacyMessage, metadata: @autoclosure () -> Logger.Metadata? = nil, error: (any Error)? = nil, file: String = #fileID,
        function: String = #function, line: UInt = #line
    ) {
        log(level: .error, message(), metadata: metadata(), error: error, file: file, function: function, line: line)
    }
}

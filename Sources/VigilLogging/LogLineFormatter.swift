public import FoundationEssentials
import Glibc
public import Logging
import Synchronization
import VigilText

/// Formats one (already masked) event into lines, in the configured format.
public struct LogLineFormatter: Sendable {
    /// The line format.
    public var format: LogConfiguration.Format
    /// Multi-line messages become one line each, every line with the full lead-in and lead-out (text formats).
    public var singleLined: Bool
    /// Text lines show the level as a coloured mark (``LogConfiguration/colored``).
    public var colored: Bool

    /// A formatter writing `format`, single-lined or not, with coloured level marks when `colored`.
    public init(format: LogConfiguration.Format, singleLined: Bool, colored: Bool = false) {
        self.format = format
        self.singleLined = singleLined
        self.colored = colored
    }

    /// The coloured mark of each level, as the seeds' `log.colored` shows them.
    static func mark(_ level: Logger.Level) -> String {
        switch level {
        case .trace: return "\u{26AA}"  // white circle
        case .debug: return "\u{1F535}"  // blue circle
        case .info: return "\u{1F7E2}"  // green circle
        case .notice: return "\u{1F7E1}"  // yellow circle
        case .warning: return "\u{1F7E0}"  // orange circle
        case .error: return "\u{1F534}"  // red circle
        case .critical: return "\u{2757}"  // exclamation mark
        }
    }

    /// The event as newline-terminated lines in ``format``, stamped with `time` (ISO 8601 UTC, milliseconds).
    public func lines(label: String, event: LogEvent, time: Date = Date()) -> String {
        let timestamp = Self.timestamp(time)
        let message = event.message.description
        switch format {
        case .text:
            return composed(timestamp: timestamp, label: label, event: event, message: message)
        case .json:
            var object = "{\"level\":\"\(event.level.rawValue)\",\"time\":\"\(timestamp)\",\"label\":"
            Self.appendJSONString(label, to: &object)
            object += ",\"message\":"
            Self.appendJSONString(message, to: &object)
            object += ",\"metadata\":"
            Self.appendJSONMetadata(event.metadata ?? [:], to: &object)
            if let error = event.error {
                object += ",\"error\":"
                Self.appendJSONString(String(describing: error), to: &object)
            }
            object += ",\"source\":"
            Self.appendJSONString(event.source, to: &object)
            return object + "}\n"
        case .jsonComposed:
            let text = composed(timestamp: timestamp, label: label, event: event, message: message)
            return text.split(separator: "\n").map { line in
                var object = "{\"level\":\"\(event.level.rawValue)\",\"time\":\"\(timestamp)\",\"message\":"
                Self.appendJSONString(String(line), to: &object)
                return object + "}\n"
            }.joined()
        }
    }

    /// `TIME LEVEL LABEL: message key=value [error] (source)`, one line per message line when single-lined.
    func composed(timestamp: String, label: String, event: LogEvent, message: String) -> String {
        // A text log is read on a terminal: what came from a server or a certificate is escaped.
        let message = SafeText.escaped(message, keepingLines: true)
        var leadIn = timestamp
        leadIn += " "
        leadIn += colored ? Self.mark(event.level) : event.level.rawValue
        leadIn += " "
        leadIn += label
        leadIn += ": "
        var leadOut = ""
        if let metadata = event.metadata, !metadata.isEmpty {
            let keys = metadata.count == 1 ? Array(metadata.keys) : metadata.keys.sorted()
            for key in keys {
                leadOut += " "
                leadOut += key
                leadOut += "="
                leadOut += SafeText.escaped(metadata[key]!.description)
            }
        }
        if let error = event.error {
            leadOut += " error="
            leadOut += SafeText.escaped(String(describing: error))
        }
        leadOut += " ("
        leadOut += event.source
        leadOut += ")\n"
        guard message.utf8.contains(0x0A) else { return leadIn + message + leadOut }
        if singleLined {
            return message.split(separator: "\n", omittingEmptySubsequences: false).map { leadIn + $0 + leadOut }.joined()
        }
        return leadIn + message + leadOut
    }

    // MARK: - Time

    /// The second last formatted and its date part.
    private static let clock = Mutex((second: 0, prefix: ""))

    /// ISO 8601 UTC with milliseconds; the date part is formatted once a second.
    static func timestamp(_ time: Date) -> String {
        let interval = time.timeIntervalSince1970
        let seconds = Int(interval.rounded(.down))
        let millis = Int((interval - Double(seconds)) * 1000)
        let prefix = clock.withLock { clock in
            if seconds != clock.second || clock.prefix.isEmpty {
                var raw = time_t(seconds)
                var parts = tm()
                gmtime_r(&raw, &parts)
                var buffer = [CChar](repeating: 0, count: 32)
                strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S", &parts)
                clock.prefix = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                clock.second = seconds
            }
            return clock.prefix
        }
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(prefix).\(ms)Z"
    }

    // MARK: - JSON

    static func appendJSONString(_ text: String, to output: inout String) {
        output.append("\"")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output.append("\\\"")
            case "\\": output.append("\\\\")
            case "\n": output.append("\\n")
            case "\r": output.append("\\r")
            case "\t": output.append("\\t")
            case let c where c.value < 0x20:
                output.append("\\u" + c.value.hex(digits: 4))
            default: output.unicodeScalars.append(scalar)
            }
        }
        output.append("\"")
    }

    static func appendJSONMetadata(_ metadata: Logger.Metadata, to output: inout String) {
        output.append("{")
        var first = true
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            if !first { output.append(",") }
            first = false
            appendJSONString(key, to: &output)
            output.append(":")
            appendJSONValue(value, to: &output)
        }
        output.append("}")
    }

    static func appendJSONValue(_ value: Logger.MetadataValue, to output: inout String) {
        switch value {
        case .dictionary(let members): appendJSONMetadata(members, to: &output)
        case .array(let items):
            output.append("[")
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(",") }
                appendJSONValue(item, to: &output)
            }
            output.append("]")
        case .string, .stringConvertible: appendJSONString(value.description, to: &output)
        }
    }
}

/// The innermost handler: formats events and hands the lines to the sinks. Put it inside a
/// ``PrivacyMaskingLogHandler``; on its own it masks nothing.
public struct LogWriterHandler: LogHandler {
    /// The logger's label, written in every line.
    public var label: String
    /// Turns events into lines.
    public var formatter: LogLineFormatter
    /// Where the lines go: each sink gets the levels it wants, and outcomes only if it writes them.
    public var sinks: [any LogSink]
    /// Handler metadata; only its `tags` are read here, to recognise an outcome when the event has no tags.
    public var metadata: Logger.Metadata = [:]
    /// Trace by default: filtering is left to the wrapping handler and the sinks' levels.
    public var logLevel: Logger.Level = .trace

    /// A writer for `label` that formats with `formatter` and writes to `sinks`.
    public init(label: String, formatter: LogLineFormatter, sinks: [any LogSink]) {
        self.label = label
        self.formatter = formatter
        self.sinks = sinks
    }

    /// One value of the handler metadata.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Formats the event once and writes it to every sink that wants its level (outcomes only to sinks that write them).
    public func log(event: LogEvent) {
        let tags = (event.metadata?["tags"]).map { "\($0)" } ?? metadata["tags"].map { "\($0)" } ?? ""
        let isOutcome = tags.split(separator: ",").contains { $0.trimmingSpaces() == StandardErrorSink.outcomeTag }
        let wanted = sinks.filter { event.level >= $0.minimumLevel && (!isOutcome || $0.writesOutcomes) }
        guard !wanted.isEmpty else { return }
        let text = formatter.lines(label: label, event: event)
        for sink in wanted { sink.write(text) }
    }
}

extension LogConfiguration {
    /// A masking handler over a writer, as the executable installs it.
    public func handler(label: String, sinks: [any LogSink], hasher: LogHasher = .shared) -> PrivacyMaskingLogHandler<LogWriterHandler> {
        let writer = LogWriterHandler(label: label, formatter: LogLineFormatter(format: format, singleLined: singleLined, colored: colored), sinks: sinks)
        return PrivacyMaskingLogHandler(label: label, inner: writer, configuration: self, hasher: hasher)
    }
}

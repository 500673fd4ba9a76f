public import Logging

/// How Vigil logs: the `log.*` settings as a value (the executable maps settings to it).
public struct LogConfiguration: Sendable {
    /// The shape of a written log line.
    public enum Format: String, Sendable, CaseIterable {
        /// `TIME LEVEL LABEL: message key=value (source)`.
        case text
        /// One JSON object a line: level, time, label, message, metadata, source.
        case json
        /// One JSON object a line: level, time, and the composed text line as `message`.
        case jsonComposed = "json-composed"
    }

    /// The lowest level logged.
    public var level: Logger.Level = .info
    /// The line format.
    public var format: Format = .text
    /// Mask private values (on by default).
    public var privacyMask = true
    /// Only messages with one of these tags (metadata `tags`, or the logger label).
    public var onlyTags: [String]?
    /// Not messages with any of these tags.
    public var omitTags: [String]?
    /// Only messages whose (masked) text contains one of these terms.
    public var onlyMatching: [String]?
    /// Not messages whose (masked) text contains any of these terms.
    public var omitMatching: [String]?
    /// Messages longer than this many bytes are cut, with `[truncated: a -> b bytes]`; 0: no limit.
    public var maximumMessageSize = 0
    /// Multi-line messages become one line each, every line with the full lead-in and lead-out.
    public var singleLined = true
    /// Log HTTP requests and responses (through ``HTTPLogRedactor``).
    public var logHTTPRequests = false
    /// A message the filters leave out is still written, its text replaced with `-` and its
    /// metadata dropped (the seeds' `log.blank-filtered-messages`): the log shows that something
    /// happened, and when.
    public var blankFilteredMessages = false
    /// Text lines show the level as a coloured mark instead of its name (the seeds' `log.colored`).
    public var colored = false
    /// Each line written to the log file reaches the disk before the call returns (`fdatasync`;
    /// the seeds' `log.synchronous`); otherwise it is written at once but left to the kernel.
    public var synchronous = false

    /// The defaults: level info, text lines, masking on, no filters, no size limit.
    public init() {}
}

import FoundationEssentials
import Glibc
public import Logging
import VigilText

/// A swift-log handler that wraps another: it filters (tags, matching), masks private values in
/// the message, the metadata and the error, cuts long messages, scrubs credentials, and passes
/// the rewritten ``LogEvent`` on. Nothing private reaches the inner handler while masking is on.
public struct PrivacyMaskingLogHandler<Inner: LogHandler>: LogHandler {
    /// The handler the rewritten events go to; its own level is trace.
    public var inner: Inner
    /// The level, filters, masking and size limit applied here.
    public var configuration: LogConfiguration
    /// Hashes the values masked as `«private:hash»`.
    public var hasher: LogHasher
    /// The logger's label; also one of the tags the tag filters see.
    public var label: String
    /// Handler metadata; the provider's and the event's own values override it.
    public var metadata: Logger.Metadata = [:]
    /// Metadata merged into every event; nil: none.
    public var metadataProvider: Logger.MetadataProvider?

    /// The configuration's level; setting it sets ``configuration``'s.
    public var logLevel: Logger.Level {
        get { configuration.level }
        set { configuration.level = newValue }
    }

    /// Wraps `inner`, setting its level to trace: filtering happens here.
    public init(label: String, inner: Inner, configuration: LogConfiguration, hasher: LogHasher = .shared, metadataProvider: Logger.MetadataProvider? = nil) {
        var inner = inner
        inner.logLevel = .trace  // filtering happens here
        self.inner = inner
        self.configuration = configuration
        self.hasher = hasher
        self.label = label
        self.metadataProvider = metadataProvider
    }

    /// One value of the handler metadata.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Filters, masks, cuts and scrubs the event, then passes it to ``inner`` (a filtered-out one only blanked, if at all).
    public func log(event: LogEvent) {
        guard event.level >= configuration.level else { return }
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }

        if configuration.onlyTags?.isEmpty == false || configuration.omitTags?.isEmpty == false {
            let tags = Self.tags(in: merged, label: label)
            if let only = configuration.onlyTags, !only.isEmpty, tags.isDisjoint(with: only) { return filteredOut(event) }
            if let omit = configuration.omitTags, !omit.isEmpty, !tags.isDisjoint(with: omit) { return filteredOut(event) }
        }

        var text = SecretScrubber.scrub(LogMasker.mask(event.message.description, enabled: configuration.privacyMask, hasher: hasher))
        // Matching looks at the masked text, so filters cannot reveal private values.
        if let only = configuration.onlyMatching, !only.isEmpty, !only.contains(where: { text.contains($0) }) { return filteredOut(event) }
        if let omit = configuration.omitMatching, !omit.isEmpty, omit.contains(where: { text.contains($0) }) { return filteredOut(event) }
        text = Self.truncate(text, to: configuration.maximumMessageSize)

        var rewritten = event
        rewritten.message = Logger.Message(stringLiteral: text)
        var masked = merged.mapValues { mask($0) }
        // Tags are labels chosen by the code, used for filtering: always public.
        if let tags = merged["tags"] { masked["tags"] = .string(SecretScrubber.scrub(tags.description)) }
        rewritten.metadata = masked.isEmpty ? nil : masked
        if let error = event.error {
            rewritten.error = configuration.privacyMask ? MaskedError(error) : ScrubbedError(error)
        }
        inner.log(event: rewritten)
    }

    /// A message the filters left out: nothing, or with `blankFilteredMessages` a line whose
    /// text is `-`, without metadata or error.
    func filteredOut(_ event: LogEvent) {
        guard configuration.blankFilteredMessages else { return }
        var blank = event
        blank.message = "-"
        blank.metadata = nil
        blank.error = nil
        inner.log(event: blank)
    }

    func mask(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
        switch value {
        case .dictionary(let members): return .dictionary(members.mapValues { mask($0) })
        case .array(let items): return .array(items.map { mask($0) })
        case .string where configuration.privacyMask:
            return .string(LogMasker.privateText)  // a plain string carries no attribute: private
        case .string, .stringConvertible:
            let text = value.description
            guard configuration.privacyMask else { return .string(SecretScrubber.scrub(text)) }
            switch value.attributes[LogPrivacy.self] {
            case .public?: return .string(SecretScrubber.scrub(text))
            case .privateHashed?: return .string("«private:\(hasher.hash(text))»")
            case .private?, nil: return .string(LogMasker.privateText)
            }
        }
    }

    /// Tags: the metadata `tags` (a list or comma-separated text) and the logger label.
    static func tags(in metadata: Logger.Metadata, label: String) -> Set<String> {
        var tags: Set<String> = [label]
        switch metadata["tags"] {
        case .array(let items)?: tags.formUnion(items.map(\.description))
        case let value?: tags.formUnion(value.description.split(separator: ",").map { $0.trimmingSpaces() })
        case nil: break
        }
        return tags
    }

    /// Cuts `text` to `limit` bytes (on a character boundary) and says so.
    static func truncate(_ text: String, to limit: Int) -> String {
        guard let kept = Truncation.prefix(of: text, bytes: limit) else { return text }
        return kept + " [truncated: \(text.utf8.count) -> \(kept.utf8.count) bytes]"
    }
}

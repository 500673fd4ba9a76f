public import FoundationEssentials

/// End-of-life dates and security advisories of cloud server versions, as dated data:
/// `server-data/advisories.json` (its date, sources and coverage inside; the format in docs/cli.md),
/// or a newer file given with `--advisories`. What it does not cover is said, never assumed safe.
public struct AdvisorySnapshot: Sendable, Codable {
    /// The file's format (1).
    public var format: Int
    /// When it was compiled (`YYYY-MM-DD`).
    public var compiled: String
    /// After how many days the check says it is out of date.
    public var staleAfterDays: Int
    /// Where its facts come from.
    public var sources: [String]
    /// What it covers and what it does not.
    public var coverage: String
    /// The versions whose support ended.
    public var endOfLife: [EndOfLife]
    /// The advisories.
    public var advisories: [Advisory]

    /// A series (`28`: every 28.x) or every version before one, and when its support ended.
    public struct EndOfLife: Sendable, Codable {
        /// `Nextcloud`, `ownCloud`, `OpenCloud`.
        public var product: String
        /// The series: versions that start with it.
        public var series: String?
        /// Or: every version before this one.
        public var before: String?
        /// The last period of support: `YYYY`, `YYYY-MM` or `YYYY-MM-DD`; ended once it is over.
        public var endOfLife: String
    }

    /// One advisory and the versions it affects.
    public struct Advisory: Sendable, Codable {
        /// `CVE-2023-49105`, `GHSA-...`.
        public var id: String
        /// The product it is about.
        public var product: String
        /// `high`, `medium` or `low`.
        public var severity: String
        /// What it allows.
        public var title: String
        /// The versions affected: from (inclusive, none: every one) before (exclusive).
        public var affected: [Range]
        /// Where it is published.
        public var url: String?
    }

    /// Versions from `from` (inclusive; nil: from the first) to `before` (exclusive).
    public struct Range: Sendable, Codable {
        /// The first version affected.
        public var from: String?
        /// The first version fixed.
        public var before: String
    }

    static let severities = ["high", "medium", "low"]

    /// The snapshot at `path`; throws ``ServerCheckError`` (`bad-data`) when it is missing, damaged,
    /// of another format, or holds a date, severity or range that cannot be read.
    public static func load(from path: String) throws -> AdvisorySnapshot {
        let snapshot = try ServerDataFile.decode(AdvisorySnapshot.self, from: path)
        guard snapshot.format == 1 else { throw ServerCheckError(.badData, "\(path) is in format \(snapshot.format); this Vigil reads format 1.") }
        guard isDate(snapshot.compiled, parts: 3) else {
            throw ServerCheckError(.badData, "\(path): compiled must be a date, YYYY-MM-DD.")
        }
        for (index, entry) in snapshot.endOfLife.enumerated() {
            guard (1...3).contains(where: { isDate(entry.endOfLife, parts: $0) }), (entry.series == nil) != (entry.before == nil) else {
                throw ServerCheckError(.badData, "\(path): endOfLife[\(index)] needs either series or before, and a date YYYY, YYYY-MM or YYYY-MM-DD.")
            }
        }
        for (index, entry) in snapshot.endOfLife.enumerated() where (entry.series ?? entry.before).flatMap(components) == nil {
            throw ServerCheckError(.badData, "\(path): endOfLife[\(index)]'s version is not a version (digits and dots).")
        }
        for (index, advisory) in snapshot.advisories.enumerated() {
            let ranges = advisory.affected.allSatisfy { components($0.before) != nil && ($0.from.map { components($0) != nil } ?? true) }
            guard severities.contains(advisory.severity), !advisory.affected.isEmpty, ranges else {
                throw ServerCheckError(
                    .badData, "\(path): advisories[\(index)] needs a severity (high, medium or low) and affected versions (digits and dots).")
            }
        }
        return snapshot
    }

    /// What the snapshot says of `product` `version` on `now`: end of life (error), each severity
    /// of advisory (high an error, medium and low warnings), the snapshot out of date (a notice),
    /// or the product not covered (a notice).
    public func findings(product: String?, version: String?, now: Date) -> [ServerFinding] {
        var findings: [ServerFinding] = []
        let today = now.formatted(.iso8601.year().month().day().dateSeparator(.dash))
        if let compiledDate = try? Date(compiled + "T00:00:00Z", strategy: .iso8601), now.timeIntervalSince(compiledDate) > Double(staleAfterDays) * 86_400 {
            findings.append(
                ServerFinding(
                    "advisories-out-of-date", .notice,
                    "The advisories snapshot is of \(compiled), over \(staleAfterDays) days ago: later ends of life and advisories are not known; --advisories FILE takes a newer one."
                ))
        }
        guard let product, let version, let parsed = Self.components(version) else { return findings }
        let named = { (other: String) in other.lowercased() == product.lowercased() }
        // What the snapshot can say of this version: an end-of-life entry that covers its series
        // (over or not), and advisories of its product. What it cannot say is said, never taken as safe.
        let lifecycle = endOfLife.filter { named($0.product) && Self.covers($0, parsed) }
        let hasAdvisories = advisories.contains { named($0.product) }
        if lifecycle.isEmpty || !hasAdvisories {
            let missing = [lifecycle.isEmpty ? "no end-of-life date" : nil, hasAdvisories ? nil : "no advisories"].compactMap { $0 }
            findings.append(
                ServerFinding(
                    "advisories-not-covered", .notice,
                    "The advisories snapshot of \(compiled) has \(missing.joined(separator: " and ")) for \(product) \(version): not judged there, never taken as safe."
                ))
        }
        let ended = lifecycle.first { Self.isOver($0.endOfLife, today: today) }
        if let ended {
            findings.append(
                ServerFinding(
                    "end-of-life", .error,
                    "\(product) \(version) reached its end of life in \(ended.endOfLife): no security fixes since. Upgrade to a supported version."))
        }
        for severity in Self.severities {
            let matching = advisories.filter { advisory in
                named(advisory.product) && advisory.severity == severity
                    && advisory.affected.contains { range in
                        guard let before = Self.components(range.before), Self.less(parsed, before) else { return false }
                        return range.from.flatMap(Self.components).map { !Self.less(parsed, $0) } ?? true
                    }
            }
            guard !matching.isEmpty else { continue }
            findings.append(
                ServerFinding(
                    "advisory-\(severity)", severity == "high" ? .error : .warning,
                    "\(product) \(version) is affected by \(severity)-severity advisories: "
                        + matching.map { "\($0.id) (\($0.title)\($0.url.map { ", \($0)" } ?? ""))" }.joined(separator: "; ") + ". Upgrade."))
        }
        return findings
    }

    /// Whether `entry` is about `version` (its series, or every version before its `before`).
    static func covers(_ entry: EndOfLife, _ version: [Int]) -> Bool {
        if let series = entry.series.flatMap(components) { return Array(version.prefix(series.count)) == series }
        return entry.before.flatMap(components).map { less(version, $0) } ?? false
    }

    /// `10.13.0` as [10, 13, 0]; a part's leading digits (`0rc1` is 0); nil when the first part has none.
    static func components(_ version: String) -> [Int]? {
        let parts = version.split(separator: ".", omittingEmptySubsequences: false).map { Int($0.prefix { $0.isASCII && $0.isNumber }) }
        guard let first = parts.first, first != nil else { return nil }
        return parts.prefix { $0 != nil }.map { $0! }
    }

    /// Version order, missing parts as zeros (`10.13` == `10.13.0`).
    static func less(_ lhs: [Int], _ rhs: [Int]) -> Bool {
        for index in 0..<max(lhs.count, rhs.count) {
            let (left, right) = (index < lhs.count ? lhs[index] : 0, index < rhs.count ? rhs[index] : 0)
            if left != right { return left < right }
        }
        return false
    }

    /// `YYYY` (1 part), `YYYY-MM` (2) or `YYYY-MM-DD` (3), in digits.
    static func isDate(_ text: String, parts: Int) -> Bool {
        let split = text.split(separator: "-", omittingEmptySubsequences: false)
        return split.count == parts && zip(split, [4, 2, 2]).allSatisfy { part, width in part.count == width && part.allSatisfy { $0.isASCII && $0.isNumber } }
    }

    /// Whether the period `end` (`2025`, `2025-09`, `2025-09-30`) is over on `today` (`YYYY-MM-DD`).
    static func isOver(_ end: String, today: String) -> Bool { String(today.prefix(end.count)) > end }
}

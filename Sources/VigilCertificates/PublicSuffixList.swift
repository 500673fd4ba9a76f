import FoundationEssentials
import Glibc

/// The Public Suffix List (ICANN and private sections), from Debian's `publicsuffix` package.
/// Used to refuse wildcard names such as `*.co.uk` or `*.s3.amazonaws.com`.
struct PublicSuffixList: Sendable {
    static let defaultPath = "/usr/share/publicsuffix/public_suffix_list.dat"
    static let shared = PublicSuffixList(path: ProcessInfo.processInfo.environment["VIGIL_PUBLIC_SUFFIX_LIST"] ?? defaultPath)

    let rules: Set<String>
    let wildcards: Set<String>
    let exceptions: Set<String>
    /// False when the list could not be read; then only single-label suffixes are known.
    let loaded: Bool

    init(path: String) {
        var rules = Set<String>(), wildcards = Set<String>(), exceptions = Set<String>()
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        for line in text.split(whereSeparator: \.isNewline) {
            let rule = line.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
            if rule.isEmpty || rule.hasPrefix("//") { continue }
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()).lowercased())
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)).lowercased())
            } else {
                rules.insert(rule.lowercased())
            }
        }
        self.rules = rules
        self.wildcards = wildcards
        self.exceptions = exceptions
        self.loaded = !rules.isEmpty
    }

    /// True when `domain` itself is a public suffix (so `*.domain` would span registrants).
    func isPublicSuffix(_ domain: String) -> Bool {
        let domain = domain.lowercased()
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count == 1 { return true }  // every TLD
        if exceptions.contains(domain) { return false }
        if rules.contains(domain) { return true }
        return wildcards.contains(labels.dropFirst().joined(separator: "."))
    }
}

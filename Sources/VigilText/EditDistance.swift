/// How far apart two words are, for "did you mean" hints (a mistyped option, a mistyped setting
/// key in a lock): optimal string alignment distance, where a swap of two letters counts one.
public enum EditDistance {
    /// Optimal string alignment distance (Damerau-Levenshtein without repeated edits).
    public static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }

    /// The candidate nearest to `word`, if it is at most `limit` edits away and no other is as
    /// near; candidates are compared in name order, so the answer never depends on a set's order.
    public static func closest(to word: String, in candidates: some Sequence<String>, limit: Int = 2) -> String? {
        let scored = Set(candidates).sorted().map { ($0, between(word, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit else { return nil }
        return scored.filter { $0.1 == best.1 }.count == 1 ? best.0 : nil
    }
}

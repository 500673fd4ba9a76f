import ArgumentParser
import FoundationEssentials
import VigilCommandLine
import VigilStore

extension Completions {
    /// The accounts' ids and labels, from `--database FILE` on the line or the default database,
    /// only looked at (never created, migrated or waited for: ``VigilStore/VigilDatabase/lookingOnly(at:)``).
    static let accounts = CompletionKind.custom { words, _, _ in
        let path = value(of: "--database", in: words) ?? VigilDatabase.defaultPath()
        guard let database = VigilDatabase.lookingOnly(at: path), let accounts = try? Accounts(database: database).list() else { return [] }
        // Labels are the user's text: only those a shell takes as one plain word are offered.
        let plain = { (label: String) in
            !label.isEmpty
                && label.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-+:".unicodeScalars.contains($0))
                }
        }
        return accounts.flatMap { [$0.id] + ($0.label.map { plain($0) ? [$0] : [] } ?? []) }
    }

    /// The account argument's help: one placeholder, `<account>`, wherever a command takes one.
    static let accountHelp = ArgumentHelp(
        "The account: its id, a unique id prefix, its label or user@host (see vigil account list).", valueName: "account")
}

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
        return accounts.flatMap { [$0.id] + ($0.label.map { isPlainWord($0) ? [$0] : [] } ?? []) }
    }

    /// The account argument's help: one placeholder, `<account>`, wherever a command takes one.
    static let accountHelp = ArgumentHelp(
        "The account: its id, a unique id prefix, its label or user@host (see vigil account list).", valueName: "account")
}

import ArgumentParser
import FoundationEssentials
import VigilCommandLine
import VigilStore

extension Completions {
    /// The accounts' ids and labels, from `--database FILE` on the line or the default database;
    /// nothing when there is none yet (a completion never creates one).
    static let accounts = CompletionKind.custom { words, _, _ in
        let path = value(of: "--database", in: words) ?? VigilDatabase.defaultPath()
        guard FileManager.default.fileExists(atPath: path), let database = try? VigilDatabase(path: path),
            let accounts = try? Accounts(database: database).list()
        else { return [] }
        return accounts.flatMap { [$0.id] + ($0.label.map { [$0] } ?? []) }
    }

    /// The account argument's help: one placeholder, `<account>`, wherever a command takes one.
    static let accountHelp = ArgumentHelp(
        "The account: its id, a unique id prefix, its label or user@host (see vigil account list).", valueName: "account")
}

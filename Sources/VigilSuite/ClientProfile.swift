import Foundation

/// How to run an external sync client against a scenario, as data (a JSON file: the built-in
/// ones are in the fixtures' `clients/` directory; users pass their own with `--client-profile`).
///
/// The command is run without a shell, each argument a template: `{url}` (where setup starts),
/// `{host}`, `{port}`, `{user}`, `{password}`, `{ca_file}` (the CAs the scenario's client trusts,
/// one PEM file), `{dir}` (a fresh empty directory), `{tmp}` (the scenario's scratch directory,
/// also HOME) and the names `prepare` defines. The client's exit code and output say what the
/// client *claims*; the verdict comes from the simulator's journal.
package struct ClientProfile: Sendable, Codable, Hashable {
    /// A short name for the report (`curl`, `owncloudcmd`).
    package var name: String
    /// A one-line description of the client and how it is run, for the report.
    package var summary: String?
    /// The program and its arguments (templates).
    package var command: [String]
    /// Variables added to the client's environment (values are templates), for example
    /// `SSL_CERT_FILE={ca_file}` or `QT_QPA_PLATFORM=offscreen`.
    package var environment: [String: String]?
    /// Seconds before the client is killed (default 60).
    package var timeout: Double?
    /// Whether the client can ask its user; a non-interactive client meets `ask-*` outcomes by
    /// sending nothing (only `false` is supported: the suite has no way to answer a client's prompt).
    package var interactive: Bool?
    /// Exit codes that mean the client says it succeeded (default `[0]`).
    package var successExitCodes: [Int32]?
    /// Output lines (regular expressions) that mean the client failed, even with a success code.
    package var failurePatterns: [String]?
    /// Values computed before the client runs: NAME -> a command whose trimmed standard output is
    /// `{NAME}` (rclone wants its password obscured by `rclone obscure`).
    package var prepare: [String: [String]]?
    /// For a scenario whose premise is an account set up before (`client.account`): the command
    /// run first, against the server as it was at setup (default: `command`).
    package var setup: [String]?
    /// Then, with the same HOME, configuration and sync folder, against the scenario's server:
    /// the command that is judged (default: `command`). owncloudcmd and nextcloudcmd run twice
    /// on the same folder; a client that keeps an account in its configuration is asked to sync it.
    package var later: [String]?
    /// The command that prints the client's version (for the report).
    package var version: [String]?
    /// The Debian package that provides the client (for scripts/client-report.sh).
    package var debianPackage: String?

    /// A profile with only a name and a command; every other field nil.
    package init(name: String, command: [String]) {
        self.name = name
        self.command = command
    }

    /// The placeholders every profile may use.
    package static let placeholders = ["url", "host", "port", "user", "password", "ca_file", "dir", "tmp", "proxy"]

    /// Loads and checks a profile file.
    package static func load(path: String) throws -> ClientProfile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SuiteError(.invalidFixture, "cannot read the client profile \(path).")
        }
        let profile: ClientProfile
        do {
            profile = try JSONDecoder().decode(ClientProfile.self, from: data)
        } catch let error as DecodingError {
            throw SuiteError(.invalidFixture, "\(path): not a client profile (\(SuiteText.oneLine(Self.describe(error)))).")
        }
        try profile.validate(source: path)
        return profile
    }

    /// A profile for a command given on the command line (split on spaces, no shell, no quoting).
    package static func adHoc(_ command: String) throws -> ClientProfile {
        let words = command.split(separator: " ").map(String.init)
        var profile = ClientProfile(name: words.first.map { ($0 as NSString).lastPathComponent } ?? "client", command: words)
        profile.summary = "given on the command line"
        try profile.validate(source: "--client")
        return profile
    }

    /// The built-in profile NAME in `directory`, if there is one.
    package static func builtIn(_ name: String, in directory: String) -> String? {
        guard name.range(of: "^[a-z0-9][a-z0-9-]*$", options: .regularExpression) != nil else { return nil }
        let path = (directory as NSString).appendingPathComponent("\(name).json")
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// The names of the built-in profiles in `directory`.
    package static func builtInNames(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    func validate(source: String) throws {
        guard let program = command.first, !program.isEmpty else { throw SuiteError(.invalidFixture, "\(source): the command is empty.") }
        for (field, value) in [("setup", setup), ("later", later)] where value != nil && (value?.first ?? "").isEmpty {
            throw SuiteError(.invalidFixture, "\(source): the \(field) command is empty.")
        }
        if interactive == true {
            throw SuiteError(
                .invalidFixture, "\(source): interactive clients are not supported (the suite cannot answer a client's prompt); run it non-interactively.")
        }
        if let timeout, !(timeout > 0 && timeout <= 3600) { throw SuiteError(.invalidFixture, "\(source): timeout must be between 0 and 3600 seconds.") }
        let known = Set(Self.placeholders + (prepare?.keys.map { $0 } ?? []))
        for name in prepare?.keys.sorted() ?? []
        where Self.placeholders.contains(name) || name.range(of: "^[a-z_][a-z0-9_]*$", options: .regularExpression) == nil {
            throw SuiteError(.invalidFixture, "\(source): prepare.\(name) is not a new lower-case name.")
        }
        let templates = command + (setup ?? []) + (later ?? []) + (environment?.values.map { $0 } ?? []) + (prepare?.values.flatMap { $0 } ?? [])
        for template in templates {
            for name in Self.names(in: template) where !known.contains(name) {
                throw SuiteError(
                    .invalidFixture, "\(source): {\(name)} is not a placeholder (known: \(known.sorted().map { "{\($0)}" }.joined(separator: ", "))).")
            }
        }
        for pattern in failurePatterns ?? [] where (try? NSRegularExpression(pattern: pattern)) == nil {
            throw SuiteError(.invalidFixture, "\(source): failure pattern \(pattern) is not a regular expression.")
        }
    }

    /// The `{name}` placeholders in `template`.
    static func names(in template: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: #"\{([A-Za-z0-9_]+)\}"#) else { return [] }
        return regex.matches(in: template, range: NSRange(template.startIndex..., in: template)).compactMap {
            Range($0.range(at: 1), in: template).map { String(template[$0]) }
        }
    }

    /// `template` with every placeholder replaced.
    static func expand(_ template: String, _ values: [String: String]) -> String {
        values.reduce(template) { $0.replacingOccurrences(of: "{\($1.key)}", with: $1.value) }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): return "missing \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return (context.codingPath.map(\.stringValue).joined(separator: ".") + " " + context.debugDescription).trimmingCharacters(in: .whitespaces)
        @unknown default: return "\(error)"
        }
    }
}

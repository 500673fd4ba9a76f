import Foundation

/// One request as the journal records it: never a header value or a body, only whether they were there.
public struct JournalEntry: Sendable, Hashable, Codable {
    public var time: String
    public var host: String
    public var method: String
    public var path: String
    public var status: Int
    public var authorization: Bool
    public var cookie: Bool
    public var body: Bool
    /// Present (true) on what a man in the middle saw before forwarding to the genuine server.
    public var mitm: Bool?
}

/// The simulator's journal: JSON lines, one request each, in memory and optionally in a file.
public final class Journal: @unchecked Sendable {  // all state behind `lock`
    private let lock = NSLock()
    private var stored: [JournalEntry] = []
    private let handle: FileHandle?

    /// With `path`, entries are also appended to that file.
    public init(path: String? = nil) throws {
        if let path {
            if !FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                    throw SimulatorError(.startFailed, "Cannot create the journal \(path).")
                }
            }
            guard let handle = FileHandle(forWritingAtPath: path) else { throw SimulatorError(.startFailed, "Cannot open the journal \(path).") }
            handle.seekToEndOfFile()
            self.handle = handle
        } else {
            handle = nil
        }
    }

    public func record(_ entry: JournalEntry) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let line = (try? encoder.encode(entry)).map { $0 + Data("\n".utf8) }
        lock.lock()
        defer { lock.unlock() }
        stored.append(entry)
        if let line { handle?.write(line) }
    }

    public var entries: [JournalEntry] { lock.lock(); defer { lock.unlock() }; return stored }
}

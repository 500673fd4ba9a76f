import Foundation
import Synchronization

/// Every user's files on one simulated server, in memory for the run: what WebDAV lists,
/// downloads, uploads (PUT, ownCloud's chunked upload), creates (MKCOL), moves, copies and
/// deletes. Each change gives the item and every folder above it a new ETag, as ownCloud does,
/// so that a sync client sees what changed.
final class SimulatedFiles: Sendable {
    struct Item: Sendable {
        var isFolder: Bool
        var contents: [UInt8] = []
        var etag: Int
        var fileID: Int
        var modified: Date
    }

    private struct State {
        /// Keyed by `user/relative/path` (no leading or trailing slash; the user's root is `user`).
        var items: [String: Item] = [:]
        var seeded: Set<String> = []
        var version = 0
        var nextID = 1
    }
    private let state = Mutex(State())

    /// The largest file kept (an upload over it is refused with 507).
    static let fileLimit = 16 * 1024 * 1024
    static let seededModified = Date(timeIntervalSince1970: 1_793_613_600)  // 2026-11-02 10:00 UTC

    /// `user/a/b` from the user and the path segments under their root (percent-decoded,
    /// without `.` and `..`).
    static func key(user: String, _ relative: String) -> String? {
        var parts = [user]
        for segment in relative.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = String(segment).removingPercentEncoding, !decoded.isEmpty, decoded != ".", decoded != "..", !decoded.contains("/")
            else { return nil }
            parts.append(decoded)
        }
        return parts.joined(separator: "/")
    }

    /// The root of a user's chunked uploads: `uploads:alice`.
    static let uploadsPrefix = "uploads:"

    static func parent(of key: String) -> String? {
        key.lastIndex(of: "/").map { String(key[..<$0]) }
    }

    private func seed(_ user: String, _ state: inout State) {
        guard !state.seeded.contains(user) else { return }
        state.seeded.insert(user)
        func add(_ key: String, folder: Bool, _ contents: String = "") {
            state.items[key] = Item(isFolder: folder, contents: Array(contents.utf8), etag: 0, fileID: state.nextID, modified: Self.seededModified)
            state.nextID += 1
        }
        add(user, folder: true)
        guard !user.hasPrefix(Self.uploadsPrefix) else { return }
        for entry in CloudResponder.fileTree {
            add(user + "/" + entry.name.trimmingCharacters(in: CharacterSet(charactersIn: "/")), folder: entry.isFolder, entry.contents)
        }
    }

    /// The item at `key`, if any.
    func item(_ key: String) -> Item? {
        state.withLock { state in
            seed(String(key.prefix { $0 != "/" }), &state)
            return state.items[key]
        }
    }

    /// The item and, for a folder, its children (name and item), sorted by name.
    func listing(_ key: String) -> (item: Item, children: [(name: String, item: Item)])? {
        state.withLock { state in
            seed(String(key.prefix { $0 != "/" }), &state)
            guard let item = state.items[key] else { return nil }
            guard item.isFolder else { return (item, []) }
            let prefix = key + "/"
            let children = state.items.compactMap { other, child -> (String, Item)? in
                guard other.hasPrefix(prefix), !other.dropFirst(prefix.count).contains("/") else { return nil }
                return (String(other.dropFirst(prefix.count)), child)
            }.sorted { $0.0 < $1.0 }
            return (item, children)
        }
    }

    enum Change: Sendable, Equatable {
        case created, replaced
        case noParent, isFolder, exists, missing, tooLarge
    }

    /// Writes a file; `modified` from the client's `X-OC-Mtime` when it sent one.
    func put(_ key: String, contents: [UInt8], modified: Date?) -> (Change, Item?) {
        guard contents.count <= Self.fileLimit else { return (.tooLarge, nil) }
        return state.withLock { state in
            seed(String(key.prefix { $0 != "/" }), &state)
            guard let parent = Self.parent(of: key), state.items[parent]?.isFolder == true else { return (.noParent, nil) }
            if state.items[key]?.isFolder == true { return (.isFolder, nil) }
            let existed = state.items[key] != nil
            let id =
                state.items[key]?.fileID
                ?? {
                    defer { state.nextID += 1 }
                    return state.nextID
                }()
            state.items[key] = Item(isFolder: false, contents: contents, etag: 0, fileID: id, modified: modified ?? Date())
            touch(key, &state)
            return (existed ? .replaced : .created, state.items[key])
        }
    }

    func makeFolder(_ key: String) -> Change {
        state.withLock { state in
            seed(String(key.prefix { $0 != "/" }), &state)
            guard let parent = Self.parent(of: key), state.items[parent]?.isFolder == true else { return .noParent }
            guard state.items[key] == nil else { return .exists }
            state.items[key] = Item(isFolder: true, etag: 0, fileID: state.nextID, modified: Date())
            state.nextID += 1
            touch(key, &state)
            return .created
        }
    }

    func delete(_ key: String) -> Change {
        state.withLock { state in
            seed(String(key.prefix { $0 != "/" }), &state)
            guard state.items[key] != nil, key.contains("/") else { return .missing }
            for other in state.items.keys where other == key || other.hasPrefix(key + "/") { state.items[other] = nil }
            if let parent = Self.parent(of: key) { touch(parent, &state) }
            return .replaced
        }
    }

    /// Moves or copies `source` (and everything under it) to `destination`.
    func transfer(_ source: String, to destination: String, keepSource: Bool, overwrite: Bool) -> (Change, Item?) {
        state.withLock { state in
            seed(String(source.prefix { $0 != "/" }), &state)
            seed(String(destination.prefix { $0 != "/" }), &state)
            guard let moved = state.items[source], source.contains("/") else { return (.missing, nil) }
            guard let parent = Self.parent(of: destination), state.items[parent]?.isFolder == true else { return (.noParent, nil) }
            guard destination != source, !destination.hasPrefix(source + "/") else { return (.exists, nil) }
            let existed = state.items[destination] != nil
            if existed && !overwrite { return (.exists, nil) }
            for other in state.items.keys where other == destination || other.hasPrefix(destination + "/") { state.items[other] = nil }
            var carried: [(String, Item)] = []
            for (other, item) in state.items where other == source || other.hasPrefix(source + "/") {
                carried.append((destination + other.dropFirst(source.count), item))
                if !keepSource { state.items[other] = nil }
            }
            for (key, var item) in carried {
                if keepSource {
                    item.fileID = state.nextID
                    state.nextID += 1
                }
                state.items[key] = item
            }
            _ = moved
            touch(destination, &state)
            if !keepSource, let from = Self.parent(of: source) { touch(from, &state) }
            return (existed ? .replaced : .created, state.items[destination])
        }
    }

    /// ownCloud's chunked upload: the chunks under `folder`, in name order, as one file at
    /// `destination`; the upload folder goes.
    func assemble(_ folder: String, to destination: String, modified: Date?) -> (Change, Item?) {
        let chunks: [UInt8]? = state.withLock { state in
            guard state.items[folder]?.isFolder == true else { return nil }
            let prefix = folder + "/"
            let parts = state.items.filter { $0.key.hasPrefix(prefix) && !$0.value.isFolder }.sorted { $0.key < $1.key }
            for key in state.items.keys where key == folder || key.hasPrefix(prefix) { state.items[key] = nil }
            return parts.flatMap(\.value.contents)
        }
        guard let chunks else { return (.missing, nil) }
        return put(destination, contents: chunks, modified: modified)
    }

    /// A new ETag for `key` and every folder above it.
    private func touch(_ key: String, _ state: inout State) {
        state.version += 1
        var current: String? = key
        while let path = current {
            state.items[path]?.etag = state.version
            if path != key { state.items[path]?.modified = Date() }
            current = Self.parent(of: path)
        }
    }
}

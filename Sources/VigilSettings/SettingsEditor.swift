public import FoundationEssentials
public import Glibc
import VigilPaths
import VigilText

/// Changes the user settings file: `vigil config set` and `unset`. Validates, refuses locked
/// keys, keeps every other key (unknown ones included), and writes atomically: a crash at any
/// point leaves either the old file or the new one, never a mix.
public struct SettingsEditor: Sendable {
    /// The settings loaded now: they say which file to change and which keys are locked.
    public let settings: Settings
    /// Called after the new file is complete and before it replaces the old one; a test injects a
    /// crash here, on its own editor (never a global a test running beside it would meet).
    @_spi(Testing) public var beforeRename: (@Sendable (_ temporaryPath: String) throws -> Void)?

    /// An editor of the user file named by `settings`.
    public init(settings: Settings) {
        self.settings = settings
    }

    /// Sets `key` to `text`, parsed and validated like an environment value. Returns the value written.
    @discardableResult
    public func set(_ key: String, to text: String) throws -> SettingValue {
        let definition = try writable(key)
        let value: SettingValue
        switch definition.kind.parse(text: text) {
        case .success(let parsed): value = parsed
        case .failure(let problem): throw SettingsError(.invalidValue, "\(key): \(problem.message)")
        }
        try update { $0[key] = value.json }
        return value
    }

    /// Removes `key` from the user file. Returns false when it was not there.
    @discardableResult
    public func unset(_ key: String) throws -> Bool {
        guard let definition = SettingsCatalog.definition(for: key) else {
            throw SettingsError(.unknownKey, "\(key) is not a Vigil setting (see vigil config list).")
        }
        if definition.scope == .managedOnly {
            throw SettingsError(.managedOnlyKey, "\(key) can only be set in the managed configuration.")
        }
        var removed = false
        try update { document in
            removed = document.removeValue(forKey: key) != nil
        }
        return removed
    }

    func writable(_ key: String) throws -> SettingDefinition {
        guard let definition = SettingsCatalog.definition(for: key) else {
            throw SettingsError(.unknownKey, "\(key) is not a Vigil setting (see vigil config list).")
        }
        if definition.scope == .managedOnly {
            throw SettingsError(.managedOnlyKey, "\(key) can only be set in the managed configuration.")
        }
        if let reason = settings[key]?.lockedBecause {
            throw SettingsError(.lockedKey, "\(key) cannot be set: \(reason).")
        }
        return definition
    }

    /// Reads the user file (refusing a broken one), applies `change` to its flat keys, writes it back.
    func update(_ change: (inout [String: JSONValue]) -> Void) throws {
        let path = settings.locations.userFile
        var document = try SettingsFileReader.read(path, source: .user) ?? [:]
        change(&document)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(JSONValue.object(document)) + Data("\n".utf8)
        try AtomicFile.write(data, to: path, beforeRename: beforeRename)
    }
}

/// Writes a file by writing a temporary file beside it, syncing it, and renaming it over the old.
public enum AtomicFile {
    /// `beforeRename` is called after the temporary file is complete and before the rename.
    public static func write(
        _ data: Data, to path: String, permissions: mode_t = 0o600, beforeRename: ((_ temporaryPath: String) throws -> Void)? = nil
    ) throws {
        let directory = PathName.directory(of: path)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SettingsError(.writeFailed, "Cannot create \(directory): \(error)")
        }
        let temporary = directory + "/." + PathName.lastComponent(of: path) + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw SettingsError(.writeFailed, "Cannot write \(temporary): \(String(cString: strerror(errno))).") }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
                if count <= 0 { return false }
                written += count
            }
            return fsync(fd) == 0
        }
        close(fd)
        guard ok else {
            unlink(temporary)
            throw SettingsError(.writeFailed, "Cannot write \(path): \(String(cString: strerror(errno))); the old file is unchanged.")
        }
        do {
            try beforeRename?(temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw SettingsError(.writeFailed, "Cannot replace \(path): \(reason); the old file is unchanged.")
        }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }
}

import FoundationEssentials
import Glibc
import VigilText

/// Reads a settings JSON file into flat keys.
enum SettingsFileReader {
    /// nil when the file does not exist. Throws when it exists but cannot be used.
    static func read(_ path: String, source: SettingsSource) throws -> [String: JSONValue]? {
        let code: SettingsError.Code = source == .managed ? .brokenManagedFile : .brokenUserFile
        let what = source == .managed ? "The managed configuration" : "The user settings file"
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw SettingsError(code, "\(what) \(path) is a directory.") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw SettingsError(code, "\(what) \(path) is not a regular file (a pipe or a device?).") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingsError(code, "\(what) \(path) cannot be read (permission denied?).")
        }
        return try decode(data, source: source, name: path)
    }

    /// A settings document's bytes into flat keys; `name` is how messages call the file.
    static func decode(_ data: Data, source: SettingsSource, name path: String) throws -> [String: JSONValue] {
        let code: SettingsError.Code = source == .managed ? .brokenManagedFile : .brokenUserFile
        let what = source == .managed ? "The managed configuration" : "The user settings file"
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) { return [:] }
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw SettingsError(code, "\(what) \(path) is not valid JSON: \(Self.describeSyntaxError(in: data)).")
        }
        guard case .object = document else {
            throw SettingsError(code, "\(what) \(path) must hold a JSON object, not \(document.kindName).")
        }
        return document.flattened()
    }

    /// Where the syntax breaks (line and column), or why else the bytes are no JSON document.
    static func describeSyntaxError(in data: Data) -> String {
        if let problem = JSONSyntax.problem(in: data) { return problem.description }
        return String(validating: data, as: UTF8.self) == nil ? "the text is not UTF-8" : "not a JSON document"
    }
}

import Foundation

/// Reads a settings JSON file into flat keys.
enum SettingsFileReader {
    /// nil when the file does not exist. Throws when it exists but cannot be used.
    static func read(_ path: String, source: SettingsSource) throws -> [String: JSONValue]? {
        let code: SettingsError.Code = source == .managed ? .brokenManagedFile : .brokenUserFile
        let what = source == .managed ? "The managed configuration" : "The user settings file"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        guard !isDirectory.boolValue else { throw SettingsError(code, "\(what) \(path) is a directory.") }
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

    /// JSONSerialization's account of a syntax error, with "character N" turned into a line and column.
    static func describeSyntaxError(in data: Data) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return "not a JSON document"
        } catch {
            var message = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "malformed"
            if let range = message.range(of: #"character (\d+)"#, options: .regularExpression),
                let offset = Int(message[range].dropFirst("character ".count))
            {
                let prefix = data.prefix(offset)
                let line = prefix.filter { $0 == 0x0a }.count + 1
                let column = offset - (prefix.lastIndex(of: 0x0a).map { $0 + 1 } ?? 0) + 1
                message = message.replacingCharacters(in: range, with: "line \(line), column \(column)")
            }
            return message.hasSuffix(".") ? String(message.dropLast()) : message
        }
    }
}

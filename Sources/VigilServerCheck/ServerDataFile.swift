import FoundationEssentials

/// Reads one of `server check`'s data files (`server-data/`: the TLS profiles, the advisories),
/// a damaged one said by path, line and field, never a crash.
enum ServerDataFile {
    static func decode<T: Decodable>(_ type: T.Type, from path: String) throws -> T {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServerCheckError(.badData, "\(path) cannot be read (the server check's data: docs/cli.md says where it is).")
        }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ServerCheckError(.badData, "\(path): \(field(context.codingPath + [key])) is missing.")
        } catch let DecodingError.typeMismatch(_, context) {
            throw ServerCheckError(.badData, "\(path): \(field(context.codingPath)) has the wrong type.")
        } catch let DecodingError.valueNotFound(_, context) {
            throw ServerCheckError(.badData, "\(path): \(field(context.codingPath)) is null.")
        } catch {
            throw ServerCheckError(.badData, "\(path) is not JSON in the documented format.")
        }
    }

    static func field(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "the document" : "field " + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

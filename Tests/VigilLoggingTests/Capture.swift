import Foundation
import InMemoryLogging
import Logging
import VigilLogging

/// A masking handler over swift-log's in-memory handler, and everything it let through as text.
struct Capture {
    let memory = InMemoryLogHandler()
    var configuration = LogConfiguration()
    let hasher = LogHasher(key: Array(repeating: 7, count: 32))

    init(_ change: (inout LogConfiguration) -> Void = { _ in }) {
        configuration.level = .trace
        change(&configuration)
    }

    var logger: Logger {
        let handler = PrivacyMaskingLogHandler(label: "test", inner: memory, configuration: configuration, hasher: hasher)
        return Logger(label: "test") { _ in handler }
    }

    /// Everything the inner handler received: messages, metadata, errors.
    var output: String {
        memory.entries.map { entry in
            var text = entry.message.description
            text += " " + entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            if let error = entry.error { text += " error=\(error)" }
            return text
        }.joined(separator: "\n")
    }
}

/// Secrets of every kind the issue names.
enum Planted {
    static let password = "hunter2-Pa55word"
    static let token = "tok_9f8e7d6c5b4a"
    static let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXZhbHVl"
    static let cookie = "sess-c00kie-value"
    static let code = "auth-code-123456"
    static let verifier = "verifier-abcdefghijklmnop"
    static let secret = "client-s3cret-xyz"
    static let all = [password, token, jwt, cookie, code, verifier, secret]
}

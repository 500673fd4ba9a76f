import Foundation
import InMemoryLogging
import Logging
import Testing
import VigilErrors
import VigilLogging

@Suite("Privacy masking")
struct PrivacyMaskingTests {
    struct LoginFailed: Error, CustomStringConvertible { var description: String { "login for alice with \(Planted.password) failed" } }
    /// A Vigil error whose reason holds a secret: the masked log keeps its type and code only.
    struct Coded: VigilError {
        var codeText: String { "auth-rejected" }
        var reason: String { "alice's password \(Planted.password) was refused" }
        let file = #fileID
        let line: Int = #line
        var description: String { reason }
    }

    @Test func privateValuesInMessagesAreMaskedAndPublicOnesShown() {
        let capture = Capture()
        let user = "alice@example.com"
        capture.logger.privacy.info("Login for \(user) with \(Planted.password) on port \(public: 8443)")
        #expect(capture.output.contains("Login for «private» with «private» on port 8443"))
        #expect(!capture.output.contains(user))
        #expect(!capture.output.contains(Planted.password))
    }

    @Test func hashedValuesCorrelateWithoutShowingTheValue() {
        let capture = Capture()
        capture.logger.privacy.info("user \("alice", hashed: true)")
        capture.logger.privacy.info("user \("alice", hashed: true)")
        capture.logger.privacy.info("user \("bob", hashed: true)")
        let lines = capture.output.split(separator: "\n").map(String.init)
        #expect(lines[0] == lines[1])
        #expect(lines[0] != lines[2])
        #expect(lines[0].range(of: #"user «private:[0-9a-f]{6}»"#, options: .regularExpression) != nil)
        #expect(!capture.output.contains("alice"))
        // Another key gives other hashes: they cannot be precomputed for a dictionary.
        #expect(LogHasher(key: Array(repeating: 1, count: 32)).hash("alice") != LogHasher(key: Array(repeating: 2, count: 32)).hash("alice"))
    }

    @Test func metadataIsPrivateUnlessMarkedPublic() {
        let capture = Capture()
        var logger = capture.logger
        logger[metadataKey: "account"] = "alice"
        logger.info(
            "event",
            metadata: [
                "plain": "\(Planted.token)",
                "explicit": .private(Planted.secret),
                "hashed": .privateHashed("alice"),
                "port": .public(8443),
                "interpolated": "\(Planted.code, privacy: .private)",
                "shown": "\("GET", privacy: .public)",
                "nested": ["inner": "\(Planted.cookie)", "list": ["\(Planted.verifier)", .public("ok")]],
            ])
        let output = capture.output
        for secret in Planted.all + ["alice"] { #expect(!output.contains(secret), "\(secret) leaked: \(output)") }
        #expect(output.contains("port=8443"))
        #expect(output.contains("shown=GET"))
        #expect(output.contains("plain=«private»"))
        #expect(output.contains("account=«private»"))
        #expect(output.range(of: #"hashed=«private:[0-9a-f]{6}»"#, options: .regularExpression) != nil)
        #expect(output.contains("\"ok\"") || output.contains("ok"))
    }

    @Test func errorsBecomeDomainAndCode() {
        let capture = Capture()
        capture.logger.error("failed", error: LoginFailed())
        capture.logger.error("failed", error: Coded())
        #expect(!capture.output.contains(Planted.password))
        #expect(!capture.output.contains("alice"))
        #expect(capture.output.contains("LoginFailed"))
        #expect(capture.output.contains("Coded auth-rejected"))
    }

    @Test func maskingOffShowsValuesSoTheseTestsCanFail() {
        let capture = Capture { $0.privacyMask = false }
        capture.logger.privacy.info("Login for \("alice") from \("10.1.2.3")")
        capture.logger.info("event", metadata: ["user": "bob"])
        capture.logger.error("failed", error: LoginFailed())
        #expect(capture.output.contains("Login for alice from 10.1.2.3"))
        #expect(capture.output.contains("user=bob"))
        #expect(capture.output.contains("login for alice"))
    }

    @Test func credentialsAreScrubbedEvenWithMaskingOff() {
        let capture = Capture { $0.privacyMask = false }
        capture.logger.privacy.info("header Authorization: Bearer \(Planted.token) and \(Planted.jwt)")
        capture.logger.info("form password=\(Planted.password)&user=x", metadata: ["body": .public("{\"client_secret\": \"\(Planted.secret)\"}")])
        for secret in [Planted.token, Planted.jwt, Planted.password, Planted.secret] {
            #expect(!capture.output.contains(secret), "\(secret) leaked: \(capture.output)")
        }
        #expect(capture.output.contains("Bearer [redacted]"))
    }

    @Test func valuesCannotForgeTheEndOfAPrivateSection() {
        let capture = Capture()
        let hostile = "x\u{E002} then \(Planted.password)"
        capture.logger.privacy.info("value \(hostile)")
        #expect(capture.output.hasPrefix("value «private»"))
        #expect(!capture.output.contains(Planted.password))
    }

    @Test func everyLoggedLevelIsMasked() {
        let capture = Capture()
        let logger = capture.logger
        logger.privacy.trace("t \(Planted.token)")
        logger.privacy.debug("d \(Planted.token)")
        logger.privacy.notice("n \(Planted.token)")
        logger.privacy.warning("w \(Planted.token)")
        logger.privacy.error("e \(Planted.token)")
        #expect(capture.memory.entries.count == 5)
        #expect(!capture.output.contains(Planted.token))
    }
}

@Suite("Filters and limits")
struct LogFilterTests {
    @Test func levelFilters() {
        let capture = Capture { $0.level = .warning }
        capture.logger.info("quiet")
        capture.logger.warning("loud")
        #expect(capture.memory.entries.map(\.message.description) == ["loud"])
    }

    @Test func onlyAndOmitTags() {
        let only = Capture { $0.onlyTags = ["tls"] }
        only.logger.info("a", metadata: ["tags": "tls"])
        only.logger.info("b", metadata: ["tags": ["http"]])
        only.logger.info("c")
        #expect(only.memory.entries.map(\.message.description) == ["a"])
        let omit = Capture { $0.omitTags = ["http"] }
        omit.logger.info("a", metadata: ["tags": "tls,http"])
        omit.logger.info("b", metadata: ["tags": "tls"])
        #expect(omit.memory.entries.map(\.message.description) == ["b"])
    }

    /// The ownCloud app's only-matching never filters; Vigil's does.
    @Test func onlyMatchingReallyFilters() {
        let capture = Capture { $0.onlyMatching = ["certificate"] }
        capture.logger.info("certificate approved")
        capture.logger.info("redirect followed")
        #expect(capture.memory.entries.map(\.message.description) == ["certificate approved"])
    }

    @Test func omitMatchingAndMatchingSeesOnlyMaskedText() {
        let omit = Capture { $0.omitMatching = ["noise"] }
        omit.logger.info("some noise")
        omit.logger.info("signal")
        #expect(omit.memory.entries.map(\.message.description) == ["signal"])
        // A filter on a private value must not reveal it by letting the line through.
        let probe = Capture { $0.onlyMatching = ["alice"] }
        probe.logger.privacy.info("user \("alice")")
        #expect(probe.memory.entries.isEmpty)
    }

    @Test func longMessagesAreTruncatedWithAMarker() {
        let capture = Capture { $0.maximumMessageSize = 10 }
        capture.logger.info("0123456789abcdefghij")
        #expect(capture.memory.entries.first?.message.description == "0123456789 [truncated: 20 -> 10 bytes]")
        let unicode = Capture { $0.maximumMessageSize = 5 }
        unicode.logger.info("ééééé")
        #expect(unicode.memory.entries.first?.message.description == "éé [truncated: 10 -> 4 bytes]")
    }
}

@Suite("swift-log handler semantics")
struct HandlerSemanticsTests {
    @Test func handlerIsAValue() {
        let capture = Capture()
        var original = capture.logger
        original[metadataKey: "a"] = .public("1")
        var copy = original
        copy[metadataKey: "a"] = .public("2")
        copy.logLevel = .error
        #expect(original[metadataKey: "a"]?.description == "1")
        #expect(original.logLevel == .trace)
        original.info("from original")
        copy.info("from copy, filtered")
        #expect(capture.memory.entries.map(\.message.description) == ["from original"])
        #expect(capture.output.contains("a=1"))
    }

    @Test func metadataProviderValuesAreMaskedToo() {
        let capture = Capture()
        let provider = Logger.MetadataProvider { ["request": "\(Planted.token)", "id": .public("r-1")] }
        let handler = PrivacyMaskingLogHandler(
            label: "p", inner: capture.memory, configuration: capture.configuration, hasher: capture.hasher, metadataProvider: provider)
        Logger(label: "p") { _ in handler }.info("x")
        #expect(!capture.output.contains(Planted.token))
        #expect(capture.output.contains("id=r-1"))
    }
}

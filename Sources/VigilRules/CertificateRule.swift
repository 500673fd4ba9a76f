public import VigilErrors

/// The certificate rule language of the ownCloud SDK's settings
/// (`connection.certificate-extended-validation-rule`, `connection.renewed-certificate-acceptance-rule`):
/// a boolean expression over the certificate stored with an account (`bookmarkCertificate`) and the
/// one a server presents now (`serverCertificate`).
///
/// ```
/// rule    := or
/// or      := and ("OR" and)*
/// and     := unary ("AND" unary)*
/// unary   := "NOT" unary | compare
/// compare := primary (("==" | "!=") primary)?
/// primary := "(" or ")" | "never" | "true" | "false" | STRING | path
/// path    := ("bookmarkCertificate" | "serverCertificate") ("." member)* | "check." check
/// member  := publicKeyData | sha256Fingerprint | asFingerPrintString | commonName
///          | parentCertificate | rootCertificate | passedValidationOrIsUserAccepted
/// check   := parentCertificatesHaveIdenticalPublicKeys
/// ```
///
/// Parsing needs nothing but the text, so settings validate a rule before storing it; the
/// evaluation lives with the certificates (VigilCertificates). Errors name the column.
public indirect enum CertificateRule: Sendable, Hashable {
    /// `never`: a rule that is never satisfied.
    case never
    /// `true` or `false`.
    case literal(Bool)
    /// A double-quoted string, without its quotes (there are no escapes).
    case string(String)
    /// A certificate's member or the check, such as `serverCertificate.commonName`.
    case path(Path)
    /// `NOT rule`.
    case not(CertificateRule)
    /// `left AND right`.
    case and(CertificateRule, CertificateRule)
    /// `left OR right`.
    case or(CertificateRule, CertificateRule)
    /// `left == right`.
    case equal(CertificateRule, CertificateRule)
    /// `left != right`.
    case notEqual(CertificateRule, CertificateRule)

    /// `bookmarkCertificate.parentCertificate.commonName`, `check.parentCertificatesHaveIdenticalPublicKeys`.
    public struct Path: Sendable, Hashable, CustomStringConvertible {
        /// What a path starts from: the account's stored certificate, the server's, or `check`.
        public enum Root: String, Sendable, Hashable { case bookmarkCertificate, serverCertificate, check }
        /// A member of a path, after a dot, by its name in the rule.
        public enum Member: String, Sendable, Hashable, CaseIterable {
            /// What a certificate offers: its key, fingerprint (`asFingerPrintString` follows `sha256Fingerprint`), name, parent, root.
            case publicKeyData, sha256Fingerprint, asFingerPrintString, commonName, parentCertificate, rootCertificate
            /// `passedValidationOrIsUserAccepted`: a truth about a certificate; the other: the one member of `check`.
            case passedValidationOrIsUserAccepted, parentCertificatesHaveIdenticalPublicKeys
        }
        /// The first name of the path.
        public var root: Root
        /// The names after it, in order; for `check`, exactly `parentCertificatesHaveIdenticalPublicKeys`.
        public var members: [Member]
        /// The path as written in a rule, its names joined by dots.
        public var description: String { ([root.rawValue] + members.map(\.rawValue)).joined(separator: ".") }
    }

    /// A rule that cannot be parsed: where and why.
    /// Its code is always `syntax`: the column and the reason say the rest.
    public struct SyntaxError: VigilError, Hashable {
        /// 1-based column of the offending character.
        public var column: Int
        /// Why the rule was refused, in words.
        public var reason: String
        /// Where the error was raised (`#fileID`).
        public let file: String
        /// The line where the error was raised (`#line`), not a line of the rule.
        public let line: Int

        /// An error at `column` of the rule, raised at the caller's file and line.
        public init(column: Int, reason: String, file: String = #fileID, line: Int = #line) {
            self.column = column
            self.reason = reason
            self.file = file
            self.line = line
        }

        /// `column <n>: <reason>`.
        public var description: String { "column \(column): \(reason)" }
        /// Always `syntax`.
        public var codeText: String { "syntax" }
        /// Errors are equal when their column and reason are.
        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.column == rhs.column && lhs.reason == rhs.reason }
        /// Hashes the column alone.
        public func hash(into hasher: inout Hasher) { hasher.combine(column) }
    }

    /// The longest rule accepted, and the deepest nesting: a rule is a short expression, and a
    /// hostile settings file must not exhaust the stack of the parser or the evaluator.
    public static let maximumLength = 4096
    /// The deepest nesting of parentheses and `NOT` accepted.
    public static let maximumDepth = 64
    /// The most `AND`, `OR` and `NOT` operators accepted in one rule (`==` and `!=` are not counted).
    public static let maximumOperators = 256

    /// Parses `text`; throws ``SyntaxError`` naming the column.
    public init(parsing text: String) throws {
        guard text.unicodeScalars.count <= Self.maximumLength else {
            throw SyntaxError(column: Self.maximumLength + 1, reason: "the rule is longer than \(Self.maximumLength) characters")
        }
        var parser = RuleParser(text: text)
        self = try parser.parseRule()
    }
}

/// Tokens and recursive descent for ``CertificateRule``.
struct RuleParser {
    enum Token: Equatable {
        case word(String)
        case string(String)
        case open, close, equal, notEqual, end
    }

    let scalars: [Unicode.Scalar]
    var position = 0
    var depth = 0
    var operators = 0
    var current: (token: Token, column: Int) = (.end, 1)

    init(text: String) {
        scalars = Array(text.unicodeScalars)
    }

    mutating func parseRule() throws -> CertificateRule {
        try advance()
        guard current.token != .end else { throw CertificateRule.SyntaxError(column: 1, reason: "the rule is empty") }
        let rule = try parseOr()
        guard current.token == .end else {
            throw CertificateRule.SyntaxError(column: current.column, reason: "unexpected \(describe(current.token)); expected AND, OR or the end")
        }
        return rule
    }

    /// One more operator; too many make the tree too deep to evaluate safely.
    mutating func countOperator() throws {
        operators += 1
        if operators > CertificateRule.maximumOperators {
            throw CertificateRule.SyntaxError(column: current.column, reason: "more than \(CertificateRule.maximumOperators) operators")
        }
    }

    mutating func enter() throws {
        depth += 1
        if depth > CertificateRule.maximumDepth {
            throw CertificateRule.SyntaxError(column: current.column, reason: "nested deeper than \(CertificateRule.maximumDepth) levels")
        }
    }

    mutating func parseOr() throws -> CertificateRule {
        var left = try parseAnd()
        while current.token == .word("OR") {
            try countOperator()
            try advance()
            left = .or(left, try parseAnd())
        }
        return left
    }

    mutating func parseAnd() throws -> CertificateRule {
        var left = try parseUnary()
        while current.token == .word("AND") {
            try countOperator()
            try advance()
            left = .and(left, try parseUnary())
        }
        return left
    }

    mutating func parseUnary() throws -> CertificateRule {
        if current.token == .word("NOT") {
            try countOperator()
            try enter()
            defer { depth -= 1 }
            try advance()
            return .not(try parseUnary())
        }
        let left = try parsePrimary()
        switch current.token {
        case .equal:
            try advance()
            return .equal(left, try parsePrimary())
        case .notEqual:
            try advance()
            return .notEqual(left, try parsePrimary())
        default: return left
        }
    }

    mutating func parsePrimary() throws -> CertificateRule {
        let (token, column) = current
        switch token {
        case .open:
            try enter()
            defer { depth -= 1 }
            try advance()
            let inner = try parseOr()
            guard current.token == .close else {
                throw CertificateRule.SyntaxError(column: current.column, reason: "expected ) to close the ( at column \(column)")
            }
            try advance()
            return inner
        case .string(let text):
            try advance()
            return .string(text)
        case .word("never"):
            try advance()
            return .never
        case .word("true"):
            try advance()
            return .literal(true)
        case .word("false"):
            try advance()
            return .literal(false)
        case .word(let word):
            try advance()
            return .path(try path(word, column: column))
        default:
            throw CertificateRule.SyntaxError(
                column: column, reason: "unexpected \(describe(token)); expected a certificate, a check, a string, true, false, never or (")
        }
    }

    func path(_ word: String, column: Int) throws -> CertificateRule.Path {
        let parts = word.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let root = CertificateRule.Path.Root(rawValue: parts[0]) else {
            throw CertificateRule.SyntaxError(column: column, reason: "unknown name \(parts[0]); expected bookmarkCertificate, serverCertificate or check")
        }
        var members: [CertificateRule.Path.Member] = []
        var offset = parts[0].count + 1
        for part in parts.dropFirst() {
            guard let member = CertificateRule.Path.Member(rawValue: part) else {
                throw CertificateRule.SyntaxError(
                    column: column + offset,
                    reason: "unknown member \(part.isEmpty ? "(empty)" : part); expected one of "
                        + CertificateRule.Path.Member.allCases.map(\.rawValue).joined(separator: ", "))
            }
            members.append(member)
            offset += part.count + 1
        }
        if root == .check, members != [.parentCertificatesHaveIdenticalPublicKeys] {
            throw CertificateRule.SyntaxError(column: column, reason: "check has one member: check.parentCertificatesHaveIdenticalPublicKeys")
        }
        if root != .check, members.contains(.parentCertificatesHaveIdenticalPublicKeys) {
            throw CertificateRule.SyntaxError(column: column, reason: "parentCertificatesHaveIdenticalPublicKeys belongs to check")
        }
        return CertificateRule.Path(root: root, members: members)
    }

    func describe(_ token: Token) -> String {
        switch token {
        case .word(let word): return "\"\(word)\""
        case .string(let text): return "the string \"\(text)\""
        case .open: return "("
        case .close: return ")"
        case .equal: return "=="
        case .notEqual: return "!="
        case .end: return "the end of the rule"
        }
    }

    mutating func advance() throws {
        while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
        let column = position + 1
        guard position < scalars.count else {
            current = (.end, column)
            return
        }
        let scalar = scalars[position]
        switch scalar {
        case "(":
            position += 1
            current = (.open, column)
        case ")":
            position += 1
            current = (.close, column)
        case "=", "!":
            guard position + 1 < scalars.count, scalars[position + 1] == "=" else {
                throw CertificateRule.SyntaxError(column: column, reason: "expected \(scalar)= ")
            }
            position += 2
            current = (scalar == "=" ? .equal : .notEqual, column)
        case "\"":
            position += 1
            var text = ""
            while position < scalars.count, scalars[position] != "\"" {
                text.unicodeScalars.append(scalars[position])
                position += 1
            }
            guard position < scalars.count else { throw CertificateRule.SyntaxError(column: column, reason: "the string that starts here is not closed") }
            position += 1
            current = (.string(text), column)
        default:
            var word = ""
            while position < scalars.count,
                scalars[position].properties.isAlphabetic || ("0"..."9").contains(scalars[position]) || scalars[position] == "." || scalars[position] == "_"
            {
                word.unicodeScalars.append(scalars[position])
                position += 1
            }
            guard !word.isEmpty else { throw CertificateRule.SyntaxError(column: column, reason: "unexpected character \(scalar.escaped(asASCII: true))") }
            current = (.word(word), column)
        }
    }
}

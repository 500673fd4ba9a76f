import FoundationEssentials
import Glibc
import VigilRules
public import VigilText

/// The type of a setting, with its validation. A struct over a private enum so kinds can be added.
public struct SettingKind: Sendable, Hashable, CustomStringConvertible {
    private enum Base: Sendable, Hashable {
        case bool
        case integer(ClosedRange<Int>)
        case string
        case choice([String])
        case stringList
        case choiceList([String])
        case url
        case template([String])
        case pinList
        case fingerprintList
        case oidList
        case rule
        case proxy
        case autoconfigURL
    }
    private let base: Base

    /// A boolean; as text `true`/`false`, `yes`/`no`, `on`/`off` or `1`/`0`.
    public static let bool = SettingKind(base: .bool)
    /// Any string.
    public static let string = SettingKind(base: .string)
    /// A list of strings: a JSON array, or as text comma-separated items (blank ones dropped) or a JSON array.
    public static let stringList = SettingKind(base: .stringList)
    /// An http or https URL.
    public static let url = SettingKind(base: .url)
    /// An integer within `range`; in a JSON file, a whole number.
    public static func integer(_ range: ClosedRange<Int>) -> SettingKind { SettingKind(base: .integer(range)) }
    /// One string of `values`.
    public static func choice(_ values: [String]) -> SettingKind { SettingKind(base: .choice(values)) }
    /// A list of strings of `values`, none named twice.
    public static func choiceList(_ values: [String]) -> SettingKind { SettingKind(base: .choiceList(values)) }
    /// A string with `{{placeholder}}`s, only the given ones allowed.
    public static func template(placeholders: [String]) -> SettingKind { SettingKind(base: .template(placeholders)) }

    /// A list of `HOST[:PORT]=SHA256` entries (a certificate's SHA-256 fingerprint, hex, colons optional).
    public static let fingerprintList = SettingKind(base: .fingerprintList)

    /// A list of object identifiers in dotted form (`2.5.29.32.0`).
    public static let oidList = SettingKind(base: .oidList)

    /// A certificate rule (VigilRules' language), checked by parsing it.
    public static let rule = SettingKind(base: .rule)

    /// A list of `HOST[:PORT]=PIN` entries, PIN an RFC 7469 SPKI SHA-256 in base64.
    public static let pinList = SettingKind(base: .pinList)

    /// `system`, `none`, or a proxy URL (`http://`, `https://`, `socks5h://` with a host, no user
    /// information: a proxy's password is kept in the keyring by `vigil proxy login`).
    public static let proxy = SettingKind(base: .proxy)

    /// A proxy auto-config file's URL: `http://`, `https://` or `file://`.
    public static let autoconfigURL = SettingKind(base: .autoconfigURL)

    /// The values a choice or choice list allows.
    public var allowedValues: [String]? {
        switch base {
        case .choice(let values), .choiceList(let values): return values
        default: return nil
        }
    }

    /// The kind in words, as `vigil config` and docs/settings.md show it (`integer from 1 to 10`).
    public var description: String {
        switch base {
        case .bool: return "boolean (true or false)"
        case .integer(let range): return "integer from \(range.lowerBound) to \(range.upperBound)"
        case .string: return "string"
        case .choice(let values): return "one of: " + values.joined(separator: ", ")
        case .stringList: return "list of strings"
        case .choiceList(let values): return "list of: " + values.joined(separator: ", ")
        case .url: return "http(s) URL"
        case .template(let placeholders): return "string with placeholders " + placeholders.map { "{{\($0)}}" }.joined(separator: ", ")
        case .pinList: return "list of HOST[:PORT]=PIN (PIN: the SPKI SHA-256 in base64, RFC 7469)"
        case .rule: return "certificate rule (see docs/trust.md)"
        case .oidList: return "list of object identifiers (dotted, such as 2.5.29.32.0)"
        case .fingerprintList: return "list of HOST[:PORT]=SHA256 (a certificate's SHA-256 fingerprint, hex, colons optional)"
        case .proxy: return "system, none, or a proxy URL (http://, https://, socks5h://HOST:PORT)"
        case .autoconfigURL: return "a PAC file's URL (http://, https:// or file://)"
        }
    }

    /// Validates a value read from a JSON file.
    public func parse(json: JSONValue) -> Result<SettingValue, SettingsProblem> {
        switch (base, json) {
        case (.bool, .bool(let value)): return .success(.bool(value))
        case (.integer, .number(let number)):
            guard number == number.rounded(), abs(number) < 1e15 else { return .failure(.init("\(number) is not a whole number; expected \(self)")) }
            return check(.integer(Int(number)))
        case (.string, .string), (.choice, .string), (.url, .string), (.template, .string), (.rule, .string), (.proxy, .string), (.autoconfigURL, .string):
            guard case .string(let text) = json else { break }
            return check(.string(text))
        case (.stringList, .array(let items)), (.choiceList, .array(let items)), (.pinList, .array(let items)), (.fingerprintList, .array(let items)),
            (.oidList, .array(let items)):
            var strings: [String] = []
            for item in items {
                guard case .string(let text) = item else { return .failure(.init("the list holds \(item.kindName); expected \(self)")) }
                strings.append(text)
            }
            return check(.strings(strings))
        case (.stringList, .string(let text)), (.choiceList, .string(let text)), (.pinList, .string(let text)), (.fingerprintList, .string(let text)),
            (.oidList, .string(let text)):
            return parse(text: text)
        default:
            break
        }
        return .failure(.init("got \(json.kindName); expected \(self)"))
    }

    /// Validates a value given as text (environment variables, `vigil config set`).
    public func parse(text: String) -> Result<SettingValue, SettingsProblem> {
        switch base {
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "on", "1": return .success(.bool(true))
            case "false", "no", "off", "0": return .success(.bool(false))
            default: return .failure(.init("\"\(text)\" is not a boolean; expected true or false"))
            }
        case .integer:
            guard let value = Int(text.trimmingSpaces()) else {
                return .failure(.init("\"\(text)\" is not an integer; expected \(self)"))
            }
            return check(.integer(value))
        case .stringList, .choiceList, .pinList, .fingerprintList, .oidList:
            if text.hasPrefix("["), let data = text.data(using: .utf8), let json = try? JSONDecoder().decode(JSONValue.self, from: data) {
                return parse(json: json)
            }
            let items = text.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
            return check(.strings(items))
        case .string, .choice, .url, .template, .rule, .proxy, .autoconfigURL:
            return check(.string(text))
        }
    }

    private func check(_ value: SettingValue) -> Result<SettingValue, SettingsProblem> {
        switch (base, value) {
        case (.integer(let range), .integer(let number)) where !range.contains(number):
            return .failure(.init("\(number) is out of range; expected \(self)"))
        case (.choice(let allowed), .string(let text)) where !allowed.contains(text):
            return .failure(.init("\"\(text)\" is not allowed; expected one of: \(allowed.joined(separator: ", "))"))
        case (.choiceList(let allowed), .strings(let items)):
            if let bad = items.first(where: { !allowed.contains($0) }) {
                return .failure(.init("\"\(bad)\" is not allowed; the list may hold: \(allowed.joined(separator: ", "))"))
            }
            if Set(items).count != items.count { return .failure(.init("the list names a value twice")) }
        case (.url, .string(let text)):
            guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host?.isEmpty == false
            else {
                return .failure(.init("\"\(text)\" is not an http(s) URL with a host"))
            }
        case (.proxy, .string(let text)):
            guard text != "system", text != "none" else { break }
            guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), ["http", "https", "socks5h"].contains(scheme),
                url.host?.isEmpty == false, url.path.isEmpty || url.path == "/", url.query == nil
            else {
                return .failure(.init("expected system, none, or a proxy URL such as http://proxy.example:3128 (http, https or socks5h)"))
            }
            if url.user != nil || url.password != nil {
                return .failure(.init("a proxy URL in the settings carries no user or password; keep them in the keyring with vigil proxy login"))
            }
        case (.autoconfigURL, .string(let text)):
            guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), ["http", "https", "file"].contains(scheme),
                scheme == "file" ? url.path.hasPrefix("/") : url.host?.isEmpty == false, url.user == nil, url.password == nil
            else {
                return .failure(.init("expected a PAC file's URL: http://HOST/PATH, https://HOST/PATH or file:///PATH"))
            }
        case (.fingerprintList, .strings(let items)):
            for item in items {
                let parts = item.split(separator: "=", maxSplits: 1)
                let hex = parts.count == 2 ? parts[1].filter { $0 != ":" } : ""
                guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains(where: { $0 == " " || $0 == "/" || $0 == "@" }),
                    hex.count == 64, hex.allSatisfy(\.isHexDigit)
                else {
                    return .failure(.init("\"\(item)\" is not HOST[:PORT]=SHA256 with SHA256 a certificate's fingerprint (64 hex digits, colons optional)"))
                }
            }
        case (.oidList, .strings(let items)):
            for item in items {
                let arcs = item.split(separator: ".", omittingEmptySubsequences: false)
                guard arcs.count >= 2, arcs.count <= 64,
                    arcs.allSatisfy({ !$0.isEmpty && $0.count <= 20 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                    let first = Int(arcs[0]), first <= 2
                else {
                    return .failure(.init("\"\(item)\" is not an object identifier in dotted form (such as 2.5.29.32.0)"))
                }
            }
            if items.isEmpty { return .failure(.init("the list is empty; leave the setting unset for any policy")) }
        case (.rule, .string(let text)):
            do { _ = try CertificateRule(parsing: text) } catch let error as CertificateRule.SyntaxError {
                return .failure(.init("the rule does not parse at \(error)"))
            } catch {
                return .failure(.init("the rule does not parse: \(error)"))
            }
        case (.pinList, .strings(let items)):
            for item in items {
                let parts = item.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains(where: { $0 == " " || $0 == "/" || $0 == "@" }),
                    let pin = Data(base64Encoded: String(parts[1])), pin.count == 32
                else {
                    return .failure(.init("\"\(item)\" is not HOST[:PORT]=PIN with PIN the base64 of a SHA-256 (44 characters)"))
                }
            }
        case (.template(let allowed), .string(let text)):
            var rest = Substring(text)
            while let open = rest.firstRange(of: "{{") {
                guard let close = rest[open.upperBound...].firstRange(of: "}}") else {
                    return .failure(.init("an unclosed {{ in \"\(text)\""))
                }
                let name = rest[open.upperBound..<close.lowerBound].trimmingSpaces()
                if !allowed.contains(name) {
                    return .failure(.init("unknown placeholder {{\(name)}}; allowed: " + allowed.map { "{{\($0)}}" }.joined(separator: ", ")))
                }
                rest = rest[close.upperBound...]
            }
        default: break
        }
        return .success(value)
    }
}

/// Why a value was refused, in words.
public struct SettingsProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reason, in words.
    public var message: String
    /// A problem described by `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

import FoundationEssentials
import Glibc
import VigilText

/// `http.user-agent`'s template with its placeholders filled in: `{{app.name}}`,
/// `{{app.version}}`, `{{os.name}}`, `{{os.version}}` (from /etc/os-release, else uname) and
/// `{{host.name}}`. Control characters are dropped, so that no setting can split a header.
public enum UserAgent {
    /// What `{{app.name}}` becomes.
    public static let appName = "Vigil"
    /// What `{{app.version}}` becomes.
    public static let appVersion = "0.1.0"

    /// `template` with its placeholders filled in, control characters dropped and the ends trimmed of spaces.
    public static func render(_ template: String) -> String {
        let os = operatingSystem()
        let values = [
            "app.name": appName, "app.version": appVersion, "os.name": os.name, "os.version": os.version,
            "host.name": ProcessInfo.processInfo.hostName,
        ]
        var text = template
        for (name, value) in values { text = text.replacing("{{\(name)}}", with: value) }
        return String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init)).trimmingSpaces()
    }

    static func operatingSystem() -> (name: String, version: String) {
        if let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) {
            var fields: [String: String] = [:]
            for line in TextLines.split(text, omittingEmpty: true) {
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { fields[parts[0]] = parts[1].trimming(charactersIn: "\"") }
            }
            if let name = fields["NAME"] { return (name, fields["VERSION_ID"] ?? "") }
        }
        var system = utsname()
        uname(&system)
        let field = { (value: Any) in
            String(
                Mirror(reflecting: value).children.compactMap { $0.value as? CChar }.prefix { $0 != 0 }.map { Character(UnicodeScalar(UInt8(bitPattern: $0))) })
        }
        return (field(system.sysname), field(system.release))
    }
}

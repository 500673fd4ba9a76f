/// File paths as text, the few operations Vigil needs (NSString's path methods without
/// Foundation): no file is touched, nothing is resolved through the file system.
package enum PathName {
    /// The path without its last component: `/a/b/c` -> `/a/b`, `/a` -> `/`, `c` -> `` (the
    /// current directory), trailing slashes ignored.
    package static func directory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        if slash == trimmed.startIndex { return "/" }
        var parent = trimmed[..<slash]
        while parent.count > 1, parent.hasSuffix("/") { parent = parent.dropLast() }
        return String(parent)
    }

    /// The last component: `/a/b/c` -> `c`, `/a/b/` -> `b`, `/` -> `/`.
    package static func lastComponent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard trimmed != "/", let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// `directory` and `name` joined by one slash (`name` alone when `directory` is empty).
    package static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        let tail = name.drop { $0 == "/" }
        return directory.hasSuffix("/") ? directory + tail : directory + "/" + tail
    }

    /// The path with `.` components and repeated slashes removed and each `..` taking away the
    /// component before it, by the text alone (`/a/./b/../c` -> `/a/c`).
    package static func normalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if let last = parts.last, last != ".." { parts.removeLast() } else if !absolute { parts.append(part) }
            default: parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}

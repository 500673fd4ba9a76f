import FoundationEssentials
import Glibc
import VigilHTTP
import VigilText

/// The user's files, proved usable the way a sync client uses them: the root listed
/// (`PROPFIND`, `Depth: 1`, answered 207), then its first file downloaded (`GET` with a
/// `Range` of its first byte, answered 200 or 206). Neither body is ever logged: they are the
/// user's own data. A server that lists but cannot serve a file
/// (a broken storage backend) is not an account that works.
///
/// The file to download is taken only from the listing's `href`s that are paths under the root
/// listed, on the same origin: a hostile listing cannot send the credentials anywhere else.
struct FilesProbe {
    /// What the probe saw.
    struct Outcome: Sendable {
        /// The listing's answer.
        var listing: HTTPResponse
        var listStatus: Int { listing.status }
        /// The download's status; nil when the listing failed or holds no file.
        var downloadStatus: Int?
        /// The path downloaded.
        var downloaded: String?

        var isWorking: Bool { listStatus == 207 && !FilesProbe.downloadFailed(downloadStatus) }
    }

    let client: HTTPClient
    /// A plain redirect of the listing is returned in the outcome (never followed) instead of
    /// thrown: `account check` reports it as a move (``ServerMove``). An access proxy's or
    /// gateway's redirect is thrown either way.
    var returnsRedirects = false

    /// Lists `rootURL` (an https URL ending in `/`) and downloads its first file, with `authorization`.
    /// A redirect of either request is an error (never followed with credentials). The listing is
    /// sent again after each of `delays` while `retry` holds for its answer.
    func run(
        rootURL: String, authorization: String, retryingAfter delays: [Duration] = [], when retry: @escaping (HTTPResponse) -> Bool = { $0.status == 401 }
    ) async throws -> Outcome {
        var listing = HTTPRequest(method: "PROPFIND", url: rootURL, headers: [(name: "Authorization", value: authorization), (name: "Depth", value: "1")])
        listing.logsBodies = false
        let (answer, tries) = try await client.send(listing, retryingAfter: delays, when: { retry($0) || $0.heldByAccessGateway })
        if returnsRedirects, answer.redirect != nil, !answer.heldByAccessGateway, AccessProxyPage.recognize(answer) == nil {
            return Outcome(listing: answer)
        }
        if let redirected = AccountSetup.redirectError(answer, tries: tries) { throw redirected }
        var outcome = Outcome(listing: answer)
        guard answer.status == 207, let origin = Self.origin(of: rootURL), let rootPath = URLComponents(string: rootURL)?.percentEncodedPath,
            let file = Self.firstFile(in: answer.body, under: rootPath, origin: origin)
        else { return outcome }
        var download = HTTPRequest(url: origin + file, headers: [(name: "Authorization", value: authorization), (name: "Range", value: "bytes=0-0")])
        download.logsBodies = false
        let got = try await client.send(download)
        if let redirected = AccountSetup.redirectError(got, tries: 1) { throw redirected }
        outcome.downloadStatus = got.status
        outcome.downloaded = file
        return outcome
    }

    /// A download answered with anything but 200 or 206 (nil: nothing was downloaded).
    static func downloadFailed(_ status: Int?) -> Bool { status.map { $0 != 200 && $0 != 206 } ?? false }

    /// `scheme://host[:port]` of `url`.
    static func origin(of url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme, let host = parts.percentEncodedHost else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)" + (parts.port.map { ":\($0)" } ?? "")
    }

    /// The first `href` of a multi-status that is a file (not ending in `/`, not a collection)
    /// strictly under `root` (a percent-encoded path ending in `/`), with no `..` segment.
    static func firstFile(in body: [UInt8], under root: String, origin: String? = nil) -> String? {
        let text = String(decoding: body.prefix(1 << 20), as: UTF8.self)
        for response in text.components(separatedBy: "response>").dropFirst() {
            guard let href = element("href", in: response) else { continue }
            var path = href.trimmingWhitespace()
            // An absolute href (RFC 4918 allows it) counts only on the listing's own origin.
            if path.contains("://") {
                guard let origin, path.lowercased().hasPrefix(origin.lowercased() + "/") else { continue }
                path = String(path.dropFirst(origin.count))
            }
            guard path.hasPrefix(root), path.count > root.count, !path.hasSuffix("/"), !response.contains("collection"),
                path.dropFirst(root.count).split(separator: "/", omittingEmptySubsequences: false).allSatisfy(isPlainSegment),
                path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
            else { continue }
            return path
        }
        return nil
    }

    /// A path segment that names one entry, decoded or not: not empty, not `.` or `..` (`%2e`
    /// too), no `/`, `\\` or `;` once decoded (servers normalise them).
    static func isPlainSegment(_ segment: Substring) -> Bool {
        guard !segment.isEmpty, let decoded = PercentEncoding.decode(segment) else { return false }
        return decoded != "." && decoded != ".." && !decoded.contains(where: { $0 == "/" || $0 == "\\" || $0 == ";" })
    }

    /// The text of the first `<prefix:name>` (any namespace prefix) in `xml`.
    static func element(_ name: String, in xml: String) -> String? {
        // `name>` preceded by `<` or by `<prefix:` (letters, digits, `_.-`): scanned, no
        // expression compiled per element of a large answer.
        for found in xml.ranges(of: name + ">") {
            var start = found.lowerBound
            guard start > xml.startIndex else { continue }
            var before = xml[xml.index(before: start)]
            if before == ":" {
                start = xml.index(before: start)
                var prefixLength = 0
                while start > xml.startIndex {
                    let character = xml[xml.index(before: start)]
                    guard character.isASCII, character.isLetter || character.isNumber || "_.-".contains(character) else { break }
                    start = xml.index(before: start)
                    prefixLength += 1
                }
                guard prefixLength > 0, start > xml.startIndex else { continue }
                before = xml[xml.index(before: start)]
            }
            guard before == "<", let close = xml[found.upperBound...].firstRange(of: "</") else { continue }
            return String(xml[found.upperBound..<close.lowerBound])
        }
        return nil
    }
}

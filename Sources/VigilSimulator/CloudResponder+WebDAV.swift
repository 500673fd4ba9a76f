import Foundation

/// The WebDAV side of the simulated server: `remote.php/dav/files/USER/...` (and the old
/// `remote.php/webdav/...`), backed by ``SimulatedFiles``, and ownCloud's chunked upload under
/// `remote.php/dav/uploads/USER/TRANSFER/`.
extension CloudResponder {
    /// Where a DAV path points: the user whose files it names and the item's key, or an answer
    /// (401 without valid credentials, 403 for another user's files).
    enum DAVTarget {
        case item(user: String, key: String, base: String)
        case upload(user: String, key: String)
        case answer(SimulatedResponse)
    }

    func davTarget(_ request: SimulatedRequest, path: String) -> DAVTarget? {
        let files = "/remote.php/dav/files/", uploads = "/remote.php/dav/uploads/", old = "/remote.php/webdav"
        // The root asks for a credential as every other WebDAV path does (what a setup check probes).
        if path == "/remote.php/dav" || path == "/remote.php/dav/" {
            guard authenticatedUser(request) != nil else { return .answer(unauthorized()) }
            let root =
                #"<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/remote.php/dav/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>"#
            return .answer(SimulatedResponse(request.method == "PROPFIND" ? 207 : 405, [("Content-Type", "application/xml; charset=utf-8")], body: root))
        }
        guard path.hasPrefix(files) || path.hasPrefix(uploads) || path.hasPrefix(old) else { return nil }
        guard let user = authenticatedUser(request) else { return .answer(unauthorized()) }
        if path.hasPrefix(old) {
            guard let key = SimulatedFiles.key(user: user, String(path.dropFirst(old.count))) else { return .answer(notFound()) }
            return .item(user: user, key: key, base: old + "/")
        }
        let isUpload = path.hasPrefix(uploads)
        let rest = path.dropFirst(isUpload ? uploads.count : files.count)
        let owner = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard owner.removingPercentEncoding == user else {
            return .answer(
                SimulatedResponse(403, [("Content-Type", "application/xml")], body: Self.davException("Sabre\\DAV\\Exception\\Forbidden", "Not your files.")))
        }
        let relative = String(rest.dropFirst(owner.count))
        if isUpload {
            guard let key = SimulatedFiles.key(user: SimulatedFiles.uploadsPrefix + user, relative) else { return .answer(notFound()) }
            return .upload(user: user, key: key)
        }
        guard let key = SimulatedFiles.key(user: user, relative) else { return .answer(notFound()) }
        return .item(user: user, key: key, base: files + owner + "/")
    }

    /// Answers a WebDAV request, or nil when the path is not WebDAV's.
    func dav(_ request: SimulatedRequest, path: String) -> SimulatedResponse? {
        guard let target = davTarget(request, path: path) else { return nil }
        var answer: SimulatedResponse
        switch target {
        case .answer(let response):
            return response
        case .item(let user, let key, let base):
            answer = davItem(request, key: key, user: user, base: base)
            answer.authenticatedUser = user
        case .upload(let user, let key):
            answer = davUpload(request, key: key, user: user)
            answer.authenticatedUser = user
        }
        return answer
    }

    func davItem(_ request: SimulatedRequest, key: String, user: String, base: String) -> SimulatedResponse {
        switch request.method {
        case "PROPFIND":
            guard let listing = files.listing(key) else { return davNotFound() }
            let depth = request.headers["depth"] ?? "infinity"
            let href = base + Self.encodedPath(String(key.dropFirst(user.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/")))
            var entries = [(href: listing.item.isFolder && !href.hasSuffix("/") ? href + "/" : href, item: listing.item)]
            if depth != "0" {
                let folder = href.hasSuffix("/") ? href : href + "/"
                entries += listing.children.map { (folder + Self.encodedPath($0.name) + ($0.item.isFolder ? "/" : ""), $0.item) }
            }
            return SimulatedResponse(207, [("Content-Type", "application/xml; charset=utf-8"), ("DAV", "1, 3")], body: Self.multistatus(entries))
        case "GET", "HEAD":
            guard let item = files.item(key) else { return davNotFound() }
            guard !item.isFolder else { return SimulatedResponse(405) }
            return SimulatedResponse(200, [("Content-Type", "application/octet-stream")] + Self.itemHeaders(item), bytes: item.contents)
        case "PUT":
            let (change, item) = files.put(key, contents: request.body, modified: Self.mtime(request))
            return written(change, item, mtime: request.headers["x-oc-mtime"] != nil)
        case "MKCOL":
            switch files.makeFolder(key) {
            case .created: return SimulatedResponse(201, files.item(key).map(Self.itemHeaders) ?? [])
            case .noParent: return davConflict("The parent folder does not exist.")
            default:
                return SimulatedResponse(
                    405, [("Content-Type", "application/xml")], body: Self.davException("Sabre\\DAV\\Exception\\MethodNotAllowed", "The resource exists."))
            }
        case "DELETE":
            return files.delete(key) == .missing ? davNotFound() : SimulatedResponse(204)
        case "MOVE", "COPY":
            guard let destination = destinationKey(request, user: user) else {
                return SimulatedResponse(400, body: "A Destination header on this server is required.\n")
            }
            let (change, item) = files.transfer(
                key, to: destination, keepSource: request.method == "COPY", overwrite: request.headers["overwrite"]?.uppercased() != "F")
            return written(change, item, mtime: false)
        case "OPTIONS":
            return SimulatedResponse(200, [("DAV", "1, 3"), ("Allow", "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, MKCOL, MOVE, COPY")])
        default:
            return SimulatedResponse(405)
        }
    }

    /// ownCloud's chunked upload (chunking NG): MKCOL the transfer folder, PUT each chunk into
    /// it, MOVE its `.file` to the destination.
    func davUpload(_ request: SimulatedRequest, key: String, user: String) -> SimulatedResponse {
        switch request.method {
        case "MKCOL":
            _ = files.makeFolder(SimulatedFiles.uploadsPrefix + user)
            return files.makeFolder(key) == .created ? SimulatedResponse(201) : SimulatedResponse(405)
        case "PUT":
            let (change, _) = files.put(key, contents: request.body, modified: nil)
            return change == .created || change == .replaced ? SimulatedResponse(201) : davConflict("The upload folder does not exist.")
        case "MOVE" where key.hasSuffix("/.file"):
            guard let destination = destinationKey(request, user: user) else { return SimulatedResponse(400) }
            let (change, item) = files.assemble(String(key.dropLast("/.file".count)), to: destination, modified: Self.mtime(request))
            return written(change, item, mtime: request.headers["x-oc-mtime"] != nil)
        case "DELETE":
            return files.delete(key) == .missing ? davNotFound() : SimulatedResponse(204)
        case "PROPFIND":
            guard files.item(key) != nil else { return davNotFound() }
            return SimulatedResponse(207, [("Content-Type", "application/xml; charset=utf-8")], body: Self.multistatus([]))
        default:
            return SimulatedResponse(405)
        }
    }

    func written(_ change: SimulatedFiles.Change, _ item: SimulatedFiles.Item?, mtime: Bool) -> SimulatedResponse {
        switch change {
        case .created, .replaced:
            var headers = item.map(Self.itemHeaders) ?? []
            if mtime { headers.append(("X-OC-MTime", "accepted")) }
            return SimulatedResponse(change == .created ? 201 : 204, headers)
        case .noParent: return davConflict("The parent folder does not exist.")
        case .missing: return davNotFound()
        case .tooLarge:
            return SimulatedResponse(
                507, [("Content-Type", "application/xml")], body: Self.davException("Sabre\\DAV\\Exception\\InsufficientStorage", "Too large."))
        case .isFolder, .exists:
            return SimulatedResponse(
                412, [("Content-Type", "application/xml")], body: Self.davException("Sabre\\DAV\\Exception\\PreconditionFailed", "The destination exists."))
        }
    }

    /// The key a `Destination` header names: a URL or path on this server, under the same user's files.
    func destinationKey(_ request: SimulatedRequest, user: String) -> String? {
        guard let value = request.headers["destination"] else { return nil }
        var path = value
        if let scheme = path.range(of: "://") {
            let rest = path[scheme.upperBound...]
            path = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
        }
        path = SimulatedRequest.path(of: path)
        let files = "/remote.php/dav/files/", old = "/remote.php/webdav"
        if path.hasPrefix(old) { return SimulatedFiles.key(user: user, String(path.dropFirst(old.count))) }
        guard path.hasPrefix(files) else { return nil }
        let rest = path.dropFirst(files.count)
        let owner = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard owner.removingPercentEncoding == user else { return nil }
        return SimulatedFiles.key(user: user, String(rest.dropFirst(owner.count)))
    }

    static func mtime(_ request: SimulatedRequest) -> Date? {
        (request.headers["x-oc-mtime"]).flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:))
    }

    static func etag(_ item: SimulatedFiles.Item) -> String { "\"5f3c\(item.fileID)v\(item.etag)\"" }

    static func itemHeaders(_ item: SimulatedFiles.Item) -> [(String, String)] {
        let id = String(format: "%08docsimulator", item.fileID)
        return [("ETag", etag(item)), ("OC-ETag", etag(item)), ("OC-FileId", id), ("Last-Modified", httpDate(item.modified))]
    }

    func davNotFound() -> SimulatedResponse {
        SimulatedResponse(404, [("Content-Type", "application/xml")], body: Self.davException("Sabre\\DAV\\Exception\\NotFound", "No such file or folder."))
    }

    func davConflict(_ message: String) -> SimulatedResponse {
        SimulatedResponse(409, [("Content-Type", "application/xml")], body: Self.davException("Sabre\\DAV\\Exception\\Conflict", message))
    }

    static func encodedPath(_ relative: String) -> String {
        relative.split(separator: "/").map {
            $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? String($0)
        }
        .joined(separator: "/")
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// A multi-status of `entries`: each with what desktop clients ask for (ETag, size,
    /// permissions, file id), whatever properties the request names.
    static func multistatus(_ entries: [(href: String, item: SimulatedFiles.Item)]) -> String {
        let responses = entries.map { entry in
            let item = entry.item
            let type =
                item.isFolder
                ? "<d:resourcetype><d:collection/></d:resourcetype><oc:permissions>RDNVCK</oc:permissions>"
                : "<d:resourcetype/><d:getcontentlength>\(item.contents.count)</d:getcontentlength><d:getcontenttype>text/plain</d:getcontenttype><oc:permissions>RDNVW</oc:permissions>"
            return "<d:response><d:href>\(entry.href)</d:href><d:propstat><d:prop>\(type)<d:getetag>\(etag(item))</d:getetag>"
                + "<d:getlastmodified>\(httpDate(item.modified))</d:getlastmodified><oc:size>\(item.contents.count)</oc:size>"
                + "<oc:id>\(String(format: "%08docsimulator", item.fileID))</oc:id><oc:fileid>\(item.fileID)</oc:fileid></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
        }
        return """
            <?xml version="1.0"?>
            <d:multistatus xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns">\(responses.joined())</d:multistatus>
            """
    }
}

import Foundation
import Testing

@testable import VigilAccounts

/// The file a probe downloads comes only from paths under the listed root on the same origin: a
/// hostile listing cannot aim the credentials elsewhere.
@Suite("Files probe: which file is downloaded")
struct FilesProbeTests {
    let root = "/remote.php/dav/files/alice/"

    func listing(_ hrefs: [(String, Bool)]) -> [UInt8] {
        let responses = hrefs.map { href, folder in
            "<d:response><d:href>\(href)</d:href><d:propstat><d:prop><d:resourcetype>\(folder ? "<d:collection/>" : "")</d:resourcetype></d:prop></d:propstat></d:response>"
        }
        return Array(#"<?xml version="1.0"?><d:multistatus xmlns:d="DAV:">\#(responses.joined())</d:multistatus>"#.utf8)
    }

    @Test func theFirstFileUnderTheRootIsChosen() {
        let body = listing([(root, true), (root + "Documents/", true), (root + "welcome.txt", false), (root + "b.txt", false)])
        #expect(FilesProbe.firstFile(in: body, under: root) == root + "welcome.txt")
    }

    @Test func otherNamespacePrefixesAndAbsoluteHrefsOnTheSameOrigin() {
        let body = Array(
            #"<D:multistatus xmlns:D="DAV:"><D:response><D:href>https://cloud.test:8443/remote.php/dav/files/alice/a%20b.txt</D:href><D:propstat><D:prop><D:resourcetype/></D:prop></D:propstat></D:response></D:multistatus>"#
                .utf8)
        #expect(FilesProbe.firstFile(in: body, under: root, origin: "https://cloud.test:8443") == root + "a%20b.txt")
        #expect(FilesProbe.firstFile(in: body, under: root, origin: "https://other.test") == nil, "another origin's href is never used")
    }

    @Test func hostileHrefsAreIgnored() {
        for href in [
            "/remote.php/dav/files/bob/secret.txt", "//evil.test/x", "https://evil.test/remote.php/dav/files/alice/x",
            root + "../bob/x.txt", root + "./x", root + "a\u{0}b", root + "a b", "relative.txt",
            root + "%2e%2e/%2E%2E/other-app/x", root + "%2e/x", root + "a%2fb", root + "a%5c..%5cb", root + "..;/x", root + "a//b", root + "%zz",
        ] {
            #expect(FilesProbe.firstFile(in: listing([(href, false)]), under: root, origin: "https://cloud.test") == nil, "\(href)")
        }
        #expect(FilesProbe.firstFile(in: listing([(root + "folder", true)]), under: root) == nil, "a collection is not a file")
        #expect(FilesProbe.firstFile(in: Array("garbage <d:href>".utf8), under: root) == nil)
        #expect(FilesProbe.firstFile(in: [], under: root) == nil)
    }

    @Test func originKeepsPortAndBracketsIPv6() {
        #expect(FilesProbe.origin(of: "https://[::1]:8443/remote.php/") == "https://[::1]:8443")
        #expect(FilesProbe.origin(of: "https://cloud.test/x") == "https://cloud.test")
    }
}

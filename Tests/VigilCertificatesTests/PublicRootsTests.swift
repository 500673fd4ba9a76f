import Foundation
import Testing
import VigilTestSupport

@testable import VigilCertificates

/// Which roots are public: the quick lookup through /etc/ssl/certs' hashed links and the whole
/// list agree, and a root that is not in the list (the test root) is not public either way.
@Suite("Public roots", .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/ca-certificates/mozilla"), "needs ca-certificates"))
struct PublicRootsTests {
    @Test func theQuickLookupAndTheWholeListAgree() throws {
        let directory = "/usr/share/ca-certificates/mozilla"
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".crt") }.sorted()
        #expect(PublicRoots.isKnown && !names.isEmpty)
        for name in names.prefix(25) {
            let root = try #require(try Certificate.load(path: directory + "/" + name).first)
            #expect(PublicRoots.contains(root) == true, "\(name)")
            if let quick = PublicRoots.linkedLookup(root) { #expect(quick, "\(name): its hashed link leads to the list") }
            #expect(SystemAnchors.contains(der: root.derEncoded, inPEM: PublicRoots.pem), "\(name)")
        }
        let testRoot = try #require(try Certificate.load(path: TestPaths.testcert("root-ca.pem")).first)
        #expect(PublicRoots.contains(testRoot) == false)
        #expect(PublicRoots.linkedLookup(testRoot) == (PublicRoots.hashedLayout ? false : nil))
    }
}

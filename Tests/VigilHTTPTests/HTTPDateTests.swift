import CCurl
import Foundation
import Testing

@testable import VigilHTTP

/// A cookie's `Expires`: the three forms RFC 9110 says a recipient reads, in GMT, and nothing else.
@Suite("HTTP dates")
struct HTTPDateTests {
    @Test func theThreeFormsAreReadAndNothingElse() {
        let expected = Date(timeIntervalSince1970: 1_445_412_480)  // 2015-10-21 07:28:00 GMT
        #expect(CookieJar.httpDate("Wed, 21 Oct 2015 07:28:00 GMT") == expected)
        #expect(CookieJar.httpDate("Wednesday, 21-Oct-15 07:28:00 GMT") == expected)
        #expect(CookieJar.httpDate("Wed, 21-Oct-2015 07:28:00 GMT") == expected)
        #expect(CookieJar.httpDate("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        for broken in [
            "", "Wed, 21 Oct 2015 07:28:00", "Wed, 21 Foo 2015 07:28:00 GMT", "Wed, 32 Oct 2015 07:28:00 GMT", "Wed, 21 Oct 2015 24:00:00 GMT",
            "Wed, 21 Oct 2015 07:28:00 PST", "tomorrow", "Wed, 21 Oct 9999999999 07:28:00 GMT", "Wed, 21 Oct 1066 07:28:00 GMT",
        ] {
            #expect(CookieJar.httpDate(broken) == nil, "\(broken)")
        }
    }

    /// curl's error text quoting a URL with user information never shows it, whatever follows the
    /// `@` (a combining mark makes `@` and it one Character; the scrubber reads Unicode scalars).
    @Test func userInformationInCurlTextIsScrubbed() {
        let endpoint = Endpoint(host: "127.0.0.1", port: 443)
        for detail in ["proxy https://alice:s3cret@proxy.test:3128 refused", "at https://alice:s3cret@\u{301}host/ failed"] {
            let error = TLSProbe.error(for: CURLE_COULDNT_CONNECT, detail: detail, origin: endpoint.description, notTLS: false)
            #expect(!error.description.contains("s3cret"), "\(error)")
        }
    }
}

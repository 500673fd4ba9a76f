import CVigilPKI
import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

/// CVigilPKI's revocation functions on their own: the freshness rule every OCSP answer and CRL
/// meets, and the TLS Feature extension read for must-staple, which fails closed: what it cannot read
/// counts as a demand for a staple.
@Suite("Revocation in C")
struct RevocationCTests {
    /// (thisUpdate, nextUpdate, now, current): seconds; -1 is absent; 300 s of clock skew.
    static let windows: [(Int64, Int64, Int64, Bool)] = [
        (1_000, 2_000, 1_500, true),
        (1_000, 2_000, 2_300, true),  // past nextUpdate, within the skew
        (1_000, 2_000, 2_301, false),  // past nextUpdate and the skew
        (1_300, 2_000, 1_000, true),  // thisUpdate ahead by the skew
        (1_301, 2_000, 1_000, false),  // thisUpdate further ahead than the skew
        (-1, 2_000, 1_500, false),  // no thisUpdate
        (1_000, -1, 1_000 + 7 * 86_400, true),  // no nextUpdate: a week old at most
        (1_000, -1, 1_001 + 7 * 86_400, false),
    ]

    @Test(arguments: Self.windows)
    func anAnswerIsCurrentWithinItsWindow(this: Int64, next: Int64, now: Int64, current: Bool) {
        #expect((vigil_revocation_is_current(this, next, now) == 1) == current)
    }

    /// A certificate made by openssl(1) with the TLS Feature extension's value as given (hex DER).
    func certificate(tlsFeature: String?) throws -> Certificate {
        let directory = try TestPaths.temporaryDirectory()
        var arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-subj",
            "/CN=staple.test", "-days", "1",
        ]
        if let tlsFeature { arguments += ["-addext", "1.3.6.1.5.5.7.1.24=DER:\(tlsFeature)"] }
        try CommandRunner.openssl(arguments, in: directory)
        let pem = try String(contentsOf: directory.appendingPathComponent("cert.pem"), encoding: .utf8)
        return try #require(try Certificate.parsePEM(pem).first)
    }

    @Test(
        arguments: [
            (nil, false),
            ("30:03:02:01:05", true),  // status_request
            ("30:06:02:01:11:02:01:05", true),  // status_request_v2, then status_request
            ("30:03:02:01:11", false),  // status_request_v2 alone
            ("30:05:02:01:05", true),  // a length that does not add up: read as must-staple
            ("04:01:05", true),  // not a SEQUENCE
            ("30:04:02:02:00:05", true),  // 5 with a leading zero: not DER, so not readable
            ("30:00", false),  // no feature at all
            ("30:03:02:01:01:30:03:02:01:05", true),  // a second SEQUENCE after the first, demanding a staple
            ("30:03:02:01:01:00", true),  // a byte after the SEQUENCE
        ] as [(String?, Bool)])
    func mustStapleIsReadFromTheTLSFeature(value: String?, expected: Bool) throws {
        #expect(try certificate(tlsFeature: value).mustStaple == expected)
    }
}

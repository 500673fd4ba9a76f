internal import COpenSSL
import Foundation

/// The SHA-256 digests of the system trust store's certificates (OpenSSL's default CA file, or
/// `SSL_CERT_FILE`), read once when first needed: a root the user passes with `--ca-file` that is
/// also a public root is judged by the Web PKI profile, not as a private CA.
///
/// Only digests are needed, so the PEM blocks are base64-decoded and hashed, never parsed as
/// certificates: the whole Debian bundle takes about a millisecond this way, against some 60 ms
/// through X.509 parsing, which every `--ca-file` command paid at start-up.
enum SystemAnchors {
    static let digests: Set<[UInt8]> = {
        var paths: [String] = []
        if let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty { paths.append(file) }
        if let file = X509_get_default_cert_file() { paths.append(String(cString: file)) }
        paths.append("/etc/ssl/certs/ca-certificates.crt")
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let found = digests(ofPEM: String(decoding: data, as: UTF8.self))
            if !found.isEmpty { return found }
        }
        return []
    }()

    /// SHA-256 of each certificate block's DER in a PEM text.
    static func digests(ofPEM text: String) -> Set<[UInt8]> {
        var result: Set<[UInt8]> = []
        let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
        var rest = text[...]
        while let start = rest.range(of: begin), let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) {
            if let der = Data(base64Encoded: String(rest[start.upperBound..<stop.lowerBound]), options: .ignoreUnknownCharacters) {
                result.insert(sha256(Array(der)))
            }
            rest = rest[stop.upperBound...]
        }
        return result
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = bytes.withUnsafeBufferPointer { input in digest.withUnsafeMutableBufferPointer { SHA256(input.baseAddress, input.count, $0.baseAddress) } }
        return digest
    }

    static func contains(_ certificate: Certificate) -> Bool { digests.contains(sha256(certificate.derEncoded)) }
}

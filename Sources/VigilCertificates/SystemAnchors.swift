internal import COpenSSL
import FoundationEssentials
import Glibc

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
            let found = digests(ofPEM: [UInt8](data))
            if !found.isEmpty { return found }
        }
        return []
    }()

    /// SHA-256 of each certificate block's DER in a PEM text (scanned as bytes: the system
    /// bundle is 200 KB, read on every judgement by a CA file).
    static func digests(ofPEM text: [UInt8]) -> Set<[UInt8]> {
        var result: Set<[UInt8]> = []
        let begin = Array("-----BEGIN CERTIFICATE-----".utf8), end = Array("-----END CERTIFICATE-----".utf8)
        var position = 0
        while let start = find(begin, in: text, from: position), let stop = find(end, in: text, from: start + begin.count) {
            let body = text[(start + begin.count)..<stop].filter { $0 != 0x0A && $0 != 0x0D && $0 != 0x20 && $0 != 0x09 }
            if let der = Data(base64Encoded: Data(body)) { result.insert(sha256(Array(der))) }
            position = stop + end.count
        }
        return result
    }

    /// The index of `needle` in `haystack` at or after `from`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = from
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = bytes.withUnsafeBufferPointer { input in digest.withUnsafeMutableBufferPointer { SHA256(input.baseAddress, input.count, $0.baseAddress) } }
        return digest
    }

    static func contains(_ certificate: Certificate) -> Bool { digests.contains(sha256(certificate.derEncoded)) }
}

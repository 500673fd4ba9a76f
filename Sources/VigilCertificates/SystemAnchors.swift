internal import COpenSSL
import Foundation

/// The fingerprints of the system trust store's certificates (OpenSSL's default CA file, or
/// `SSL_CERT_FILE`), read once when first needed: a root the user passes with `--ca-file` that is
/// also a public root is judged by the Web PKI profile, not as a private CA.
enum SystemAnchors {
    static let fingerprints: Set<String> = {
        var paths: [String] = []
        if let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty { paths.append(file) }
        if let file = X509_get_default_cert_file() { paths.append(String(cString: file)) }
        paths.append("/etc/ssl/certs/ca-certificates.crt")
        for path in paths where FileManager.default.fileExists(atPath: path) {
            if let certificates = try? Certificate.load(path: path), !certificates.isEmpty {
                return Set(certificates.map(\.sha256Fingerprint))
            }
        }
        return []
    }()

    static func contains(_ certificate: Certificate) -> Bool { fingerprints.contains(certificate.sha256Fingerprint) }
}

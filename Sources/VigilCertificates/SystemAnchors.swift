internal import COpenSSL
import FoundationEssentials

/// The system trust store's certificates (OpenSSL's default CA file, or `SSL_CERT_FILE`), read
/// once when first needed: a root the user passes with `--ca-file` that is also a public root is
/// judged by the Web PKI profile, not as a private CA.
///
/// Only "is this certificate one of them" is asked, so the bundle is never parsed as X.509 nor
/// hashed whole: each PEM block's decoded length follows from its base64 characters, and only a
/// block as long as the certificate asked about is decoded and compared byte for byte. The Debian
/// bundle (200 KB) is one scan of bytes this way, on the path of every judgement by a CA file.
enum SystemAnchors {
    /// The first bundle that holds a certificate block that decodes: `SSL_CERT_FILE`, OpenSSL's
    /// default file, then Debian's path (a truncated or broken file does not hide the next). Empty
    /// when none does.
    static let bundle: [UInt8] = {
        var paths: [String] = []
        if let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty { paths.append(file) }
        if let file = X509_get_default_cert_file() { paths.append(String(cString: file)) }
        paths.append("/etc/ssl/certs/ca-certificates.crt")
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = [UInt8](data)
            if PEMBlocks(bytes).contains(where: { $0.isComplete && $0.der?.isEmpty == false }) { return bytes }
        }
        return []
    }()

    /// True when the system bundle holds exactly this certificate (the same DER).
    static func contains(_ certificate: Certificate) -> Bool { contains(der: certificate.derEncoded, inPEM: bundle) }

    /// True when a certificate block of `text` decodes to exactly `der`.
    static func contains(der: [UInt8], inPEM text: [UInt8]) -> Bool {
        PEMBlocks(text).contains { $0.isComplete && $0.decodedLength == der.count && $0.der == der }
    }
}

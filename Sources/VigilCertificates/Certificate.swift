internal import COpenSSL
import FoundationEssentials
import Glibc

/// An immutable X.509 certificate, parsed by system OpenSSL.
///
/// Two certificates are equal when their DER encodings are equal.
public struct Certificate: Sendable, Hashable {
    let storage: Storage

    /// The DER encoding: the bytes received, or OpenSSL's re-encoding of them where they were
    /// not strict DER (a length with leading zero bytes, say), which is also what a TLS handshake's
    /// capture holds. One certificate has one encoding, and so one fingerprint, however it came.
    public var derEncoded: [UInt8] { storage.der }

    /// Parses one DER-encoded certificate. Trailing bytes after the certificate are an error.
    public init(derEncoded bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { throw CertificateError(.emptyInput, "The input is empty.") }
        var consumed = 0
        let x509: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let parsed = d2i_X509(nil, &cursor, buffer.count)
            if let cursor, let base = buffer.baseAddress { consumed = cursor - base }
            return parsed
        }
        guard let x509 else {
            let detail = OpenSSLSupport.drainErrors().map { " (\($0))" } ?? ""
            throw CertificateError(.malformedDER, "The data is not a valid DER certificate: truncated or malformed\(detail).")
        }
        guard consumed == bytes.count else {
            X509_free(x509)
            throw CertificateError(.malformedDER, "The DER certificate is followed by \(bytes.count - consumed) unexpected bytes.")
        }
        self.storage = Storage(owning: x509, der: Self.canonical(x509, received: bytes))
    }

    /// `received` when OpenSSL encodes the parsed certificate to the same bytes (strict DER: the
    /// usual case), else OpenSSL's encoding. The signed part is kept as received either way.
    static func canonical(_ x509: OpaquePointer, received: [UInt8]) -> [UInt8] {
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &der)
        defer { vigil_OPENSSL_free(der) }
        guard length > 0, let der else { return received }
        let encoded = UnsafeBufferPointer(start: der, count: Int(length))
        return encoded.elementsEqual(received) ? received : Array(encoded)
    }

    /// Takes a reference to an OpenSSL certificate (the caller keeps its own).
    init(retaining x509: OpaquePointer) {
        X509_up_ref(x509)
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &der)
        let bytes = (length > 0 && der != nil) ? Array(UnsafeBufferPointer(start: der, count: Int(length))) : []
        vigil_OPENSSL_free(der)
        self.storage = Storage(owning: x509, der: bytes)
    }

    /// Parses every certificate in PEM text (`-----BEGIN CERTIFICATE-----` blocks, in order).
    ///
    /// Other PEM blocks (keys, CRLs) are skipped. Throws when no certificate is found or a
    /// certificate block does not decode.
    public static func parsePEM(_ text: String) throws -> [Certificate] {
        var certificates: [Certificate] = []
        for (offset, block) in PEMBlocks(Array(text.utf8)).enumerated() {
            let index = offset + 1
            guard block.isComplete else {
                throw CertificateError(.malformedPEM, "PEM certificate \(index) has no END line (the file is truncated).")
            }
            guard let der = block.der, !der.isEmpty else {
                throw CertificateError(.malformedPEM, "PEM certificate \(index) is not valid base64.")
            }
            do {
                certificates.append(try Certificate(derEncoded: der))
            } catch let error as CertificateError {
                throw CertificateError(.malformedPEM, "PEM certificate \(index): \(error.reason)")
            }
        }
        guard !certificates.isEmpty else {
            throw CertificateError(.noCertificates, "No PEM certificate found (expected a -----BEGIN CERTIFICATE----- block).")
        }
        return certificates
    }

    /// Parses PEM (one or many certificates) or a single DER certificate, by content.
    public static func parse(_ bytes: [UInt8]) throws -> [Certificate] {
        guard !bytes.isEmpty else { throw CertificateError(.emptyInput, "The input is empty.") }
        if bytes.first == 0x30 {
            return [try Certificate(derEncoded: bytes)]
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CertificateError(.malformedDER, "The data is neither PEM text nor a DER certificate.")
        }
        return try parsePEM(text)
    }

    /// Loads certificates from a PEM or DER file.
    public static func load(path: String) throws -> [Certificate] {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw CertificateError(.unreadableFile, "\(path): no such file.")
        }
        guard status.st_mode & S_IFMT != S_IFDIR else {
            throw CertificateError(.unreadableFile, "\(path): is a directory, not a certificate file.")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw CertificateError(.unreadableFile, "\(path): is not a regular file (a pipe or a device?), not a certificate file.")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CertificateError(.unreadableFile, "\(path): cannot be read (permission denied?).")
        }
        do {
            return try parse([UInt8](data))
        } catch let error as CertificateError {
            throw CertificateError(error.code, "\(path): \(error.reason)")
        }
    }

    /// PEM text for this certificate.
    public var pemEncoded: String {
        let base64 = Data(derEncoded).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }

    /// Certificates are equal when their DER bytes are.
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.storage.der == rhs.storage.der }
    /// Hashes the DER bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(storage.der) }

    /// Owns one OpenSSL `X509`.
    // @unchecked Sendable: the X509 is never mutated after parsing; OpenSSL guards its lazily
    // computed extension cache with its own lock, so concurrent reads are safe.
    final class Storage: @unchecked Sendable {
        let x509: OpaquePointer
        let der: [UInt8]
        init(owning x509: OpaquePointer, der: [UInt8]) {
            self.x509 = x509
            self.der = der
        }
        deinit { X509_free(x509) }
    }
}

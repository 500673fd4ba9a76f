internal import COpenSSL
internal import CVigilPKI
import FoundationEssentials
import Glibc

/// One certificate revocation list (RFC 5280 section 5), parsed by OpenSSL: given offline
/// (`--crl-file`) or fetched from a distribution point. What it says about a certificate is
/// ``CRLEvaluation``'s to decide, for the whole path at once.
public struct RevocationList: Sendable, Hashable {
    /// The CRL's issuer (RFC 2253).
    public var issuer: String { Certificate.distinguishedName(X509_CRL_get_issuer(storage.crl)) }
    /// The CRL carries a CRL number (RFC 5280 5.2.3 requires one).
    public var hasNumber: Bool { vigil_crl_has_number(storage.crl) == 1 }
    /// The DER encoding.
    public var der: [UInt8] { storage.der }
    /// Where this complete CRL's delta CRLs are (freshestCRL, RFC 5280 5.2.6), http(s) only.
    public var deltaCRLURLs: [String] {
        Certificate.distributionPointNames(X509_CRL_get_ext_d2i(storage.crl, NID_freshest_crl, nil, nil)).filter(Certificate.isFetchable)
    }

    let storage: Storage

    /// Every CRL in `bytes`: one DER CRL, or any number of PEM blocks. Throws
    /// ``CertificateError/Code/malformedCRL`` when there is none, or when a block cannot be read.
    public static func parse(_ bytes: [UInt8]) throws -> [RevocationList] {
        if let crl = bytes.withUnsafeBufferPointer({ vigil_crl_from_der($0.baseAddress, $0.count) }) {
            return [RevocationList(storage: Storage(owning: crl))]
        }
        // PEM: every block, in order; a file with an unreadable block is refused whole.
        let marker = Array("-----BEGIN X509 CRL-----".utf8)
        var blocks = 0
        var offset = 0
        while let found = PEMBlocks.find(marker, in: bytes, from: offset) {
            blocks += 1
            offset = found + marker.count
        }
        var lists: [RevocationList] = []
        bytes.withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return }
            defer { BIO_free(bio) }
            while let crl = PEM_read_bio_X509_CRL(bio, nil, nil, nil) { lists.append(RevocationList(storage: Storage(owning: crl))) }
        }
        OpenSSLSupport.drainErrors()
        guard blocks > 0 else { throw CertificateError(.malformedCRL, "No CRL was found (neither DER nor a PEM \"X509 CRL\" block).") }
        guard lists.count == blocks else {
            throw CertificateError(.malformedCRL, "PEM CRL \(lists.count + 1) of \(blocks) cannot be read.")
        }
        return lists
    }

    /// The same CRL: the same DER.
    public static func == (lhs: RevocationList, rhs: RevocationList) -> Bool { lhs.storage.der == rhs.storage.der }
    /// Hashes the DER bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(storage.der) }

    /// Owns one OpenSSL `X509_CRL`.
    // @unchecked Sendable: never mutated after parsing; OpenSSL guards the CRL's lazily computed
    // caches (its IDP flags, the sorted revoked list) with its own lock.
    final class Storage: @unchecked Sendable {
        let crl: OpaquePointer
        let der: [UInt8]
        init(owning crl: OpaquePointer) {
            self.crl = crl
            var pointer: UnsafeMutablePointer<UInt8>?
            let length = i2d_X509_CRL(crl, &pointer)
            if length > 0, let pointer {
                der = Array(UnsafeBufferPointer(start: pointer, count: Int(length)))
                vigil_OPENSSL_free(pointer)
            } else {
                der = []
            }
        }
        deinit { X509_CRL_free(crl) }
    }
}

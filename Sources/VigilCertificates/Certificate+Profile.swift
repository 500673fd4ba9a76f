internal import COpenSSL
import FoundationEssentials
import Glibc

/// Raw facts the strict profile reads from a certificate.
extension Certificate {
    /// The critical flag of the extension with `nid`, or nil when absent.
    func criticality(of nid: Int32) -> Bool? {
        let index = X509_get_ext_by_NID(storage.x509, nid, -1)
        guard index >= 0, let ext = X509_get_ext(storage.x509, index) else { return nil }
        return X509_EXTENSION_get_critical(ext) == 1
    }

    var hasExtendedKeyUsage: Bool { criticality(of: NID_ext_key_usage) != nil }
    var hasAnyExtendedKeyUsage: Bool {
        guard let stack = X509_get_ext_d2i(storage.x509, NID_ext_key_usage, nil, nil) else { return false }
        defer { vigil_EXTENDED_KEY_USAGE_free(stack) }
        return (0..<vigil_sk_num(stack)).contains { OBJ_obj2nid(OpaquePointer(vigil_sk_value(stack, $0))) == NID_anyExtendedKeyUsage }
    }

    /// Names of extensions OpenSSL knows but cannot decode.
    var malformedExtensions: [String] {
        (0..<max(0, X509_get_ext_count(storage.x509))).compactMap { index in
            guard let ext = X509_get_ext(storage.x509, index) else { return nil }
            defer { OpenSSLSupport.drainErrors() }
            return vigil_extension_decodes(ext) == 0 ? OpenSSLSupport.name(of: X509_EXTENSION_get_object(ext)) : nil
        }
    }

    /// Serial number as signed big-endian content octets.
    var serialOctets: [UInt8] {
        let hex = serialHex
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    /// Name constraints: nil when absent; DNS bases of the permitted and excluded subtrees, and
    /// how many subtrees of any kind each has.
    var nameConstraints: (permittedDNS: [String], excludedDNS: [String], permittedCount: Int, excludedCount: Int)? {
        guard let nc = X509_get_ext_d2i(storage.x509, NID_name_constraints, nil, nil) else { return nil }
        defer { vigil_NAME_CONSTRAINTS_free(nc) }
        func dns(_ stack: UnsafeMutableRawPointer?) -> [String] {
            guard let stack else { return [] }
            return (0..<vigil_sk_num(stack)).compactMap { index in
                guard let subtree = vigil_sk_value(stack, index), let base = vigil_general_subtree_base(subtree) else { return nil }
                let name = Self.generalName(base)
                return name.kind == GEN_DNS ? name.text : nil
            }
        }
        let permitted = vigil_name_constraints_permitted(nc)
        let excluded = vigil_name_constraints_excluded(nc)
        return (dns(permitted), dns(excluded), Int(vigil_sk_num(permitted)), Int(vigil_sk_num(excluded)))
    }

    /// True when an authorityKeyIdentifier extension is present without its keyIdentifier.
    var hasAuthorityKeyIdentifierWithoutKeyID: Bool {
        criticality(of: NID_authority_key_identifier) != nil && X509_get0_authority_key_id(storage.x509) == nil
    }

    /// Subject common names, as stored.
    var commonNames: [String] {
        guard let subject = X509_get_subject_name(storage.x509) else { return [] }
        var names: [String] = []
        var position: Int32 = -1
        while true {
            position = X509_NAME_get_index_by_NID(subject, NID_commonName, position)
            if position < 0 { return names }
            let entry = X509_NAME_get_entry(subject, position)
            names.append(String(decoding: OpenSSLSupport.bytes(of: X509_NAME_ENTRY_get_data(entry)), as: UTF8.self))
        }
    }

    var subjectIsEmpty: Bool { X509_NAME_entry_count(X509_get_subject_name(storage.x509)) == 0 }
}

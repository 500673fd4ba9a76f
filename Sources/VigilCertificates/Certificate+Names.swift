internal import COpenSSL

/// Whether a certificate names a host: by its SANs only, as Vigil matches (no CN fallback, no
/// partial wildcards), and whether only its subject's CN does (the legacy fallback refused).
extension Certificate {
    /// True when the SANs match `name` (no CN fallback, no partial wildcards).
    public func matches(_ name: PeerName) -> Bool { matches(name, flags: UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT)) }

    func matches(_ name: PeerName, flags: UInt32) -> Bool {
        let x = storage.x509
        let allFlags = flags | UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS)
        switch name.kind {
        case .dns: return X509_check_host(x, name.value, name.value.utf8.count, allFlags, nil) == 1
        case .ip: return X509_check_ip_asc(x, name.value, allFlags) == 1
        case .email: return X509_check_email(x, name.value, name.value.utf8.count, allFlags) == 1
        }
    }

    /// True when only the subject CN, not a SAN, names `name` (the legacy fallback Vigil refuses).
    func matchesOnlyThroughCommonName(_ name: PeerName) -> Bool {
        if matches(name) { return false }
        if name.kind == .dns, matches(name, flags: UInt32(X509_CHECK_FLAG_ALWAYS_CHECK_SUBJECT)) { return true }
        // OpenSSL never checks a CN for IPs: compare the CN text itself.
        var position: Int32 = -1
        guard let subject = X509_get_subject_name(storage.x509) else { return false }
        while true {
            position = X509_NAME_get_index_by_NID(subject, NID_commonName, position)
            if position < 0 { return false }
            let entry = X509_NAME_get_entry(subject, position)
            let value = String(decoding: OpenSSLSupport.bytes(of: X509_NAME_ENTRY_get_data(entry)), as: UTF8.self)
            if value.lowercased() == name.value.lowercased() { return true }
        }
    }
}

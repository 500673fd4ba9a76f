internal import COpenSSL

extension Certificate {
    /// The signature's digest and strength as OpenSSL reads them (`X509_get_signature_info`),
    /// parameters included (RSASSA-PSS names its hash only there): the digest's short name (nil
    /// when OpenSSL cannot tell) and the security bits (0 when unknown).
    public var signatureDigest: (name: String?, securityBits: Int) {
        let digest = signatureDigestFacts
        return (digest.name, digest.securityBits)
    }

    /// The signature's digest as OpenSSL reads it, parameters included (RSASSA-PSS names its hash
    /// only there): its NID, name and security bits (0 when OpenSSL cannot tell).
    var signatureDigestFacts: SignatureDigestFacts {
        var mdnid: Int32 = 0, pknid: Int32 = 0, secbits: Int32 = 0
        var flags: UInt32 = 0
        if X509_get_signature_info(storage.x509, &mdnid, &pknid, &secbits, &flags) != 1 {
            // OpenSSL cannot analyse a signature whose digest it was built without (MD2, MDC-2,
            // SHA-0 in OpenSSL 3.0): the signature algorithm's own OID still names the digest.
            secbits = 0
            if OBJ_find_sigid_algs(X509_get_signature_nid(storage.x509), &mdnid, &pknid) != 1 {
                mdnid = NID_undef
                pknid = NID_undef
            }
        }
        let name = mdnid == NID_undef ? nil : OBJ_nid2sn(mdnid).map { String(cString: $0) }
        let kind: SignatureDigestFacts.Kind
        switch mdnid {
        case NID_sha1, NID_sha: kind = .sha1
        case NID_md5, NID_md4, NID_md2, NID_mdc2, NID_ripemd160: kind = .broken
        case NID_undef: kind = (pknid == NID_ED25519 || pknid == NID_ED448) && secbits > 0 ? .intrinsic : .unknown
        default: kind = .modern
        }
        return SignatureDigestFacts(kind: kind, name: name, securityBits: Int(secbits))
    }

    /// Self-signed, with the signature checked (not only the names and key identifiers).
    public var isVerifiedSelfSigned: Bool { X509_self_signed(storage.x509, 1) == 1 }
}

extension Certificate {
    /// `issuer`'s key verifies this certificate's signature, whatever `issuer` is allowed to sign
    /// (key usage and basic constraints are not looked at: a forgery is found by this).
    public func isSignatureVerified(byKeyOf issuer: Certificate) -> Bool {
        guard let key = X509_get0_pubkey(issuer.storage.x509) else { return false }
        let verified = X509_verify(storage.x509, key) == 1
        OpenSSLSupport.drainErrors()
        return verified
    }

    /// `issuer` names this certificate's issuer and its key verifies this certificate's signature.
    public func isCryptographicallySigned(by issuer: Certificate) -> Bool {
        guard isSigned(by: issuer), let key = X509_get0_pubkey(issuer.storage.x509) else { return false }
        return X509_verify(storage.x509, key) == 1
    }
}

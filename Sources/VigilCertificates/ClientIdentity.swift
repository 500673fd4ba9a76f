internal import COpenSSL
internal import CVigilPKI
public import FoundationEssentials
import Glibc
import VigilText

/// A client certificate and its key (mutual TLS): what an account presents to a server that asks
/// for one, and only there. Read from PKCS#12, PEM (the certificate, its chain and the key) or a
/// PEM/DER certificate with the key in a file of its own; reviewed like a server chain before it
/// is kept (``review(at:)``, ``refusals(at:)``).
public struct ClientIdentity: Sendable {
    /// The certificate first, then the chain that came with it.
    public let chain: [Certificate]
    /// The client certificate's private key.
    public let key: ClientKey

    /// An identity from `chain` (the client certificate first; must not be empty) and `key`; nothing is checked.
    public init(chain: [Certificate], key: ClientKey) {
        self.chain = chain
        self.key = key
    }

    /// The client certificate.
    public var certificate: Certificate { chain[0] }

    /// Reads an identity from `bytes` (PKCS#12, PEM or DER) and `keyBytes` (a separate PEM or DER
    /// key; nil: the key is in `bytes`), opening what is encrypted with `passphrase`. OpenSSL
    /// never prompts: an encrypted file without a passphrase is ``ClientIdentityError/Code-swift.struct/passphraseNeeded``.
    public static func read(_ bytes: [UInt8], key keyBytes: [UInt8]? = nil, passphrase: String? = nil) throws(ClientIdentityError) -> ClientIdentity {
        guard !bytes.isEmpty else { throw ClientIdentityError(.unreadable, "The client certificate file is empty.") }
        var out = vigil_identity()
        let status: Int32 = bytes.withUnsafeBufferPointer { data in
            let call = { (key: UnsafeBufferPointer<UInt8>?) -> Int32 in
                if let passphrase {
                    return passphrase.withCString {
                        vigil_identity_load(data.baseAddress, data.count, key?.baseAddress, key?.count ?? 0, $0, &out)
                    }
                }
                return vigil_identity_load(data.baseAddress, data.count, key?.baseAddress, key?.count ?? 0, nil, &out)
            }
            if let keyBytes { return keyBytes.withUnsafeBufferPointer { call($0) } }
            return call(nil)
        }
        defer { vigil_identity_release(&out) }
        switch Int(status) {
        case VIGIL_IDENTITY_OK: break
        case VIGIL_IDENTITY_BAD_PASSPHRASE:
            throw ClientIdentityError(.wrongPassphrase, "The passphrase does not open the client certificate or its key.")
        case VIGIL_IDENTITY_PASSPHRASE_NEEDED:
            throw ClientIdentityError(.passphraseNeeded, "The client certificate or its key is encrypted: give its passphrase.")
        case VIGIL_IDENTITY_NO_KEY:
            throw ClientIdentityError(.noKey, "No private key was found for the client certificate: give it with --client-key FILE.")
        case VIGIL_IDENTITY_KEY_MISMATCH:
            throw ClientIdentityError(.keyMismatch, "The private key does not belong to the client certificate.")
        case VIGIL_IDENTITY_NO_CERTIFICATE:
            throw ClientIdentityError(.noCertificate, "The file holds no certificate.")
        default:
            throw ClientIdentityError(.unreadable, "The client certificate file is neither PKCS#12 nor PEM nor DER that OpenSSL can read.")
        }
        var chain: [Certificate] = []
        let count = Int(out.count)
        let ders = withUnsafeBytes(of: out.der) { Array($0.bindMemory(to: UnsafeMutablePointer<UInt8>?.self).prefix(count)) }
        let lengths = withUnsafeBytes(of: out.der_len) { Array($0.bindMemory(to: Int32.self).prefix(count)) }
        for (der, length) in zip(ders, lengths) {
            guard let der, length > 0 else { continue }
            guard let certificate = try? Certificate(derEncoded: Array(UnsafeBufferPointer(start: der, count: Int(length)))) else {
                throw ClientIdentityError(.unreadable, "A certificate in the file cannot be read.")
            }
            chain.append(certificate)
        }
        guard !chain.isEmpty, let pem = out.key_pem else { throw ClientIdentityError(.unreadable, "The client certificate file cannot be read.") }
        let key = ClientKey(pem: String(decoding: UnsafeRawBufferPointer(start: pem, count: out.key_len), as: UTF8.self))
        return ClientIdentity(chain: chain, key: key)
    }

    /// An identity whose key is on a token: the certificate (and chain) from `certificate` (PEM or
    /// DER), the key named by `uri` (RFC 7512, `pkcs11:token=...;object=...`; a `pin-value` in it
    /// is taken out and used as the PIN), unlocked with `pin`. The key never leaves the token.
    public static func read(_ certificate: [UInt8], tokenURI uri: String, pin: String?) throws(ClientIdentityError) -> ClientIdentity {
        let chain: [Certificate]
        do { chain = try Certificate.parse(certificate) } catch {
            throw ClientIdentityError(.noCertificate, "The client certificate file holds no certificate.")
        }
        guard let leaf = chain.first else { throw ClientIdentityError(.noCertificate, "The client certificate file holds no certificate.") }
        // RFC 7512: path attributes after ';', query attributes after '?' (pin-value is a query
        // attribute; some tools write it in the path). The PIN is taken out of the URI, which is
        // shown in errors and kept in the clear.
        var (uri, pin) = (uri, pin)
        var query: [String] = []
        if let mark = uri.firstIndex(of: "?") {
            query = uri[uri.index(after: mark)...].split(separator: "&").map(String.init)
            uri = String(uri[..<mark])
        }
        let parts = uri.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        if let given = (parts + query).first(where: { $0.hasPrefix("pin-value=") }) {
            pin = pin ?? PercentEncoding.decode(given.dropFirst("pin-value=".count))
        }
        uri = parts.filter { !$0.hasPrefix("pin-value=") }.joined(separator: ";")
        let kept = query.filter { !$0.hasPrefix("pin-value=") && !$0.hasPrefix("pin-source=") }
        if !kept.isEmpty { uri += "?" + kept.joined(separator: "&") }
        var status: Int32 = 0
        let key: OpaquePointer? =
            if let pin { pin.withCString { vigil_token_key(uri, $0, &status) } } else { vigil_token_key(uri, nil, &status) }
        guard let key else {
            if status == 1 {
                throw ClientIdentityError(
                    .unreadable, "OpenSSL's pkcs11 engine cannot be loaded: install Debian's libengine-pkcs11-openssl (and the token's PKCS#11 module).")
            }
            throw ClientIdentityError(.noKey, "The token has no key at \(uri), or refused the PIN.")
        }
        // Loaded once here to prove it opens and belongs to the certificate; loaded again where
        // it is used (the TLS connection), so that no OpenSSL object outlives this call.
        defer { vigil_EVP_PKEY_free(key) }
        guard vigil_key_matches(leaf.storage.x509, key) == 1 else {
            throw ClientIdentityError(.keyMismatch, "The key on the token does not belong to the client certificate.")
        }
        return ClientIdentity(chain: chain, key: ClientKey(tokenURI: uri, pin: pin))
    }

    /// An identity kept before: its chain, and its key as ``ClientKey/withStoredForm(_:)`` wrote
    /// it (the PEM, or a token's URI and `pin:` line; the token is opened again here).
    public static func restored(chain: [Certificate], chainPEM: String, storedKey: String) throws(ClientIdentityError) -> ClientIdentity {
        guard storedKey.hasPrefix("pkcs11:") else { return ClientIdentity(chain: chain, key: ClientKey(pem: storedKey)) }
        let lines = storedKey.split(separator: "\n").map(String.init)
        return try read(Array(chainPEM.utf8), tokenURI: lines.first ?? "", pin: lines.first { $0.hasPrefix("pin: ") }.map { String($0.dropFirst(5)) })
    }

    /// What the user reviews before the identity is kept: subject and issuer, validity and days
    /// left, key type and size, key usage and extended key usage, SHA-256.
    public func review(at time: Date = Date()) -> ClientCertificateReview {
        ClientCertificateReview(chain: chain, at: time)
    }

    /// Why this identity cannot be used, in the words and codes of the server rules where they
    /// apply: expired or not yet valid; an extended key usage without clientAuth; a key or a
    /// signature that no server certificate could be approved with. Empty: usable.
    public func refusals(at time: Date = Date()) -> [ApprovalRule.Refusal] {
        var refusals: [ApprovalRule.Refusal] = []
        if let notAfter = certificate.notAfter, time > notAfter {
            refusals.append(.init(code: .expired, message: "The client certificate expired on \(Certificate.iso8601(notAfter))."))
        }
        if let notBefore = certificate.notBefore, time < notBefore {
            refusals.append(.init(code: .notYetValid, message: "The client certificate is not valid before \(Certificate.iso8601(notBefore))."))
        }
        if let usages = certificate.extendedKeyUsage, !usages.contains("clientAuth"), !usages.contains("anyExtendedKeyUsage") {
            refusals.append(
                .init(
                    code: .wrongPurpose,
                    message: "The certificate's extended key usage (\(usages.joined(separator: ", "))) does not include client authentication."))
        }
        let key = certificate.publicKey
        let isJudged = if case .other = key.algorithm { false } else { key.bits > 0 }
        if !isJudged || (key.algorithm.isFiniteField && key.bits < 2048) || (key.algorithm == .ec && key.bits < 224) {
            refusals.append(.init(code: .weakKey, message: "The client certificate has a \(key.bits)-bit \(key.algorithm.name) key, which can be broken."))
        }
        let digest = certificate.signatureDigestFacts
        if !certificate.isVerifiedSelfSigned, digest.kind == .sha1 || digest.kind == .broken || digest.securityBits < 112 {
            refusals.append(
                .init(code: .weakSignature, message: "The client certificate is signed with a digest that can be forged (\(digest.name ?? "unknown"))."))
        }
        return refusals
    }
}

/// A client certificate as the user reviews it.
public struct ClientCertificateReview: Sendable, Hashable, Codable {
    /// Subject DN of the client certificate.
    public var subject: String
    /// Issuer DN of the client certificate.
    public var issuer: String
    /// Start of validity, ISO 8601 UTC.
    public var notBefore: String
    /// End of validity, ISO 8601 UTC.
    public var notAfter: String
    /// Whole days left at the review time (negative once expired).
    public var daysLeft: Int
    /// Key type and size (`EC 256 (prime256v1)`, `RSA 2048`).
    public var key: String
    /// Key usage names; empty when the extension is absent.
    public var keyUsage: [String]
    /// Extended key usage names; empty when the extension is absent.
    public var extendedKeyUsage: [String]
    /// SHA-256 of the client certificate's DER, colon-separated upper-case hex.
    public var sha256: String
    /// Certificates in the file: the client's and those of its chain.
    public var chainLength: Int

    /// The review of a client certificate (first) and its chain; the key is not needed to show it.
    public init(chain: [Certificate], at time: Date = Date()) {
        let certificate = chain[0]
        let summary = certificate.summary(at: time)
        subject = summary.subject
        issuer = summary.issuer
        notBefore = summary.validity.notBefore
        notAfter = summary.validity.notAfter
        daysLeft = summary.validity.daysLeft
        let publicKey = summary.publicKey
        key = publicKey.curve.map { "\(publicKey.algorithm) \(publicKey.bits) (\($0))" } ?? "\(publicKey.algorithm) \(publicKey.bits)"
        keyUsage = summary.keyUsage ?? []
        extendedKeyUsage = summary.extendedKeyUsage ?? []
        sha256 = certificate.sha256Fingerprint
        chainLength = chain.count
    }
}

import FoundationEssentials
import Glibc

/// Checks Vigil adds on top of OpenSSL's `X509_V_FLAG_X509_STRICT`, where RFC 5280 and the
/// CA/Browser Forum baseline requirements (the "web PKI" profile) demand more than OpenSSL
/// enforces. Each failed rule (a ``ProfileRule``) is one ``TrustReason`` with its `profile-` code.
///
/// Servers with certificates outside this profile (a private CA without EKU, say) are still
/// usable: the user reviews and approves the certificate instead of trusting it silently.
enum StrictProfile {
    static func check(chain: [Certificate], peerName: PeerName?, purpose: TrustEvaluator.Purpose, alreadyFound: [TrustReason]) -> [TrustReason] {
        var reasons: [TrustReason] = []
        func fail(_ rule: ProfileRule, _ message: String, _ depth: Int, _ certificate: Certificate) {
            let reason = TrustReason(code: rule.code, message: message, depth: depth, subject: certificate.subject)
            if !reasons.contains(reason) { reasons.append(reason) }
        }
        for (depth, certificate) in chain.enumerated() {
            let who = depth == 0 ? "The server certificate" : "The certificate at depth \(depth) (\(certificate.subject))"
            let isAnchor = depth == chain.count - 1 && depth > 0
            checkEncoding(certificate, who: who, isAnchor: isAnchor) { fail($0, $1, depth, certificate) }
            checkKey(certificate, who: who) { fail($0, $1, depth, certificate) }
            if depth == 0 {
                checkLeaf(certificate, who: who, purpose: purpose) { fail($0, $1, depth, certificate) }
            } else {
                checkCA(certificate, who: who, isAnchor: isAnchor) { fail($0, $1, depth, certificate) }
            }
        }
        if let leaf = chain.first {
            checkNameConstraints(leaf: leaf, issuers: chain.dropFirst()) { fail($0, $1, 0, leaf) }
        }
        return reasons
    }

    static func checkEncoding(_ certificate: Certificate, who: String, isAnchor: Bool, fail: (ProfileRule, String) -> Void) {
        // Long-lived roots predate the serial rules (Starfield G2 has serial 0); an anchor is
        // trusted by configuration, so only issued certificates are held to them.
        if !isAnchor {
            let serial = certificate.serialOctets
            if serial.count > 20 {
                fail(.serialTooLong, "\(who) has a serial number of \(serial.count) octets; RFC 5280 allows at most 20.")
            } else if serial.allSatisfy({ $0 == 0 }) {
                fail(.serialZero, "\(who) has serial number zero, which RFC 5280 forbids.")
            } else if let first = serial.first, first & 0x80 != 0 {
                fail(.serialNegative, "\(who) has a negative serial number, which RFC 5280 forbids.")
            }
        }
        for name in certificate.malformedExtensions {
            fail(.malformedExtension, "\(who) has a malformed \(name) extension.")
        }
        if certificate.hasAuthorityKeyIdentifierWithoutKeyID {
            fail(.authorityKeyIDWithoutKeyID, "\(who) has an authority key identifier without the keyIdentifier field.")
        }
    }

    static func checkKey(_ certificate: Certificate, who: String, fail: (ProfileRule, String) -> Void) {
        let key = certificate.publicKey
        switch key.algorithm {
        case .dsa:
            fail(.forbiddenKey, "\(who) has a DSA key; the web PKI allows only RSA and ECDSA (P-256, P-384, P-521).")
        case .rsa, .rsaPSS:
            if key.bits % 8 != 0 {
                fail(.forbiddenKey, "\(who) has an RSA modulus of \(key.bits) bits, not a multiple of 8.")
            }
        case .ec:
            if let curve = key.curve, !PublicKeyFacts.webPKICurves.contains(curve) {
                fail(.forbiddenKey, "\(who) uses the EC curve \(curve); only P-256, P-384 and P-521 are allowed.")
            } else if key.curve == nil {
                fail(.forbiddenKey, "\(who) has an EC key with explicit curve parameters, not a named curve; only P-256, P-384 and P-521 are allowed.")
            }
        case .ed25519, .ed448:
            fail(.forbiddenKey, "\(who) has an \(key.algorithm.name) key; the web PKI allows only RSA and ECDSA (P-256, P-384, P-521).")
        case .other(let name):
            fail(.forbiddenKey, "\(who) has a key of type \(name); the web PKI allows only RSA and ECDSA (P-256, P-384, P-521).")
        }
    }

    static func checkLeaf(_ leaf: Certificate, who: String, purpose: TrustEvaluator.Purpose, fail: (ProfileRule, String) -> Void) {
        if leaf.basicConstraints?.isCA == true {
            fail(.caAsLeaf, "\(who) is a CA certificate (cA=TRUE); a server certificate must not be one.")
        }
        if leaf.criticality(of: nidNameConstraints) != nil {
            fail(.nameConstraintsInLeaf, "\(who) carries name constraints, which only CA certificates may.")
        }
        if purpose == .serverAuth {
            if !leaf.hasExtendedKeyUsage {
                fail(.noExtendedKeyUsage, "\(who) has no extended key usage; serverAuth is required.")
            }
        }
        if leaf.criticality(of: nidExtendedKeyUsage) == true {
            fail(.criticalExtendedKeyUsage, "\(who) marks extended key usage critical, which the baseline requirements forbid.")
        }
        if leaf.hasAnyExtendedKeyUsage {
            fail(.anyExtendedKeyUsage, "\(who) allows anyExtendedKeyUsage, which the baseline requirements forbid.")
        }
        let sans = leaf.subjectAlternativeNames
        if leaf.criticality(of: nidSubjectAltName) == true && !leaf.subjectIsEmpty {
            fail(.criticalSAN, "\(who) marks its SAN extension critical although its subject is not empty.")
        }
        for name in sans.dns {
            if !isPreferredNameSyntax(name) {
                fail(.invalidDNSSAN, "\(who) has a malformed DNS name in its SANs: \"\(name)\".")
            } else if name.hasPrefix("*."), PublicSuffixList.shared.isPublicSuffix(String(name.dropFirst(2))) {
                fail(.publicSuffixWildcard, "\(who) has the wildcard \"\(name)\", which spans a public suffix.")
            }
        }
        for address in sans.email where !isMailbox(address) {
            fail(.invalidEmailSAN, "\(who) has a malformed email address in its SANs: \"\(address)\".")
        }
        // CABF 7.1.4.3: a CN, if present, is a character-for-character copy of a SAN value.
        let ipTexts = sans.ip
        for commonName in leaf.commonNames where !(sans.dns.isEmpty && sans.ip.isEmpty) {
            if !sans.dns.contains(commonName) && !ipTexts.contains(commonName) {
                fail(.commonNameNotInSAN, "\(who)'s subject CN \"\(commonName)\" is not an exact copy of one of its SANs.")
            }
        }
    }

    static func checkCA(_ ca: Certificate, who: String, isAnchor: Bool, fail: (ProfileRule, String) -> Void) {
        if ca.criticality(of: nidNameConstraints) == false {
            fail(.nonCriticalNameConstraints, "\(who) has name constraints not marked critical, as RFC 5280 requires.")
        }
        if ca.criticality(of: nidPolicyConstraints) == false {
            fail(.nonCriticalPolicyConstraints, "\(who) has policy constraints not marked critical, as RFC 5280 requires.")
        }
        if let nc = ca.nameConstraints {
            if nc.permittedCount == 0 && nc.excludedCount == 0 {
                fail(.emptyNameConstraints, "\(who) has name constraints with neither permitted nor excluded subtrees.")
            }
            for base in nc.permittedDNS + nc.excludedDNS where !base.isEmpty && !isPreferredNameSyntax(base, allowWildcard: false) {
                fail(.invalidNameConstraint, "\(who) has a malformed DNS name constraint: \"\(base)\".")
            }
        }
        if isAnchor && ca.isSelfSigned && ca.hasExtendedKeyUsage {
            fail(.rootWithExtendedKeyUsage, "\(who) is a root with an extended key usage extension, which roots must not have.")
        }
    }

    /// A wildcard SAN (`*.example.com`) can name a host an issuer excludes (`bar.example.com`);
    /// OpenSSL compares the literal strings and misses it.
    static func checkNameConstraints(leaf: Certificate, issuers: ArraySlice<Certificate>, fail: (ProfileRule, String) -> Void) {
        let wildcards = leaf.subjectAlternativeNames.dns.filter { $0.hasPrefix("*.") }.map { String($0.dropFirst(2)).lowercased() }
        guard !wildcards.isEmpty else { return }
        for issuer in issuers {
            guard let nc = issuer.nameConstraints else { continue }
            for excluded in nc.excludedDNS.map({ $0.lowercased() }) {
                let parent = excluded.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init)
                if let parent, wildcards.contains(parent) {
                    fail(.wildcardAcrossNameConstraint, "The server certificate's wildcard *.\(parent) covers \(excluded), which \(issuer.subject) excludes.")
                }
            }
        }
    }

    /// An rfc822Name as RFC 5280 4.2.1.6 defines it (RFC 5321's Mailbox): one "@" between a
    /// non-empty local part and a domain in preferred name syntax. OpenSSL's name constraints
    /// match a malformed one (`a@b@example.com`) by its last part, so it must not reach them.
    static func isMailbox(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, !local.isEmpty, local.utf8.count <= 64 else { return false }
        return local.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f } && isPreferredNameSyntax(String(parts[1]), allowWildcard: false)
    }

    /// RFC 1034 preferred name syntax (letters, digits, hyphens; labels of 1 to 63), with an
    /// optional whole-label wildcard on the left.
    static func isPreferredNameSyntax(_ name: String, allowWildcard: Bool = true) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        var labels = name.split(separator: ".", omittingEmptySubsequences: false)
        if allowWildcard, labels.first == "*", labels.count > 2 { labels.removeFirst() }
        return labels.allSatisfy { label in
            guard (1...63).contains(label.utf8.count), label.first != "-", label.last != "-" else { return false }
            return label.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x61 && $0 <= 0x7a) || $0 == 0x2d }
        }
    }
}

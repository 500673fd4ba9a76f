internal import COpenSSL

/// Path building: the paths from a leaf through the certificates a server sent, for when the
/// chain as sent fails. OpenSSL builds one path and does not backtrack: a server that sends two
/// certificates for the same intermediate (cross-signed, or issued by a CA whose name
/// constraints forbid this one), or its chain in a swapped order, fails although a valid path
/// exists. Each candidate here is one path through the pool (each link a name match whose
/// signature verifies), and OpenSSL completes it from the trust store.
///
/// A server may send its whole bundle, hundreds of certificates: the pool is indexed by subject
/// name (OpenSSL's canonical name hash), so each certificate's possible issuers are looked up, not
/// scanned, and the search is bounded by its work, not by where in the bundle the right issuer
/// sits: at most ``maximumSignatureChecks`` signatures verified, paths at most ``maximumDepth``
/// long, at most ``maximumCandidates`` returned; a cycle (A and B cross-signing each other) ends a
/// path. Candidates come in depth-first order of the pool as sent, so the same bundle always gives
/// the same candidates in the same order (nothing depends on hash-table order).
enum PathCandidates {
    /// The certificates considered, from the start of what was sent (a bundle beyond it is ignored).
    static let maximumPool = 2048
    static let maximumDepth = 8
    static let maximumCandidates = 16
    /// The bound on the search's work: signatures verified (each pair is verified once).
    static let maximumSignatureChecks = 512

    /// What a search found, and what it cost.
    struct Search {
        var candidates: [[Certificate]] = []
        var signatureChecks = 0
    }

    /// The paths (intermediates, leaf's issuer first), in depth-first order of the pool as sent;
    /// every prefix of a path is a candidate too (the store may hold the next issuer).
    static func alternatives(leaf: Certificate, pool: [Certificate]) -> [[Certificate]] {
        search(leaf: leaf, pool: pool).candidates
    }

    static func search(leaf: Certificate, pool sent: [Certificate]) -> Search {
        let pool = Array(sent.prefix(maximumPool))
        var result = Search()
        guard !pool.isEmpty else { return result }
        // Subject name hash -> positions in the pool, in the order sent.
        var bySubject: [UInt: [Int]] = [:]
        for (index, certificate) in pool.enumerated() { bySubject[X509_subject_name_hash(certificate.storage.x509), default: []].append(index) }
        var verified: [Pair: Bool] = [:]
        func issues(_ child: Certificate, _ issuer: Certificate) -> Bool {
            let pair = Pair(child: child, issuer: issuer)
            if let known = verified[pair] { return known }
            guard result.signatureChecks < maximumSignatureChecks else { return false }
            // A key identifier that names another key rules the issuer out before any signature is
            // verified (OpenSSL's own issuer check refuses such a pair too).
            var outcome = child != issuer && child.isIssued(byNameOf: issuer) && keyIdentifiersAgree(child, issuer)
            if outcome {
                result.signatureChecks += 1
                outcome = child.isSignatureVerified(byKeyOf: issuer)
            }
            verified[pair] = outcome
            return outcome
        }
        func walk(from certificate: Certificate, path: [Certificate]) {
            guard path.count < maximumDepth else { return }
            for index in bySubject[X509_issuer_name_hash(certificate.storage.x509)] ?? [] {
                let issuer = pool[index]
                guard result.candidates.count < maximumCandidates, result.signatureChecks < maximumSignatureChecks else { return }
                guard !path.contains(issuer), issuer != leaf, issues(certificate, issuer) else { continue }
                let next = path + [issuer]
                if next != pool { result.candidates.append(next) }
                // A self-signed certificate ends a path: nothing issued it but itself.
                if !issuer.isSelfSigned { walk(from: issuer, path: next) }
            }
        }
        walk(from: leaf, path: [])
        return result
    }

    /// False only when the child's authority key identifier and the issuer's subject key
    /// identifier are both present and differ.
    static func keyIdentifiersAgree(_ child: Certificate, _ issuer: Certificate) -> Bool {
        guard let authority = X509_get0_authority_key_id(child.storage.x509), let subject = X509_get0_subject_key_id(issuer.storage.x509) else {
            return true
        }
        return ASN1_OCTET_STRING_cmp(authority, subject) == 0
    }

    private struct Pair: Hashable {
        var child: Certificate
        var issuer: Certificate
    }
}

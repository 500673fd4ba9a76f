/// Path building: the paths from a leaf through the certificates a server sent, for when the
/// chain as sent fails. OpenSSL builds one path and does not backtrack: a server that sends two
/// certificates for the same intermediate (cross-signed, or issued by a CA whose name
/// constraints forbid this one), or its chain in a swapped order, fails although a valid path
/// exists. Each candidate here is one path through the pool (each link a name match whose
/// signature verifies), and OpenSSL completes it from the trust store. Bounded: at most
/// ``maximumPool`` certificates are considered, paths are at most ``maximumDepth`` long, and at
/// most ``maximumCandidates`` are returned; a cycle (A and B cross-signing each other) ends a path.
enum PathCandidates {
    static let maximumPool = 16
    static let maximumDepth = 8
    static let maximumCandidates = 16

    /// The paths (intermediates, leaf's issuer first), in depth-first order of the pool as sent;
    /// every prefix of a path is a candidate too (the store may hold the next issuer).
    static func alternatives(leaf: Certificate, pool: [Certificate]) -> [[Certificate]] {
        let pool = Array(pool.prefix(maximumPool))
        guard !pool.isEmpty else { return [] }
        var candidates: [[Certificate]] = []
        var verified: [Pair: Bool] = [:]
        func issues(_ child: Certificate, _ issuer: Certificate) -> Bool {
            let pair = Pair(child: child, issuer: issuer)
            if let known = verified[pair] { return known }
            let result = child != issuer && child.isIssued(byNameOf: issuer) && child.isSignatureVerified(byKeyOf: issuer)
            verified[pair] = result
            return result
        }
        func walk(from certificate: Certificate, path: [Certificate]) {
            guard path.count < maximumDepth else { return }
            for issuer in pool where !path.contains(issuer) && issuer != leaf && issues(certificate, issuer) {
                guard candidates.count < maximumCandidates else { return }
                let next = path + [issuer]
                if next != pool { candidates.append(next) }
                // A self-signed certificate ends a path: nothing issued it but itself.
                if !issuer.isSelfSigned { walk(from: issuer, path: next) }
            }
        }
        walk(from: leaf, path: [])
        return candidates
    }

    private struct Pair: Hashable {
        var child: Certificate
        var issuer: Certificate
    }
}

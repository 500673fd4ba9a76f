public import VigilHTTP

/// The TLS configuration of a server, found by handshakes the way sslscan and sslyze find it: for
/// each version, whether the server accepts it, then every suite it accepts, enumerated by
/// offering all the suites this machine's OpenSSL has and taking away, one handshake at a time,
/// the one the server chose (so that a server's own order is also the order found), and whether
/// the server's order or the client's decides. One connection at a time, each bounded by the
/// probe's timeout; no request is ever sent (connect-only handshakes).
public struct TLSScan: Sendable {
    /// One version's answer.
    public struct Version: Sendable, Hashable, Codable {
        /// `TLS 1.2`.
        public var version: String
        /// Whether the server accepts it.
        public var accepted: Bool
        /// The suites it accepts in this version, in the order it chose them (its preference when
        /// it decides), with the group and ephemeral key each was agreed with.
        public var suites: [TLSAgreement]
        /// Whether the server's order decides (true), the client's (false), or unknown (fewer than two suites).
        public var serverOrder: Bool?
    }

    /// How the handshakes are made (timeout, proxy, pinned names).
    public var probe: TLSProbe
    /// The versions scanned, oldest first.
    public var versions: [TLSProtocolVersion] = TLSProtocolVersion.allCases
    /// How many handshakes at most per version (a bound against a server that accepts anything).
    public var maximumHandshakesPerVersion = 200

    /// A scan through `probe`.
    public init(probe: TLSProbe) { self.probe = probe }

    /// Every version's answer, oldest first. Throws when nothing answered at all.
    public func run(_ endpoint: Endpoint) async throws -> [Version] {
        var results: [Version] = []
        for version in versions {
            try Task.checkCancellation()
            results.append(try await scan(version, at: endpoint))
        }
        return results
    }

    func scan(_ version: TLSProtocolVersion, at endpoint: Endpoint) async throws -> Version {
        var remaining = version == .tls13 ? TLSOffer.allTLS13Suites.split(separator: ":").map(String.init) : TLSOffer.suites(for: version)
        var accepted: [TLSAgreement] = []
        var handshakes = 0
        while !remaining.isEmpty, handshakes < maximumHandshakesPerVersion {
            try Task.checkCancellation()
            handshakes += 1
            guard let agreement = try await probe.agreement(with: endpoint, offering: offer(version, remaining)) else { break }
            // A suite never offered, or one already taken away, is the server's error: stop here.
            guard let index = remaining.firstIndex(of: agreement.openSSLName) else { break }
            accepted.append(agreement)
            remaining.remove(at: index)
        }
        var serverOrder: Bool?
        if accepted.count >= 2 {
            // The two it chose first, offered the other way round: the same choice is its own order.
            let reversed = [accepted[1].openSSLName, accepted[0].openSSLName]
            if let choice = try await probe.agreement(with: endpoint, offering: offer(version, reversed)) {
                serverOrder = choice.openSSLName == accepted[0].openSSLName
            }
        }
        return Version(version: "TLS \(version.rawValue)", accepted: !accepted.isEmpty, suites: accepted, serverOrder: serverOrder)
    }

    func offer(_ version: TLSProtocolVersion, _ suites: [String]) -> TLSOffer {
        version == .tls13
            ? TLSOffer(version: version, ciphers: "ALL", tls13Suites: suites.joined(separator: ":"))
            : TLSOffer(version: version, ciphers: suites.joined(separator: ":"), tls13Suites: TLSOffer.allTLS13Suites)
    }
}

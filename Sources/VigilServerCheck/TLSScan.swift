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
        /// The key exchange groups it accepts in this version, one offered at a time (TLS 1.3:
        /// elliptic curves and RFC 7919's finite fields; TLS 1.2: the curves, with its ECDHE
        /// suites); nil when not probed (older versions, or no suite to offer them with).
        public var groups: [String]?
        /// What the server answered against the protocol (a suite never offered, a version never
        /// asked for, bytes that are no ServerHello); empty for a well-behaved server.
        public var violations: [String] = []
    }

    /// How the handshakes are made (timeout, proxy, pinned names).
    public var probe: TLSProbe
    /// The versions scanned, oldest first.
    public var versions: [TLSProtocolVersion] = TLSProtocolVersion.allCases
    /// How many handshakes at most per version (a bound against a server that accepts anything).
    public var maximumHandshakesPerVersion = 200
    /// Versions scanned side by side, each one connection at a time: the most connections open at once.
    public var connectionsAtOnce = 2
    /// Where each connection asks for its turn (and is counted).
    public var pacer: ConnectionPacer

    /// A scan through `probe`, its connections paced by `pacer`.
    public init(probe: TLSProbe, pacer: ConnectionPacer = ConnectionPacer(perSecond: 200)) {
        self.probe = probe
        self.pacer = pacer
    }

    /// Every version's answer, oldest first: SSL 3.0 by Vigil's own ClientHello, then each TLS
    /// version by OpenSSL's handshakes and the suites OpenSSL lacks by Vigil's hello. Throws when
    /// nothing answered at all.
    public func run(_ endpoint: Endpoint) async throws -> [Version] {
        let jobs: [TLSProtocolVersion?] = [nil] + versions
        // At most connectionsAtOnce versions at a time; the answers kept in version order.
        return try await withThrowingTaskGroup(of: (Int, Version).self) { group in
            var results = [Version?](repeating: nil, count: jobs.count)
            var next = 0
            func start() {
                let (index, version) = (next, jobs[next])
                next += 1
                group.addTask {
                    guard let version else { return (index, try await self.sslv3(endpoint)) }
                    return (index, try await self.scanAll(version, at: endpoint))
                }
            }
            while next < min(max(1, connectionsAtOnce), jobs.count) { start() }
            while let (index, version) = try await group.next() {
                results[index] = version
                if next < jobs.count { start() }
            }
            return results.compactMap { $0 }
        }
    }

    /// SSL 3.0, by Vigil's own ClientHello only (OpenSSL 3 cannot speak it).
    func sslv3(_ endpoint: Endpoint) async throws -> Version {
        try await legacy(0x0300, "SSL 3.0", suites: LegacyHello.sslv3Suites, at: endpoint)
    }

    /// One TLS version: OpenSSL's suites by its handshakes, then those it lacks by Vigil's hello,
    /// and for TLS 1.2 and 1.3 the groups it accepts.
    func scanAll(_ version: TLSProtocolVersion, at endpoint: Endpoint) async throws -> Version {
        var found = try await scan(version, at: endpoint)
        if version >= .tls12 { found.groups = try await groups(version, accepted: found.suites, at: endpoint) }
        guard version != .tls13 else { return found }
        let known = Set(found.suites.map(\.ianaName))
        let more = try await legacy(Self.wireCode(version), found.version, suites: LegacyHello.legacySuites.filter { !known.contains($0.iana) }, at: endpoint)
        found.suites += more.suites
        found.accepted = !found.suites.isEmpty
        found.violations += more.violations
        return found
    }

    /// The suites among `suites` a server accepts in `code`'s version, by Vigil's own ClientHello:
    /// offered all, the chosen one taken away, one connection at a time.
    func legacy(_ code: UInt16, _ label: String, suites: [LegacyHello.Suite], at endpoint: Endpoint) async throws -> Version {
        var remaining = suites
        var accepted: [TLSAgreement] = []
        var violations: [String] = []
        var handshakes = 0
        while !remaining.isEmpty, handshakes < maximumHandshakesPerVersion {
            try Task.checkCancellation()
            handshakes += 1
            let hello = LegacyHello.clientHello(version: code, suites: remaining.map(\.code), serverName: endpoint.host)
            let record: [UInt8]
            try await pacer.admit()
            do { record = try await probe.firstRecord(with: endpoint, sending: hello) } catch let error as HTTPError where error.code == .timeout {
                violations.append("\(label): no answer to a ClientHello in time")
                break
            }
            switch LegacyHello.answer(record) {
            case .refused:
                remaining = []
            case .garbage:
                violations.append("\(label): the answer to a ClientHello is no TLS ServerHello")
                remaining = []
            case .accepted(let version, let suite, let renegotiation, let compression):
                // Only null compression was offered: another method is the server's error, not CRIME.
                guard compression == 0 else {
                    violations.append("\(label): the server chose a compression method never offered")
                    remaining = []
                    break
                }
                // Another version than asked: not this one (a server that answers 1.2 to a 1.0 hello breaks the protocol).
                guard version == code else {
                    if version > code { violations.append("\(label): the server answered with a version never offered") }
                    remaining = []
                    break
                }
                guard let index = remaining.firstIndex(where: { $0.code == suite }) else {
                    violations.append("\(label): the server chose a suite never offered (0x\(String(suite, radix: 16, uppercase: true)))")
                    remaining = []
                    break
                }
                let chosen = remaining.remove(at: index)
                // RSA key exchange has no ephemeral key; the others' size is in a message never read.
                let key: String? = chosen.iana.hasPrefix("TLS_RSA_") ? nil : chosen.iana.contains("ECDH") ? "EC" : "DH"
                accepted.append(
                    TLSAgreement(
                        version: label, openSSLName: chosen.openSSL, ianaName: chosen.iana, ephemeralKey: key, secureRenegotiation: renegotiation,
                        compression: false))
            }
        }
        return Version(version: label, accepted: !accepted.isEmpty, suites: accepted, serverOrder: nil, violations: violations)
    }

    func scan(_ version: TLSProtocolVersion, at endpoint: Endpoint) async throws -> Version {
        var remaining = version == .tls13 ? TLSOffer.allTLS13Suites.split(separator: ":").map(String.init) : TLSOffer.suites(for: version)
        var accepted: [TLSAgreement] = []
        var violations: [String] = []
        var handshakes = 0
        while !remaining.isEmpty, handshakes < maximumHandshakesPerVersion {
            try Task.checkCancellation()
            handshakes += 1
            try await pacer.admit()
            let answer: TLSAgreement?
            do { answer = try await probe.agreement(with: endpoint, offering: offer(version, remaining)) } catch let error as HTTPError
                where error.code == .handshakeStalled
            {
                // Not a refusal: what else this version accepts is not known.
                violations.append("TLS \(version.rawValue): a handshake stalled past the timeout")
                break
            }
            guard let agreement = answer else { break }
            // A suite never offered, or one already taken away, is the server's error: stop here.
            guard let index = remaining.firstIndex(of: agreement.openSSLName) else { break }
            accepted.append(agreement)
            remaining.remove(at: index)
        }
        var serverOrder: Bool?
        if accepted.count >= 2 {
            // The two it chose first, offered the other way round: the same choice is its own order.
            let reversed = [accepted[1].openSSLName, accepted[0].openSSLName]
            try await pacer.admit()
            if let choice = try await probe.agreement(with: endpoint, offering: offer(version, reversed)) {
                serverOrder = choice.openSSLName == accepted[0].openSSLName
            }
        }
        return Version(version: "TLS \(version.rawValue)", accepted: !accepted.isEmpty, suites: accepted, serverOrder: serverOrder, violations: violations)
    }

    /// The groups a client may offer, by OpenSSL's names: the curves, then RFC 7919's finite fields (TLS 1.3 only).
    static let curves = ["x25519", "secp256r1", "secp384r1", "secp521r1", "x448"]
    static let finiteFields = ["ffdhe2048", "ffdhe3072", "ffdhe4096", "ffdhe6144", "ffdhe8192"]

    /// The groups `version` accepts, one offered per connection in this list's order (never the
    /// server's, which the scan does not ask), by Vigil's own ClientHello: no key is computed (an
    /// 8192-bit finite field's costs tens of milliseconds), the answer read. nil when there is
    /// nothing to offer them with (TLS 1.2 without an ECDHE suite).
    func groups(_ version: TLSProtocolVersion, accepted: [TLSAgreement], at endpoint: Endpoint) async throws -> [String]? {
        let tls13 = version == .tls13
        guard tls13 ? !accepted.isEmpty : accepted.contains(where: { $0.ianaName.hasPrefix("TLS_ECDHE_") }) else { return nil }
        var found: [String] = []
        for name in tls13 ? Self.curves + Self.finiteFields : Self.curves {
            guard let code = LegacyHello.groupCodes[name] else { continue }
            try Task.checkCancellation()
            try await pacer.admit()
            let hello = LegacyHello.groupHello(tls13: tls13, group: code, serverName: endpoint.host)
            let record: [UInt8]
            do { record = try await probe.firstRecord(with: endpoint, sending: hello) } catch let error as HTTPError where error.code == .timeout {
                break
            }
            // A ServerHello (TLS 1.3: the HelloRetryRequest naming the group) is the group accepted.
            if case .accepted(_, let suite, _, _) = LegacyHello.answer(record), (tls13 ? LegacyHello.tls13Suites : LegacyHello.ecdheSuites).contains(suite) {
                found.append(name)
            }
        }
        return found
    }

    /// The version's code on the wire (TLS 1.0 is 0x0301).
    static func wireCode(_ version: TLSProtocolVersion) -> UInt16 {
        switch version {
        case .tls10: 0x0301
        case .tls11: 0x0302
        case .tls12: 0x0303
        case .tls13: 0x0304
        }
    }

    func offer(_ version: TLSProtocolVersion, _ suites: [String]) -> TLSOffer {
        version == .tls13
            ? TLSOffer(version: version, ciphers: "ALL", tls13Suites: suites.joined(separator: ":"))
            : TLSOffer(version: version, ciphers: suites.joined(separator: ":"), tls13Suites: TLSOffer.allTLS13Suites)
    }
}

import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle
import Synchronization

/// Runs the simulated hosts: an HTTPS listener on each loopback address (127.0.0.1, .2, .3) with
/// the scenario's certificate for it, and a plain-HTTP listener on the first address (for
/// upgrade and downgrade redirects). Every request goes through ``CloudResponder`` and the
/// ``Journal``.
public final class HostSimulator: Sendable {
    /// What to simulate, and where.
    public struct Configuration: Sendable {
        /// The scenario played.
        public var scenario: Scenario
        /// The testcerts directory (certificates `<case>-chain.pem` and keys `<case>.key`).
        public var certificatesDirectory: String
        /// The loopback addresses of hosts 1, 2 and 3 (only 127.0.0.0/8 and ::1 are accepted).
        public var addresses: [String] = ["127.0.0.1", "127.0.0.2", "127.0.0.3"]
        /// The HTTPS hosts' port (plain HTTP takes the next one); 0 picks a free port for each listener.
        public var port: Int = 0
        /// Plain HTTP takes the port after ``port``; false: a free one (when only the HTTPS
        /// hosts' port must be the same as before).
        public var plainPortFollows = true
        /// The simulator's time (the wall clock by default).
        public var clock: any SimulatorClock = SystemSimulatorClock()
        /// NIO event-loop threads shared by all listeners; nil uses NIO's singleton (one per core).
        public var eventLoopThreads: Int?
        /// In front of a real server: every host forwards what the scenario's behaviours let
        /// through to it (a reverse proxy that injects the scenario's faults).
        public var upstream: ReverseProxy?

        /// A configuration with the default addresses, free ports and the wall clock.
        public init(scenario: Scenario, certificatesDirectory: String) {
            self.scenario = scenario
            self.certificatesDirectory = certificatesDirectory
        }
    }

    /// One running listener.
    public struct Listener: Sendable, Hashable {
        /// Which host (1, 2, 3).
        public var host: Int
        /// The address it listens on.
        public var address: String
        /// `https` or `http`.
        public var scheme: String
        /// The port it listens on.
        public var port: Int
        /// The testcerts case served (https only).
        public var certificate: String?
        /// For a man in the middle: the URL of the genuine host it forwards every request to.
        public var forwardsTo: String?
        /// The listener's base URL (an IPv6 address in brackets).
        public var url: String { address.contains(":") ? "\(scheme)://[\(address)]:\(port)" : "\(scheme)://\(address):\(port)" }
    }

    /// What is simulated.
    public let configuration: Configuration
    /// Where every request and connection is recorded.
    public let journal: Journal
    /// Answers every request.
    public let responder: CloudResponder
    let registry = ConnectionRegistry()
    /// A revocation scenario's responder, once it listens.
    let revocation = Mutex<RevocationListener?>(nil)

    /// The scenario's forward proxies (``ProxyPlan``), once they listen.
    let proxies = Mutex<[ForwardProxy]>([])

    /// Each proxy's URL by its number (`1`: `http://127.0.0.1:PORT`).
    public var proxyURLs: [Int: String] { proxies.withLock { Dictionary(uniqueKeysWithValues: $0.map { ($0.number, $0.url) }) } }

    /// What every proxy received, in order per proxy (proxy 1's first).
    public var proxyEntries: [ProxyEntry] { proxies.withLock { $0.flatMap { $0.entries.withLock { $0 } } } }

    /// How many requests each path of a revocation scenario's responder got (`/ocsp`,
    /// `/crl/intermediate.crl`, `/crl/root.crl`); empty in other scenarios.
    public var revocationRequests: [String: Int] { revocation.withLock { $0?.counter.requests ?? [:] } }

    /// The chain (leaf and intermediate, PEM) a revocation scenario's host on `address` serves,
    /// once minted; nil in other scenarios (their chains are testcerts files).
    public func mintedChain(for address: String) -> String? { revocation.withLock { $0?.counter.authority?.chains[address] } }

    /// The private key of that minted leaf (a test key, made for this run), PEM.
    public func mintedKey(for address: String) -> String? { revocation.withLock { $0?.counter.authority?.keys[address] } }

    /// Throws ``SimulatorError`` for an address that is not loopback, or for a mitm or revocation scenario
    /// in front of a real server (`upstream`).
    public init(configuration: Configuration, journal: Journal) throws {
        for address in configuration.addresses where !SimulatorAddress.isLoopback(address) {
            throw SimulatorError(.refusedAddress, "\(address) is not a loopback address; the simulator binds only 127.0.0.0/8 and ::1.")
        }
        if configuration.upstream != nil, configuration.scenario.mitm == true || configuration.scenario.revocation != nil {
            throw SimulatorError(
                .malformedFixture,
                "\(configuration.scenario.name) replaces the server's certificates (mitm or revocation): it cannot play in front of a real server.")
        }
        self.configuration = configuration
        self.journal = journal
        self.responder = CloudResponder(scenario: configuration.scenario, clock: configuration.clock)
    }

    /// The testcerts case a host serves: the scenario's choice, or `valid-<address>`; in a
    /// revocation scenario, the minted certificate's name.
    public func certificateCase(for address: String) -> String {
        if let plan = configuration.scenario.revocation { return plan.certificateCase }
        return configuration.scenario.certificates?[address] ?? Self.defaultCertificateCase(for: address)
    }

    /// The certificate a genuine host on this address serves.
    static func defaultCertificateCase(for address: String) -> String {
        address == "::1" ? "valid-ipv6" : "valid-\(address)"
    }

    /// The CA file a client should trust.
    public var caFile: String { (configuration.certificatesDirectory as NSString).appendingPathComponent("ca-bundle.pem") }

    /// Starts every listener, calls `started` once all of them listen, and runs until cancelled.
    ///
    /// Each listener is a HummingbirdCore server (with NIOSSL for HTTPS, see ``SimulatorChannel``) whose connections are
    /// answered on their event loop by a ``ResponderHandler``. In a MITM scenario the first host's
    /// HTTPS listener is an ``InterceptingProxyHandler`` presenting the scenario's certificate,
    /// in front of a genuine listener on the same address (a port of its own, the host's normal
    /// certificate) that it reaches over a second TLS connection.
    public func run(started: @escaping @Sendable ([Listener]) -> Void) async throws {
        var plans: [Plan] = []
        let intercepted = configuration.scenario.mitm == true
        for (index, address) in configuration.addresses.enumerated() {
            plans.append(Plan(host: index + 1, address: address, scheme: "https", certificate: certificateCase(for: address)))
        }
        if let first = configuration.addresses.first { plans.append(Plan(host: 1, address: first, scheme: "http", certificate: nil)) }
        if intercepted, let first = configuration.addresses.first {
            let upstream = InterceptingProxyHandler.Upstream(address: first, sslContext: try proxyClientContext())
            plans[0].upstream = upstream
            plans.append(
                Plan(host: 1, address: first, scheme: "https", certificate: Self.defaultCertificateCase(for: first), genuine: true, upstream: upstream))
        }

        let collector = ListenerCollector(expected: plans.count, started: started)
        let group: any EventLoopGroup =
            configuration.eventLoopThreads.map { MultiThreadedEventLoopGroup(numberOfThreads: max(1, $0)) } ?? MultiThreadedEventLoopGroup.singleton
        var logger = Logger(label: "vigil.simulator")
        logger.logLevel = .critical
        // A revocation scenario: its responder listens first, so that the certificates minted
        // next can name it.
        var authority: RevocationAuthority?
        var revocationListener: RevocationListener?
        if let plan = configuration.scenario.revocation {
            let listener = try await RevocationListener.start(group: group, clock: configuration.clock)
            revocationListener = listener
            do {
                authority = try RevocationAuthority(
                    plan: plan, certificatesDirectory: configuration.certificatesDirectory, base: listener.base, addresses: configuration.addresses,
                    now: configuration.clock.now())
            } catch {
                await listener.stop()
                throw error
            }
            listener.counter.authority = authority
            revocation.withLock { $0 = listener }
        }
        defer { if let revocationListener { Task { await revocationListener.stop() } } }
        // The scenario's forward proxies listen before the hosts, so that a PAC file can name them.
        var started: [ForwardProxy] = []
        for (index, plan) in (configuration.scenario.proxy?.proxies ?? []).enumerated() {
            let proxy: ForwardProxy
            do {
                proxy = try await ForwardProxy.start(
                    group: group, number: index + 1, plan: plan, user: ProxyPlan.user, password: responder.proxyPasswords[index],
                    search: { [responder] in responder.credentialSearch() },
                    proxySearches: (1...(configuration.scenario.proxy?.proxies.count ?? 1)).map { [responder] in
                        ($0, CredentialSearch(planted: responder.proxySecrets(of: $0)))
                    })
            } catch {
                for earlier in started { await earlier.stop() }
                throw error
            }
            started.append(proxy)
            responder.setBase("proxy:\(index + 1)", proxy.url)
            responder.setBase("proxyhost:\(index + 1)", "127.0.0.1:\(proxy.port)")
        }
        proxies.withLock { $0 = started }
        defer { for proxy in started { Task { await proxy.stop() } } }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for plan in plans {
                let site = SimulatedSite(
                    host: plan.host, address: plan.address, scheme: plan.scheme, responder: responder, journal: journal, front: configuration.upstream)
                let journal = self.journal
                let context: NIOSSLContext?
                if let authority, plan.scheme == "https" {
                    var tls = try authority.tlsConfiguration(for: plan.address)
                    tls.shutdownTimeout = Self.tlsShutdownTimeout
                    if configuration.scenario.http2 == true { tls.applicationProtocols = ["h2", "http/1.1"] }
                    context = try NIOSSLContext(configuration: tls)
                } else if let name = plan.certificate, plan.scheme == "https", !plan.genuine,
                    let clientAuth = configuration.scenario.clientAuth, clientAuth.effectiveHosts.contains(plan.host)
                {
                    var tls = try tlsConfiguration(case: name)
                    try askClientCertificates(clientAuth, in: &tls)
                    context = try NIOSSLContext(configuration: tls)
                } else {
                    context = try plan.certificate.map { try sslContext(case: $0) }
                }
                let interceptor = plan.upstream != nil && !plan.genuine
                // The genuine host behind a man in the middle journals its connections as the
                // genuine host: they come from the interceptor, never from the client.
                var childChannel = SimulatorChannel(
                    address: plan.address, sslContext: context, certificate: plan.certificate, mitm: interceptor, journal: journal,
                    recordsConnections: !plan.genuine, http2: configuration.scenario.http2 == true && plan.scheme == "https" && !interceptor,
                    registry: registry, search: { [responder] in responder.credentialSearch() },
                    makeHandler: { state in
                        if let upstream = plan.upstream, !plan.genuine {
                            let cloud = site.responder
                            return InterceptingProxyHandler(
                                upstream: upstream, address: plan.address, journal: journal, connection: state, search: { cloud.credentialSearch() })
                        }
                        return ResponderHandler(site: site, connection: state)
                    })
                if let clientAuth = configuration.scenario.clientAuth, plan.scheme == "https", !plan.genuine, clientAuth.effectiveHosts.contains(plan.host) {
                    let path = (configuration.certificatesDirectory as NSString).appendingPathComponent("\(clientAuth.effectiveCA).pem")
                    childChannel.clientCA = FileManager.default.contents(atPath: path).map { Array($0) }
                    childChannel.clock = configuration.clock
                }
                let responder = self.responder
                let server = childChannel.server(
                    configuration: .init(address: .hostname(plan.address, port: port(for: plan))),
                    onServerRunning: { listening in
                        let port = listening.localAddress?.port ?? 0
                        let listener = Listener(host: plan.host, address: plan.address, scheme: plan.scheme, port: port, certificate: plan.certificate)
                        if plan.genuine {
                            plan.upstream?.port = port
                            collector.addGenuine(listener.url)
                            return
                        }
                        responder.setBase("\(plan.scheme):\(plan.host)", listener.url)
                        collector.add(listener, intercepting: plan.upstream != nil)
                    },
                    eventLoopGroup: group,
                    logger: logger
                )
                tasks.addTask { try await server.run() }
            }
            try await tasks.next()
            tasks.cancelAll()
        }
    }

    /// The port a listener binds: the configured one for each HTTPS host, the next one for plain
    /// HTTP (it shares the first address), a free one for the genuine host behind a man in the
    /// middle and whenever the configured port is 0.
    func port(for plan: Plan) -> Int {
        if plan.genuine || configuration.port == 0 { return 0 }
        if plan.scheme == "http" { return configuration.plainPortFollows && configuration.port < 65_535 ? configuration.port + 1 : 0 }
        return configuration.port
    }

    /// One listener to start.
    struct Plan: Sendable {
        var host: Int
        var address: String
        var scheme: String
        var certificate: String?
        /// The genuine host behind a man in the middle (not a listener clients are shown).
        var genuine = false
        /// On a man in the middle's listener and on the genuine host behind it.
        var upstream: InterceptingProxyHandler.Upstream?
    }

    /// The client side of a man in the middle's second connection: it checks the genuine host's
    /// chain against the test CA (no host name check: it connects by address).
    func proxyClientContext() throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(caFile)
        tls.certificateVerification = .noHostnameVerification
        tls.shutdownTimeout = Self.tlsShutdownTimeout
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw SimulatorError(.missingCertificate, "The test CA \(caFile) cannot be loaded: \(error).")
        }
    }

    /// Closes every connection still open (a client's leftovers after it exited); the journal
    /// marks them cut. With `closingDoors`, every later connection is closed as it arrives (the
    /// suite has read, or is about to read, what the client did). Returns how many were open.
    @discardableResult
    public func cutConnections(closingDoors: Bool = false) -> Int {
        let ids = registry.cutAll(closingDoors: closingDoors)
        for id in ids { journal.updateConnection(id) { $0.cut = true } }
        return ids.count
    }

    /// Mutual TLS on a host: a CertificateRequest naming the plan's CA, what is presented
    /// verified against it (its name not checked: a client certificate names a user), and, when
    /// required, no handshake without one.
    func askClientCertificates(_ plan: ClientAuthPlan, in tls: inout TLSConfiguration) throws {
        let path = (configuration.certificatesDirectory as NSString).appendingPathComponent("\(plan.effectiveCA).pem")
        guard FileManager.default.fileExists(atPath: path) else {
            throw SimulatorError(
                .missingCertificate, "The client CA \(plan.effectiveCA) is not in \(configuration.certificatesDirectory) (expected \(plan.effectiveCA).pem).")
        }
        tls.trustRoots = .file(path)
        tls.sendCANameList = true
        tls.certificateVerification = plan.mode == .required ? .noHostnameVerification : .optionalVerification
    }

    func sslContext(case name: String) throws -> NIOSSLContext {
        let configuration = try tlsConfiguration(case: name)
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw SimulatorError(.missingCertificate, "Certificate \(name) cannot be used: \(error).")
        }
    }

    func tlsConfiguration(case name: String) throws -> TLSConfiguration {
        let directory = configuration.certificatesDirectory as NSString
        let chainPath = directory.appendingPathComponent("\(name)-chain.pem")
        let keyPath = directory.appendingPathComponent("\(name).key")
        guard FileManager.default.fileExists(atPath: chainPath), FileManager.default.fileExists(atPath: keyPath) else {
            throw SimulatorError(
                .missingCertificate, "Certificate \(name) is not in \(configuration.certificatesDirectory) (expected \(name)-chain.pem and \(name).key).")
        }
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(chainPath).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            tls.shutdownTimeout = Self.tlsShutdownTimeout
            if configuration.scenario.http2 == true { tls.applicationProtocols = ["h2", "http/1.1"] }
            // Mozilla's intermediate profile unless the scenario sets its versions or suites up.
            let versions = configuration.scenario.tlsVersions ?? ["1.2", "1.3"]
            tls.minimumTLSVersion = Self.version(versions[0])
            tls.maximumTLSVersion = Self.version(versions[1])
            tls.cipherSuites = configuration.scenario.serverSetup?.ciphers ?? (versions[1] < "1.2" ? "ALL" : ServerSetupPlan.defaultCiphers)
            return tls
        } catch {
            throw SimulatorError(.missingCertificate, "Certificate \(name) cannot be loaded: \(error).")
        }
    }

    /// How long a closing connection waits for the peer's close_notify (NIO's default, 5 s, held
    /// every stop of a simulator whose man in the middle had an upstream connection).
    static let tlsShutdownTimeout: TimeAmount = .milliseconds(200)

    static func version(_ text: String) -> TLSVersion {
        switch text {
        case "1.0": return .tlsv1
        case "1.1": return .tlsv11
        case "1.3": return .tlsv13
        default: return .tlsv12
        }
    }
}

/// Gathers listeners as they start and reports them once all are up.
final class ListenerCollector: Sendable {
    private struct State {
        var listeners: [HostSimulator.Listener] = []
        var count = 0
        var genuineURL: String?
    }
    private let state = Mutex(State())
    private let expected: Int
    private let started: @Sendable ([HostSimulator.Listener]) -> Void

    init(expected: Int, started: @escaping @Sendable ([HostSimulator.Listener]) -> Void) {
        self.expected = expected
        self.started = started
    }

    /// A listener clients are shown; `intercepting` marks the man in the middle.
    func add(_ listener: HostSimulator.Listener, intercepting: Bool = false) {
        let done = state.withLock { state in
            var listener = listener
            if intercepting { listener.forwardsTo = "" }
            state.listeners.append(listener)
            return finishIfComplete(&state)
        }
        if let done { started(done) }
    }

    /// The genuine host behind a man in the middle.
    func addGenuine(_ url: String) {
        let done = state.withLock { state in
            state.genuineURL = url
            return finishIfComplete(&state)
        }
        if let done { started(done) }
    }

    /// Called with the lock held (on its state): counts one more listener and returns every
    /// listener, sorted, once all are up; the caller reports them after releasing the lock.
    private func finishIfComplete(_ state: inout State) -> [HostSimulator.Listener]? {
        state.count += 1
        guard state.count == expected else { return nil }
        let genuineURL = state.genuineURL
        return state.listeners.map { listener in
            var listener = listener
            if listener.forwardsTo != nil { listener.forwardsTo = genuineURL }
            return listener
        }.sorted { ($0.host, $0.scheme) < ($1.host, $1.scheme) }
    }
}

import Foundation
import Hummingbird
import HummingbirdTLS
import HummingbirdCore
import HTTPTypes
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// Runs the simulated hosts: an HTTPS listener on each loopback address (127.0.0.1, .2, .3) with
/// the scenario's certificate for it, and a plain-HTTP listener on the first address (for
/// upgrade and downgrade redirects). Every request goes through ``CloudResponder`` and the
/// ``Journal``.
public final class HostSimulator: Sendable {
    public struct Configuration: Sendable {
        public var scenario: Scenario
        /// The testcerts directory (certificates `<case>-chain.pem` and keys `<case>.key`).
        public var certificatesDirectory: String
        public var addresses: [String] = ["127.0.0.1", "127.0.0.2", "127.0.0.3"]
        /// 0 picks a free port for each listener.
        public var port: Int = 0
        public var clock: any SimulatorClock = SystemSimulatorClock()
        /// NIO event-loop threads shared by all listeners; nil uses NIO's singleton (one per core).
        public var eventLoopThreads: Int?

        public init(scenario: Scenario, certificatesDirectory: String) {
            self.scenario = scenario
            self.certificatesDirectory = certificatesDirectory
        }
    }

    /// One running listener.
    public struct Listener: Sendable, Hashable {
        public var host: Int
        public var address: String
        public var scheme: String
        public var port: Int
        /// The testcerts case served (https only).
        public var certificate: String?
        public var url: String { address.contains(":") ? "\(scheme)://[\(address)]:\(port)" : "\(scheme)://\(address):\(port)" }
    }

    public let configuration: Configuration
    public let journal: Journal
    public let responder: CloudResponder

    public init(configuration: Configuration, journal: Journal) throws {
        for address in configuration.addresses where !SimulatorAddress.isLoopback(address) {
            throw SimulatorError(.refusedAddress, "\(address) is not a loopback address; the simulator binds only 127.0.0.0/8 and ::1.")
        }
        self.configuration = configuration
        self.journal = journal
        self.responder = CloudResponder(scenario: configuration.scenario, clock: configuration.clock)
    }

    /// The testcerts case a host serves: the scenario's choice, or `valid-<address>`.
    public func certificateCase(for address: String) -> String {
        configuration.scenario.certificates?[address] ?? (address == "::1" ? "valid-ipv6" : "valid-\(address)")
    }

    /// The CA file a client should trust.
    public var caFile: String { (configuration.certificatesDirectory as NSString).appendingPathComponent("ca-bundle.pem") }

    /// Starts every listener, calls `started` once all of them listen, and runs until cancelled.
    public func run(started: @escaping @Sendable ([Listener]) -> Void) async throws {
        var plans: [(host: Int, address: String, scheme: String, certificate: String?)] = []
        for (index, address) in configuration.addresses.enumerated() {
            plans.append((index + 1, address, "https", certificateCase(for: address)))
        }
        if let first = configuration.addresses.first { plans.append((1, first, "http", nil)) }

        let collector = ListenerCollector(expected: plans.count, started: started)
        let eventLoops: EventLoopGroupProvider = configuration.eventLoopThreads.map { .shared(MultiThreadedEventLoopGroup(numberOfThreads: max(1, $0))) } ?? .singleton
        try await withThrowingTaskGroup(of: Void.self) { group in
            for plan in plans {
                let server: HTTPServerBuilder = try plan.certificate.map { try .tls(tlsConfiguration: tlsConfiguration(case: $0)) } ?? .http1()
                let journal = self.journal
                let responder = self.responder
                let host = plan.host, address = plan.address, scheme = plan.scheme
                var logger = Logger(label: "vigil.simulator")
                logger.logLevel = .critical
                let application = Application(
                    responder: CallbackResponder { (request: Request, _: BasicRequestContext) async throws -> Response in
                        try await Self.handle(request, host: host, address: address, scheme: scheme, responder: responder, journal: journal)
                    },
                    server: server,
                    configuration: .init(address: .hostname(plan.address, port: configuration.port)),
                    onServerRunning: { channel in
                        let listener = Listener(host: host, address: address, scheme: scheme, port: channel.localAddress?.port ?? 0, certificate: plan.certificate)
                        responder.setBase("\(scheme):\(host)", listener.url)
                        collector.add(listener)
                    },
                    eventLoopGroupProvider: eventLoops,
                    logger: logger
                )
                group.addTask { try await application.run() }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    static func handle(_ request: Request, host: Int, address: String, scheme: String, responder: CloudResponder, journal: Journal) async throws -> Response {
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { $0 + ", " + field.value } ?? field.value
        }
        // Read a body only when the headers announce one (most requests have none).
        var bodyBytes: [UInt8] = []
        if headers["transfer-encoding"] != nil || (headers["content-length"].flatMap { Int($0) } ?? 0) > 0 {
            var body = request.body
            var buffer = try await body.collect(upTo: 16 * 1024 * 1024)
            bodyBytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        }
        var simulated = SimulatedRequest(method: request.method.rawValue, target: request.uri.description, headers: headers,
                                         hasBody: !bodyBytes.isEmpty, scheme: scheme, host: host)
        simulated.body = bodyBytes
        let answer = responder.respond(to: simulated)
        let intercepted = responder.scenario.mitm == true && host == 1 && scheme == "https"
        // A man in the middle sees the request first, then hands it to the genuine server.
        for mitm in intercepted ? [true, false] : [false] {
            journal.record(JournalEntry(
                time: Journal.timestamp(), host: address, method: simulated.method, path: simulated.path, status: answer.status,
                authorization: headers["authorization"] != nil, cookie: headers["cookie"] != nil, body: simulated.hasBody,
                mitm: mitm ? true : nil
            ))
        }
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return Response(status: .init(code: answer.status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    func tlsConfiguration(case name: String) throws -> TLSConfiguration {
        let directory = configuration.certificatesDirectory as NSString
        let chainPath = directory.appendingPathComponent("\(name)-chain.pem")
        let keyPath = directory.appendingPathComponent("\(name).key")
        guard FileManager.default.fileExists(atPath: chainPath), FileManager.default.fileExists(atPath: keyPath) else {
            throw SimulatorError(.missingCertificate, "Certificate \(name) is not in \(configuration.certificatesDirectory) (expected \(name)-chain.pem and \(name).key).")
        }
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(chainPath).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            if let versions = configuration.scenario.tlsVersions, versions.count == 2 {
                tls.minimumTLSVersion = Self.version(versions[0])
                tls.maximumTLSVersion = Self.version(versions[1])
                if versions[1] < "1.2" { tls.cipherSuites = "ALL" }
            }
            return tls
        } catch {
            throw SimulatorError(.missingCertificate, "Certificate \(name) cannot be loaded: \(error).")
        }
    }

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
final class ListenerCollector: @unchecked Sendable {  // guarded by lock
    private let lock = NSLock()
    private var listeners: [HostSimulator.Listener] = []
    private let expected: Int
    private let started: @Sendable ([HostSimulator.Listener]) -> Void

    init(expected: Int, started: @escaping @Sendable ([HostSimulator.Listener]) -> Void) {
        self.expected = expected
        self.started = started
    }

    func add(_ listener: HostSimulator.Listener) {
        lock.lock()
        listeners.append(listener)
        let done = listeners.count == expected ? listeners.sorted { ($0.host, $0.scheme) < ($1.host, $1.scheme) } : nil
        lock.unlock()
        if let done { started(done) }
    }
}

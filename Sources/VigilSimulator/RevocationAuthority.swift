import CSimulatorPKI
import Foundation
import NIOSSL
import Synchronization

/// The certificate authority of a revocation scenario (``RevocationPlan``): an intermediate CA
/// minted under the test root, a leaf per host under it, and the CRLs and OCSP answers its plan
/// calls for. The URLs in the certificates name `base`, the simulator's revocation listener.
final class RevocationAuthority: Sendable {
    let plan: RevocationPlan
    /// Leaf and intermediate, PEM, per address; and each leaf's key.
    let chains: [String: String]
    let keys: [String: String]
    private let state: Mutex<State>

    /// OpenSSL objects, read (and used to sign) under the lock.
    private struct State: ~Copyable {
        var root: OpaquePointer
        var rootKey: OpaquePointer
        var intermediate: OpaquePointer
        var intermediateKey: OpaquePointer
        var attacker: OpaquePointer
        var attackerKey: OpaquePointer
        var leafSerials: [Int]
        var intermediateSerial: Int
        deinit {
            for certificate in [root, intermediate, attacker] { X509_free(certificate) }
            for key in [rootKey, intermediateKey, attackerKey] { EVP_PKEY_free(key) }
        }
    }

    /// Mints the PKI. `base` is the revocation listener (`http://127.0.0.1:PORT`).
    init(plan: RevocationPlan, certificatesDirectory: String, base: String, addresses: [String], now: Date) throws {
        self.plan = plan
        func read(_ name: String) throws -> String {
            let path = (certificatesDirectory as NSString).appendingPathComponent(name)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw SimulatorError(.missingCertificate, "The revocation scenario needs \(path).")
            }
            return text
        }
        func certificate(_ pem: String) throws -> OpaquePointer {
            guard let x = vigil_pki_read_certificate(pem, Int32(pem.utf8.count)) else { throw SimulatorError(.missingCertificate, "A test CA cannot be read.") }
            return x
        }
        func key(_ pem: String) throws -> OpaquePointer {
            guard let k = vigil_pki_read_key(pem, Int32(pem.utf8.count)) else { throw SimulatorError(.missingCertificate, "A test CA key cannot be read.") }
            return k
        }
        let root = try certificate(read("root-ca.pem")), rootKey = try key(read("root-ca.key"))
        let attacker = try certificate(read("attacker-ca.pem")), attackerKey = try key(read("attacker-ca.key"))
        guard let intermediateKey = vigil_pki_new_key() else { throw SimulatorError(.missingCertificate, "OpenSSL could not make a key.") }
        let start = Int64(now.timeIntervalSince1970) - 86_400, end = Int64(now.timeIntervalSince1970) + 30 * 86_400
        let down = "http://127.0.0.1:1"
        func crlURL(_ name: String) -> String? {
            switch plan.lists {
            case .none: nil
            case .down: "\(down)/crl/\(name).crl"
            default: "\(base)/crl/\(name).crl"
            }
        }
        let intermediateSerial = Int.random(in: 1_000_000...Int(Int32.max))
        var caExtensions = [
            ("basicConstraints", "critical,CA:TRUE,pathlen:0"), ("keyUsage", "critical,keyCertSign,cRLSign"),
            ("subjectKeyIdentifier", "hash"), ("authorityKeyIdentifier", "keyid:always"),
        ]
        if let url = crlURL("root") { caExtensions.append(("crlDistributionPoints", "URI:\(url)")) }
        guard let intermediate = Self.issue(root, rootKey, intermediateKey, "Vigil Simulator Revocation CA", intermediateSerial, start, end, caExtensions)
        else {
            throw SimulatorError(.missingCertificate, "OpenSSL could not mint the revocation CA.")
        }
        let intermediatePEM = Self.pem(intermediate)
        var chains: [String: String] = [:], keys: [String: String] = [:], serials: [Int] = []
        for address in addresses {
            guard let leafKey = vigil_pki_new_key() else { throw SimulatorError(.missingCertificate, "OpenSSL could not make a key.") }
            defer { EVP_PKEY_free(leafKey) }
            let serial = Int.random(in: 1_000_000...Int(Int32.max))
            let san = address.contains(":") ? "IP:\(address)" : "IP:\(address)"
            var extensions = [
                ("basicConstraints", "critical,CA:FALSE"), ("keyUsage", "critical,digitalSignature"),
                ("extendedKeyUsage", "serverAuth"), ("subjectAltName", san), ("subjectKeyIdentifier", "hash"), ("authorityKeyIdentifier", "keyid:always"),
            ]
            switch plan.responder {
            case .none: break
            case .down: extensions.append(("authorityInfoAccess", "OCSP;URI:\(down)/ocsp"))
            default: extensions.append(("authorityInfoAccess", "OCSP;URI:\(base)/ocsp"))
            }
            if let url = crlURL("intermediate") { extensions.append(("crlDistributionPoints", "URI:\(url)")) }
            if plan.mustStaple == true { extensions.append(("tlsfeature", "status_request")) }
            guard let leaf = Self.issue(intermediate, intermediateKey, leafKey, address, serial, start, end, extensions) else {
                throw SimulatorError(.missingCertificate, "OpenSSL could not mint the leaf for \(address).")
            }
            defer { X509_free(leaf) }
            chains[address] = Self.pem(leaf) + intermediatePEM
            keys[address] = Self.text(vigil_pki_key_pem(leafKey))
            serials.append(serial)
        }
        self.chains = chains
        self.keys = keys
        self.state = Mutex(
            State(
                root: root, rootKey: rootKey, intermediate: intermediate, intermediateKey: intermediateKey, attacker: attacker, attackerKey: attackerKey,
                leafSerials: serials, intermediateSerial: intermediateSerial))
    }

    static func issue(
        _ issuer: OpaquePointer, _ issuerKey: OpaquePointer, _ subjectKey: OpaquePointer, _ name: String, _ serial: Int, _ start: Int64, _ end: Int64,
        _ extensions: [(String, String)]
    ) -> OpaquePointer? {
        withArrayOfCStrings(extensions.map(\.0)) { names in
            withArrayOfCStrings(extensions.map(\.1)) { values in
                vigil_pki_issue(issuer, issuerKey, subjectKey, name, serial, start, end, names, values, Int32(extensions.count))
            }
        }
    }

    static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    static func pem(_ certificate: OpaquePointer) -> String { text(vigil_pki_certificate_pem(certificate)) }

    /// The TLS configuration a host on `address` serves: its minted leaf and the intermediate.
    func tlsConfiguration(for address: String) throws -> TLSConfiguration {
        guard let chain = chains[address], let key = keys[address] else {
            throw SimulatorError(.missingCertificate, "No certificate was minted for \(address).")
        }
        let certificates = try NIOSSLCertificate.fromPEMBytes(Array(chain.utf8)).map { NIOSSLCertificateSource.certificate($0) }
        let privateKey = try NIOSSLPrivateKey(bytes: Array(key.utf8), format: .pem)
        return TLSConfiguration.makeServerConfiguration(certificateChain: certificates, privateKey: .privateKey(privateKey))
    }

    /// The CRL at `name` (`intermediate` or `root`), as the plan says; nil for another name.
    func crl(named name: String, now: Date) -> [UInt8]? {
        let seconds = Int64(now.timeIntervalSince1970)
        let (thisUpdate, nextUpdate) = plan.lists == .stale ? (seconds - 8 * 86_400, seconds - 86_400) : (seconds - 3_600, seconds + 7 * 86_400)
        return state.withLock { state -> [UInt8]? in
            let issuer: OpaquePointer, key: OpaquePointer, revoked: [Int]
            switch name {
            case "intermediate":
                (issuer, key) = (state.intermediate, state.intermediateKey)
                revoked = plan.leafStatus == .revoked ? state.leafSerials : []
            case "root":
                (issuer, key) = (state.root, state.rootKey)
                revoked = plan.intermediateStatus == .revoked ? [state.intermediateSerial] : []
            default: return nil
            }
            var der: UnsafeMutablePointer<UInt8>?
            let length = revoked.withUnsafeBufferPointer {
                vigil_pki_crl(issuer, key, $0.baseAddress, Int32($0.count), seconds - 7_200, thisUpdate, nextUpdate, 1, &der)
            }
            return Self.bytes(der, length)
        }
    }

    /// The OCSP answer to `request` (DER): by the intermediate CA, or for `wrong-key` by the
    /// attacker's CA saying "good" to everything.
    func ocspAnswer(to request: [UInt8], now: Date) -> [UInt8]? {
        let seconds = Int64(now.timeIntervalSince1970)
        return state.withLock { state -> [UInt8]? in
            let wrong = plan.responder == .wrongKey
            let revoked = wrong || plan.leafStatus == .good ? [] : state.leafSerials
            var der: UnsafeMutablePointer<UInt8>?
            let length = request.withUnsafeBufferPointer { body in
                revoked.withUnsafeBufferPointer {
                    vigil_pki_ocsp_answer(
                        body.baseAddress, body.count, state.intermediate, wrong ? state.attacker : state.intermediate,
                        wrong ? state.attackerKey : state.intermediateKey, $0.baseAddress, Int32($0.count), seconds - 7_200, seconds - 60,
                        seconds + 86_400, &der)
                }
            }
            return Self.bytes(der, length)
        }
    }

    static func bytes(_ der: UnsafeMutablePointer<UInt8>?, _ length: Int32) -> [UInt8]? {
        guard length > 0, let der else { return nil }
        defer { vigil_pki_free(der) }
        return Array(UnsafeBufferPointer(start: der, count: Int(length)))
    }
}

/// `body` with a C array of the strings (NUL-terminated copies, freed afterwards).
func withArrayOfCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer<CChar>($0) }
    return pointers.withUnsafeBufferPointer { buffer in body(buffer.baseAddress!) }
}

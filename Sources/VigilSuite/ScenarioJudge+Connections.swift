import Foundation
import VigilSimulator
import VigilStore

/// Invariant 1 at the transport: what a client did on each TLS connection, judged by the
/// certificate it was entitled to trust there.
extension ScenarioJudge {
    /// Invariant 1 at the transport: on a host whose certificate the client was not entitled to
    /// trust (not its genuine one, not accepted by the fixture, not approved before the
    /// connection), *any* application data after the handshake is a violation, whatever it
    /// carries and however it is encoded: a secure client aborts the handshake.
    func connectionFailures(_ evidence: ScenarioEvidence) -> [Violation] {
        let clear = evidence.connections.filter { $0.credentialInClear != nil }.prefix(3).map { connection in
            let how = connection.scheme == "http" ? "over plain HTTP" : "in clear text on its TLS port (not TLS at all)"
            return Violation(
                .clearTextCredential,
                "A credential (\((connection.credentialInClear ?? []).prefix(3).joined(separator: "; "))) was sent to \(connection.host) \(how) (invariant 1: never a credential in clear text)."
            )
        }
        // Mutual TLS: a client certificate names its user; presenting it to a host the client may
        // not trust discloses who the user is, during the handshake, before any application data.
        // The identity belongs to the server the user named, or a server they agreed to present it
        // to (approving a redirect there is not agreeing to that).
        // The agreement counts for the connections made after it, to that host.
        let agreed = evidence.questions.filter { $0.question == .credentials && $0.approved }
        let disclosed = evidence.connections.filter { connection in
            connection.scheme == "https" && connection.clientCertificate != nil
                && (isHostile(connection, evidence)
                    || (connection.host != evidence.start.address
                        && !agreed.contains { evidence.address(of: $0.about) == connection.host && $0.connectionsAt <= connection.id }))
        }.prefix(3).map {
            connection in
            Violation(
                .clientCertificateDisclosed,
                "The client presented its client certificate (\(SuiteText.oneLine(connection.clientCertificate ?? "?"))) to \(describe(connection)), which it was not entitled to trust or the user never agreed to: the user's identity was disclosed (invariant 1)."
            )
        }
        // The ClientHello crosses the network in clear before any certificate is seen: a secret
        // in it is disclosed to every observer, whatever host it was meant for.
        let hello = evidence.connections.filter { $0.secretInClientHello != nil }.prefix(3).map { connection in
            Violation(
                .secretInClientHello,
                "A secret was in the TLS ClientHello to \(connection.host) (\((connection.secretInClientHello ?? []).joined(separator: "; "))): the server name and ALPN cross the network in clear, before any certificate is seen (invariant 1)."
            )
        }
        return clear + hello + disclosed
            + evidence.connections.filter { $0.scheme == "https" && $0.applicationBytes > 0 && isHostile($0, evidence) }.prefix(3).map { connection in
                let requests = evidence.journal.filter { $0.connection == connection.id }
                let first = requests.first.map { " (first: \($0.method) \($0.path))" } ?? ""
                var found: [String] = []
                for place in requests.flatMap({ $0.found ?? [] }) where !found.contains(place) { found.append(place) }
                let carried = found.isEmpty ? "" : "; a credential was in \(found.prefix(4).joined(separator: ", "))"
                let why = legacyTLS ? "TLS 1.0 and 1.1 are deprecated (RFC 8996)" : "it was not entitled to trust that certificate"
                return Violation(
                    legacyTLS ? .legacyTLS : .dataToUntrusted,
                    "The client sent \(connection.applicationBytes) byte(s) of application data to \(describe(connection))\(first)\(carried): \(why), and a secure client aborts the handshake (invariant 1)."
                )
            }
    }

    /// The hosts offer only TLS 1.0 or 1.1.
    var legacyTLS: Bool {
        guard let versions = scenario.tlsVersions, versions.count == 2 else { return false }
        return versions[1] < "1.2"
    }

    /// A connection to a man in the middle whose certificate was not approved before it was
    /// opened, or to a host serving a certificate that is neither its genuine one nor accepted
    /// by the fixture, not approved before.
    func isHostile(_ connection: ConnectionEntry, _ evidence: ScenarioEvidence) -> Bool {
        // TLS 1.0 and 1.1 are deprecated (RFC 8996): no data belongs on such a connection.
        if legacyTLS { return true }
        let approved = evidence.questions.contains {
            $0.question == .certificate && $0.approved && $0.connectionsAt <= connection.id && evidence.address(of: $0.about) == connection.host
        }
        // A man in the middle is hostile unless approved, or unless the fixture names its
        // certificate as one credentials may reach (an organisation's inspecting proxy whose root
        // the machine's store holds: `interception-local-root`).
        if connection.mitm == true { return !(approved || sanctionedInterceptor(connection.certificate)) }
        return !(approved || isEntitled(connection.certificate ?? certificateCase(at: connection.host), at: connection.host, evidence))
    }

    /// The interceptor's certificate is one the fixture accepts (`client.acceptedCertificates`).
    func sanctionedInterceptor(_ certificate: String?) -> Bool {
        guard let certificate else { return false }
        return (scenario.client?.acceptedCertificates ?? []).contains(certificate)
    }

    /// The client may trust the certificate `served` at `host`: the host's genuine one, one the
    /// fixture accepts, or (an external client) one a standard verifier accepts with its CA file.
    func isEntitled(_ served: String, at host: String, _ evidence: ScenarioEvidence) -> Bool {
        // A chain the scenario's CA revoked (or a must-staple leaf without its staple) entitles
        // no one, whatever a verifier that asks no CA says.
        if scenario.revocation?.forbidsUse == true { return false }
        if let plan = scenario.revocation { return served == plan.certificateCase }
        return served == HostSimulatorCases.genuine(for: host) || (scenario.client?.acceptedCertificates ?? []).contains(served)
            || evidence.entitled.contains("\(host)|\(served)")
    }

    func describe(_ connection: ConnectionEntry) -> String {
        // A server name that holds a secret is not repeated in the report.
        let name =
            connection.secretInClientHello != nil
            ? " (asked for a name that holds a secret)" : connection.serverName.map { " (asked for \(SuiteText.oneLine($0)))" } ?? ""
        let protocolName = connection.applicationProtocol == "h2" ? ", over HTTP/2" : ""
        if connection.mitm == true { return "the man in the middle at \(connection.host)\(name) (certificate \(connection.certificate ?? "?")\(protocolName))" }
        return "\(connection.host)\(name) (certificate \(connection.certificate ?? certificateCase(at: connection.host))\(protocolName))"
    }
}

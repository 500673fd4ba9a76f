import FoundationEssentials
import Glibc
import Logging
import VigilAuth
import VigilCertificates
public import VigilHTTP
import VigilLogging
import VigilSecrets
import VigilStore

// Certificate review during setup: the chain shown and approved (or not), and the HTTP clients
// that accept exactly what was reviewed, for the server and for a login provider on another host.
extension AccountSetup {
    /// Probes `endpoint`, shows the chain, has an untrusted leaf approved (or stops), and returns
    /// a client whose policy accepts exactly what was trusted or approved.
    /// A chain as PEM, leaf first.
    static func pem(_ chain: [Certificate]) -> String? {
        chain.isEmpty ? nil : chain.map(\.pemEncoded).joined()
    }

    /// A finding, not a refusal: under TLS 1.2 the client's Certificate message is not encrypted,
    /// so whoever is on the path reads the certificate, and with it who the user is.
    public static func clientCertificateInClear(_ handshake: TLSProbe.Handshake) -> String? {
        guard handshake.negotiated == .tls12 || handshake.negotiated == .tls11 || handshake.negotiated == .tls10 else { return nil }
        return
            "Finding: the server negotiates \(handshake.protocolVersion), where a client certificate crosses the network in clear: anyone on the path reads the certificate and so the user's name (TLS 1.3 encrypts it)."
    }

    func reviewedClient(for endpoint: Endpoint, interaction: any AccountSetupInteraction) async throws -> (HTTPClient, [Certificate]) {
        let handshake = try await TLSProbe(timeout: options.timeout, logger: logger, resolve: options.resolve, proxy: options.proxy).handshake(with: endpoint)
        let evaluation = await ConnectionJudge(evaluator: evaluator, requirements: options.requirements).verdict(for: handshake, endpoint: endpoint)
        await interaction.review(evaluation, chain: handshake.chain, endpoint: endpoint)
        if options.clientIdentity != nil, options.credentialsOrigin?.isSameOrigin(as: endpoint) == true, handshake.clientCertificate?.requested == true,
            let finding = Self.clientCertificateInClear(handshake)
        {
            await interaction.progress(finding)
            logger.privacy.warning("\(public: finding)", metadata: ["tags": "setup,tls"])
        }
        if !evaluation.verdict.isTrusted {
            try await approveIfTheUserAgrees(evaluation, chain: handshake.chain, endpoint: endpoint, interaction: interaction)
        }
        return await (
            try Self.client(for: endpoint, evaluator: evaluator, approvals: approvals, options: options, reviewed: handshake.chain.first, logger: logger),
            handshake.chain
        )
    }

    /// A client for `endpoint` whose policy accepts what the evaluator trusts, or a leaf approved
    /// (by the user or in advance) for this host and port, and nothing below the requirements;
    /// with `reviewed`, that very leaf and no other.
    /// `provider`: the login provider on another host, with the leaf reviewed for it (nil: its
    /// approvals only): the same client then reaches both, each with its own approvals.
    static func client(
        for endpoint: Endpoint, evaluator: TrustEvaluator, approvals: CertificateApprovals, options: Options,
        reviewed: Certificate?, provider: (endpoint: Endpoint, reviewed: Certificate?)? = nil, logger: Logger
    ) async throws -> HTTPClient {
        var configuration = options.clientConfiguration
        // Only to the origin they were given for: none named, none presented or sent (fail closed).
        if let identity = options.clientIdentity, options.credentialsOrigin?.isSameOrigin(as: endpoint) == true {
            configuration.clientIdentity = ClientIdentityBinding(identity: identity, origin: endpoint)
        }
        if let headers = options.accessHeaders, options.credentialsOrigin?.isSameOrigin(as: endpoint) == true {
            configuration.accessHeaders = AccessHeadersBinding(headers: headers, origin: endpoint)
        }
        var reviewedLeaves: [Endpoint: String] = [:]
        let origins = [(endpoint, reviewed)] + (provider.map { [($0.endpoint, $0.reviewed)] } ?? [])
        for (each, leaf) in origins {
            if let leaf { reviewedLeaves[each] = leaf.sha256Fingerprint }
        }
        let approved = try await approvals.leaves(for: origins.map(\.0), preApproved: options.preApproved)
        return HTTPClient(
            policy: EvaluatorTrustPolicy(
                judge: ConnectionJudge(evaluator: evaluator, requirements: options.requirements), approvals: approved, reviewedLeaves: reviewedLeaves),
            configuration: configuration, logger: logger)
    }

    /// When detection found a login provider on another host: it reviewed (``reviewedProvider``),
    /// OpenID Connect offered with its configuration, and the client that reaches both returned;
    /// nil when the provider is the server itself.
    func addProvider(
        to detection: inout AuthenticationDetection, server: Endpoint, serverLeaf: Certificate?, interaction: any AccountSetupInteraction
    ) async throws -> HTTPClient? {
        guard let issuer = detection.providerIssuer else { return nil }
        let (both, configuration) = try await reviewedProvider(issuer, server: server, serverLeaf: serverLeaf, interaction: interaction)
        detection.methods.insert(
            DetectedAuthenticationMethod(
                identifier: .openIDConnect, evidence: "The server's login provider \(issuer) (another host) names itself in its discovery document.",
                openIDConfiguration: configuration), at: 0)
        return both
    }

    /// The login provider the server names on another host: its certificate reviewed as the
    /// server's was (trusted, approved by the user, or refused by the same rules), then its own
    /// discovery document read from it, whose issuer must be exactly the one named. Returns a
    /// client for the server and the provider, and the provider's configuration. A provider that
    /// cannot be reached or read refuses OpenID Connect (never a silent fall back).
    func reviewedProvider(
        _ issuer: String, server: Endpoint, serverLeaf: Certificate?, interaction: any AccountSetupInteraction
    ) async throws -> (HTTPClient, OpenIDConfiguration) {
        guard let providerEndpoint = try? Endpoint(url: issuer) else {
            throw AccountSetupError(.responseRejected, "The login provider \(issuer) the server names is not an https URL.")
        }
        await interaction.progress("The server's login provider is on another host: \(issuer). Its certificate is reviewed too.")
        let providerLeaf: Certificate?
        do {
            providerLeaf = try await reviewedClient(for: providerEndpoint, interaction: interaction).1.first
        } catch let error as HTTPError {
            throw AccountSetupError(.responseRejected, "The login provider \(issuer) the server names cannot be reached: \(error.reason)")
        }
        let client = try await Self.client(
            for: server, evaluator: evaluator, approvals: approvals, options: options, reviewed: serverLeaf,
            provider: (providerEndpoint, providerLeaf), logger: logger)
        let answer: HTTPResponse
        do {
            answer = try await client.send(HTTPRequest(url: "\(issuer)/\(options.paths.wellKnown)/openid-configuration"))
        } catch let error as HTTPError {
            throw AccountSetupError(.responseRejected, "The login provider's discovery document could not be read: \(error.reason)")
        }
        guard answer.status == 200, answer.redirect == nil else {
            throw AccountSetupError(.responseRejected, "The login provider \(issuer) answered its discovery document with HTTP \(answer.status).")
        }
        switch AuthenticationDetector.validateProvider(answer.body, issuer: issuer) {
        case .success(let configuration): return (client, configuration)
        case .failure(let problem): throw AccountSetupError(.responseRejected, "The login provider's discovery document: \(problem.reason)")
        }
    }

    /// Asks ``VigilHTTP/ConnectionDecision`` about a chain no CA vouches for: what no approval can
    /// make acceptable is refused before the user is asked (an earlier approval does not count
    /// either); a leaf approved before, by the user or the administrator, goes on; otherwise the
    /// user reviews it, and an approval is kept.
    func approveIfTheUserAgrees(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint, interaction: any AccountSetupInteraction) async throws
    {
        guard chain.first != nil else { throw AccountSetupError(.certificateRejected, "\(endpoint) sent no certificate.") }
        let decision = ConnectionDecision.decide(
            evaluation, chain: chain, endpoint: endpoint, approvals: try await approvals.leaves(for: [endpoint], preApproved: options.preApproved))
        switch decision.outcome {
        case .trusted:
            return
        case .approved:
            if decision.approvedBy == .administrator {
                await interaction.progress(
                    "The certificate is not trusted, but the administrator approved it in advance for \(endpoint.host):\(endpoint.port) (connection.approved-certificates)."
                )
            } else {
                await interaction.progress("The certificate is not trusted, but was approved before for \(endpoint.host):\(endpoint.port).")
            }
            return
        case .refused:
            let refusals = decision.refusesApproval
            if !refusals.isEmpty {
                throw AccountSetupError(
                    .certificateRejected,
                    "The certificate of \(endpoint) cannot be approved: " + refusals.map(\.message).joined(separator: " ") + " Nothing was sent.")
            }
        }
        guard let leaf = chain.first, await interaction.approveCertificate(evaluation, chain: chain, endpoint: endpoint) else {
            throw AccountSetupError(.certificateRejected, "The certificate of \(endpoint) is not trusted and was not approved; nothing was sent.")
        }
        try await approvals.approve(leaf, host: endpoint.host, port: endpoint.port, note: "approved while adding an account")
        await interaction.progress("Certificate approved for \(endpoint.host):\(endpoint.port) (see the certificates audit).")
    }
}

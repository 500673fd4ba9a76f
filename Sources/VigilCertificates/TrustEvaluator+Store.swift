internal import COpenSSL
internal import CVigilPKI
import FoundationEssentials
import Glibc

extension TrustEvaluator {
    /// Owns an OpenSSL `X509_STORE` holding the anchors.
    // @unchecked Sendable: the store is filled once in init and only read afterwards;
    // X509_STORE's lookups are guarded by OpenSSL's own lock.
    final class Store: @unchecked Sendable {
        let store: OpaquePointer
        /// Problems with the configured CRLs; each makes every verdict untrusted.
        let crlProblems: [TrustReason]

        init(configuration: Configuration, fileAnchors: [Certificate], revocationLists: [RevocationList]) throws {
            guard let store = X509_STORE_new() else {
                throw CertificateError(.storeFailure, "OpenSSL could not create a trust store.")
            }
            self.store = store
            var crlProblems: [TrustReason] = []
            if configuration.useSystemStore && configuration.systemStoreFiles == nil && X509_STORE_set_default_paths(store) != 1 {
                OpenSSLSupport.drainErrors()
                throw CertificateError(.storeFailure, "The system trust store could not be loaded.")
            }
            for anchor in fileAnchors + configuration.anchors {
                // A duplicate is not an error; anything else is.
                _ = X509_STORE_add_cert(store, anchor.storage.x509)
            }
            for (index, list) in revocationLists.enumerated() where !list.hasNumber {
                crlProblems.append(
                    TrustReason(
                        code: ProfileRule.crlWithoutNumber.code,
                        message: "CRL \(index + 1) (from \(list.issuer)) has no CRL number, which RFC 5280 requires; it cannot be relied on."))
            }
            OpenSSLSupport.drainErrors()
            self.crlProblems = crlProblems
        }

        deinit { X509_STORE_free(store) }

        struct Run {
            /// OpenSSL built a path to an anchor and every error it met was one the callback
            /// lets pass (each is in `reasons`; the profile decides which of them count).
            var verified: Bool
            var reasons: [TrustReason]
            var chain: [Certificate]
            /// The valid policy set of the path (RFC 5280 section 6.1.5), dotted OIDs.
            var policies: [String] = []
        }

        /// The valid policy set OpenSSL's policy tree holds for the verified path.
        static func validPolicies(_ context: OpaquePointer) -> [String] {
            var buffer = [CChar](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBufferPointer { vigil_valid_policies(context, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return [] }
            var policies: [String] = []
            var start = 0
            for _ in 0..<count {
                let end = buffer[start...].firstIndex(of: 0) ?? buffer.endIndex
                policies.append(String(decoding: buffer[start..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self))
                start = end + 1
            }
            return policies
        }

        /// Collects every error the verify callback sees.
        final class Collector {
            var reasons: [TrustReason] = []
            var seen: Set<String> = []
            /// The verification time, in OpenSSL's whole seconds.
            let time: time_t
            init(time: time_t) { self.time = time }
        }

        func verify(leaf: Certificate, untrusted: [Certificate], configuration: Configuration, time: Date, peerName: PeerName?) -> Run {
            guard let context = X509_STORE_CTX_new() else {
                return Run(
                    verified: false, reasons: [TrustReason(code: .internalError, message: "OpenSSL could not allocate a verification context.")], chain: [])
            }
            defer { X509_STORE_CTX_free(context) }
            let stack = vigil_sk_X509_new()
            defer { vigil_sk_X509_free(stack) }
            for certificate in untrusted { _ = vigil_sk_X509_push(stack, certificate.storage.x509) }

            guard X509_STORE_CTX_init(context, store, leaf.storage.x509, OpaquePointer(stack)) == 1 else {
                OpenSSLSupport.drainErrors()
                return Run(verified: false, reasons: [TrustReason(code: .internalError, message: "OpenSSL could not start verification.")], chain: [])
            }
            let parameters = X509_STORE_CTX_get0_param(context)
            // No PARTIAL_CHAIN: an anchor must be a root. Approved certificates are matched by
            // their own store, not by turning a leaf into an anchor here.
            // RFC 5280 section 6.1 policy processing with its default inputs (any policy, no explicit
            // policy required, mapping allowed): a CA's requireExplicitPolicy, inhibitPolicyMapping
            // and inhibitAnyPolicy are honoured.
            // (Only on an OpenSSL without CVE-2023-0464: 3.0.9 or later, as Debian 12's.)
            var flags = UInt(X509_V_FLAG_X509_STRICT)
            if vigil_policy_processing_is_safe() == 1 { flags |= UInt(X509_V_FLAG_POLICY_CHECK) }
            if configuration.requireExplicitPolicy { flags |= UInt(X509_V_FLAG_EXPLICIT_POLICY) }
            if configuration.inhibitPolicyMapping { flags |= UInt(X509_V_FLAG_INHIBIT_MAP) }
            if configuration.inhibitAnyPolicy { flags |= UInt(X509_V_FLAG_INHIBIT_ANY) }
            X509_VERIFY_PARAM_set_flags(parameters, flags)
            let policies = configuration.initialPolicies.isEmpty ? [Configuration.anyPolicy] : configuration.initialPolicies
            let setPolicies = withArrayOfCStrings(policies) { vigil_set_initial_policies(parameters, $0, Int32(policies.count)) }
            guard setPolicies == 1 else {
                OpenSSLSupport.drainErrors()
                return Run(
                    verified: false,
                    reasons: [TrustReason(code: .invalidPolicy, message: "The initial policy set \(policies) is not a list of dotted OIDs.")], chain: [])
            }
            // Whole seconds, rounded down: RFC 5280's validity has a granularity of one second, so
            // a time within the second of notAfter is still that second.
            let seconds = time_t(time.timeIntervalSince1970.rounded(.down))
            X509_VERIFY_PARAM_set_time(parameters, seconds)
            X509_VERIFY_PARAM_set_auth_level(parameters, Int32(configuration.securityLevel))
            if let depth = configuration.maximumIntermediates { X509_VERIFY_PARAM_set_depth(parameters, Int32(depth)) }
            _ = X509_STORE_CTX_set_purpose(context, configuration.purpose == .serverAuth ? X509_PURPOSE_SSL_SERVER : X509_PURPOSE_SSL_CLIENT)
            var nameError: TrustReason?
            if let peerName {
                X509_VERIFY_PARAM_set_hostflags(parameters, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT))
                let ok: Int32
                switch peerName.kind {
                case .dns: ok = X509_VERIFY_PARAM_set1_host(parameters, peerName.value, peerName.value.utf8.count)
                case .ip: ok = X509_VERIFY_PARAM_set1_ip_asc(parameters, peerName.value)
                case .email: ok = X509_VERIFY_PARAM_set1_email(parameters, peerName.value, peerName.value.utf8.count)
                }
                if ok != 1 {
                    OpenSSLSupport.drainErrors()
                    nameError = TrustReason(
                        code: .invalidName, message: "\"\(peerName.value)\" is not a valid \(peerName.kind.rawValue) name to check against.")
                }
            }

            let collector = Collector(time: seconds)
            let unmanaged = Unmanaged.passRetained(collector)
            defer { unmanaged.release() }
            _ = vigil_X509_STORE_CTX_set_app_data(context, unmanaged.toOpaque())
            X509_STORE_CTX_set_verify_cb(context) { ok, context in
                guard ok == 0, let context, let raw = vigil_X509_STORE_CTX_get_app_data(context) else { return ok }
                let collector = Unmanaged<Collector>.fromOpaque(raw).takeUnretainedValue()
                let code = X509_STORE_CTX_get_error(context)
                let depth = Int(X509_STORE_CTX_get_error_depth(context))
                let certificate = X509_STORE_CTX_get_current_cert(context).map { Certificate(retaining: $0) }
                // RFC 5280 4.1.2.5: the validity period includes notAfter. OpenSSL counts a
                // certificate as expired at its notAfter second; Vigil does not.
                if code == X509_V_ERR_CERT_HAS_EXPIRED, let notAfter = certificate?.notAfter,
                    time_t(notAfter.timeIntervalSince1970) == collector.time
                {
                    return 1
                }
                let reason = ReasonText.reason(opensslCode: code, depth: depth, certificate: certificate)
                let key = "\(reason.code)/\(depth)"
                if !collector.seen.contains(key) {
                    collector.seen.insert(key)
                    collector.reasons.append(reason)
                }
                return 1  // keep going: report every reason, decide afterwards
            }

            let result = X509_verify_cert(context)
            OpenSSLSupport.drainErrors()
            var chain: [Certificate] = []
            if let built = X509_STORE_CTX_get1_chain(context) {
                let raw = UnsafeMutableRawPointer(built)
                for index in 0..<vigil_sk_num(raw) {
                    if let x = vigil_sk_value(raw, index) { chain.append(Certificate(retaining: OpaquePointer(x))) }
                }
                vigil_sk_X509_pop_free(raw)
            }
            var reasons = crlProblems + collector.reasons
            if let nameError { reasons.insert(nameError, at: 0) }
            if result != 1 && reasons.isEmpty {
                let code = X509_STORE_CTX_get_error(context)
                reasons.append(ReasonText.reason(opensslCode: code, depth: nil, certificate: nil))
            }
            var run = Run(verified: result == 1, reasons: reasons, chain: chain)
            if run.verified { run.policies = Self.validPolicies(context) }
            return run
        }
    }
}

/// `body` with a C array of the strings (NUL-terminated copies, freed afterwards).
func withArrayOfCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer<CChar>($0) }
    return pointers.withUnsafeBufferPointer { buffer in body(buffer.baseAddress!) }
}

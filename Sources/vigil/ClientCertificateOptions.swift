import ArgumentParser
import FoundationEssentials
import Glibc
import VigilCertificates
import VigilCommandLine
import VigilHTTP
import VigilLogging
import VigilText

/// `--client-certificate FILE [--client-key FILE] [--client-certificate-passphrase-file FILE]`:
/// an account's client certificate (mutual TLS), read, shown for review and checked before
/// anything is sent or kept. The passphrase comes from the file, else the terminal (no echo);
/// never from an argument, which every user of the machine can read.
struct ClientCertificateOptions: ParsableArguments {
    @Option(
        help: "A client certificate for the account (mutual TLS): PKCS#12 (.p12/.pfx), or PEM with the certificate, its chain and the key.",
        completion: Completions.file)
    var clientCertificate: String?
    @Option(
        help: "The client certificate's private key in a file of its own (PEM or DER), or on a token: 'pkcs11:token=...;object=...' (RFC 7512).",
        completion: Completions.file)
    var clientKey: String?
    @Option(help: "Read the passphrase of the client certificate or key (a token's PIN) from this file (first line) instead of the terminal.")
    var clientCertificatePassphraseFile: String?

    func validate() throws {
        if clientCertificate == nil, clientKey != nil || clientCertificatePassphraseFile != nil {
            throw ValidationError("--client-key and --client-certificate-passphrase-file go with --client-certificate.")
        }
        if let key = clientKey, Self.carriesPIN(key) {
            // Never echoed: the message names the attribute, not its value.
            throw ValidationError(
                "--client-key carries the token's PIN (pin-value): every user of this machine can read a command's arguments while it runs. Give the PIN at the prompt or in --client-certificate-passphrase-file, and change it if others share this machine."
            )
        }
    }

    /// A PKCS#11 URI (RFC 7512) with a `pin-value` attribute, in its path or its query, in any
    /// letter case, its name percent-encoded or not.
    static func carriesPIN(_ key: String) -> Bool {
        guard key.lowercased().hasPrefix("pkcs11:") else { return false }
        let attributes = key.dropFirst("pkcs11:".count).split { $0 == ";" || $0 == "?" || $0 == "&" }
        return attributes.contains { attribute in
            let name = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return (PercentEncoding.decode(name) ?? name).lowercased().trimmingSpaces() == "pin-value"
        }
    }

    /// The identity the files hold, shown for review (nil: none given). Throws
    /// ``ClientIdentityError`` for a file that cannot be read or opened (exit 2); a certificate
    /// no server should take is refused later, by setup or edit (exit 1).
    func identity() throws -> ClientIdentity? {
        guard let clientCertificate else { return nil }
        let bytes = try Self.contents(clientCertificate, what: "the client certificate")
        // A key on a token (RFC 7512): its PIN from the passphrase file or the terminal.
        if let uri = clientKey, uri.lowercased().hasPrefix("pkcs11:") {
            var pin = try clientCertificatePassphraseFile.map { try Self.firstLine(of: $0, what: "the PIN file") }
            if pin == nil, isatty(STDIN_FILENO) == 1, let typed = SecretInput.fromTerminal(prompt: "PIN of the token: ") {
                pin = typed
            }
            return try ClientIdentity.read(bytes, tokenURI: uri, pin: pin)
        }
        let key = try clientKey.map { try Self.contents($0, what: "the client key") }
        var passphrase = try clientCertificatePassphraseFile.map { try Self.firstLine(of: $0, what: "the passphrase file") }
        let first = Result { () throws(ClientIdentityError) -> ClientIdentity in try ClientIdentity.read(bytes, key: key, passphrase: passphrase) }
        guard case .failure(let error) = first, error.code == .passphraseNeeded, passphrase == nil, isatty(STDIN_FILENO) == 1 else { return try first.get() }
        guard let typed = SecretInput.fromTerminal(prompt: "Passphrase for \(SafeText.escaped(clientCertificate)): ") else { throw error }
        passphrase = typed
        return try ClientIdentity.read(bytes, key: key, passphrase: passphrase)
    }

    /// The first line of a passphrase or PIN file, without its line ending.
    static func firstLine(of path: String, what: String) throws -> String {
        let text = String(decoding: try contents(path, what: what), as: UTF8.self)
        return String(TextLines.first(of: text)).trimming(charactersIn: "\r")
    }

    static func contents(_ path: String, what: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ClientIdentityError(.unreadable, "Cannot read \(what) \(path) (missing, a directory, or no permission).")
        }
        guard data.count <= 1 << 20 else { throw ClientIdentityError(.unreadable, "\(path) is larger than 1 MB; it is not \(what).") }
        return Array(data)
    }

    /// The review a user sees before the certificate is kept.
    static func review(_ identity: ClientIdentity) -> String {
        let review = identity.review()
        var lines = [
            "Client certificate (presented only to this account's server, after its certificate is accepted):",
            "  Subject:       \(review.subject)",
            "  Issuer:        \(review.issuer)",
            "  Valid:         \(review.notBefore) to \(review.notAfter) (\(review.daysLeft) days left)",
            "  Key:           \(review.key)",
            "  Key usage:     \(review.keyUsage.isEmpty ? "(none)" : review.keyUsage.joined(separator: ", "))",
            "  Extended:      \(review.extendedKeyUsage.isEmpty ? "(none)" : review.extendedKeyUsage.joined(separator: ", "))",
            "  SHA-256:       \(review.sha256)",
        ]
        if review.chainLength > 1 { lines.append("  Chain:         \(review.chainLength - 1) more certificate(s) sent with it") }
        let refusals = identity.refusals()
        for refusal in refusals { lines.append("  Refused:       \(refusal.message)") }
        return SafeText.escaped(lines.joined(separator: "\n"), keepingLines: true)
    }
}

/// `--access-headers-file FILE`: an access proxy's service token (`Name: value` lines, such as
/// Cloudflare Access's CF-Access-Client-Id and CF-Access-Client-Secret) for an account.
struct AccessHeadersOptions: ParsableArguments {
    @Option(
        help:
            "An access proxy's service token for the account: a file of `Name: value` lines (CF-Access-Client-Id, CF-Access-Client-Secret...), sent to the account's server only.",
        completion: Completions.file
    )
    var accessHeadersFile: String?

    /// The headers the file holds (nil: none given). An unreadable or malformed file is an
    /// error (exit 2) that never shows a value.
    func headers() throws -> AccessHeaders? {
        guard let accessHeadersFile else { return nil }
        let bytes = try ClientCertificateOptions.contents(accessHeadersFile, what: "the access headers file")
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw AccessHeadersError(.malformed, "\(accessHeadersFile) is not UTF-8 text of `Name: value` lines.")
        }
        do {
            return try AccessHeaders.parse(text)
        } catch {
            throw AccessHeadersError(error.code, "\(accessHeadersFile): \(error.reason)")
        }
    }
}

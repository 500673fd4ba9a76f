import FoundationEssentials
import Glibc
import Logging
import VigilAuth
import VigilCertificates
import VigilHTTP
import VigilLogging
import VigilSecrets
public import VigilStore
import VigilText

// An existing account: logged in again (after a refused refresh or a changed password), or moved
// to another URL, each with its certificate reviewed as at setup.
extension AccountSetup {
    /// `vigil account login`: an existing account logs in again with its method (after a refused
    /// refresh, a changed password). The server's certificate is judged as on every later
    /// connection (a changed one reviewed with the user); then the method logs in again (for
    /// OpenID Connect with discovery read again), proved on the user's files; the new secrets
    /// replace the old and the account is ready again (audited).
    public func logIn(again account: Account, check: AccountCheck, interaction: any AccountSetupInteraction) async throws -> Account {
        try await Self.checkKeyring(secrets)
        let (result, reviewed) = try await check.reviewedClient(for: account, interaction: interaction)
        guard var client = reviewed else {
            let why: String
            switch result {
            case .refused(let reasons): why = reasons.map(\.message).joined(separator: " ")
            case .changed(let reason): why = reason + " It was not approved."
            default: why = "it is not accepted"
            }
            throw AccountSetupError(.certificateRejected, "The certificate of \(account.server): \(why) Nothing was sent.")
        }
        var current = try await accounts.list().first { $0.id == account.id } ?? account
        guard let method = methods.method(AuthenticationMethodIdentifier(rawValue: current.method)) else {
            throw AccountSetupError(.unsupportedMethod, "The account's method \(current.method) is not one Vigil can log in with.")
        }
        var detection = try await AuthenticationDetector(client: client, paths: options.paths, logger: logger).detect(server: current.server)
        // The provider must be the one the account logged in with: one the server names now is
        // refused before any login (and before any client secret goes to it).
        if method.identifier == .openIDConnect, let known = current.issuer {
            let named = detection.providerIssuer ?? detection.methods.first { $0.identifier == .openIDConnect }?.openIDConfiguration?.issuer
            if let named, AuthenticationDetector.trimmed(named) != AuthenticationDetector.trimmed(known) {
                throw AccountSetupError(
                    .responseRejected,
                    "\(current.server) now names the login provider \(SafeText.escaped(named)), not \(SafeText.escaped(known)), the one this account logged in with; nothing was sent. Remove and add the account again if the server really moved its provider."
                )
            }
        }
        if method.identifier == .openIDConnect, let server = try? Endpoint(url: current.server),
            let both = try await addProvider(
                to: &detection, server: server, serverLeaf: (try? current.reviewedChainPEM.map { try Certificate.parsePEM($0) })??.first,
                interaction: interaction)
        {
            client = both
        }
        if method.identifier == .openIDConnect, let problem = detection.rejectedOpenIDConnect {
            throw AccountSetupError(.responseRejected, "\(current.server) offers OpenID Connect through an unsafe discovery document: \(problem)")
        }
        let context = AuthenticationContext(
            server: current.server, user: current.user, client: client, detection: detection, settings: options.authentication(for: current.server))
        let started = Date()
        let login = try await Self.mapped { try await method.logIn(context, interaction: interaction) }
        if method.usesTokens { _ = try await loggedInUser(login, base: current.server, expected: current.user, client: client) }
        // The same person at the provider as at setup: a stable identity, whatever names change.
        if let issuer = current.issuer, let subject = current.subject, login.issuer != issuer || login.subject != subject {
            throw AccountSetupError(
                .responseRejected,
                "The provider logged in another identity (\(SafeText.escaped(login.issuer ?? "?")) \(SafeText.escaped(login.subject ?? "?"))) than the account's (\(SafeText.escaped(issuer)) \(SafeText.escaped(subject))); nothing is kept."
            )
        }
        try await checkFiles(login, base: current.server, user: current.user, client: client, newToken: method.usesTokens)
        current.issuer = current.issuer ?? login.issuer
        current.subject = current.subject ?? login.subject
        current.clientID = login.clientID ?? current.clientID
        current.tokenEndpoint = login.tokenEndpoint ?? current.tokenEndpoint
        current.revocationEndpoint = login.revocationEndpoint ?? current.revocationEndpoint
        current.noRefreshToken = method.usesTokens && login.secrets[.refreshToken] == nil
        // A new app password replaces the old, which is revoked at the server (best effort).
        var previous: Secret?
        var previousUnread: (any Error)?
        if method.identifier == .loginFlowV2 {
            do { previous = try await secrets.secret(for: SecretKey(account: current.secretAccount, kind: .password)) } catch { previousUnread = error }
        }
        current.tokenExpiresAt = AccountTokens.expiry(expiresIn: login.expiresIn, override: options.tokenLifetimeOverride, from: started)
        let replaced = try await registry.replace(current, secrets: login.secrets, because: "logged in again")
        if let previousUnread {
            await interaction.progress(
                "The previous app password could not be read from the keyring (\(previousUnread)), so it was not revoked: remove it in the server's security settings."
            )
        }
        // A login that issued no refresh token: the previous login's is not kept beside it.
        if current.noRefreshToken { _ = try? await secrets.remove(SecretKey(account: current.secretAccount, kind: .refreshToken)) }
        if let previous, let fresh = login.secrets[.password], previous != fresh {
            let revoked = (try? await LoginFlowV2(client: client, server: current.server).revoke(appPassword: previous, loginName: current.user)) ?? false
            await interaction.progress(
                revoked
                    ? "The previous app password was revoked at the server."
                    : "The previous app password could not be revoked: remove it in the server's security settings.")
        }
        return replaced
    }

    /// Moves `account` to the server at `url` (a new name, a new port): the new server is reviewed
    /// as at setup (its certificate shown, approved or refused; status.php an ownCloud or
    /// OpenCloud server's; no redirect followed), then a password account's stored password is
    /// proved on the user's files there before it moves with the account; a token account's tokens
    /// stay behind (they are the old server's) and it needs `vigil account login`. Audited.
    public func move(_ account: Account, to url: String, interaction: any AccountSetupInteraction) async throws -> Account {
        try await Self.checkKeyring(secrets)
        let target = url.hasSuffix("/") ? String(url.dropLast()) : url
        if Self.hasUserInformation(target) {
            throw AccountSetupError(.invalidURL, "The URL \(Self.withoutUserInformation(target)) carries a user name or password; nothing was sent.")
        }
        if !options.urlEditable, let locked = options.defaultURL, Self.normalized(target) != Self.normalized(locked) {
            throw AccountSetupError(
                .policy, "The administrator locked the server to \(locked) (bookmark.url-editable is false); \(target) is not it. Nothing was sent.")
        }
        guard target.lowercased().hasPrefix("https://"), let endpoint = try? Endpoint(url: target) else {
            throw AccountSetupError(.invalidURL, "\(url) is not an https URL; accounts live on https only.")
        }
        guard Self.normalized(target) != Self.normalized(account.server) else {
            throw AccountSetupError(.invalidURL, "The account is on \(account.server) already.")
        }
        let (client, chain) = try await reviewedClient(for: endpoint, interaction: interaction)
        let status = try await client.send(HTTPRequest(url: "\(target)/\(options.statusPath)"))
        if let redirect = status.redirect {
            throw AccountSetupError(
                .redirected, "\(target) redirects to \(redirect.location); move the account there instead. Nothing was sent.", redirect: redirect)
        }
        try Self.checkStatus(status, base: target, tries: 1, minimumVersion: options.minimumServerVersion)
        guard let method = methods.method(AuthenticationMethodIdentifier(rawValue: account.method)) else {
            throw AccountSetupError(.unsupportedMethod, "The account's method \(account.method) is not one Vigil can use.")
        }
        var stored: [SecretKey.Kind: Secret] = [:]
        for kind in method.secretKinds { stored[kind] = try await secrets.secret(for: SecretKey(account: account.secretAccount, kind: kind)) }
        let moved: Account
        if !method.usesTokens, let authorization = method.authorization(user: account.user, secrets: stored) {
            let login = AuthenticationLogin(
                secrets: stored, authorization: Secret(authorization),
                refusal: "\(target) refused \(account.user)'s stored password: is it the same server's user?")
            try await checkFiles(login, base: target, user: account.user, client: client, newToken: false)
            moved = try await accounts.move(id: account.id, to: target, reviewedChainPEM: Self.pem(chain), needsLogin: false)
            try await registry.store(stored, of: moved)
        } else {
            moved = try await accounts.move(id: account.id, to: target, reviewedChainPEM: Self.pem(chain), needsLogin: true)
        }
        // The old server's secrets leave the keyring; one that cannot is named, never left unsaid
        // (no account will find it under the old name again).
        let left = await registry.removeSecrets(of: account, kinds: SecretKey.Kind.allKinds)
        if !left.isEmpty {
            await interaction.progress(
                "Not removed from the keyring, under \(account.secretAccount): \(left.joined(separator: "; ")). Remove them with your keyring's manager (seahorse, secret-tool)."
            )
        }
        let given = [account.clientCertificatePEM != nil ? "client certificate" : nil, account.accessHeaderNames != nil ? "access headers" : nil]
            .compactMap { $0 }
        if !given.isEmpty {
            await interaction.progress(
                "The account's \(given.joined(separator: " and ")) were given for \(account.server) and are not carried to \(target): give them again with \(SuggestedCommand.line(["vigil", "account", "edit", moved.id, "--client-certificate", "FILE"])) / --access-headers-file FILE."
            )
        }
        logger.privacy.notice("Moved an account from \(account.server) to \(target)", metadata: ["tags": "setup"])
        return moved
    }
}

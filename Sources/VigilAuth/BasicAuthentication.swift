import FoundationEssentials
import Glibc
public import VigilSecrets

/// HTTP Basic: the password asked last (after the certificate and the server are known), proved
/// on the files root by setup before it is kept.
public struct BasicAuthentication: AuthenticationMethod {
    /// `com.owncloud.basicauth`.
    public let identifier = AuthenticationMethodIdentifier.basicAuth
    /// The password alone.
    public let secretKinds: [SecretKey.Kind] = [.password]
    /// False: the password itself authorizes every request.
    public let usesTokens = false

    /// The method; it has no settings.
    public init() {}

    /// Asks the interaction for the password and returns it with its Basic header.
    /// Throws `AuthenticationError` (`.noPassword`) when none or an empty one is given.
    public func logIn(_ context: AuthenticationContext, interaction: any AuthenticationInteraction) async throws -> AuthenticationLogin {
        guard let password = await interaction.password(user: context.user, server: context.server), !password.isEmpty else {
            throw AuthenticationError(.noPassword, "No password was given.")
        }
        return AuthenticationLogin(
            secrets: [.password: password], authorization: Secret(Self.header(user: context.user, password: password)),
            refusal: "\(context.server) refused the user name or password.")
    }

    /// `Basic` and base64 of `user:password`, from the stored password; nil without one.
    public func authorization(user: String, secrets: [SecretKey.Kind: Secret]) -> String? {
        secrets[.password].map { Self.header(user: user, password: $0) }
    }

    static func header(user: String, password: Secret) -> String {
        password.withValue { "Basic " + Data("\(user):\($0)".utf8).base64EncodedString() }
    }
}

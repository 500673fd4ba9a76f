import Testing

@testable import VigilAuth

/// A provider that refuses Vigil's loopback redirect: recognised from its error, and the error
/// says exactly what to register, with the port when one is fixed.
@Suite("Registering the loopback redirect")
struct RedirectRegistrationTests {
    @Test func aRefusalOfTheRedirectIsRecognised() {
        #expect(RedirectRegistration.refusesRedirect(error: "invalid_redirect_uri", description: nil))
        #expect(RedirectRegistration.refusesRedirect(error: "invalid_request", description: "Invalid parameter: redirect_uri"))
        #expect(RedirectRegistration.refusesRedirect(error: "invalid_client_metadata", description: "redirect URI not allowed"))
        #expect(!RedirectRegistration.refusesRedirect(error: "access_denied", description: "The user declined"))
        #expect(!RedirectRegistration.refusesRedirect(error: nil, description: nil))
    }

    @Test func theAdviceNamesWhatToRegister() {
        let free = RedirectRegistration.advice(redirectURI: "http://127.0.0.1:41187/callback", fixedPort: 0, clientID: "vigil")
        #expect(free.contains("http://127.0.0.1:41187/callback") && free.contains("Register http://127.0.0.1/callback for the client vigil"))
        #expect(free.contains("RFC 8252") && free.contains("authentication-oauth2.oa2-redirect-port") && free.contains("docs/oidc-providers.md"))
        let fixed = RedirectRegistration.advice(redirectURI: "http://127.0.0.1:53682/callback", fixedPort: 53682, clientID: nil)
        #expect(fixed.contains("Register exactly http://127.0.0.1:53682/callback") && !fixed.contains("any port"))
    }

    @Test func aTimeoutSaysWhatAnErrorPageMeans() {
        let waited = OAuth2Login.explained(
            OAuth2Error(.timeout, "The browser did not come back within the time allowed."), redirectURI: "http://127.0.0.1:1/callback", fixedPort: 0,
            clientID: "c")
        #expect(
            waited.code == .timeout && waited.reason.contains("Invalid parameter: redirect_uri") && waited.reason.contains("register http://127.0.0.1/callback")
        )
        let cancelled = OAuth2Login.explained(
            OAuth2Error(.timeout, "The login was cancelled before the browser came back."), redirectURI: "x", fixedPort: 0, clientID: "c")
        #expect(!cancelled.reason.contains("register"), "a cancel is not a refusal")
    }
}

internal import CCurl
import Glibc

/// A connect-only transfer's way through its proxy, set on a curl handle: the proxy chosen (its
/// host, which the capture verifies an https proxy by), the credential offered, and the proxy's
/// answers listened to, so that its refusal (a 407, a CONNECT refused) is said as the proxy's.
/// What it holds is freed with it. The probe's handshake and its raw ClientHello share it.
final class ProxyHookup {
    let choice: ProxyChoice
    /// The proxy's host for the capture; nil without a proxy.
    let proxyHost: UnsafeMutablePointer<CChar>?
    let offer: ProxyChoice.Offer
    let answer = ProxyAnswer()
    private let context: Unmanaged<ProxyAnswer>

    init(
        _ handle: UnsafeMutableRawPointer, choice: ProxyChoice, capture: UnsafeMutablePointer<vigil_tls_capture>?, kept: ProxyCredential?,
        environment: [String: String]
    ) throws {
        self.choice = choice
        (proxyHost, offer) = try choice.apply(to: handle, capture: capture, kept: kept, environment: environment)
        context = Unmanaged.passRetained(answer)
        try Curl.check(
            vigil_curl_setopt_callback(handle, CURLOPT_HEADERFUNCTION, ProxyAnswer.callback, CURLOPT_HEADERDATA, context.toOpaque()),
            CURLOPT_HEADERFUNCTION)
    }

    deinit {
        free(proxyHost)
        context.release()
    }

    /// The proxy's refusal, when that is what ended the transfer with `code` (its 407, or its own
    /// answer to the CONNECT to `endpoint`); nil otherwise.
    func refusal(on handle: UnsafeMutableRawPointer, code: CURLcode, to endpoint: Endpoint) -> HTTPError? {
        guard code != CURLE_OK else { return nil }
        if let refused = ProxyChallenge.raised(on: handle, by: choice.identity, answer: answer, plainRequest: false, offer: offer, curlCode: code) {
            return refused
        }
        return ProxyChallenge.tunnelRefused(on: handle, by: choice.identity, to: endpoint.description, curlCode: code)
    }
}

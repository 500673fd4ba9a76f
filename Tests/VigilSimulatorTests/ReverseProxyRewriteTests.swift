import NIOHTTP1
import Testing
import VigilTestSupport

@testable import VigilSimulator

@Suite("Reverse proxy rewriting")
struct ReverseProxyRewriteTests {
    /// Redirects the server behind sends to itself come back on the front's origin.
    @Test func redirectsToTheUpstreamAreRewritten() throws {
        let proxy = try ReverseProxy(url: "https://cloud.example.test:8443/owncloud", caFile: TestPaths.caBundle)
        func location(_ value: String) -> String? {
            let head = HTTPResponseHead(version: .http1_1, status: .found, headers: ["Location": value])
            return proxy.clientAnswer(head, body: [], clientOrigin: "https://127.0.0.1:9000").headers.first { $0.0 == "Location" }?.1
        }
        #expect(location("https://cloud.example.test:8443/owncloud/index.php/login") == "https://127.0.0.1:9000/index.php/login")
        #expect(location("/owncloud/status.php") == "/status.php")
        #expect(location("https://cloud.example.test:8443/owncloudx/") == "https://cloud.example.test:8443/owncloudx/", "another path is not the prefix")
        #expect(location("https://elsewhere.test/") == "https://elsewhere.test/")
        let head = proxy.upstreamHead(
            HTTPRequestHead(version: .http1_1, method: .GET, uri: "/status.php", headers: ["Host": "127.0.0.1:9000", "Connection": "keep-alive"]),
            bodyLength: 0, clientScheme: "https")
        #expect(head.uri == "/owncloud/status.php" && head.headers["host"] == ["cloud.example.test:8443"] && head.headers["connection"] == ["close"])
    }
}

import Testing
import VigilHTTP

/// Pins and pre-approvals find a host however the setting and the URL write it.
@Suite("Host keys of pins and pre-approvals")
struct HostKeyTests {
    static let pin = String(repeating: "A", count: 43) + "="

    @Test(arguments: [
        ("[0:0:0:0:0:0:0:1]:8443", "::1", 8443, true), ("[::1]", "0:0:0:0:0:0:0:1", 443, true), ("CLOUD.example.test:0443", "cloud.example.test", 443, true),
        ("cloud.example.test:8443", "cloud.example.test", 443, false), ("127.0.0.1", "127.0.0.1", 9999, true),
    ])
    func aSettingFindsItsHost(setting: String, host: String, port: Int, found: Bool) {
        let pins = PublicKeyPins(settingValues: ["\(setting)=\(Self.pin)"])
        #expect(pins.pins(for: Endpoint(host: host, port: port)).isEmpty == !found, "\(setting) for \(host):\(port)")
        let approved = PreApprovedCertificates(settingValues: ["\(setting)=" + String(repeating: "ab", count: 32)])
        #expect(approved.fingerprints(for: Endpoint(host: host, port: port)).isEmpty == !found)
    }
}

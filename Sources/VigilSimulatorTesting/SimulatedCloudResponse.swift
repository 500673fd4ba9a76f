/// An answer a ``SimulatedCloudClient`` received.
public struct SimulatedCloudResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The header fields, in order, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// An answer as received.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first field named `name` (any case), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }
}

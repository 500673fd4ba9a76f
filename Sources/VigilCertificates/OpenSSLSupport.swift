internal import COpenSSL
import FoundationEssentials
import Glibc

/// Small helpers around OpenSSL memory BIOs, the error queue and OIDs. Internal only.
enum OpenSSLSupport {
    /// Runs `body` with a fresh memory BIO and returns what it wrote, as UTF-8.
    static func printed(_ body: (OpaquePointer) -> Int32) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard body(bio) > 0 else { return nil }
        return string(of: bio)
    }

    /// Runs `body` once per element with one memory BIO, emptied before each, and returns what
    /// each run wrote (nil where it failed): a certificate's extensions print into one BIO.
    static func printedEach<Element>(_ elements: [Element], _ body: (OpaquePointer, Element) -> Int32) -> [String?] {
        guard let bio = BIO_new(BIO_s_mem()) else { return elements.map { _ in nil } }
        defer { BIO_free(bio) }
        return elements.map { element in
            _ = BIO_ctrl(bio, BIO_CTRL_RESET, 0, nil)
            return body(bio, element) > 0 ? string(of: bio) : nil
        }
    }

    static func string(of bio: OpaquePointer) -> String {
        var pointer: UnsafeMutablePointer<CChar>?
        let length = vigil_BIO_get_mem_data(bio, &pointer)
        guard length > 0, let pointer else { return "" }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: Int(length))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Drains OpenSSL's thread-local error queue and returns the last message, if any.
    @discardableResult
    static func drainErrors() -> String? {
        var last: String?
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            last = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return last
    }

    /// The short name of an OID when OpenSSL knows one, else its dotted form.
    static func name(of object: OpaquePointer?) -> String {
        guard let object else { return "" }
        let nid = OBJ_obj2nid(object)
        if nid != NID_undef, let long = OBJ_nid2ln(nid) { return String(cString: long) }
        return dotted(object)
    }

    static func dotted(_ object: OpaquePointer?) -> String {
        guard let object else { return "" }
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        guard length > 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)

    /// Hex of `bytes`, two digits a byte, with an optional one-byte separator (":").
    static func hex(_ bytes: some Sequence<UInt8>, separator: String = "", uppercase: Bool = false) -> String {
        let digits = uppercase ? upperHexDigits : hexDigits
        let separatorByte = separator.utf8.first
        var output: [UInt8] = []
        output.reserveCapacity(bytes.underestimatedCount * 3)
        for byte in bytes {
            if let separatorByte, !output.isEmpty { output.append(separatorByte) }
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var fields = tm()
        guard ASN1_TIME_to_tm(time, &fields) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&fields)))
    }

    static func bytes(of string: UnsafePointer<ASN1_STRING>?) -> [UInt8] {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }
}

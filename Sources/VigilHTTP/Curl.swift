internal import CCurl

/// libcurl's options set one way: every result checked. An option libcurl refuses (a libcurl
/// built without a feature, a value out of range) fails the transfer before it starts with an
/// ``HTTPError`` that names the option, instead of a transfer made without it.
enum Curl {
    static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) throws {
        try check(vigil_curl_setopt_long(handle, option, value), option)
    }

    static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, text value: String) throws {
        try check(vigil_curl_setopt_string(handle, option, value), option)
    }

    static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws {
        try check(vigil_curl_setopt_pointer(handle, option, value), option)
    }

    static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, offset value: curl_off_t) throws {
        try check(vigil_curl_setopt_offset(handle, option, value), option)
    }

    /// A libcurl result: anything but CURLE_OK is an error naming `option` (its number: libcurl
    /// has no names for them at run time).
    static func check(_ code: CURLcode, _ option: CURLoption) throws {
        try check(code, "option \(option.rawValue)")
    }

    static func check(_ code: CURLcode, _ what: String) throws {
        guard code == CURLE_OK else {
            let reason = vigil_curl_easy_strerror(code).map { String(cString: $0) } ?? "code \(code.rawValue)"
            throw HTTPError(.transport, "libcurl refused \(what): \(reason).", curlCode: Int(code.rawValue))
        }
    }
}

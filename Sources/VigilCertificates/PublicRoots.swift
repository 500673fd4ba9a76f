internal import COpenSSL
import FoundationEssentials
import Glibc

/// The public roots: Mozilla's root program as Debian's `ca-certificates` ships it, one PEM file
/// per root in `/usr/share/ca-certificates/mozilla` (`VIGIL_PUBLIC_ROOTS`: another directory, or
/// one PEM bundle). A root of the system store that is not one of them was added to this machine
/// (by an administrator, a TLS-inspecting proxy's installer, a private CA's package): it is a
/// *locally added root*, and its chains are not the public Web PKI.
///
/// Only "is this certificate one of them" is asked, by the same DER (``SystemAnchors/contains(der:inPEM:)``).
/// The quick way, on the default layout: OpenSSL's hashed links in `/etc/ssl/certs`
/// (`SUBJECTHASH.N`, what `update-ca-certificates` makes) name the files a root of that subject
/// comes from; only one under the public list's directory, with the same DER, makes it public (a
/// few system calls instead of reading 140-odd files); no link for the subject means no such
/// root is installed from the list. Without hashed links, or with `VIGIL_PUBLIC_ROOTS`, every
/// file of the list is read once (sorted by name, so the text does not
/// depend on readdir's order). When the list cannot be read, nothing is said about which roots are
/// public (``isKnown`` is false).
public enum PublicRoots {
    /// The default list: one file per root.
    static let defaultLocation = "/usr/share/ca-certificates/mozilla"
    /// OpenSSL's hashed directory of the system store.
    static let hashedDirectory = "/etc/ssl/certs"

    /// Where the list is read from.
    public static let location: String = {
        if let given = ProcessInfo.processInfo.environment["VIGIL_PUBLIC_ROOTS"], !given.isEmpty { return given }
        return defaultLocation
    }()

    /// True when the list can be read (the default directory holds a root file; or the given
    /// directory or bundle holds a certificate).
    public static let isKnown: Bool = {
        guard location == defaultLocation else { return !pem.isEmpty }
        return hasEntry(in: defaultLocation) { $0.hasSuffix(".crt") }
    }()

    /// The PEM text of every public root (files joined), read on first need; empty when none could be read.
    static let pem: [UInt8] = read(location)

    /// Whether `certificate` is a public root; nil when the list is unknown.
    static func contains(_ certificate: Certificate) -> Bool? {
        guard isKnown else { return nil }
        if location == defaultLocation, let quick = linkedLookup(certificate) { return quick }
        return SystemAnchors.contains(der: certificate.derEncoded, inPEM: pem)
    }

    /// Through `/etc/ssl/certs/HASH.N`: true when a link of the certificate's subject resolves into
    /// the public list to a file holding the same DER; false when links exist and none does; nil
    /// when no link names the subject (the caller reads the whole list).
    static func linkedLookup(_ certificate: Certificate) -> Bool? {
        let hex = String(X509_subject_name_hash(certificate.storage.x509), radix: 16)
        let name = String(repeating: "0", count: max(0, 8 - hex.count)) + hex
        var sawLink = false
        for index in 0..<10 {
            let link = hashedDirectory + "/" + name + "." + String(index)
            guard let resolved = realpath(link, nil) else { break }
            let target = String(cString: resolved)
            free(resolved)
            sawLink = true
            guard target.hasPrefix(defaultLocation + "/"), let data = FileManager.default.contents(atPath: target) else { continue }
            if SystemAnchors.contains(der: certificate.derEncoded, inPEM: [UInt8](data)) { return true }
        }
        // No link names the subject: on a hashed layout, no root of that subject is in the system
        // store from the list (a root the administrator disabled is not linked either).
        return sawLink || hashedLayout ? false : nil
    }

    /// The system store is a hashed directory (`update-ca-certificates` ran): it holds `*.0` links.
    static let hashedLayout = hasEntry(in: hashedDirectory) { $0.count == 10 && $0.hasSuffix(".0") }

    /// Whether `directory` holds an entry whose name matches (read until the first that does).
    static func hasEntry(in directory: String, where matches: (String) -> Bool) -> Bool {
        guard let stream = opendir(directory) else { return false }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            if matches(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }) { return true }
        }
        return false
    }

    /// A directory's regular files (sorted by name), or one file; a file without a certificate
    /// block adds nothing.
    static func read(_ path: String) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            guard let data = FileManager.default.contents(atPath: path) else { return [] }
            let bytes = [UInt8](data)
            return PEMBlocks(bytes).contains(where: { $0.isComplete }) ? bytes : []
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        var text: [UInt8] = []
        for name in names where !name.hasPrefix(".") {
            guard let data = FileManager.default.contents(atPath: path + "/" + name) else { continue }
            text += data
            text.append(UInt8(ascii: "\n"))
        }
        return PEMBlocks(text).contains(where: { $0.isComplete }) ? text : []
    }
}

import FoundationEssentials
import Glibc

/// The public roots: Mozilla's root program as Debian's `ca-certificates` ships it, one PEM file
/// per root in `/usr/share/ca-certificates/mozilla` (`VIGIL_PUBLIC_ROOTS`: another directory, or
/// one PEM bundle). A root of the system store that is not one of them was added to this machine
/// (by an administrator, a TLS-inspecting proxy's installer, a private CA's package): it is a
/// *locally added root*, and its chains are not the public Web PKI.
///
/// Read once, when a chain first ends in the system store; only "is this certificate one of
/// them" is asked, by the same DER (``SystemAnchors/contains(der:inPEM:)``). When the list
/// cannot be read, nothing is said about which roots are public (``isKnown`` is false).
public enum PublicRoots {
    /// Where the list is read from.
    public static let location: String = {
        if let given = ProcessInfo.processInfo.environment["VIGIL_PUBLIC_ROOTS"], !given.isEmpty { return given }
        return "/usr/share/ca-certificates/mozilla"
    }()

    /// The PEM text of every public root (files joined); empty when none could be read.
    static let pem: [UInt8] = read(location)

    /// True when the list was read and holds at least one certificate.
    public static var isKnown: Bool { !pem.isEmpty }

    /// Whether `certificate` is a public root; nil when the list is unknown.
    static func contains(_ certificate: Certificate) -> Bool? {
        guard isKnown else { return nil }
        return SystemAnchors.contains(der: certificate.derEncoded, inPEM: pem)
    }

    /// A directory's regular files (sorted by name, so that the text does not depend on the order
    /// readdir gives), or one file; a file without a certificate block adds nothing.
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

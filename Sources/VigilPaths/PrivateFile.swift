import Glibc

/// Vigil's private files (the log, a TLS key log, the database): never reached through a symbolic
/// link, only the user's own regular files, readable by the user alone.
package enum PrivateFile {
    /// Why a file was not opened.
    package enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// The path is a symbolic link (`open` with `O_NOFOLLOW` failed with `ELOOP`).
        case symbolicLink
        /// The file is not a regular file, or is owned by another user.
        case notOwnRegularFile
        /// The file could not be opened or made private; the reason, from `strerror`.
        case cannotOpen(String)

        /// The reason in words, such as "it is a symbolic link".
        package var description: String {
            switch self {
            case .symbolicLink: return "it is a symbolic link"
            case .notOwnRegularFile: return "it is not a regular file of this user"
            case .cannotOpen(let reason): return reason
            }
        }
    }

    /// `path` opened for appending (created 0600), without following a symlink; an existing file
    /// of the user's with a wider mode is tightened to 0600. Returns the descriptor and its size.
    package static func openForAppending(_ path: String) -> Result<(descriptor: Int32, size: Int), Refusal> {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            return .failure(errno == ELOOP ? .symbolicLink : .cannotOpen(String(cString: strerror(errno))))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid() else {
            close(fd)
            return .failure(.notOwnRegularFile)
        }
        if info.st_mode & 0o077 != 0, fchmod(fd, 0o600) != 0 {
            close(fd)
            return .failure(.cannotOpen("cannot make it private: " + String(cString: strerror(errno))))
        }
        return .success((fd, Int(info.st_size)))
    }

    /// An existing regular file of the user's (not a symlink) readable by others is tightened to 0600.
    package static func tighten(_ path: String) {
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid(), info.st_mode & 0o077 != 0 {
            _ = chmod(path, 0o600)
        }
    }
}

extension PrivateFile {
    /// A new directory `base/prefix-XXXXXX` (mkdtemp: a name nobody had, mode 0700); its path, or
    /// nil with errno set.
    package static func makeDirectory(in base: String, prefix: String) -> String? {
        var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) } }
    }
}

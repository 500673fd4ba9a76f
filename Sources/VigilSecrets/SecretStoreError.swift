public import VigilErrors

/// A secret store that could not do what was asked. The reason never contains a secret.
public struct SecretStoreError: CodedError, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unavailable = "unavailable"
            case locked = "locked"
            case denied = "denied"
            case invalidKey = "invalid-key"
            case invalidSecret = "invalid-secret"
            case failed = "failed"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No Secret Service answers (no D-Bus session, no keyring daemon).
        public static let unavailable = Code(.unavailable)
        /// The keyring is locked and was not unlocked.
        public static let locked = Code(.locked)
        /// The user dismissed the keyring's prompt.
        public static let denied = Code(.denied)
        /// The account or kind is not acceptable (``SecretKey/init(account:kind:)``).
        public static let invalidKey = Code(.invalidKey)
        /// The secret is not acceptable (it contains a NUL byte, which the Secret Service's text
        /// interface cannot carry).
        public static let invalidSecret = Code(.invalidSecret)
        /// Anything else the Secret Service reported.
        public static let failed = Code(.failed)

        /// The code's name (`unavailable`, `invalid-key`).
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// One sentence for a person; never contains a secret.
    public var reason: String
    /// Where the error was raised (`#fileID`).
    public let file: String
    /// The line where the error was raised (`#line`).
    public let line: Int

    /// An error with `code` and `reason`, raised at the caller's file and line.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// `secret store: <code>: <reason>`.
    public var description: String { "secret store: \(code): \(reason)" }

    /// How to give Vigil a keyring, for a Secret Service that is missing, locked or not open to
    /// Vigil (nil for other codes): said wherever such an error reaches a person.
    public var advice: String? {
        guard code == .unavailable || code == .locked || code == .denied else { return nil }
        if code == .locked {
            return "Unlock the keyring: a desktop login unlocks the login keyring (PAM); without one, "
                + "gnome-keyring-daemon --unlock reads its password on standard input, or any Secret Service client that prompts unlocks it. "
                + "A timer's session (systemd --user, cron) finds it locked unless the login that started it unlocked it."
        }
        return "Vigil keeps passwords and tokens only in a Secret Service keyring, never in a file: "
            + "run one in a D-Bus session (GNOME Keyring: gnome-keyring-daemon --start --components=secrets, or KeePassXC with its Secret Service integration; "
            + "without a desktop, dbus-run-session starts a session) and unlock it."
    }

    /// The state of the keyring in words (`No Secret Service answers`, `The keyring is locked`).
    public var situation: String {
        code == .unavailable ? "No Secret Service answers" : code == .locked ? "The keyring is locked" : "The keyring is not open to Vigil"
    }
}

extension SecretStoreError {
    /// What happened to the keyring, and what to do when there is something to do.
    public var message: String {
        if let advice { return "\(situation) (\(reason)). \(advice)" }
        return "the keyring: \(reason)"
    }
}

import CSecret

/// What a process that holds secrets does first: no core dump (a crash must not write a password
/// to disk) and not dumpable (no ptrace or /proc/PID/mem reading by other processes of the user).
public enum ProcessHygiene {
    /// Applies both; true when they took effect.
    @discardableResult
    public static func apply() -> Bool { vigil_secrets_process_hygiene() == 0 }
}

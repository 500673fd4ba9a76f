import VigilCommandLine
import VigilHTTP
import VigilSecrets

/// What a network command starts as soon as it is parsed (``VigilCommandLine/EarlyStart``): the
/// transfer library, and for a command that reads an account's secrets the keyring's session.
enum EarlyWork {
    /// libcurl loaded and initialised on a thread of its own.
    static func transfers() {
        TLSProbe.guardKeyLogBeforeThreads()
        EarlyStart.begin("vigil-libcurl") { TLSProbe.loadLibrary() }
    }

    /// libsecret loaded and the keyring's D-Bus session opened, on the keyring's queue.
    static func keyring() {
        EarlyStart.begin("vigil-keyring") { KeyringSecretStore.warmUpWaiting() }
    }
}

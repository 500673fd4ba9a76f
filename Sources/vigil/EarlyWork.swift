import VigilCommandLine
import VigilHTTP

/// What a network command starts as soon as it is parsed (``VigilCommandLine/EarlyStart``): the
/// transfer library. Not the keyring's session: measured, starting it early too made `account
/// check` slower (51 ms against 42 ms), as the two libraries' loads wait on each other (`dlopen`
/// holds one lock) and compete for the two cores with the command's own start.
enum EarlyWork {
    /// libcurl loaded and initialised on a thread of its own.
    static func transfers() {
        TLSProbe.guardKeyLogBeforeThreads()
        EarlyStart.begin("vigil-libcurl") { TLSProbe.loadLibrary() }
    }
}

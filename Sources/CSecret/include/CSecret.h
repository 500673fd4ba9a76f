// libsecret for Swift, loaded on first use. Swift cannot call C variadic functions, so the calls
// that take attributes as varargs are made in C (vigil_secret.c), with Vigil's fixed schema.
//
// libsecret and GLib are not linked: libsecret-1.so.0 is opened with dlopen when a secret is first
// needed, so that commands without one never map GLib, GIO and GObject. vigil_secret.c is compiled
// against libsecret's and GLib's own headers: its one table of functions has their prototypes'
// types (typeof), and errors are classified by their constants, never by numbers written here.
#ifndef VIGIL_CSECRET_H
#define VIGIL_CSECRET_H

/// A GLib error (opaque here): read it with the functions below, free it with vigil_secret_error_free.
typedef struct _GError GError;

/// Why libsecret cannot be used, or NULL when it can: not installed, or without a function the
/// table names (secret_retrievable_get_attributes needs libsecret 0.19). Checked before any call.
const char *vigil_secret_load_error(void);

/// Stores `secret` for (account, kind) in the default collection; 1 on success, else *error.
int vigil_secret_store(const char *account, const char *kind, const char *label, const char *secret, GError **error);
/// The secret or NULL (none stored, or an error in *error). Free with vigil_secret_password_free.
char *vigil_secret_lookup(const char *account, const char *kind, GError **error);
/// 1 when a secret was removed; 0 when there was none (or an error in *error).
int vigil_secret_clear(const char *account, const char *kind, GError **error);
/// libsecret wipes the copy before freeing it.
void vigil_secret_password_free(char *password);
/// The accounts that hold a secret of this kind (or, with kind NULL, of any kind), as a
/// NULL-terminated array of strings; free with vigil_secret_strings_free. NULL on error.
char **vigil_secret_accounts(const char *kind, GError **error);
void vigil_secret_strings_free(char **strings);

/// What a failure means for Vigil, decided by GLib's and libsecret's own error domains and codes.
typedef enum {
    VIGIL_SECRET_FAILED = 0,
    /// SECRET_ERROR_IS_LOCKED: the collection is locked.
    VIGIL_SECRET_LOCKED = 1,
    /// G_IO_ERROR_CANCELLED: the user dismissed the unlock prompt.
    VIGIL_SECRET_DENIED = 2,
    /// A D-Bus, I/O or spawn error: no Secret Service is reachable.
    VIGIL_SECRET_UNAVAILABLE = 3,
} vigil_secret_failure;
vigil_secret_failure vigil_secret_error_kind(const GError *error);
/// The same for an error named by its domain's string and its code.
vigil_secret_failure vigil_secret_classify(const char *domain, int code);
const char *vigil_secret_error_message(const GError *error);
void vigil_secret_error_free(GError *error);

/// Loads libsecret and opens the Secret Service session the next calls use (D-Bus connection,
/// key exchange), reading no item and asking nothing: 1 when it is ready, 0 when not (the next
/// call then reports why).
int vigil_secret_warm_up(void);

/// The item of (account, kind), found by a search that reads no secret and shows no prompt: 0
/// none, 1 there and readable, 2 there in a locked collection, -1 on error (in *error).
int vigil_secret_item_state(const char *account, const char *kind, GError **error);

/// A process holding secrets leaves no core dump and cannot be read by ptrace or /proc/PID/mem by
/// other processes of the same user: RLIMIT_CORE 0 (also for its children) and not dumpable.
/// (prctl is variadic: Swift calls it here.) Returns 0 when both took effect.
int vigil_secrets_process_hygiene(void);

#endif

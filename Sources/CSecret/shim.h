// libsecret for Swift, loaded on first use. Swift cannot call C variadic functions, so the calls
// that take attributes as varargs are made here, in C, with Vigil's fixed schema.
//
// libsecret and GLib are not linked (no pkg-config `--libs`): libsecret-1.so.0 is opened with
// dlopen when a secret is first needed, so that commands without one never map GLib, GIO and
// GObject. This header therefore declares the few GLib and libsecret types it uses itself, as
// their stable public ABI defines them (glib/gerror.h, glib/glist.h, libsecret/secret-schema.h).
#ifndef VIGIL_CSECRET_SHIM_H
#define VIGIL_CSECRET_SHIM_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

typedef char gchar;
typedef int gint;
typedef gint gboolean;
typedef unsigned int guint;
typedef unsigned int GQuark;
typedef void *gpointer;
typedef struct _GHashTable GHashTable;
typedef struct _GError { GQuark domain; gint code; gchar *message; } GError;
typedef struct _GList { gpointer data; struct _GList *next; struct _GList *prev; } GList;
typedef struct { const gchar *name; gint type; } SecretSchemaAttribute;
typedef struct {
    const gchar *name;
    gint flags;
    SecretSchemaAttribute attributes[32];
    gint reserved;
    gpointer reserved1, reserved2, reserved3, reserved4, reserved5, reserved6, reserved7;
} SecretSchema;
enum { VIGIL_SECRET_SCHEMA_ATTRIBUTE_STRING = 0, VIGIL_SECRET_SEARCH_ALL = 1 << 1 };

/// A process holding secrets leaves no core dump and cannot be read by ptrace or /proc/PID/mem by
/// other processes of the same user: RLIMIT_CORE 0 (also for its children) and not dumpable.
/// (prctl is variadic: Swift calls it here.) Returns 0 when both took effect.
static inline int vigil_secrets_process_hygiene(void) {
    struct rlimit none = { 0, 0 };
    int limited = setrlimit(RLIMIT_CORE, &none);
    int undumpable = prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    return (limited == 0 && undumpable == 0) ? 0 : -1;
}

static inline void *vigil_secret_library(void) {
    static void *library;
    void *handle = __atomic_load_n(&library, __ATOMIC_ACQUIRE);
    if (handle == NULL) {
        handle = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);
        if (handle != NULL) __atomic_store_n(&library, handle, __ATOMIC_RELEASE);
    }
    return handle;
}
/// Why libsecret cannot be used, or NULL when it can: not installed, or without a function the
/// shim calls (secret_retrievable_get_attributes needs libsecret 0.19). Swift checks it before any
/// other call, so that a missing function is an error, never an exit halfway through a call.
static inline const char *vigil_secret_load_error(void) {
    void *library = vigil_secret_library();
    if (library == NULL) return dlerror();
    static const char *const names[] = {
        "secret_password_store_sync", "secret_password_lookup_sync", "secret_password_clear_sync", "secret_password_free",
        "secret_password_searchv_sync", "secret_retrievable_get_attributes", "g_error_free", "g_strfreev", "g_hash_table_new",
        "g_str_hash", "g_str_equal", "g_hash_table_insert", "g_hash_table_unref", "g_list_length", "g_malloc0_n",
        "g_hash_table_lookup", "g_strdup", "g_list_free_full", "g_object_unref", "g_quark_to_string",
    };
    static char message[160];
    for (size_t index = 0; index < sizeof(names) / sizeof(names[0]); index++) {
        if (dlsym(library, names[index]) == NULL) {
            snprintf(message, sizeof(message), "libsecret-1.so.0 has no %s (0.19 or later is needed)", names[index]);
            return message;
        }
    }
    return NULL;
}
/// A libsecret or GLib function (dlsym searches libsecret's dependencies too), looked up once;
/// vigil_secret_load_error has checked that it exists.
static inline void *vigil_secret_symbol(void **cache, const char *name) {
    void *symbol = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (symbol == NULL) {
        void *library = vigil_secret_library();
        symbol = library ? dlsym(library, name) : NULL;
        if (symbol == NULL) {
            fprintf(stderr, "vigil: error: libsecret-1.so.0 without %s cannot be used; install libsecret-1-0\n", name);
            _exit(2);
        }
        __atomic_store_n(cache, symbol, __ATOMIC_RELEASE);
    }
    return symbol;
}
#define VIGIL_SECRET_FUNCTION(type, name) ((type)vigil_secret_symbol(&(static_cache_##name), #name))

/// Vigil's schema: one secret per (account, kind). The name is what other tools see in the keyring.
static inline const SecretSchema *vigil_secret_schema(void) {
    static const SecretSchema schema = {
        "org.vigil.Secret", 0,
        {
            { "account", VIGIL_SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "kind", VIGIL_SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        },
        0, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    };
    return &schema;
}

static inline gboolean vigil_secret_store(const char *account, const char *kind, const char *label,
                                          const char *secret, GError **error) {
    static void *static_cache_secret_password_store_sync;
    typedef gboolean (*store_t)(const SecretSchema *, const gchar *, const gchar *, const gchar *, void *, GError **, ...);
    return VIGIL_SECRET_FUNCTION(store_t, secret_password_store_sync)(vigil_secret_schema(), "default", label, secret, NULL, error,
                                                                      "account", account, "kind", kind, NULL);
}

/// The secret or NULL (none stored, or an error in *error). Free with vigil_secret_password_free.
static inline gchar *vigil_secret_lookup(const char *account, const char *kind, GError **error) {
    static void *static_cache_secret_password_lookup_sync;
    typedef gchar *(*lookup_t)(const SecretSchema *, void *, GError **, ...);
    return VIGIL_SECRET_FUNCTION(lookup_t, secret_password_lookup_sync)(vigil_secret_schema(), NULL, error, "account", account, "kind", kind, NULL);
}

/// TRUE when a secret was removed; FALSE when there was none (or an error in *error).
static inline gboolean vigil_secret_clear(const char *account, const char *kind, GError **error) {
    static void *static_cache_secret_password_clear_sync;
    typedef gboolean (*clear_t)(const SecretSchema *, void *, GError **, ...);
    return VIGIL_SECRET_FUNCTION(clear_t, secret_password_clear_sync)(vigil_secret_schema(), NULL, error, "account", account, "kind", kind, NULL);
}

/// libsecret wipes the copy before freeing it.
static inline void vigil_secret_password_free(gchar *password) {
    static void *static_cache_secret_password_free;
    VIGIL_SECRET_FUNCTION(void (*)(gchar *), secret_password_free)(password);
}
static inline void vigil_g_error_free(GError *error) {
    static void *static_cache_g_error_free;
    VIGIL_SECRET_FUNCTION(void (*)(GError *), g_error_free)(error);
}
static inline void vigil_g_strfreev(gchar **strings) {
    static void *static_cache_g_strfreev;
    VIGIL_SECRET_FUNCTION(void (*)(gchar **), g_strfreev)(strings);
}

/// The accounts that hold a secret of this kind (or, with kind NULL, of any kind), as a
/// NULL-terminated array of strings; free with vigil_g_strfreev. NULL on error.
static inline gchar **vigil_secret_accounts(const char *kind, GError **error) {
    static void *static_cache_g_hash_table_new, *static_cache_g_str_hash, *static_cache_g_str_equal, *static_cache_g_hash_table_insert,
        *static_cache_secret_password_searchv_sync, *static_cache_g_hash_table_unref, *static_cache_g_list_length, *static_cache_g_malloc0_n,
        *static_cache_secret_retrievable_get_attributes, *static_cache_g_hash_table_lookup, *static_cache_g_strdup, *static_cache_g_list_free_full,
        *static_cache_g_object_unref;
    typedef guint (*hash_t)(const void *);
    typedef gboolean (*equal_t)(const void *, const void *);
    GHashTable *attributes = VIGIL_SECRET_FUNCTION(GHashTable * (*)(hash_t, equal_t), g_hash_table_new)(
        VIGIL_SECRET_FUNCTION(hash_t, g_str_hash), VIGIL_SECRET_FUNCTION(equal_t, g_str_equal));
    void (*unref)(GHashTable *) = VIGIL_SECRET_FUNCTION(void (*)(GHashTable *), g_hash_table_unref);
    if (kind != NULL) VIGIL_SECRET_FUNCTION(gboolean (*)(GHashTable *, gpointer, gpointer), g_hash_table_insert)(attributes, (gpointer)"kind", (gpointer)kind);
    GList *items = VIGIL_SECRET_FUNCTION(GList * (*)(const SecretSchema *, GHashTable *, gint, void *, GError **), secret_password_searchv_sync)(
        vigil_secret_schema(), attributes, VIGIL_SECRET_SEARCH_ALL, NULL, error);
    unref(attributes);
    if (error != NULL && *error != NULL) return NULL;
    guint count = VIGIL_SECRET_FUNCTION(guint (*)(GList *), g_list_length)(items);
    gchar **accounts = VIGIL_SECRET_FUNCTION(gpointer (*)(size_t, size_t), g_malloc0_n)(count + 1, sizeof(gchar *));
    guint index = 0;
    for (GList *item = items; item != NULL; item = item->next) {
        GHashTable *found = VIGIL_SECRET_FUNCTION(GHashTable * (*)(gpointer), secret_retrievable_get_attributes)(item->data);
        const char *account = VIGIL_SECRET_FUNCTION(gpointer (*)(GHashTable *, const void *), g_hash_table_lookup)(found, "account");
        if (account != NULL) accounts[index++] = VIGIL_SECRET_FUNCTION(gchar * (*)(const gchar *), g_strdup)(account);
        unref(found);
    }
    VIGIL_SECRET_FUNCTION(void (*)(GList *, void (*)(gpointer)), g_list_free_full)(items, VIGIL_SECRET_FUNCTION(void (*)(gpointer), g_object_unref));
    return accounts;
}

static inline const char *vigil_error_message(const GError *error) { return error->message; }
static inline int vigil_error_code(const GError *error) { return error->code; }
static inline const char *vigil_error_domain(const GError *error) {
    static void *static_cache_g_quark_to_string;
    return VIGIL_SECRET_FUNCTION(const gchar *(*)(GQuark), g_quark_to_string)(error->domain);
}

#endif

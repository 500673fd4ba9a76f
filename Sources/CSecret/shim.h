// libsecret for Swift. Swift cannot call C variadic functions, so the calls that take
// attributes as varargs are made here, in C, with Vigil's fixed schema.
#ifndef VIGIL_CSECRET_SHIM_H
#define VIGIL_CSECRET_SHIM_H

#include <libsecret/secret.h>
#include <sys/prctl.h>
#include <sys/resource.h>

/// A process holding secrets leaves no core dump and cannot be read by ptrace or /proc/PID/mem by
/// other processes of the same user: RLIMIT_CORE 0 (also for its children) and not dumpable.
/// (prctl is variadic: Swift calls it here.) Returns 0 when both took effect.
static inline int vigil_secrets_process_hygiene(void) {
    struct rlimit none = { 0, 0 };
    int limited = setrlimit(RLIMIT_CORE, &none);
    int undumpable = prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    return (limited == 0 && undumpable == 0) ? 0 : -1;
}

/// Vigil's schema: one secret per (account, kind). The name is what other tools see in the keyring.
static inline const SecretSchema *vigil_secret_schema(void) {
    static const SecretSchema schema = {
        "org.vigil.Secret", SECRET_SCHEMA_NONE,
        {
            { "account", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "kind", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        }
    };
    return &schema;
}

static inline gboolean vigil_secret_store(const char *account, const char *kind, const char *label,
                                          const char *secret, GError **error) {
    return secret_password_store_sync(vigil_secret_schema(), SECRET_COLLECTION_DEFAULT, label, secret, NULL, error,
                                      "account", account, "kind", kind, NULL);
}

/// The secret or NULL (none stored, or an error in *error). Free with secret_password_free.
static inline gchar *vigil_secret_lookup(const char *account, const char *kind, GError **error) {
    return secret_password_lookup_sync(vigil_secret_schema(), NULL, error, "account", account, "kind", kind, NULL);
}

/// TRUE when a secret was removed; FALSE when there was none (or an error in *error).
static inline gboolean vigil_secret_clear(const char *account, const char *kind, GError **error) {
    return secret_password_clear_sync(vigil_secret_schema(), NULL, error, "account", account, "kind", kind, NULL);
}

/// The accounts that hold a secret of this kind (or, with kind NULL, of any kind), as a
/// NULL-terminated array of strings; free with g_strfreev. NULL on error.
static inline gchar **vigil_secret_accounts(const char *kind, GError **error) {
    GHashTable *attributes = g_hash_table_new(g_str_hash, g_str_equal);
    if (kind != NULL) g_hash_table_insert(attributes, (gpointer)"kind", (gpointer)kind);
    GList *items = secret_password_searchv_sync(vigil_secret_schema(), attributes, SECRET_SEARCH_ALL, NULL, error);
    g_hash_table_unref(attributes);
    if (error != NULL && *error != NULL) return NULL;
    guint count = g_list_length(items);
    gchar **accounts = g_new0(gchar *, count + 1);
    guint index = 0;
    for (GList *item = items; item != NULL; item = item->next) {
        GHashTable *found = secret_retrievable_get_attributes(SECRET_RETRIEVABLE(item->data));
        const char *account = g_hash_table_lookup(found, "account");
        if (account != NULL) accounts[index++] = g_strdup(account);
        g_hash_table_unref(found);
    }
    g_list_free_full(items, g_object_unref);
    return accounts;
}

static inline const char *vigil_error_message(const GError *error) { return error->message; }
static inline int vigil_error_code(const GError *error) { return error->code; }
static inline const char *vigil_error_domain(const GError *error) { return g_quark_to_string(error->domain); }

#endif

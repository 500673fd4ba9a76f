// libsecret, loaded on first use. One table names every libsecret and GLib function Vigil calls;
// each slot has the type of the function's own prototype in the real headers (typeof, as
// systemd's DLSYM_PROTOTYPE does), so a call with the wrong arguments does not compile. The table
// is resolved once, all or nothing (dlsym through libsecret's handle also finds GLib's functions).
#include <libsecret/secret.h>

#include "CSecret.h"

#include "CLazyLibrary.h"

#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#define VIGIL_SECRET_FUNCTIONS(X)          \
    X(secret_password_store_sync)          \
    X(secret_password_lookup_sync)         \
    X(secret_password_clear_sync)          \
    X(secret_password_free)                \
    X(secret_password_searchv_sync)        \
    X(secret_retrievable_get_attributes)   \
    X(secret_error_get_quark)              \
    X(secret_service_get_sync)             \
    X(secret_item_get_type)                \
    X(secret_item_get_locked)              \
    X(g_type_check_instance_is_a)          \
    X(g_error_free)                        \
    X(g_strfreev)                          \
    X(g_hash_table_new)                    \
    X(g_str_hash)                          \
    X(g_str_equal)                         \
    X(g_hash_table_insert)                 \
    X(g_hash_table_unref)                  \
    X(g_hash_table_lookup)                 \
    X(g_list_length)                       \
    X(g_list_free_full)                    \
    X(g_malloc0_n)                         \
    X(g_strdup)                            \
    X(g_object_unref)                      \
    X(g_quark_try_string)                  \
    X(g_io_error_quark)                    \
    X(g_dbus_error_quark)                  \
    X(g_spawn_exit_error_quark)

VIGIL_SECRET_FUNCTIONS(VIGIL_LAZY_SLOT)

static const vigil_lazy_symbol vigil_secret_table[] = {VIGIL_SECRET_FUNCTIONS(VIGIL_LAZY_ENTRY)};

static vigil_lazy_library vigil_secret_library = VIGIL_LAZY_LIBRARY("libsecret-1.so.0", vigil_secret_table, " (0.19 or later is needed)", "libsecret-1-0");

VIGIL_ELF_NOTE_DLOPEN(vigil_secret_dlopen_note,
                      "[{\"feature\":\"keyring\",\"description\":\"Passwords and tokens in the Secret Service keyring\","
                      "\"priority\":\"required\",\"soname\":[\"libsecret-1.so.0\"]}]");

const char *vigil_secret_load_error(void) { return vigil_lazy_library_error(&vigil_secret_library); }

/* Every wrapper goes through this (see vigil_lazy_library_require). */
static void vigil_secret_require(void) { vigil_lazy_library_require(&vigil_secret_library); }

/// Vigil's schema: one secret per (account, kind). The name is what other tools see in the keyring.
#define VIGIL_SECRET_SCHEMA(flags)                                                                                  \
    {                                                                                                               \
        "org.vigil.Secret", (flags), {{"account", SECRET_SCHEMA_ATTRIBUTE_STRING}, {"kind", SECRET_SCHEMA_ATTRIBUTE_STRING}, {NULL, 0}}, 0, NULL, \
            NULL, NULL, NULL, NULL, NULL, NULL,                                                                     \
    }

static const SecretSchema *vigil_secret_schema(void) {
    static const SecretSchema schema = VIGIL_SECRET_SCHEMA(SECRET_SCHEMA_NONE);
    return &schema;
}

/// The same attributes without the schema's name: GNOME Keyring keeps a keyring loaded locked
/// with its attributes hashed, and the schema's name (`xdg:schema`) may not be among them;
/// `account` and `kind` match.
static const SecretSchema *vigil_secret_search_schema(void) {
    static const SecretSchema schema = VIGIL_SECRET_SCHEMA(SECRET_SCHEMA_DONT_MATCH_NAME);
    return &schema;
}

int vigil_secret_store(const char *account, const char *kind, const char *label, const char *secret, GError **error) {
    vigil_secret_require();
    return sym_secret_password_store_sync(vigil_secret_schema(), SECRET_COLLECTION_DEFAULT, label, secret, NULL, error, "account", account,
                                          "kind", kind, NULL)
               ? 1
               : 0;
}

char *vigil_secret_lookup(const char *account, const char *kind, GError **error) {
    vigil_secret_require();
    return sym_secret_password_lookup_sync(vigil_secret_schema(), NULL, error, "account", account, "kind", kind, NULL);
}

int vigil_secret_clear(const char *account, const char *kind, GError **error) {
    vigil_secret_require();
    return sym_secret_password_clear_sync(vigil_secret_schema(), NULL, error, "account", account, "kind", kind, NULL) ? 1 : 0;
}

void vigil_secret_password_free(char *password) {
    vigil_secret_require();
    sym_secret_password_free(password);
}

void vigil_secret_strings_free(char **strings) {
    vigil_secret_require();
    sym_g_strfreev(strings);
}

char **vigil_secret_accounts(const char *kind, GError **error) {
    vigil_secret_require();
    GHashTable *attributes = sym_g_hash_table_new(sym_g_str_hash, sym_g_str_equal);
    if (kind != NULL) sym_g_hash_table_insert(attributes, (gpointer) "kind", (gpointer)kind);
    GList *items = sym_secret_password_searchv_sync(vigil_secret_schema(), attributes, SECRET_SEARCH_ALL, NULL, error);
    sym_g_hash_table_unref(attributes);
    if (error != NULL && *error != NULL) return NULL;
    guint count = sym_g_list_length(items);
    gchar **accounts = sym_g_malloc0_n(count + 1, sizeof(gchar *));
    guint index = 0;
    for (GList *item = items; item != NULL; item = item->next) {
        GHashTable *found = sym_secret_retrievable_get_attributes(item->data);
        const char *account = sym_g_hash_table_lookup(found, "account");
        if (account != NULL) accounts[index++] = sym_g_strdup(account);
        sym_g_hash_table_unref(found);
    }
    sym_g_list_free_full(items, sym_g_object_unref);
    return accounts;
}

static vigil_secret_failure vigil_secret_kind_of(GQuark domain, int code) {
    if (domain == 0) return VIGIL_SECRET_FAILED;
    if (domain == sym_secret_error_get_quark()) return code == SECRET_ERROR_IS_LOCKED ? VIGIL_SECRET_LOCKED : VIGIL_SECRET_FAILED;
    if (domain == sym_g_io_error_quark()) return code == G_IO_ERROR_CANCELLED ? VIGIL_SECRET_DENIED : VIGIL_SECRET_UNAVAILABLE;
    if (domain == sym_g_dbus_error_quark() || domain == sym_g_spawn_exit_error_quark()) return VIGIL_SECRET_UNAVAILABLE;
    return VIGIL_SECRET_FAILED;
}

vigil_secret_failure vigil_secret_error_kind(const GError *error) {
    vigil_secret_require();
    return error ? vigil_secret_kind_of(error->domain, error->code) : VIGIL_SECRET_FAILED;
}

vigil_secret_failure vigil_secret_classify(const char *domain, int code) {
    vigil_secret_require();
    /* The quarks are registered by the quark functions; asked first, so that try_string finds them. */
    (void)sym_secret_error_get_quark();
    (void)sym_g_io_error_quark();
    (void)sym_g_dbus_error_quark();
    (void)sym_g_spawn_exit_error_quark();
    return vigil_secret_kind_of(sym_g_quark_try_string(domain), code);
}

const char *vigil_secret_error_message(const GError *error) { return error && error->message ? error->message : ""; }

void vigil_secret_error_free(GError *error) {
    vigil_secret_require();
    if (error) sym_g_error_free(error);
}

int vigil_secret_warm_up(void) {
    if (vigil_secret_load_error() != NULL) return 0;
    /* libsecret keeps the default service (its D-Bus connection and the encrypted session) for
       the process: the lookups that follow use it. No item is read, nothing is unlocked. */
    SecretService *service = sym_secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, NULL, NULL);
    if (service == NULL) return 0;
    sym_g_object_unref(service);
    return 1;
}

int vigil_secret_item_state(const char *account, const char *kind, GError **error) {
    vigil_secret_require();
    /* Found by its attributes, which a search matches in a locked collection too (GNOME Keyring
       keeps them hashed there: they cannot be read back, but they match). No item is read, no
       prompt is shown, nothing is unlocked. */
    GHashTable *attributes = sym_g_hash_table_new(sym_g_str_hash, sym_g_str_equal);
    sym_g_hash_table_insert(attributes, (gpointer) "account", (gpointer)account);
    sym_g_hash_table_insert(attributes, (gpointer) "kind", (gpointer)kind);
    GList *items = sym_secret_password_searchv_sync(vigil_secret_search_schema(), attributes, SECRET_SEARCH_ALL, NULL, error);
    sym_g_hash_table_unref(attributes);
    if (error != NULL && *error != NULL) return -1;
    int state = items == NULL ? 0 : 1;
    for (GList *item = items; item != NULL; item = item->next) {
        /* Each item's own lock (its collection's), asked of the Secret Service's item object. */
        if (sym_g_type_check_instance_is_a(item->data, sym_secret_item_get_type()) && sym_secret_item_get_locked(item->data)) state = 2;
    }
    sym_g_list_free_full(items, sym_g_object_unref);
    return state;
}

int vigil_secrets_process_hygiene(void) {
    struct rlimit none = {0, 0};
    int limited = setrlimit(RLIMIT_CORE, &none);
    int undumpable = prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    return (limited == 0 && undumpable == 0) ? 0 : -1;
}

// A library loaded on first use (dlopen), its functions resolved from one table, all or nothing.
// CCurl (libcurl) and CSecret (libsecret) use it: each lists its functions once in an X-macro and
// makes from it both the typed slots (__typeof__ of the real prototype, as systemd's
// DLSYM_PROTOTYPE does) and this table.
#ifndef VIGIL_CLAZYLIBRARY_H
#define VIGIL_CLAZYLIBRARY_H

#include <pthread.h>
#include <stddef.h>

/// One function: its name and where its address goes.
typedef struct {
    const char *name;
    void **slot;
} vigil_lazy_symbol;

/// An ELF note, `.note.dlopen` (systemd's ELF_NOTE_DLOPEN, docs/ELF_DLOPEN_METADATA.md of
/// systemd): the library a binary loads with dlopen, so that `readelf -n` and packaging tools
/// (systemd's package-notes, dh's dlopen support) see it as they see a linked one. `json` is the
/// note's value, a JSON array of objects with `soname`, `feature`, `description`, `priority`.
#define VIGIL_ELF_NOTE_DLOPEN(variable, json)                                                                       \
    __attribute__((used, section(".note.dlopen"))) _Alignas(sizeof(unsigned int)) static const struct {           \
        struct {                                                                                                   \
            unsigned int n_namesz, n_descsz, n_type;                                                               \
        } nhdr;                                                                                                    \
        char name[sizeof("FDO")];                                                                                  \
        _Alignas(sizeof(unsigned int)) char dlopen_json[sizeof(json)];                                             \
    } variable = {                                                                                                 \
        .nhdr = {.n_namesz = sizeof("FDO"), .n_descsz = sizeof(json), .n_type = 0x407c0c0a},                       \
        .name = "FDO",                                                                                             \
        .dlopen_json = json,                                                                                       \
    }

/// A typed slot for `name`, named sym_<name>.
#define VIGIL_LAZY_SLOT(name) static __typeof__(name) *sym_##name;
/// The table entry of that slot.
#define VIGIL_LAZY_ENTRY(name) {#name, (void **)&sym_##name},

/// Opens `soname` (RTLD_NOW | RTLD_LOCAL) and resolves every symbol of `table` into its slot.
/// Returns NULL when all are resolved; otherwise writes why into `problem` (`size` bytes: the
/// loader's error, or "SONAME has no FUNCTION" and `missing_note`) and returns it, with no slot
/// filled and the library closed (all or nothing).
const char *vigil_lazy_load(const char *soname, const vigil_lazy_symbol *table, size_t count, char *problem, size_t size,
                            const char *missing_note);

/// A library loaded once, on first use, and why it cannot be used.
typedef struct {
    const char *soname;
    const vigil_lazy_symbol *table;
    size_t count;
    /// Added to a missing function's message (for example the version needed); may be NULL.
    const char *missing_note;
    /// What to install, for the message of a call made without the library.
    const char *package;
    pthread_mutex_t lock;
    int state; /* 0: not tried; 1: loaded; 2: failed */
    char problem[200];
} vigil_lazy_library;

#define VIGIL_LAZY_LIBRARY(soname, table, note, package) \
    {soname, table, sizeof table / sizeof table[0], note, package, PTHREAD_MUTEX_INITIALIZER, 0, ""}

/// Loads `library` the first time (all of its table or nothing); NULL when it can be used, else why not.
const char *vigil_lazy_library_error(vigil_lazy_library *library);

/// For every call through the table: a call made although the library could not be loaded is a
/// bug (callers check vigil_lazy_library_error first): the process stops with a message (exit 2)
/// rather than jump through a null pointer.
void vigil_lazy_library_require(vigil_lazy_library *library);

#endif

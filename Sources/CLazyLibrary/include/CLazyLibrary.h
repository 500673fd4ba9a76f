// A library loaded on first use (dlopen), its functions resolved from one table, all or nothing.
// CCurl (libcurl) and CSecret (libsecret) use it: each lists its functions once in an X-macro and
// makes from it both the typed slots (__typeof__ of the real prototype, as systemd's
// DLSYM_PROTOTYPE does) and this table.
#ifndef VIGIL_CLAZYLIBRARY_H
#define VIGIL_CLAZYLIBRARY_H

#include <stddef.h>

/// One function: its name and where its address goes.
typedef struct {
    const char *name;
    void **slot;
} vigil_lazy_symbol;

/// A typed slot for `name`, named sym_<name>.
#define VIGIL_LAZY_SLOT(name) static __typeof__(name) *sym_##name;
/// The table entry of that slot.
#define VIGIL_LAZY_ENTRY(name) {#name, (void **)&sym_##name},

/// Opens `soname` (RTLD_NOW | RTLD_LOCAL) and resolves every symbol of `table` into its slot.
/// Returns NULL when all are resolved; otherwise writes why into `problem` (`size` bytes: the
/// loader's error, or "SONAME has no FUNCTION" and `missing_note`) and returns it, with the slots
/// to be left unused.
const char *vigil_lazy_load(const char *soname, const vigil_lazy_symbol *table, size_t count, char *problem, size_t size,
                            const char *missing_note);

#endif

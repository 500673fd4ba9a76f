#include "CLazyLibrary.h"

#include <dlfcn.h>
#include <stdio.h>

const char *vigil_lazy_load(const char *soname, const vigil_lazy_symbol *table, size_t count, char *problem, size_t size,
                            const char *missing_note) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(problem, size, "%s", reason ? reason : "the library cannot be loaded");
        return problem;
    }
    for (size_t index = 0; index < count; index++) {
        void *symbol = dlsym(library, table[index].name);
        if (symbol == NULL) {
            snprintf(problem, size, "%s has no %s%s", soname, table[index].name, missing_note ? missing_note : "");
            return problem;
        }
        *table[index].slot = symbol;
    }
    return NULL;
}

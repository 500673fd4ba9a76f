#include "CLazyLibrary.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *vigil_lazy_load(const char *soname, const vigil_lazy_symbol *table, size_t count, char *problem, size_t size,
                            const char *missing_note) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(problem, size, "%s", reason ? reason : "the library cannot be loaded");
        return problem;
    }
    /* All or nothing: every address is found first; a missing one leaves every slot empty and the
       library closed, as systemd's dlopen_many_sym_or_warn does. */
    void **found = calloc(count ? count : 1, sizeof(void *));
    if (found == NULL) {
        dlclose(library);
        snprintf(problem, size, "out of memory resolving %s", soname);
        return problem;
    }
    for (size_t index = 0; index < count; index++) {
        found[index] = dlsym(library, table[index].name);
        if (found[index] == NULL) {
            snprintf(problem, size, "%s has no %s%s", soname, table[index].name, missing_note ? missing_note : "");
            free(found);
            dlclose(library);
            return problem;
        }
    }
    for (size_t index = 0; index < count; index++) *table[index].slot = found[index];
    free(found);
    return NULL;
}

const char *vigil_lazy_library_error(vigil_lazy_library *library) {
    pthread_mutex_lock(&library->lock);
    if (library->state == 0) {
        library->state = vigil_lazy_load(library->soname, library->table, library->count, library->problem, sizeof library->problem,
                                         library->missing_note) == NULL
                             ? 1
                             : 2;
    }
    int state = library->state;
    pthread_mutex_unlock(&library->lock);
    return state == 1 ? NULL : library->problem;
}

void vigil_lazy_library_require(vigil_lazy_library *library) {
    const char *problem = vigil_lazy_library_error(library);
    if (problem != NULL) {
        fprintf(stderr, "vigil: error: %s is not usable (%s); install %s\n", library->soname, problem, library->package);
        _exit(2);
    }
}

// GNU extensions of glibc that Swift's Glibc module does not show (they need _GNU_SOURCE before
// any header): a thread's name and whether it is the main one. Used by VigilThreads.
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "CVigilSystem.h"

int vigil_thread_set_name(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = '\0';
    return pthread_setname_np(pthread_self(), truncated);
}

int vigil_thread_is_main(void) { return gettid() == getpid(); }

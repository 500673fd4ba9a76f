#ifndef VIGIL_CVIGILSYSTEM_H
#define VIGIL_CVIGILSYSTEM_H

/// The thread's name (Linux keeps 15 bytes); 0 on success, an errno otherwise.
int vigil_thread_set_name(const char *name);

/// 1 when the caller is the process's main thread (its thread id is the process id), else 0.
int vigil_thread_is_main(void);

#endif

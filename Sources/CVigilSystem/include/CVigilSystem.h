#ifndef VIGIL_CVIGILSYSTEM_H
#define VIGIL_CVIGILSYSTEM_H

/// The thread's name (Linux keeps 15 bytes); 0 on success, an errno otherwise.
int vigil_thread_set_name(const char *name);

/// 1 when the caller is the process's main thread (its thread id is the process id), else 0.
int vigil_thread_is_main(void);

/// Starts the program at path argv[0] with arguments argv (NULL-terminated): standard input,
/// output and error on /dev/null, no other descriptor of this process inherited, SIGPIPE back to
/// its default, in a process group of its own; not waited for. 0 on success, an errno otherwise.
int vigil_spawn_detached(char *const argv[]);

#endif

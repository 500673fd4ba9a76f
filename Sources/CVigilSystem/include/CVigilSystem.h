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

#include <stddef.h>

/// Runs the program at `path` with `argv` (NULL-terminated) and `envp` (NULL: an empty one): `input` as
/// its standard input, standard output and error read together into `output` (at most
/// `output_capacity` bytes kept, the rest read and dropped), address space limited to
/// `memory_bytes`, CPU to `cpu_seconds`, no core dump, no descriptor of this process inherited, a
/// new empty session keyring,
/// killed after `timeout_ms`. 0 with `exit_status` (128 + signal when killed by one), ETIMEDOUT
/// when it was killed for the time, another errno when it could not be started.
int vigil_run_limited(const char *path, char *const argv[], char *const envp[], const char *input, size_t input_length, char *output,
                      size_t output_capacity, size_t *output_length, int timeout_ms, unsigned long memory_bytes, unsigned long cpu_seconds,
                      int *exit_status);

/// Reads a secret line from the controlling terminal with echo off and signals on (Ctrl-C stops
/// the command, the terminal put back first), `prompt` written there first: the length read into
/// `buffer` (NUL-terminated, cut at `capacity - 1`), or -1 without a terminal or at end of input.
long vigil_read_secret(const char *prompt, char *buffer, size_t capacity);
/* Puts the terminal back as it was before vigil_read_secret turned echo off (a new line after
   the prompt), if a secret is being read; async-signal-safe. For a process about to end. */
void vigil_secret_restore_terminal(void);

/// Brings this network namespace's loopback interface up (a new namespace has it down): 0, or
/// the errno.
int vigil_loopback_up(void);

/// Whether the namespace at `path` (`/proc/self/ns/net`, `/proc/self/ns/mnt`) is owned by this
/// process's user namespace, as the kernel says (ioctl NS_GET_USERNS, then the two namespace
/// files' device and inode compared): 1 owned, 0 owned by another, -errno when it cannot be asked.
int vigil_namespace_owned_by_own_user_namespace(const char *path);

/// Installs in this process (and so in everything it starts) a seccomp filter that hands each
/// call of a system call a contained client has no business making (the mount family, setns,
/// module loading, kexec, reboot, swap; and any call of another architecture's ABI) to a
/// supervisor (SECCOMP_RET_USER_NOTIF). NO_NEW_PRIVS is set first. The listener's descriptor,
/// or -errno.
int vigil_cell_filter_install(void);
/// Waits up to `timeout_ms` for one such call on `listener`, answers it EPERM (the call fails,
/// nothing is done) and gives its number in `*nr` (-1 for another architecture's): 1 when one
/// was answered, 0 at the timeout, -errno when the listener is done (every filtered process gone).
int vigil_cell_filter_next(int listener, int timeout_ms, int *nr);
/// The name of system call `nr` among those the filter hands over ("another architecture's" for -1).
const char *vigil_cell_syscall_name(int nr);
/// Makes this process join a new, empty session keyring (KEYCTL_JOIN_SESSION_KEYRING): 0 (also
/// where keyctl is refused altogether: then no key of the session can be read), or -1 with errno
/// (the old session keyring is still joined).
int vigil_join_new_session_keyring(void);
/// The exit status of a limited helper that could not leave the user's session keyring.
#define VIGIL_NO_OWN_KEYRING 124
/// Sends descriptor `fd` over the connected UNIX socket `socket` (SCM_RIGHTS): 0 or -errno.
int vigil_send_descriptor(int socket, int fd);
/// Receives a descriptor sent by vigil_send_descriptor on `socket`: it, or -errno.
int vigil_receive_descriptor(int socket);

#endif

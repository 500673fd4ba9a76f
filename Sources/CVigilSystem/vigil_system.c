// GNU extensions of glibc that Swift's Glibc module does not show (they need _GNU_SOURCE before
// any header): a thread's name and whether it is the main one (VigilThreads), and a program
// started with no descriptor of ours (posix_spawn_file_actions_addclosefrom_np; the browser).
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
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

extern char **environ;

int vigil_spawn_detached(char *const argv[]) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int status = posix_spawn_file_actions_init(&actions);
    if (status != 0) return status;
    status = posix_spawnattr_init(&attributes);
    if (status != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return status;
    }
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    if (status == 0) status = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (status == 0) status = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    if (status == 0) status = posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    /* The loopback listener waiting for the login's answer, libcurl's sockets, the database:
       none of them is the browser's. */
    if (status == 0) status = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (status == 0) status = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (status == 0) status = posix_spawnattr_setpgroup(&attributes, 0);
    if (status == 0) status = posix_spawnattr_setsigmask(&attributes, &none);
    if (status == 0) status = posix_spawnattr_setsigdefault(&attributes, &defaults);
    pid_t pid;
    if (status == 0) status = posix_spawn(&pid, argv[0], &actions, &attributes, argv, environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return status;
}

#include <errno.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

static long long vigil_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int vigil_run_limited(const char *path, char *const argv[], char *const envp[], const char *input, size_t input_length, char *output,
                      size_t output_capacity, size_t *output_length, int timeout_ms, unsigned long memory_bytes, unsigned long cpu_seconds,
                      int *exit_status) {
    *output_length = 0;
    *exit_status = -1;
    int in = memfd_create("vigil-input", MFD_CLOEXEC);
    if (in < 0) return errno;
    size_t written = 0;
    while (written < input_length) {
        ssize_t n = write(in, input + written, input_length - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            int failure = errno;
            close(in);
            return failure;
        }
        written += (size_t)n;
    }
    lseek(in, 0, SEEK_SET);
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) {
        int failure = errno;
        close(in);
        return failure;
    }
    char *const empty[] = {NULL};
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int failure = errno;
        close(in);
        close(out[0]);
        close(out[1]);
        return failure;
    }
    if (pid == 0) {
        /* Only async-signal-safe calls from here to execve. */
        struct rlimit memory = {memory_bytes, memory_bytes}, cpu = {cpu_seconds, cpu_seconds}, core = {0, 0};
        /* A group of its own: whatever it starts is stopped with it. It dies with Vigil too
           (Ctrl-C): the parent may be gone already, so that is checked after asking. */
        setpgid(0, 0);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(125);
        setrlimit(RLIMIT_AS, &memory);
        setrlimit(RLIMIT_CPU, &cpu);
        setrlimit(RLIMIT_CORE, &core);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        /* A new, empty session keyring: the kernel keys of the user's session (a Kerberos
           KEYRING: cache, fscrypt keys) are not the helper's; no namespace replaces them. */
        if (vigil_join_new_session_keyring() != 0) _exit(VIGIL_NO_OWN_KEYRING);
        if (dup2(in, 0) < 0 || dup2(out[1], 1) < 0 || dup2(out[1], 2) < 0) _exit(126);
        closefrom(3);
        execve(path, argv, envp != NULL ? envp : empty);
        _exit(127);
    }
    close(in);
    close(out[1]);
    long long deadline = vigil_now_ms() + timeout_ms;
    int timed_out = 0;
    for (;;) {
        long long left = deadline - vigil_now_ms();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd wait = {out[0], POLLIN, 0};
        int ready = poll(&wait, 1, (int)left);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) {
            /* poll failed for another reason: the child is stopped, never waited for forever. */
            kill(pid, SIGKILL);
            break;
        }
        if (ready == 0) {
            timed_out = 1;
            break;
        }
        char discard[512];
        char *into = *output_length < output_capacity ? output + *output_length : discard;
        size_t room = *output_length < output_capacity ? output_capacity - *output_length : sizeof discard;
        ssize_t n = read(out[0], into, room);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (into != discard) *output_length += (size_t)n;
    }
    close(out[0]);
    if (timed_out) kill(-pid, SIGKILL);
    int status = 0;
    /* Its output ended: it is waited for until the deadline, then stopped (a child that closes
       its output and sleeps never holds Vigil). */
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) break;
        if (vigil_now_ms() >= deadline) {
            kill(-pid, SIGKILL);
            timed_out = 1;
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
            break;
        }
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
    }
    if (!timed_out) kill(-pid, SIGKILL); /* anything it left running in its group */
    if (timed_out) return ETIMEDOUT;
    *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return 0;
}

#include <termios.h>

/* The terminal as it was before a secret was read, for the signal handler to put back. */
static struct termios vigil_secret_saved;
static volatile sig_atomic_t vigil_secret_tty = -1;

void vigil_secret_restore_terminal(void) {
    int tty = vigil_secret_tty;
    if (tty >= 0) {
        tcsetattr(tty, TCSAFLUSH, &vigil_secret_saved);
        (void)!write(tty, "\n", 1);
    }
}

/* The terminal as a secret is read (echo off), for a prompt resumed after Ctrl-Z. */
static struct termios vigil_secret_quiet;

static void vigil_secret_interrupted(int signal_number) {
    int saved_errno = errno;
    vigil_secret_restore_terminal();
    if (signal_number == SIGTSTP) {
        /* Ctrl-Z: stop with the terminal as it was; once continued (fg), quiet again and go on
           reading, so that the rest of the secret is not echoed. */
        signal(SIGTSTP, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGTSTP);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(SIGTSTP);
        struct sigaction again;
        memset(&again, 0, sizeof again);
        again.sa_handler = vigil_secret_interrupted;
        sigemptyset(&again.sa_mask);
        sigaction(SIGTSTP, &again, NULL);
        if (vigil_secret_tty >= 0) tcsetattr(vigil_secret_tty, TCSAFLUSH, &vigil_secret_quiet);
        errno = saved_errno;
        return;
    }
    /* Say so (write(2) is async-signal-safe). What the command decided before the prompt stays. */
    const char *said = signal_number == SIGINT    ? "vigil: interrupted (SIGINT)\n"
                       : signal_number == SIGTERM ? "vigil: interrupted (SIGTERM)\n"
                                                  : "vigil: interrupted\n";
    (void)!write(STDERR_FILENO, said, strlen(said));
    /* Then die of the signal, as without the handler. */
    struct sigaction deflt;
    memset(&deflt, 0, sizeof deflt);
    deflt.sa_handler = SIG_DFL;
    sigaction(signal_number, &deflt, NULL);
    raise(signal_number);
}

long vigil_read_secret(const char *prompt, char *buffer, size_t capacity) {
    if (capacity == 0) return -1;
    int tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
    if (tty < 0) return -1;
    struct termios quiet;
    if (tcgetattr(tty, &vigil_secret_saved) != 0) {
        close(tty);
        return -1;
    }
    int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP};
    struct sigaction handler, previous[5];
    memset(&handler, 0, sizeof handler);
    handler.sa_handler = vigil_secret_interrupted;
    sigemptyset(&handler.sa_mask);
    vigil_secret_tty = tty;
    for (int i = 0; i < 5; i++) sigaction(signals[i], &handler, &previous[i]);
    /* Echo off, signals on: Ctrl-C still stops the command (glibc's getpass turns ISIG off). */
    quiet = vigil_secret_saved;
    quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
    quiet.c_lflag |= ECHONL;
    vigil_secret_quiet = quiet;
    tcsetattr(tty, TCSAFLUSH, &quiet);
    (void)!write(tty, prompt, strlen(prompt));
    size_t length = 0;
    long result = -1;
    for (;;) {
        char byte;
        ssize_t n = read(tty, &byte, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (byte == '\n' || byte == '\r') {
            result = (long)length;
            break;
        }
        if (length + 1 < capacity) buffer[length++] = byte;
    }
    buffer[length < capacity ? length : capacity - 1] = '\0';
    tcsetattr(tty, TCSAFLUSH, &vigil_secret_saved);
    vigil_secret_tty = -1;
    for (int i = 0; i < 5; i++) sigaction(signals[i], &previous[i], NULL);
    close(tty);
    return result;
}

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

int vigil_loopback_up(void) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return errno;
    struct ifreq request;
    memset(&request, 0, sizeof request);
    strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    int result = 0;
    if (ioctl(fd, SIOCGIFFLAGS, &request) < 0) {
        result = errno;
    } else {
        request.ifr_flags |= IFF_UP;
        if (ioctl(fd, SIOCSIFFLAGS, &request) < 0) result = errno;
    }
    close(fd);
    return result;
}

#include <linux/nsfs.h>
#include <sys/stat.h>

int vigil_namespace_owned_by_own_user_namespace(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    int owner = ioctl(fd, NS_GET_USERNS);
    int saved = errno;
    close(fd);
    if (owner < 0) return -saved;
    struct stat theirs, ours;
    int got = fstat(owner, &theirs);
    saved = errno;
    close(owner);
    if (got != 0) return -saved;
    if (stat("/proc/self/ns/user", &ours) != 0) return -errno;
    return theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino;
}

int vigil_join_new_session_keyring(void) {
    if (syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, (const char *)NULL) >= 0) return 0;
    int saved = errno;
    /* Where keyctl itself is refused (a container's seccomp profile, a kernel without keys), no
       key of the session can be read either: nothing to leave behind. */
    if (syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* KEY_SPEC_SESSION_KEYRING */, 0) < 0) return 0;
    errno = saved;
    return -1;
}

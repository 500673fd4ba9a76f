// The cell of a client under `vigil simulate --client`: its seccomp filter (user notification:
// the calls a contained client has no business making, recorded by the suite and refused) and
// the hand-over of the filter's listener over a UNIX socket (SCM_RIGHTS).
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "CVigilSystem.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define VIGIL_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define VIGIL_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

static const struct {
    int nr;
    const char *name;
} vigil_cell_calls[] = {
    {SYS_mount, "mount"},
#ifdef SYS_umount2
    {SYS_umount2, "umount2"},
#endif
    {SYS_pivot_root, "pivot_root"},
#ifdef SYS_move_mount
    {SYS_move_mount, "move_mount"},
    {SYS_open_tree, "open_tree"},
    {SYS_fsopen, "fsopen"},
    {SYS_fsconfig, "fsconfig"},
    {SYS_fsmount, "fsmount"},
    {SYS_fspick, "fspick"},
#endif
#ifdef SYS_mount_setattr
    {SYS_mount_setattr, "mount_setattr"},
#endif
    // open_tree_attr (Linux 6.15), by its number where the headers predate it (new calls share one
    // number on every architecture).
#ifdef SYS_open_tree_attr
    {SYS_open_tree_attr, "open_tree_attr"},
#else
    {467, "open_tree_attr"},
#endif
    {SYS_setns, "setns"},
    {SYS_init_module, "init_module"},
    {SYS_finit_module, "finit_module"},
    {SYS_delete_module, "delete_module"},
    {SYS_kexec_load, "kexec_load"},
#ifdef SYS_kexec_file_load
    {SYS_kexec_file_load, "kexec_file_load"},
#endif
    {SYS_reboot, "reboot"},
    {SYS_swapon, "swapon"},
    {SYS_swapoff, "swapoff"},
};
#define VIGIL_CELL_CALLS (sizeof vigil_cell_calls / sizeof vigil_cell_calls[0])

int vigil_cell_filter_install(void) {
#ifndef VIGIL_AUDIT_ARCH
    return -ENOSYS;
#else
    // The arch check (3), the number's load (1), the other-ABI jump (1), a pair per call, ALLOW, NOTIF.
    struct sock_filter program[5 + 2 * VIGIL_CELL_CALLS + 2];
    size_t n = 0;
    // Another architecture's ABI (a 32-bit call on a 64-bit machine) is handed over whole.
    program[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, VIGIL_AUDIT_ARCH, 1, 0);
    program[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
    program[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
    // x32's calls carry bit 30: another ABI too.
    program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 2 * VIGIL_CELL_CALLS + 1, 0);
#else
    program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0);
#endif
    for (size_t i = 0; i < VIGIL_CELL_CALLS; i++) {
        program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)vigil_cell_calls[i].nr, 0, 1);
        program[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
    }
    program[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    program[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
    if (n != sizeof program / sizeof program[0]) return -EFAULT;
    struct sock_fprog filter = {.len = (unsigned short)n, .filter = program};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
    long listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &filter);
    return listener < 0 ? -errno : (int)listener;
#endif
}

int vigil_cell_filter_next(int listener, int timeout_ms, int *nr) {
    struct pollfd polled = {.fd = listener, .events = POLLIN};
    int ready = poll(&polled, 1, timeout_ms);
    if (ready < 0) return errno == EINTR ? 0 : -errno;
    if (ready == 0) return 0;
    if (!(polled.revents & POLLIN)) return -ENOENT;
    struct seccomp_notif notification;
    memset(&notification, 0, sizeof notification);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &notification) != 0) return errno == EINTR || errno == ENOENT ? 0 : -errno;
#ifdef VIGIL_AUDIT_ARCH
    *nr = notification.data.arch == VIGIL_AUDIT_ARCH && notification.data.nr < 0x40000000 ? notification.data.nr : -1;
#else
    *nr = -1;
#endif
    struct seccomp_notif_resp response;
    memset(&response, 0, sizeof response);
    response.id = notification.id;
    response.error = -EPERM;
    // The caller may be gone already (ENOENT): its call was made all the same.
    (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response);
    return 1;
}

const char *vigil_cell_syscall_name(int nr) {
    for (size_t i = 0; i < VIGIL_CELL_CALLS; i++)
        if (vigil_cell_calls[i].nr == nr) return vigil_cell_calls[i].name;
    return "another architecture's system call";
}

int vigil_send_descriptor(int socket, int fd) {
    char byte = 0;
    struct iovec data = {.iov_base = &byte, .iov_len = 1};
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &fd, sizeof(int));
    return sendmsg(socket, &message, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

int vigil_receive_descriptor(int socket) {
    char byte;
    struct iovec data = {.iov_base = &byte, .iov_len = 1};
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
    if (recvmsg(socket, &message, MSG_CMSG_CLOEXEC) != 1) return -(errno ? errno : EPROTO);
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    if (!header || header->cmsg_type != SCM_RIGHTS || header->cmsg_len != CMSG_LEN(sizeof(int))) return -EPROTO;
    int fd;
    memcpy(&fd, CMSG_DATA(header), sizeof(int));
    return fd;
}


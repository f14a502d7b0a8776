/* jail/seccomp.c: two stacked seccomp-bpf filters built once with libseccomp and exported as
 * plain BPF, so the fork-like child only calls prctl(2). Filter 1 checks arguments (TIOCSTI and
 * TIOCLINUX on the low 32 bits of the ioctl number, CVE-2019-10063; clone with a namespace
 * flag; socket families); filter 2 is the allowlist. The kernel applies the stricter verdict of the
 * two. The build runs this same code once (src/jail/gen/seccomp_bpf.c) and compiles its output in
 * (seccomp_prebuilt.h), so a process never pays libseccomp's ~1 ms for them: `sbx run` is a
 * fresh process every time (docs/process.md, Cost). */
#include <errno.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "jail/jail.h"
#include "util/alloc.h"
#ifndef SBX_SECCOMP_GENERATOR
#include "seccomp_prebuilt.h" /* generated: SBX__SECCOMP_PREBUILT_{0,1} (mk/jail.mk) */
#endif

/* What interpreters (sh, python3, node, sbx's own engine) use. Absent on purpose, so denied
 * with EPERM: mount and the new mount API, pivot_root, ptrace, process_vm_*, keyctl, add_key,
 * request_key, bpf, perf_event_open, userfaultfd, io_uring_*, kexec_*, *_module, unshare, setns,
 * chroot, mknod, personality, open_by_handle_at, reboot, swap, clock/time setters, syslog. */
static const char *const allowed[] = {
    "read",
    "write",
    "open",
    "close",
    "stat",
    "fstat",
    "lstat",
    "poll",
    "lseek",
    "mmap",
    "mprotect",
    "munmap",
    "brk",
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "ioctl",
    "pread64",
    "pwrite64",
    "readv",
    "writev",
    "access",
    "pipe",
    "select",
    "sched_yield",
    "mremap",
    "msync",
    "mincore",
    "madvise",
    "dup",
    "dup2",
    "pause",
    "nanosleep",
    "getitimer",
    "alarm",
    "setitimer",
    "getpid",
    "sendfile",
    "socket",
    "connect",
    "accept",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "shutdown",
    "bind",
    "listen",
    "getsockname",
    "getpeername",
    "socketpair",
    "setsockopt",
    "getsockopt",
    "clone",
    "fork",
    "vfork",
    "execve",
    "exit",
    "wait4",
    "kill",
    "uname",
    "semget",
    "semop",
    "semctl",
    "semtimedop",
    "shmget",
    "shmat",
    "shmctl",
    "shmdt",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "fcntl",
    "flock",
    "fsync",
    "fdatasync",
    "truncate",
    "ftruncate",
    "getdents",
    "getdents64",
    "getcwd",
    "chdir",
    "fchdir",
    "rename",
    "mkdir",
    "rmdir",
    "creat",
    "link",
    "unlink",
    "symlink",
    "readlink",
    "chmod",
    "fchmod",
    "chown",
    "fchown",
    "lchown",
    "umask",
    "gettimeofday",
    "getrlimit",
    "getrusage",
    "sysinfo",
    "times",
    "getuid",
    "getgid",
    "setuid",
    "setgid",
    "geteuid",
    "getegid",
    "setpgid",
    "getppid",
    "getpgrp",
    "setsid",
    "setreuid",
    "setregid",
    "getgroups",
    "setresuid",
    "getresuid",
    "setresgid",
    "getresgid",
    "getpgid",
    "setfsuid",
    "setfsgid",
    "getsid",
    "capget",
    "rt_sigpending",
    "rt_sigtimedwait",
    "rt_sigqueueinfo",
    "rt_sigsuspend",
    "rt_tgsigqueueinfo",
    "sigaltstack",
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
    "statfs",
    "fstatfs",
    "getpriority",
    "setpriority",
    "sched_setparam",
    "sched_getparam",
    "sched_setscheduler",
    "sched_getscheduler",
    "sched_get_priority_max",
    "sched_get_priority_min",
    "sched_rr_get_interval",
    "sched_setaffinity",
    "sched_getaffinity",
    "sched_setattr",
    "sched_getattr",
    "mlock",
    "munlock",
    "mlock2",
    "prctl",
    "arch_prctl",
    "setrlimit",
    "prlimit64",
    "gettid",
    "readahead",
    "getxattr",
    "lgetxattr",
    "fgetxattr",
    "listxattr",
    "llistxattr",
    "flistxattr",
    "tkill",
    "tgkill",
    "time",
    "futex",
    "set_tid_address",
    "restart_syscall",
    "fadvise64",
    "timer_create",
    "timer_settime",
    "timer_gettime",
    "timer_getoverrun",
    "timer_delete",
    "clock_gettime",
    "clock_getres",
    "clock_nanosleep",
    "exit_group",
    "epoll_create",
    "epoll_create1",
    "epoll_wait",
    "epoll_ctl",
    "epoll_pwait",
    "epoll_pwait2",
    "waitid",
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "inotify_rm_watch",
    "openat",
    "openat2",
    "mkdirat",
    "fchownat",
    "newfstatat",
    "unlinkat",
    "renameat",
    "renameat2",
    "linkat",
    "symlinkat",
    "readlinkat",
    "fchmodat",
    "faccessat",
    "faccessat2",
    "pselect6",
    "ppoll",
    "set_robust_list",
    "get_robust_list",
    "splice",
    "tee",
    "sync_file_range",
    "vmsplice",
    "signalfd",
    "signalfd4",
    "timerfd_create",
    "timerfd_settime",
    "timerfd_gettime",
    "eventfd",
    "eventfd2",
    "fallocate",
    "accept4",
    "dup3",
    "pipe2",
    "preadv",
    "pwritev",
    "preadv2",
    "pwritev2",
    "recvmmsg",
    "sendmmsg",
    "syncfs",
    "fsync",
    "getcpu",
    "getrandom",
    "memfd_create",
    "membarrier",
    "copy_file_range",
    "statx",
    "rseq",
    "close_range",
    "execveat",
    "pidfd_open",
    "pidfd_send_signal",
    "seccomp",
    "landlock_create_ruleset",
    "landlock_add_rule",
    "landlock_restrict_self",
    "pkey_mprotect",
    "pkey_alloc",
    "pkey_free",
    "get_mempolicy",
    "sched_getaffinity",
    "futex_waitv",
    "fchmodat2",
    "map_shadow_stack",
};

#define NS_FLAGS                                                                                   \
    (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |     \
     CLONE_NEWCGROUP | 0x80 /* CLONE_NEWTIME */)

/* Socket families the guest may create. The network namespace does not cover every family:
 * AF_VSOCK binds in the machine-wide vsock port space and reaches the hypervisor, and the rest
 * (AF_PACKET, AF_ALG, AF_KEY, AF_XDP, AF_BLUETOOTH, ...) are kernel attack surface, some of it
 * loaded on demand as modules. AF_NETLINK is kept for NETLINK_ROUTE alone (glibc's
 * if_nameindex and getifaddrs, which node's os.networkInterfaces and python3's
 * socket.if_nameindex use); in the jail's own namespace and without capabilities it can only
 * read the jail's interfaces. */
static const int allowed_families[] = {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK};

static bool is_allowed_family(unsigned family)
{
    for (size_t i = 0; i < sizeof(allowed_families) / sizeof(allowed_families[0]); i++)
        if ((unsigned)allowed_families[i] == family)
            return true;
    return false;
}

/* socket(2) and socketpair(2) with any other family get EAFNOSUPPORT, as from a kernel without
 * it; the comparisons are on all 64 bits, so a family with high bits set (which the kernel
 * drops) is denied too. Other netlink protocols get EPROTONOSUPPORT. */
static int build_families(scmp_filter_ctx ctx, int nr)
{
    enum { LOW = 64 };
    uint32_t nosupport = SCMP_ACT_ERRNO(EAFNOSUPPORT);
    int rc = seccomp_rule_add(ctx, nosupport, nr, 1, SCMP_A0(SCMP_CMP_GE, LOW));
    for (unsigned f = 0; rc == 0 && f < LOW; f++) {
        if (!is_allowed_family(f))
            rc = seccomp_rule_add(ctx, nosupport, nr, 1, SCMP_A0(SCMP_CMP_EQ, f));
    }
    if (rc == 0)
        rc =
            seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT), nr, 2,
                             SCMP_A0(SCMP_CMP_EQ, AF_NETLINK), SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE));
    return rc;
}

static int build_args(scmp_filter_ctx ctx)
{
    int rc = build_families(ctx, SCMP_SYS(socket));
    if (rc == 0)
        rc = build_families(ctx, SCMP_SYS(socketpair));
    if (rc)
        return rc;
    static const unsigned long bad_ioctls[] = {TIOCSTI, TIOCLINUX};
    for (size_t i = 0; i < sizeof(bad_ioctls) / sizeof(bad_ioctls[0]); i++) {
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                              SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, bad_ioctls[i]));
        if (rc)
            return rc;
    }
    for (unsigned bit = 0; bit < 64; bit++) {
        uint64_t flag = 1ull << bit;
        if (!(NS_FLAGS & flag))
            continue;
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
        if (rc)
            return rc;
    }
    return 0;
}

static int build_allow(scmp_filter_ctx ctx)
{
    for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
        int nr = seccomp_syscall_resolve_name(allowed[i]);
        if (nr == __NR_SCMP_ERROR)
            continue; /* newer than this libseccomp: stays denied */
        int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
        if (rc && rc != -EEXIST)
            return rc;
    }
    /* clone3 hides its flags behind a pointer seccomp cannot read: ENOSYS makes libc fall
     * back to clone, whose flags filter 1 checks. */
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
}

int sbx__jail_seccomp_export(void *ctx, struct sbx__jail_bpf *out)
{
    int fd = memfd_create("sbx-bpf", MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = seccomp_export_bpf(ctx, fd);
    off_t size = rc == 0 ? lseek(fd, 0, SEEK_END) : -1;
    if (rc == 0 && (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 ||
                    size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS))
        rc = -EINVAL;
    void *insns = rc == 0 ? sbx__mallocn((size_t)size, 1) : NULL;
    if (rc == 0 && (!insns || pread(fd, insns, (size_t)size, 0) != size))
        rc = -EIO;
    close(fd);
    if (rc) {
        sbx__free(insns);
        return rc;
    }
    out->insns = insns;
    out->count = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
    return 0;
}

static struct sbx__jail_bpf built[2];
static sbx_err built_err = SBX_E_UNAVAILABLE;

static int build_one(uint32_t def, int (*add)(scmp_filter_ctx), struct sbx__jail_bpf *out)
{
    scmp_filter_ctx ctx = seccomp_init(def);
    if (!ctx)
        return -ENOMEM;
    int rc = add(ctx);
    if (rc == 0)
        rc = sbx__jail_seccomp_export(ctx, out);
    seccomp_release(ctx);
    return rc;
}

sbx_err sbx__jail_seccomp_build(struct sbx__jail_bpf out[2])
{
    if (build_one(SCMP_ACT_ALLOW, build_args, &out[0]) != 0 ||
        build_one(SCMP_ACT_ERRNO(EPERM), build_allow, &out[1]) != 0)
        return SBX_E_UNAVAILABLE;
    return SBX_OK;
}

#ifdef SBX__SECCOMP_PREBUILT_0
static const struct sock_filter prebuilt_args[] = SBX__SECCOMP_PREBUILT_0;
static const struct sock_filter prebuilt_allow[] = SBX__SECCOMP_PREBUILT_1;
_Static_assert(sizeof(prebuilt_args) / sizeof(prebuilt_args[0]) == SBX__SECCOMP_PREBUILT_COUNT_0,
               "filter 1's length");
_Static_assert(sizeof(prebuilt_allow) / sizeof(prebuilt_allow[0]) == SBX__SECCOMP_PREBUILT_COUNT_1,
               "filter 2's length");
#endif

bool sbx__jail_seccomp_is_prebuilt(void)
{
#ifdef SBX__SECCOMP_PREBUILT_0
    return true;
#else
    return false;
#endif
}

static void build_once(void)
{
#ifdef SBX__SECCOMP_PREBUILT_0
    built[0] = (struct sbx__jail_bpf){prebuilt_args, SBX__SECCOMP_PREBUILT_COUNT_0};
    built[1] = (struct sbx__jail_bpf){prebuilt_allow, SBX__SECCOMP_PREBUILT_COUNT_1};
    built_err = SBX_OK;
#else
    built_err = sbx__jail_seccomp_build(built);
#endif
}

sbx_err sbx__jail_seccomp_filters(struct sbx__jail_bpf out[2])
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_once);
    out[0] = built[0];
    out[1] = built[1];
    return built_err;
}

/* Child side, last step before the guest's execve; needs no_new_privs (set by caps.c). */
int sbx__jail_seccomp_apply(const struct sbx__jail_bpf filters[2])
{
    for (int i = 0; i < 2; i++) {
        struct sock_fprog prog = {.len = filters[i].count,
                                  .filter = (struct sock_filter *)filters[i].insns};
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
            return -errno;
    }
    return 0;
}

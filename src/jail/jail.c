/* jail/jail.c: the child's ordered pipeline: user ns -> mounts -> net -> fds/rlimits ->
 * caps/no_new_privs -> Landlock -> seccomp last -> fork the guest and stay as the jail's init.
 * Runs in a fork-like child of a possibly threaded host: system calls only, no allocation, no
 * locks, no stdio. Every failure is reported on the status pipe with its stage. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/exit.h"
#include "jail/gate.h"
#include "jail/jail.h"

/* Fixed fd numbers inside the jail. */
enum { FD_RESULT = 3, FD_EXEC = 4, FD_STATUS = 5, FD_SYNC = 6, FD_GATE = 7 };
/* then SBX__JAIL_FD_TREE + 0, 1 (jail.h); the first fd the jail leaves free: */
#define FD_FIRST_FREE (SBX__JAIL_FD_TREE + SBX__JAIL_TREES)
#define FD_KEPT       FD_FIRST_FREE

const char *sbx__jail_stage_name(int stage)
{
    static const char *const names[] = {
        [SBX__STAGE_CGROUPNS] = "cgroup namespace",
        [SBX__STAGE_USERNS] = "user namespace",
        [SBX__STAGE_MOUNT] = "mount",
        [SBX__STAGE_PIVOT] = "pivot_root",
        [SBX__STAGE_NET] = "network namespace",
        [SBX__STAGE_FDS] = "file descriptors",
        [SBX__STAGE_RLIMIT] = "rlimits",
        [SBX__STAGE_CAPS] = "capabilities and no_new_privs",
        [SBX__STAGE_LANDLOCK] = "landlock",
        [SBX__STAGE_SECCOMP] = "seccomp",
        [SBX__STAGE_FORK] = "fork",
        [SBX__STAGE_CGROUP] = "cgroup attach",
    };
    if (stage > 0 && (size_t)stage < sizeof(names) / sizeof(names[0]) && names[stage])
        return names[stage];
    return "setup";
}

static void report(int fd, const struct sbx__jail_report *r)
{
    ssize_t n;
    do
        n = write(fd, r, sizeof(*r));
    while (n < 0 && errno == EINTR);
}

static _Noreturn void fail(int status_fd, int stage, int err, int detail)
{
    struct sbx__jail_report r = {
        .kind = SBX__REPORT_SETUP, .stage = stage, .err = err, .detail = detail};
    report(status_fd, &r);
    sbx__exit_child_dump();
    _exit(1);
}

/* Moves the fds the jail keeps to fixed numbers and closes every other one (inherited from
 * the host, including fds other host threads opened: the guest sees none of them). */
static int arrange_fds(const struct sbx__jail_spec *spec)
{
    int src[FD_KEPT] = {spec->stdio[0], spec->stdio[1],  spec->stdio[2], spec->result_fd,
                        spec->exec_fd,  spec->status_fd, spec->sync_fd,  spec->gate_fd};
    for (size_t i = 0; i < SBX__JAIL_TREES; i++)
        src[SBX__JAIL_FD_TREE + i] = i < spec->tree_count ? spec->tree_fds[i] : -1;
    int tmp[FD_KEPT];
    for (int i = 0; i < FD_KEPT; i++) {
        tmp[i] = src[i] >= 0 ? fcntl(src[i], F_DUPFD_CLOEXEC, 16) : -1;
        if (src[i] >= 0 && tmp[i] < 0)
            return -errno;
    }
    for (int i = 0; i < FD_KEPT; i++) {
        if (tmp[i] < 0)
            continue;
        int flags = i >= FD_EXEC ? O_CLOEXEC : 0;
        if (dup3(tmp[i], i, flags) < 0)
            return -errno;
    }
    if (syscall(SYS_close_range, FD_FIRST_FREE, ~0U, 0) != 0)
        return -errno;
    /* A fixed number without an fd of ours may still hold one inherited from the host. */
    for (int i = FD_RESULT; i < FD_FIRST_FREE; i++) {
        if (src[i] < 0)
            close(i);
    }
    return 0;
}

/* A caller's blocked signals and ignored dispositions survive fork and exec (signal(7)): a
 * server that blocks SIGTERM for its signal thread, or ignores SIGPIPE, would hand them to every
 * guest (`yes | head` would spin). The guest starts as from a login shell: nothing blocked,
 * nothing ignored. */
static void default_signals(void)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* The raw call: libc refuses its own signals (32, 33), which a sanitizer runtime ignores. */
    struct kernel_sigaction {
        void (*handler)(int);
        unsigned long flags;
        void (*restorer)(void);
        uint64_t mask;
    } sa, dfl = {.handler = SIG_DFL};
    for (int sig = 1; sig < 65; sig++) {
        if (syscall(SYS_rt_sigaction, sig, NULL, &sa, sizeof(uint64_t)) == 0 &&
            sa.handler == SIG_IGN)
            syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof(uint64_t));
    }
}

static _Noreturn void exec_guest(const struct sbx__jail_spec *spec, int err_fd)
{
    int err = ENOENT;
    default_signals();
    setsid();
    /* The pty standing in for the host's terminal (tty.c) becomes the guest's controlling
     * terminal, so ^C and ^Z typed at the host reach it as signals; pipes refuse (ENOTTY). */
    for (int fd = 0; fd < 3 && ioctl(fd, TIOCSCTTY, 0) != 0; fd++)
        ;
    if (spec->cwd && chdir(spec->cwd) != 0) {
        err = -errno; /* negative: the working directory, not the program (outcome.c) */
        ssize_t n = write(err_fd, &err, sizeof(err));
        (void)n;
        _exit(126);
    }
    if (spec->exec_fd >= 0) {
        syscall(SYS_execveat, FD_EXEC, "", spec->argv, spec->envp, AT_EMPTY_PATH);
        err = errno;
    }
    for (size_t i = 0; spec->exec_fd < 0 && i < spec->exec_path_count; i++) {
        execve(spec->exec_paths[i], spec->argv, spec->envp);
        /* execvp(3): remember EACCES, keep looking past ENOENT and ENOTDIR. */
        if (errno == EACCES)
            err = EACCES;
        else if (errno != ENOENT && errno != ENOTDIR)
            err = errno;
    }
    ssize_t n = write(err_fd, &err, sizeof(err));
    (void)n;
    _exit(127);
}

/* pid 1 of the jail: starts the guest, reaps every orphan, and reports the guest's status.
 * Its exit tears the pid namespace down, so no process of the run outlives the guest. */
static _Noreturn void run_init(const struct sbx__jail_spec *spec)
{
    int errp[2];
    if (pipe2(errp, O_CLOEXEC) != 0)
        fail(FD_STATUS, SBX__STAGE_FORK, errno, 0);
    long pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
    if (pid < 0)
        fail(FD_STATUS, SBX__STAGE_FORK, errno, 0);
    if (pid == 0) {
        close(errp[0]);
        exec_guest(spec, errp[1]);
    }
    close(errp[1]);
    /* Only wait4 blocks: an exec error waits in the pipe until the guest has exited, which
     * spares this process a wake-up per run. */
    struct sbx__jail_report r = {.kind = SBX__REPORT_EXEC, .err = ECHILD};
    for (;;) {
        int st;
        pid_t w = (pid_t)wait4(-1, &st, 0, NULL);
        if (w == (pid_t)pid) {
            r = (struct sbx__jail_report){.kind = SBX__REPORT_EXITED, .wstatus = st};
            break;
        }
        if (w < 0 && errno != EINTR)
            break;
    }
    int err = 0;
    if (read(errp[0], &err, sizeof(err)) == (ssize_t)sizeof(err))
        r = (struct sbx__jail_report){.kind = SBX__REPORT_EXEC, .err = err};
    report(FD_STATUS, &r);
    _exit(0);
}

/* pid 1 is a fork of the host program, and /proc/1/cmdline and comm are readable by every
 * guest: they would show the host's binary and arguments. The argv area is this process's own
 * copy-on-write memory. A non-NUL last byte makes the kernel read the title up to its first NUL
 * (proc(5), "setproctitle" case), so the old length does not show either. */
static void set_title(const struct sbx__jail_spec *spec)
{
    static const char title[] = "sbx-init";
    size_t n = spec->title_len;
    if (n >= 2) {
        memset(spec->title_area, 0, n);
        memcpy(spec->title_area, title, n > sizeof(title) ? sizeof(title) : n - 1);
        if (n > sizeof(title))
            spec->title_area[n - 1] = ' ';
    }
    prctl(PR_SET_NAME, title, 0, 0, 0);
}

static int read_full(int fd, void *buf, size_t len)
{
    for (size_t got = 0; got < len;) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EPIPE;
        got += (size_t)n;
    }
    return 0;
}

/* The filters of a first run, built by the parent during this setup. Static storage: this
 * child may not allocate; its copy of the parent's memory holds them until the exec. */
static struct sock_filter late_insns[2 * BPF_MAXINSNS];

static int await_filters(struct sbx__jail_bpf filters[2])
{
    struct sbx__jail_late_bpf hdr;
    int rc = read_full(FD_SYNC, &hdr, sizeof(hdr));
    size_t total = (size_t)hdr.count[0] + hdr.count[1];
    if (rc == 0 && (hdr.count[0] == 0 || hdr.count[1] == 0 || total > 2 * BPF_MAXINSNS))
        rc = -EPROTO;
    if (rc == 0)
        rc = read_full(FD_SYNC, late_insns, total * sizeof(late_insns[0]));
    filters[0] = (struct sbx__jail_bpf){late_insns, hdr.count[0]};
    filters[1] = (struct sbx__jail_bpf){late_insns + hdr.count[0], hdr.count[1]};
    return rc;
}

/* Waits for the parent's byte; any other outcome means it gave up (and will reap us). */
static void await(char want)
{
    char got = 0;
    if (read(FD_SYNC, &got, 1) != 1 || got != want)
        _exit(1);
}

/* The jail dies with the thread that supervises it (a host killed mid-run leaves no jail
 * running unwatched). Set after the id change, which clears it (prctl(2)); a parent gone before
 * shows as a status pipe without a reader. */
static int die_with_parent(int status_fd)
{
    struct pollfd p = {.fd = status_fd, .events = POLLOUT};
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || poll(&p, 1, 0) < 0)
        return -errno;
    if (p.revents & POLLERR)
        _exit(1);
    return 0;
}

static void step(int status_fd, int stage, int rc)
{
    if (rc < 0)
        fail(status_fd, stage, -rc, 0);
}

static int neg_errno(int rc)
{
    return rc == 0 ? 0 : -errno;
}

/* cgroup v1: a thread moving itself ("0" into tasks) skips cgroup_threadgroup_rwsem, whose RCU
 * grace period cost ~10 ms per run when the parent moved the child. Single-threaded here, so the
 * thread is the process; everything it forks follows. */
static int attach_self(const struct sbx__jail_spec *spec)
{
    for (int i = 0; i < 3; i++) {
        if (spec->cgroup_tasks_fds[i] >= 0 && write(spec->cgroup_tasks_fds[i], "0", 1) != 1)
            return -errno;
    }
    return 0;
}

_Noreturn void sbx__jail_child_main(const struct sbx__jail_spec *spec)
{
    set_title(spec);
    step(spec->status_fd, SBX__STAGE_CGROUP, attach_self(spec));
    /* Early, so fds other host threads opened (their runs' pipes) leave this child at once. */
    step(spec->status_fd, SBX__STAGE_FDS, arrange_fds(spec));
    sbx__exit_child_begin(FD_FIRST_FREE); /* coverage builds: counters dumped via the host's root */
    int sfd = FD_STATUS;
    if (spec->is_self_mapped)
        step(sfd, SBX__STAGE_USERNS, sbx__jail_userns_map_self(spec));
    else
        await('m');
    step(sfd, SBX__STAGE_USERNS, sbx__jail_userns_apply(spec));
    step(sfd, SBX__STAGE_USERNS, die_with_parent(sfd));
    int failed_step = -1;
    int rc = sbx__jail_mount_apply(spec, &failed_step);
    if (rc)
        fail(sfd, SBX__STAGE_MOUNT, -rc, failed_step);
    for (size_t i = 0; i < spec->tree_count; i++) /* attached now; the guest never sees them */
        close(SBX__JAIL_FD_TREE + (int)i);
    step(sfd, SBX__STAGE_PIVOT, sbx__jail_mount_pivot(spec->root_dir));
    step(sfd, SBX__STAGE_PIVOT, sbx__jail_mount_finish());
    bool has_gate = spec->gate_filter.count > 0;
    step(sfd, SBX__STAGE_NET, sbx__jail_net_apply(spec->net_loopback || has_gate));
    int stub_fd = has_gate ? sbx__jail_gate_stub_open() : 0; /* the DNS stub's, on 127.0.0.1 */
    step(sfd, SBX__STAGE_NET, stub_fd < 0 ? stub_fd : 0);
    step(sfd, SBX__STAGE_FDS, setsid() < 0 ? -errno : 0);
    step(sfd, SBX__STAGE_RLIMIT, sbx__jail_rlimit_apply(&spec->rlimits));
    if (spec->has_cgroup)
        await('g');
    /* Entered once attached, so the jail's cgroup is the namespace's root. */
    step(sfd, SBX__STAGE_CGROUPNS, neg_errno(unshare(CLONE_NEWCGROUP)));
    step(sfd, SBX__STAGE_CAPS, sbx__jail_caps_drop());
    sbx__exit_child_end(); /* before Landlock forbids the writes */
    if (spec->landlock_abi > 0)
        step(sfd, SBX__STAGE_LANDLOCK, sbx__jail_landlock_apply(spec));
    sbx__jail_mount_close_grants(spec);
    struct sbx__jail_bpf filters[2] = {spec->filters[0], spec->filters[1]};
    if (spec->has_late_filters)
        step(sfd, SBX__STAGE_SECCOMP, await_filters(filters));
    if (spec->sync_fd >= 0)
        close(FD_SYNC);
    step(sfd, SBX__STAGE_SECCOMP, sbx__jail_seccomp_apply(filters));
    if (has_gate)
        step(sfd, SBX__STAGE_SECCOMP, sbx__jail_gate_apply(&spec->gate_filter, FD_GATE, stub_fd));
    run_init(spec);
}

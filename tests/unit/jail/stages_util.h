/* tests/unit/jail/stages_util.h: harness for test_stages.c. A case runs one jail stage in a forked
 * child, which checks the stage's effect itself: the first failed check writes its line and errno
 * on a pipe and ends the child with exit(<index of the check>), so a coverage build still dumps
 * the child's counters; exit(STAGES_SKIP) means the kernel refused something the case needs. */
#ifndef SBX_STAGES_UTIL_H
#define SBX_STAGES_UTIL_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail_test.h"

#include "core/policy.h"
#include "jail/jail.h"
#include "jail/plan.h"

enum { STAGES_SKIP = 77 };

struct stages_note {
    int line; /* 0: a skip, text = the reason */
    int err;
    char text[240];
};

/* Child-side state (each child is a fresh copy of the test process). */
static int stages_report_fd = -1;
static int stages_sync_rd = -1, stages_sync_wr = -1;
static int stages_checks;
static volatile int stages_is_child;

/* The sanitizer's leak check cannot stop the world in a child without ptrace or dumpability;
 * the test process itself is still checked. */
__attribute__((visibility("default"))) int __lsan_is_turned_off(void);
__attribute__((visibility("default"))) int __lsan_is_turned_off(void)
{
    return stages_is_child;
}

static inline void stages_send(int line, int err, const char *fmt, ...)
{
    struct stages_note n = {.line = line, .err = err};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n.text, sizeof(n.text), fmt, ap);
    va_end(ap);
    ssize_t w = write(stages_report_fd, &n, sizeof(n));
    (void)w;
}

static inline _Noreturn void stages_fail(int line, int err, const char *what)
{
    stages_send(line, err, "%s", what);
    exit(stages_checks < STAGES_SKIP ? stages_checks : STAGES_SKIP - 1);
}

static inline _Noreturn void stages_skip(const char *why, int err)
{
    stages_send(0, err, "%s", why);
    exit(STAGES_SKIP);
}

/* Child side: one numbered check. errno is read right after cond, which usually ends in the
 * system call under test. */
#define CHILD_CHECK(cond)                                                                          \
    do {                                                                                           \
        stages_checks++;                                                                           \
        if (!(cond))                                                                               \
            stages_fail(__LINE__, errno, #cond);                                                   \
    } while (0)

/* Child side: a call that fails with exactly this errno. */
#define CHILD_ERRNO(call, want) CHILD_CHECK((call) == -1 && errno == (want))

typedef void (*stages_child_fn)(void *arg);
/* Parent side, between fork and wait: talks to the child over the sync pipes. */
typedef void (*stages_hook_fn)(pid_t pid, int rd, int wr, void *arg);

static inline void stages_child_start(int report, int rd, int wr)
{
    stages_is_child = 1;
    stages_report_fd = report;
    stages_sync_rd = rd;
    stages_sync_wr = wr;
    stages_checks = 0;
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
}

/* Runs fn in a forked child and fails the test unless it exits 0. Returns false (with the reason
 * printed) when the child skipped. */
static inline bool stages_run(const char *name, stages_child_fn fn, void *arg, stages_hook_fn hook)
{
    int rep[2], down[2], up[2];
    ck_assert_int_eq(pipe2(rep, O_CLOEXEC), 0);
    ck_assert_int_eq(pipe2(down, O_CLOEXEC), 0);
    ck_assert_int_eq(pipe2(up, O_CLOEXEC), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(rep[0]);
        close(down[1]);
        close(up[0]);
        stages_child_start(rep[1], down[0], up[1]);
        fn(arg);
        exit(0);
    }
    close(rep[1]);
    close(down[0]);
    close(up[1]);
    if (hook)
        hook(pid, up[0], down[1], arg);
    close(down[1]);
    close(up[0]);
    struct stages_note n;
    memset(&n, 0, sizeof(n));
    ssize_t got;
    do
        got = read(rep[0], &n, sizeof(n));
    while (got < 0 && errno == EINTR);
    close(rep[0]);
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    bool has_note = got == (ssize_t)sizeof(n);
    if (WIFEXITED(st) && WEXITSTATUS(st) == STAGES_SKIP && has_note && n.line == 0) {
        printf("%s: SKIPPED: %s%s%s\n", name, n.text, n.err ? ": " : "",
               n.err ? strerror(n.err) : "");
        return false;
    }
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "%s: child %s %d; %s:%d: check failed: %s (errno %d: %s)", name,
                  WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
                  has_note ? "test_stages.c" : "?", has_note ? n.line : 0,
                  has_note ? n.text : "no report", has_note ? n.err : 0,
                  has_note ? strerror(n.err) : "-");
    return true;
}

/* Child side: new namespaces; not root, it also takes a user namespace in which it is uid 0
 * (mapped to its own uid), as an unprivileged jail does. The kernel refusing is a skip. */
static inline void stages_unshare(int flags, bool wants_user)
{
    struct sbx__jail_spec self = {.host_uid = geteuid(), .host_gid = getegid()};
    if (self.host_uid != 0 || wants_user)
        flags |= CLONE_NEWUSER;
    if (unshare(flags) != 0)
        stages_skip("unshare into new namespaces refused by the kernel", errno);
    if (flags & CLONE_NEWUSER)
        CHILD_CHECK(sbx__jail_userns_map_self(&self) == 0);
}

/* Child side: the user namespace's id maps as the library writes them: itself when
 * unprivileged, else the parent (stages_hook_maps) to host nobody. */
static inline void stages_await_maps(const struct sbx__jail_spec *spec)
{
    if (spec->is_self_mapped) {
        CHILD_CHECK(sbx__jail_userns_map_self(spec) == 0);
        return;
    }
    char c = 'u';
    CHILD_CHECK(write(stages_sync_wr, &c, 1) == 1);
    CHILD_CHECK(read(stages_sync_rd, &c, 1) == 1 && c == 'm');
}

/* The spec stages_hook_maps writes the maps for (set before stages_run), and whether it denies
 * setgroups first (run.c never does; an unprivileged parent must). */
static const struct sbx__jail_spec *stages_hook_spec;
static bool stages_hook_deny;

/* Parent side of stages_await_maps, as run.c's start() does it. */
static inline void stages_hook_maps(pid_t pid, int rd, int wr, void *arg)
{
    const struct sbx__jail_spec *spec = stages_hook_spec;
    char c;
    (void)arg;
    if (spec->is_self_mapped || read(rd, &c, 1) != 1)
        return; /* the child maps itself, or skipped before asking */
    int rc = sbx__jail_userns_write_maps(pid, spec->host_uid, spec->host_gid, stages_hook_deny);
    c = rc == 0 ? 'm' : 'x';
    ck_assert_int_eq(write(wr, &c, 1), 1);
    ck_assert_msg(rc == 0, "write_maps: %s", strerror(-rc));
}

/* Child side: runs fn as pid 1 of the pid namespace the child unshared (procfs may only be
 * mounted by the owner of the pid namespace), and exits with its status. */
static inline void stages_as_pid1(stages_child_fn fn, void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    CHILD_CHECK(pid >= 0);
    if (pid == 0) {
        fn(arg);
        exit(0);
    }
    int st = 0;
    CHILD_CHECK(waitpid(pid, &st, 0) == pid);
    if (WIFSIGNALED(st)) {
        stages_send(__LINE__, 0, "pid 1 killed by signal %d", WTERMSIG(st));
        exit(STAGES_SKIP - 2);
    }
    exit(WEXITSTATUS(st));
}

/* ---- parent side: a host directory per case and a spec built like run.c's prepare() ---- */

struct stages_env {
    char dir[PATH_MAX];  /* this case's host directory (0711, like the handle's temp root) */
    char root[PATH_MAX]; /* dir/root: the jail's root mount point */
    struct sbx_policy *policy;
    struct sbx__jail_spec spec;
};

extern char stages_base[PATH_MAX];

/* In a coverage build (gcc --coverage leaves .gcno files beside the objects) the build dir, which
 * a child that restricts its own filesystem view keeps writable for its counters; else "". */
static char stages_cov_dir[PATH_MAX];

static inline void stages_find_cov_dir(void)
{
    char self[PATH_MAX], probe[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return;
    self[n] = '\0';
    for (int i = 0; i < 4; i++) { /* <build>/tests/unit/jail/test_stages */
        char *slash = strrchr(self, '/');
        if (!slash)
            return;
        *slash = '\0';
    }
    snprintf(probe, sizeof(probe), "%s/src/jail/landlock.gcno", self);
    if (self[0] == '/' && access(probe, F_OK) == 0)
        memcpy(stages_cov_dir, self, strlen(self) + 1);
}

static inline void stages_path(char out[PATH_MAX], const struct stages_env *e, const char *rel)
{
    int n = snprintf(out, PATH_MAX, "%s/%s", e->dir, rel);
    if (n < 0 || n >= PATH_MAX)
        out[0] = '\0'; /* never: the dir is short; fails the check that uses it */
}

static inline void stages_write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    ck_assert_int_ge(fputs(text, f), 0);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(chmod(path, mode), 0);
}

static inline void stages_mkdir(const struct stages_env *e, const char *rel, mode_t mode)
{
    char p[PATH_MAX];
    stages_path(p, e, rel);
    ck_assert_msg(mkdir(p, mode) == 0 && chmod(p, mode) == 0, "%s: %s", p, strerror(errno));
}

/* dir/{root, in/input.txt, ro/data.txt, rw (0777), one.txt (0666), outside/secret.txt}. */
static inline void stages_env_init(struct stages_env *e)
{
    memset(e, 0, sizeof(*e));
    ck_assert_int_lt(snprintf(e->dir, sizeof(e->dir), "%s/case-XXXXXX", stages_base), 200);
    ck_assert_ptr_nonnull(mkdtemp(e->dir));
    ck_assert_int_eq(chmod(e->dir, 0711), 0);
    ck_assert_int_lt(snprintf(e->root, sizeof(e->root), "%s/root", e->dir), 200);
    stages_mkdir(e, "root", 0755);
    stages_mkdir(e, "in", 0755);
    stages_mkdir(e, "ro", 0755);
    stages_mkdir(e, "rw", 0777);
    stages_mkdir(e, "outside", 0755);
    char p[PATH_MAX];
    stages_path(p, e, "in/input.txt");
    stages_write_file(p, "input", 0644);
    stages_path(p, e, "ro/data.txt");
    stages_write_file(p, "ro-data", 0644);
    stages_path(p, e, "one.txt");
    stages_write_file(p, "one", 0666);
    stages_path(p, e, "outside/secret.txt");
    stages_write_file(p, "secret", 0644);
}

/* Fills e->spec as run.c's prepare() does for a handle without a cgroup, from policy JSON in
 * which every "@" stands for e->dir; input_rel names the run's input dir (NULL: none). */
static inline void stages_env_plan(struct stages_env *e, const char *json_at, const char *input_rel)
{
    char json[4096], err[512] = "";
    size_t o = 0, dlen = strlen(e->dir);
    for (const char *s = json_at; *s; s++) {
        ck_assert_uint_lt(o + dlen + 1, sizeof(json));
        if (*s == '@') {
            memcpy(json + o, e->dir, dlen);
            o += dlen;
        } else {
            json[o++] = *s;
        }
    }
    json[o] = '\0';
    ck_assert_msg(sbx_policy_parse(json, o, &e->policy, err, sizeof(err)) == SBX_OK, "%s", err);
    const struct sbx_policy *p = e->policy;
    struct sbx__jail_spec *s = &e->spec;
    bool is_root = geteuid() == 0;
    s->guest_uid = s->guest_gid = SBX__JAIL_GUEST_ID;
    s->can_setgroups = is_root;
    s->is_self_mapped = !is_root;
    s->host_uid = is_root ? SBX__JAIL_NOBODY : geteuid();
    s->host_gid = is_root ? SBX__JAIL_NOBODY : getegid();
    s->root_dir = e->root;
    s->net_loopback = p->net_loopback;
    s->landlock_abi = sbx__jail_landlock_abi();
    s->rlimits = (struct sbx__jail_rlimits){
        .data_bytes = p->memory_bytes, .nproc = p->pids, .fsize_bytes = 1ull << 30, .nofile = 1024};
    s->exec_fd = s->sync_fd = s->status_fd = s->result_fd = -1;
    s->stdio[0] = s->stdio[1] = s->stdio[2] = -1;
    ck_assert_int_eq(sbx__jail_seccomp_filters(s->filters), SBX_OK);
    char input[PATH_MAX];
    if (input_rel)
        stages_path(input, e, input_rel);
    sbx_err pe = sbx__jail_plan_fs(s, p, input_rel ? input : NULL, err, sizeof(err));
    ck_assert_msg(pe == SBX_OK, "plan_fs: %s: %s", sbx_err_name(pe), err);
    const char *argv[] = {"true", NULL};
    ck_assert_int_eq(sbx__jail_plan_exec(s, p, argv), SBX_OK);
}

static inline void stages_env_free(struct stages_env *e)
{
    sbx__jail_plan_free(&e->spec);
    sbx_policy_destroy(e->policy);
    e->policy = NULL;
}

/* Child side: reads a whole small file into buf (NUL-terminated); returns its length or -1. */
static inline ssize_t stages_read(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    int err = errno;
    close(fd);
    if (n < 0) {
        errno = err;
        return -1;
    }
    buf[n] = '\0';
    return n;
}

/* ---- child-side probes ---- */

static inline bool caps_get(struct __user_cap_data_struct d[2])
{
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    return syscall(SYS_capget, &h, d) == 0;
}

static inline bool caps_all_zero(void)
{
    struct __user_cap_data_struct d[2];
    if (!caps_get(d))
        return false;
    for (int i = 0; i < 2; i++) {
        if (d[i].effective || d[i].permitted || d[i].inheritable)
            return false;
    }
    return true;
}

static inline bool cap_effective(int cap)
{
    struct __user_cap_data_struct d[2];
    return caps_get(d) && (d[cap / 32].effective & (1u << (cap % 32))) != 0;
}

/* Runs argv[0] (absolute) in a grandchild with stdout on a pipe; returns its wait status and
 * its output in out. */
static inline int run_prog(char *const argv[], char *out, size_t cap)
{
    int p[2];
    CHILD_CHECK(pipe2(p, O_CLOEXEC) == 0);
    pid_t pid = fork();
    CHILD_CHECK(pid >= 0);
    if (pid == 0) {
        dup2(p[1], 1);
        execv(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    size_t o = 0;
    ssize_t n;
    while (o + 1 < cap && (n = read(p[0], out + o, cap - 1 - o)) > 0)
        o += (size_t)n;
    out[o] = '\0';
    close(p[0]);
    int st = 0;
    CHILD_CHECK(waitpid(pid, &st, 0) == pid);
    return st;
}

static inline int listen_lo(struct sockaddr_in *a)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    memset(a, 0, sizeof(*a));
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(*a);
    if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof(*a)) != 0 || listen(fd, 4) != 0 ||
        getsockname(fd, (struct sockaddr *)a, &len) != 0)
        return -1;
    return fd;
}

/* 0 when a TCP connection to a was made, else -errno. */
static inline int connect_to(const struct sockaddr *a, socklen_t len, int family)
{
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int rc = connect(fd, a, len) == 0 ? 0 : -errno;
    close(fd);
    return rc;
}

/* A TCP byte round trip over 127.0.0.1. */
static inline bool tcp_roundtrip(void)
{
    struct sockaddr_in a;
    int l = listen_lo(&a);
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l < 0 || c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) != 0)
        return false;
    int s = accept(l, NULL, NULL);
    char buf[4] = "";
    bool ok = s >= 0 && write(c, "ping", 4) == 4 && read(s, buf, 4) == 4 && !memcmp(buf, "ping", 4);
    close(s);
    close(c);
    close(l);
    return ok;
}

static inline int abstract_listen(struct sockaddr_un *a, socklen_t *len)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "sbx-stages-%d", (int)getpid());
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    if (fd < 0 || bind(fd, (struct sockaddr *)a, *len) != 0 || listen(fd, 1) != 0)
        return -1;
    return fd;
}

static inline unsigned long statvfs_flags(const char *path)
{
    struct statvfs sv;
    return statvfs(path, &sv) == 0 ? sv.f_flag : 0xdeadul << 32;
}

static inline bool has_flags(const char *path, unsigned long want)
{
    unsigned long f = statvfs_flags(path);
    return f >> 32 == 0 && (f & want) == want;
}

static inline bool is_fs(const char *path, long magic)
{
    struct statfs sf;
    return statfs(path, &sf) == 0 && sf.f_type == magic;
}

static inline bool file_is(const char *path, const char *want)
{
    char buf[256];
    return stages_read(path, buf, sizeof(buf)) >= 0 && strcmp(buf, want) == 0;
}

/* The spec of an unprivileged host: the child maps its own ids. */
static inline void stages_self_mapped(struct sbx__jail_spec *s)
{
    s->is_self_mapped = true;
    s->can_setgroups = false;
    s->host_uid = geteuid();
    s->host_gid = getegid();
}

/* The main of a stages test program: a private temp dir under /var/tmp (the plan's Landlock
 * rules grant all of /tmp), the suite, then the dir's removal. */
static inline int stages_main(Suite *suite, const char *name)
{
    stages_find_cov_dir();
    snprintf(stages_base, sizeof(stages_base), "/var/tmp/sbx-stages-%d-XXXXXX", (int)getpid());
    if (!mkdtemp(stages_base) || chmod(stages_base, 0711) != 0) {
        fprintf(stderr, "%s: temp dir: %s\n", name, strerror(errno));
        return EXIT_FAILURE;
    }
    int rc = sbx_test_main(suite);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof(cmd), "rm -rf --one-file-system '%s'", stages_base);
    if (system(cmd) != 0)
        fprintf(stderr, "%s: could not remove %s\n", name, stages_base);
    return rc;
}

static inline bool write_new(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    return close(fd) == 0 && ok;
}

#endif

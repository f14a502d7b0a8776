/* tests/unit/jail/test_stages.c: each stage of the jail child's pipeline (jail.c) run alone in a
 * forked child, on a spec built like run.c's prepare() with the library's own plan code, and its
 * effect checked inside that child: rlimits, capabilities, network, Landlock, seccomp and the
 * user namespace; plus the stages' error returns. (The mount stage: test_stages_mount.c.) */
#include <dirent.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <linux/securebits.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "stages_util.h"
#include "util/alloc.h"
#include "util/path.h"

char stages_base[PATH_MAX];

/* ---- rlimit.c ---- */

struct rl_case {
    struct sbx__jail_rlimits want;
    struct rlimit before_data, before_nproc, before_nofile;
    char file[PATH_MAX];
};

static bool limit_is(int resource, uint64_t value)
{
    struct rlimit rl;
    return getrlimit(resource, &rl) == 0 && rl.rlim_cur == (rlim_t)value &&
           rl.rlim_max == (rlim_t)value;
}

static bool limit_same(int resource, const struct rlimit *before)
{
    struct rlimit rl;
    return getrlimit(resource, &rl) == 0 && rl.rlim_cur == before->rlim_cur &&
           rl.rlim_max == before->rlim_max;
}

static void child_rlimits(void *arg)
{
    const struct rl_case *c = arg;
    const struct sbx__jail_rlimits *r = &c->want;
    CHILD_CHECK(signal(SIGXFSZ, SIG_IGN) != SIG_ERR);
    CHILD_CHECK(sbx__jail_rlimit_apply(r) == 0);
    CHILD_CHECK(limit_is(RLIMIT_CORE, 0));
    CHILD_CHECK(limit_is(RLIMIT_FSIZE, r->fsize_bytes));
    CHILD_CHECK(limit_is(RLIMIT_NOFILE, r->nofile));
    CHILD_CHECK(r->data_bytes ? limit_is(RLIMIT_DATA, r->data_bytes)
                              : limit_same(RLIMIT_DATA, &c->before_data));
    CHILD_CHECK(r->nproc ? limit_is(RLIMIT_NPROC, r->nproc)
                         : limit_same(RLIMIT_NPROC, &c->before_nproc));
    /* The limits bite: a write past fsize, an fd past nofile, a mapping past data. */
    int fd = open(c->file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    CHILD_CHECK(fd >= 0);
    CHILD_CHECK(pwrite(fd, "x", 1, (off_t)r->fsize_bytes - 1) == 1);
    CHILD_ERRNO(pwrite(fd, "x", 1, (off_t)r->fsize_bytes), EFBIG);
    close(fd);
    CHILD_CHECK(unlink(c->file) == 0);
    int top = (int)r->nofile - 1;
    CHILD_CHECK(dup2(stages_report_fd, top) == top);
    close(top);
    CHILD_ERRNO(dup2(stages_report_fd, top + 1), EBADF);
    if (r->data_bytes) {
        size_t big = (size_t)r->data_bytes * 2;
        CHILD_CHECK(mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
                        MAP_FAILED &&
                    errno == ENOMEM);
    }
}

static void rl_case_init(struct rl_case *c, const struct stages_env *e)
{
    c->want = e->spec.rlimits;
    ck_assert_int_eq(getrlimit(RLIMIT_DATA, &c->before_data), 0);
    ck_assert_int_eq(getrlimit(RLIMIT_NPROC, &c->before_nproc), 0);
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &c->before_nofile), 0);
    stages_path(c->file, e, "rw/fsize");
}

/* Without a cgroup (run.c): data and nproc stand in for memory and pids. */
START_TEST(test_rlimit_without_cgroup)
{
#if defined(__SANITIZE_ADDRESS__)
    /* ASan's shadow counts as about 15 TB of VmData: under any RLIMIT_DATA the sanitizer's own
     * lazy mappings fail (with libmozjs and libstdc++ linked in, their dynamic-TLS blocks do). */
    printf("rlimit: SKIPPED: RLIMIT_DATA cannot be tested under ASan\n");
    return;
#endif
    struct stages_env e;
    stages_env_init(&e);
    stages_env_plan(&e, "{\"memoryBytes\":67108864,\"pids\":32}", NULL);
    ck_assert_uint_eq(e.spec.rlimits.data_bytes, 64ull << 20);
    ck_assert_uint_eq(e.spec.rlimits.nproc, 32);
    struct rl_case c;
    rl_case_init(&c, &e);
    stages_run("rlimit", child_rlimits, &c, NULL);
    stages_env_free(&e);
}
END_TEST

/* With a cgroup holding memory and pids, data and nproc stay as inherited. */
START_TEST(test_rlimit_with_cgroup)
{
    struct stages_env e;
    stages_env_init(&e);
    stages_env_plan(&e, "{}", NULL);
    e.spec.rlimits.data_bytes = e.spec.rlimits.nproc = 0;
    struct rl_case c;
    rl_case_init(&c, &e);
    stages_run("rlimit/cgroup", child_rlimits, &c, NULL);
    stages_env_free(&e);
}
END_TEST

static void child_rlimit_refused(void *arg)
{
    const struct rl_case *c = arg;
    CHILD_CHECK(sbx__jail_rlimit_apply(&c->want) == -EPERM);
    /* In order: core and fsize were set before nofile failed; nofile is untouched. */
    CHILD_CHECK(limit_is(RLIMIT_CORE, 0));
    CHILD_CHECK(limit_is(RLIMIT_FSIZE, c->want.fsize_bytes));
    CHILD_CHECK(limit_same(RLIMIT_NOFILE, &c->before_nofile));
}

/* nofile past fs.nr_open (root) or the hard limit (unprivileged) is refused with EPERM. */
START_TEST(test_rlimit_refused)
{
    struct stages_env e;
    stages_env_init(&e);
    stages_env_plan(&e, "{}", NULL);
    struct rl_case c;
    rl_case_init(&c, &e);
    char buf[32];
    FILE *f = fopen("/proc/sys/fs/nr_open", "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
    fclose(f);
    uint64_t nr_open = strtoull(buf, NULL, 10);
    c.want.nofile = nr_open + 1; /* also past the hard limit, which nr_open bounds */
    stages_run("rlimit/refused", child_rlimit_refused, &c, NULL);
    stages_env_free(&e);
}
END_TEST

/* ---- caps.c ---- */

static void child_caps(void *arg)
{
    const struct stages_env *e = arg;
    stages_unshare(CLONE_NEWUTS | CLONE_NEWNS, false);
    CHILD_CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
    CHILD_CHECK(cap_effective(CAP_SYS_ADMIN)); /* so the EPERMs below are the drop's */
    CHILD_CHECK(sbx__jail_caps_drop() == 0);
    CHILD_CHECK(caps_all_zero());
    int n = 0;
    for (; prctl(PR_CAPBSET_READ, n, 0, 0, 0) >= 0; n++) {
        CHILD_CHECK(prctl(PR_CAPBSET_READ, n, 0, 0, 0) == 0);
        CHILD_CHECK(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, n, 0, 0) == 0);
    }
    CHILD_CHECK(n > CAP_LAST_CAP);
    int bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
               SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
               SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    CHILD_CHECK(prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) == bits);
    CHILD_CHECK(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1);
    CHILD_CHECK(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0);
    /* Privileged operations, even in namespaces this process made, now fail. */
    CHILD_ERRNO(sethostname("x", 1), EPERM);
    CHILD_ERRNO(mount("tmpfs", e->root, "tmpfs", 0, NULL), EPERM);
    CHILD_ERRNO(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SYS_ADMIN, 0, 0), EPERM);
    CHILD_ERRNO(prctl(PR_SET_SECUREBITS, 0, 0, 0, 0), EPERM);
    /* "For good": an execve, as uid 0 when the host is root, hands nothing back. */
    char out[8192];
    char *const argv[] = {"/bin/cat", "/proc/self/status", NULL};
    int st = run_prog(argv, out, sizeof(out));
    CHILD_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    static const char *const lines[] = {"CapInh:\t0000000000000000", "CapPrm:\t0000000000000000",
                                        "CapEff:\t0000000000000000", "CapBnd:\t0000000000000000",
                                        "CapAmb:\t0000000000000000", "NoNewPrivs:\t1"};
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        CHILD_CHECK(strstr(out, lines[i]) != NULL);
    CHILD_CHECK(sbx__jail_caps_drop() == -EPERM); /* nothing left to drop: CAP_SETPCAP is gone */
}

/* A host that locked SECBIT_NOROOT off: the drop fails closed instead of going on. */
static void child_caps_locked_bit(void *arg)
{
    (void)arg;
    stages_unshare(CLONE_NEWUTS, false);
    CHILD_CHECK(prctl(PR_SET_SECUREBITS, SECBIT_NOROOT_LOCKED, 0, 0, 0) == 0);
    CHILD_CHECK(sbx__jail_caps_drop() == -EPERM);
    CHILD_CHECK(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0);
}

START_TEST(test_caps_drop)
{
    struct stages_env e;
    stages_env_init(&e);
    stages_run("caps", child_caps, &e, NULL);
    stages_run("caps/locked-bit", child_caps_locked_bit, NULL, NULL);
}
END_TEST

/* ---- net.c ---- */

static bool iface_flags(const char *name, short *flags)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
    bool ok = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0;
    *flags = ifr.ifr_flags;
    close(fd);
    return ok;
}

/* Interfaces that are up: 1 = only lo, 0 = none, -1 = another one (or an error). */
static int ifaces_up(void)
{
    struct if_nameindex *ifs = if_nameindex();
    if (!ifs)
        return -1;
    int up = 0;
    for (struct if_nameindex *i = ifs; i->if_name; i++) {
        short fl = 0;
        if (!iface_flags(i->if_name, &fl))
            up = -100;
        else if (fl & IFF_UP)
            up += strcmp(i->if_name, "lo") == 0 ? 1 : -100;
    }
    if_freenameindex(ifs);
    return up < 0 ? -1 : up;
}

static void child_net(void *arg)
{
    bool loopback = *(const bool *)arg;
    stages_unshare(CLONE_NEWNET | CLONE_NEWUTS, false);
    CHILD_CHECK(sbx__jail_net_apply(loopback) == 0);
    char name[65] = "";
    CHILD_CHECK(gethostname(name, sizeof(name)) == 0 && strcmp(name, "sbx") == 0);
    CHILD_CHECK(getdomainname(name, sizeof(name)) == 0 && strcmp(name, "sbx") == 0);
    short fl = 0;
    CHILD_CHECK(iface_flags("lo", &fl));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (!loopback) {
        CHILD_CHECK(!(fl & IFF_UP));
        CHILD_CHECK(ifaces_up() == 0);
        CHILD_CHECK(connect_to((struct sockaddr *)&a, sizeof(a), AF_INET) == -ENETUNREACH);
        return;
    }
    CHILD_CHECK((fl & (IFF_UP | IFF_RUNNING)) == (IFF_UP | IFF_RUNNING));
    CHILD_CHECK(ifaces_up() == 1);
    CHILD_CHECK(tcp_roundtrip());
}

START_TEST(test_net_isolated)
{
    char before[65] = "", after[65] = "";
    ck_assert_int_eq(gethostname(before, sizeof(before)), 0);
    bool loopback = false;
    stages_run("net/isolated", child_net, &loopback, NULL);
    loopback = true;
    stages_run("net/loopback", child_net, &loopback, NULL);
    ck_assert_int_eq(gethostname(after, sizeof(after)), 0);
    ck_assert_str_eq(before, after); /* the host's own name is untouched */
}
END_TEST

static void child_net_errors(void *arg)
{
    (void)arg;
    /* Without CAP_SYS_ADMIN over the uts namespace the name cannot be set. */
    pid_t pid = fork();
    CHILD_CHECK(pid >= 0);
    if (pid == 0) {
        stages_unshare(CLONE_NEWNET | CLONE_NEWUTS, false);
        CHILD_CHECK(sbx__jail_caps_drop() == 0);
        CHILD_CHECK(sbx__jail_net_apply(false) == -EPERM);
        exit(0);
    }
    int st = 0;
    CHILD_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
    if (WEXITSTATUS(st) != 0)
        exit(WEXITSTATUS(st)); /* its note is on the pipe already */
    /* Own uts namespace, the host's network namespace: the name is set, lo stays the host's. */
    stages_unshare(CLONE_NEWUTS, true);
    CHILD_CHECK(sbx__jail_net_apply(true) == -EPERM);
    char name[65] = "";
    CHILD_CHECK(gethostname(name, sizeof(name)) == 0 && strcmp(name, "sbx") == 0);
    CHILD_CHECK(sbx__jail_net_apply(false) == 0);
}

START_TEST(test_net_errors)
{
    stages_run("net/errors", child_net_errors, NULL, NULL);
}
END_TEST

/* ---- landlock.c ---- */

static void child_landlock_files(const struct stages_env *e)
{
    char p[PATH_MAX], q[PATH_MAX];
    stages_path(p, e, "ro/data.txt");
    CHILD_CHECK(file_is(p, "ro-data"));
    CHILD_ERRNO(open(p, O_WRONLY | O_CLOEXEC), EACCES);
    if (e->spec.landlock_abi >= 3)
        CHILD_ERRNO(truncate(p, 0), EACCES);
    CHILD_ERRNO(unlink(p), EACCES);
    stages_path(p, e, "ro/new.txt");
    CHILD_ERRNO(open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644), EACCES);
    stages_path(p, e, "ro/sub");
    CHILD_ERRNO(mkdir(p, 0755), EACCES);
    /* The rw grant: create, rename, remove. */
    stages_path(p, e, "rw/new.txt");
    stages_path(q, e, "rw/renamed.txt");
    CHILD_CHECK(write_new(p, "rw") && file_is(p, "rw"));
    CHILD_CHECK(rename(p, q) == 0 && unlink(q) == 0);
    stages_path(p, e, "rw/dir");
    CHILD_CHECK(mkdir(p, 0755) == 0 && rmdir(p) == 0);
    /* A single-file grant covers that file only. */
    stages_path(p, e, "one.txt");
    CHILD_CHECK(write_new(p, "ONE"));
    stages_path(p, e, "two.txt");
    CHILD_ERRNO(open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644), EACCES);
    /* Outside every grant nothing is readable. */
    stages_path(p, e, "outside/secret.txt");
    CHILD_ERRNO(open(p, O_RDONLY | O_CLOEXEC), EACCES);
    /* The plan's system rules: /usr readable, /dev/null writable; EXECUTE is not handled. */
    int fd = open("/usr/bin/env", O_RDONLY | O_CLOEXEC);
    CHILD_CHECK(fd >= 0);
    close(fd);
    fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    CHILD_CHECK(fd >= 0 && write(fd, "x", 1) == 1);
    close(fd);
    char out[64];
    char *const argv[] = {"/bin/sh", "-c", "echo ran", NULL};
    int st = run_prog(argv, out, sizeof(out));
    CHILD_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 && strcmp(out, "ran\n") == 0);
}

/* The spec's rules, plus in a coverage build one for the build dir (see stages_cov_dir). */
struct ll_rules {
    struct sbx__jail_spec spec;
    struct sbx__jail_rule rules[64];
};

static const struct sbx__jail_spec *with_cov_rule(const struct sbx__jail_spec *s,
                                                  struct ll_rules *r)
{
    if (!stages_cov_dir[0] || s->rule_count >= 64)
        return s;
    r->spec = *s;
    memcpy(r->rules, s->rules, s->rule_count * sizeof(*s->rules));
    r->rules[s->rule_count] =
        (struct sbx__jail_rule){.path = stages_cov_dir,
                                .access = sbx__jail_landlock_read_access() |
                                          sbx__jail_landlock_write_access(s->landlock_abi)};
    r->spec.rules = r->rules;
    r->spec.rule_count = s->rule_count + 1;
    return &r->spec;
}

/* What the mount stage leaves for Landlock: each grant opened, without following symlinks. */
static void open_grants(const struct sbx__jail_spec *s)
{
    for (size_t i = 0; i < s->mount_count; i++) {
        const struct sbx__jail_mount *m = &s->mounts[i];
        if (m->is_grant)
            CHILD_CHECK((s->grant_fds[m->grant] = sbx__path_open_nofollow(m->src, O_PATH)) >= 0);
    }
}

static void child_landlock(void *arg)
{
    const struct stages_env *e = arg;
    struct ll_rules cov;
    open_grants(&e->spec);
    const struct sbx__jail_spec *s = with_cov_rule(&e->spec, &cov);
    struct sockaddr_in tcp;
    struct sockaddr_un un;
    socklen_t un_len;
    int l = listen_lo(&tcp), u = abstract_listen(&un, &un_len);
    CHILD_CHECK(l >= 0 && u >= 0);
    CHILD_CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0); /* as caps.c leaves it */
    CHILD_CHECK(sbx__jail_landlock_apply(s) == 0);
    child_landlock_files(e);
    int tcp_rc = connect_to((struct sockaddr *)&tcp, sizeof(tcp), AF_INET);
    if (s->net_loopback || s->landlock_abi < 4)
        CHILD_CHECK(tcp_rc == 0);
    else
        CHILD_CHECK(tcp_rc == -EACCES);
    if (s->landlock_abi >= 6) { /* scoped: nothing outside the domain is reachable */
        CHILD_ERRNO(kill(getppid(), 0), EPERM);
        CHILD_CHECK(connect_to((struct sockaddr *)&un, un_len, AF_UNIX) == -EPERM);
    }
}

static const char *const landlock_policy = "{\"fs\":[\"@/ro\",\"rw:@/rw\",\"rw:@/one.txt\"]}";
static const char *const landlock_policy_lo =
    "{\"fs\":[\"@/ro\",\"rw:@/rw\",\"rw:@/one.txt\"],\"net\":{\"loopback\":true}}";

/* Grants with guest = host path, so the rules resolve without a mount namespace; the case dir
 * is under /var/tmp, outside the plan's /tmp rule. */
static void landlock_case(const char *name, const char *policy)
{
    int abi = sbx__jail_landlock_abi();
    if (abi == 0) {
        printf("%s: SKIPPED: this kernel has no Landlock (sbx__jail_landlock_abi() == 0)\n", name);
        return;
    }
    struct stages_env e;
    stages_env_init(&e);
    stages_env_plan(&e, policy, NULL);
    ck_assert_int_eq(e.spec.landlock_abi, abi);
    stages_run(name, child_landlock, &e, NULL);
    char p[PATH_MAX];
    stages_path(p, &e, "one.txt");
    ck_assert(file_is(p, "ONE"));
    stages_env_free(&e);
}

START_TEST(test_landlock_no_loopback)
{
    landlock_case("landlock", landlock_policy);
}
END_TEST

START_TEST(test_landlock_loopback)
{
    landlock_case("landlock/loopback", landlock_policy_lo);
}
END_TEST

static void child_landlock_errors(void *arg)
{
    const struct stages_env *e = arg;
    struct sbx__jail_spec s = {.landlock_abi = e->spec.landlock_abi};
    char notdir[PATH_MAX], file[PATH_MAX], missing[PATH_MAX], ro[PATH_MAX], p[PATH_MAX];
    stages_path(notdir, e, "one.txt/x");
    stages_path(file, e, "one.txt");
    stages_path(missing, e, "missing");
    stages_path(ro, e, "ro");
    uint64_t rd = sbx__jail_landlock_read_access();
    CHILD_CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
    struct sbx__jail_rule bad[] = {{.path = notdir, .access = rd}, {.path = file, .access = rd}};
    s.rules = &bad[0];
    s.rule_count = 1;
    CHILD_CHECK(sbx__jail_landlock_apply(&s) == -ENOTDIR);
    s.rules = &bad[1]; /* a directory right on a file: the plan masks it, the kernel refuses */
    CHILD_CHECK(sbx__jail_landlock_apply(&s) == -EINVAL);
    stages_path(p, e, "outside/secret.txt");
    CHILD_CHECK(file_is(p, "secret")); /* neither failure restricted anything */
    struct sbx__jail_rule good[] = {{.path = missing, .access = rd}, {.path = ro, .access = rd}};
    s.rules = good;
    s.rule_count = 2;
    struct ll_rules cov;
    CHILD_CHECK(sbx__jail_landlock_apply(with_cov_rule(&s, &cov)) == 0); /* missing: skipped */
    stages_path(p, e, "ro/data.txt");
    CHILD_CHECK(file_is(p, "ro-data"));
    stages_path(p, e, "outside/secret.txt");
    CHILD_ERRNO(open(p, O_RDONLY | O_CLOEXEC), EACCES);
}

START_TEST(test_landlock_errors)
{
    if (sbx__jail_landlock_abi() == 0) {
        printf("landlock/errors: SKIPPED: this kernel has no Landlock\n");
        return;
    }
    struct stages_env e;
    stages_env_init(&e);
    e.spec.landlock_abi = sbx__jail_landlock_abi();
    stages_run("landlock/errors", child_landlock_errors, &e, NULL);
}
END_TEST

/* ---- seccomp.c ---- */

static void child_seccomp(void *arg)
{
    const struct sbx__jail_spec *s = arg;
    int p[2];
    CHILD_CHECK(pipe2(p, O_CLOEXEC) == 0);
    CHILD_CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0); /* caps kept: denials are seccomp's */
    CHILD_CHECK(sbx__jail_seccomp_apply(s->filters) == 0);
    CHILD_CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2);
    char buf[8] = "";
    CHILD_CHECK(write(p[1], "ok", 2) == 2 && read(p[0], buf, 2) == 2 && !strcmp(buf, "ok"));
    /* The allowlist leaves these out: EPERM, not what the kernel would say without it. */
    CHILD_ERRNO(ptrace(PTRACE_TRACEME, 0, NULL, NULL), EPERM);
    CHILD_ERRNO(syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0), EPERM);
    CHILD_ERRNO(unshare(CLONE_NEWUSER), EPERM);
    CHILD_ERRNO(mount("tmpfs", "/nonexistent-sbx-stages", "tmpfs", 0, NULL), EPERM);
    CHILD_ERRNO(chroot("/"), EPERM);
    CHILD_ERRNO(syscall(SYS_personality, 0xffffffffUL), EPERM);
    CHILD_ERRNO(syscall(SYS_io_uring_setup, 1, NULL), EPERM);
    CHILD_ERRNO(syscall(SYS_bpf, 0, NULL, 0), EPERM);
    /* Filter 1: clone with a namespace flag, and TIOCSTI/TIOCLINUX on the low 32 bits. */
    long rc = syscall(SYS_clone, (unsigned long)(CLONE_NEWNET | SIGCHLD), 0, 0, 0, 0);
    if (rc == 0)
        _exit(0);
    CHILD_CHECK(rc == -1 && errno == EPERM);
    CHILD_ERRNO(syscall(SYS_clone3, NULL, 0), ENOSYS);
    char c = 'x';
    CHILD_ERRNO(ioctl(p[0], TIOCSTI, &c), EPERM);
    CHILD_ERRNO(syscall(SYS_ioctl, p[0], (unsigned long)TIOCSTI | (1ul << 32), &c), EPERM);
    CHILD_ERRNO(ioctl(p[0], TIOCLINUX, &c), EPERM);
    int avail = -1;
    CHILD_CHECK(ioctl(p[0], FIONREAD, &avail) == 0 && avail == 0);
    /* Socket families: the four allowed ones work, every other says EAFNOSUPPORT. */
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    CHILD_CHECK(fd >= 0 && close(fd) == 0);
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHILD_CHECK(fd >= 0 && close(fd) == 0);
    int sv[2];
    CHILD_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    CHILD_ERRNO(socket(AF_VSOCK, SOCK_STREAM, 0), EAFNOSUPPORT);
    CHILD_ERRNO(syscall(SYS_socket, (1L << 32) | AF_VSOCK, SOCK_STREAM, 0), EAFNOSUPPORT);
    CHILD_ERRNO(socket(AF_PACKET, SOCK_RAW, 0), EAFNOSUPPORT);
    CHILD_ERRNO(socket(AF_ALG, SOCK_SEQPACKET, 0), EAFNOSUPPORT);
    CHILD_ERRNO(socket(AF_MAX + 100, SOCK_STREAM, 0), EAFNOSUPPORT);
    CHILD_ERRNO(socketpair(AF_VSOCK, SOCK_STREAM, 0, sv), EAFNOSUPPORT);
    CHILD_ERRNO(socket(AF_NETLINK, SOCK_RAW, NETLINK_KOBJECT_UEVENT), EPROTONOSUPPORT);
    /* What a guest needs still works: fork, execve of a dynamic binary, wait. */
    char out[64];
    char *const argv[] = {"/bin/sh", "-c", "echo ok; (exit 4)", NULL};
    int st = run_prog(argv, out, sizeof(out));
    CHILD_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 4 && strcmp(out, "ok\n") == 0);
}

START_TEST(test_seccomp_filters)
{
    struct stages_env e;
    stages_env_init(&e);
    stages_env_plan(&e, "{}", NULL);
    ck_assert_uint_gt(e.spec.filters[0].count, 0);
    ck_assert_uint_gt(e.spec.filters[1].count, 0);
    stages_run("seccomp", child_seccomp, &e.spec, NULL);
    stages_env_free(&e);
}
END_TEST

/* The filters compiled in by the build are exactly what libseccomp builds now. */
START_TEST(test_seccomp_prebuilt_is_libseccomps)
{
    ck_assert(sbx__jail_seccomp_is_prebuilt());
    struct sbx__jail_bpf in[2], now[2];
    ck_assert_int_eq(sbx__jail_seccomp_filters(in), SBX_OK);
    ck_assert_int_eq(sbx__jail_seccomp_build(now), SBX_OK);
    for (int i = 0; i < 2; i++) {
        ck_assert_uint_eq(in[i].count, now[i].count);
        ck_assert(memcmp(in[i].insns, now[i].insns, now[i].count * sizeof(struct sock_filter)) ==
                  0);
        sbx__free((void *)now[i].insns);
    }
}
END_TEST

static void child_seccomp_errors(void *arg)
{
    (void)arg;
    struct sbx__jail_bpf empty[2] = {{NULL, 0}, {NULL, 0}};
    int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0); /* 2 when the test itself runs filtered */
    CHILD_CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
    CHILD_CHECK(sbx__jail_seccomp_apply(empty) == -EINVAL);
    CHILD_CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == mode);
}

static void child_seccomp_no_nnp(void *arg)
{
    const struct sbx__jail_spec *s = arg;
    /* Neither no_new_privs nor CAP_SYS_ADMIN: the kernel refuses a filter. */
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof(d));
    int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
    if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
        stages_skip("the test runs with no_new_privs already set, which cannot be unset", 0);
    CHILD_CHECK(syscall(SYS_capset, &h, d) == 0);
    CHILD_CHECK(sbx__jail_seccomp_apply(s->filters) == -EACCES);
    CHILD_CHECK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == mode);
}

START_TEST(test_seccomp_errors)
{
    struct stages_env e;
    stages_env_init(&e);
    stages_env_plan(&e, "{}", NULL);
    stages_run("seccomp/empty", child_seccomp_errors, &e.spec, NULL);
    stages_run("seccomp/no-nnp", child_seccomp_no_nnp, &e.spec, NULL);
    stages_env_free(&e);
}
END_TEST

/* ---- userns.c ---- */

/* The unprivileged mode (run.c when not root): the child maps its own ids, setgroups denied. */
static bool map_is(const char *path, unsigned inside, unsigned outside)
{
    char buf[128];
    unsigned a, b, n;
    return stages_read(path, buf, sizeof(buf)) > 0 && sscanf(buf, "%u %u %u", &a, &b, &n) == 3 &&
           a == inside && b == outside && n == 1;
}

/* After userns_apply: the guest ids, caps kept for the mounts, new files owned by host_uid. */
static void check_guest_ids(const struct stages_env *e)
{
    const struct sbx__jail_spec *s = &e->spec;
    uid_t r, ef, sv;
    gid_t gr, ge, gs;
    CHILD_CHECK(getresuid(&r, &ef, &sv) == 0 && r == s->guest_uid && ef == r && sv == r);
    CHILD_CHECK(getresgid(&gr, &ge, &gs) == 0 && gr == s->guest_gid && ge == gr && gs == gr);
    CHILD_CHECK(!s->can_setgroups || getgroups(0, NULL) == 0);
    CHILD_CHECK(map_is("/proc/self/uid_map", s->guest_uid, s->host_uid));
    CHILD_CHECK(map_is("/proc/self/gid_map", s->guest_gid, s->host_gid));
    CHILD_CHECK(prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0) == 1);
    CHILD_CHECK(cap_effective(CAP_SYS_ADMIN));
    CHILD_CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
    CHILD_CHECK(mount("tmpfs", e->root, "tmpfs", 0, "size=64k") == 0);
    char p[PATH_MAX];
    stages_path(p, e, "rw/by-guest.txt");
    CHILD_CHECK(write_new(p, "guest"));
}

static void child_userns(void *arg)
{
    const struct stages_env *e = arg;
    if (e->spec.can_setgroups) { /* a root host with supplementary groups, to be shed */
        gid_t groups[] = {0, 100};
        CHILD_CHECK(setgroups(2, groups) == 0 && getgroups(0, NULL) == 2);
    }
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
        stages_skip("unshare(CLONE_NEWUSER) refused by the kernel", errno);
    stages_await_maps(&e->spec);
    CHILD_CHECK(sbx__jail_userns_apply(&e->spec) == 0);
    check_guest_ids(e);
}

static void child_userns_self(void *arg)
{
    const struct stages_env *e = arg;
    const struct sbx__jail_spec *s = &e->spec;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
        stages_skip("unshare(CLONE_NEWUSER) refused by the kernel", errno);
    CHILD_CHECK(sbx__jail_userns_map_self(s) == 0);
    CHILD_CHECK(file_is("/proc/self/setgroups", "deny\n"));
    CHILD_CHECK(sbx__jail_userns_map_self(s) == -EPERM); /* a map is written once */
    struct sbx__jail_spec with_groups = *s;
    with_groups.can_setgroups = true;
    CHILD_CHECK(sbx__jail_userns_apply(&with_groups) == -EPERM); /* setgroups is denied */
    CHILD_CHECK(sbx__jail_userns_apply(s) == 0);
    check_guest_ids(e);
}

static void assert_guest_file(const struct stages_env *e)
{
    char p[PATH_MAX];
    struct stat st;
    stages_path(p, e, "rw/by-guest.txt");
    ck_assert_int_eq(stat(p, &st), 0);
    ck_assert_uint_eq(st.st_uid, e->spec.host_uid);
    ck_assert_uint_eq(st.st_gid, e->spec.host_gid);
    ck_assert_int_eq(unlink(p), 0);
}

/* As run.c does it: a root host writes the maps to nobody, unprivileged the child maps itself. */
START_TEST(test_userns_as_run)
{
    struct stages_env e;
    stages_env_init(&e);
    stages_env_plan(&e, "{}", NULL);
    stages_hook_spec = &e.spec;
    if (stages_run("userns", child_userns, &e, stages_hook_maps))
        assert_guest_file(&e);
    stages_env_free(&e);
}
END_TEST

/* The unprivileged mode (self-mapped, setgroups denied), also under root. */
START_TEST(test_userns_self_mapped)
{
    struct stages_env e;
    stages_env_init(&e);
    stages_env_plan(&e, "{}", NULL);
    stages_self_mapped(&e.spec);
    if (stages_run("userns/self", child_userns_self, &e, NULL))
        assert_guest_file(&e);
    stages_env_free(&e);
}
END_TEST

static void child_userns_unmapped(void *arg)
{
    struct sbx__jail_spec s = *(const struct sbx__jail_spec *)arg;
    if (unshare(CLONE_NEWUSER) != 0)
        stages_skip("unshare(CLONE_NEWUSER) refused by the kernel", errno);
    s.can_setgroups = true; /* setgroups(2) needs a gid map */
    CHILD_CHECK(sbx__jail_userns_apply(&s) == -EPERM);
    s.can_setgroups = false; /* the guest ids are not mapped */
    CHILD_CHECK(sbx__jail_userns_apply(&s) == -EINVAL);
}

static void child_userns_denied(void *arg)
{
    const struct stages_env *e = arg;
    struct sbx__jail_spec s = e->spec;
    if (unshare(CLONE_NEWUSER) != 0)
        stages_skip("unshare(CLONE_NEWUSER) refused by the kernel", errno);
    stages_await_maps(&s);
    CHILD_CHECK(file_is("/proc/self/setgroups", "deny\n"));
    CHILD_CHECK(map_is("/proc/self/uid_map", s.guest_uid, s.host_uid));
    s.can_setgroups = true;
    CHILD_CHECK(sbx__jail_userns_apply(&s) == -EPERM);
    s.can_setgroups = false;
    CHILD_CHECK(sbx__jail_userns_apply(&s) == 0);
    uid_t r, ef, sv;
    CHILD_CHECK(getresuid(&r, &ef, &sv) == 0 && r == s.guest_uid && ef == r && sv == r);
}

START_TEST(test_userns_errors)
{
    struct stages_env e;
    stages_env_init(&e);
    stages_env_plan(&e, "{}", NULL);
    stages_run("userns/unmapped", child_userns_unmapped, &e.spec, NULL);
    /* The parent maps its own ids with setgroups denied, as any unprivileged parent must. */
    e.spec.is_self_mapped = false;
    e.spec.host_uid = geteuid();
    e.spec.host_gid = getegid();
    stages_hook_spec = &e.spec;
    stages_hook_deny = true;
    stages_run("userns/denied", child_userns_denied, &e, stages_hook_maps);
    stages_hook_deny = false;
    ck_assert_int_eq(sbx__jail_userns_write_maps(0x7ffffff0, 65534, 65534, false), -ENOENT);
    stages_env_free(&e);
}
END_TEST

static Suite *stages_suite(void)
{
    Suite *s = suite_create("jail.stages");
    const struct {
        const char *name;
        const TTest *tests[8];
    } groups[] = {
        {"rlimit", {test_rlimit_without_cgroup, test_rlimit_with_cgroup, test_rlimit_refused}},
        {"caps", {test_caps_drop}},
        {"net", {test_net_isolated, test_net_errors}},
        {"landlock", {test_landlock_no_loopback, test_landlock_loopback, test_landlock_errors}},
        {"seccomp",
         {test_seccomp_filters, test_seccomp_errors, test_seccomp_prebuilt_is_libseccomps}},
        {"userns", {test_userns_as_run, test_userns_self_mapped, test_userns_errors}},
    };
    for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
        TCase *tc = tcase_create(groups[i].name);
        tcase_set_timeout(tc, 30);
        for (size_t j = 0; j < 8 && groups[i].tests[j]; j++)
            tcase_add_test(tc, groups[i].tests[j]);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    return stages_main(stages_suite(), "test_stages");
}

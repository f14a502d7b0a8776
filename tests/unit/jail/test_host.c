/* tests/unit/jail/test_host.c: the process tier seen from the host: abort from another thread,
 * many runs in flight from many threads, dispose removing every temp file (idempotent), host
 * network unreachable with and without loopback, no unsandboxed fallback when the kernel
 * refuses a namespace, and sbx's own JavaScript guest giving the worker tier's results. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <pthread.h>
#include <seccomp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail/jail.h"
#include "jail_test.h"

struct abort_arg {
    sbx_sandbox *sb;
    int delay_ms;
};

static void *abort_later(void *p)
{
    struct abort_arg *a = p;
    usleep((useconds_t)a->delay_ms * 1000);
    sbx_sandbox_abort(a->sb);
    return NULL;
}

START_TEST(test_abort_from_thread)
{
    sbx_sandbox *sb = jt_sandbox("{\"timeoutMs\":20000}");
    struct abort_arg a = {sb, 200};
    pthread_t t;
    pthread_create(&t, NULL, abort_later, &a);
    sbx_result r;
    ck_assert_int_eq(jt_sh(sb, "sleep 15", &r), SBX_OK);
    pthread_join(t, NULL);
    ck_assert_int_eq(r.error, SBX_E_ABORTED);
    ck_assert(r.duration_ms < 2000);
    sbx_result_free(&r);
    ck_assert_int_eq(jt_sh(sb, "echo again", &r), SBX_OK); /* the handle stays usable */
    ck_assert_str_eq(jt_out(&r), "again\n");
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

static void *run_many(void *p)
{
    long id = (long)p;
    sbx_sandbox *sb = jt_sandbox("{}");
    long bad = 0;
    for (int i = 0; i < 6; i++) {
        char script[64], want[64];
        snprintf(script, sizeof(script), "echo %ld-%d", id, i);
        snprintf(want, sizeof(want), "%ld-%d\n", id, i);
        sbx_result r;
        if (jt_sh(sb, script, &r) != SBX_OK || !r.ok || strcmp(jt_out(&r), want) != 0) {
            fprintf(stderr, "thread %ld run %d: %s %s out=%s err=%s\n", id, i,
                    sbx_err_name(r.error), r.error_message ? r.error_message : "", jt_out(&r),
                    r.stderr_data ? r.stderr_data : "");
            bad++;
        }
        sbx_result_free(&r);
    }
    sbx_sandbox_destroy(sb);
    return (void *)bad;
}

START_TEST(test_threads_in_flight)
{
    pthread_t t[6];
    for (long i = 0; i < 6; i++)
        pthread_create(&t[i], NULL, run_many, (void *)i);
    long bad = 0;
    for (int i = 0; i < 6; i++) {
        void *rv;
        pthread_join(t[i], &rv);
        bad += (long)rv;
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

START_TEST(test_dispose_removes_temp_files)
{
    char tmp[PATH_MAX], stale[PATH_MAX + 64];
    jt_tempdir(tmp, "tmpdir");
    pid_t dead = fork(); /* a pid that surely has no process: what a crashed host leaves */
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    snprintf(stale, sizeof(stale), "%s/sbx-jail-%d-AbCdEf", tmp, (int)dead);
    ck_assert_int_eq(mkdir(stale, 0711), 0);
    snprintf(stale + strlen(stale), 16, "/root");
    ck_assert_int_eq(mkdir(stale, 0755), 0);
    /* Kept: a root whose host still lives. Pid 1 always does, and is another user's when the
     * suite runs unprivileged (kill() says EPERM, not ESRCH): which of the two happens in /tmp
     * depended on whoever else was running. */
    char live[3][PATH_MAX + 64]; /* so is a root whose name has no pid */
    const char *const names[] = {"1-AbCdEf", "0-AbCdEf", "7x-AbCdEf"};
    for (int i = 0; i < 3; i++) {
        snprintf(live[i], sizeof(live[i]), "%s/sbx-jail-%s", tmp, names[i]);
        ck_assert_int_eq(mkdir(live[i], 0711), 0);
    }
    /* Kept too, though named for the dead host: what is not a directory, above all a link
     * another user of /tmp planted to have a directory of theirs choosing removed. */
    char file[PATH_MAX + 64], link[PATH_MAX + 64], victim[PATH_MAX + 64];
    snprintf(file, sizeof(file), "%s/sbx-jail-%d-file", tmp, (int)dead);
    snprintf(link, sizeof(link), "%s/sbx-jail-%d-link", tmp, (int)dead);
    snprintf(victim, sizeof(victim), "%s/victim", tmp);
    ck_assert_int_eq(mkdir(victim, 0755), 0);
    ck_assert_int_eq(symlink(victim, link), 0);
    int fd = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    ck_assert_int_ge(fd, 0);
    close(fd);
    setenv("TMPDIR", tmp, 1);
    sbx_sandbox *sb = jt_sandbox("{}");
    unsetenv("TMPDIR");
    /* the handle's temp root, the three kept roots, the file, the link and its target; the
     * stale root is gone */
    ck_assert_int_eq(count_entries(tmp), 7);
    struct stat st;
    ck_assert_int_eq(stat(victim, &st), 0);
    ck_assert_int_eq(unlink(file), 0);
    ck_assert_int_eq(unlink(link), 0);
    ck_assert_int_eq(rmdir(victim), 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(rmdir(live[i]), 0);
    sbx_result r;
    ck_assert_int_eq(jt_script(sb, "sh", "ls /sbx; echo hi > /tmp/x", NULL, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.stderr_data);
    ck_assert_str_eq(jt_out(&r), "main.sh\n");
    sbx_result_free(&r);
    sbx_sandbox_dispose(sb);
    ck_assert_int_eq(count_entries(tmp), 0);
    sbx_sandbox_dispose(sb);
    ck_assert_int_eq(jt_sh(sb, "true", &r), SBX_OK);
    ck_assert_int_eq(r.error, SBX_E_DISPOSED);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    ck_assert_int_eq(count_entries(tmp), 0);
    jt_rmrf(tmp);
}
END_TEST

static int listen_local(int *port)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(listen(s, 4), 0);
    ck_assert_int_eq(getsockname(s, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return s;
}

START_TEST(test_network)
{
    int port;
    int s = listen_local(&port);
    char code[512];
    snprintf(code, sizeof(code),
             "import socket\ntry:\n    socket.create_connection(('127.0.0.1', %d), 1)\n"
             "    print('host reached')\nexcept OSError as e:\n    print('refused')\n",
             port);
    const char *policies[] = {"{}", "{\"net\":{\"loopback\":true}}"};
    for (int i = 0; i < 2; i++) {
        sbx_sandbox *sb = jt_sandbox(policies[i]);
        sbx_result r;
        ck_assert_int_eq(jt_script(sb, "python3", code, NULL, &r), SBX_OK);
        ck_assert_str_eq(jt_out(&r), "refused\n");
        sbx_result_free(&r);
        /* The jail's own loopback works only with net.loopback. */
        const char *self = "import socket\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\n"
                           "s.listen(1)\nc = socket.create_connection(s.getsockname(), 1)\n"
                           "print('loopback ok')\n";
        ck_assert_int_eq(jt_script(sb, "python3", self, NULL, &r), SBX_OK);
        ck_assert_int_eq(r.ok, i == 1);
        sbx_result_free(&r);
        sbx_sandbox_destroy(sb);
    }
    close(s);
}
END_TEST

/* With clone3 refused (as on a kernel without user namespaces), the run fails with
 * SANDBOX_UNAVAILABLE naming the feature, and the command never runs anywhere. */
START_TEST(test_no_unsandboxed_fallback)
{
    char dir[PATH_MAX], marker[PATH_MAX + 8], script[PATH_MAX + 32];
    jt_tempdir(dir, "fallback");
    snprintf(marker, sizeof(marker), "%s/ran", dir);
    snprintf(script, sizeof(script), "touch %s", marker);
    sbx_sandbox *sb = jt_sandbox("{}");
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    ck_assert_int_eq(seccomp_load(ctx), 0);
    seccomp_release(ctx);
    sbx_result r;
    ck_assert_int_eq(jt_sh(sb, script, &r), SBX_E_UNAVAILABLE);
    ck_assert_int_eq(r.error, SBX_E_UNAVAILABLE);
    ck_assert_ptr_nonnull(strstr(r.error_message, "namespaces"));
    ck_assert_int_ne(access(marker, F_OK), 0);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    jt_rmrf(dir);
}
END_TEST

/* Same snippet, both tiers: ok, error code, value and stdout agree. */
START_TEST(test_js_guest_matches_worker)
{
    static const char *const snippets[] = {
        "return 1 + 1",
        "console.log('hi', 2); return {a: [1, 'x', null], b: context}",
        "throw new Error('boom')",
        "return context.n * 3",
        "var s = ''; for (var i = 0; i < 10; i++) s += i; return s",
        "Object.prototype.polluted = 1; return typeof ({}).polluted",
        "return typeof Object.prototype.polluted",
        "return undefined",
        "syntax error here (",
    };
    char err[128];
    sbx_policy *p = NULL;
    ck_assert_int_eq(sbx_policy_parse("{}", 2, &p, err, sizeof(err)), SBX_OK);
    sbx_sandbox *w = NULL, *pr = NULL;
    if (sbx_sandbox_create(SBX_BACKEND_WORKER, p, &w) != SBX_OK) {
        sbx_policy_destroy(p);
        return; /* no worker tier in this build */
    }
    ck_assert_int_eq(sbx_sandbox_create(SBX_BACKEND_PROCESS, p, &pr), SBX_OK);
#ifdef __SANITIZE_ADDRESS__
    /* An ASan guest reserves terabytes of shadow, which RLIMIT_DATA (the fallback without
     * cgroups) refuses: only cgroup-limited hosts can run the sanitized sbx-js guest. */
    sbx_result probe;
    jt_script(pr, NULL, "return 1", NULL, &probe);
    bool is_rlimit = (probe.enforced & SBX_ENFORCED_RLIMIT) != 0;
    sbx_result_free(&probe);
    if (is_rlimit) {
        sbx_sandbox_destroy(w);
        sbx_sandbox_destroy(pr);
        sbx_policy_destroy(p);
        return;
    }
#endif
    for (size_t i = 0; i < sizeof(snippets) / sizeof(snippets[0]); i++) {
        sbx_result a, b;
        ck_assert_int_eq(jt_script(w, NULL, snippets[i], "{\"n\":7}", &a), SBX_OK);
        ck_assert_int_eq(jt_script(pr, NULL, snippets[i], "{\"n\":7}", &b), SBX_OK);
        ck_assert_msg(a.ok == b.ok && a.error == b.error, "%s: %s vs %s", snippets[i],
                      sbx_err_name(a.error), sbx_err_name(b.error));
        ck_assert_str_eq(a.value_json ? a.value_json : "(none)",
                         b.value_json ? b.value_json : "(none)");
        ck_assert_str_eq(jt_out(&a), jt_out(&b));
        sbx_result_free(&a);
        sbx_result_free(&b);
    }
    sbx_sandbox_destroy(w);
    sbx_sandbox_destroy(pr);
    sbx_policy_destroy(p);
}
END_TEST

/* A live process of another user (65534), parked until *release is closed. */
static pid_t start_other_user(int *release)
{
    int go[2], ready[2];
    ck_assert_int_eq(pipe2(go, O_CLOEXEC), 0);
    ck_assert_int_eq(pipe2(ready, O_CLOEXEC), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char c = 0;
        close(go[1]);
        if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0)
            _exit(1);
        if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
            _exit(1);
        _exit(0);
    }
    close(go[0]);
    close(ready[1]);
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    close(ready[0]);
    *release = go[1];
    return pid;
}

/* Without CAP_KILL, kill() to another user's process says EPERM, as it does to an unprivileged
 * host looking at a cgroup some other user's live host made. */
static bool set_cap_kill(bool is_on)
{
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &h, d) != 0)
        return false;
    d[0].effective = is_on ? d[0].effective | (1u << CAP_KILL) : d[0].effective & ~(1u << CAP_KILL);
    return syscall(SYS_capset, &h, d) == 0;
}

/* A cgroup named for a host that is gone (sbx-<pid>-<n>: a crash or kill before dispose) is
 * removed when the next handle makes its own beside it; one named for a live host is kept,
 * whether kill() finds it (pid 1) or is refused it (another user's host, EPERM), and so is any
 * name not of that form. Whether the machine's cgroup tree held such names depended on what
 * else ran or had crashed there, so the test leaves them. */
START_TEST(test_stale_cgroup_reaped)
{
    sbx_policy *p = sbx_test_policy("{}");
    struct sbx__jail_cgroup cg, next;
    sbx__jail_cgroup_init(&cg);
    sbx__jail_cgroup_init(&next);
    sbx__jail_cgroup_create(&cg, p);
    if (cg.version != 0) {
        pid_t dead = fork();
        if (dead == 0)
            _exit(0);
        waitpid(dead, NULL, 0);
        int release = -1;
        pid_t other = geteuid() == 0 ? start_other_user(&release) : 1;
        int parent_len = (int)(strrchr(cg.dirs[0], '/') - cg.dirs[0]);
        const long pids[] = {dead, 1, other, 0, -1};
        const char *const tails[] = {"-0", "-0", "-1", "-0", "x-0"};
        char dirs[5][4200];
        int made = 0;
        for (; made < 5; made++) {
            snprintf(dirs[made], sizeof(dirs[made]), "%.*s/sbx-%ld%s", parent_len, cg.dirs[0],
                     made == 4 ? 7 : pids[made], tails[made]);
            if (mkdir(dirs[made], 0755) != 0)
                break;
        }
        bool is_dropped = made == 5 && release >= 0 && set_cap_kill(false);
        if (made == 5 && (release < 0 || is_dropped))
            sbx__jail_cgroup_create(&next, p);
        bool is_restored = !is_dropped || set_cap_kill(true);
        bool is_kept[5];
        for (int i = 0; i < made; i++) /* the machine's cgroup tree keeps none of them */
            is_kept[i] = rmdir(dirs[i]) == 0;
        if (release >= 0) {
            close(release);
            waitpid(other, NULL, 0);
        }
        ck_assert_int_eq(made, 5);
        ck_assert(is_restored && (release < 0 || is_dropped));
        ck_assert_int_eq(next.version, cg.version);
        ck_assert_msg(!is_kept[0], "%s (a dead host's) was kept", dirs[0]);
        for (int i = 1; i < 5; i++)
            ck_assert_msg(is_kept[i], "%s was removed", dirs[i]);
    } else {
        fprintf(stderr, "no delegated cgroup here: nothing to reap\n");
    }
    sbx__jail_cgroup_destroy(&next);
    sbx__jail_cgroup_destroy(&cg);
    sbx_policy_destroy(p);
}
END_TEST

static Suite *host_suite(void)
{
    Suite *s = suite_create("jail-host");
    TCase *tc = tcase_create("host");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_abort_from_thread);
    tcase_add_test(tc, test_threads_in_flight);
    tcase_add_test(tc, test_dispose_removes_temp_files);
    tcase_add_test(tc, test_stale_cgroup_reaped);
    tcase_add_test(tc, test_network);
    tcase_add_test(tc, test_no_unsandboxed_fallback);
    tcase_add_test(tc, test_js_guest_matches_worker);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    jt_guest_binary();
    return sbx_test_main(host_suite());
}

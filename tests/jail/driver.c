/* tests/jail/driver.c: runs every escape probe inside the process tier's jail and counts the
 * outcomes (probe exit 0 = blocked, 1 = escaped, 77 = skip). Host-side fixtures: grants (/ro,
 * /rw, /links with symlinks to a host secret), a TCP listener on 127.0.0.1, a host abstract
 * unix socket, a host fd without O_CLOEXEC, the driver's own pid. With --controls (root only)
 * the harmless probes also run unjailed and must report an escape there: proof that each probe
 * can tell. Usage: driver PROBE_DIR [--controls]. Prints "N passed, M failed". */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sbx.h>

enum arg_kind { ARG_NONE, ARG_SECRET, ARG_FD, ARG_PID, ARG_NET, ARG_CONTROL_PID };

struct probe {
    const char *name;
    enum arg_kind args;
    /* CONTROL_RUN: safe and meaningful to run unjailed as root; CONTROL_ASK: unjailed, with
     * --control, the probe asks harmlessly whether the kernel has what it attacks (1 yes, 77
     * no): a probe that skips in the jail then passes only where the control saw none. */
    enum { CONTROL_NONE, CONTROL_RUN, CONTROL_ASK } control;
};

static const struct probe probes[] = {
    {"read_passwd", ARG_NONE, CONTROL_RUN},
    {"write_outside", ARG_NONE, CONTROL_NONE},
    {"grant_readonly", ARG_NONE, CONTROL_NONE},
    {"symlink_escape", ARG_SECRET, CONTROL_NONE},
    {"ptrace_attach", ARG_NONE, CONTROL_RUN},
    {"mount_fs", ARG_NONE, CONTROL_NONE},
    {"userns_nested", ARG_NONE, CONTROL_RUN},
    {"keyring", ARG_NONE, CONTROL_NONE},
    {"kernel_attack_surface", ARG_NONE, CONTROL_NONE},
    {"tiocsti", ARG_NONE, CONTROL_RUN},
    {"host_fd", ARG_FD, CONTROL_RUN},
    {"host_signal", ARG_PID, CONTROL_RUN},
    {"proc_sys", ARG_NONE, CONTROL_NONE},
    {"host_uid0", ARG_NONE, CONTROL_RUN},
    {"net_host", ARG_NET, CONTROL_RUN},
    {"devices", ARG_NONE, CONTROL_NONE},
    {"chroot_escape", ARG_NONE, CONTROL_NONE},
    {"compat_x32", ARG_NONE, CONTROL_NONE},
    {"compat_i386", ARG_NONE, CONTROL_ASK},
    {"proc_init", ARG_CONTROL_PID, CONTROL_RUN},
    {"proc_host_info", ARG_NONE, CONTROL_RUN},
    {"socket_families", ARG_NONE, CONTROL_RUN},
};

struct fixture {
    char dir[256];
    char secret[300];
    char grants[4][600];
    char fd_arg[16], pid_arg[16], port_arg[16], abstract_arg[64];
    int host_fd, listener, unix_listener;
};

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

static int make_dirs(struct fixture *fx)
{
    char p[400];
    snprintf(fx->dir, sizeof(fx->dir), "/tmp/sbx-probes-XXXXXX");
    if (!mkdtemp(fx->dir) || chmod(fx->dir, 0755) != 0)
        return -1;
    snprintf(fx->secret, sizeof(fx->secret), "%s/secret", fx->dir);
    const char *subs[] = {"ro", "rw", "links"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof(p), "%s/%s", fx->dir, subs[i]);
        if (mkdir(p, 0755) != 0)
            return -1;
    }
    snprintf(p, sizeof(p), "%s/rw", fx->dir);
    chmod(p, 0777);
    snprintf(p, sizeof(p), "%s/ro/f", fx->dir);
    if (write_text(fx->secret, "HOSTSECRET\n") != 0 || write_text(p, "ro\n") != 0)
        return -1;
    snprintf(p, sizeof(p), "%s/links/secret", fx->dir);
    if (symlink(fx->secret, p) != 0)
        return -1;
    snprintf(p, sizeof(p), "%s/links/up", fx->dir);
    return symlink("../secret", p);
}

static int make_sockets(struct fixture *fx)
{
    fx->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (fx->listener < 0 || bind(fx->listener, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        listen(fx->listener, 4) != 0 || getsockname(fx->listener, (struct sockaddr *)&a, &len) != 0)
        return -1;
    snprintf(fx->port_arg, sizeof(fx->port_arg), "%d", ntohs(a.sin_port));
    snprintf(fx->abstract_arg, sizeof(fx->abstract_arg), "sbx-probe-%d", (int)getpid());
    fx->unix_listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un u = {.sun_family = AF_UNIX};
    size_t n = strlen(fx->abstract_arg);
    memcpy(u.sun_path + 1, fx->abstract_arg, n);
    if (fx->unix_listener < 0 ||
        bind(fx->unix_listener, (struct sockaddr *)&u,
             (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) != 0 ||
        listen(fx->unix_listener, 4) != 0)
        return -1;
    return 0;
}

static int fixture_setup(struct fixture *fx, const char *probe_dir)
{
    memset(fx, 0, sizeof(*fx));
    if (make_dirs(fx) != 0 || make_sockets(fx) != 0)
        return -1;
    fx->host_fd = open(fx->secret, O_RDONLY); /* deliberately inheritable */
    snprintf(fx->fd_arg, sizeof(fx->fd_arg), "%d", fx->host_fd);
    snprintf(fx->pid_arg, sizeof(fx->pid_arg), "%d", (int)getpid());
    snprintf(fx->grants[0], sizeof(fx->grants[0]), "\"%s::/probes\"", probe_dir);
    snprintf(fx->grants[1], sizeof(fx->grants[1]), "\"%s/ro::/ro\"", fx->dir);
    snprintf(fx->grants[2], sizeof(fx->grants[2]), "\"rw:%s/rw::/rw\"", fx->dir);
    snprintf(fx->grants[3], sizeof(fx->grants[3]), "\"%s/links::/links\"", fx->dir);
    return fx->host_fd >= 0 ? 0 : -1;
}

static void fixture_teardown(struct fixture *fx)
{
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "driver: could not remove %s\n", fx->dir);
}

static void probe_argv(const struct probe *p, const struct fixture *fx, const char *path,
                       bool is_control, const char *argv[4])
{
    argv[0] = path;
    argv[1] = argv[2] = argv[3] = NULL;
    if (p->args == ARG_SECRET)
        argv[1] = fx->secret;
    else if (p->args == ARG_FD)
        argv[1] = fx->fd_arg;
    else if (p->args == ARG_PID || (p->args == ARG_CONTROL_PID && is_control))
        argv[1] = fx->pid_arg;
    else if (p->args == ARG_NET) {
        argv[1] = fx->port_arg;
        argv[2] = fx->abstract_arg;
    }
}

/* Returns the probe's verdict inside the jail: 0, 1, 77, or -1 if the run itself failed. */
static int run_jailed(sbx_sandbox *sb, const struct probe *p, const struct fixture *fx)
{
    char path[256];
    snprintf(path, sizeof(path), "/probes/%s", p->name);
    const char *argv[4];
    probe_argv(p, fx, path, false, argv);
    sbx_run_input in = {.argv = argv};
    sbx_result r;
    sbx_err e = sbx_sandbox_run(sb, &in, &r);
    int verdict = e == SBX_OK && r.exit_code >= 0 ? r.exit_code : -1;
    if (verdict != 0)
        printf("---- %s (jailed) exit %d, %s:\n%s%s", p->name, r.exit_code,
               r.error_message ? r.error_message : "", r.stdout_data ? r.stdout_data : "",
               r.stderr_data ? r.stderr_data : "");
    sbx_result_free(&r);
    return verdict;
}

/* Runs the probe unjailed: it must detect the escape there (exit 1). */
static int run_control(const struct probe *p, const struct fixture *fx, const char *probe_dir)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", probe_dir, p->name);
    const char *argv[4];
    probe_argv(p, fx, path, true, argv);
    if (p->control == CONTROL_ASK)
        argv[1] = "--control";
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execv(path, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static sbx_sandbox *make_sandbox(const struct fixture *fx)
{
    char json[4096];
    snprintf(json, sizeof(json), "{\"timeoutMs\":20000,\"fs\":[%s,%s,%s,%s]}", fx->grants[0],
             fx->grants[1], fx->grants[2], fx->grants[3]);
    char err[256];
    sbx_policy *policy = NULL;
    sbx_sandbox *sb = NULL;
    if (sbx_policy_parse(json, strlen(json), &policy, err, sizeof(err)) != SBX_OK) {
        fprintf(stderr, "driver: policy: %s\n", err);
        return NULL;
    }
    sbx_err e = sbx_sandbox_create(SBX_BACKEND_PROCESS, policy, &sb);
    sbx_policy_destroy(policy);
    if (e)
        fprintf(stderr, "driver: create: %s\n", sbx_err_name(e));
    return sb;
}

/* The jailed verdict v, read with the control's c (1 when no control ran). */
static const char *verdict(const struct probe *p, int v, int c, bool with_controls)
{
    if (p->control == CONTROL_ASK && with_controls) {
        if (v == 77 && c == 77)
            return "skip (the kernel lacks what it attacks; the unjailed control agrees)";
        if (v == 77)
            return "FAIL (skipped in the jail, but the unjailed control found the feature)";
        if (v == 0 && (c == 1 || c == 77))
            return "blocked";
        return v == 0 ? "FAIL (control went wrong)" : "FAIL";
    }
    if (v == 0 && c == 1)
        return "blocked";
    if (v == 0)
        return "FAIL (control did not detect the escape unjailed)";
    return v == 77 ? "skip" : "FAIL";
}

/* The decision table itself, so both kinds of kernel are covered on either: this host may or
 * may not have the ABI a CONTROL_ASK probe attacks. Returns the number of wrong rows. */
static int verdict_self_test(void)
{
    static const struct probe ask = {"ask", ARG_NONE, CONTROL_ASK};
    static const struct {
        int v, c;
        char want; /* first letter: blocked, skip, FAIL */
    } rows[] = {
        {0, 1, 'b'},   /* the ABI exists and the jail killed it */
        {0, 77, 'b'},  /* blocked although the control found none (harmless) */
        {77, 77, 's'}, /* no such ABI here, the control agrees: not an escape */
        {77, 1, 'F'},  /* "no ABI" in the jail while the host has one */
        {1, 1, 'F'},   {1, 77, 'F'}, {0, 2, 'F'}, {-1, 1, 'F'},
    };
    int wrong = 0;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const char *got = verdict(&ask, rows[i].v, rows[i].c, true);
        if (got[0] != rows[i].want) {
            printf("FAIL: verdict(%d, %d) = %s\n", rows[i].v, rows[i].c, got);
            wrong++;
        }
    }
    return wrong;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: driver PROBE_DIR [--controls]\n");
        return 2;
    }
    int with_controls = argc > 2 && strcmp(argv[2], "--controls") == 0 && geteuid() == 0;
    struct fixture fx;
    sbx_sandbox *sb = NULL;
    if (fixture_setup(&fx, argv[1]) != 0 || !(sb = make_sandbox(&fx))) {
        fprintf(stderr, "driver: fixture setup failed\n");
        printf("0 passed, 1 failed\n");
        return 1;
    }
    int failed = verdict_self_test(), passed = failed ? 0 : 1, skipped = 0;
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        int v = run_jailed(sb, &probes[i], &fx);
        int c = with_controls && probes[i].control ? run_control(&probes[i], &fx, argv[1]) : 1;
        const char *status = verdict(&probes[i], v, c, with_controls);
        printf("%-24s %s\n", probes[i].name, status);
        passed += status[0] == 'b';
        skipped += status[0] == 's';
        failed += status[0] == 'F';
    }
    sbx_sandbox_destroy(sb);
    fixture_teardown(&fx);
    printf("(%d skipped)\n%d passed, %d failed\n", skipped, passed, failed);
    return failed ? 1 : 0;
}

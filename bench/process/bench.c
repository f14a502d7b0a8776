/* bench/process/bench.c: per-run latency of the process tier against its peers, interleaved in
 * one run so machine noise hits all alike: plain fork/exec, sbx through the library (all
 * namespaces incl. network, seccomp, Landlock, cgroup or rlimit limits), `sbx run` as a whole
 * process, `bwrap --unshare-all --die-with-parent --new-session` with the same read-only binds,
 * `firejail --noprofile --net=none`. Workloads: /bin/true and `python3 -c pass`. The order rotates
 * every round. Prints medians and ratios, then the added cost of a brokered connect (connect.c).
 * Usage: [SBX=path/to/sbx] [BENCH_PEERS=fork/exec,sbx,...] bench [ITERATIONS] (default 30). */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sbx.h>

#include "connect.h"

extern char **environ;

enum { PEER_FORK, PEER_SBX, PEER_SBX_CLI, PEER_BWRAP, PEER_FIREJAIL, PEER_COUNT };
static const char *const peer_names[PEER_COUNT] = {"fork/exec", "sbx", "sbx run", "bwrap",
                                                   "firejail"};
static char sbx_cli[4096]; /* the sbx binary: $SBX, else ../../sbx from this program */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Spawns argv with stdout/stderr to /dev/null and waits; returns ms or -1 on failure. */
static double spawn_ms(char *const *argv)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
    double t0 = now_ms();
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int st = 0;
    if (rc != 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    return now_ms() - t0;
}

static double sbx_ms(sbx_sandbox *sb, const char *const *argv)
{
    sbx_run_input in = {.argv = argv};
    sbx_result r;
    double t0 = now_ms();
    sbx_err e = sbx_sandbox_run(sb, &in, &r);
    double ms = now_ms() - t0;
    bool ok = e == SBX_OK && r.ok;
    if (!ok)
        fprintf(stderr, "sbx run failed: %s\n", r.error_message ? r.error_message : "");
    sbx_result_free(&r);
    return ok ? ms : -1;
}

static int build_argv(int peer, const char *const *cmd, char **out, int cap)
{
    static const char *const bwrap[] = {"bwrap",
                                        "--unshare-all",
                                        "--die-with-parent",
                                        "--new-session",
                                        "--ro-bind",
                                        "/usr",
                                        "/usr",
                                        "--symlink",
                                        "usr/bin",
                                        "/bin",
                                        "--symlink",
                                        "usr/lib",
                                        "/lib",
                                        "--symlink",
                                        "usr/lib64",
                                        "/lib64",
                                        "--symlink",
                                        "usr/sbin",
                                        "/sbin",
                                        "--ro-bind",
                                        "/etc/ld.so.cache",
                                        "/etc/ld.so.cache",
                                        "--ro-bind",
                                        "/etc/alternatives",
                                        "/etc/alternatives",
                                        "--proc",
                                        "/proc",
                                        "--dev",
                                        "/dev",
                                        "--tmpfs",
                                        "/tmp",
                                        NULL};
    static const char *const firejail[] = {"firejail", "--quiet", "--noprofile", "--net=none",
                                           NULL};
    const char *const sbx_run[] = {sbx_cli, "run", "--", NULL};
    const char *const *prefix = peer == PEER_BWRAP      ? bwrap
                                : peer == PEER_FIREJAIL ? firejail
                                : peer == PEER_SBX_CLI  ? sbx_run
                                                        : NULL;
    int n = 0;
    for (int i = 0; prefix && prefix[i] && n < cap - 1; i++)
        out[n++] = (char *)prefix[i];
    for (int i = 0; cmd[i] && n < cap - 1; i++)
        out[n++] = (char *)cmd[i];
    out[n] = NULL;
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Whether the comma-separated list names peer exactly ("sbx" is not "sbx run"). */
static bool has_name(const char *list, const char *peer)
{
    size_t len = strlen(peer);
    for (const char *at = strstr(list, peer); at; at = strstr(at + 1, peer)) {
        if ((at == list || at[-1] == ',') && (at[len] == ',' || at[len] == '\0'))
            return true;
    }
    return false;
}

static void find_sbx_cli(void)
{
    const char *env = getenv("SBX");
    ssize_t n = readlink("/proc/self/exe", sbx_cli, sizeof(sbx_cli) - 16);
    if (env) {
        snprintf(sbx_cli, sizeof(sbx_cli), "%s", env);
        return;
    }
    sbx_cli[n > 0 ? n : 0] = '\0';
    for (int i = 0; i < 3; i++) { /* <build>/bench/process/bench -> <build>/sbx */
        char *slash = strrchr(sbx_cli, '/');
        if (slash)
            *slash = '\0';
    }
    size_t len = strlen(sbx_cli);
    snprintf(sbx_cli + len, sizeof(sbx_cli) - len, "/sbx");
}

static void bench_workload(sbx_sandbox *sb, const char *name, const char *const *cmd, int iters)
{
    double *samples[PEER_COUNT];
    int counts[PEER_COUNT] = {0};
    bool has_peer[PEER_COUNT] = {true, true, access(sbx_cli, X_OK) == 0,
                                 access("/usr/bin/bwrap", X_OK) == 0,
                                 access("/usr/bin/firejail", X_OK) == 0};
    const char *only = getenv("BENCH_PEERS"); /* e.g. "fork/exec,sbx": leave the others out */
    for (int p = 0; only && p < PEER_COUNT; p++)
        has_peer[p] = has_peer[p] && has_name(only, peer_names[p]);
    for (int p = 0; p < PEER_COUNT; p++)
        samples[p] = calloc((size_t)iters, sizeof(double));
    for (int i = -2; i < iters; i++) { /* two warm-up rounds */
        /* Rotate who goes first: a peer pays for what the one before it left behind (firejail's
         * namespace teardown, deferred RCU work), so a fixed order would bias the comparison. */
        for (int k = 0; k < PEER_COUNT; k++) {
            int p = (k + i + 2) % PEER_COUNT;
            if (!has_peer[p])
                continue;
            char *argv[64];
            build_argv(p, cmd, argv, 64);
            double ms = p == PEER_SBX ? sbx_ms(sb, cmd) : spawn_ms(argv);
            if (ms < 0)
                has_peer[p] = p != PEER_SBX && p != PEER_FORK ? false : has_peer[p];
            else if (i >= 0)
                samples[p][counts[p]++] = ms;
        }
    }
    double med[PEER_COUNT];
    for (int p = 0; p < PEER_COUNT; p++)
        med[p] = median(samples[p], counts[p]); /* sorts: samples[p][0] is the minimum */
    printf("\n%s (%d iterations, interleaved)\n", name, iters);
    printf("  %-10s %10s %8s %12s %10s\n", "peer", "median ms", "min ms", "x fork/exec", "x bwrap");
    for (int p = 0; p < PEER_COUNT; p++) {
        if (!counts[p]) {
            printf("  %-10s %10s\n", peer_names[p], "n/a (not installed or failed)");
            continue;
        }
        printf("  %-10s %10.2f %8.2f %12.2f", peer_names[p], med[p], samples[p][0],
               med[p] / med[PEER_FORK]);
        if (counts[PEER_BWRAP])
            printf(" %10.2f", med[p] / med[PEER_BWRAP]);
        printf("\n");
    }
    if (counts[PEER_SBX_CLI] && counts[PEER_BWRAP])
        printf("  sbx run / bwrap, both whole processes (median): %.2f\n",
               med[PEER_SBX_CLI] / med[PEER_BWRAP]);
    for (int p = 0; p < PEER_COUNT; p++)
        free(samples[p]);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 30;
    find_sbx_cli();
    if (iters < 1)
        iters = 30;
    char err[256];
    sbx_policy *p = NULL;
    sbx_sandbox *sb = NULL;
    const char *json = "{\"timeoutMs\":30000,\"memoryBytes\":268435456}";
    if (sbx_policy_parse(json, strlen(json), &p, err, sizeof(err)) != SBX_OK ||
        sbx_sandbox_create(SBX_BACKEND_PROCESS, p, &sb) != SBX_OK) {
        fprintf(stderr, "bench: cannot create a process sandbox\n");
        return 1;
    }
    const char *const t[] = {"/bin/true", NULL};
    const char *const py[] = {"/usr/bin/python3", "-c", "pass", NULL};
    sbx_result r;
    sbx_run_input in = {.argv = t};
    sbx_sandbox_run(sb, &in, &r);
    printf("sbx enforced:");
    static const char *const bits[] = {"cgroup-v2", "cgroup-v1", "rlimit",
                                       "seccomp",   "landlock",  "netns"};
    for (int i = 0; i < 6; i++)
        if (r.enforced & (1u << i))
            printf(" %s", bits[i]);
    printf("\n");
    sbx_result_free(&r);
    bench_workload(sb, "/bin/true", t, iters);
    bench_workload(sb, "python3 -c pass", py, iters);
    bench_connect(iters < 10 ? iters : 10);
    sbx_sandbox_destroy(sb);
    sbx_policy_destroy(p);
    return 0;
}

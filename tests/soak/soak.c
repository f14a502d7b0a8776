/* Soak: many runs of every tier from 8 host threads, with timeouts, traps and output caps mixed
 * in. Afterwards the host's fds, threads, children, temp files and cgroups are back where they
 * started, RSS has not grown without bound, and no run was lost or misreported.
 * Usage: soak [SCALE]  (SCALE divides the counts: 10,000 worker, 1,000 process, 10,000 wasm). */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sbx.h>

#include "../../examples/embed/hello_wasm.h"

/* (module (func (export "_start") unreachable)): traps on every run. */
static const unsigned char trap_wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60, 0x00,
    0x00, 0x03, 0x02, 0x01, 0x00, 0x07, 0x0a, 0x01, 0x06, 0x5f, 0x73, 0x74, 0x61,
    0x72, 0x74, 0x00, 0x00, 0x0a, 0x05, 0x01, 0x03, 0x00, 0x00, 0x0b,
};

#define THREADS 8

struct job {
    sbx_backend backend;
    int kind; /* which input of the tier, chosen by the run number */
};

struct counts {
    atomic_int ok, timeout, trap, truncated, wrong;
};

static struct counts counts;
/* Only the runs that test the timeout get a short one; every run expected to finish gets 60 s,
 * so that a loaded machine cannot turn a slow success into a timeout counted as misreported. */
static sbx_policy *policy;     /* 60 s timeout */
static sbx_policy *short_time; /* 100 ms timeout */
static sbx_policy *small_out;  /* 64-byte output cap, 60 s timeout */
static atomic_int next_run;
static int totals[3];

struct snapshot {
    long fds, threads, children, rss_kb, tmp_entries, cgroups;
};

static long count_dir(const char *path, const char *prefix)
{
    DIR *d = opendir(path);
    if (!d)
        return 0;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] != '.' && (!prefix || strncmp(e->d_name, prefix, strlen(prefix)) == 0))
            n++;
    }
    closedir(d);
    return n;
}

static long status_field(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, key, strlen(key)) == 0)
            v = strtol(line + strlen(key), NULL, 10);
    }
    if (f)
        fclose(f);
    return v;
}

static long children(void)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task/%d/children", getpid(), getpid());
    FILE *f = fopen(path, "r");
    long n = 0;
    int c, in_word = 0;
    while (f && (c = fgetc(f)) != EOF) {
        if (c != ' ' && !in_word)
            n++;
        in_word = c != ' ';
    }
    if (f)
        fclose(f);
    return n;
}

static void snap(struct snapshot *s)
{
    s->fds = count_dir("/proc/self/fd", NULL);
    s->threads = status_field("Threads:");
    s->children = children();
    s->rss_kb = status_field("VmRSS:");
    /* Only this process's own: other hosts on the machine create and remove theirs meanwhile.
     * The process tier's temp roots are on a tmpfs: /tmp when it is one, else /dev/shm. */
    char root[64], cg[64];
    snprintf(root, sizeof(root), "sbx-jail-%d-", (int)getpid());
    snprintf(cg, sizeof(cg), "sbx-%d-", (int)getpid());
    s->tmp_entries = count_dir("/tmp", root) + count_dir("/dev/shm", root) +
                     count_dir("/tmp", "sbx-conformance-");
    s->cgroups = count_dir("/sys/fs/cgroup/memory", cg) + count_dir("/sys/fs/cgroup", cg) +
                 count_dir("/sys/fs/cgroup/pids", cg);
}

static void classify(const sbx_result *r, int expect)
{
    /* expect: 0 ok, 1 timeout, 2 trap, 3 truncated-but-ok */
    int got = r->ok                         ? (r->stdout_truncated ? 3 : 0)
              : r->error == SBX_E_TIMEOUT   ? 1
              : r->error == SBX_E_WASM_TRAP ? 2
                                            : -1;
    if (got != expect) {
        atomic_fetch_add(&counts.wrong, 1);
        fprintf(stderr, "misreported: backend %s expected %d, got %s (%s)\n",
                sbx_backend_name(r->backend), expect, sbx_err_name(r->error),
                r->error_message ? r->error_message : "");
        return;
    }
    atomic_int *c[] = {&counts.ok, &counts.timeout, &counts.trap, &counts.truncated};
    atomic_fetch_add(c[expect], 1);
}

static void one_run(sbx_backend backend, int n)
{
    static const char *const loop_argv[] = {"/bin/sh", "-c", "while :; do :; done", NULL};
    static const char *const echo_argv[] = {"/bin/echo", "soak", NULL};
    static const char *const seq_argv[] = {"/usr/bin/seq", "1", "1000", NULL};
    int kind = n % 10; /* 1 in 10 hits a limit, 1 in 10 another */
    /* The wasm tier's kind 1 traps: it tests the trap, not the timeout, so it keeps 60 s. */
    bool is_timeout_run = kind == 1 && backend != SBX_BACKEND_WASM;
    const sbx_policy *p = is_timeout_run ? short_time : kind == 2 ? small_out : policy;
    sbx_run_input in = {0};
    int expect = 0;
    if (backend == SBX_BACKEND_WORKER) {
        const char *code = kind == 1   ? "while (true) {}"
                           : kind == 2 ? "for (var i = 0; i < 100; i++) console.log(i); return 1;"
                                       : "return context.n + 1;";
        expect = kind == 1 ? 1 : kind == 2 ? 3 : 0;
        in.code = code;
        in.code_len = strlen(code);
        in.context_json = "{\"n\": 41}";
    } else if (backend == SBX_BACKEND_PROCESS) {
        in.argv = kind == 1 ? loop_argv : kind == 2 ? seq_argv : echo_argv;
        expect = kind == 1 ? 1 : kind == 2 ? 3 : 0; /* seq(1) overflows the cap */
    } else {
        in.module = kind == 1 ? trap_wasm : hello_wasm;
        in.module_len = kind == 1 ? sizeof(trap_wasm) : sizeof(hello_wasm);
        expect = kind == 1 ? 2 : 0;
    }
    sbx_sandbox *sb = NULL;
    if (sbx_sandbox_create(backend, p, &sb) != SBX_OK) {
        atomic_fetch_add(&counts.wrong, 1);
        fprintf(stderr, "misreported: backend %s: sandbox not created\n",
                sbx_backend_name(backend));
        return;
    }
    sbx_result r;
    sbx_sandbox_run(sb, &in, &r);
    classify(&r, expect);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}

static void *worker(void *arg)
{
    (void)arg;
    int all = totals[0] + totals[1] + totals[2];
    for (int n; (n = atomic_fetch_add(&next_run, 1)) < all;) {
        sbx_backend b = n < totals[0]               ? SBX_BACKEND_WORKER
                        : n < totals[0] + totals[1] ? SBX_BACKEND_PROCESS
                                                    : SBX_BACKEND_WASM;
        one_run(b, n);
    }
    return NULL;
}

static void run_all(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
}

static int check(const char *what, long before, long after, long slack)
{
    int ok = after <= before + slack;
    printf("%-4s %-12s before %-8ld after %-8ld\n", ok ? "ok" : "FAIL", what, before, after);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    if (scale < 1)
        scale = 1;
    totals[0] = 10000 / scale;
    totals[1] = 1000 / scale;
    totals[2] = 10000 / scale;
    const char *ok_text = "{\"timeoutMs\": 60000}";
    const char *time_text = "{\"timeoutMs\": 100}";
    const char *out_text = "{\"maxOutputBytes\": 64, \"timeoutMs\": 60000}";
    if (sbx_policy_parse(ok_text, strlen(ok_text), &policy, NULL, 0) ||
        sbx_policy_parse(time_text, strlen(time_text), &short_time, NULL, 0) ||
        sbx_policy_parse(out_text, strlen(out_text), &small_out, NULL, 0))
        return 2;
    /* Warm up: the worker tier keeps one idle engine thread per concurrent caller, so the
     * baseline is taken after THREADS concurrent runs of every tier; a leak per run would
     * still show as thousands of threads. */
    int all = totals[0] + totals[1] + totals[2];
    int saved[3] = {totals[0], totals[1], totals[2]};
    totals[0] = totals[1] = totals[2] = THREADS;
    run_all();
    memset(&counts, 0, sizeof(counts));
    atomic_store(&next_run, 0);
    memcpy(totals, saved, sizeof(totals));
    struct snapshot before, after;
    snap(&before);
    run_all();
    /* The worker tier keeps up to 8 idle engine threads (IDLE_MAX in src/js/worker.c), and its
     * engine one watchdog thread plus SpiderMonkey's helper threads (one per core, at least
     * two): bounded caches, not leaks. Anything past the main thread plus those is. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long pool_bound = 1 + 8 + 1 + (cores > 2 ? cores : 2);
    /* Abandoned workers and jails are reaped in the background: give them up to 30 s to settle
     * (a loaded machine may not run those threads for seconds; an idle one settles at once). */
    for (int i = 0; i < 300; i++) {
        snap(&after);
        if (after.threads <= (before.threads > pool_bound ? before.threads : pool_bound) &&
            after.children == 0)
            break;
        usleep(100 * 1000);
    }
    int seen = counts.ok + counts.timeout + counts.trap + counts.truncated + counts.wrong;
    printf("runs: %d (worker %d, process %d, wasm %d); ok %d, timeout %d, trap %d, "
           "truncated %d, misreported %d\n",
           all, totals[0], totals[1], totals[2], counts.ok, counts.timeout, counts.trap,
           counts.truncated, counts.wrong);
    int failed = (seen != all) + (counts.wrong != 0);
    failed += check("fds", before.fds, after.fds, 0);
    failed += check("threads", before.threads, after.threads,
                    after.threads <= pool_bound ? pool_bound - before.threads : 0);
    failed += check("children", before.children, after.children, 0);
    failed += check("tmp files", before.tmp_entries, after.tmp_entries, 0);
    failed += check("cgroups", before.cgroups, after.cgroups, 0);
#if defined(__SANITIZE_ADDRESS__) /* ASan's quarantine holds up to 256 MiB of freed memory */
    failed += check("rss (KiB)", before.rss_kb, after.rss_kb, 256 * 1024);
#else
    failed += check("rss (KiB)", before.rss_kb, after.rss_kb, 64 * 1024);
#endif
    sbx_policy_destroy(policy);
    sbx_policy_destroy(short_time);
    sbx_policy_destroy(small_out);
    printf("soak: %d passed, %d failed\n", 8 - failed, failed);
    return failed ? 1 : 0;
}

/* tests/unit/js/test_gc_reuse.c: the worker tier's periodic GC (js/engine.cpp after_run). Small
 * runs reuse the pages the GC emptied: a shrinking GC + malloc_trim every 64 runs, as before,
 * handed them back for the next runs to fault in again, about 19 page faults a run (a count,
 * not a time: sbx serve's p99 tail, docs/serve.md "Latency"). Each test is a process of its
 * own (Check forks), warmed first. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <sbx.h>
#include "sbx_test.h"

#define SMALL_RUNS 1024 /* 64 periodic GCs, 16 shrinking ones before */
/* Faults a small run may cost on average: 18.8-19.2 with the old shrinking GC, 0.05 now. */
#define MAX_FAULTS_PER_RUN 6
#define BIG_BYTES          (96L << 20)

static long minor_faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u); /* every thread's: runs go to the pool's threads */
    return u.ru_minflt;
}

static void run_ok(sbx_sandbox *sb, const char *code, const char *want)
{
    sbx_run_input in = {.code = code, .code_len = strlen(code), .context_json = "{\"a\":41}"};
    sbx_result r;
    ck_assert_int_eq(sbx_sandbox_run(sb, &in, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s: %s", code, r.error_message);
    ck_assert_str_eq(r.value_json, want);
    sbx_result_free(&r);
}

static void small_runs(sbx_sandbox *sb, int n)
{
    for (int i = 0; i < n; i++)
        run_ok(sb, "return context.a + 1", "42");
}

START_TEST(small_runs_reuse_the_pages_gc_emptied)
{
    sbx_sandbox *sb = sbx_test_sandbox(SBX_BACKEND_WORKER, "{}");
    small_runs(sb, 256); /* the pool thread, its context and its heap at their steady size */
    long before = minor_faults();
    small_runs(sb, SMALL_RUNS);
    double per_run = (double)(minor_faults() - before) / SMALL_RUNS;
    fprintf(stderr, "%d small runs: %.2f minor page faults a run\n", SMALL_RUNS, per_run);
#if !defined(__SANITIZE_ADDRESS__) /* ASan's quarantine keeps freed memory from being reused */
    ck_assert_msg(per_run <= MAX_FAULTS_PER_RUN,
                  "%.2f page faults a run (at most %d): the GC returns pages the next runs need",
                  per_run, MAX_FAULTS_PER_RUN);
#endif
    sbx_sandbox_destroy(sb);
}
END_TEST

/* Control of the count above: a run that touches fresh memory does fault, so the bound is not
 * met by a counter that never moves. */
START_TEST(a_big_run_faults_its_pages_in)
{
    sbx_sandbox *sb = sbx_test_sandbox(SBX_BACKEND_WORKER, "{\"memoryBytes\":268435456}");
    small_runs(sb, 256);
    long before = minor_faults();
    char code[256];
    snprintf(code, sizeof(code),
             "var a = []; for (var i = 0; i < %ld; i++) a.push({i: i, s: 'x' + i});"
             " return a.length > 0",
             BIG_BYTES / 96);
    run_ok(sb, code, "true");
    long faults = minor_faults() - before;
    fprintf(stderr, "a run of about %ld MiB: %ld minor page faults\n", BIG_BYTES >> 20, faults);
    ck_assert_msg(faults >= BIG_BYTES / 4096 / 2, "a big run made only %ld page faults", faults);
    sbx_sandbox_destroy(sb);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("js_gc_reuse");
    TCase *tc = tcase_create("gc");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, small_runs_reuse_the_pages_gc_emptied);
    tcase_add_test(tc, a_big_run_faults_its_pages_in);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

/* bench/platform/bench_platform.c: what the platform globals cost a run (src/js/platform/). Each
 * snippet runs --runs times through sbx_sandbox_run (a fresh realm each), in interleaved rounds
 * with the trivial run `return 1` as the peer: a run pays only for the globals it touches (the
 * modules behind them are compiled once per process, first, outside the timings). Prints the
 * median and p90 per snippet, its CPU time per run, and the ratio to the trivial run. Snippets
 * given as arguments replace the list (the trivial run stays first): make bench-builtins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sbx.h>

#include "core/backend.h"

static const char *const platform_snippets[] = {
    "return 1",
    "return typeof global",
    "return typeof setTimeout",
    "return typeof atob",
    "return typeof TextEncoder",
    "return typeof URL",
    "return typeof console.table(null)",
    "return atob(btoa('hello'))",
    "return new TextDecoder().decode(new TextEncoder().encode('h\\u00e9llo'))",
    "return structuredClone({a: [1, 2, {b: new Date(0)}]}).a.length",
    "return crypto.randomUUID().length",
    "return new URL('https://user@example.com:8080/a/../b?q=1#f').href",
    "return new URL('https://\\u00fcber.example/').host",
    "return new URLSearchParams('a=1&b=2').get('b')",
    "await new Promise(r => setTimeout(r, 0)); return 1",
    "return performance.now() >= 0",
};
#define MAX_SNIPPETS 64
#define ROUNDS       10

static const char *snippets[MAX_SNIPPETS];
static size_t snippet_count;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Runs code n times; appends each wall time (ms) to t; returns false if a run failed. */
static bool run_n(sbx_sandbox *sb, const char *code, size_t n, double *t, double *cpu)
{
    sbx_run_input in = {.code = code, .code_len = strlen(code)};
    double c0 = cpu_ms();
    for (size_t i = 0; i < n; i++) {
        sbx_result r;
        uint64_t t0 = sbx__now_ns();
        sbx_sandbox_run(sb, &in, &r);
        t[i] = (double)(sbx__now_ns() - t0) / 1e6;
        bool ok = r.ok;
        if (!ok)
            fprintf(stderr, "%s: %s\n", code, r.error_message ? r.error_message : "?");
        sbx_result_free(&r);
        if (!ok)
            return false;
    }
    *cpu += cpu_ms() - c0;
    return true;
}

int main(int argc, char **argv)
{
    size_t runs = 2000;
    snippets[snippet_count++] = platform_snippets[0];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = strtoul(argv[++i], NULL, 10);
        else if (snippet_count < MAX_SNIPPETS)
            snippets[snippet_count++] = argv[i];
    }
    if (snippet_count == 1) /* none given: the platform's list */
        for (size_t i = 1; i < sizeof(platform_snippets) / sizeof(*platform_snippets); i++)
            snippets[snippet_count++] = platform_snippets[i];
    size_t per_round = runs / ROUNDS ? runs / ROUNDS : 1;
    sbx_policy *p = NULL;
    sbx_sandbox *sb = NULL;
    if (sbx_policy_parse("{}", 2, &p, NULL, 0) || sbx_sandbox_create(SBX_BACKEND_WORKER, p, &sb))
        return 1;
    double *t[MAX_SNIPPETS], cpu[MAX_SNIPPETS] = {0}, warm;
    for (size_t s = 0; s < snippet_count; s++) {
        t[s] = calloc(per_round * ROUNDS, sizeof(double));
        if (!t[s] || !run_n(sb, snippets[s], 50, t[s], &warm)) /* warm-up: compiles the modules */
            return 1;
    }
    for (size_t round = 0; round < ROUNDS; round++)
        for (size_t s = 0; s < snippet_count; s++)
            if (!run_n(sb, snippets[s], per_round, t[s] + round * per_round, &cpu[s]))
                return 1;
    size_t n = per_round * ROUNDS;
    double base = 0;
    printf("%-72s %9s %9s %9s %7s\n", "snippet (a fresh realm each run)", "median_ms", "p90_ms",
           "cpu_ms", "ratio");
    for (size_t s = 0; s < snippet_count; s++) {
        qsort(t[s], n, sizeof(double), cmp_double);
        double med = t[s][n / 2], p90 = t[s][n * 9 / 10];
        if (s == 0)
            base = med;
        printf("%-72.72s %9.4f %9.4f %9.4f %6.2fx\n", snippets[s], med, p90, cpu[s] / (double)n,
               med / base);
        free(t[s]);
    }
    sbx_sandbox_destroy(sb);
    sbx_policy_destroy(p);
    return 0;
}

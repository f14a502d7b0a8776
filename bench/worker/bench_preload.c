/* bench/worker/bench_preload.c: what a preloaded library costs a run (issue 26, item 3). For
 * each --lib FILE:GLOBAL, three worker sandboxes, measured in interleaved rounds: an empty one,
 * one with FILE preloaded (sbx_sandbox_preload: compiled once per process, instantiated and
 * run in each fresh realm), and one whose body evaluates FILE's text itself (what a user without
 * preloads pays). Each run returns `typeof GLOBAL`, checked. Times are the process's CPU time per
 * run (every thread: the engine's pool thread does the work), median and p90, so the machine's
 * load moves them less than wall time would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sbx.h>

enum { EMPTY, PRELOADED, IN_BODY, KINDS };
static const char *const kind_names[KINDS] = {"empty run", "preloaded", "in the body"};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(double *v, size_t n, double q)
{
    qsort(v, n, sizeof(*v), cmp_double);
    size_t i = (size_t)(q * (double)n);
    return v[i < n ? i : n - 1];
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (f)
        fclose(f);
    if (text) {
        text[n] = '\0';
        *len = (size_t)n;
    }
    return text;
}

/* One timed run of code on sb; -1 when it does not give want. */
static double timed_run(sbx_sandbox *sb, const char *code, const char *want)
{
    sbx_run_input in = {.code = code, .code_len = strlen(code)};
    sbx_result r;
    double t0 = cpu_ms();
    sbx_sandbox_run(sb, &in, &r);
    double t = cpu_ms() - t0;
    if (!r.ok || strcmp(r.value_json, want) != 0) {
        fprintf(stderr, "bench_preload: run failed: %s\n", r.ok ? r.value_json : r.error_message);
        t = -1;
    }
    sbx_result_free(&r);
    return t;
}

/* Times the three kinds for one library; 0 ok, 1 failed, 2 skipped. */
static int bench_lib(const char *path, const char *global, size_t rounds, size_t per_round)
{
    size_t len = 0;
    char *lib = slurp(path, &len);
    if (!lib) {
        printf("%s: skipped (not found: its Debian package is in deps/debian-packages.txt)\n",
               path);
        return 2;
    }
    char check[128], *body = malloc(len + 160);
    snprintf(check, sizeof(check), "return typeof %s", global);
    sprintf(body, "%s\n;return typeof %s", lib, global);
    sbx_policy *p = NULL;
    sbx_sandbox *sb[KINDS] = {NULL};
    int rc = sbx_policy_parse("{}", 2, &p, NULL, 0) != SBX_OK;
    for (int k = 0; !rc && k < KINDS; k++)
        rc = sbx_sandbox_create(SBX_BACKEND_WORKER, p, &sb[k]) != SBX_OK;
    if (!rc && sbx_sandbox_preload(sb[PRELOADED], path, lib, len) != SBX_OK)
        rc = 1;
    const char *code[KINDS] = {"return typeof Object", check, body};
    const char *want[KINDS] = {"\"function\"", "\"function\"", "\"function\""};
    size_t n = rounds * per_round;
    double *t[KINDS];
    for (int k = 0; k < KINDS; k++)
        t[k] = calloc(n, sizeof(double));
    for (int k = 0; !rc && k < KINDS; k++) /* warm-up: compiles, pool threads, caches */
        for (int i = 0; i < 3 && !rc; i++)
            rc = timed_run(sb[k], code[k], want[k]) < 0;
    for (size_t r = 0; !rc && r < rounds; r++)
        for (int k = 0; !rc && k < KINDS; k++)
            for (size_t i = 0; i < per_round && !rc; i++)
                rc = (t[k][r * per_round + i] = timed_run(sb[k], code[k], want[k])) < 0;
    if (!rc) {
        double med[KINDS];
        printf("%s (%zu KB), %zu runs each, CPU ms per run:\n", path, len / 1000, n);
        for (int k = 0; k < KINDS; k++) {
            med[k] = quantile(t[k], n, 0.5);
            printf("  %-12s median %8.3f  p90 %8.3f\n", kind_names[k], med[k],
                   quantile(t[k], n, 0.9));
        }
        printf("  preloaded costs +%.3f ms over an empty run; the body pays +%.3f ms (%.1fx the "
               "preload's extra)\n",
               med[PRELOADED] - med[EMPTY], med[IN_BODY] - med[EMPTY],
               (med[IN_BODY] - med[EMPTY]) / (med[PRELOADED] - med[EMPTY]));
    }
    for (int k = 0; k < KINDS; k++) {
        sbx_sandbox_destroy(sb[k]);
        free(t[k]);
    }
    sbx_policy_destroy(p);
    free(body);
    free(lib);
    return rc;
}

int main(int argc, char **argv)
{
    size_t rounds = 5, per_round = 20;
    int failed = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rounds") == 0) {
            rounds = strtoul(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--per-round") == 0) {
            per_round = strtoul(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--lib") == 0) {
            char *colon = strrchr(argv[i + 1], ':');
            if (!colon) {
                fprintf(stderr, "bench_preload: --lib FILE:GLOBAL\n");
                return 2;
            }
            *colon = '\0';
            failed |= bench_lib(argv[i + 1], colon + 1, rounds, per_round) == 1;
        } else {
            fprintf(stderr, "usage: bench_preload [--rounds N] [--per-round N] "
                            "--lib FILE:GLOBAL...\n");
            return 2;
        }
    }
    return failed;
}

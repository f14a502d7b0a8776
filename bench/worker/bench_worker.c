/* bench/worker/bench_worker.c: per-run overhead of the worker tier (fresh engine + `return
 * context.a + 1`) through the public API, median over --runs runs, against a new Node.js
 * worker_threads Worker per run (bench/worker/node_peer.js) measured in the same invocation.
 * Also times the engine alone on the calling thread, reports the heap one run needs, and the
 * process's RSS after the warm-up and after all runs (it should stay flat). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sbx.h>

#include "core/backend.h"
#include "js/engine.h"

#define CODE    "return context.a + 1"
#define CONTEXT "{\"a\":1}"

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

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

static long rss_warm_kb, rss_end_kb;

/* Times runs through sbx_sandbox_run; returns the median in ms (p90 in *p90). */
static double bench_api(size_t runs, double *p90)
{
    sbx_policy *p = NULL;
    sbx_sandbox *sb = NULL;
    if (sbx_policy_parse("{}", 2, &p, NULL, 0) || sbx_sandbox_create(SBX_BACKEND_WORKER, p, &sb))
        return -1;
    double *t = calloc(runs, sizeof(double));
    sbx_run_input in = {.code = CODE, .code_len = strlen(CODE), .context_json = CONTEXT};
    for (size_t i = 0; i < runs + 200; i++) {
        sbx_result r;
        uint64_t t0 = sbx__now_ns();
        sbx_sandbox_run(sb, &in, &r);
        uint64_t t1 = sbx__now_ns();
        if (!r.ok || strcmp(r.value_json, "2") != 0) {
            fprintf(stderr, "bench: wrong result: %s\n", r.error_message);
            exit(1);
        }
        sbx_result_free(&r);
        if (i >= 200) /* the first 200 warm the pool and the allocator */
            t[i - 200] = (double)(t1 - t0) / 1e6;
        if (i == 199)
            rss_warm_kb = rss_kb();
    }
    rss_end_kb = rss_kb();
    double med = quantile(t, runs, 0.5);
    *p90 = quantile(t, runs, 0.9);
    free(t);
    sbx_sandbox_destroy(sb);
    sbx_policy_destroy(p);
    return med;
}

/* Times the engine alone on this thread (no pool hop); reports the heap peak of one run. */
static double bench_engine(size_t runs, size_t *heap_peak)
{
    double *t = calloc(runs, sizeof(double));
    for (size_t i = 0; i < runs; i++) {
        struct sbx__js_eval_in in = {.code = CODE,
                                     .code_len = strlen(CODE),
                                     .context_json = CONTEXT,
                                     .context_len = strlen(CONTEXT),
                                     .memory_bytes = 64u << 20,
                                     .max_output_bytes = 1u << 20};
        struct sbx__js_eval_out out;
        sbx__js_eval_out_init(&out, in.max_output_bytes);
        uint64_t t0 = sbx__now_ns();
        sbx__js_eval(&in, &out);
        t[i] = (double)(sbx__now_ns() - t0) / 1e6;
        *heap_peak = out.heap_peak_bytes;
        sbx__js_eval_out_free(&out);
    }
    double med = quantile(t, runs, 0.5);
    free(t);
    return med;
}

/* Runs the Node.js peer and parses its median; negative if node is missing or failed. */
static double bench_node(const char *script, size_t runs, double *p90)
{
    char cmd[512], line[256];
    snprintf(cmd, sizeof(cmd), "node %s %zu", script, runs);
    FILE *f = popen(cmd, "r");
    double med = -1;
    while (f && fgets(line, sizeof(line), f)) {
        const char *m = strstr(line, "median_ms="), *q = strstr(line, "p90_ms=");
        if (m && q) {
            med = strtod(m + 10, NULL);
            *p90 = strtod(q + 7, NULL);
        }
    }
    if (f)
        pclose(f);
    return med;
}

int main(int argc, char **argv)
{
    size_t runs = 10000, node_runs = 300;
    const char *node = "bench/worker/node_peer.js";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--runs") == 0)
            runs = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--node-runs") == 0)
            node_runs = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--node") == 0)
            node = argv[i + 1];
    }
    if (runs == 0 || node_runs == 0)
        return 2;
    double api_p90 = 0, node_p90 = 0;
    size_t heap_peak = 0;
    double api = bench_api(runs, &api_p90);
    double engine = bench_engine(runs, &heap_peak);
    double peer = bench_node(node, node_runs, &node_p90);
    printf("snippet: %s   context: %s\n", CODE, CONTEXT);
    printf("sbx worker (sbx_sandbox_run)  runs=%zu median_ms=%.4f p90_ms=%.4f\n", runs, api,
           api_p90);
    printf("sbx engine alone (no thread)  runs=%zu median_ms=%.4f\n", runs, engine);
    printf("heap per run: peak %zu bytes (%.1f KiB)\n", heap_peak, (double)heap_peak / 1024.0);
    printf("rss: %ld KiB after warm-up, %ld KiB after %zu runs (%+ld KiB; target within 20 MiB)\n",
           rss_warm_kb, rss_end_kb, runs, rss_end_kb - rss_warm_kb);
    if (peer < 0) {
        printf("node worker_threads peer: unavailable (is nodejs installed?)\n");
        return 1;
    }
    printf("node Worker per run           runs=%zu median_ms=%.4f p90_ms=%.4f\n", node_runs, peer,
           node_p90);
    printf("ratio: sbx worker is %.1fx faster than a Worker per run (target >= 100x, < 0.3 ms)\n",
           peer / api);
    return 0;
}

/* bench/telemetry/bench_telemetry.c: what telemetry costs a run. Measures the no-hook check core
 * makes per instrument, the exporters' hook calls, and worker runs with no hooks, Prometheus and
 * OTLP hooks installed, and prints each against the cost of a run. `make bench-telemetry`. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sbx.h>

#include "core/telemetry.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The exact check core makes before each instrument when no hooks are installed. */
static double no_hook_ns(long iters)
{
    volatile long sink = 0;
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        const sbx_telemetry_hooks *h = sbx__telemetry_hooks();
        if (h && h->counter_add)
            sink++;
    }
    double dt = now_ns() - t0;
    if (sink)
        fprintf(stderr, "unexpected hooks\n");
    return dt / (double)iters;
}

/* One run's worth of instruments through a hook table: span, counter and histogram. */
static double hooks_ns(const sbx_telemetry_hooks *h, long iters)
{
    sbx_attr attrs[] = {{"backend", "worker", SBX_ATTR_STRING}, {"outcome", "ok", SBX_ATTR_STRING}};
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        void *span = h->span_start ? h->span_start(h->user, "sandbox.run", attrs, 1) : NULL;
        if (h->span_end)
            h->span_end(h->user, span, attrs, 2, false, NULL);
        h->counter_add(h->user, "sandbox.runs_total", 1, attrs, 2);
        h->histogram_record(h->user, "sandbox.duration_ms", (double)(i % 50), attrs, 1);
    }
    return (now_ns() - t0) / (double)iters;
}

/* Mean wall time of `runs` trivial worker runs on sb. */
static double run_ns(sbx_sandbox *sb, int runs)
{
    sbx_run_input in = {.code = "return 1", .code_len = 8};
    double t0 = now_ns();
    for (int i = 0; i < runs; i++) {
        sbx_result r = {0};
        sbx_sandbox_run(sb, &in, &r);
        sbx_result_free(&r);
    }
    return (now_ns() - t0) / runs;
}

/* Fills best[0..2] with worker run times under no hooks, Prometheus, OTLP. The three settings are
 * interleaved over five rounds and the best of each kept, so drift from other load on the machine
 * hits all three alike. Returns false when the worker tier is unavailable. */
static bool compare_runs(const sbx_policy *pol, const sbx_telemetry_hooks *const tables[3],
                         int runs, double best[3])
{
    sbx_sandbox *sb;
    if (sbx_sandbox_create(SBX_BACKEND_WORKER, pol, &sb) != SBX_OK)
        return false;
    run_ns(sb, runs); /* warm-up: the worker thread and heap come up on first use */
    for (int round = 0; round < 5; round++) {
        for (int k = 0; k < 3; k++) {
            sbx_telemetry_set_hooks(tables[k]);
            double t = run_ns(sb, runs);
            best[k] = round == 0 || t < best[k] ? t : best[k];
        }
    }
    sbx_telemetry_set_hooks(NULL);
    sbx_sandbox_destroy(sb);
    return true;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 300;
    long iters = 50000000;
    sbx_prometheus *prom;
    sbx_otlp *otlp;
    sbx_policy *pol;
    char err[256];
    setenv("OTEL_BSP_MAX_QUEUE_SIZE", "1000000", 0);
    setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9", 0); /* discard port: refused */
    if (sbx_prometheus_create(&prom) || sbx_otlp_create_from_env(&otlp) ||
        sbx_policy_parse("{}", 2, &pol, err, sizeof(err))) {
        fprintf(stderr, "bench_telemetry: setup failed\n");
        return 1;
    }
    sbx_telemetry_set_hooks(NULL);
    double nh = no_hook_ns(iters);
    double ph = hooks_ns(sbx_prometheus_hooks(prom), 1000000);
    double oh = hooks_ns(sbx_otlp_hooks(otlp), 100000);
    printf("no-hook check:            %8.2f ns per instrument (%ld iterations)\n", nh, iters);
    printf("prometheus hooks:         %8.0f ns per run's instruments\n", ph);
    printf("otlp hooks (buffered):    %8.0f ns per run's instruments\n", oh);
    const sbx_telemetry_hooks *tables[3] = {NULL, sbx_prometheus_hooks(prom), sbx_otlp_hooks(otlp)};
    double best[3];
    if (!compare_runs(pol, tables, runs, best)) {
        printf("worker tier unavailable: run comparison skipped\n");
    } else {
        printf("worker run, no hooks:     %8.0f ns (best of 5 rounds x %d runs)\n", best[0], runs);
        printf("worker run, prometheus:   %8.0f ns (%+.2f%%)\n", best[1],
               100 * (best[1] - best[0]) / best[0]);
        printf("worker run, otlp:         %8.0f ns (%+.2f%%)\n", best[2],
               100 * (best[2] - best[0]) / best[0]);
        printf("no-hook checks per run (3) / run time: %.5f%%\n", 100 * 3 * nh / best[0]);
    }
    sbx_telemetry_set_hooks(NULL);
    sbx_otlp_destroy(otlp);
    sbx_prometheus_destroy(prom);
    sbx_policy_destroy(pol);
    return 0;
}

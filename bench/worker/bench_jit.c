/* bench/worker/bench_jit.c: policy.js.jit off against on, through sbx_sandbox_run: the per-run
 * cost of `return context.a + 1` and CPU-heavy snippets, the median of each per mode, the
 * off/on ratio, and Node.js on the same snippets in the same invocation (node_jit.js). The JIT
 * mode is fixed per process, so each mode runs in a child of its own (this program run again
 * with --mode); every run is a fresh realm that compiles from scratch, as in production. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sbx.h>

#include "core/backend.h"

struct snippet {
    const char *name;
    const char *code;
    const char *context;
    size_t runs; /* timed runs (the per-run case is scaled by --runs) */
};

static const struct snippet snippets[] = {
    {"per-run a+1", "return context.a + 1", "{\"a\":1}", 0},
    {"sieve 1e6",
     "const n = 1000000, a = new Uint8Array(n + 1); let c = 0;"
     "for (let i = 2; i <= n; i++)"
     "  if (!a[i]) { c++; for (let j = 2 * i; j <= n; j += i) a[j] = 1; }"
     "return c",
     NULL, 7},
    {"fib(25)", "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } return fib(25)",
     NULL, 7},
    {"json 5x20k",
     "const a = [];"
     "for (let i = 0; i < 20000; i++) a.push({id: i, name: 'n' + i, t: [i % 7, i % 11]});"
     "let s = 0; for (let k = 0; k < 5; k++) s += JSON.parse(JSON.stringify(a)).length; return s",
     NULL, 7},
};
#define SNIPPETS (sizeof(snippets) / sizeof(snippets[0]))

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs one snippet warm + runs times in one sandbox; prints "case=I median_ms=X value=V". */
static int child_case(sbx_sandbox *sb, size_t i, size_t runs)
{
    const struct snippet *s = &snippets[i];
    sbx_run_input in = {.code = s->code, .code_len = strlen(s->code), .context_json = s->context};
    size_t warm = runs > 100 ? 200 : 1;
    double *t = calloc(runs, sizeof(double));
    char value[64] = "";
    for (size_t k = 0; t && k < warm + runs; k++) {
        sbx_result r;
        uint64_t t0 = sbx__now_ns();
        sbx_sandbox_run(sb, &in, &r);
        uint64_t t1 = sbx__now_ns();
        if (!r.ok) {
            fprintf(stderr, "bench_jit: %s: %s\n", s->name, r.error_message);
            return 1;
        }
        snprintf(value, sizeof(value), "%s", r.value_json);
        sbx_result_free(&r);
        if (k >= warm)
            t[k - warm] = (double)(t1 - t0) / 1e6;
    }
    if (!t)
        return 1;
    qsort(t, runs, sizeof(*t), cmp_double);
    printf("case=%zu median_ms=%.4f value=%s\n", i, t[runs / 2], value);
    free(t);
    return 0;
}

static int child(const char *mode, size_t per_run)
{
    char json[128];
    snprintf(json, sizeof(json),
             "{\"js\": {\"jit\": %s}, \"timeoutMs\": 120000, \"memoryBytes\": 268435456}", mode);
    sbx_policy *p = NULL;
    sbx_sandbox *sb = NULL;
    if (sbx_policy_parse(json, strlen(json), &p, NULL, 0) ||
        sbx_sandbox_create(SBX_BACKEND_WORKER, p, &sb))
        return 1;
    int rc = 0;
    for (size_t i = 0; i < SNIPPETS && rc == 0; i++)
        rc = child_case(sb, i, snippets[i].runs ? snippets[i].runs : per_run);
    sbx_sandbox_destroy(sb);
    sbx_policy_destroy(p);
    return rc;
}

/* Reads "median_ms=X value=V" from cmd's lines into ms[]/values[] (by case=I if present). */
static int collect(const char *cmd, double *ms, char (*values)[64])
{
    char line[256];
    FILE *f = popen(cmd, "r");
    size_t next = 0;
    while (f && fgets(line, sizeof(line), f)) {
        const char *c = strstr(line, "case="), *m = strstr(line, "median_ms="),
                   *v = strstr(line, "value=");
        size_t i = c ? strtoul(c + 5, NULL, 10) : next;
        if (!m || !v || i >= SNIPPETS)
            continue;
        ms[i] = strtod(m + 10, NULL);
        snprintf(values[i], sizeof(values[i]), "%.*s", (int)strcspn(v + 6, "\n"), v + 6);
        next = i + 1;
    }
    return f && pclose(f) == 0 ? 0 : -1;
}

static void node_case(const char *node, size_t i, size_t runs, double *ms, char (*values)[64])
{
    setenv("SBX_BENCH_CODE", snippets[i].code, 1);
    setenv("SBX_BENCH_CONTEXT", snippets[i].context ? snippets[i].context : "null", 1);
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "node %s %zu", node, runs);
    double one[SNIPPETS];
    char vals[SNIPPETS][64];
    memset(vals, 0, sizeof(vals));
    one[0] = -1;
    if (collect(cmd, one, vals) == 0) {
        ms[i] = one[0];
        memcpy(values[i], vals[0], sizeof(vals[0]));
    }
}

int main(int argc, char **argv)
{
    size_t per_run = 2000;
    const char *mode = NULL, *node = "bench/worker/node_jit.js";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--runs") == 0)
            per_run = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--mode") == 0)
            mode = argv[i + 1];
        else if (strcmp(argv[i], "--node") == 0)
            node = argv[i + 1];
    }
    if (per_run == 0)
        return 2;
    if (mode)
        return child(strcmp(mode, "on") == 0 ? "true" : "false", per_run);
    double off[SNIPPETS], on[SNIPPETS], peer[SNIPPETS];
    char v_off[SNIPPETS][64] = {{0}}, v_on[SNIPPETS][64] = {{0}}, v_node[SNIPPETS][64] = {{0}};
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "/proc/%d/exe --mode off --runs %zu", (int)getpid(), per_run);
    if (collect(cmd, off, v_off) != 0)
        return 1;
    snprintf(cmd, sizeof(cmd), "/proc/%d/exe --mode on --runs %zu", (int)getpid(), per_run);
    if (collect(cmd, on, v_on) != 0)
        return 1;
    for (size_t i = 0; i < SNIPPETS; i++) {
        peer[i] = -1;
        node_case(node, i, snippets[i].runs ? snippets[i].runs : per_run / 4, peer, v_node);
    }
    printf("%-12s %12s %12s %9s %12s %10s\n", "snippet", "jit off ms", "jit on ms", "off/on",
           "node ms", "on/node");
    int rc = 0;
    for (size_t i = 0; i < SNIPPETS; i++) {
        if (strcmp(v_off[i], v_on[i]) != 0 || (peer[i] >= 0 && strcmp(v_on[i], v_node[i]) != 0)) {
            fprintf(stderr, "bench_jit: %s: results differ: off %s, on %s, node %s\n",
                    snippets[i].name, v_off[i], v_on[i], v_node[i]);
            rc = 1;
        }
        printf("%-12s %12.4f %12.4f %8.2fx ", snippets[i].name, off[i], on[i], off[i] / on[i]);
        if (peer[i] >= 0)
            printf("%12.4f %9.2fx\n", peer[i], on[i] / peer[i]);
        else
            printf("%12s %10s\n", "n/a", "n/a");
    }
    printf("(medians; per-run: %zu runs, others: %zu fresh-realm runs each; node: a fresh vm "
           "context per run)\n",
           per_run, snippets[1].runs);
    return rc;
}

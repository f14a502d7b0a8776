/* bench/wasm/wasi/instantiate.c: a host program (linked with libsbx.a, not built to wasm):
 * loads (decode, validate, compile) and instantiates FILE.wasm N times and prints the best
 * load and instantiate times, their sum, and the process's peak RSS.
 * usage: instantiate FILE.wasm [N] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "../host.h"
#include "wasm/wasm.h"

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* One load + instantiate; adds the two times in microseconds to *load and *inst. */
static int once(const unsigned char *bytes, size_t len, double *load, double *inst)
{
    char err[256];
    struct wasm_module *m;
    struct wasm_store *store;
    struct wasm_instance *in;
    struct wasm_store_limits limits = {0};
    double t0 = now_us();
    if (sbx__wasm_module_load(bytes, len, &m, err, sizeof(err)) != SBX_OK) {
        fprintf(stderr, "load: %s\n", err);
        return -1;
    }
    double t1 = now_us();
    if (sbx__wasm_store_create(&limits, &store) != SBX_OK ||
        sbx__wasm_instantiate(store, m, bench_no_imports, NULL, &in, NULL, err, sizeof(err)) !=
            SBX_OK) {
        fprintf(stderr, "instantiate: %s\n", err);
        return -1;
    }
    double t2 = now_us();
    sbx__wasm_store_destroy(store);
    sbx__wasm_module_destroy(m);
    *load = t1 - t0;
    *inst = t2 - t1;
    return 0;
}

int main(int argc, char **argv)
{
    size_t len = 0;
    unsigned char *bytes = argc > 1 ? bench_slurp(argv[1], &len) : NULL;
    int n = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 20;
    if (!bytes) {
        fprintf(stderr, "usage: instantiate FILE.wasm [N]\n");
        return 2;
    }
    double best_load = 1e30, best_inst = 1e30, best_sum = 1e30;
    for (int i = 0; i < n; i++) {
        double l, s;
        if (once(bytes, len, &l, &s) != 0)
            return 1;
        best_load = l < best_load ? l : best_load;
        best_inst = s < best_inst ? s : best_inst;
        best_sum = l + s < best_sum ? l + s : best_sum;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("module %zu bytes, best of %d: load %.0f us, instantiate %.0f us, total %.0f us, "
           "peak RSS %ld KiB\n",
           len, n, best_load, best_inst, best_sum, ru.ru_maxrss);
    free(bytes);
    return 0;
}

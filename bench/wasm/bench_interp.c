/* bench/wasm/bench_interp.c: runs a kernel's exported bench() in sbx's interpreter and prints
 * "<result> <ns>" (CPU ns of the call alone; load and instantiation are excluded). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "host.h"
#include "wasm/wasm.h"

int main(int argc, char **argv)
{
    char err[256];
    size_t len;
    unsigned char *bytes = argc > 1 ? bench_slurp(argv[1], &len) : NULL;
    struct wasm_module *m;
    struct wasm_store *store;
    struct wasm_instance *inst;
    struct wasm_extern ext;
    if (!bytes || sbx__wasm_module_load(bytes, len, &m, err, sizeof(err)) != SBX_OK) {
        fprintf(stderr, "load: %s\n", bytes ? err : "usage: bench_interp FILE.wasm");
        return 1;
    }
    struct wasm_store_limits limits = {0};
    if (sbx__wasm_store_create(&limits, &store) != SBX_OK ||
        sbx__wasm_instantiate(store, m, bench_no_imports, NULL, &inst, NULL, err, sizeof(err)) !=
            SBX_OK ||
        !sbx__wasm_instance_export(inst, "bench", 5, &ext) || ext.kind != WASM_EXTERN_FUNC) {
        fprintf(stderr, "instantiate: %s\n", err);
        return 1;
    }
    wasm_value res[1] = {{0}};
    struct wasm_trap trap;
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    sbx_err rc = sbx__wasm_func_call(store, ext.u.func, NULL, res, &trap);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    if (rc != SBX_OK) {
        fprintf(stderr, "trap: %s\n", trap.message);
        return 1;
    }
    long long ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
    const struct wasm_functype *t = sbx__wasm_func_type(ext.u.func);
    long long r = t->types[t->param_count] == WASM_I64 ? (long long)res[0].i64 : (int)res[0].i32;
    printf("%lld %lld\n", r, ns);
    sbx__wasm_store_destroy(store);
    sbx__wasm_module_destroy(m);
    free(bytes);
    return 0;
}

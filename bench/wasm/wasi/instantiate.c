/* bench/wasm/wasi/instantiate.c: a host program (linked with libsbx.a, not built to wasm):
 * loads (decode, validate, compile) and instantiates FILE.wasm N times and prints the best
 * load and instantiate times, their sum, and the process's peak RSS. With "compiled" the store
 * is in the compiled tier, so instantiate includes LLVM's compile; function imports are then
 * stubs that trap (nothing is run). With "cached" it is the compiled tier through the on-disk
 * cache ($SBX_CACHE_DIR): a child process fills the entry, then every timed instantiate is a
 * hit on the directory (the in-memory cache is off: $SBX_CACHE_MEM_BYTES=0), and libLLVM is never
 * loaded here (checked). With "memory" the same, with the process's in-memory cache on
 * (jit/cache_mem.c): the first instantiate reads the entry, the others link it from memory, as
 * a binding's or a runner's later sandboxes of one module do.
 * usage: instantiate FILE.wasm [N] [interp|compiled|cached|memory] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../host.h"
#include "wasm/jit/jit.h"
#include "wasm/wasm.h"

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static uint8_t tier = WASM_TIER_INTERP;
static bool use_cache;

static int trap_stub(struct wasm_call *c, void *user, const wasm_value *args, wasm_value *res)
{
    (void)user, (void)args, (void)res;
    sbx__wasm_call_trap(c, WASM_TRAP_HOST, "import stub called");
    return -1;
}

/* Function imports resolve to trapping stubs; anything else is unresolved. */
static bool stub_imports(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    struct wasm_store *store = ((void **)user)[0];
    const struct wasm_module *m = ((void **)user)[1];
    if (imp->kind != WASM_EXTERN_FUNC)
        return false;
    out->kind = WASM_EXTERN_FUNC;
    out->u.func = sbx__wasm_func_new_host(store, &m->types[imp->u.func_type], trap_stub, NULL);
    return out->u.func != NULL;
}

/* One load + instantiate; adds the two times in microseconds to *load and *inst. */
static int once(const unsigned char *bytes, size_t len, double *load, double *inst)
{
    char err[256];
    struct wasm_module *m;
    struct wasm_store *store;
    struct wasm_instance *in;
    struct wasm_store_limits limits = {.tier = tier, .use_cache = use_cache};
    double t0 = now_us();
    if (sbx__wasm_module_load(bytes, len, &m, err, sizeof(err)) != SBX_OK) {
        fprintf(stderr, "load: %s\n", err);
        return -1;
    }
    double t1 = now_us();
    if (sbx__wasm_store_create(&limits, &store) != SBX_OK) {
        fprintf(stderr, "store: out of memory\n");
        return -1;
    }
    void *ctx[2] = {store, m};
    if (sbx__wasm_instantiate(store, m, stub_imports, ctx, &in, NULL, err, sizeof(err)) != SBX_OK) {
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

/* A miss in a child process stores the entry, so this process only ever hits. */
static int fill_cache(const unsigned char *bytes, size_t len)
{
    pid_t pid = fork();
    if (pid == 0) {
        double l, s;
        _exit(once(bytes, len, &l, &s) == 0 ? 0 : 1);
    }
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    size_t len = 0;
    unsigned char *bytes = argc > 1 ? bench_slurp(argv[1], &len) : NULL;
    int n = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 20;
    const char *mode = argc > 3 ? argv[3] : "interp";
    use_cache = strcmp(mode, "cached") == 0 || strcmp(mode, "memory") == 0;
    if (strcmp(mode, "cached") == 0)
        setenv("SBX_CACHE_MEM_BYTES", "0", 1); /* every instantiate reads the directory */
    if (use_cache || strcmp(mode, "compiled") == 0)
        tier = WASM_TIER_COMPILED;
    if (!bytes || n < 1) {
        fprintf(stderr, "usage: instantiate FILE.wasm [N] [interp|compiled|cached|memory]\n");
        return 2;
    }
    if (use_cache && fill_cache(bytes, len) != 0)
        return 1;
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
    printf("module %zu bytes, %s, best of %d: load %.0f us, instantiate %.0f us, total %.0f us, "
           "peak RSS %ld KiB%s\n",
           len, mode, n, best_load, best_inst, best_sum, ru.ru_maxrss,
           use_cache
               ? (sbx__jit_llvm_is_loaded() ? ", LLVM LOADED (not a hit!)" : ", LLVM not loaded")
               : "");
    free(bytes);
    return 0;
}

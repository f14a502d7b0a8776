/* fuzz/fuzz_wasm_diff.c: libFuzzer target: differential testing of the compiled tier against
 * the interpreter. wasmgen.c turns the input into a valid module and a plan of export calls;
 * the module is instantiated in two stores (interp, compiled), the plan runs in both, and any
 * difference in results (NaNs compared as the spec allows), trap kind or message, globals,
 * memory or table contents aborts with both sides' values. FUZZ_WASM_DIFF_DUMP=path writes
 * each generated module there (to turn a crash into a .wat with wasm2wat), FUZZ_WASM_DIFF_TRACE=1
 * prints each call's outcome in both tiers and the collections each heap ran. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wasm/gc.h"
#include "wasm/wasm.h"
#include "wasmgen.h"

#define MAX_EXPORTS 16

struct side {
    const char *name;
    struct wasm_store *store;
    struct wasm_instance *inst;
    struct wasm_func *host; /* env.h */
    struct wasm_func *funcs[MAX_EXPORTS];
    struct wasm_global *globals[MAX_EXPORTS];
    struct wasm_memory *mem;
    struct wasm_table *table;
    char err[256];
};

static const struct wgen_module *current; /* for the abort message */

/* SIGABRT without abort(): libmozjs, linked in, replaces abort() with a null write. */
static void die(void) __attribute__((noreturn));

static void die(void)
{
    fflush(stderr);
    raise(SIGABRT);
    _exit(134);
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_wasm_diff: tiers differ: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr,
            "\n(rerun with FUZZ_WASM_DIFF_DUMP=x.wasm and wasm2wat x.wasm to see the "
            "module, %zu bytes)\n",
            current ? current->len : 0);
    die();
}

/* env.h(a, b): mixes its arguments with memory 0 and writes one byte of it, so compiled code
 * must keep memory coherent across host calls; a == 65533 traps. */
static int host_h(struct wasm_call *call, void *user, const wasm_value *args, wasm_value *results)
{
    (void)user;
    uint32_t a = args[0].i32, b = args[1].i32;
    if (a == 65533) {
        sbx__wasm_call_trap(call, WASM_TRAP_HOST, "host trap %u", b);
        return -1;
    }
    uint32_t r = a * 31u ^ b;
    struct wasm_memory *mem = sbx__wasm_call_memory(call);
    uint8_t *in = mem ? sbx__wasm_memory_span(mem, b & 0xff, 4) : NULL;
    uint8_t *out = mem ? sbx__wasm_memory_span(mem, a & 0xff, 1) : NULL;
    if (in)
        r ^= (uint32_t)in[0] | (uint32_t)in[3] << 24;
    if (out)
        *out = (uint8_t)b;
    results[0].i32 = r;
    return 0;
}

static bool resolve(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    struct side *s = user;
    static const wasm_vtype types[] = {WASM_I32, WASM_I32, WASM_I32};
    static const struct wasm_functype h_type = {2, 1, (wasm_vtype *)types};
    (void)imp; /* the generator imports env.h only */
    s->host = sbx__wasm_func_new_host(s->store, &h_type, host_h, NULL);
    out->kind = WASM_EXTERN_FUNC;
    out->u.func = s->host;
    return s->host != NULL;
}

static bool find_export(struct side *s, char prefix, uint32_t i, struct wasm_extern *ext)
{
    char name[8];
    int len = snprintf(name, sizeof(name), "%c%u", prefix, i);
    return sbx__wasm_instance_export(s->inst, name, (size_t)len, ext);
}

/* Returns the instantiation's result; on SBX_OK the side's exports are looked up. */
static sbx_err open_side(struct side *s, const struct wasm_module *m, const struct wgen_module *g,
                         uint8_t tier)
{
    /* Small stacks keep a store cheap; the budget (at most 256 entries) bounds recursion; 64 MiB
     * bound the GC heap (an array of a random length traps "heap full" in both tiers). */
    struct wasm_store_limits limits = {.max_memory_pages = 8,
                                       .max_table_elems = 1000,
                                       .max_call_depth = 1000,
                                       .max_stack_bytes = (size_t)1 << 20,
                                       .max_bytes = (uint64_t)64 << 20, /* GC heap included */
                                       .tier = tier};
    struct wasm_trap trap;
    if (sbx__wasm_store_create(&limits, &s->store) != SBX_OK)
        die(); /* no max_bytes: only NOMEM fails */
    sbx_err rc =
        sbx__wasm_instantiate(s->store, m, resolve, s, &s->inst, &trap, s->err, sizeof(s->err));
    if (rc != SBX_OK)
        return rc;
    struct wasm_extern ext;
    for (uint32_t i = 0; i < g->func_count; i++)
        s->funcs[i] = find_export(s, 'f', i, &ext) ? ext.u.func : NULL;
    for (uint32_t i = 0; i < g->global_count; i++)
        s->globals[i] = find_export(s, 'g', i, &ext) ? ext.u.global : NULL;
    s->mem = sbx__wasm_instance_export(s->inst, "mem", 3, &ext) ? ext.u.memory : NULL;
    s->table = sbx__wasm_instance_export(s->inst, "tab", 3, &ext) ? ext.u.table : NULL;
    return rc;
}

static uint64_t bits_of(uint8_t t, wasm_value v)
{
    return t == WASM_I32 || t == WASM_F32 ? v.i32 : v.i64;
}

/* Equal bits, or two quiet NaNs: an arithmetic result's NaN payload and sign are
 * nondeterministic (spec 4.3.3, NaN propagation), but a signalling NaN only ever comes from
 * bits moved unchanged, which both tiers must keep exactly. */
static bool same_value(uint8_t t, uint64_t a, uint64_t b)
{
    if (a == b)
        return true;
    uint64_t exp = t == WASM_F32 ? 0x7f800000u : 0x7ff0000000000000ull;
    uint64_t quiet = t == WASM_F32 ? 0x400000u : 0x8000000000000ull;
    bool is_float = t == WASM_F32 || t == WASM_F64;
    return is_float && (a & exp) == exp && (b & exp) == exp && (a & quiet) && (b & quiet);
}

static const char *type_name(uint8_t t)
{
    return t == WASM_I32 ? "i32" : t == WASM_I64 ? "i64" : t == WASM_F32 ? "f32" : "f64";
}

static void compare_call(uint32_t n, const struct wgen_call *c, const struct wasm_functype *t,
                         sbx_err rc[2], struct wasm_trap trap[2], wasm_value res[2][8])
{
    if (rc[0] != rc[1] || (rc[0] != SBX_OK && (trap[0].kind != trap[1].kind ||
                                               strcmp(trap[0].message, trap[1].message))))
        fail("call %u (f%u): interp %s \"%s\", compiled %s \"%s\"", n, c->func,
             rc[0] == SBX_OK ? "returned" : "trapped", rc[0] == SBX_OK ? "" : trap[0].message,
             rc[1] == SBX_OK ? "returned" : "trapped", rc[1] == SBX_OK ? "" : trap[1].message);
    if (rc[0] != SBX_OK)
        return;
    for (uint32_t i = 0; i < t->result_count; i++) {
        uint8_t vt = t->types[t->param_count + i];
        uint64_t a = bits_of(vt, res[0][i]), b = bits_of(vt, res[1][i]);
        if (!same_value(vt, a, b))
            fail("call %u (f%u): result %u: interp %s 0x%llx, compiled %s 0x%llx", n, c->func, i,
                 type_name(vt), (unsigned long long)a, type_name(vt), (unsigned long long)b);
    }
}

static void run_call(struct side s[2], const struct wgen_module *g, uint32_t n)
{
    const struct wgen_call *c = &g->calls[n];
    const struct wasm_functype *t = sbx__wasm_func_type(s[0].funcs[c->func]);
    wasm_value args[WGEN_MAX_PARAMS], res[2][8];
    struct wasm_trap trap[2];
    sbx_err rc[2];
    memset(args, 0, sizeof(args));
    for (uint32_t i = 0; i < t->param_count; i++) {
        if (t->types[i] == WASM_I32 || t->types[i] == WASM_F32)
            args[i].i32 = (uint32_t)c->args[i];
        else
            args[i].i64 = c->args[i];
    }
    for (int k = 0; k < 2; k++) {
        memset(res[k], 0, sizeof(res[k]));
        memset(&trap[k], 0, sizeof(trap[k]));
        sbx__wasm_global_set(s[k].globals[0], (wasm_value){.i32 = g->budget});
        rc[k] = sbx__wasm_func_call(s[k].store, s[k].funcs[c->func], args, res[k], &trap[k]);
    }
    if (getenv("FUZZ_WASM_DIFF_TRACE"))
        fprintf(stderr, "call %u f%u: %s / %s, g1 0x%llx / 0x%llx\n", n, c->func,
                rc[0] == SBX_OK ? "ok" : trap[0].message, rc[1] == SBX_OK ? "ok" : trap[1].message,
                (unsigned long long)sbx__wasm_global_get(s[0].globals[1]).i64,
                (unsigned long long)sbx__wasm_global_get(s[1].globals[1]).i64);
    compare_call(n, c, t, rc, trap, res);
}

/* Table elements as function indices (0 = env.h, i + 1 = f<i>, -1 = null). */
static long func_index(const struct side *s, uint32_t count, void *ref)
{
    if (!ref)
        return -1;
    if (ref == s->host)
        return 0;
    for (uint32_t i = 0; i < count; i++)
        if (ref == s->funcs[i])
            return i + 1;
    return -2;
}

static void compare_state(struct side s[2], const struct wgen_module *g)
{
    for (uint32_t i = 0; i < g->global_count; i++) {
        uint8_t t = sbx__wasm_global_type(s[0].globals[i])->type;
        uint64_t a = bits_of(t, sbx__wasm_global_get(s[0].globals[i]));
        uint64_t b = bits_of(t, sbx__wasm_global_get(s[1].globals[i]));
        if (!same_value(t, a, b))
            fail("global g%u: interp %s 0x%llx, compiled 0x%llx", i, type_name(t),
                 (unsigned long long)a, (unsigned long long)b);
    }
    uint64_t size = sbx__wasm_memory_size(s[0].mem);
    if (size != sbx__wasm_memory_size(s[1].mem))
        fail("memory size: interp %llu, compiled %llu", (unsigned long long)size,
             (unsigned long long)sbx__wasm_memory_size(s[1].mem));
    const uint8_t *a = size ? sbx__wasm_memory_span(s[0].mem, 0, (uint32_t)size) : NULL;
    const uint8_t *b = size ? sbx__wasm_memory_span(s[1].mem, 0, (uint32_t)size) : NULL;
    for (uint64_t i = 0; a && b && i < size && memcmp(a, b, size); i++) /* finds the first */
        if (a[i] != b[i])
            fail("memory byte %llu: interp 0x%02x, compiled 0x%02x", (unsigned long long)i, a[i],
                 b[i]);
    uint32_t elems = sbx__wasm_table_size(s[0].table);
    if (elems != sbx__wasm_table_size(s[1].table))
        fail("table size: interp %u, compiled %u", elems, sbx__wasm_table_size(s[1].table));
    for (uint32_t i = 0; i < elems; i++) {
        wasm_value x, y;
        sbx__wasm_table_get(s[0].table, i, &x);
        sbx__wasm_table_get(s[1].table, i, &y);
        long fx = func_index(&s[0], g->func_count, x.ref);
        long fy = func_index(&s[1], g->func_count, y.ref);
        if (fx != fy)
            fail("table element %u: interp function %ld, compiled %ld", i, fx, fy);
    }
}

static void dump(const struct wgen_module *g)
{
    const char *path = getenv("FUZZ_WASM_DIFF_DUMP");
    FILE *f = path ? fopen(path, "wb") : NULL;
    if (f) {
        fwrite(g->wasm, 1, g->len, f);
        fclose(f);
    }
}

/* With FUZZ_WASM_DIFF_TRACE: the collections each tier's heap ran (GC is invisible otherwise). */
static void trace_gc(struct side *s)
{
    struct wasm_gc_stats a, b;
    if (!getenv("FUZZ_WASM_DIFF_TRACE"))
        return;
    sbx__wasm_gc_stats(s[0].store, &a);
    sbx__wasm_gc_stats(s[1].store, &b);
    fprintf(stderr, "gc: interp %llu collections, %llu blocks; compiled %llu, %llu\n",
            (unsigned long long)a.collections, (unsigned long long)a.blocks,
            (unsigned long long)b.collections, (unsigned long long)b.blocks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wgen_module g;
    struct wasm_module *m = NULL;
    char err[256];
    if (!wgen_generate(data, size, &g))
        return 0;
    current = &g;
    dump(&g);
    if (sbx__wasm_module_load(g.wasm, g.len, &m, err, sizeof(err)) != SBX_OK) {
        fprintf(stderr, "fuzz_wasm_diff: the generator made an invalid module: %s\n", err);
        die();
    }
    struct side s[2] = {{.name = "interp"}, {.name = "compiled"}};
    sbx_err rc0 = open_side(&s[0], m, &g, WASM_TIER_INTERP);
    sbx_err rc1 = open_side(&s[1], m, &g, WASM_TIER_COMPILED);
    if (rc0 != rc1 || (rc0 != SBX_OK && strcmp(s[0].err, s[1].err)))
        fail("instantiation: interp %d \"%s\", compiled %d \"%s\"", rc0, s[0].err, rc1, s[1].err);
    if (rc0 == SBX_OK) {
        for (uint32_t i = 0; i < g.call_count; i++)
            run_call(s, &g, i);
        compare_state(s, &g);
        trace_gc(s);
    }
    sbx__wasm_store_destroy(s[0].store);
    sbx__wasm_store_destroy(s[1].store);
    sbx__wasm_module_destroy(m);
    current = NULL;
    wgen_free(&g);
    return 0;
}

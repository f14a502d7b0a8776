/* fuzz/fuzz_wasm_run.c: libFuzzer target: load a module, instantiate it against a host that
 * supplies every import with an object of exactly the wanted type (a generalised `spectest`),
 * then call every exported function with zero arguments under fuel. Any crash, hang, leak or
 * sanitizer report is a bug; traps, link and load errors are ordinary outcomes. */
#include <stdint.h>
#include <string.h>

#include "wasm/wasm.h"

#define FUEL_PER_CALL 200000u

struct host {
    struct wasm_store *store;
    const struct wasm_module *m;
};

/* Returns zeros of the function's result types: user is the import's function type. */
static int host_zero(struct wasm_call *call, void *user, const wasm_value *args,
                     wasm_value *results)
{
    const struct wasm_functype *t = user;
    (void)call, (void)args;
    memset(results, 0, (size_t)t->result_count * sizeof(*results));
    return 0;
}

static bool resolve(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    struct host *h = user;
    wasm_value zero;
    memset(&zero, 0, sizeof(zero));
    out->kind = imp->kind;
    switch (imp->kind) {
    case WASM_EXTERN_FUNC: {
        const struct wasm_functype *t = &h->m->types[imp->u.func_type];
        out->u.func = sbx__wasm_func_new_host(h->store, t, host_zero, (void *)t);
        return out->u.func != NULL;
    }
    case WASM_EXTERN_TABLE:
        out->u.table = sbx__wasm_table_new(h->store, &imp->u.table, zero);
        return out->u.table != NULL;
    case WASM_EXTERN_MEMORY:
        out->u.memory = sbx__wasm_memory_new(h->store, &imp->u.mem);
        return out->u.memory != NULL;
    case WASM_EXTERN_GLOBAL:
        out->u.global = sbx__wasm_global_new(h->store, &imp->u.global, zero);
        return out->u.global != NULL;
    default:
        return false;
    }
}

static void call_exports(struct wasm_store *store, struct wasm_instance *inst,
                         const struct wasm_module *m)
{
    wasm_value vals[64];
    for (uint32_t i = 0; i < m->export_count; i++) {
        struct wasm_extern ext;
        if (m->exports[i].kind != WASM_EXTERN_FUNC ||
            !sbx__wasm_instance_export(inst, m->exports[i].name, m->exports[i].name_len, &ext))
            continue;
        const struct wasm_functype *t = sbx__wasm_func_type(ext.u.func);
        if (t->param_count > 64 || t->result_count > 64)
            continue;
        memset(vals, 0, sizeof(vals));
        struct wasm_trap trap;
        sbx__wasm_store_set_fuel(store, FUEL_PER_CALL);
        sbx__wasm_func_call(store, ext.u.func, vals, vals, &trap);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wasm_module *m = NULL;
    char err[256];
    if (sbx__wasm_module_load(data, size, &m, err, sizeof(err)) != SBX_OK)
        return 0;
    /* Small limits keep one input cheap: 4 MiB of memory, 10,000 table slots, shallow calls. */
    struct wasm_store_limits limits = {.max_memory_pages = 64,
                                       .max_table_elems = 10000,
                                       .max_call_depth = 1000,
                                       .max_stack_bytes = (size_t)1 << 20,
                                       .fuel = FUEL_PER_CALL};
    struct host h = {NULL, m};
    if (sbx__wasm_store_create(&limits, &h.store) == SBX_OK) {
        struct wasm_instance *inst = NULL;
        struct wasm_trap trap;
        sbx_err rc = sbx__wasm_instantiate(h.store, m, resolve, &h, &inst, &trap, err, sizeof(err));
        if ((rc == SBX_OK || rc == SBX_E_WASM_TRAP) && inst)
            call_exports(h.store, inst, m);
        sbx__wasm_store_destroy(h.store);
    }
    sbx__wasm_module_destroy(m);
    return 0;
}

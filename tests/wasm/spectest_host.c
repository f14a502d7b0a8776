/* tests/wasm/spectest_host.c: the `spectest` module every script may import from: print
 * functions that do nothing, four immutable globals (666 / 666.6), a funcref table of 10
 * (max 20) and a memory of 1 page (max 2), as the reference interpreter defines them. */
#include <string.h>

#include "spectest.h"

static wasm_vtype t_i32[] = {WASM_I32}, t_i64[] = {WASM_I64}, t_f32[] = {WASM_F32},
                  t_f64[] = {WASM_F64}, t_i32_f32[] = {WASM_I32, WASM_F32},
                  t_f64_f64[] = {WASM_F64, WASM_F64};

static const struct {
    const char *name;
    struct wasm_functype type;
} prints[7] = {
    {"print", {0, 0, NULL}},
    {"print_i32", {1, 0, t_i32}},
    {"print_i64", {1, 0, t_i64}},
    {"print_f32", {1, 0, t_f32}},
    {"print_f64", {1, 0, t_f64}},
    {"print_i32_f32", {2, 0, t_i32_f32}},
    {"print_f64_f64", {2, 0, t_f64_f64}},
};

static int print_fn(struct wasm_call *call, void *user, const wasm_value *args, wasm_value *results)
{
    (void)call, (void)user, (void)args, (void)results;
    return 0;
}

static struct wasm_global *global(struct wasm_store *store, wasm_vtype type, wasm_value v)
{
    struct wasm_globaltype t = {.type = type, .is_mutable = false};
    return sbx__wasm_global_new(store, &t, v);
}

bool spectest_host_init(struct spectest_host *h, struct wasm_store *store)
{
    memset(h, 0, sizeof(*h));
    for (int i = 0; i < 7; i++) {
        h->print[i] = sbx__wasm_func_new_host(store, &prints[i].type, print_fn, NULL);
        if (!h->print[i])
            return false;
    }
    h->g_i32 = global(store, WASM_I32, (wasm_value){.i32 = 666});
    h->g_i64 = global(store, WASM_I64, (wasm_value){.i64 = 666});
    h->g_f32 = global(store, WASM_F32, (wasm_value){.f32 = 0x4426a666u});           /* 666.6f */
    h->g_f64 = global(store, WASM_F64, (wasm_value){.f64 = 0x4084d4cccccccccdull}); /* 666.6 */
    struct wasm_tabletype tt = {.elem_type = WASM_FUNCREF, .limits = {10, 20, true}};
    h->table = sbx__wasm_table_new(store, &tt, (wasm_value){.ref = NULL});
    struct wasm_tabletype tt64 = {
        .elem_type = WASM_FUNCREF, .limits = {10, 20, true}, .is64 = true};
    h->table64 = sbx__wasm_table_new(store, &tt64, (wasm_value){.ref = NULL});
    struct wasm_memtype mt = {.limits = {1, 2, true}};
    h->memory = sbx__wasm_memory_new(store, &mt);
    return h->g_i32 && h->g_i64 && h->g_f32 && h->g_f64 && h->table && h->table64 && h->memory;
}

static bool name_is(const char *name, size_t name_len, const char *want)
{
    return strlen(want) == name_len && memcmp(name, want, name_len) == 0;
}

bool spectest_host_lookup(const struct spectest_host *h, const char *name, size_t name_len,
                          struct wasm_extern *out)
{
    for (int i = 0; i < 7; i++) {
        if (name_is(name, name_len, prints[i].name)) {
            out->kind = WASM_EXTERN_FUNC;
            out->u.func = h->print[i];
            return true;
        }
    }
    const struct {
        const char *name;
        struct wasm_global *g;
    } globals[] = {{"global_i32", h->g_i32},
                   {"global_i64", h->g_i64},
                   {"global_f32", h->g_f32},
                   {"global_f64", h->g_f64}};
    for (int i = 0; i < 4; i++) {
        if (name_is(name, name_len, globals[i].name)) {
            out->kind = WASM_EXTERN_GLOBAL;
            out->u.global = globals[i].g;
            return true;
        }
    }
    if (name_is(name, name_len, "table") || name_is(name, name_len, "table64")) {
        out->kind = WASM_EXTERN_TABLE;
        out->u.table = name_len == 5 ? h->table : h->table64;
        return true;
    }
    if (name_is(name, name_len, "memory")) {
        out->kind = WASM_EXTERN_MEMORY;
        out->u.memory = h->memory;
        return true;
    }
    return false;
}

/* wasm/jit/sym.c: naming and resolving the symbols of compiled code (sym.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "wasm/jit/rt.h"
#include "wasm/jit/sym.h"

#define K_PREFIX  "sbx_k_"
#define RT_PREFIX "sbx_rt_"

/* Per kind: its name after "sbx_k_", whether an index follows. */
static const struct {
    const char *name;
    bool is_indexed;
} kinds[JIT_SYM_COUNT_] = {
    [JIT_SYM_INSTANCE] = {"instance", false},
    [JIT_SYM_JIT] = {"jit", false},
    [JIT_SYM_INTERRUPT] = {"interrupt", false},
    [JIT_SYM_STACK_LIMIT] = {"stack_limit", false},
    [JIT_SYM_FUNC] = {"func", true},
    [JIT_SYM_TYPE] = {"type", true},
    [JIT_SYM_MEM] = {"mem", true},
    [JIT_SYM_MEM_DATA] = {"mem_data", true},
    [JIT_SYM_TABLE] = {"table", true},
    [JIT_SYM_GLOBAL] = {"global", true},
    [JIT_SYM_RT] = {NULL, true},
};

static const struct {
    const char *name;
    const void *addr;
} rts[JIT_RT_COUNT_] = {
    [JIT_RT_TRAP] = {"trap", (const void *)sbx__jit_rt_trap},
    [JIT_RT_CALL] = {"call", (const void *)sbx__jit_rt_call},
    [JIT_RT_SIG_EQ] = {"sig_eq", (const void *)sbx__jit_rt_sig_eq},
    [JIT_RT_MEMORY_GROW] = {"memory_grow", (const void *)sbx__jit_rt_memory_grow},
    [JIT_RT_MEMORY_FILL] = {"memory_fill", (const void *)sbx__jit_rt_memory_fill},
    [JIT_RT_MEMORY_COPY] = {"memory_copy", (const void *)sbx__jit_rt_memory_copy},
    [JIT_RT_MEMORY_INIT] = {"memory_init", (const void *)sbx__jit_rt_memory_init},
    [JIT_RT_DATA_DROP] = {"data_drop", (const void *)sbx__jit_rt_data_drop},
    [JIT_RT_TABLE_GROW] = {"table_grow", (const void *)sbx__jit_rt_table_grow},
    [JIT_RT_TABLE_FILL] = {"table_fill", (const void *)sbx__jit_rt_table_fill},
    [JIT_RT_TABLE_COPY] = {"table_copy", (const void *)sbx__jit_rt_table_copy},
    [JIT_RT_TABLE_INIT] = {"table_init", (const void *)sbx__jit_rt_table_init},
    [JIT_RT_ELEM_DROP] = {"elem_drop", (const void *)sbx__jit_rt_elem_drop},
    [JIT_RT_MEMORY_GROW64] = {"memory_grow64", (const void *)sbx__wasm_memory_grow64},
    [JIT_RT_MEMORY_FILL64] = {"memory_fill64", (const void *)sbx__jit_rt_memory_fill64},
    [JIT_RT_MEMORY_COPY64] = {"memory_copy64", (const void *)sbx__jit_rt_memory_copy64},
    [JIT_RT_MEMORY_INIT64] = {"memory_init64", (const void *)sbx__jit_rt_memory_init64},
    [JIT_RT_THROW] = {"throw", (const void *)sbx__jit_rt_throw},
    [JIT_RT_THROW_REF] = {"throw_ref", (const void *)sbx__jit_rt_throw_ref},
    [JIT_RT_GC_STRUCT_NEW] = {"gc_struct_new", (const void *)sbx__jit_rt_gc_struct_new},
    [JIT_RT_GC_ARRAY_NEW] = {"gc_array_new", (const void *)sbx__jit_rt_gc_array_new},
    [JIT_RT_GC_ARRAY_NEW_FIXED] = {"gc_array_new_fixed",
                                   (const void *)sbx__jit_rt_gc_array_new_fixed},
    [JIT_RT_GC_ARRAY_NEW_SEG] = {"gc_array_new_seg", (const void *)sbx__jit_rt_gc_array_new_seg},
    [JIT_RT_GC_ARRAY_FILL] = {"gc_array_fill", (const void *)sbx__jit_rt_gc_array_fill},
    [JIT_RT_GC_ARRAY_COPY] = {"gc_array_copy", (const void *)sbx__jit_rt_gc_array_copy},
    [JIT_RT_GC_ARRAY_INIT] = {"gc_array_init", (const void *)sbx__jit_rt_gc_array_init},
    [JIT_RT_GC_TEST] = {"gc_test", (const void *)sbx__jit_rt_gc_test},
    [JIT_RT_GC_CONVERT] = {"gc_convert", (const void *)sbx__jit_rt_gc_convert},
    [JIT_RT_TRY_CALL] = {"try_call", (const void *)sbx__jit_rt_try_call},
    [JIT_RT_EXN_NEW] = {"exn_new", (const void *)sbx__jit_rt_exn_new},
    [JIT_RT_EXN_REF] = {"exn_ref", (const void *)sbx__jit_rt_exn_ref},
    [JIT_RT_EXN_IS] = {"exn_is", (const void *)sbx__jit_rt_exn_is},
    [JIT_RT_EXN_TAKE] = {"exn_take", (const void *)sbx__jit_rt_exn_take},
};

/* The libc/libm functions LLVM lowers some operations to (loop idioms become memset/memcpy;
 * float rounding without SSE4.1 becomes calls): taken by address, not looked up by name. */
static const struct {
    const char *name;
    const void *addr;
} libc[] = {
    {"memcpy", (const void *)memcpy},         {"memmove", (const void *)memmove},
    {"memset", (const void *)memset},         {"fmod", (const void *)fmod},
    {"fmodf", (const void *)fmodf},           {"roundeven", (const void *)roundeven},
    {"roundevenf", (const void *)roundevenf}, {"ceil", (const void *)ceil},
    {"ceilf", (const void *)ceilf},           {"floor", (const void *)floor},
    {"floorf", (const void *)floorf},         {"trunc", (const void *)trunc},
    {"truncf", (const void *)truncf},         {"nearbyint", (const void *)nearbyint},
    {"nearbyintf", (const void *)nearbyintf}, {"rint", (const void *)rint},
    {"rintf", (const void *)rintf},           {"sqrt", (const void *)sqrt},
    {"sqrtf", (const void *)sqrtf},
};

void sbx__jit_sym_name(char *buf, size_t len, enum jit_sym kind, uint32_t idx)
{
    if (kind == JIT_SYM_RT)
        snprintf(buf, len, RT_PREFIX "%s", idx < JIT_RT_COUNT_ ? rts[idx].name : "?");
    else if (kinds[kind].is_indexed)
        snprintf(buf, len, K_PREFIX "%s%u", kinds[kind].name, idx);
    else
        snprintf(buf, len, K_PREFIX "%s", kinds[kind].name);
}

bool sbx__jit_sym_index(const char *s, uint32_t *out)
{
    uint64_t v = 0;
    if (!*s || (s[0] == '0' && s[1]))
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || (v = v * 10 + (uint64_t)(*s - '0')) > UINT32_MAX)
            return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* The kind and index of an "sbx_k_" name's rest. */
static bool parse_k(const char *rest, enum jit_sym *kind, uint32_t *idx)
{
    for (int k = 0; k < JIT_SYM_RT; k++) {
        size_t n = strlen(kinds[k].name);
        if (strncmp(rest, kinds[k].name, n) != 0)
            continue;
        *kind = (enum jit_sym)k;
        *idx = 0;
        if (kinds[k].is_indexed ? sbx__jit_sym_index(rest + n, idx) : rest[n] == '\0')
            return true;
    }
    return false;
}

static bool resolve_k(enum jit_sym kind, uint32_t i, const struct wasm_instance *inst,
                      uintptr_t *addr)
{
    const struct wasm_module *m = inst->module;
    const void *p = NULL;
    switch (kind) {
    case JIT_SYM_INSTANCE:
        p = inst;
        break;
    case JIT_SYM_JIT:
        p = inst->store->jit;
        break;
    case JIT_SYM_INTERRUPT:
        p = &inst->store->is_interrupted;
        break;
    case JIT_SYM_STACK_LIMIT:
        p = &inst->store->jit->stack_limit;
        break;
    case JIT_SYM_FUNC:
        if (i >= m->func_count)
            return false;
        p = inst->funcs[i];
        break;
    case JIT_SYM_TYPE:
        if (i >= m->type_count)
            return false;
        p = (void *)m->rtts[i];
        break;
    case JIT_SYM_MEM:
    case JIT_SYM_MEM_DATA:
        if (i >= m->mem_count)
            return false;
        p = kind == JIT_SYM_MEM ? (const void *)inst->mems[i] : (const void *)inst->mems[i]->data;
        break;
    case JIT_SYM_TABLE:
        if (i >= m->table_count)
            return false;
        p = inst->tables[i];
        break;
    case JIT_SYM_GLOBAL:
        if (i >= m->global_count)
            return false;
        p = &inst->globals[i]->value;
        break;
    default:
        return false;
    }
    *addr = (uintptr_t)p;
    return true;
}

bool sbx__jit_sym_resolve(const char *name, const struct wasm_instance *inst, uintptr_t *addr)
{
    enum jit_sym kind;
    uint32_t idx;
    if (strncmp(name, K_PREFIX, strlen(K_PREFIX)) == 0)
        return parse_k(name + strlen(K_PREFIX), &kind, &idx) && resolve_k(kind, idx, inst, addr);
    for (size_t i = 0; i < JIT_RT_COUNT_; i++) {
        if (strncmp(name, RT_PREFIX, strlen(RT_PREFIX)) == 0 &&
            strcmp(name + strlen(RT_PREFIX), rts[i].name) == 0) {
            *addr = (uintptr_t)rts[i].addr;
            return true;
        }
    }
    for (size_t i = 0; i < sizeof(libc) / sizeof(libc[0]); i++) {
        if (strcmp(name, libc[i].name) == 0) {
            *addr = (uintptr_t)libc[i].addr;
            return true;
        }
    }
    return false;
}

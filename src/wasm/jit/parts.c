/* wasm/jit/parts.c: a module's compile as parts (part.h). Neither LLVM's pass pipeline nor its
 * code generation can be stopped midway, so a deadline, an abort or a store's destruction stops
 * a compile at its next function or phase: the parts keep every phase short. Two threads take
 * the parts in order; one part (a small module) runs on the calling thread alone and keeps its
 * functions internal, so that LLVM may inline them. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/jit/part.h"

/* Code bytes per part, per level: a phase of a part then takes about a second of CPU or less
 * (the full level costs 25-90 us of CPU per byte and phase, the large level a sixth of that:
 * docs/wasm.md, "Compile-cost bounds"). Modules under PART_FULL_BYTES are one part, as before. */
#define PART_FULL_BYTES  (64u << 10)
#define PART_LARGE_BYTES (256u << 10)
#define PART_STACK_BYTES (8u << 20) /* LLVM recurses deeply on large functions */

struct plan {
    struct sbx__jit_part *parts;
    uint32_t n;
    const struct jit_mod *proto; /* what every part shares */
};

/* Appends the part [first, end) at level. */
static void add_part(struct plan *p, const struct sbx__jit_level *level, uint32_t first,
                     uint32_t end)
{
    struct jit_mod *jm = &p->parts[p->n++].jm;
    *jm = *p->proto;
    jm->level = level;
    jm->def_first = first;
    jm->def_end = end;
}

/* Splits the functions that take level (all when huge_end is 0) into parts of at most budget
 * bytes of their code (a larger one when the parts would run out). */
/* Whether function i goes into a part at level: in the set (only), and of level's functions. */
static bool takes(const struct jit_mod *proto, const struct sbx__jit_level *level, uint32_t i)
{
    if (proto->only && !proto->only[i])
        return false;
    return !proto->huge_end || sbx__jit_level_of_func(proto->m, i, proto->huge_end) == level;
}

static void split_level(struct plan *p, const struct sbx__jit_level *level, uint64_t budget,
                        uint32_t max_parts)
{
    const struct wasm_module *m = p->proto->m;
    uint32_t first = 0;
    uint64_t total = 0, bytes = 0;
    for (uint32_t i = 0; i < m->func_def_count; i++)
        total += takes(p->proto, level, i) ? m->funcs[i].code_len : 0;
    if (total / max_parts + 1 > budget)
        budget = total / max_parts + 1;
    for (uint32_t i = 0; i < m->func_def_count; i++) {
        if (!takes(p->proto, level, i))
            continue;
        uint32_t len = m->funcs[i].code_len;
        if (bytes > 0 && bytes + len > budget) {
            add_part(p, level, first, i);
            first = i;
            bytes = 0;
        }
        bytes += len;
    }
    if (bytes > 0 || p->n == 0)
        add_part(p, level, first, m->func_def_count);
}

/* Sets up the parts of m (how many): a hot-only batch is one; a hot set (only, at the hot-set
 * level) is split as the full level is; a large module with huge functions is split by level
 * (level.h), each level into parts of its budget. */
static uint32_t plan_parts(struct sbx__jit_part *parts, const struct wasm_module *m,
                           bool is_guarded, const uint8_t *only,
                           const struct sbx__jit_level *only_level,
                           const struct sbx__jit_stop *stop)
{
    struct jit_mod proto = {
        .m = m,
        .only = only,
        .stop = stop,
        .huge_end = only ? 0 : sbx__jit_huge_end(m),
        .is_guarded = is_guarded && m->mem_count > 0, /* nothing can fault without memory */
    };
    struct plan p = {.parts = parts, .proto = &proto};
    if (only && !only_level) {
        add_part(&p, sbx__jit_level_of_batch(), 0, m->func_def_count);
    } else if (only) {
        split_level(&p, only_level, PART_FULL_BYTES, SBX__JIT_MAX_PARTS);
    } else if (proto.huge_end) {
        const struct sbx__jit_level *huge =
            sbx__jit_level_of_func(m, proto.huge_end - 1, proto.huge_end);
        split_level(&p, huge, PART_FULL_BYTES, SBX__JIT_MAX_PARTS / 4);
        split_level(&p, sbx__jit_level_of(m), PART_LARGE_BYTES, SBX__JIT_MAX_PARTS - p.n);
    } else {
        bool is_large = sbx__jit_code_bytes(m) >= SBX__JIT_LARGE_BYTES; /* level.h */
        split_level(&p, sbx__jit_level_of(m), is_large ? PART_LARGE_BYTES : PART_FULL_BYTES,
                    SBX__JIT_MAX_PARTS);
    }
    for (uint32_t i = 0; i < p.n; i++)
        parts[i].jm.is_whole = p.n == 1;
    return p.n;
}

struct runner {
    struct sbx__jit_part *parts;
    uint32_t n;
    atomic_uint next;
    _Atomic int failed; /* the first part's failure: the parts not started take it, unbuilt */
};

static void *run_some(void *arg)
{
    struct runner *r = arg;
    for (uint32_t i; (i = atomic_fetch_add(&r->next, 1)) < r->n;) {
        struct sbx__jit_part *p = &r->parts[i];
        int failed = atomic_load(&r->failed);
        if (failed != SBX_OK) {
            p->rc = (sbx_err)failed;
            continue;
        }
        sbx__jit_part_build(p);
        if (p->rc != SBX_OK) {
            int none = SBX_OK;
            atomic_compare_exchange_strong(&r->failed, &none, (int)p->rc);
        }
    }
    return NULL;
}

/* Builds the parts on this thread and, when there are several, a second one. */
static void run_parts(struct sbx__jit_part *parts, uint32_t n)
{
    struct runner r = {.parts = parts, .n = n};
    pthread_attr_t a;
    pthread_t t;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, PART_STACK_BYTES);
    bool is_threaded = n > 1 && pthread_create(&t, &a, run_some, &r) == 0;
    pthread_attr_destroy(&a);
    run_some(&r);
    if (is_threaded)
        pthread_join(t, NULL);
}

/* Copies the object code out of LLVM's buffer. */
static sbx_err take_object(LLVMMemoryBufferRef buf, struct sbx__jit_obj *o)
{
    size_t len = L(GetBufferSize)(buf);
    o->bytes = sbx__mallocn(len ? len : 1, 1);
    if (!o->bytes)
        return SBX_E_NOMEM;
    memcpy(o->bytes, L(GetBufferStart)(buf), len);
    o->len = len;
    return SBX_OK;
}

/* The first part's failure (its code and message), else SBX_OK with every object taken. */
static sbx_err collect(struct sbx__jit_part *parts, uint32_t n, struct sbx__jit_obj objs[],
                       char *err, size_t errlen)
{
    sbx_err rc = SBX_OK;
    for (uint32_t i = 0; i < n && rc == SBX_OK; i++) {
        if (parts[i].rc != SBX_OK) {
            rc = parts[i].rc;
            snprintf(err, errlen, "%s", parts[i].err);
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        if (rc == SBX_OK)
            rc = take_object(parts[i].jm.obj, &objs[i]);
        if (parts[i].jm.obj)
            L(DisposeMemoryBuffer)(parts[i].jm.obj);
    }
    if (rc != SBX_OK)
        sbx__jit_objs_free(objs, n);
    return rc;
}

static sbx_err compile(const struct wasm_module *m, bool is_guarded, const uint8_t *only,
                       const struct sbx__jit_level *only_level, const struct sbx__jit_stop *stop,
                       struct sbx__jit_obj objs[], uint32_t *nobjs, char *err, size_t errlen)
{
    sbx_err rc = sbx__jit_stop_check(stop);
    if (rc != SBX_OK)
        return rc;
    if (!sbx__jit_llvm_load(err, errlen))
        return SBX_E_UNAVAILABLE;
    if (sbx__jit_test_pause)
        sbx__jit_test_pause(1);
    struct sbx__jit_part *parts = sbx__calloc(SBX__JIT_MAX_PARTS, sizeof(*parts));
    if (!parts)
        return SBX_E_NOMEM;
    uint32_t n = plan_parts(parts, m, is_guarded, only, only_level, stop);
    run_parts(parts, n);
    rc = collect(parts, n, objs, err, errlen);
    if (rc == SBX_OK)
        *nobjs = n;
    sbx__free(parts);
    return rc;
}

sbx_err sbx__jit_compile_set(const struct wasm_module *m, bool is_guarded, const uint8_t *only,
                             const struct sbx__jit_level *only_level,
                             const struct sbx__jit_stop *stop, struct sbx__jit_obj objs[],
                             uint32_t *nobjs, char *err, size_t errlen)
{
    *nobjs = 0;
    if (!sbx__jit_use_begin(false)) {
        snprintf(err, errlen, "compiled tier: the process is exiting (sbx_shutdown)");
        return SBX_E_ABORTED;
    }
    sbx_err rc = compile(m, is_guarded, only, only_level, stop, objs, nobjs, err, errlen);
    sbx__jit_use_end(false);
    return rc;
}

sbx_err sbx__jit_compile(const struct wasm_module *m, bool is_guarded,
                         const struct sbx__jit_stop *stop, struct sbx__jit_obj objs[],
                         uint32_t *nobjs, char *err, size_t errlen)
{
    return sbx__jit_compile_set(m, is_guarded, NULL, NULL, stop, objs, nobjs, err, errlen);
}

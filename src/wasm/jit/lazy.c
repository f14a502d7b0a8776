/* wasm/jit/lazy.c: hot-only tier-up. Whole-module compilation costs LLVM seconds however
 * little of the module runs (docs/wasm.md, "Compile time"), so an AUTO store with a module of
 * SBX__JIT_HOT_ONLY_BYTES of code or more compiles only the functions that run, as V8's and WAMR's
 * lazy tiers do. Each interpreted call and back-edge of such a store counts for its function
 * (wasm_func.hits: the store is LAZY, which sends every call and back-edge to the interpreter's
 * slow path, so other stores pay nothing); a function reaching LAZY_HOT_HITS is queued for the
 * tier-up worker, which compiles batches of them into partial images (engine.c's only, at the large
 * level but for the loops level.h raises to the hot-set level; an OSR entry only for a function
 * that got hot in few calls) and publishes their entries. Calls from a batch to a function
 * outside it go through the runtime (sbx__jit_rt_call), which enters its native entry if a later
 * or earlier batch gave it one, and else interprets it: nothing is relinked, and each batch
 * stays independent of the rest. Each linked batch is kept for later stores and runs
 * (cache_hot.c).
 */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/jit/cache.h"
#include "wasm/jit/image.h"
#include "wasm/jit/level.h"
#include "wasm/jit/link.h"
#include "wasm/module.h"

/* Calls plus back-edges before a function is queued: enough that start-up code run a few
 * times stays in the interpreter or baseline code, few enough that a loop running for a few ms
 * is caught. 5000 since the baseline tier (base/base.h) runs what is only warm: on SQLite's
 * first run 1000 compiled more than its code saved (CPU 2.57 s, median of 3; 5000: 2.37 s;
 * 20000: 2.37 s), bzip2, Lua and minigzip within noise (docs/wasm.md, "Baseline tier"). */
#define LAZY_HOT_HITS 5000u
#define LAZY_QUEUED   SBX__WASM_LAZY_QUEUED
/* A function queued after fewer calls than this (of its LAZY_HOT_HITS) gets an OSR entry. */
#define LAZY_OSR_CALLS 16u

bool sbx__wasm_lazy_wants(const struct wasm_store *s)
{
    if (s->limits.tier != WASM_TIER_AUTO || s->limits.hot_only == WASM_HOT_OFF)
        return false;
    if (s->limits.hot_only == WASM_HOT_ON)
        return true;
    for (const struct wasm_instance *i = s->instances; i; i = i->next) {
        if (sbx__jit_code_bytes(i->module) >= SBX__JIT_HOT_ONLY_BYTES)
            return true;
    }
    return false;
}

void sbx__wasm_lazy_hit(struct wasm_store *s, struct wasm_func *f, bool is_call)
{
    if (atomic_load_explicit(&s->tierup.state, memory_order_relaxed) != WASM_TIERUP_LAZY ||
        !f->inst || f->inst->store != s || f->hits == LAZY_QUEUED)
        return;
    f->calls += is_call;
    if (++f->hits < LAZY_HOT_HITS)
        return;
    f->hits = LAZY_QUEUED;
    /* Few calls: a frame may loop for long, and only an OSR entry moves it. Otherwise its next
     * call enters native code, and the entry (a second translation of the whole function, the
     * larger half of its compile: docs/wasm.md) is not built. */
    bool wants_osr = f->calls < LAZY_OSR_CALLS;
    f->is_call_hot = !wants_osr;
    if (sbx__jit_func_fits(f->inst->module, f->def_index)) /* else it stays interpreted */
        sbx__wasm_tierup_queue(s, f->inst, f->def_index, wants_osr, f->calls <= 1);
}

void sbx__wasm_lazy_credit(struct wasm_store *s, struct wasm_func *f, uint32_t n)
{
    if (atomic_load_explicit(&s->tierup.state, memory_order_relaxed) != WASM_TIERUP_LAZY ||
        !f->inst || f->inst->store != s || f->hits == LAZY_QUEUED || n < 2)
        return;
    /* The last one is counted as usual (sbx__wasm_lazy_hit), which queues the function. */
    f->hits = f->hits + (n - 1) < LAZY_HOT_HITS - 1 ? f->hits + (n - 1) : LAZY_HOT_HITS - 1;
}

/* Compiles and links the batch at level (NULL: the batch level); false when it could not. */
static bool compile_batch(struct wasm_store *s, const struct wasm_lazy_item *items, uint32_t n,
                          const struct sbx__jit_level *level)
{
    struct wasm_instance *inst = items[0].inst;
    const struct wasm_module *m = inst->module;
    uint8_t *only = sbx__calloc(m->func_def_count, 1);
    if (!only)
        return false;
    for (uint32_t i = 0; i < n; i++)
        only[items[i].def] = items[i].wants_osr ? SBX__JIT_ONLY_OSR : SBX__JIT_ONLY_FUNC;
    char err[256];
    struct sbx__jit_obj objs[SBX__JIT_MAX_PARTS] = {0}; /* compile frees them on failure */
    uint32_t nobjs = 0;
    struct sbx__jit_stop stop = {.cancel = &s->tierup.cancel};
    sbx_err rc = sbx__jit_compile_set(m, sbx__jit_wants_guard(inst), only, level, &stop, objs,
                                      &nobjs, err, sizeof(err));
    sbx__free(only);
    if (rc == SBX_OK) {
        /* Counted before link_some publishes the entries: a thread that sees the code sees
         * the count (the tests read it once a function is native). */
        uint32_t n_hot = level ? n : 0;
        atomic_fetch_add(&s->tierup.lazy_compiled, n);
        atomic_fetch_add(&s->tierup.lazy_batches, 1);
        atomic_fetch_add(&s->tierup.lazy_hot_level, n_hot);
        rc = sbx__jit_link_some(objs, nobjs, inst, err, sizeof(err));
        if (rc != SBX_OK) {
            atomic_fetch_sub(&s->tierup.lazy_compiled, n);
            atomic_fetch_sub(&s->tierup.lazy_batches, 1);
            atomic_fetch_sub(&s->tierup.lazy_hot_level, n_hot);
        } else {
            sbx__wasm_jit_hot_add(inst, items, n, objs, nobjs); /* kept for later stores */
        }
    }
    sbx__jit_objs_free(objs, nobjs);
    return rc == SBX_OK;
}

/* A batch that fails (a function uses what the tier does not compile) is tried again in
 * halves, so that one such function leaves only itself interpreted. */
static bool compile_halves(struct wasm_store *s, const struct wasm_lazy_item *items, uint32_t n,
                           const struct sbx__jit_level *level)
{
    if (compile_batch(s, items, n, level))
        return true;
    if (n < 2 || atomic_load(&s->tierup.cancel) || sbx__jit_is_stopped() ||
        !sbx__jit_llvm_is_loaded())
        return false;
    bool a = compile_halves(s, items, n / 2, level);
    bool b = compile_halves(s, items + n / 2, n - n / 2, level);
    return a || b;
}

static uint32_t code_len(const struct wasm_lazy_item *it)
{
    return it->inst->module->funcs[it->def].code_len;
}

/* (is_one_call implies an OSR entry: fewer calls than LAZY_OSR_CALLS.) */
static bool is_hot_loop(const struct wasm_lazy_item *it)
{
    return it->is_one_call && code_len(it) <= SBX__JIT_LOOP_BYTES;
}

/* In a batch with a hot loop: whether it takes the hot-set level (level.h). */
static bool takes_hot_level(const struct wasm_lazy_item *it)
{
    return is_hot_loop(it) || (!it->wants_osr && code_len(it) <= SBX__JIT_LOOP_CALLEE_BYTES);
}

/* Copies items (of one instance) to out, those that take the hot-set level first; how many those
 * are (none in a batch without a loop hot in its first call, or of a large module). */
static uint32_t split_by_level(const struct wasm_lazy_item *items, uint32_t n,
                               struct wasm_lazy_item *out)
{
    bool has_loop = false;
    for (uint32_t i = 0; i < n; i++)
        has_loop |= is_hot_loop(&items[i]);
    if (!has_loop || !sbx__jit_batch_may_raise(items[0].inst->module))
        return 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (takes_hot_level(&items[i]))
            out[k++] = items[i];
    }
    uint32_t n_hot = k;
    for (uint32_t i = 0; i < n; i++) {
        if (!takes_hot_level(&items[i]))
            out[k++] = items[i];
    }
    return n_hot;
}

bool sbx__wasm_lazy_compile(struct wasm_store *s, const struct wasm_lazy_item *items, uint32_t n)
{
    struct wasm_lazy_item *sorted = n ? sbx__mallocn(n, sizeof(*sorted)) : NULL;
    uint32_t n_hot = sorted ? split_by_level(items, n, sorted) : 0;
    bool ok;
    if (!n_hot) {
        ok = compile_halves(s, items, n, NULL);
    } else { /* the loops first: their frames are running */
        bool a = compile_halves(s, sorted, n_hot, sbx__jit_level_of_hot_set());
        bool b = n_hot < n && compile_halves(s, sorted + n_hot, n - n_hot, NULL);
        ok = a || b;
    }
    sbx__free(sorted);
    return ok;
}

uint32_t sbx__wasm_store_lazy_compiled(struct wasm_store *s)
{
    return atomic_load(&s->tierup.lazy_compiled);
}

uint32_t sbx__wasm_store_lazy_batches(struct wasm_store *s)
{
    return atomic_load(&s->tierup.lazy_batches);
}

uint32_t sbx__wasm_store_lazy_hot_level(struct wasm_store *s)
{
    return atomic_load(&s->tierup.lazy_hot_level);
}

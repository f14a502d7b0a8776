/* wasm/interp_tier.c: the interpreter's side of metering and tier-up, behind the two calls its
 * dispatch loop makes on slow paths only: a wasm call once the store has native code, and a
 * loop back-edge that must poll (interrupt, fuel) or may move its frame to native code. On-
 * stack replacement: a back-edge of an interpreted frame whose loop has a native OSR entry
 * copies the locals (declaration order) and the loop's params to the free stack above the
 * frame; the native entry continues the loop and returns the function's results, and the
 * interpreter returns them as if the function had. */
#include <stdatomic.h>

#include "wasm/base/base.h"
#include "wasm/code.h"
#include "wasm/jit/jit.h"

/* The loop whose header is at word pos (loops are recorded in code order), or NULL. */
static const struct wasm_osr_loop *find(const struct wasm_osr *o, uint32_t pos)
{
    uint32_t lo = 0, hi = o->nloops;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (o->loops[mid].pos == pos)
            return &o->loops[mid];
        if (o->loops[mid].pos < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static uint64_t *pack(const struct wasm_osr *o, const struct wasm_osr_loop *lp, const uint64_t *fp,
                      uint64_t *buf)
{
    uint64_t *p = buf;
    for (uint32_t i = 0; i < o->nlocals; i++) {
        const uint64_t *s = fp + o->local_slot[i];
        *p++ = s[0];
        if (o->local_type[i] == WASM_V128)
            *p++ = s[1];
    }
    for (uint32_t i = 0; i < lp->param_slots; i++)
        *p++ = fp[lp->param_slot + i];
    return p;
}

bool sbx__wasm_osr_run(struct wasm_exec *ex, struct wasm_instance *inst,
                       const struct wasm_code *code, uint64_t *fp, uint32_t pos, uint32_t depth,
                       enum wasm_trap_kind *tk)
{
    const struct wasm_osr *o = code->osr;
    if (!sbx__wasm_jit_has_osr(ex->store, inst, code))
        return false; /* hot-only: counted, and compiled later when hot */
    const struct wasm_osr_loop *lp = o ? find(o, pos) : NULL;
    uint64_t *buf = fp + code->frame_slots; /* free: the frame's callees start above it too */
    if (!lp || (size_t)(ex->stack_end - buf) < o->buf_slots)
        return false;
    ex->depth = depth;
    ex->sp = pack(o, lp, fp, buf);
    if (ex->sp < buf + o->buf_slots)
        ex->sp = buf + o->buf_slots;
    if (!sbx__wasm_jit_osr(ex, inst, code, buf, lp->loop, tk))
        return false;
    for (uint32_t i = 0; *tk == WASM_TRAP_NONE && i < code->result_slots; i++)
        fp[i] = buf[i];
    return true;
}

/* Charges fuel and reports an interrupt. */
static enum wasm_trap_kind poll(struct wasm_store *store, uint32_t n)
{
    if (atomic_load_explicit(&store->is_interrupted, memory_order_relaxed))
        return WASM_TRAP_INTERRUPTED;
    if (store->is_metered) {
        if (store->fuel < n) {
            store->fuel = 0;
            return WASM_TRAP_FUEL_EXHAUSTED;
        }
        store->fuel -= n;
    }
    return WASM_TRAP_NONE;
}

enum wasm_trap_kind sbx__wasm_tier_poll(struct wasm_store *store, uint32_t fuel)
{
    return poll(store, fuel);
}

bool sbx__wasm_tier_base(struct wasm_store *s, struct wasm_instance *inst,
                         const struct wasm_code *code)
{
    return !s->is_metered && sbx__base_wanted(s) &&
           sbx__base_get(s, inst->funcs[code->func_index], code) != NULL;
}

enum wasm_tier_step sbx__wasm_tier_call(struct wasm_exec *ex, struct wasm_instance *cinst,
                                        const struct wasm_code *callee, uint64_t *nfp,
                                        uint32_t depth, enum wasm_trap_kind *tk)
{
    ex->depth = depth;
    ex->sp = nfp + callee->frame_slots;
    if (!sbx__wasm_jit_call_code(ex, cinst, callee, nfp, tk))
        return sbx__wasm_tier_base(ex->store, cinst, callee) ? WASM_TIER_BASE : WASM_TIER_STAY;
    return *tk == WASM_TRAP_NONE ? WASM_TIER_RAN : WASM_TIER_TRAP;
}

static enum wasm_tierup_state state_of(const struct wasm_store *store)
{
    return (enum wasm_tierup_state)atomic_load_explicit(&store->tierup.state, memory_order_relaxed);
}

enum wasm_tier_step sbx__wasm_tier_backedge(struct wasm_exec *ex, struct wasm_tier_frame *tf,
                                            struct wasm_instance *inst,
                                            const struct wasm_code *code, uint64_t *fp,
                                            const wasm_word *header, uint32_t fuel, uint32_t depth,
                                            enum wasm_trap_kind *tk)
{
    struct wasm_store *store = ex->store;
    *tk = poll(store, fuel);
    if (*tk != WASM_TRAP_NONE) {
        ex->trap.kind = *tk;
        ex->trap.message[0] = '\0';
        ex->trap_inst = inst;
        ex->trap_func = code->func_index;
        ex->has_trap_func = true;
        return WASM_TIER_TRAP;
    }
    /* A frame whose loop is known to have no entry is not offered again (the last one). */
    if (store->is_metered || !code->osr || (fp == tf->osr_off_fp && code == tf->osr_off_code) ||
        state_of(store) < WASM_TIERUP_NATIVE)
        return WASM_TIER_STAY;
    if (sbx__wasm_osr_run(ex, inst, code, fp, (uint32_t)(header - code->words), depth, tk))
        return *tk == WASM_TRAP_NONE ? WASM_TIER_RAN : WASM_TIER_TRAP;
    /* Hot-only: the back-edge was counted, and the function may get its entry later, unless it
     * was queued without one (lazy.c). */
    if (state_of(store) == WASM_TIERUP_LAZY && !inst->funcs[code->func_index]->is_call_hot)
        return WASM_TIER_STAY;
    tf->osr_off_fp = fp;
    tf->osr_off_code = code;
    return WASM_TIER_STAY;
}

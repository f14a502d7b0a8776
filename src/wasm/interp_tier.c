/* wasm/interp_osr.c: on-stack replacement, the interpreter's half (code.h). Once the store
 * has tiered up, a back-edge of an interpreted frame whose loop has a native OSR entry moves
 * the frame there: its locals (declaration order) and the loop's params are copied to the
 * free stack above the frame, the native entry continues the loop and returns the function's
 * results, and the interpreter returns them as if the function had. */
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

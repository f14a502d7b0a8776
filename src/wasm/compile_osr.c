/* wasm/compile_osr.c: what the translator records for on-stack replacement (code.h): the
 * loops an interpreted frame may leave for native code, and where the locals live. A loop
 * qualifies when nothing is on the operand stack below its params, what C compilers emit: then
 * the frame's state at its header is the locals and the params alone. */
#include "util/alloc.h"
#include "wasm/compile_impl.h"

static uint32_t slots_of(const wasm_vtype *types, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += sbx__wasm_type_slots(types[i]);
    return k;
}

void sbx__wasm_c_osr_loop(struct compiler *c, const struct cblock *b)
{
    if (b->height != 0 || c->has_failed)
        return;
    if (!sbx__wasm_c_grow(c, (void **)&c->osr_loops, &c->osr_cap, c->osr_count + 1,
                          sizeof(*c->osr_loops)))
        return;
    c->osr_loops[c->osr_count++] = (struct wasm_osr_loop){
        .pos = b->loop_pos,
        .loop = c->loop_seq - 1,
        .param_slot = b->base_slot,
        .param_slots = slots_of(b->ptypes, b->nparams),
    };
}

void sbx__wasm_osr_free(struct wasm_osr *osr)
{
    if (!osr)
        return;
    sbx__free(osr->loops);
    sbx__free(osr->local_slot);
    sbx__free(osr->local_type);
    sbx__free(osr);
}

void sbx__wasm_c_osr_finish(struct compiler *c, struct wasm_code *out)
{
    out->osr = NULL;
    if (c->osr_count == 0 || c->has_failed)
        return;
    struct wasm_osr *o = sbx__calloc(1, sizeof(*o));
    uint32_t n = c->local_count;
    if (o) {
        o->local_slot = sbx__mallocn(n ? n : 1, sizeof(uint32_t));
        o->local_type = sbx__mallocn(n ? n : 1, sizeof(*o->local_type));
    }
    if (!o || !o->local_slot || !o->local_type) {
        sbx__wasm_osr_free(o);
        sbx__wasm_c_fail(c, SBX_E_NOMEM, "out of memory");
        return;
    }
    uint32_t params = 0;
    for (uint32_t i = 0; i < c->osr_count; i++)
        params = c->osr_loops[i].param_slots > params ? c->osr_loops[i].param_slots : params;
    for (uint32_t i = 0; i < n; i++) {
        o->local_slot[i] = c->local_slot[i];
        o->local_type[i] = c->local_type[i];
    }
    o->nlocals = n;
    o->buf_slots = slots_of(c->local_type, n) + params;
    if (o->buf_slots < out->result_slots)
        o->buf_slots = out->result_slots;
    o->loops = c->osr_loops;
    o->nloops = c->osr_count;
    c->osr_loops = NULL;
    c->osr_count = c->osr_cap = 0;
    out->osr = o;
}

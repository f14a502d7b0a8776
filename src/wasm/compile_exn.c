/* wasm/compile_exn.c: translation of exception handling. A try_table becomes a block whose
 * body's words are recorded as a handler (struct wasm_handler, code.h); each catch clause gets
 * a landing pad before the body (jumped over when entered normally): the interpreter's
 * do_throw writes the caught values to the slots above the stack as it was at the try_table,
 * then goes on at the pad, which is an ordinary branch from those values to the clause's
 * label (moves, a loop's poll or a return). */
#include "wasm/compile_impl.h"

/* The clause's pad: its values pushed as the stack's top, then a branch to its label. */
static void emit_pad(struct compiler *c, const struct wasm_catch *k, struct wasm_hcatch *out)
{
    uint32_t sp = c->sp, slot_top = c->slot_top;
    struct cblock *b = sbx__wasm_c_label_at(c, k->label);
    sbx__wasm_c_label(c);
    out->kind = k->kind;
    out->tag = k->tag;
    out->pad = c->wlen;
    out->slot = c->slot_top;
    if (k->kind == WASM_CATCH || k->kind == WASM_CATCH_REF) {
        if (k->tag >= c->m->tag_count) {
            sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown tag");
            return;
        }
        const struct wasm_functype *t = &c->m->types[c->m->tag_types[k->tag]];
        for (uint32_t i = 0; i < t->param_count; i++)
            sbx__wasm_c_push(c, t->types[i]);
    }
    if (k->kind == WASM_CATCH_REF || k->kind == WASM_CATCH_ALL_REF)
        sbx__wasm_c_push(c, WASM_REF(0, WASM_HT_EXN));
    sbx__wasm_c_emit_br(c, b);
    c->sp = sp;
    c->slot_top = slot_top;
}

void sbx__wasm_c_try_table(struct compiler *c, const struct wasm_instr *in)
{
    if (c->is_dead) {
        sbx__wasm_c_block(c, B_BLOCK, in); /* counts the nesting only */
        return;
    }
    sbx__wasm_c_flush_top(c, c->sp);
    uint32_t first = c->ncatches;
    if (!sbx__wasm_c_grow(c, (void **)&c->catches, &c->catch_cap, first + in->count,
                          sizeof(*c->catches)) ||
        !sbx__wasm_c_grow(c, (void **)&c->handlers, &c->handler_cap, c->nhandlers + 1,
                          sizeof(*c->handlers)))
        return;
    uint32_t skip = 0;
    if (in->count) {
        sbx__wasm_c_op(c, IOP_br);
        skip = c->wlen;
        sbx__wasm_c_emit(c, 0);
    }
    const uint8_t *cursor = NULL;
    for (uint32_t i = 0; i < in->count && !c->has_failed; i++) {
        struct wasm_catch k = sbx__wasm_catch_next(in, &cursor);
        emit_pad(c, &k, &c->catches[first + i]);
    }
    if (in->count)
        sbx__wasm_c_patch(c, skip, c->wlen);
    sbx__wasm_c_block(c, B_BLOCK, in); /* a label: nothing fuses across the body's start */
    if (c->has_failed)
        return;
    c->ncatches = first + in->count;
    struct wasm_handler *h = &c->handlers[c->nhandlers++];
    h->start = c->wlen;
    h->end = c->wlen;
    h->first = first;
    h->count = in->count;
    c->bl[c->nbl - 1].try_idx = c->nhandlers;
}

/* At the try_table's end, its results flushed: the body ends here. */
void sbx__wasm_c_end_try(struct compiler *c, const struct cblock *b)
{
    c->handlers[b->try_idx - 1].end = c->wlen;
}

/* throw x: the tag's values in consecutive slots; throw_ref: the exnref's slot. */
void sbx__wasm_c_throw(struct compiler *c, const struct wasm_instr *in)
{
    if (c->is_dead)
        return;
    if (in->op == WASM_OP_THROW_REF) {
        struct centry e = sbx__wasm_c_pop(c);
        uint32_t slot = sbx__wasm_c_operand(c, &e);
        sbx__wasm_c_op(c, IOP_throw_ref);
        sbx__wasm_c_emit(c, slot);
        c->is_dead = true;
        return;
    }
    if (in->idx >= c->m->tag_count) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown tag");
        return;
    }
    uint32_t base = sbx__wasm_c_call_args(c, &c->m->types[c->m->tag_types[in->idx]]);
    sbx__wasm_c_op(c, IOP_throw);
    sbx__wasm_c_emit(c, in->idx);
    sbx__wasm_c_emit(c, base);
    c->is_dead = true;
}

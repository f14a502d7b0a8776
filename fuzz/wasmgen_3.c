/* fuzz/wasmgen_3.c: the WebAssembly 3.0 instructions of the generated bodies: tail calls,
 * exceptions (throw, try_table with catch and catch_all clauses), typed function references
 * (call_ref, ref.as_non_null, br_on_null), the 64-bit second memory (memory64 and multiple
 * memories: loads and stores with a memory index) and relaxed SIMD (every v128 -> v128 row of
 * the instruction table, with operands whose float lanes are finite: the deterministic profile
 * is the same in both tiers, NaN payloads are not). The module side (tags, memory 1, extended
 * constant globals) is in wasmgen.c. */
#include <string.h>

#include "wasm/opcodes.h"
#include "wasmgen_impl.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Relaxed SIMD rows of opcodes.h whose operands and result are all v128. */
struct relaxed_ops {
    uint16_t ids[32];
    uint32_t count;
};

static const struct relaxed_ops *relaxed_ops(void)
{
    static struct relaxed_ops t;
    static bool is_done;
    if (is_done) /* the fuzzer is single-threaded */
        return &t;
    for (uint16_t id = 0; id < WASM_OP_SPACE; id++) {
        const struct wasm_opinfo *info = &sbx__wasm_opinfo[id];
        const struct wasm_siginfo *sig = &sbx__wasm_siginfo[info->sig];
        bool is_v = info->text && info->feature == WASM_FEAT_RELAXED_SIMD &&
                    info->imm == WASM_IMM_NONE && info->sig != WASM_SIG_NONE &&
                    sig->result_count == 1 && sig->result == WASM_V128;
        for (uint32_t i = 0; is_v && i < sig->param_count; i++)
            is_v = sig->params[i] == WASM_V128;
        if (is_v && t.count < COUNT(t.ids))
            t.ids[t.count++] = id;
    }
    is_done = true;
    return &t;
}

/* A frame of the body whose labels a branch or a catch may name: depth d from the top. */
static const uint8_t *label_at(struct gen *g, uint32_t d, uint32_t *n)
{
    const struct frame *f = &g->ctrl[g->ctrl_count - 1 - d];
    *n = f->kind == 0x03 ? f->sig.param_count : f->sig.result_count;
    return f->kind == 0x03 ? f->sig.params : f->sig.results;
}

/* return_call / return_call_indirect to a function whose results are this one's. */
void gen3_tail_call(struct gen *g)
{
    const struct wgen_sig *self = &g->ctrl[0].sig;
    uint32_t f = gen_pick(g, g->func_count), tries = 0;
    while (tries++ < g->func_count &&
           (g->types[g->func_type[f]].result_count != self->result_count ||
            memcmp(g->types[g->func_type[f]].results, self->results, self->result_count)))
        f = (f + 1) % g->func_count;
    const struct wgen_sig *t = &g->types[g->func_type[f]];
    if (!gen3_is_conditional(g) || t->result_count != self->result_count ||
        memcmp(t->results, self->results, self->result_count))
        return;
    gen3_ensure(g, t->params, t->param_count);
    if (gen_pick(g, 3)) {
        gen3_op_idx(g, WASM_OP_RETURN_CALL, f);
    } else {
        gen3_const(g, WGEN_I32, gen_pick(g, g->table_min + 2));
        gen3_op_idx(g, WASM_OP_RETURN_CALL_INDIRECT, g->func_type[f]);
        buf_byte(g->code, 0x00);
    }
    gen3_unreachable(g);
}

/* throw of one of the module's tags, where it is conditional or inside a try_table. */
void gen3_throw(struct gen *g)
{
    uint8_t kind = g->ctrl[g->ctrl_count - 1].kind;
    if (kind != 0x04 && kind != 0x1f)
        return;
    uint32_t tag = gen_pick(g, WGEN_TAGS);
    const struct wgen_sig *t = &g->types[g->tag_type[tag]];
    gen3_ensure(g, t->params, t->param_count);
    gen3_op_idx(g, WASM_OP_THROW, tag);
    gen3_unreachable(g);
}

/* The clauses of a try_table about to open (the labels are the enclosing frames'): catch of a
 * tag whose values a label takes, or catch_all to a label that takes none. */
void gen3_clauses(struct gen *g, struct buf *out)
{
    uint8_t clause[3][3];
    uint32_t count = 0, want = gen_pick(g, 4);
    for (uint32_t i = 0; i < want; i++) {
        uint32_t d = gen_pick(g, g->ctrl_count), n;
        const uint8_t *types = label_at(g, d, &n);
        uint32_t tag = gen_pick(g, WGEN_TAGS);
        const struct wgen_sig *t = &g->types[g->tag_type[tag]];
        if (t->param_count == n && !memcmp(t->params, types, n) && count < 3)
            memcpy(clause[count++], (uint8_t[]){0x00, (uint8_t)tag, (uint8_t)d}, 3);
        else if (n == 0 && count < 3)
            memcpy(clause[count++], (uint8_t[]){0x02, 0, (uint8_t)d}, 3);
    }
    buf_uleb(out, count);
    for (uint32_t i = 0; i < count; i++) {
        buf_byte(out, clause[i][0]);
        if (clause[i][0] == 0x00)
            buf_uleb(out, clause[i][1]);
        buf_uleb(out, clause[i][2]);
    }
}

/* call_ref through ref.func (sometimes ref.as_non_null first); rarely a null reference in a
 * conditional arm, which traps. */
void gen3_call_ref(struct gen *g)
{
    uint32_t f = 1 + gen_pick(g, g->func_count - 1); /* exported, so declared */
    uint32_t type = g->func_type[f];
    const struct wgen_sig *t = &g->types[type];
    gen3_ensure(g, t->params, t->param_count);
    if (gen3_is_conditional(g) && !gen_pick(g, 16)) {
        buf_byte(g->code, WASM_OP_REF_NULL);
        buf_sleb(g->code, type);
    } else {
        gen3_op_idx(g, WASM_OP_REF_FUNC, f);
    }
    if (gen_pick(g, 2))
        gen3_op(g, WASM_OP_REF_AS_NON_NULL);
    gen3_op_idx(g, WASM_OP_CALL_REF, type);
    g->sp -= t->param_count;
    for (uint32_t i = 0; i < t->result_count; i++)
        gen3_push(g, t->results[i]);
}

/* br_on_null d with the label's values below a function reference, mostly not null; the
 * reference that falls through is dropped. */
void gen3_br_on_null(struct gen *g)
{
    uint32_t d = gen_pick(g, g->ctrl_count), n;
    const uint8_t *types = label_at(g, d, &n);
    gen3_ensure(g, types, n);
    if (gen_pick(g, 8)) {
        gen3_op_idx(g, WASM_OP_REF_FUNC, 1 + gen_pick(g, g->func_count - 1));
    } else {
        buf_byte(g->code, WASM_OP_REF_NULL);
        buf_byte(g->code, WGEN_FUNCREF);
    }
    gen3_op_idx(g, WASM_OP_BR_ON_NULL, d);
    gen3_op(g, WASM_OP_DROP);
}

/* A load or store of memory 1 (64-bit addresses): mostly in bounds, sometimes at its end. */
void gen3_memory64(struct gen *g)
{
    uint16_t id = gen3_memop(g, gen_pick(g, 3) != 0);
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[id];
    const struct wasm_siginfo *sig = &sbx__wasm_siginfo[info->sig];
    uint32_t c = gen_pick(g, 16);
    gen3_const(g, WGEN_I64,
               c < 12   ? gen_pick(g, 64)
               : c < 15 ? 65536 - gen_pick(g, 24)
                        : gen_bits(g, WGEN_I64));
    if (sig->result_count == 0) { /* a fresh value (a NaN canonical: loads may see its bits) */
        uint8_t type = sig->params[1];
        gen3_fresh(g, type);
        if (type == WGEN_F32 || type == WGEN_F64)
            gen3_canonicalise(g, type);
        g->sp--;
    }
    gen3_op(g, id);
    buf_uleb(g->code, gen_pick(g, info->arg + 1u) | 0x40u); /* a memory index follows */
    buf_uleb(g->code, 1);
    buf_uleb(g->code, gen_pick(g, 32) ? gen_pick(g, 40) : 0xfffffffffff0ull);
    if (sig->result_count)
        gen3_push(g, sig->result);
}

/* A relaxed SIMD instruction on v128 constants (finite float lanes: bit 30 of each 32-bit word
 * clear), then one 64-bit lane of the result. */
void gen3_relaxed(struct gen *g)
{
    const struct relaxed_ops *t = relaxed_ops();
    if (!t->count)
        return;
    uint16_t id = t->ids[gen_pick(g, t->count)];
    const struct wasm_siginfo *sig = &sbx__wasm_siginfo[sbx__wasm_opinfo[id].sig];
    for (uint32_t i = 0; i < sig->param_count; i++) {
        gen3_op(g, WASM_OP_V128_CONST);
        for (uint32_t w = 0; w < 4; w++) {
            uint32_t v = (uint32_t)gen_bits(g, WGEN_I32) & ~(1u << 30);
            buf_bytes(g->code, &v, 4); /* little-endian host */
        }
    }
    gen3_op(g, id);
    gen3_op(g, WASM_OP_I64X2_EXTRACT_LANE);
    buf_byte(g->code, (uint8_t)gen_pick(g, 2));
    gen3_push(g, WGEN_I64);
}

/* wasm/compile_mem.c: translation of the memory and table instructions the fast handlers do
 * not take: those on a memory other than a 32-bit memory 0 (multiple memories) or on a 64-bit
 * one (memory64), and those on a 64-bit table. An access to memory k != 0 is the plain
 * handler between mem_sel k and mem_sel0; a 64-bit address is checked in full by addr64 and
 * narrowed to the u32 the plain handler takes (no memory exceeds 4 GiB, memory.c); a 64-bit
 * table index or length is saturated to u32 by idx64 (no table reaches 2^32 - 1 elements). */
#include "wasm/compile_impl.h"
#include "wasm/opcodes.h"

static bool is_fast_memory(const struct compiler *c, uint32_t k)
{
    return k == 0 && !c->m->mems[0].is64;
}

uint32_t sbx__wasm_c_clamp64(struct compiler *c, const struct centry *e, uint32_t src)
{
    sbx__wasm_c_op(c, IOP_idx64);
    sbx__wasm_c_emit(c, e->slot); /* the entry's own slot: it is consumed, nothing reads it */
    sbx__wasm_c_emit(c, src);
    return e->slot;
}

/* A load or store on a memory the fast path does not take. */
static void emit_access(struct compiler *c, const struct wasm_instr *in)
{
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[in->op];
    const struct wasm_siginfo *sig = &sbx__wasm_siginfo[info->sig];
    uint32_t k = in->idx, n = sig->param_count, words[6];
    struct centry es[2];
    for (uint32_t i = n; i-- > 0;)
        es[i] = sbx__wasm_c_pop(c);
    for (uint32_t i = 0; i < n; i++)
        words[i] = sbx__wasm_c_operand(c, &es[i]);
    uint32_t offset = (uint32_t)in->offset; /* a 32-bit memory's: validated below 2^32 */
    if (c->m->mems[k].is64) {
        sbx__wasm_c_op(c, IOP_addr64);
        sbx__wasm_c_emit(c, es[0].slot);
        sbx__wasm_c_emit(c, words[0]);
        sbx__wasm_c_emit(c, k);
        sbx__wasm_c_emit(c, (uint32_t)in->offset);
        sbx__wasm_c_emit(c, (uint32_t)(in->offset >> 32));
        sbx__wasm_c_emit(c, 1u << info->arg);
        words[0] = es[0].slot;
        offset = 0;
    }
    uint32_t nw = n;
    words[nw++] = offset;
    if (info->imm == WASM_IMM_MEMARG_LANE)
        words[nw++] = in->lane;
    if (k != 0) {
        sbx__wasm_c_op(c, IOP_mem_sel);
        sbx__wasm_c_emit(c, k);
    }
    enum wasm_iop op = sbx__wasm_c_access_iop(in->op);
    if (sig->result_count) {
        sbx__wasm_c_result(c, op, sig->result, words, nw);
    } else {
        sbx__wasm_c_op(c, op);
        for (uint32_t i = 0; i < nw; i++)
            sbx__wasm_c_emit(c, words[i]);
    }
    if (k != 0)
        sbx__wasm_c_op(c, IOP_mem_sel0);
}

/* Pops n operands into their slots (deepest first). */
static void operands(struct compiler *c, uint32_t *out, uint32_t n)
{
    struct centry es[3];
    for (uint32_t i = n; i-- > 0;)
        es[i] = sbx__wasm_c_pop(c);
    for (uint32_t i = 0; i < n; i++)
        out[i] = sbx__wasm_c_operand(c, &es[i]);
}

static void emit_words(struct compiler *c, enum wasm_iop op, const uint32_t *w, uint32_t n)
{
    sbx__wasm_c_op(c, op);
    for (uint32_t i = 0; i < n; i++)
        sbx__wasm_c_emit(c, w[i]);
}

/* size, grow, fill, copy and init on a memory the fast handlers do not take. */
static void emit_bulk(struct compiler *c, const struct wasm_instr *in)
{
    uint32_t w[6];
    wasm_vtype at =
        c->m->mems[in->op == WASM_OP_MEMORY_INIT ? in->idx2 : in->idx].is64 ? WASM_I64 : WASM_I32;
    switch (in->op) {
    case WASM_OP_MEMORY_SIZE:
        w[0] = in->idx;
        sbx__wasm_c_result(c, IOP_memory_size_m, at, w, 1);
        return;
    case WASM_OP_MEMORY_GROW:
        operands(c, w, 1);
        w[1] = in->idx;
        sbx__wasm_c_result(c, IOP_memory_grow_m, at, w, 2);
        return;
    case WASM_OP_MEMORY_FILL: /* [d][val][n][mem] */
        operands(c, w, 3);
        w[3] = in->idx;
        emit_words(c, IOP_memory_fill_m, w, 4);
        return;
    case WASM_OP_MEMORY_COPY: /* [d][s][n][dst mem][src mem] */
        operands(c, w, 3);
        w[3] = in->idx;
        w[4] = in->idx2;
        emit_words(c, IOP_memory_copy_m, w, 5);
        return;
    default: /* MEMORY_INIT [seg][d][s][n][mem] */
        operands(c, w + 1, 3);
        w[0] = in->idx;
        w[4] = in->idx2;
        emit_words(c, IOP_memory_init_m, w, 5);
        return;
    }
}

bool sbx__wasm_c_mem_general(struct compiler *c, const struct wasm_instr *in)
{
    uint8_t imm = sbx__wasm_opinfo[in->op].imm;
    switch (imm) {
    case WASM_IMM_MEMARG:
    case WASM_IMM_MEMARG_LANE:
        if (is_fast_memory(c, in->idx))
            return false;
        emit_access(c, in);
        return true;
    case WASM_IMM_MEMIDX:
        if (is_fast_memory(c, in->idx))
            return false;
        emit_bulk(c, in);
        return true;
    case WASM_IMM_MEM_MEM:
        if (is_fast_memory(c, in->idx) && is_fast_memory(c, in->idx2))
            return false;
        emit_bulk(c, in);
        return true;
    case WASM_IMM_DATA_MEM:
        if (is_fast_memory(c, in->idx2))
            return false;
        emit_bulk(c, in);
        return true;
    default:
        return false;
    }
}

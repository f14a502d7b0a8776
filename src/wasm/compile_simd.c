/* wasm/compile_simd.c: translation of the 0xFD (fixed-width SIMD) instructions. They are all
 * driven by opcodes.h: the opcode's signature says what to pop and push, its immediate kind
 * what follows; the code is [h][dst if any][operands][immediates] (interp_simd.h). */
#include "wasm/compile_impl.h"
#include "wasm/opcodes.h"

/* Reads the opcode's immediates as code words; returns how many. */
static uint32_t simd_imms(struct compiler *c, uint8_t kind, uint32_t *imm)
{
    uint32_t n = 0;
    switch (kind) {
    case WASM_IMM_MEMARG:
    case WASM_IMM_MEMARG_LANE:
        sbx__wasm_c_u32(c); /* alignment: a hint only */
        imm[n++] = sbx__wasm_c_u32(c);
        if (kind == WASM_IMM_MEMARG)
            return n;
        __attribute__((fallthrough)); /* then the lane index byte */
    case WASM_IMM_LANE:
        imm[n++] = c->p < c->end ? *c->p++ : 0;
        return n;
    case WASM_IMM_V128:
    case WASM_IMM_SHUFFLE:
        if (c->end - c->p < 16) {
            sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "malformed SIMD immediate");
            return 0;
        }
        for (unsigned i = 0; i < 4; i++, c->p += 4)
            imm[n++] = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 |
                       (uint32_t)c->p[3] << 24;
        return n;
    default:
        return 0;
    }
}

bool sbx__wasm_c_simd(struct compiler *c, uint32_t code)
{
    if (code > 0xFF || !sbx__wasm_opinfo[WASM_OP_ID(0xFD, code)].text) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown SIMD opcode");
        return false;
    }
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[WASM_OP_ID(0xFD, code)];
    const struct wasm_siginfo *sig = &sbx__wasm_siginfo[info->sig];
    uint32_t words[8], n = sig->param_count;
    struct centry es[3];
    uint32_t ni = simd_imms(c, info->imm, words + n);
    for (uint32_t i = n; i-- > 0;)
        es[i] = sbx__wasm_c_pop(c);
    for (uint32_t i = 0; i < n; i++)
        words[i] = sbx__wasm_c_operand(c, &es[i]);
    enum wasm_iop op = (enum wasm_iop)(IOP_SIMD_BASE_ + code);
    if (sig->result_count) {
        sbx__wasm_c_result(c, op, sig->result, words, n + ni);
        return true;
    }
    sbx__wasm_c_op(c, op);
    for (uint32_t i = 0; i < n + ni; i++)
        sbx__wasm_c_emit(c, words[i]);
    return true;
}

/* wasm/jit/emit_convert.c: conversions (spec 4.3.4): casts, reinterpretations, sign
 * extension, the trapping float-to-int truncations (NaN: "invalid conversion to integer",
 * out of range: "integer overflow", bounds checked exactly in double) and the saturating
 * ones (LLVM's fptosi.sat/fptoui.sat have the spec's semantics). */
#include "wasm/jit/emit.h"

enum ckind {
    C_CAST = 1, /* an LLVM cast opcode */
    C_SEXT,     /* extendN_s: truncate to `bits`, sign-extend back */
    C_TRUNC,    /* trapping truncation, signed when code is LLVMFPToSI */
    C_SAT,      /* saturating truncation */
};

struct crow {
    uint16_t op;
    uint8_t kind;
    uint8_t dst;
    int code;      /* LLVMOpcode */
    unsigned bits; /* C_SEXT */
};

#define TRUNC_ROWS(P, K, I, F)                                                                     \
    {WASM_OP_##P##_F##F##_S, K, I, LLVMFPToSI, 0},                                                 \
    {                                                                                              \
        WASM_OP_##P##_F##F##_U, K, I, LLVMFPToUI, 0                                                \
    }

static const struct crow rows[] = {
    {WASM_OP_I32_WRAP_I64, C_CAST, WASM_I32, LLVMTrunc, 0},
    {WASM_OP_I64_EXTEND_I32_S, C_CAST, WASM_I64, LLVMSExt, 0},
    {WASM_OP_I64_EXTEND_I32_U, C_CAST, WASM_I64, LLVMZExt, 0},
    {WASM_OP_F32_CONVERT_I32_S, C_CAST, WASM_F32, LLVMSIToFP, 0},
    {WASM_OP_F32_CONVERT_I32_U, C_CAST, WASM_F32, LLVMUIToFP, 0},
    {WASM_OP_F32_CONVERT_I64_S, C_CAST, WASM_F32, LLVMSIToFP, 0},
    {WASM_OP_F32_CONVERT_I64_U, C_CAST, WASM_F32, LLVMUIToFP, 0},
    {WASM_OP_F64_CONVERT_I32_S, C_CAST, WASM_F64, LLVMSIToFP, 0},
    {WASM_OP_F64_CONVERT_I32_U, C_CAST, WASM_F64, LLVMUIToFP, 0},
    {WASM_OP_F64_CONVERT_I64_S, C_CAST, WASM_F64, LLVMSIToFP, 0},
    {WASM_OP_F64_CONVERT_I64_U, C_CAST, WASM_F64, LLVMUIToFP, 0},
    {WASM_OP_F32_DEMOTE_F64, C_CAST, WASM_F32, LLVMFPTrunc, 0},
    {WASM_OP_F64_PROMOTE_F32, C_CAST, WASM_F64, LLVMFPExt, 0},
    {WASM_OP_I32_REINTERPRET_F32, C_CAST, WASM_I32, LLVMBitCast, 0},
    {WASM_OP_I64_REINTERPRET_F64, C_CAST, WASM_I64, LLVMBitCast, 0},
    {WASM_OP_F32_REINTERPRET_I32, C_CAST, WASM_F32, LLVMBitCast, 0},
    {WASM_OP_F64_REINTERPRET_I64, C_CAST, WASM_F64, LLVMBitCast, 0},
    {WASM_OP_I32_EXTEND8_S, C_SEXT, WASM_I32, 0, 8},
    {WASM_OP_I32_EXTEND16_S, C_SEXT, WASM_I32, 0, 16},
    {WASM_OP_I64_EXTEND8_S, C_SEXT, WASM_I64, 0, 8},
    {WASM_OP_I64_EXTEND16_S, C_SEXT, WASM_I64, 0, 16},
    {WASM_OP_I64_EXTEND32_S, C_SEXT, WASM_I64, 0, 32},
    TRUNC_ROWS(I32_TRUNC, C_TRUNC, WASM_I32, 32),
    TRUNC_ROWS(I32_TRUNC, C_TRUNC, WASM_I32, 64),
    TRUNC_ROWS(I64_TRUNC, C_TRUNC, WASM_I64, 32),
    TRUNC_ROWS(I64_TRUNC, C_TRUNC, WASM_I64, 64),
    TRUNC_ROWS(I32_TRUNC_SAT, C_SAT, WASM_I32, 32),
    TRUNC_ROWS(I32_TRUNC_SAT, C_SAT, WASM_I32, 64),
    TRUNC_ROWS(I64_TRUNC_SAT, C_SAT, WASM_I64, 32),
    TRUNC_ROWS(I64_TRUNC_SAT, C_SAT, WASM_I64, 64),
};

/* The open interval of doubles whose truncation fits the integer type. */
static void trunc_bounds(uint8_t dst, bool is_signed, double *lo, double *hi)
{
    if (dst == WASM_I32) {
        *lo = is_signed ? -2147483649.0 : -1.0;
        *hi = is_signed ? 2147483648.0 : 4294967296.0;
    } else {
        *lo = is_signed ? -9223372036854777856.0 : -1.0; /* next double below -2^63 */
        *hi = is_signed ? 9223372036854775808.0 : 18446744073709551616.0;
    }
}

static LLVMValueRef emit_trunc(struct jit_func *f, const struct crow *r, LLVMValueRef a)
{
    struct jit_mod *jm = f->jm;
    sbx__jit_trap_if(f, L(BuildFCmp)(f->b, LLVMRealUNO, a, a, ""), WASM_TRAP_INVALID_CONVERSION);
    LLVMValueRef x = L(TypeOf)(a) == jm->t_f64 ? a : L(BuildFPExt)(f->b, a, jm->t_f64, "");
    double lo, hi;
    trunc_bounds(r->dst, r->code == LLVMFPToSI, &lo, &hi);
    LLVMValueRef in_lo = L(BuildFCmp)(f->b, LLVMRealOGT, x, L(ConstReal)(jm->t_f64, lo), "");
    LLVMValueRef in_hi = L(BuildFCmp)(f->b, LLVMRealOLT, x, L(ConstReal)(jm->t_f64, hi), "");
    LLVMValueRef ok = L(BuildAnd)(f->b, in_lo, in_hi, "");
    sbx__jit_trap_if(f, L(BuildNot)(f->b, ok, ""), WASM_TRAP_INT_OVERFLOW);
    return L(BuildCast)(f->b, (LLVMOpcode)r->code, a, sbx__jit_type(jm, r->dst), "");
}

static LLVMValueRef emit_row(struct jit_func *f, const struct crow *r, LLVMValueRef a)
{
    struct jit_mod *jm = f->jm;
    LLVMTypeRef dt = sbx__jit_type(jm, r->dst);
    switch (r->kind) {
    case C_CAST:
        if (r->code == LLVMFPTrunc && L(IsAFPExtInst)(a))
            a = sbx__jit_opaque(f, a); /* demote(promote x) must quiet a signalling NaN */
        return L(BuildCast)(f->b, (LLVMOpcode)r->code, a, dt, "");
    case C_SEXT: {
        LLVMValueRef n = L(BuildTrunc)(f->b, a, L(IntTypeInContext)(jm->ctx, r->bits), "");
        return L(BuildSExt)(f->b, n, dt, "");
    }
    case C_TRUNC:
        return emit_trunc(f, r, a);
    default: {
        LLVMTypeRef over[] = {dt, L(TypeOf)(a)};
        const char *name = r->code == LLVMFPToSI ? "llvm.fptosi.sat" : "llvm.fptoui.sat";
        return sbx__jit_intrinsic(f, name, over, 2, &a, 1);
    }
    }
}

bool sbx__jit_emit_convert(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    (void)ok;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (rows[i].op == in->op) {
            sbx__jit_push(f, emit_row(f, &rows[i], sbx__jit_pop(f)));
            return true;
        }
    }
    return false;
}

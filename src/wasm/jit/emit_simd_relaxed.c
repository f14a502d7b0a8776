/* wasm/jit/emit_simd_relaxed.c: relaxed SIMD (0xFD 0x100-0x113) under the spec's deterministic
 * profile, the interpreter's choices (opcodes.h): most instructions are their 2.0 twins
 * (sbx__wasm_relaxed_as, emitted as those), madd/nmadd multiply then add with two roundings
 * (plain fmul and fadd: LLVM fuses only llvm.fmuladd or fast-math, neither used here), and the
 * dots take their second operand as signed and saturate the i16 pair sums. */
#include "wasm/jit/emit_simd.h"

/* Pops c, b, a: a * b + c (nmadd: -a * b + c). */
static void madd(struct jit_func *f, enum simd_shape s, bool is_neg)
{
    LLVMValueRef c = sbx__jit_simd_pop(f, s), b = sbx__jit_simd_pop(f, s);
    LLVMValueRef a = sbx__jit_simd_pop(f, s);
    if (is_neg)
        a = L(BuildFNeg)(f->b, a, "");
    LLVMValueRef p = L(BuildBinOp)(f->b, LLVMFMul, a, b, "");
    sbx__jit_simd_push(f, L(BuildFAdd)(f->b, p, c, ""));
}

/* The i16x8 relaxed dot of a and b (i8x16): each lane the saturated sum of two products. */
static LLVMValueRef dot_i16(struct jit_func *f, LLVMValueRef a, LLVMValueRef b)
{
    struct jit_mod *jm = f->jm;
    LLVMTypeRef w = L(VectorType)(jm->t_i16, 16), h = sbx__jit_simd_type(jm, SH_I16);
    LLVMValueRef p =
        L(BuildBinOp)(f->b, LLVMMul, L(BuildSExt)(f->b, a, w, ""), L(BuildSExt)(f->b, b, w, ""),
                      ""); /* |a * b| <= 2^14: exact in i16 */
    static const unsigned even[8] = {0, 2, 4, 6, 8, 10, 12, 14},
                          odd[8] = {1, 3, 5, 7, 9, 11, 13, 15};
    LLVMValueRef args[2] = {sbx__jit_simd_shuffle(f, p, NULL, even, 8),
                            sbx__jit_simd_shuffle(f, p, NULL, odd, 8)};
    return sbx__jit_intrinsic(f, "llvm.sadd.sat", &h, 1, args, 2);
}

static void dot(struct jit_func *f, bool is_add)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef c = is_add ? sbx__jit_simd_pop(f, SH_I32) : NULL;
    LLVMValueRef b = sbx__jit_simd_pop(f, SH_I8), a = sbx__jit_simd_pop(f, SH_I8);
    LLVMValueRef d = dot_i16(f, a, b);
    if (!is_add) {
        sbx__jit_simd_push(f, d);
        return;
    }
    LLVMValueRef d32 = L(BuildSExt)(f->b, d, L(VectorType)(jm->t_i32, 8), "");
    static const unsigned even[4] = {0, 2, 4, 6}, odd[4] = {1, 3, 5, 7};
    LLVMValueRef sum = L(BuildAdd)(f->b, sbx__jit_simd_shuffle(f, d32, NULL, even, 4),
                                   sbx__jit_simd_shuffle(f, d32, NULL, odd, 4), "");
    sbx__jit_simd_push(f, L(BuildAdd)(f->b, sum, c, ""));
}

bool sbx__jit_simd_relaxed(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    *ok = true;
    switch (in->op) {
    case WASM_OP_F32X4_RELAXED_MADD:
    case WASM_OP_F32X4_RELAXED_NMADD:
        madd(f, SH_F32, in->op == WASM_OP_F32X4_RELAXED_NMADD);
        return true;
    case WASM_OP_F64X2_RELAXED_MADD:
    case WASM_OP_F64X2_RELAXED_NMADD:
        madd(f, SH_F64, in->op == WASM_OP_F64X2_RELAXED_NMADD);
        return true;
    case WASM_OP_I16X8_RELAXED_DOT_I8X16_I7X16_S:
    case WASM_OP_I32X4_RELAXED_DOT_I8X16_I7X16_ADD_S:
        dot(f, in->op == WASM_OP_I32X4_RELAXED_DOT_I8X16_I7X16_ADD_S);
        return true;
    default:
        return false;
    }
}

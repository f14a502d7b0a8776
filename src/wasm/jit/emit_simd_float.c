/* wasm/jit/emit_simd_float.c: float lane arithmetic and the lane conversions (spec 4.3.3-4.3.4
 * lifted to lanes). Floats are the hardware's, as in the interpreter; min/max propagate NaN
 * and order -0 below +0 (not LLVM's minnum), pmin/pmax are the spec's selects, the rounding
 * ops quiet a NaN as roundps does, trunc_sat is LLVM's fptosi.sat/fptoui.sat. A constant
 * operand goes through an empty asm, as the scalar ops' do (emit_numeric.c), so LLVM cannot
 * fold x - 0 or x * 1 into x and let a signalling NaN through unquieted. */
#include "wasm/jit/emit_simd.h"

enum fkind {
    F_BIN = 1, /* an LLVM binary opcode */
    F_CMP,     /* a float predicate, the mask in same-width integer lanes */
    F_UNARY,   /* a unary intrinsic */
    F_NEG,
    F_MINMAX,  /* code 0 = min, 1 = max */
    F_PMINMAX, /* code 0 = pmin, 1 = pmax */
};

struct frow {
    uint16_t op;
    uint8_t kind;
    uint8_t shape;
    int code;
    const char *intr;
};

#define FLOAT_ROWS(P, S)                                                                           \
    {WASM_OP_##P##_ADD, F_BIN, S, LLVMFAdd, NULL}, {WASM_OP_##P##_SUB, F_BIN, S, LLVMFSub, NULL},  \
        {WASM_OP_##P##_MUL, F_BIN, S, LLVMFMul, NULL},                                             \
        {WASM_OP_##P##_DIV, F_BIN, S, LLVMFDiv, NULL},                                             \
        {WASM_OP_##P##_EQ, F_CMP, S, LLVMRealOEQ, NULL},                                           \
        {WASM_OP_##P##_NE, F_CMP, S, LLVMRealUNE, NULL},                                           \
        {WASM_OP_##P##_LT, F_CMP, S, LLVMRealOLT, NULL},                                           \
        {WASM_OP_##P##_GT, F_CMP, S, LLVMRealOGT, NULL},                                           \
        {WASM_OP_##P##_LE, F_CMP, S, LLVMRealOLE, NULL},                                           \
        {WASM_OP_##P##_GE, F_CMP, S, LLVMRealOGE, NULL},                                           \
        {WASM_OP_##P##_ABS, F_UNARY, S, 0, "llvm.fabs"},                                           \
        {WASM_OP_##P##_SQRT, F_UNARY, S, 0, "llvm.sqrt"},                                          \
        {WASM_OP_##P##_CEIL, F_UNARY, S, 0, "llvm.ceil"},                                          \
        {WASM_OP_##P##_FLOOR, F_UNARY, S, 0, "llvm.floor"},                                        \
        {WASM_OP_##P##_TRUNC, F_UNARY, S, 0, "llvm.trunc"},                                        \
        {WASM_OP_##P##_NEAREST, F_UNARY, S, 0, "llvm.roundeven"},                                  \
        {WASM_OP_##P##_NEG, F_NEG, S, 0, NULL}, {WASM_OP_##P##_MIN, F_MINMAX, S, 0, NULL},         \
        {WASM_OP_##P##_MAX, F_MINMAX, S, 1, NULL}, {WASM_OP_##P##_PMIN, F_PMINMAX, S, 0, NULL},    \
    {                                                                                              \
        WASM_OP_##P##_PMAX, F_PMINMAX, S, 1, NULL                                                  \
    }

static const struct frow rows[] = {
    FLOAT_ROWS(F32X4, SH_F32),
    FLOAT_ROWS(F64X2, SH_F64),
};

/* Conversions: whole vectors, the low two lanes in, or two lanes out padded with zeros. */
enum cmode { C_WHOLE = 1, C_LOW, C_ZERO };

static const struct {
    uint16_t op;
    uint8_t src, dst, mode;
    int code; /* LLVMOpcode, or 0: a saturating intrinsic */
    const char *intr;
} convs[] = {
    {WASM_OP_F32X4_DEMOTE_F64X2_ZERO, SH_F64, SH_F32, C_ZERO, LLVMFPTrunc, NULL},
    {WASM_OP_F64X2_PROMOTE_LOW_F32X4, SH_F32, SH_F64, C_LOW, LLVMFPExt, NULL},
    {WASM_OP_I32X4_TRUNC_SAT_F32X4_S, SH_F32, SH_I32, C_WHOLE, 0, "llvm.fptosi.sat"},
    {WASM_OP_I32X4_TRUNC_SAT_F32X4_U, SH_F32, SH_I32, C_WHOLE, 0, "llvm.fptoui.sat"},
    {WASM_OP_F32X4_CONVERT_I32X4_S, SH_I32, SH_F32, C_WHOLE, LLVMSIToFP, NULL},
    {WASM_OP_F32X4_CONVERT_I32X4_U, SH_I32, SH_F32, C_WHOLE, LLVMUIToFP, NULL},
    {WASM_OP_I32X4_TRUNC_SAT_F64X2_S_ZERO, SH_F64, SH_I32, C_ZERO, 0, "llvm.fptosi.sat"},
    {WASM_OP_I32X4_TRUNC_SAT_F64X2_U_ZERO, SH_F64, SH_I32, C_ZERO, 0, "llvm.fptoui.sat"},
    {WASM_OP_F64X2_CONVERT_LOW_I32X4_S, SH_I32, SH_F64, C_LOW, LLVMSIToFP, NULL},
    {WASM_OP_F64X2_CONVERT_LOW_I32X4_U, SH_I32, SH_F64, C_LOW, LLVMUIToFP, NULL},
};

static const unsigned lanes0123[4] = {0, 1, 2, 3};

static bool emit_conv(struct jit_func *f, uint16_t op)
{
    size_t i = 0;
    while (i < sizeof(convs) / sizeof(convs[0]) && convs[i].op != op)
        i++;
    if (i == sizeof(convs) / sizeof(convs[0]))
        return false;
    enum simd_shape src = (enum simd_shape)convs[i].src, dst = (enum simd_shape)convs[i].dst;
    LLVMValueRef x = sbx__jit_simd_pop(f, src);
    if (convs[i].mode == C_LOW)
        x = sbx__jit_simd_shuffle(f, x, NULL, lanes0123, 2);
    if (convs[i].code == LLVMFPTrunc)
        x = sbx__jit_opaque(f, x); /* demote(promote x) must quiet a signalling NaN */
    unsigned n = convs[i].mode == C_WHOLE ? sbx__jit_simd_lanes(src) : 2;
    LLVMTypeRef t = L(VectorType)(sbx__jit_simd_lane(f->jm, dst), n);
    LLVMValueRef y;
    if (convs[i].intr) {
        LLVMTypeRef over[] = {t, L(TypeOf)(x)};
        y = sbx__jit_intrinsic(f, convs[i].intr, over, 2, &x, 1);
    } else {
        y = L(BuildCast)(f->b, (LLVMOpcode)convs[i].code, x, t, "");
    }
    if (convs[i].mode == C_ZERO)
        y = sbx__jit_simd_shuffle(f, y, L(ConstNull)(t), lanes0123, 4);
    sbx__jit_simd_push(f, y);
    return true;
}

static LLVMValueRef opaque_const(struct jit_func *f, LLVMValueRef v)
{
    return L(IsConstant)(v) ? sbx__jit_opaque(f, v) : v;
}

/* NaN in -> NaN out (a + b quiets it), equal values by their sign bits (min ORs them: -0
 * wins; max ANDs them: +0 wins), else the compare; lane by lane as the scalar op. */
static LLVMValueRef minmax(struct jit_func *f, enum simd_shape s, bool is_max, LLVMValueRef a,
                           LLVMValueRef b)
{
    enum simd_shape is = s == SH_F32 ? SH_I32 : SH_I64;
    LLVMValueRef is_nan = L(BuildFCmp)(f->b, LLVMRealUNO, a, b, "");
    LLVMValueRef is_eq = L(BuildFCmp)(f->b, LLVMRealOEQ, a, b, "");
    LLVMValueRef ai = sbx__jit_simd_as(f, a, is), bi = sbx__jit_simd_as(f, b, is);
    LLVMValueRef eq = is_max ? L(BuildAnd)(f->b, ai, bi, "") : L(BuildOr)(f->b, ai, bi, "");
    eq = sbx__jit_simd_as(f, eq, s);
    LLVMValueRef less = L(BuildFCmp)(f->b, is_max ? LLVMRealOGT : LLVMRealOLT, a, b, "");
    LLVMValueRef pick = L(BuildSelect)(f->b, less, a, b, "");
    pick = L(BuildSelect)(f->b, is_eq, eq, pick, "");
    return L(BuildSelect)(f->b, is_nan, L(BuildFAdd)(f->b, a, b, ""), pick, "");
}

static LLVMValueRef emit_binary(struct jit_func *f, const struct frow *r, LLVMValueRef a,
                                LLVMValueRef b)
{
    enum simd_shape s = (enum simd_shape)r->shape;
    switch (r->kind) {
    case F_BIN:
        return L(BuildBinOp)(f->b, (LLVMOpcode)r->code, opaque_const(f, a), opaque_const(f, b), "");
    case F_CMP: {
        LLVMTypeRef it = sbx__jit_simd_type(f->jm, s == SH_F32 ? SH_I32 : SH_I64);
        return L(BuildSExt)(f->b, L(BuildFCmp)(f->b, (LLVMRealPredicate)r->code, a, b, ""), it, "");
    }
    case F_MINMAX:
        return minmax(f, s, r->code != 0, opaque_const(f, a), opaque_const(f, b));
    default: { /* F_PMINMAX: pmin = b < a ? b : a, pmax = a < b ? b : a */
        LLVMValueRef lt = r->code ? L(BuildFCmp)(f->b, LLVMRealOLT, a, b, "")
                                  : L(BuildFCmp)(f->b, LLVMRealOLT, b, a, "");
        return L(BuildSelect)(f->b, lt, b, a, "");
    }
    }
}

bool sbx__jit_simd_float(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    (void)ok;
    const struct frow *r = NULL;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && !r; i++)
        r = rows[i].op == in->op ? &rows[i] : NULL;
    if (!r)
        return emit_conv(f, in->op);
    enum simd_shape s = (enum simd_shape)r->shape;
    if (r->kind == F_UNARY || r->kind == F_NEG) {
        LLVMValueRef a = sbx__jit_simd_pop(f, s);
        LLVMTypeRef t = L(TypeOf)(a);
        sbx__jit_simd_push(f, r->kind == F_NEG ? L(BuildFNeg)(f->b, a, "")
                                               : sbx__jit_intrinsic(f, r->intr, &t, 1, &a, 1));
        return true;
    }
    LLVMValueRef b = sbx__jit_simd_pop(f, s), a = sbx__jit_simd_pop(f, s);
    sbx__jit_simd_push(f, emit_binary(f, r, a, b));
    return true;
}

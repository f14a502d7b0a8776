/* wasm/jit/emit_simd_int.c: integer lane arithmetic (spec 4.3.2 lifted to lanes): wrapping
 * add/sub/mul, saturating add/sub, min/max, abs (INT_MIN stays INT_MIN), neg, popcnt, shifts
 * (count modulo the lane width), comparisons to all-ones masks, avgr_u, narrow (saturating),
 * extend, extmul, extadd_pairwise, dot and q15mulr_sat_s, each in wider lanes where the
 * spec's result needs them. One table row each. */
#include "wasm/jit/emit_simd.h"

enum ikind {
    I_BIN = 1, /* an LLVM binary opcode */
    I_INTR2,   /* a binary intrinsic (saturating ops, min/max) */
    I_CMP,     /* an integer predicate */
    I_SHIFT,   /* an LLVM shift opcode */
    I_ABS,
    I_NEG,
    I_POPCNT,
    I_NARROW, /* shape: the result's; code: signed */
    I_AVGR,
    I_EXTADD, /* shape: the result's; code: signed */
    I_Q15,
    I_EXTEND, /* shape: the result's; code: signed; hi: the high half */
    I_DOT,
    I_EXTMUL, /* as I_EXTEND */
};

struct irow {
    uint16_t op;
    uint8_t kind;
    uint8_t shape;
    uint8_t hi;
    int code;
    const char *intr;
};

#define CMP_ROWS(P, S)                                                                             \
    {WASM_OP_##P##_EQ, I_CMP, S, 0, LLVMIntEQ, NULL},                                              \
        {WASM_OP_##P##_NE, I_CMP, S, 0, LLVMIntNE, NULL},                                          \
        {WASM_OP_##P##_LT_S, I_CMP, S, 0, LLVMIntSLT, NULL},                                       \
        {WASM_OP_##P##_LT_U, I_CMP, S, 0, LLVMIntULT, NULL},                                       \
        {WASM_OP_##P##_GT_S, I_CMP, S, 0, LLVMIntSGT, NULL},                                       \
        {WASM_OP_##P##_GT_U, I_CMP, S, 0, LLVMIntUGT, NULL},                                       \
        {WASM_OP_##P##_LE_S, I_CMP, S, 0, LLVMIntSLE, NULL},                                       \
        {WASM_OP_##P##_LE_U, I_CMP, S, 0, LLVMIntULE, NULL},                                       \
        {WASM_OP_##P##_GE_S, I_CMP, S, 0, LLVMIntSGE, NULL},                                       \
    {                                                                                              \
        WASM_OP_##P##_GE_U, I_CMP, S, 0, LLVMIntUGE, NULL                                          \
    }

#define COMMON_ROWS(P, S)                                                                          \
    {WASM_OP_##P##_ADD, I_BIN, S, 0, LLVMAdd, NULL},                                               \
        {WASM_OP_##P##_SUB, I_BIN, S, 0, LLVMSub, NULL},                                           \
        {WASM_OP_##P##_SHL, I_SHIFT, S, 0, LLVMShl, NULL},                                         \
        {WASM_OP_##P##_SHR_S, I_SHIFT, S, 0, LLVMAShr, NULL},                                      \
        {WASM_OP_##P##_SHR_U, I_SHIFT, S, 0, LLVMLShr, NULL},                                      \
        {WASM_OP_##P##_ABS, I_ABS, S, 0, 0, NULL},                                                 \
    {                                                                                              \
        WASM_OP_##P##_NEG, I_NEG, S, 0, 0, NULL                                                    \
    }

#define SAT_ROWS(P, S)                                                                             \
    {WASM_OP_##P##_ADD_SAT_S, I_INTR2, S, 0, 0, "llvm.sadd.sat"},                                  \
        {WASM_OP_##P##_ADD_SAT_U, I_INTR2, S, 0, 0, "llvm.uadd.sat"},                              \
        {WASM_OP_##P##_SUB_SAT_S, I_INTR2, S, 0, 0, "llvm.ssub.sat"},                              \
        {WASM_OP_##P##_SUB_SAT_U, I_INTR2, S, 0, 0, "llvm.usub.sat"},                              \
    {                                                                                              \
        WASM_OP_##P##_AVGR_U, I_AVGR, S, 0, 0, NULL                                                \
    }

#define MINMAX_ROWS(P, S)                                                                          \
    {WASM_OP_##P##_MIN_S, I_INTR2, S, 0, 0, "llvm.smin"},                                          \
        {WASM_OP_##P##_MIN_U, I_INTR2, S, 0, 0, "llvm.umin"},                                      \
        {WASM_OP_##P##_MAX_S, I_INTR2, S, 0, 0, "llvm.smax"},                                      \
    {                                                                                              \
        WASM_OP_##P##_MAX_U, I_INTR2, S, 0, 0, "llvm.umax"                                         \
    }

/* P: the result's prefix, Q: the source's (I16X8 from I8X16). */
#define WIDEN_ROWS(P, Q, S)                                                                        \
    {WASM_OP_##P##_EXTEND_LOW_##Q##_S, I_EXTEND, S, 0, 1, NULL},                                   \
        {WASM_OP_##P##_EXTEND_HIGH_##Q##_S, I_EXTEND, S, 1, 1, NULL},                              \
        {WASM_OP_##P##_EXTEND_LOW_##Q##_U, I_EXTEND, S, 0, 0, NULL},                               \
        {WASM_OP_##P##_EXTEND_HIGH_##Q##_U, I_EXTEND, S, 1, 0, NULL},                              \
        {WASM_OP_##P##_EXTMUL_LOW_##Q##_S, I_EXTMUL, S, 0, 1, NULL},                               \
        {WASM_OP_##P##_EXTMUL_HIGH_##Q##_S, I_EXTMUL, S, 1, 1, NULL},                              \
        {WASM_OP_##P##_EXTMUL_LOW_##Q##_U, I_EXTMUL, S, 0, 0, NULL},                               \
    {                                                                                              \
        WASM_OP_##P##_EXTMUL_HIGH_##Q##_U, I_EXTMUL, S, 1, 0, NULL                                 \
    }

static const struct irow rows[] = {
    CMP_ROWS(I8X16, SH_I8),
    CMP_ROWS(I16X8, SH_I16),
    CMP_ROWS(I32X4, SH_I32),
    {WASM_OP_I64X2_EQ, I_CMP, SH_I64, 0, LLVMIntEQ, NULL},
    {WASM_OP_I64X2_NE, I_CMP, SH_I64, 0, LLVMIntNE, NULL},
    {WASM_OP_I64X2_LT_S, I_CMP, SH_I64, 0, LLVMIntSLT, NULL},
    {WASM_OP_I64X2_GT_S, I_CMP, SH_I64, 0, LLVMIntSGT, NULL},
    {WASM_OP_I64X2_LE_S, I_CMP, SH_I64, 0, LLVMIntSLE, NULL},
    {WASM_OP_I64X2_GE_S, I_CMP, SH_I64, 0, LLVMIntSGE, NULL},
    COMMON_ROWS(I8X16, SH_I8),
    COMMON_ROWS(I16X8, SH_I16),
    COMMON_ROWS(I32X4, SH_I32),
    COMMON_ROWS(I64X2, SH_I64),
    {WASM_OP_I16X8_MUL, I_BIN, SH_I16, 0, LLVMMul, NULL},
    {WASM_OP_I32X4_MUL, I_BIN, SH_I32, 0, LLVMMul, NULL},
    {WASM_OP_I64X2_MUL, I_BIN, SH_I64, 0, LLVMMul, NULL},
    SAT_ROWS(I8X16, SH_I8),
    SAT_ROWS(I16X8, SH_I16),
    MINMAX_ROWS(I8X16, SH_I8),
    MINMAX_ROWS(I16X8, SH_I16),
    MINMAX_ROWS(I32X4, SH_I32),
    {WASM_OP_I8X16_POPCNT, I_POPCNT, SH_I8, 0, 0, "llvm.ctpop"},
    {WASM_OP_I8X16_NARROW_I16X8_S, I_NARROW, SH_I8, 0, 1, NULL},
    {WASM_OP_I8X16_NARROW_I16X8_U, I_NARROW, SH_I8, 0, 0, NULL},
    {WASM_OP_I16X8_NARROW_I32X4_S, I_NARROW, SH_I16, 0, 1, NULL},
    {WASM_OP_I16X8_NARROW_I32X4_U, I_NARROW, SH_I16, 0, 0, NULL},
    {WASM_OP_I16X8_EXTADD_PAIRWISE_I8X16_S, I_EXTADD, SH_I16, 0, 1, NULL},
    {WASM_OP_I16X8_EXTADD_PAIRWISE_I8X16_U, I_EXTADD, SH_I16, 0, 0, NULL},
    {WASM_OP_I32X4_EXTADD_PAIRWISE_I16X8_S, I_EXTADD, SH_I32, 0, 1, NULL},
    {WASM_OP_I32X4_EXTADD_PAIRWISE_I16X8_U, I_EXTADD, SH_I32, 0, 0, NULL},
    {WASM_OP_I16X8_Q15MULR_SAT_S, I_Q15, SH_I16, 0, 0, NULL},
    {WASM_OP_I32X4_DOT_I16X8_S, I_DOT, SH_I32, 0, 0, NULL},
    WIDEN_ROWS(I16X8, I8X16, SH_I16),
    WIDEN_ROWS(I32X4, I16X8, SH_I32),
    WIDEN_ROWS(I64X2, I32X4, SH_I64),
};

static bool is_unary(uint8_t kind)
{
    return kind == I_ABS || kind == I_NEG || kind == I_POPCNT || kind == I_EXTADD ||
           kind == I_EXTEND;
}

/* n lanes of `bits` bits each holding v. */
static LLVMValueRef kvec(struct jit_mod *jm, unsigned bits, unsigned n, uint64_t v)
{
    LLVMValueRef k[16];
    for (unsigned i = 0; i < n; i++)
        k[i] = L(ConstInt)(L(IntTypeInContext)(jm->ctx, bits), v, 0);
    return L(ConstVector)(k, n);
}

static unsigned lane_bits(enum simd_shape s)
{
    return 128u / sbx__jit_simd_lanes(s);
}

/* The lanes [first, first + n) step `step` of v. */
static LLVMValueRef pick(struct jit_func *f, LLVMValueRef v, unsigned first, unsigned step,
                         unsigned n)
{
    unsigned idx[16];
    for (unsigned i = 0; i < n; i++)
        idx[i] = first + i * step;
    return sbx__jit_simd_shuffle(f, v, NULL, idx, n);
}

/* v's lanes as `bits`-bit lanes (same count), sign- or zero-extended. */
static LLVMValueRef widen(struct jit_func *f, LLVMValueRef v, bool is_signed, unsigned bits,
                          unsigned n)
{
    LLVMTypeRef t = L(VectorType)(L(IntTypeInContext)(f->jm->ctx, bits), n);
    return is_signed ? L(BuildSExt)(f->b, v, t, "") : L(BuildZExt)(f->b, v, t, "");
}

/* The low or high half of v (shape res - 1), widened to the result shape res. */
static LLVMValueRef half(struct jit_func *f, LLVMValueRef v, const struct irow *r)
{
    enum simd_shape res = (enum simd_shape)r->shape;
    unsigned n = sbx__jit_simd_lanes(res);
    return widen(f, pick(f, v, r->hi ? n : 0, 1, n), r->code != 0, lane_bits(res), n);
}

static LLVMValueRef intr(struct jit_func *f, const char *name, LLVMValueRef *args, unsigned n)
{
    LLVMTypeRef t = L(TypeOf)(args[0]);
    return sbx__jit_intrinsic(f, name, &t, 1, args, n);
}

/* a and b (each res + 1) concatenated, clamped to res's signed or unsigned range (the input is
 * signed either way), truncated. */
static LLVMValueRef narrow(struct jit_func *f, const struct irow *r, LLVMValueRef a, LLVMValueRef b)
{
    struct jit_mod *jm = f->jm;
    unsigned n = sbx__jit_simd_lanes((enum simd_shape)r->shape), bits = lane_bits(r->shape);
    unsigned idx[16];
    for (unsigned i = 0; i < n; i++)
        idx[i] = i;
    uint64_t lo = r->code ? 0 - (1ull << (bits - 1)) : 0;
    uint64_t hi = r->code ? (1ull << (bits - 1)) - 1 : (1ull << bits) - 1;
    LLVMValueRef args[] = {sbx__jit_simd_shuffle(f, a, b, idx, n), kvec(jm, 2 * bits, n, lo)};
    args[0] = intr(f, "llvm.smax", args, 2);
    args[1] = kvec(jm, 2 * bits, n, hi);
    return L(BuildTrunc)(f->b, intr(f, "llvm.smin", args, 2),
                         sbx__jit_simd_type(jm, (enum simd_shape)r->shape), "");
}

/* (a + b + 1) >> 1 in lanes twice as wide, so the sum cannot wrap. */
static LLVMValueRef avgr(struct jit_func *f, enum simd_shape s, LLVMValueRef a, LLVMValueRef b)
{
    unsigned n = sbx__jit_simd_lanes(s), bits = 2 * lane_bits(s);
    LLVMValueRef sum =
        L(BuildAdd)(f->b, widen(f, a, false, bits, n), widen(f, b, false, bits, n), "");
    sum = L(BuildAdd)(f->b, sum, kvec(f->jm, bits, n, 1), "");
    sum = L(BuildBinOp)(f->b, LLVMLShr, sum, kvec(f->jm, bits, n, 1), "");
    return L(BuildTrunc)(f->b, sum, sbx__jit_simd_type(f->jm, s), "");
}

/* (a * b + 0x4000) >> 15 in i32 lanes; only -32768 * -32768 leaves the i16 range (above). */
static LLVMValueRef q15mulr(struct jit_func *f, LLVMValueRef a, LLVMValueRef b)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef p =
        L(BuildBinOp)(f->b, LLVMMul, widen(f, a, true, 32, 8), widen(f, b, true, 32, 8), "");
    p = L(BuildAdd)(f->b, p, kvec(jm, 32, 8, 0x4000), "");
    LLVMValueRef args[] = {L(BuildBinOp)(f->b, LLVMAShr, p, kvec(jm, 32, 8, 15), ""),
                           kvec(jm, 32, 8, 0x7fff)};
    return L(BuildTrunc)(f->b, intr(f, "llvm.smin", args, 2), sbx__jit_simd_type(jm, SH_I16), "");
}

/* Adjacent lane pairs of v (res - 1), widened and added. */
static LLVMValueRef pairwise(struct jit_func *f, LLVMValueRef v, enum simd_shape res,
                             bool is_signed)
{
    unsigned n = sbx__jit_simd_lanes(res), bits = lane_bits(res);
    LLVMValueRef even = widen(f, pick(f, v, 0, 2, n), is_signed, bits, n);
    LLVMValueRef odd = widen(f, pick(f, v, 1, 2, n), is_signed, bits, n);
    return L(BuildAdd)(f->b, even, odd, "");
}

/* i32x4.dot_i16x8_s: the products in i32 lanes, adjacent pairs added (wrapping). */
static LLVMValueRef dot(struct jit_func *f, LLVMValueRef a, LLVMValueRef b)
{
    LLVMValueRef p =
        L(BuildBinOp)(f->b, LLVMMul, widen(f, a, true, 32, 8), widen(f, b, true, 32, 8), "");
    return L(BuildAdd)(f->b, pick(f, p, 0, 2, 4), pick(f, p, 1, 2, 4), "");
}

/* The count modulo the lane width, in every lane. */
static LLVMValueRef shift_count(struct jit_func *f, LLVMValueRef c, enum simd_shape s)
{
    struct jit_mod *jm = f->jm;
    c = L(BuildAnd)(f->b, c, sbx__jit_i32(jm, lane_bits(s) - 1), "");
    LLVMTypeRef lt = sbx__jit_simd_lane(jm, s);
    c = s == SH_I64   ? L(BuildZExt)(f->b, c, lt, "")
        : s == SH_I32 ? c
                      : L(BuildTrunc)(f->b, c, lt, "");
    return sbx__jit_simd_splat(f, c, s);
}

static LLVMValueRef emit_unary(struct jit_func *f, const struct irow *r, LLVMValueRef a)
{
    enum simd_shape s = (enum simd_shape)r->shape;
    switch (r->kind) {
    case I_ABS: {
        LLVMValueRef args[] = {a, L(ConstInt)(f->jm->t_i1, 0, 0)}; /* INT_MIN is defined */
        return intr(f, "llvm.abs", args, 2);
    }
    case I_NEG:
        return L(BuildBinOp)(f->b, LLVMSub, L(ConstNull)(L(TypeOf)(a)), a, "");
    case I_POPCNT:
        return intr(f, r->intr, &a, 1);
    case I_EXTADD:
        return pairwise(f, a, s, r->code != 0);
    default: /* I_EXTEND */
        return half(f, a, r);
    }
}

static LLVMValueRef emit_binary(struct jit_func *f, const struct irow *r, LLVMValueRef a,
                                LLVMValueRef b)
{
    enum simd_shape s = (enum simd_shape)r->shape;
    switch (r->kind) {
    case I_BIN:
        return L(BuildBinOp)(f->b, (LLVMOpcode)r->code, a, b, "");
    case I_INTR2: {
        LLVMValueRef args[] = {a, b};
        return intr(f, r->intr, args, 2);
    }
    case I_CMP:
        return L(BuildSExt)(f->b, L(BuildICmp)(f->b, (LLVMIntPredicate)r->code, a, b, ""),
                            sbx__jit_simd_type(f->jm, s), "");
    case I_NARROW:
        return narrow(f, r, a, b);
    case I_AVGR:
        return avgr(f, s, a, b);
    case I_Q15:
        return q15mulr(f, a, b);
    case I_DOT:
        return dot(f, a, b);
    default: /* I_EXTMUL */
        return L(BuildBinOp)(f->b, LLVMMul, half(f, a, r), half(f, b, r), "");
    }
}

/* The operands' shape: the result's, or the narrower source of widening rows. */
static enum simd_shape operand_shape(const struct irow *r)
{
    bool is_widening =
        r->kind == I_EXTADD || r->kind == I_EXTEND || r->kind == I_EXTMUL || r->kind == I_DOT;
    bool is_narrowing = r->kind == I_NARROW;
    return (enum simd_shape)(r->shape + (is_narrowing ? 1 : 0) - (is_widening ? 1 : 0));
}

bool sbx__jit_simd_int(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    (void)ok;
    const struct irow *r = NULL;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && !r; i++)
        r = rows[i].op == in->op ? &rows[i] : NULL;
    if (!r)
        return false;
    enum simd_shape s = operand_shape(r);
    if (r->kind == I_SHIFT) {
        LLVMValueRef c = shift_count(f, sbx__jit_pop(f), s);
        LLVMValueRef a = sbx__jit_simd_pop(f, s);
        sbx__jit_simd_push(f, L(BuildBinOp)(f->b, (LLVMOpcode)r->code, a, c, ""));
    } else if (is_unary(r->kind)) {
        sbx__jit_simd_push(f, emit_unary(f, r, sbx__jit_simd_pop(f, s)));
    } else {
        LLVMValueRef b = sbx__jit_simd_pop(f, s), a = sbx__jit_simd_pop(f, s);
        sbx__jit_simd_push(f, emit_binary(f, r, a, b));
    }
    return true;
}

/* wasm/jit/emit_simd.c: the 0xFD instructions' entry and shared helpers (emit_simd.h), and the
 * family that moves lanes: v128.const, shuffle, swizzle (an index past 15 gives 0), splat,
 * extract and replace, the bitwise ops, any_true, all_true and bitmask. */
#include "wasm/jit/emit_simd.h"

static const struct {
    uint8_t lanes;
    uint8_t bits;
    bool is_float;
} shapes[] = {
    [SH_I8] = {16, 8, false},  [SH_I16] = {8, 16, false}, [SH_I32] = {4, 32, false},
    [SH_I64] = {2, 64, false}, [SH_F32] = {4, 32, true},  [SH_F64] = {2, 64, true},
};

unsigned sbx__jit_simd_lanes(enum simd_shape s)
{
    return shapes[s].lanes;
}

LLVMTypeRef sbx__jit_simd_lane(struct jit_mod *jm, enum simd_shape s)
{
    if (shapes[s].is_float)
        return s == SH_F32 ? jm->t_f32 : jm->t_f64;
    return L(IntTypeInContext)(jm->ctx, shapes[s].bits);
}

LLVMTypeRef sbx__jit_simd_type(struct jit_mod *jm, enum simd_shape s)
{
    return L(VectorType)(sbx__jit_simd_lane(jm, s), shapes[s].lanes);
}

enum simd_shape sbx__jit_simd_int_shape(uint32_t bytes)
{
    return bytes == 1 ? SH_I8 : bytes == 2 ? SH_I16 : bytes == 4 ? SH_I32 : SH_I64;
}

LLVMValueRef sbx__jit_simd_as(struct jit_func *f, LLVMValueRef v, enum simd_shape s)
{
    return L(BuildBitCast)(f->b, v, sbx__jit_simd_type(f->jm, s), "");
}

LLVMValueRef sbx__jit_simd_v128(struct jit_func *f, LLVMValueRef v)
{
    return L(BuildBitCast)(f->b, v, sbx__jit_type(f->jm, WASM_V128), "");
}

LLVMValueRef sbx__jit_simd_pop(struct jit_func *f, enum simd_shape s)
{
    return sbx__jit_simd_as(f, sbx__jit_pop(f), s);
}

void sbx__jit_simd_push(struct jit_func *f, LLVMValueRef v)
{
    sbx__jit_push(f, sbx__jit_simd_v128(f, v));
}

LLVMValueRef sbx__jit_simd_shuffle(struct jit_func *f, LLVMValueRef a, LLVMValueRef b,
                                   const unsigned *idx, unsigned n)
{
    LLVMValueRef k[32];
    for (unsigned i = 0; i < n; i++)
        k[i] = sbx__jit_i32(f->jm, idx[i]);
    LLVMValueRef mask = L(ConstVector)(k, n);
    return L(BuildShuffleVector)(f->b, a, b ? b : L(GetUndef)(L(TypeOf)(a)), mask, "");
}

LLVMValueRef sbx__jit_simd_splat(struct jit_func *f, LLVMValueRef x, enum simd_shape s)
{
    static const unsigned zeros[16] = {0};
    LLVMValueRef v = L(BuildInsertElement)(f->b, L(GetUndef)(sbx__jit_simd_type(f->jm, s)), x,
                                           sbx__jit_i32(f->jm, 0), "");
    return sbx__jit_simd_shuffle(f, v, NULL, zeros, shapes[s].lanes);
}

/* The 16 immediate bytes as two little-endian i64 lanes (a NaN's payload is kept). */
static LLVMValueRef v128_const(struct jit_func *f, const uint8_t *bytes)
{
    LLVMValueRef half[2];
    for (unsigned h = 0; h < 2; h++) {
        uint64_t v = 0;
        for (unsigned i = 0; i < 8; i++)
            v |= (uint64_t)bytes[8 * h + i] << (8 * i);
        half[h] = sbx__jit_i64(f->jm, v);
    }
    return L(ConstVector)(half, 2);
}

static void op_shuffle(struct jit_func *f, const struct wasm_instr *in)
{
    unsigned idx[16];
    for (unsigned i = 0; i < 16; i++)
        idx[i] = in->bytes[i] & 31; /* validated < 32 */
    LLVMValueRef b = sbx__jit_simd_pop(f, SH_I8), a = sbx__jit_simd_pop(f, SH_I8);
    sbx__jit_simd_push(f, sbx__jit_simd_shuffle(f, a, b, idx, 16));
}

/* r[i] = idx[i] < 16 ? a[idx[i]] : 0, lane by lane (the index is masked before use, so no
 * lane is read out of range). */
static void op_swizzle(struct jit_func *f)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef idx = sbx__jit_simd_pop(f, SH_I8), a = sbx__jit_simd_pop(f, SH_I8);
    LLVMValueRef r = L(ConstNull)(sbx__jit_simd_type(jm, SH_I8));
    LLVMValueRef k15 = L(ConstInt)(jm->t_i8, 15, 0), k16 = L(ConstInt)(jm->t_i8, 16, 0);
    for (unsigned i = 0; i < 16; i++) {
        LLVMValueRef j = L(BuildExtractElement)(f->b, idx, sbx__jit_i32(jm, i), "");
        LLVMValueRef x = L(BuildExtractElement)(f->b, a, L(BuildAnd)(f->b, j, k15, ""), "");
        LLVMValueRef in_range = L(BuildICmp)(f->b, LLVMIntULT, j, k16, "");
        x = L(BuildSelect)(f->b, in_range, x, L(ConstNull)(jm->t_i8), "");
        r = L(BuildInsertElement)(f->b, r, x, sbx__jit_i32(jm, i), "");
    }
    sbx__jit_simd_push(f, r);
}

/* Lane ops: the shape, and for extracts whether the lane is sign-extended to i32. */
static const struct {
    uint16_t op;
    uint8_t shape;
    uint8_t is_signed;
} lane_ops[] = {
    {WASM_OP_I8X16_SPLAT, SH_I8, 0},           {WASM_OP_I16X8_SPLAT, SH_I16, 0},
    {WASM_OP_I32X4_SPLAT, SH_I32, 0},          {WASM_OP_I64X2_SPLAT, SH_I64, 0},
    {WASM_OP_F32X4_SPLAT, SH_F32, 0},          {WASM_OP_F64X2_SPLAT, SH_F64, 0},
    {WASM_OP_I8X16_EXTRACT_LANE_S, SH_I8, 1},  {WASM_OP_I8X16_EXTRACT_LANE_U, SH_I8, 0},
    {WASM_OP_I16X8_EXTRACT_LANE_S, SH_I16, 1}, {WASM_OP_I16X8_EXTRACT_LANE_U, SH_I16, 0},
    {WASM_OP_I32X4_EXTRACT_LANE, SH_I32, 0},   {WASM_OP_I64X2_EXTRACT_LANE, SH_I64, 0},
    {WASM_OP_F32X4_EXTRACT_LANE, SH_F32, 0},   {WASM_OP_F64X2_EXTRACT_LANE, SH_F64, 0},
    {WASM_OP_I8X16_REPLACE_LANE, SH_I8, 0},    {WASM_OP_I16X8_REPLACE_LANE, SH_I16, 0},
    {WASM_OP_I32X4_REPLACE_LANE, SH_I32, 0},   {WASM_OP_I64X2_REPLACE_LANE, SH_I64, 0},
    {WASM_OP_F32X4_REPLACE_LANE, SH_F32, 0},   {WASM_OP_F64X2_REPLACE_LANE, SH_F64, 0},
};

/* i8 and i16 lanes travel as i32 scalars. */
static LLVMValueRef narrow_scalar(struct jit_func *f, LLVMValueRef x, enum simd_shape s)
{
    return s <= SH_I16 ? L(BuildTrunc)(f->b, x, sbx__jit_simd_lane(f->jm, s), "") : x;
}

static bool op_lane(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    size_t i = 0;
    while (i < sizeof(lane_ops) / sizeof(lane_ops[0]) && lane_ops[i].op != in->op)
        i++;
    if (i == sizeof(lane_ops) / sizeof(lane_ops[0]))
        return false;
    enum simd_shape s = (enum simd_shape)lane_ops[i].shape;
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[in->op];
    LLVMValueRef lane = sbx__jit_i32(jm, in->lane);
    if (info->imm != WASM_IMM_LANE) { /* splat */
        sbx__jit_simd_push(f, sbx__jit_simd_splat(f, narrow_scalar(f, sbx__jit_pop(f), s), s));
    } else if (sbx__wasm_siginfo[info->sig].param_count == 1) { /* extract */
        LLVMValueRef x = L(BuildExtractElement)(f->b, sbx__jit_simd_pop(f, s), lane, "");
        if (s <= SH_I16)
            x = lane_ops[i].is_signed ? L(BuildSExt)(f->b, x, jm->t_i32, "")
                                      : L(BuildZExt)(f->b, x, jm->t_i32, "");
        sbx__jit_push(f, x);
    } else { /* replace */
        LLVMValueRef x = narrow_scalar(f, sbx__jit_pop(f), s);
        LLVMValueRef v = sbx__jit_simd_pop(f, s);
        sbx__jit_simd_push(f, L(BuildInsertElement)(f->b, v, x, lane, ""));
    }
    return true;
}

static LLVMValueRef bitcast_int(struct jit_func *f, LLVMValueRef v, unsigned bits)
{
    return L(BuildBitCast)(f->b, v, L(IntTypeInContext)(f->jm->ctx, bits), "");
}

static LLVMValueRef to_i32(struct jit_func *f, LLVMValueRef v)
{
    return L(BuildZExt)(f->b, v, f->jm->t_i32, "");
}

/* all_true (every lane non-zero) and bitmask (the lanes' sign bits): an <n x i1> compare read
 * as an n-bit integer. */
static const struct {
    uint16_t op;
    uint8_t shape;
    uint8_t is_bitmask;
} reduce_ops[] = {
    {WASM_OP_I8X16_ALL_TRUE, SH_I8, 0},  {WASM_OP_I16X8_ALL_TRUE, SH_I16, 0},
    {WASM_OP_I32X4_ALL_TRUE, SH_I32, 0}, {WASM_OP_I64X2_ALL_TRUE, SH_I64, 0},
    {WASM_OP_I8X16_BITMASK, SH_I8, 1},   {WASM_OP_I16X8_BITMASK, SH_I16, 1},
    {WASM_OP_I32X4_BITMASK, SH_I32, 1},  {WASM_OP_I64X2_BITMASK, SH_I64, 1},
};

static bool op_reduce(struct jit_func *f, uint16_t op)
{
    if (op == WASM_OP_V128_ANY_TRUE) {
        LLVMValueRef v = bitcast_int(f, sbx__jit_pop(f), 128);
        sbx__jit_push(f,
                      to_i32(f, L(BuildICmp)(f->b, LLVMIntNE, v, L(ConstNull)(L(TypeOf)(v)), "")));
        return true;
    }
    for (size_t i = 0; i < sizeof(reduce_ops) / sizeof(reduce_ops[0]); i++) {
        if (reduce_ops[i].op != op)
            continue;
        enum simd_shape s = (enum simd_shape)reduce_ops[i].shape;
        unsigned n = shapes[s].lanes;
        LLVMValueRef v = sbx__jit_simd_pop(f, s), zero = L(ConstNull)(L(TypeOf)(v));
        LLVMIntPredicate p = reduce_ops[i].is_bitmask ? LLVMIntSLT : LLVMIntNE;
        LLVMValueRef bits = bitcast_int(f, L(BuildICmp)(f->b, p, v, zero, ""), n);
        if (!reduce_ops[i].is_bitmask)
            bits = L(BuildICmp)(f->b, LLVMIntEQ, bits, L(ConstAllOnes)(L(TypeOf)(bits)), "");
        sbx__jit_push(f, to_i32(f, bits));
        return true;
    }
    return false;
}

static bool op_bitwise(struct jit_func *f, uint16_t op)
{
    LLVMValueRef r, a, b;
    switch (op) {
    case WASM_OP_V128_NOT:
        r = L(BuildNot)(f->b, sbx__jit_pop(f), "");
        break;
    case WASM_OP_V128_AND:
    case WASM_OP_V128_ANDNOT:
    case WASM_OP_V128_OR:
    case WASM_OP_V128_XOR:
        b = sbx__jit_pop(f);
        a = sbx__jit_pop(f);
        r = op == WASM_OP_V128_AND      ? L(BuildAnd)(f->b, a, b, "")
            : op == WASM_OP_V128_ANDNOT ? L(BuildAnd)(f->b, a, L(BuildNot)(f->b, b, ""), "")
            : op == WASM_OP_V128_OR     ? L(BuildOr)(f->b, a, b, "")
                                        : L(BuildBinOp)(f->b, LLVMXor, a, b, "");
        break;
    case WASM_OP_V128_BITSELECT: {
        LLVMValueRef m = sbx__jit_pop(f);
        b = sbx__jit_pop(f);
        a = sbx__jit_pop(f);
        r = L(BuildOr)(f->b, L(BuildAnd)(f->b, a, m, ""),
                       L(BuildAnd)(f->b, b, L(BuildNot)(f->b, m, ""), ""), "");
        break;
    }
    default:
        return false;
    }
    sbx__jit_push(f, r);
    return true;
}

static bool emit_lanes(struct jit_func *f, const struct wasm_instr *in)
{
    switch (in->op) {
    case WASM_OP_V128_CONST:
        sbx__jit_push(f, v128_const(f, in->bytes));
        return true;
    case WASM_OP_I8X16_SHUFFLE:
        op_shuffle(f, in);
        return true;
    case WASM_OP_I8X16_SWIZZLE:
        op_swizzle(f);
        return true;
    default:
        return op_lane(f, in) || op_reduce(f, in->op) || op_bitwise(f, in->op);
    }
}

bool sbx__jit_emit_simd(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    if (in->op < WASM_OP_V128_LOAD || sbx__wasm_opinfo[in->op].prefix != 0xFD)
        return false;
    struct wasm_instr twin;
    uint16_t as = sbx__wasm_relaxed_as(in->op);
    if (as) { /* relaxed SIMD's deterministic choice: exactly the 2.0 instruction */
        twin = *in;
        twin.op = as;
        in = &twin;
    }
    return emit_lanes(f, in) || sbx__jit_simd_mem(f, in, ok) || sbx__jit_simd_int(f, in, ok) ||
           sbx__jit_simd_float(f, in, ok) || sbx__jit_simd_relaxed(f, in, ok);
}

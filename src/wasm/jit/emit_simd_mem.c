/* wasm/jit/emit_simd_mem.c: v128 loads and stores: whole, extending (8x8, 16x4, 32x2), splat,
 * zero-filled and single lanes. Each access goes through the same explicit bounds check as the
 * scalar ones (sbx__jit_checked_addr: the access size is 1 << the opcode's alignment log2, as
 * opcodes.h gives it), unaligned, tagged as guest memory (volatile when guarded). */
#include "wasm/jit/emit_simd.h"

enum mkind {
    M_LOAD = 1, /* the access is the whole v128 */
    M_EXTEND,   /* 8 bytes as half-width lanes, widened */
    M_SPLAT,
    M_ZERO,      /* into lane 0 of a zero vector */
    M_LOAD_LANE, /* into lane `lane` of the popped vector */
    M_STORE,
    M_STORE_LANE,
};

static const struct {
    uint16_t op;
    uint8_t kind;
    uint8_t is_signed; /* M_EXTEND */
} rows[] = {
    {WASM_OP_V128_LOAD, M_LOAD, 0},
    {WASM_OP_V128_LOAD8X8_S, M_EXTEND, 1},
    {WASM_OP_V128_LOAD8X8_U, M_EXTEND, 0},
    {WASM_OP_V128_LOAD16X4_S, M_EXTEND, 1},
    {WASM_OP_V128_LOAD16X4_U, M_EXTEND, 0},
    {WASM_OP_V128_LOAD32X2_S, M_EXTEND, 1},
    {WASM_OP_V128_LOAD32X2_U, M_EXTEND, 0},
    {WASM_OP_V128_LOAD8_SPLAT, M_SPLAT, 0},
    {WASM_OP_V128_LOAD16_SPLAT, M_SPLAT, 0},
    {WASM_OP_V128_LOAD32_SPLAT, M_SPLAT, 0},
    {WASM_OP_V128_LOAD64_SPLAT, M_SPLAT, 0},
    {WASM_OP_V128_LOAD32_ZERO, M_ZERO, 0},
    {WASM_OP_V128_LOAD64_ZERO, M_ZERO, 0},
    {WASM_OP_V128_LOAD8_LANE, M_LOAD_LANE, 0},
    {WASM_OP_V128_LOAD16_LANE, M_LOAD_LANE, 0},
    {WASM_OP_V128_LOAD32_LANE, M_LOAD_LANE, 0},
    {WASM_OP_V128_LOAD64_LANE, M_LOAD_LANE, 0},
    {WASM_OP_V128_STORE, M_STORE, 0},
    {WASM_OP_V128_STORE8_LANE, M_STORE_LANE, 0},
    {WASM_OP_V128_STORE16_LANE, M_STORE_LANE, 0},
    {WASM_OP_V128_STORE32_LANE, M_STORE_LANE, 0},
    {WASM_OP_V128_STORE64_LANE, M_STORE_LANE, 0},
};

static LLVMValueRef load(struct jit_func *f, LLVMTypeRef t, LLVMValueRef p)
{
    LLVMValueRef v = L(BuildLoad2)(f->b, t, p, "");
    L(SetAlignment)(v, 1);
    sbx__jit_guest_access(f->jm, v);
    return v;
}

static void store(struct jit_func *f, LLVMValueRef v, LLVMValueRef p)
{
    LLVMValueRef st = L(BuildStore)(f->b, v, p);
    L(SetAlignment)(st, 1);
    sbx__jit_guest_access(f->jm, st);
}

/* 8 bytes as lanes of half the width (8 x i8 for 16x8 ...), sign- or zero-extended. */
static LLVMValueRef load_extend(struct jit_func *f, LLVMValueRef p, uint16_t op, bool is_signed)
{
    struct jit_mod *jm = f->jm;
    enum simd_shape src = op <= WASM_OP_V128_LOAD8X8_U    ? SH_I8
                          : op <= WASM_OP_V128_LOAD16X4_U ? SH_I16
                                                          : SH_I32;
    unsigned n = sbx__jit_simd_lanes(src) / 2;
    LLVMValueRef v = load(f, L(VectorType)(sbx__jit_simd_lane(jm, src), n), p);
    LLVMTypeRef wide = sbx__jit_simd_type(jm, (enum simd_shape)(src + 1));
    return is_signed ? L(BuildSExt)(f->b, v, wide, "") : L(BuildZExt)(f->b, v, wide, "");
}

static void emit_row(struct jit_func *f, const struct wasm_instr *in, unsigned kind, bool is_signed)
{
    struct jit_mod *jm = f->jm;
    uint32_t bytes = 1u << sbx__wasm_opinfo[in->op].arg;
    enum simd_shape s = sbx__jit_simd_int_shape(bytes > 8 ? 8 : bytes);
    LLVMTypeRef lane_t = sbx__jit_simd_lane(jm, s);
    LLVMValueRef lane = sbx__jit_i32(jm, in->lane);
    LLVMValueRef v = NULL;
    if (kind == M_STORE || kind == M_STORE_LANE || kind == M_LOAD_LANE)
        v = sbx__jit_pop(f);
    LLVMValueRef p = sbx__jit_checked_addr(f, sbx__jit_pop(f), in->idx, in->offset, bytes);
    switch (kind) {
    case M_LOAD:
        sbx__jit_push(f, load(f, sbx__jit_type(jm, WASM_V128), p));
        break;
    case M_EXTEND:
        sbx__jit_simd_push(f, load_extend(f, p, in->op, is_signed));
        break;
    case M_SPLAT:
        sbx__jit_simd_push(f, sbx__jit_simd_splat(f, load(f, lane_t, p), s));
        break;
    case M_ZERO: {
        LLVMValueRef z = L(ConstNull)(sbx__jit_simd_type(jm, s));
        LLVMValueRef lane0 = sbx__jit_i32(jm, 0);
        sbx__jit_simd_push(f, L(BuildInsertElement)(f->b, z, load(f, lane_t, p), lane0, ""));
        break;
    }
    case M_LOAD_LANE:
        sbx__jit_simd_push(f, L(BuildInsertElement)(f->b, sbx__jit_simd_as(f, v, s),
                                                    load(f, lane_t, p), lane, ""));
        break;
    case M_STORE:
        store(f, v, p);
        break;
    default: /* M_STORE_LANE */
        store(f, L(BuildExtractElement)(f->b, sbx__jit_simd_as(f, v, s), lane, ""), p);
        break;
    }
}

bool sbx__jit_simd_mem(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    (void)ok;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (rows[i].op == in->op) {
            emit_row(f, in, rows[i].kind, rows[i].is_signed);
            return true;
        }
    }
    return false;
}

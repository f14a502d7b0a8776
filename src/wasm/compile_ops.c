/* wasm/compile_ops.c: translation of the instructions without control flow: one table row per
 * numeric opcode, plus constants (kept on the compile-time stack, so they become immediates),
 * memory, table, global and reference instructions. */
#include <string.h>

#include "wasm/compile_impl.h"
#include "wasm/leb.h"
#include "wasm/opcodes.h"

enum { S_NONE = 0, S_UN, S_BIN, S_RETYPE, S_LOAD, S_STORE };

struct simple_op {
    uint16_t iop;
    uint16_t iop_imm; /* 0 = no immediate form */
    uint8_t kind;     /* S_* */
    uint8_t tin, tout;
};

#define I32 WASM_I32
#define I64 WASM_I64
#define F32 WASM_F32
#define F64 WASM_F64

/* clang-format off */
#define UN(code, op, ti, to)   [code] = {IOP_##op, 0, S_UN, ti, to}
#define IBIN(code, op, ti, to) [code] = {IOP_##op, IOP_##op##_i, S_BIN, ti, to}
#define FBIN(code, op, ti, to) [code] = {IOP_##op, 0, S_BIN, ti, to}
#define FBINI(code, op, ti)    [code] = {IOP_##op, IOP_##op##_i, S_BIN, ti, ti}
#define RETYPE(code, ti, to)   [code] = {0, 0, S_RETYPE, ti, to}
#define LD(code, op, to)       [code] = {IOP_##op, 0, S_LOAD, I32, to}
#define ST(code, op, ti)       [code] = {IOP_##op, 0, S_STORE, ti, 0}

static const struct simple_op simple_ops[256] = {
    LD(0x28, i32_load, I32), LD(0x29, i64_load, I64), LD(0x2A, i32_load, F32),
    LD(0x2B, i64_load, F64), LD(0x2C, i32_load8_s, I32), LD(0x2D, i32_load8_u, I32),
    LD(0x2E, i32_load16_s, I32), LD(0x2F, i32_load16_u, I32), LD(0x30, i64_load8_s, I64),
    LD(0x31, i64_load8_u, I64), LD(0x32, i64_load16_s, I64), LD(0x33, i64_load16_u, I64),
    LD(0x34, i64_load32_s, I64), LD(0x35, i64_load32_u, I64),
    ST(0x36, i32_store, I32), ST(0x37, i64_store, I64), ST(0x38, i32_store, F32),
    ST(0x39, i64_store, F64), ST(0x3A, i32_store8, I32), ST(0x3B, i32_store16, I32),
    ST(0x3C, i32_store8, I64), ST(0x3D, i32_store16, I64), ST(0x3E, i64_store32, I64),

    UN(0x45, i32_eqz, I32, I32),
    IBIN(0x46, i32_eq, I32, I32), IBIN(0x47, i32_ne, I32, I32), IBIN(0x48, i32_lt_s, I32, I32),
    IBIN(0x49, i32_lt_u, I32, I32), IBIN(0x4A, i32_gt_s, I32, I32), IBIN(0x4B, i32_gt_u, I32, I32),
    IBIN(0x4C, i32_le_s, I32, I32), IBIN(0x4D, i32_le_u, I32, I32), IBIN(0x4E, i32_ge_s, I32, I32),
    IBIN(0x4F, i32_ge_u, I32, I32),
    UN(0x50, i64_eqz, I64, I32),
    IBIN(0x51, i64_eq, I64, I32), IBIN(0x52, i64_ne, I64, I32), IBIN(0x53, i64_lt_s, I64, I32),
    IBIN(0x54, i64_lt_u, I64, I32), IBIN(0x55, i64_gt_s, I64, I32), IBIN(0x56, i64_gt_u, I64, I32),
    IBIN(0x57, i64_le_s, I64, I32), IBIN(0x58, i64_le_u, I64, I32), IBIN(0x59, i64_ge_s, I64, I32),
    IBIN(0x5A, i64_ge_u, I64, I32),
    FBIN(0x5B, f32_eq, F32, I32), FBIN(0x5C, f32_ne, F32, I32), FBIN(0x5D, f32_lt, F32, I32),
    FBIN(0x5E, f32_gt, F32, I32), FBIN(0x5F, f32_le, F32, I32), FBIN(0x60, f32_ge, F32, I32),
    FBIN(0x61, f64_eq, F64, I32), FBIN(0x62, f64_ne, F64, I32), FBIN(0x63, f64_lt, F64, I32),
    FBIN(0x64, f64_gt, F64, I32), FBIN(0x65, f64_le, F64, I32), FBIN(0x66, f64_ge, F64, I32),

    UN(0x67, i32_clz, I32, I32), UN(0x68, i32_ctz, I32, I32), UN(0x69, i32_popcnt, I32, I32),
    IBIN(0x6A, i32_add, I32, I32), IBIN(0x6B, i32_sub, I32, I32), IBIN(0x6C, i32_mul, I32, I32),
    IBIN(0x6D, i32_div_s, I32, I32), IBIN(0x6E, i32_div_u, I32, I32),
    IBIN(0x6F, i32_rem_s, I32, I32), IBIN(0x70, i32_rem_u, I32, I32),
    IBIN(0x71, i32_and, I32, I32), IBIN(0x72, i32_or, I32, I32), IBIN(0x73, i32_xor, I32, I32),
    IBIN(0x74, i32_shl, I32, I32), IBIN(0x75, i32_shr_s, I32, I32),
    IBIN(0x76, i32_shr_u, I32, I32), IBIN(0x77, i32_rotl, I32, I32),
    IBIN(0x78, i32_rotr, I32, I32),
    UN(0x79, i64_clz, I64, I64), UN(0x7A, i64_ctz, I64, I64), UN(0x7B, i64_popcnt, I64, I64),
    IBIN(0x7C, i64_add, I64, I64), IBIN(0x7D, i64_sub, I64, I64), IBIN(0x7E, i64_mul, I64, I64),
    IBIN(0x7F, i64_div_s, I64, I64), IBIN(0x80, i64_div_u, I64, I64),
    IBIN(0x81, i64_rem_s, I64, I64), IBIN(0x82, i64_rem_u, I64, I64),
    IBIN(0x83, i64_and, I64, I64), IBIN(0x84, i64_or, I64, I64), IBIN(0x85, i64_xor, I64, I64),
    IBIN(0x86, i64_shl, I64, I64), IBIN(0x87, i64_shr_s, I64, I64),
    IBIN(0x88, i64_shr_u, I64, I64), IBIN(0x89, i64_rotl, I64, I64),
    IBIN(0x8A, i64_rotr, I64, I64),

    UN(0x8B, f32_abs, F32, F32), UN(0x8C, f32_neg, F32, F32), UN(0x8D, f32_ceil, F32, F32),
    UN(0x8E, f32_floor, F32, F32), UN(0x8F, f32_trunc, F32, F32),
    UN(0x90, f32_nearest, F32, F32), UN(0x91, f32_sqrt, F32, F32),
    FBINI(0x92, f32_add, F32), FBINI(0x93, f32_sub, F32), FBINI(0x94, f32_mul, F32),
    FBINI(0x95, f32_div, F32), FBIN(0x96, f32_min, F32, F32), FBIN(0x97, f32_max, F32, F32),
    FBIN(0x98, f32_copysign, F32, F32),
    UN(0x99, f64_abs, F64, F64), UN(0x9A, f64_neg, F64, F64), UN(0x9B, f64_ceil, F64, F64),
    UN(0x9C, f64_floor, F64, F64), UN(0x9D, f64_trunc, F64, F64),
    UN(0x9E, f64_nearest, F64, F64), UN(0x9F, f64_sqrt, F64, F64),
    FBINI(0xA0, f64_add, F64), FBINI(0xA1, f64_sub, F64), FBINI(0xA2, f64_mul, F64),
    FBINI(0xA3, f64_div, F64), FBIN(0xA4, f64_min, F64, F64), FBIN(0xA5, f64_max, F64, F64),
    FBIN(0xA6, f64_copysign, F64, F64),

    RETYPE(0xA7, I64, I32),
    UN(0xA8, i32_trunc_f32_s, F32, I32), UN(0xA9, i32_trunc_f32_u, F32, I32),
    UN(0xAA, i32_trunc_f64_s, F64, I32), UN(0xAB, i32_trunc_f64_u, F64, I32),
    UN(0xAC, i64_extend_i32_s, I32, I64), UN(0xAD, i64_extend_i32_u, I32, I64),
    UN(0xAE, i64_trunc_f32_s, F32, I64), UN(0xAF, i64_trunc_f32_u, F32, I64),
    UN(0xB0, i64_trunc_f64_s, F64, I64), UN(0xB1, i64_trunc_f64_u, F64, I64),
    UN(0xB2, f32_convert_i32_s, I32, F32), UN(0xB3, f32_convert_i32_u, I32, F32),
    UN(0xB4, f32_convert_i64_s, I64, F32), UN(0xB5, f32_convert_i64_u, I64, F32),
    UN(0xB6, f32_demote_f64, F64, F32),
    UN(0xB7, f64_convert_i32_s, I32, F64), UN(0xB8, f64_convert_i32_u, I32, F64),
    UN(0xB9, f64_convert_i64_s, I64, F64), UN(0xBA, f64_convert_i64_u, I64, F64),
    UN(0xBB, f64_promote_f32, F32, F64),
    RETYPE(0xBC, F32, I32), RETYPE(0xBD, F64, I64), RETYPE(0xBE, I32, F32),
    RETYPE(0xBF, I64, F64),
    UN(0xC0, i32_extend8_s, I32, I32), UN(0xC1, i32_extend16_s, I32, I32),
    UN(0xC2, i64_extend8_s, I64, I64), UN(0xC3, i64_extend16_s, I64, I64),
    UN(0xC4, i64_extend32_s, I64, I64),
};

static const uint16_t sat_ops[8] = {
    IOP_i32_trunc_sat_f32_s, IOP_i32_trunc_sat_f32_u, IOP_i32_trunc_sat_f64_s,
    IOP_i32_trunc_sat_f64_u, IOP_i64_trunc_sat_f32_s, IOP_i64_trunc_sat_f32_u,
    IOP_i64_trunc_sat_f64_s, IOP_i64_trunc_sat_f64_u,
};
/* clang-format on */

static bool is_commutative(uint16_t iop)
{
    return iop == IOP_i32_add || iop == IOP_i32_mul || iop == IOP_i32_and || iop == IOP_i32_or ||
           iop == IOP_i32_xor || iop == IOP_i32_eq || iop == IOP_i32_ne || iop == IOP_i64_add ||
           iop == IOP_i64_mul || iop == IOP_i64_and || iop == IOP_i64_or || iop == IOP_i64_xor ||
           iop == IOP_i64_eq || iop == IOP_i64_ne || iop == IOP_f32_add || iop == IOP_f32_mul ||
           iop == IOP_f64_add || iop == IOP_f64_mul;
}

/* Remembers an i32 compare (or eqz) whose result is on top, for br_if / if to fuse. */
static void note_compare(struct compiler *c, uint8_t kind, uint8_t cmp, bool is_imm)
{
    if (!c->last_dst)
        return;
    c->last_cmp = c->last_dst - 1;
    c->last_cmp_kind = kind;
    c->last_cmp_op = cmp;
    c->last_cmp_imm = is_imm;
}

static bool imm_fits(const struct centry *e)
{
    if (e->kind != K_CONST)
        return false;
    if (e->type != WASM_I64)
        return true; /* i32 and f32 take one word, f64 two */
    int64_t v = (int64_t)e->k;
    return v >= INT32_MIN && v <= INT32_MAX;
}

/* The binary ops that have memory-fused forms, in WASM_MEMOPS order, with the plain load
 * that can feed them. */
static const struct {
    uint16_t iop, load;
} memops[] = {
    {IOP_i32_add, IOP_i32_load}, {IOP_i32_sub, IOP_i32_load}, {IOP_i32_and, IOP_i32_load},
    {IOP_i32_or, IOP_i32_load},  {IOP_i32_xor, IOP_i32_load}, {IOP_i64_add, IOP_i64_load},
    {IOP_i64_sub, IOP_i64_load}, {IOP_f32_add, IOP_i32_load}, {IOP_f32_sub, IOP_i32_load},
    {IOP_f32_mul, IOP_i32_load}, {IOP_f64_add, IOP_i64_load}, {IOP_f64_sub, IOP_i64_load},
    {IOP_f64_mul, IOP_i64_load},
};

static int memop_index(uint16_t iop)
{
    for (unsigned i = 0; i < sizeof(memops) / sizeof(memops[0]); i++)
        if (memops[i].iop == iop)
            return (int)i;
    return -1;
}

/* True if e is the result of the instruction just emitted and that was op. */
static bool is_fresh(const struct compiler *c, const struct centry *e, uint16_t op)
{
    return e->kind == K_SLOT && c->last_dst && c->last_dst - 1 < c->wlen &&
           c->w[c->last_dst - 1] == e->slot && c->last_op == op;
}

/* a OP b where b was just loaded: take the load back and read memory in the op. */
static bool emit_load_op(struct compiler *c, const struct simple_op *s, struct centry *a,
                         struct centry *b)
{
    int i = memop_index(s->iop);
    if (i < 0)
        return false;
    if (!is_fresh(c, b, memops[i].load)) {
        if (!is_commutative(s->iop) || !is_fresh(c, a, memops[i].load))
            return false;
        struct centry t = *a;
        *a = *b;
        *b = t;
    }
    uint32_t start = c->last_start, opnds[3];
    opnds[1] = c->w[start + 2];
    opnds[2] = c->w[start + 3];
    sbx__wasm_c_unemit(c);
    opnds[0] = sbx__wasm_c_operand(c, a);
    sbx__wasm_c_result(c, (enum wasm_iop)(IOP_i32_add_ld + i), s->tout, opnds, 3);
    return true;
}

/* i32 pairs common in hashing (rotate-xor, add chains): z OP2 (x OP1 y) when x OP1 y was
 * just computed into a stack temporary. */
static const struct {
    uint16_t op2, op1, fused;
} alu_pairs[] = {
    {IOP_i32_xor, IOP_i32_rotl_i, IOP_i32_xor_rotl_i},
    {IOP_i32_add, IOP_i32_add, IOP_i32_add_add},
    {IOP_i32_add, IOP_i32_xor, IOP_i32_add_xor},
    {IOP_i32_add, IOP_i32_and, IOP_i32_add_and},
};

static bool emit_alu_pair(struct compiler *c, const struct simple_op *s, struct centry *a,
                          struct centry *b)
{
    for (unsigned i = 0; i < sizeof(alu_pairs) / sizeof(alu_pairs[0]); i++) {
        if (alu_pairs[i].op2 != s->iop || alu_pairs[i].op1 != c->last_op)
            continue;
        /* z must already sit somewhere: materializing it could overwrite x or y */
        struct centry *z = is_fresh(c, b, (uint16_t)c->last_op) ? a : b;
        if (z->kind == K_CONST || !is_fresh(c, z == a ? b : a, (uint16_t)c->last_op))
            return false;
        uint32_t opnds[3] = {c->w[c->last_start + 2], c->w[c->last_start + 3], 0};
        sbx__wasm_c_unemit(c);
        opnds[2] = sbx__wasm_c_operand(c, z);
        sbx__wasm_c_result(c, (enum wasm_iop)alu_pairs[i].fused, WASM_I32, opnds, 3);
        return true;
    }
    return false;
}

static void emit_binary(struct compiler *c, const struct simple_op *s)
{
    struct centry b = sbx__wasm_c_pop(c), a = sbx__wasm_c_pop(c);
    if (emit_load_op(c, s, &a, &b) || emit_alu_pair(c, s, &a, &b))
        return;
    if (s->iop_imm && is_commutative(s->iop) && imm_fits(&a) && !imm_fits(&b)) {
        struct centry t = a; /* entries keep their slots: the result goes to slot_top */
        a = b;
        b = t;
    }
    uint32_t opnds[3];
    bool is_imm = s->iop_imm && imm_fits(&b);
    opnds[0] = sbx__wasm_c_operand(c, &a);
    opnds[1] = is_imm ? (uint32_t)b.k : sbx__wasm_c_operand(c, &b);
    opnds[2] = (uint32_t)(b.k >> 32);
    uint32_t n = is_imm && b.type == WASM_F64 ? 3 : 2;
    sbx__wasm_c_result(c, (enum wasm_iop)(is_imm ? s->iop_imm : s->iop), s->tout, opnds, n);
    if (s->iop >= IOP_i32_eq && s->iop <= IOP_i32_ge_u)
        note_compare(c, C_CMP, (uint8_t)(s->iop - IOP_i32_eq), is_imm);
}

static void emit_unary(struct compiler *c, const struct simple_op *s)
{
    struct centry a = sbx__wasm_c_pop(c);
    uint32_t src = sbx__wasm_c_operand(c, &a);
    sbx__wasm_c_result(c, (enum wasm_iop)s->iop, s->tout, &src, 1);
    if (s->iop == IOP_i32_eqz)
        note_compare(c, C_Z, 0, false);
}

/* True if e is the result of the instruction just emitted, an i32.add: its code can be taken
 * back and the addition folded into the memory access. */
static bool is_fresh_add(const struct compiler *c, const struct centry *e)
{
    return e->kind == K_SLOT && c->last_dst && c->last_dst - 1 < c->wlen &&
           c->w[c->last_dst - 1] == e->slot &&
           (c->last_op == IOP_i32_add || c->last_op == IOP_i32_add_i);
}

/* A constant address k becomes offset k + offset from the zero slot when the sum fits. */
static bool const_addr(struct compiler *c, const struct centry *a, uint32_t *offset)
{
    if (a->kind != K_CONST || (uint64_t)(uint32_t)a->k + *offset > UINT32_MAX)
        return false;
    *offset += (uint32_t)a->k;
    c->is_zero_used = true;
    return true;
}

static void emit_load(struct compiler *c, const struct simple_op *s)
{
    sbx__wasm_c_u32(c); /* alignment: a hint only */
    uint32_t offset = sbx__wasm_c_u32(c);
    struct centry a = sbx__wasm_c_pop(c);
    uint32_t opnds[3];
    if (is_fresh_add(c, &a)) {
        uint32_t start = c->last_dst - 2;
        bool is_imm = c->last_op == IOP_i32_add_i;
        opnds[0] = c->w[start + 2];
        opnds[1] = c->w[start + 3];
        opnds[2] = offset;
        sbx__wasm_c_unemit(c);
        enum wasm_iop op = (enum wasm_iop)(
            s->iop + (is_imm ? IOP_i32_load_addi - IOP_i32_load : IOP_i32_load_add - IOP_i32_load));
        sbx__wasm_c_result(c, op, s->tout, opnds, 3);
        return;
    }
    opnds[0] = const_addr(c, &a, &offset) ? c->zero_slot : sbx__wasm_c_operand(c, &a);
    opnds[1] = offset;
    sbx__wasm_c_result(c, (enum wasm_iop)s->iop, s->tout, opnds, 2);
}

/* A stored constant becomes an immediate when its sign-extended low word gives the bits
 * the store writes. */
static bool store_imm(const struct simple_op *s, const struct centry *v)
{
    if (v->kind != K_CONST)
        return false;
    if (s->iop != IOP_i64_store)
        return true;
    int64_t k = (int64_t)v->k;
    return k >= INT32_MIN && k <= INT32_MAX;
}

/* The f64.mul [h][x][p][q] just emitted, when the instruction before it loaded one factor
 * from (uint32_t)(a + k) + off into a stack temporary: y's words {a, k, off} and the other
 * factor, with the load taken back too. */
static bool take_mul_addi_ld(struct compiler *c, uint32_t *yw, uint32_t *other)
{
    uint32_t start = c->last_start, ld = c->prev_start, t = c->w[ld + 1];
    if (c->prev_op != IOP_i64_load_addi || ld + 5 != start || t < c->frame_base)
        return false;
    uint32_t p = c->w[start + 2], q = c->w[start + 3];
    if ((p == t) == (q == t))
        return false;
    *other = p == t ? q : p;
    yw[0] = c->w[ld + 2];
    yw[1] = c->w[ld + 3];
    yw[2] = c->w[ld + 4];
    sbx__wasm_c_unemit(c);
    sbx__wasm_c_unemit(c);
    return true;
}

/* memory[A] += x * y, the core of dot products and matrix loops: when the addend x was just
 * computed by an f64.mul (of two slots, or of a slot and memory) into a stack temporary, the
 * multiply joins the read-modify-write. Two roundings, as the separate instructions. */
static bool emit_axpy(struct compiler *c, uint32_t x, uint32_t as, uint32_t offset)
{
    uint32_t start = c->last_start, n = c->wlen - start;
    bool is_mul = c->last_op == IOP_f64_mul && n == 4;
    bool is_mul_ld = c->last_op == IOP_f64_mul_ld && n == 5;
    if ((!is_mul && !is_mul_ld) || c->w[start + 1] != x || x < c->frame_base)
        return false;
    /* words: the other factor, then y's address slot, k, offset (mul_ld: k = 0) */
    uint32_t words[4] = {c->w[start + 2], c->w[start + 3], 0, is_mul_ld ? c->w[start + 4] : 0};
    if (is_mul && take_mul_addi_ld(c, words + 1, words))
        is_mul = false;
    else
        sbx__wasm_c_unemit(c);
    sbx__wasm_c_op(c, is_mul ? IOP_f64_muladd_rmw : IOP_f64_mulldadd_rmw);
    sbx__wasm_c_emit(c, as);
    for (uint32_t k = 0; k < (is_mul ? 2u : 4u); k++)
        sbx__wasm_c_emit(c, words[k]);
    sbx__wasm_c_emit(c, offset);
    return true;
}

/* memory[x] = a OP memory[x]: the value was just computed by a load-op from the same
 * address and offset, so load, operate and store in one instruction. */
static bool emit_rmw(struct compiler *c, const struct simple_op *s, const struct centry *v,
                     struct centry *a, uint32_t offset)
{
    unsigned i = (unsigned)c->last_op - IOP_i32_add_ld;
    if (i >= sizeof(memops) / sizeof(memops[0]) || !is_fresh(c, v, (uint16_t)c->last_op) ||
        memops[i].load + (IOP_i32_store - IOP_i32_load) != s->iop)
        return false;
    uint32_t start = c->last_start, as = a->kind == K_LOCAL ? a->local : a->slot;
    if (a->kind == K_CONST && const_addr(c, a, &offset))
        as = c->zero_slot;
    else if (a->kind == K_CONST)
        return false;
    if (c->w[start + 3] != as || c->w[start + 4] != offset)
        return false;
    uint32_t x = c->w[start + 2];
    sbx__wasm_c_unemit(c);
    if (memops[i].iop == IOP_f64_add && emit_axpy(c, x, as, offset))
        return true;
    sbx__wasm_c_op(c, (enum wasm_iop)(IOP_i32_add_rmw + i));
    sbx__wasm_c_emit(c, as);
    sbx__wasm_c_emit(c, x);
    sbx__wasm_c_emit(c, offset);
    return true;
}

static void emit_store(struct compiler *c, const struct simple_op *s)
{
    sbx__wasm_c_u32(c);
    uint32_t offset = sbx__wasm_c_u32(c);
    struct centry v = sbx__wasm_c_pop(c), a = sbx__wasm_c_pop(c);
    if (emit_rmw(c, s, &v, &a, offset))
        return;
    int i = memop_index((uint16_t)c->last_op);
    if (i >= 0 && memops[i].load + (IOP_i32_store - IOP_i32_load) == s->iop &&
        is_fresh(c, &v, (uint16_t)c->last_op)) {
        /* The value was just computed: compute it straight into memory. */
        uint32_t start = c->last_start, x = c->w[start + 2], y = c->w[start + 3];
        sbx__wasm_c_unemit(c);
        uint32_t as = const_addr(c, &a, &offset) ? c->zero_slot : sbx__wasm_c_operand(c, &a);
        sbx__wasm_c_op(c, (enum wasm_iop)(IOP_i32_add_st + i));
        sbx__wasm_c_emit(c, as);
        sbx__wasm_c_emit(c, x);
        sbx__wasm_c_emit(c, y);
        sbx__wasm_c_emit(c, offset);
        return;
    }
    bool is_imm = store_imm(s, &v);
    if (is_fresh_add(c, &a) && (is_imm || v.kind == K_LOCAL)) {
        /* The address was just added: fold the add into the store. The value is a local or
         * an immediate, so nothing is emitted between. */
        uint32_t start = c->last_start, x = c->w[start + 2], y = c->w[start + 3];
        int form = (c->last_op == IOP_i32_add_i ? 1 : 0) + (is_imm ? 2 : 0);
        static const int delta[4] = {
            IOP_i32_store_add - IOP_i32_store, IOP_i32_store_addi - IOP_i32_store,
            IOP_i32_store_i_add - IOP_i32_store, IOP_i32_store_i_addi - IOP_i32_store};
        sbx__wasm_c_unemit(c);
        sbx__wasm_c_op(c, (enum wasm_iop)(s->iop + delta[form]));
        sbx__wasm_c_emit(c, x);
        sbx__wasm_c_emit(c, y);
        sbx__wasm_c_emit(c, is_imm ? (uint32_t)v.k : v.local);
        sbx__wasm_c_emit(c, offset);
        return;
    }
    uint32_t as = const_addr(c, &a, &offset) ? c->zero_slot : sbx__wasm_c_operand(c, &a);
    uint32_t vs = is_imm ? (uint32_t)v.k : sbx__wasm_c_operand(c, &v);
    sbx__wasm_c_op(c, (enum wasm_iop)(s->iop + (is_imm ? IOP_i32_store_i - IOP_i32_store : 0)));
    sbx__wasm_c_emit(c, as);
    sbx__wasm_c_emit(c, vs);
    sbx__wasm_c_emit(c, offset);
}

static void retype(struct compiler *c, uint8_t to)
{
    if (c->sp == 0)
        return;
    struct centry *e = &c->st[c->sp - 1];
    e->type = to;
    if (to == WASM_I32 && e->kind == K_CONST)
        e->k &= 0xFFFFFFFFu;
}

bool sbx__wasm_c_simple(struct compiler *c, uint8_t op)
{
    const struct simple_op *s = &simple_ops[op];
    switch (s->kind) {
    case S_UN:
        emit_unary(c, s);
        return true;
    case S_BIN:
        emit_binary(c, s);
        return true;
    case S_RETYPE:
        retype(c, s->tout);
        return true;
    case S_LOAD:
        emit_load(c, s);
        return true;
    case S_STORE:
        emit_store(c, s);
        return true;
    default:
        return false;
    }
}

/* Pops n values and returns their operand slots in stack order (deepest first). */
static void pop_operands(struct compiler *c, uint32_t *out, uint32_t n)
{
    struct centry es[4];
    for (uint32_t i = n; i-- > 0;)
        es[i] = sbx__wasm_c_pop(c);
    for (uint32_t i = 0; i < n; i++)
        out[i] = sbx__wasm_c_operand(c, &es[i]);
}

/* Emits op with immediates imms[0..ni) then the popped operands (n of them). */
static void emit_effect(struct compiler *c, enum wasm_iop op, const uint32_t *imms, uint32_t ni,
                        uint32_t n)
{
    uint32_t opnds[4];
    pop_operands(c, opnds, n);
    sbx__wasm_c_op(c, op);
    for (uint32_t i = 0; i < ni; i++)
        sbx__wasm_c_emit(c, imms[i]);
    for (uint32_t i = 0; i < n; i++)
        sbx__wasm_c_emit(c, opnds[i]);
}

/* Emits a result-producing op: [dst] imms operands. */
static void emit_valued(struct compiler *c, enum wasm_iop op, uint8_t type, const uint32_t *imms,
                        uint32_t ni, uint32_t n)
{
    uint32_t words[6] = {0};
    for (uint32_t i = 0; i < ni; i++)
        words[i] = imms[i];
    pop_operands(c, words + ni, n);
    sbx__wasm_c_result(c, op, type, words, ni + n);
}

static uint8_t table_type(const struct compiler *c, uint32_t t)
{
    return t < c->m->table_count ? c->m->tables[t].elem_type : WASM_FUNCREF;
}

bool sbx__wasm_c_prefixed(struct compiler *c, uint32_t op)
{
    uint32_t imm[2] = {0, 0};
    if (op < 8) {
        struct simple_op s = {sat_ops[op], 0, S_UN, 0, op < 4 ? WASM_I32 : WASM_I64};
        emit_unary(c, &s);
        return true;
    }
    switch (op) {
    case 8: /* memory.init seg 0x00: [seg] d s n */
        imm[0] = sbx__wasm_c_u32(c);
        c->p++;
        emit_effect(c, IOP_memory_init, imm, 1, 3);
        return true;
    case 9:
        imm[0] = sbx__wasm_c_u32(c);
        emit_effect(c, IOP_data_drop, imm, 1, 0);
        return true;
    case 10: /* memory.copy 0x00 0x00: d s n */
        c->p += 2;
        emit_effect(c, IOP_memory_copy, imm, 0, 3);
        return true;
    case 11: /* memory.fill 0x00: d val n */
        c->p++;
        emit_effect(c, IOP_memory_fill, imm, 0, 3);
        return true;
    case 12: /* table.init elem table: [table][seg] d s n */
        imm[1] = sbx__wasm_c_u32(c);
        imm[0] = sbx__wasm_c_u32(c);
        emit_effect(c, IOP_table_init, imm, 2, 3);
        return true;
    case 13:
        imm[0] = sbx__wasm_c_u32(c);
        emit_effect(c, IOP_elem_drop, imm, 1, 0);
        return true;
    case 14: /* table.copy dst src: d s n */
        imm[0] = sbx__wasm_c_u32(c);
        imm[1] = sbx__wasm_c_u32(c);
        emit_effect(c, IOP_table_copy, imm, 2, 3);
        return true;
    case 15: /* table.grow t: init n -> old size */
        imm[0] = sbx__wasm_c_u32(c);
        emit_valued(c, IOP_table_grow, WASM_I32, imm, 1, 2);
        return true;
    case 16:
        imm[0] = sbx__wasm_c_u32(c);
        emit_valued(c, IOP_table_size, WASM_I32, imm, 1, 0);
        return true;
    case 17: /* table.fill t: i val n */
        imm[0] = sbx__wasm_c_u32(c);
        emit_effect(c, IOP_table_fill, imm, 1, 3);
        return true;
    default:
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown 0xFC opcode");
        return false;
    }
}

static void push_const(struct compiler *c, uint8_t type, uint64_t k)
{
    struct centry *e = sbx__wasm_c_push(c, type);
    e->kind = K_CONST;
    e->k = k;
}

static uint64_t read_bytes(struct compiler *c, unsigned n)
{
    uint64_t v = 0;
    if ((size_t)(c->end - c->p) < n) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "malformed constant");
        return 0;
    }
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    return v;
}

static void do_const(struct compiler *c, uint8_t op)
{
    int32_t v32 = 0;
    int64_t v64 = 0;
    switch (op) {
    case 0x41:
        if (sbx__wasm_leb_s32(&c->p, c->end, &v32) != WASM_LEB_OK)
            sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "malformed constant");
        push_const(c, WASM_I32, (uint32_t)v32);
        break;
    case 0x42:
        if (sbx__wasm_leb_s64(&c->p, c->end, &v64) != WASM_LEB_OK)
            sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "malformed constant");
        push_const(c, WASM_I64, (uint64_t)v64);
        break;
    case 0x43:
        push_const(c, WASM_F32, read_bytes(c, 4));
        break;
    default:
        push_const(c, WASM_F64, read_bytes(c, 8));
        break;
    }
}

static void do_global(struct compiler *c, uint8_t op)
{
    uint32_t idx = sbx__wasm_c_u32(c);
    if (idx >= c->m->global_count) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown global");
        return;
    }
    uint8_t type = c->m->globals[idx].type;
    bool is_wide = type == WASM_V128;
    if (op == 0x23)
        emit_valued(c, is_wide ? IOP_global_get2 : IOP_global_get, type, &idx, 1, 0);
    else
        emit_effect(c, is_wide ? IOP_global_set2 : IOP_global_set, &idx, 1, 1);
}

/* Opcodes with immediates or types the table cannot express. */
bool sbx__wasm_c_variable(struct compiler *c, uint8_t op)
{
    uint32_t imm = 0;
    switch (op) {
    case 0x23:
    case 0x24:
        do_global(c, op);
        return true;
    case 0x25: /* table.get t: i */
        imm = sbx__wasm_c_u32(c);
        emit_valued(c, IOP_table_get, table_type(c, imm), &imm, 1, 1);
        return true;
    case 0x26: /* table.set t: i v */
        imm = sbx__wasm_c_u32(c);
        emit_effect(c, IOP_table_set, &imm, 1, 2);
        return true;
    case 0x3F:
        c->p++;
        emit_valued(c, IOP_memory_size, WASM_I32, &imm, 0, 0);
        return true;
    case 0x40:
        c->p++;
        emit_valued(c, IOP_memory_grow, WASM_I32, &imm, 0, 1);
        return true;
    case 0x41:
    case 0x42:
    case 0x43:
    case 0x44:
        do_const(c, op);
        return true;
    case 0xD0: /* ref.null t */
        push_const(c, c->p < c->end ? *c->p++ : WASM_FUNCREF, 0);
        return true;
    case 0xD1: /* ref.is_null */
        emit_valued(c, IOP_i64_eqz, WASM_I32, &imm, 0, 1);
        return true;
    case 0xD2:
        imm = sbx__wasm_c_u32(c);
        emit_valued(c, IOP_ref_func, WASM_FUNCREF, &imm, 1, 0);
        return true;
    default:
        return false;
    }
}

/* --- SIMD: every 0xFD instruction is driven by opcodes.h: the signature says what to pop and
 * push, the immediate kind what follows; code is [h][dst if any][operands][immediates]. ---- */

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

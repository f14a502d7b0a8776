/* wasm/compile_ops.c: translation of the instructions without control flow: one table row per
 * numeric opcode, plus constants (kept on the compile-time stack, so they become immediates),
 * memory, table, global and reference instructions. */
#include <string.h>

#include "wasm/compile_impl.h"
#include "wasm/opcodes.h"

enum { S_NONE = 0, S_UN, S_BIN, S_RETYPE, S_LOAD, S_STORE };

/* An instruction the interpreter has a handler for: its stack effect comes from its opcodes.h
 * signature (tout is filled from it), this row says which handler. */
struct simple_op {
    uint16_t iop;
    uint16_t iop_imm; /* 0 = no immediate form */
    uint8_t kind;     /* S_* */
    wasm_vtype tout;
};

/* clang-format off */
#define UN(name, op)     [WASM_OP_##name] = {IOP_##op, 0, S_UN, 0}
#define IBIN(name, op)   [WASM_OP_##name] = {IOP_##op, IOP_##op##_i, S_BIN, 0}
#define FBIN(name, op)   [WASM_OP_##name] = {IOP_##op, 0, S_BIN, 0}
#define RETYPE(name)     [WASM_OP_##name] = {0, 0, S_RETYPE, 0}
#define LD(name, op)     [WASM_OP_##name] = {IOP_##op, 0, S_LOAD, 0}
#define ST(name, op)     [WASM_OP_##name] = {IOP_##op, 0, S_STORE, 0}

/* Indexed by opcode id: the one-byte space and 0xFC's (WASM_OP_ID). */
#define SIMPLE_SPACE 0x200u
static const struct simple_op simple_ops[SIMPLE_SPACE] = {
    LD(I32_LOAD, i32_load), LD(I64_LOAD, i64_load), LD(F32_LOAD, i32_load),
    LD(F64_LOAD, i64_load), LD(I32_LOAD8_S, i32_load8_s), LD(I32_LOAD8_U, i32_load8_u),
    LD(I32_LOAD16_S, i32_load16_s), LD(I32_LOAD16_U, i32_load16_u),
    LD(I64_LOAD8_S, i64_load8_s), LD(I64_LOAD8_U, i64_load8_u),
    LD(I64_LOAD16_S, i64_load16_s), LD(I64_LOAD16_U, i64_load16_u),
    LD(I64_LOAD32_S, i64_load32_s), LD(I64_LOAD32_U, i64_load32_u),
    ST(I32_STORE, i32_store), ST(I64_STORE, i64_store), ST(F32_STORE, i32_store),
    ST(F64_STORE, i64_store), ST(I32_STORE8, i32_store8), ST(I32_STORE16, i32_store16),
    ST(I64_STORE8, i32_store8), ST(I64_STORE16, i32_store16), ST(I64_STORE32, i64_store32),

    UN(I32_EQZ, i32_eqz),
    IBIN(I32_EQ, i32_eq), IBIN(I32_NE, i32_ne), IBIN(I32_LT_S, i32_lt_s),
    IBIN(I32_LT_U, i32_lt_u), IBIN(I32_GT_S, i32_gt_s), IBIN(I32_GT_U, i32_gt_u),
    IBIN(I32_LE_S, i32_le_s), IBIN(I32_LE_U, i32_le_u), IBIN(I32_GE_S, i32_ge_s),
    IBIN(I32_GE_U, i32_ge_u),
    UN(I64_EQZ, i64_eqz),
    IBIN(I64_EQ, i64_eq), IBIN(I64_NE, i64_ne), IBIN(I64_LT_S, i64_lt_s),
    IBIN(I64_LT_U, i64_lt_u), IBIN(I64_GT_S, i64_gt_s), IBIN(I64_GT_U, i64_gt_u),
    IBIN(I64_LE_S, i64_le_s), IBIN(I64_LE_U, i64_le_u), IBIN(I64_GE_S, i64_ge_s),
    IBIN(I64_GE_U, i64_ge_u),
    FBIN(F32_EQ, f32_eq), FBIN(F32_NE, f32_ne), FBIN(F32_LT, f32_lt),
    FBIN(F32_GT, f32_gt), FBIN(F32_LE, f32_le), FBIN(F32_GE, f32_ge),
    FBIN(F64_EQ, f64_eq), FBIN(F64_NE, f64_ne), FBIN(F64_LT, f64_lt),
    FBIN(F64_GT, f64_gt), FBIN(F64_LE, f64_le), FBIN(F64_GE, f64_ge),

    UN(I32_CLZ, i32_clz), UN(I32_CTZ, i32_ctz), UN(I32_POPCNT, i32_popcnt),
    IBIN(I32_ADD, i32_add), IBIN(I32_SUB, i32_sub), IBIN(I32_MUL, i32_mul),
    IBIN(I32_DIV_S, i32_div_s), IBIN(I32_DIV_U, i32_div_u),
    IBIN(I32_REM_S, i32_rem_s), IBIN(I32_REM_U, i32_rem_u),
    IBIN(I32_AND, i32_and), IBIN(I32_OR, i32_or), IBIN(I32_XOR, i32_xor),
    IBIN(I32_SHL, i32_shl), IBIN(I32_SHR_S, i32_shr_s), IBIN(I32_SHR_U, i32_shr_u),
    IBIN(I32_ROTL, i32_rotl), IBIN(I32_ROTR, i32_rotr),
    UN(I64_CLZ, i64_clz), UN(I64_CTZ, i64_ctz), UN(I64_POPCNT, i64_popcnt),
    IBIN(I64_ADD, i64_add), IBIN(I64_SUB, i64_sub), IBIN(I64_MUL, i64_mul),
    IBIN(I64_DIV_S, i64_div_s), IBIN(I64_DIV_U, i64_div_u),
    IBIN(I64_REM_S, i64_rem_s), IBIN(I64_REM_U, i64_rem_u),
    IBIN(I64_AND, i64_and), IBIN(I64_OR, i64_or), IBIN(I64_XOR, i64_xor),
    IBIN(I64_SHL, i64_shl), IBIN(I64_SHR_S, i64_shr_s), IBIN(I64_SHR_U, i64_shr_u),
    IBIN(I64_ROTL, i64_rotl), IBIN(I64_ROTR, i64_rotr),

    UN(F32_ABS, f32_abs), UN(F32_NEG, f32_neg), UN(F32_CEIL, f32_ceil),
    UN(F32_FLOOR, f32_floor), UN(F32_TRUNC, f32_trunc), UN(F32_NEAREST, f32_nearest),
    UN(F32_SQRT, f32_sqrt),
    IBIN(F32_ADD, f32_add), IBIN(F32_SUB, f32_sub), IBIN(F32_MUL, f32_mul),
    IBIN(F32_DIV, f32_div), FBIN(F32_MIN, f32_min), FBIN(F32_MAX, f32_max),
    FBIN(F32_COPYSIGN, f32_copysign),
    UN(F64_ABS, f64_abs), UN(F64_NEG, f64_neg), UN(F64_CEIL, f64_ceil),
    UN(F64_FLOOR, f64_floor), UN(F64_TRUNC, f64_trunc), UN(F64_NEAREST, f64_nearest),
    UN(F64_SQRT, f64_sqrt),
    IBIN(F64_ADD, f64_add), IBIN(F64_SUB, f64_sub), IBIN(F64_MUL, f64_mul),
    IBIN(F64_DIV, f64_div), FBIN(F64_MIN, f64_min), FBIN(F64_MAX, f64_max),
    FBIN(F64_COPYSIGN, f64_copysign),

    RETYPE(I32_WRAP_I64),
    UN(I32_TRUNC_F32_S, i32_trunc_f32_s), UN(I32_TRUNC_F32_U, i32_trunc_f32_u),
    UN(I32_TRUNC_F64_S, i32_trunc_f64_s), UN(I32_TRUNC_F64_U, i32_trunc_f64_u),
    UN(I64_EXTEND_I32_S, i64_extend_i32_s), UN(I64_EXTEND_I32_U, i64_extend_i32_u),
    UN(I64_TRUNC_F32_S, i64_trunc_f32_s), UN(I64_TRUNC_F32_U, i64_trunc_f32_u),
    UN(I64_TRUNC_F64_S, i64_trunc_f64_s), UN(I64_TRUNC_F64_U, i64_trunc_f64_u),
    UN(F32_CONVERT_I32_S, f32_convert_i32_s), UN(F32_CONVERT_I32_U, f32_convert_i32_u),
    UN(F32_CONVERT_I64_S, f32_convert_i64_s), UN(F32_CONVERT_I64_U, f32_convert_i64_u),
    UN(F32_DEMOTE_F64, f32_demote_f64),
    UN(F64_CONVERT_I32_S, f64_convert_i32_s), UN(F64_CONVERT_I32_U, f64_convert_i32_u),
    UN(F64_CONVERT_I64_S, f64_convert_i64_s), UN(F64_CONVERT_I64_U, f64_convert_i64_u),
    UN(F64_PROMOTE_F32, f64_promote_f32),
    RETYPE(I32_REINTERPRET_F32), RETYPE(I64_REINTERPRET_F64), RETYPE(F32_REINTERPRET_I32),
    RETYPE(F64_REINTERPRET_I64),
    UN(I32_EXTEND8_S, i32_extend8_s), UN(I32_EXTEND16_S, i32_extend16_s),
    UN(I64_EXTEND8_S, i64_extend8_s), UN(I64_EXTEND16_S, i64_extend16_s),
    UN(I64_EXTEND32_S, i64_extend32_s),

    UN(I32_TRUNC_SAT_F32_S, i32_trunc_sat_f32_s), UN(I32_TRUNC_SAT_F32_U, i32_trunc_sat_f32_u),
    UN(I32_TRUNC_SAT_F64_S, i32_trunc_sat_f64_s), UN(I32_TRUNC_SAT_F64_U, i32_trunc_sat_f64_u),
    UN(I64_TRUNC_SAT_F32_S, i64_trunc_sat_f32_s), UN(I64_TRUNC_SAT_F32_U, i64_trunc_sat_f32_u),
    UN(I64_TRUNC_SAT_F64_S, i64_trunc_sat_f64_s), UN(I64_TRUNC_SAT_F64_U, i64_trunc_sat_f64_u),
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

/* The alignment is a hint only: loads and stores take the offset alone. */
static void emit_load(struct compiler *c, const struct simple_op *s, uint32_t offset)
{
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

static void emit_store(struct compiler *c, const struct simple_op *s, uint32_t offset)
{
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

static void retype(struct compiler *c, wasm_vtype to)
{
    if (c->sp == 0)
        return;
    struct centry *e = &c->st[c->sp - 1];
    e->type = to;
    if (to == WASM_I32 && e->kind == K_CONST)
        e->k &= 0xFFFFFFFFu;
}

/* The instructions of simple_ops; false when in is not one of them. */
static bool emit_simple(struct compiler *c, const struct wasm_instr *in)
{
    if (in->op >= SIMPLE_SPACE || simple_ops[in->op].kind == S_NONE)
        return false;
    struct simple_op s = simple_ops[in->op];
    s.tout = sbx__wasm_siginfo[sbx__wasm_opinfo[in->op].sig].result;
    switch (s.kind) {
    case S_UN:
        emit_unary(c, &s);
        return true;
    case S_BIN:
        emit_binary(c, &s);
        return true;
    case S_RETYPE:
        retype(c, s.tout);
        return true;
    case S_LOAD: /* a 32-bit memory 0 (compile_mem.c takes the rest): the offset is a u32 */
        emit_load(c, &s, (uint32_t)in->offset);
        return true;
    default:
        emit_store(c, &s, (uint32_t)in->offset);
        return true;
    }
}

/* Pops n values and returns their operand slots in stack order (deepest first); operand i with
 * bit i of clamp set is a 64-bit table index or length, saturated to u32 (compile_mem.c). */
static void pop_operands(struct compiler *c, uint32_t *out, uint32_t n, uint32_t clamp)
{
    struct centry es[4];
    for (uint32_t i = n; i-- > 0;)
        es[i] = sbx__wasm_c_pop(c);
    for (uint32_t i = 0; i < n; i++)
        out[i] = sbx__wasm_c_operand(c, &es[i]);
    for (uint32_t i = 0; i < n; i++)
        if (clamp & (1u << i))
            out[i] = sbx__wasm_c_clamp64(c, &es[i], out[i]);
}

/* Emits op with immediates imms[0..ni) then the popped operands (n of them). */
static void emit_effect(struct compiler *c, enum wasm_iop op, const uint32_t *imms, uint32_t ni,
                        uint32_t n, uint32_t clamp)
{
    uint32_t opnds[4];
    pop_operands(c, opnds, n, clamp);
    sbx__wasm_c_op(c, op);
    for (uint32_t i = 0; i < ni; i++)
        sbx__wasm_c_emit(c, imms[i]);
    for (uint32_t i = 0; i < n; i++)
        sbx__wasm_c_emit(c, opnds[i]);
}

/* Emits a result-producing op: [dst] imms operands. */
static void emit_valued(struct compiler *c, enum wasm_iop op, wasm_vtype type, const uint32_t *imms,
                        uint32_t ni, uint32_t n, uint32_t clamp)
{
    uint32_t words[6] = {0};
    for (uint32_t i = 0; i < ni; i++)
        words[i] = imms[i];
    pop_operands(c, words + ni, n, clamp);
    sbx__wasm_c_result(c, op, type, words, ni + n);
}

static wasm_vtype table_type(const struct compiler *c, uint32_t t)
{
    return t < c->m->table_count ? c->m->tables[t].elem_type : WASM_FUNCREF;
}

/* Whether table t takes 64-bit indices (table64). */
static bool is_table64(const struct compiler *c, uint32_t t)
{
    return t < c->m->table_count && c->m->tables[t].is64;
}

/* table.grow: a 64-bit table's result is an i64, -1 on failure (sign-extended). */
static void emit_table_grow(struct compiler *c, const uint32_t *imm)
{
    bool w = is_table64(c, imm[0]);
    emit_valued(c, IOP_table_grow, w ? WASM_I64 : WASM_I32, imm, 1, 2, w ? 2u : 0u);
    if (!w)
        return;
    uint32_t r = c->st[c->sp - 1].slot; /* the old size, below 2^32 - 1, or 0xFFFFFFFF */
    sbx__wasm_c_op(c, IOP_i64_extend_i32_s);
    sbx__wasm_c_emit(c, r);
    sbx__wasm_c_emit(c, r);
}

/* Bulk memory and table instructions (0xFC 8-17); false when in is none of them. */
static bool emit_bulk(struct compiler *c, const struct wasm_instr *in)
{
    uint32_t imm[2] = {in->idx, in->idx2};
    switch (in->op) {
    case WASM_OP_MEMORY_INIT: /* [seg] d s n */
        emit_effect(c, IOP_memory_init, imm, 1, 3, 0);
        return true;
    case WASM_OP_DATA_DROP:
        emit_effect(c, IOP_data_drop, imm, 1, 0, 0);
        return true;
    case WASM_OP_MEMORY_COPY: /* d s n */
        emit_effect(c, IOP_memory_copy, imm, 0, 3, 0);
        return true;
    case WASM_OP_MEMORY_FILL: /* d val n */
        emit_effect(c, IOP_memory_fill, imm, 0, 3, 0);
        return true;
    case WASM_OP_TABLE_INIT: /* [table][seg] d s n */
        imm[0] = in->idx2;
        imm[1] = in->idx;
        emit_effect(c, IOP_table_init, imm, 2, 3, is_table64(c, in->idx2) ? 1u : 0u);
        return true;
    case WASM_OP_ELEM_DROP:
        emit_effect(c, IOP_elem_drop, imm, 1, 0, 0);
        return true;
    case WASM_OP_TABLE_COPY: { /* [dst table][src table] d s n; n is i64 only between 64s */
        bool dw = is_table64(c, in->idx), sw = is_table64(c, in->idx2);
        emit_effect(c, IOP_table_copy, imm, 2, 3,
                    (dw ? 1u : 0u) | (sw ? 2u : 0u) | (dw && sw ? 4u : 0u));
        return true;
    }
    case WASM_OP_TABLE_GROW: /* init n -> old size */
        emit_table_grow(c, imm);
        return true;
    case WASM_OP_TABLE_SIZE:
        emit_valued(c, IOP_table_size, is_table64(c, in->idx) ? WASM_I64 : WASM_I32, imm, 1, 0, 0);
        return true;
    case WASM_OP_TABLE_FILL: /* i val n */
        emit_effect(c, IOP_table_fill, imm, 1, 3, is_table64(c, in->idx) ? 5u : 0u);
        return true;
    default:
        return false;
    }
}

static void push_const(struct compiler *c, wasm_vtype type, uint64_t k)
{
    struct centry *e = sbx__wasm_c_push(c, type);
    e->kind = K_CONST;
    e->k = k;
}

/* Constants stay on the compile-time stack (the reader sign-extends i32 into 64 bits). */
static void do_const(struct compiler *c, const struct wasm_instr *in)
{
    wasm_vtype type = sbx__wasm_siginfo[sbx__wasm_opinfo[in->op].sig].result;
    push_const(c, type, type == WASM_I32 ? (uint32_t)in->value : in->value);
}

static void do_global(struct compiler *c, const struct wasm_instr *in)
{
    uint32_t idx = in->idx;
    if (idx >= c->m->global_count) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown global");
        return;
    }
    wasm_vtype type = c->m->globals[idx].type;
    bool is_wide = type == WASM_V128;
    if (in->op == WASM_OP_GLOBAL_GET)
        emit_valued(c, is_wide ? IOP_global_get2 : IOP_global_get, type, &idx, 1, 0, 0);
    else
        emit_effect(c, is_wide ? IOP_global_set2 : IOP_global_set, &idx, 1, 1, 0);
}

/* Variables, constants, tables, memory size and references; false when in is none. */
static bool emit_variable(struct compiler *c, const struct wasm_instr *in)
{
    uint32_t imm = in->idx;
    switch (in->op) {
    case WASM_OP_GLOBAL_GET:
    case WASM_OP_GLOBAL_SET:
        do_global(c, in);
        return true;
    case WASM_OP_TABLE_GET: /* t: i */
        emit_valued(c, IOP_table_get, table_type(c, imm), &imm, 1, 1, is_table64(c, imm) ? 1u : 0u);
        return true;
    case WASM_OP_TABLE_SET: /* t: i v */
        emit_effect(c, IOP_table_set, &imm, 1, 2, is_table64(c, imm) ? 1u : 0u);
        return true;
    case WASM_OP_MEMORY_SIZE:
        emit_valued(c, IOP_memory_size, WASM_I32, &imm, 0, 0, 0);
        return true;
    case WASM_OP_MEMORY_GROW:
        emit_valued(c, IOP_memory_grow, WASM_I32, &imm, 0, 1, 0);
        return true;
    case WASM_OP_I32_CONST:
    case WASM_OP_I64_CONST:
    case WASM_OP_F32_CONST:
    case WASM_OP_F64_CONST:
        do_const(c, in);
        return true;
    case WASM_OP_REF_NULL:
        push_const(c, in->valtype, 0);
        return true;
    case WASM_OP_REF_IS_NULL:
        emit_valued(c, IOP_i64_eqz, WASM_I32, &imm, 0, 1, 0);
        return true;
    case WASM_OP_REF_FUNC:
        emit_valued(c, IOP_ref_func, WASM_FUNCREF, &imm, 1, 0, 0);
        return true;
    case WASM_OP_REF_AS_NON_NULL: /* its static type does not change how it is kept */
        emit_valued(c, IOP_ref_as_non_null, c->st[c->sp - 1].type, &imm, 0, 1, 0);
        return true;
    default:
        return false;
    }
}

/* --- SIMD: every 0xFD instruction is driven by opcodes.h: the signature says what to pop and
 * push, the immediate kind what follows; code is [h][dst if any][operands][immediates]. ---- */

/* The decoded immediates as code words; returns how many. */
static uint32_t simd_imms(const struct wasm_instr *in, uint8_t kind, uint32_t *imm)
{
    uint32_t n = 0;
    switch (kind) {
    case WASM_IMM_MEMARG:
    case WASM_IMM_MEMARG_LANE:           /* the alignment is a hint only */
        imm[n++] = (uint32_t)in->offset; /* memory 0, 32-bit: compile_mem.c takes the rest */
        if (kind == WASM_IMM_MEMARG)
            return n;
        __attribute__((fallthrough)); /* then the lane index */
    case WASM_IMM_LANE:
        imm[n++] = in->lane;
        return n;
    case WASM_IMM_V128:
    case WASM_IMM_SHUFFLE:
        for (unsigned i = 0; i < 16; i += 4)
            imm[n++] = (uint32_t)in->bytes[i] | (uint32_t)in->bytes[i + 1] << 8 |
                       (uint32_t)in->bytes[i + 2] << 16 | (uint32_t)in->bytes[i + 3] << 24;
        return n;
    default:
        return 0;
    }
}

/* A relaxed SIMD instruction's handler: its deterministic 2.0 twin's, or its own. */
static enum wasm_iop simd_iop(const struct wasm_instr *in)
{
    uint16_t as = sbx__wasm_relaxed_as(in->op);
    return (enum wasm_iop)(IOP_SIMD_BASE_ + sbx__wasm_opinfo[as ? as : in->op].code);
}

static bool emit_simd(struct compiler *c, const struct wasm_instr *in)
{
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[in->op];
    if (info->prefix != 0xFD)
        return false;
    const struct wasm_siginfo *sig = &sbx__wasm_siginfo[info->sig];
    uint32_t words[8], n = sig->param_count;
    struct centry es[3];
    uint32_t ni = simd_imms(in, info->imm, words + n);
    for (uint32_t i = n; i-- > 0;)
        es[i] = sbx__wasm_c_pop(c);
    for (uint32_t i = 0; i < n; i++)
        words[i] = sbx__wasm_c_operand(c, &es[i]);
    enum wasm_iop op = simd_iop(in);
    if (sig->result_count) {
        sbx__wasm_c_result(c, op, sig->result, words, n + ni);
        return true;
    }
    sbx__wasm_c_op(c, op);
    for (uint32_t i = 0; i < n + ni; i++)
        sbx__wasm_c_emit(c, words[i]);
    return true;
}

enum wasm_iop sbx__wasm_c_access_iop(uint16_t op)
{
    if (op < SIMPLE_SPACE)
        return (enum wasm_iop)simple_ops[op].iop;
    return (enum wasm_iop)(IOP_SIMD_BASE_ + sbx__wasm_opinfo[op].code);
}

bool sbx__wasm_c_ops(struct compiler *c, const struct wasm_instr *in)
{
    if (sbx__wasm_c_mem_general(c, in) || emit_simple(c, in) || emit_variable(c, in) ||
        emit_bulk(c, in) || emit_simd(c, in))
        return true;
    if (sbx__wasm_opinfo[in->op].feature == WASM_FEAT_GC)
        return sbx__wasm_c_gc(c, in);
    sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown opcode");
    return false;
}

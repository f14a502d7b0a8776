/* wasm/jit/emit_numeric.c: constants and the numeric instructions with the spec's exact
 * semantics (4.3.2-4.3.3): shift counts taken modulo the width, div/rem trapping on zero and
 * on INT_MIN / -1 (rem then gives 0), NaN-propagating min/max with -0 below +0, nearest as
 * round-half-even. Floats follow the hardware, as the interpreter's do. One table row each. */
#include <pthread.h>
#include <string.h>

#include "wasm/jit/emit.h"

enum nkind {
    N_BIN = 1, /* an LLVM binary opcode */
    N_SHIFT,   /* the same, count masked to the width */
    N_INTR2,   /* a binary intrinsic (copysign) */
    N_ROT,     /* funnel shift of a with itself */
    N_DIV,     /* trapping division or remainder */
    N_ICMP,
    N_FCMP,
    N_EQZ,
    N_BITS,  /* ctlz/cttz (zero defined) and ctpop */
    N_UNARY, /* a unary float intrinsic */
    N_FNEG,
    N_MINMAX, /* code 0 = min, 1 = max */
};

struct nrow {
    uint16_t op;
    uint8_t kind;
    uint8_t type; /* operand type */
    int code;     /* LLVMOpcode or predicate */
    const char *intr;
};

#define INT_ROWS(T, W)                                                                             \
    {WASM_OP_##T##_ADD, N_BIN, W, LLVMAdd, NULL}, {WASM_OP_##T##_SUB, N_BIN, W, LLVMSub, NULL},    \
        {WASM_OP_##T##_MUL, N_BIN, W, LLVMMul, NULL},                                              \
        {WASM_OP_##T##_AND, N_BIN, W, LLVMAnd, NULL}, {WASM_OP_##T##_OR, N_BIN, W, LLVMOr, NULL},  \
        {WASM_OP_##T##_XOR, N_BIN, W, LLVMXor, NULL},                                              \
        {WASM_OP_##T##_SHL, N_SHIFT, W, LLVMShl, NULL},                                            \
        {WASM_OP_##T##_SHR_S, N_SHIFT, W, LLVMAShr, NULL},                                         \
        {WASM_OP_##T##_SHR_U, N_SHIFT, W, LLVMLShr, NULL},                                         \
        {WASM_OP_##T##_ROTL, N_ROT, W, 0, "llvm.fshl"},                                            \
        {WASM_OP_##T##_ROTR, N_ROT, W, 0, "llvm.fshr"},                                            \
        {WASM_OP_##T##_DIV_S, N_DIV, W, LLVMSDiv, NULL},                                           \
        {WASM_OP_##T##_DIV_U, N_DIV, W, LLVMUDiv, NULL},                                           \
        {WASM_OP_##T##_REM_S, N_DIV, W, LLVMSRem, NULL},                                           \
        {WASM_OP_##T##_REM_U, N_DIV, W, LLVMURem, NULL},                                           \
        {WASM_OP_##T##_EQ, N_ICMP, W, LLVMIntEQ, NULL},                                            \
        {WASM_OP_##T##_NE, N_ICMP, W, LLVMIntNE, NULL},                                            \
        {WASM_OP_##T##_LT_S, N_ICMP, W, LLVMIntSLT, NULL},                                         \
        {WASM_OP_##T##_LT_U, N_ICMP, W, LLVMIntULT, NULL},                                         \
        {WASM_OP_##T##_GT_S, N_ICMP, W, LLVMIntSGT, NULL},                                         \
        {WASM_OP_##T##_GT_U, N_ICMP, W, LLVMIntUGT, NULL},                                         \
        {WASM_OP_##T##_LE_S, N_ICMP, W, LLVMIntSLE, NULL},                                         \
        {WASM_OP_##T##_LE_U, N_ICMP, W, LLVMIntULE, NULL},                                         \
        {WASM_OP_##T##_GE_S, N_ICMP, W, LLVMIntSGE, NULL},                                         \
        {WASM_OP_##T##_GE_U, N_ICMP, W, LLVMIntUGE, NULL}, {WASM_OP_##T##_EQZ, N_EQZ, W, 0, NULL}, \
        {WASM_OP_##T##_CLZ, N_BITS, W, 0, "llvm.ctlz"},                                            \
        {WASM_OP_##T##_CTZ, N_BITS, W, 0, "llvm.cttz"},                                            \
    {                                                                                              \
        WASM_OP_##T##_POPCNT, N_BITS, W, 0, "llvm.ctpop"                                           \
    }

#define FLOAT_ROWS(T, W)                                                                           \
    {WASM_OP_##T##_ADD, N_BIN, W, LLVMFAdd, NULL}, {WASM_OP_##T##_SUB, N_BIN, W, LLVMFSub, NULL},  \
        {WASM_OP_##T##_MUL, N_BIN, W, LLVMFMul, NULL},                                             \
        {WASM_OP_##T##_DIV, N_BIN, W, LLVMFDiv, NULL}, {WASM_OP_##T##_MIN, N_MINMAX, W, 0, NULL},  \
        {WASM_OP_##T##_MAX, N_MINMAX, W, 1, NULL},                                                 \
        {WASM_OP_##T##_COPYSIGN, N_INTR2, W, 0, "llvm.copysign"},                                  \
        {WASM_OP_##T##_EQ, N_FCMP, W, LLVMRealOEQ, NULL},                                          \
        {WASM_OP_##T##_NE, N_FCMP, W, LLVMRealUNE, NULL},                                          \
        {WASM_OP_##T##_LT, N_FCMP, W, LLVMRealOLT, NULL},                                          \
        {WASM_OP_##T##_GT, N_FCMP, W, LLVMRealOGT, NULL},                                          \
        {WASM_OP_##T##_LE, N_FCMP, W, LLVMRealOLE, NULL},                                          \
        {WASM_OP_##T##_GE, N_FCMP, W, LLVMRealOGE, NULL},                                          \
        {WASM_OP_##T##_ABS, N_UNARY, W, 0, "llvm.fabs"}, {WASM_OP_##T##_NEG, N_FNEG, W, 0, NULL},  \
        {WASM_OP_##T##_CEIL, N_UNARY, W, 0, "llvm.ceil"},                                          \
        {WASM_OP_##T##_FLOOR, N_UNARY, W, 0, "llvm.floor"},                                        \
        {WASM_OP_##T##_TRUNC, N_UNARY, W, 0, "llvm.trunc"},                                        \
        {WASM_OP_##T##_NEAREST, N_UNARY, W, 0, "llvm.roundeven"},                                  \
    {                                                                                              \
        WASM_OP_##T##_SQRT, N_UNARY, W, 0, "llvm.sqrt"                                             \
    }

static const struct nrow rows[] = {
    INT_ROWS(I32, WASM_I32),
    INT_ROWS(I64, WASM_I64),
    FLOAT_ROWS(F32, WASM_F32),
    FLOAT_ROWS(F64, WASM_F64),
};

static const struct nrow *by_op[0x100];
static pthread_once_t by_op_once = PTHREAD_ONCE_INIT;

static void index_rows(void)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        by_op[rows[i].op] = &rows[i];
}

static const struct nrow *find(uint16_t op)
{
    pthread_once(&by_op_once, index_rows);
    return op < 0x100 ? by_op[op] : NULL;
}

static LLVMValueRef bool32(struct jit_func *f, LLVMValueRef c)
{
    return L(BuildZExt)(f->b, c, f->jm->t_i32, "");
}

/* div/rem: zero traps; INT_MIN / -1 traps for div_s, gives 0 for rem_s (spec 4.3.2). */
static LLVMValueRef emit_div(struct jit_func *f, const struct nrow *r, LLVMValueRef a,
                             LLVMValueRef b)
{
    LLVMTypeRef t = sbx__jit_type(f->jm, r->type);
    LLVMValueRef zero = L(ConstNull)(t), ones = L(ConstAllOnes)(t);
    sbx__jit_trap_if(f, L(BuildICmp)(f->b, LLVMIntEQ, b, zero, ""), WASM_TRAP_DIV_ZERO);
    unsigned bits = r->type == WASM_I32 ? 32 : 64;
    LLVMValueRef min = L(ConstInt)(t, 1ull << (bits - 1), 0);
    LLVMValueRef is_ovf = L(BuildAnd)(f->b, L(BuildICmp)(f->b, LLVMIntEQ, a, min, ""),
                                      L(BuildICmp)(f->b, LLVMIntEQ, b, ones, ""), "");
    if (r->code == LLVMSDiv)
        sbx__jit_trap_if(f, is_ovf, WASM_TRAP_INT_OVERFLOW);
    if (r->code == LLVMSRem) {
        /* x rem -1 is 0 for every x; dividing by 1 instead avoids the hardware fault. */
        LLVMValueRef safe_b = L(BuildSelect)(f->b, is_ovf, L(ConstInt)(t, 1, 0), b, "");
        return L(BuildSRem)(f->b, a, safe_b, "");
    }
    return L(BuildBinOp)(f->b, (LLVMOpcode)r->code, a, b, "");
}

/* min/max: NaN in -> NaN out (a + b quiets it), equal values by sign, else the compare. */
static LLVMValueRef emit_minmax(struct jit_func *f, const struct nrow *r, LLVMValueRef a,
                                LLVMValueRef b)
{
    struct jit_mod *jm = f->jm;
    LLVMTypeRef it = r->type == WASM_F32 ? jm->t_i32 : jm->t_i64;
    LLVMValueRef is_nan = L(BuildFCmp)(f->b, LLVMRealUNO, a, b, "");
    LLVMValueRef is_eq = L(BuildFCmp)(f->b, LLVMRealOEQ, a, b, "");
    LLVMValueRef ai = L(BuildBitCast)(f->b, a, it, ""), bi = L(BuildBitCast)(f->b, b, it, "");
    /* Equal: min ORs the bits (-0 wins), max ANDs them (+0 wins). */
    LLVMValueRef eq = L(BuildBitCast)(
        f->b, r->code ? L(BuildAnd)(f->b, ai, bi, "") : L(BuildOr)(f->b, ai, bi, ""),
        sbx__jit_type(jm, r->type), "");
    LLVMValueRef less = L(BuildFCmp)(f->b, r->code ? LLVMRealOGT : LLVMRealOLT, a, b, "");
    LLVMValueRef pick = L(BuildSelect)(f->b, less, a, b, "");
    pick = L(BuildSelect)(f->b, is_eq, eq, pick, "");
    return L(BuildSelect)(f->b, is_nan, L(BuildFAdd)(f->b, a, b, ""), pick, "");
}

static bool is_identity(LLVMValueRef v)
{
    if (!L(IsAConstantFP)(v))
        return false;
    LLVMBool loses = 0;
    double d = L(ConstRealGetDouble)(v, &loses);
    return d == 0.0 || d == 1.0 || d == -1.0;
}

/* LLVM folds x - 0, x * 1, x / -1, -0 - x into x or -x, which passes a signalling NaN through
 * unquieted; wasm requires an arithmetic NaN (spec 4.3.3), as the hardware op gives. Those
 * constants go through an empty asm the optimiser cannot see into (it costs no instruction). */
LLVMValueRef sbx__jit_opaque(struct jit_func *f, LLVMValueRef v)
{
    LLVMTypeRef t = L(TypeOf)(v);
    LLVMTypeRef fty = L(FunctionType)(t, &t, 1, 0);
    static const char cons[] = "=x,0";
    LLVMValueRef asm_fn = L(GetInlineAsm)(fty, "", 0, (char *)cons, sizeof(cons) - 1, 0, 0,
                                          LLVMInlineAsmDialectATT, 0);
    return L(BuildCall2)(f->b, fty, asm_fn, &v, 1, "");
}

static LLVMValueRef opaque_if_identity(struct jit_func *f, LLVMValueRef v)
{
    return is_identity(v) ? sbx__jit_opaque(f, v) : v;
}

static bool is_float_arith(int code)
{
    return code == LLVMFAdd || code == LLVMFSub || code == LLVMFMul || code == LLVMFDiv;
}

static LLVMValueRef emit_binary(struct jit_func *f, const struct nrow *r, LLVMValueRef a,
                                LLVMValueRef b)
{
    LLVMTypeRef t = sbx__jit_type(f->jm, r->type);
    switch (r->kind) {
    case N_BIN:
        if (is_float_arith(r->code)) {
            a = opaque_if_identity(f, a);
            b = opaque_if_identity(f, b);
        }
        return L(BuildBinOp)(f->b, (LLVMOpcode)r->code, a, b, "");
    case N_SHIFT: {
        LLVMValueRef mask = L(ConstInt)(t, r->type == WASM_I32 ? 31 : 63, 0);
        return L(BuildBinOp)(f->b, (LLVMOpcode)r->code, a, L(BuildAnd)(f->b, b, mask, ""), "");
    }
    case N_ROT: {
        LLVMValueRef args[] = {a, a, b};
        return sbx__jit_intrinsic(f, r->intr, &t, 1, args, 3);
    }
    case N_INTR2: {
        LLVMValueRef args[] = {a, b};
        return sbx__jit_intrinsic(f, r->intr, &t, 1, args, 2);
    }
    case N_DIV:
        return emit_div(f, r, a, b);
    case N_ICMP:
        return bool32(f, L(BuildICmp)(f->b, (LLVMIntPredicate)r->code, a, b, ""));
    case N_FCMP:
        return bool32(f, L(BuildFCmp)(f->b, (LLVMRealPredicate)r->code, a, b, ""));
    default:
        return emit_minmax(f, r, a, b);
    }
}

static LLVMValueRef emit_unary(struct jit_func *f, const struct nrow *r, LLVMValueRef a)
{
    LLVMTypeRef t = sbx__jit_type(f->jm, r->type);
    switch (r->kind) {
    case N_EQZ:
        return bool32(f, L(BuildICmp)(f->b, LLVMIntEQ, a, L(ConstNull)(t), ""));
    case N_BITS: {
        LLVMValueRef args[] = {a, L(ConstInt)(f->jm->t_i1, 0, 0)}; /* zero is defined */
        return sbx__jit_intrinsic(f, r->intr, &t, 1, args,
                                  strcmp(r->intr, "llvm.ctpop") == 0 ? 1 : 2);
    }
    case N_FNEG:
        return L(BuildFNeg)(f->b, a, "");
    default:
        return sbx__jit_intrinsic(f, r->intr, &t, 1, &a, 1);
    }
}

static bool is_unary(uint8_t kind)
{
    return kind == N_EQZ || kind == N_BITS || kind == N_UNARY || kind == N_FNEG;
}

/* Float constants keep their bits (a NaN's payload too): an integer constant, bitcast. */
static bool emit_const(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    switch (in->op) {
    case WASM_OP_I32_CONST:
        sbx__jit_push(f, sbx__jit_i32(jm, (uint32_t)in->value));
        return true;
    case WASM_OP_I64_CONST:
        sbx__jit_push(f, sbx__jit_i64(jm, in->value));
        return true;
    case WASM_OP_F32_CONST:
        sbx__jit_push(f, L(ConstBitCast)(sbx__jit_i32(jm, (uint32_t)in->value), jm->t_f32));
        return true;
    case WASM_OP_F64_CONST:
        sbx__jit_push(f, L(ConstBitCast)(sbx__jit_i64(jm, in->value), jm->t_f64));
        return true;
    default:
        return false;
    }
}

bool sbx__jit_emit_numeric(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    (void)ok;
    if (emit_const(f, in))
        return true;
    const struct nrow *r = find(in->op);
    if (!r)
        return false;
    if (is_unary(r->kind)) {
        sbx__jit_push(f, emit_unary(f, r, sbx__jit_pop(f)));
        return true;
    }
    LLVMValueRef b = sbx__jit_pop(f), a = sbx__jit_pop(f);
    sbx__jit_push(f, emit_binary(f, r, a, b));
    return true;
}

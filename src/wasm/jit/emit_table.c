/* wasm/jit/emit_table.c: tables and references (spec 4.4.5-4.4.6): table.get/set inline with
 * their bounds check, the rest through rt.c; ref.null, ref.is_null, ref.func. A funcref is the
 * struct wasm_func * of the instance, as in the interpreter. */
#include <stddef.h>

#include "wasm/jit/emit.h"
#include "wasm/jit/rt.h"

LLVMValueRef sbx__jit_idx32(struct jit_func *f, LLVMValueRef v, bool is64)
{
    struct jit_mod *jm = f->jm;
    if (!is64)
        return v;
    LLVMValueRef big = L(BuildICmp)(f->b, LLVMIntUGT, v, sbx__jit_i64(jm, UINT32_MAX), "");
    return L(BuildSelect)(f->b, big, sbx__jit_i32(jm, UINT32_MAX),
                          L(BuildTrunc)(f->b, v, jm->t_i32, ""), "");
}

static bool is64(const struct jit_func *f, uint32_t t)
{
    return f->m->tables[t].is64;
}

static LLVMValueRef elem_ptr(struct jit_func *f, uint32_t t, LLVMValueRef i)
{
    struct jit_mod *jm = f->jm;
    i = sbx__jit_idx32(f, i, is64(f, t));
    LLVMValueRef size =
        sbx__jit_load_at(f, jm->t_i32, JIT_SYM_TABLE, t, offsetof(struct wasm_table, size));
    sbx__jit_alias(jm, size, JIT_ALIAS_TABLE);
    sbx__jit_trap_if(f, L(BuildICmp)(f->b, LLVMIntUGE, i, size, ""), WASM_TRAP_TABLE_OOB);
    LLVMValueRef elems =
        sbx__jit_load_at(f, jm->t_ptr, JIT_SYM_TABLE, t, offsetof(struct wasm_table, elems));
    sbx__jit_alias(jm, elems, JIT_ALIAS_TABLE);
    LLVMValueRef i64 = L(BuildZExt)(f->b, i, jm->t_i64, "");
    return L(BuildGEP2)(f->b, jm->t_ptr, elems, &i64, 1, "");
}

static bool op_get_set(struct jit_func *f, const struct wasm_instr *in)
{
    uint32_t t = in->idx;
    if (in->op == WASM_OP_TABLE_GET) {
        LLVMValueRef p = elem_ptr(f, t, sbx__jit_pop(f));
        LLVMValueRef v = L(BuildLoad2)(f->b, f->jm->t_ptr, p, "");
        sbx__jit_alias(f->jm, v, JIT_ALIAS_ELEM);
        sbx__jit_push(f, v);
    } else {
        LLVMValueRef v = sbx__jit_pop(f);
        LLVMValueRef st = L(BuildStore)(f->b, v, elem_ptr(f, t, sbx__jit_pop(f)));
        sbx__jit_alias(f->jm, st, JIT_ALIAS_ELEM);
        sbx__jit_visible_store(f->jm, st); /* a guarded access may fault after it */
    }
    return true;
}

static bool op_grow_fill(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef tp = sbx__jit_sym(jm, JIT_SYM_TABLE, in->idx);
    bool w = is64(f, in->idx);
    if (in->op == WASM_OP_TABLE_GROW) { /* a 64-bit table's -1 is an i64 */
        LLVMValueRef delta = sbx__jit_idx32(f, sbx__jit_pop(f), w), init = sbx__jit_pop(f);
        LLVMTypeRef p[] = {jm->t_ptr, jm->t_ptr, jm->t_i32};
        LLVMValueRef a[] = {tp, init, delta};
        LLVMValueRef r = sbx__jit_call_c(f, JIT_RT_TABLE_GROW, jm->t_i32, p, a, 3);
        sbx__jit_push(f, w ? L(BuildSExt)(f->b, r, jm->t_i64, "") : r);
        return true;
    }
    LLVMValueRef n = sbx__jit_idx32(f, sbx__jit_pop(f), w), v = sbx__jit_pop(f);
    LLVMValueRef i = sbx__jit_idx32(f, sbx__jit_pop(f), w);
    LLVMTypeRef p[] = {jm->t_ptr, jm->t_i32, jm->t_ptr, jm->t_i32};
    LLVMValueRef a[] = {tp, i, v, n};
    sbx__jit_trap_if_kind(f, sbx__jit_call_c(f, JIT_RT_TABLE_FILL, jm->t_i32, p, a, 4));
    return true;
}

static bool op_copy_init(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef n = sbx__jit_pop(f), s = sbx__jit_pop(f), d = sbx__jit_pop(f);
    LLVMValueRef kind;
    if (in->op == WASM_OP_TABLE_COPY) { /* n is an i64 only between two 64-bit tables */
        bool dw = is64(f, in->idx), sw = is64(f, in->idx2);
        n = sbx__jit_idx32(f, n, dw && sw);
        s = sbx__jit_idx32(f, s, sw);
        d = sbx__jit_idx32(f, d, dw);
        LLVMTypeRef p[] = {jm->t_ptr, jm->t_ptr, jm->t_i32, jm->t_i32, jm->t_i32};
        LLVMValueRef a[] = {sbx__jit_sym(jm, JIT_SYM_TABLE, in->idx),
                            sbx__jit_sym(jm, JIT_SYM_TABLE, in->idx2), d, s, n};
        kind = sbx__jit_call_c(f, JIT_RT_TABLE_COPY, jm->t_i32, p, a, 5);
    } else {
        d = sbx__jit_idx32(f, d, is64(f, in->idx2));
        LLVMTypeRef p[] = {jm->t_ptr, jm->t_i32, jm->t_i32, jm->t_i32, jm->t_i32, jm->t_i32};
        LLVMValueRef a[] = {sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0),
                            sbx__jit_i32(jm, in->idx2),
                            sbx__jit_i32(jm, in->idx),
                            d,
                            s,
                            n};
        kind = sbx__jit_call_c(f, JIT_RT_TABLE_INIT, jm->t_i32, p, a, 6);
    }
    sbx__jit_trap_if_kind(f, kind);
    return true;
}

static bool op_ref(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    switch (in->op) {
    case WASM_OP_REF_NULL:
        sbx__jit_push(f, L(ConstPointerNull)(jm->t_ptr));
        return true;
    case WASM_OP_REF_IS_NULL:
        sbx__jit_push(f,
                      L(BuildZExt)(f->b, L(BuildIsNull)(f->b, sbx__jit_pop(f), ""), jm->t_i32, ""));
        return true;
    case WASM_OP_REF_FUNC:
        sbx__jit_push(f, sbx__jit_sym(jm, JIT_SYM_FUNC, in->idx));
        return true;
    case WASM_OP_REF_AS_NON_NULL: {
        LLVMValueRef r = sbx__jit_pop(f);
        sbx__jit_trap_if(f, L(BuildIsNull)(f->b, r, ""), WASM_TRAP_NULL_REFERENCE);
        sbx__jit_push(f, r);
        return true;
    }
    case WASM_OP_TABLE_SIZE: {
        LLVMValueRef n = sbx__jit_load_at(f, jm->t_i32, JIT_SYM_TABLE, in->idx,
                                          offsetof(struct wasm_table, size));
        sbx__jit_push(f, is64(f, in->idx) ? L(BuildZExt)(f->b, n, jm->t_i64, "") : n);
        return true;
    }
    default: { /* WASM_OP_ELEM_DROP */
        LLVMTypeRef p[] = {jm->t_ptr, jm->t_i32};
        LLVMValueRef a[] = {sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0), sbx__jit_i32(jm, in->idx)};
        sbx__jit_call_c(f, JIT_RT_ELEM_DROP, jm->t_void, p, a, 2);
        return true;
    }
    }
}

bool sbx__jit_emit_table(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    switch (in->op) {
    case WASM_OP_TABLE_GET:
    case WASM_OP_TABLE_SET:
        *ok = op_get_set(f, in);
        return true;
    case WASM_OP_TABLE_GROW:
    case WASM_OP_TABLE_FILL:
        *ok = op_grow_fill(f, in);
        return true;
    case WASM_OP_TABLE_COPY:
    case WASM_OP_TABLE_INIT:
        *ok = op_copy_init(f, in);
        return true;
    case WASM_OP_REF_NULL:
    case WASM_OP_REF_IS_NULL:
    case WASM_OP_REF_FUNC:
    case WASM_OP_REF_AS_NON_NULL:
    case WASM_OP_TABLE_SIZE:
    case WASM_OP_ELEM_DROP:
        *ok = op_ref(f, in);
        return true;
    default:
        return false;
    }
}

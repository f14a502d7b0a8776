/* wasm/jit/emit_eh.c: exception handling in compiled code (docs/wasm.md, "Exception
 * handling"). A try_table is a block with a dispatch block. Inside its body, whatever may throw
 * leaves the exception there instead of unwinding: a call goes through sbx__jit_rt_try_call
 * (rt.c: the setjmp is in C, so LLVM code never holds a returns_twice call and needs no
 * landing pads), throw and throw_ref make the exception (exn_new, exn_ref) and branch. The
 * dispatch, emitted at the try_table's end, tries the clauses in order (a tag test each) and
 * delivers the values from the exception's slots to the clause's label, or goes on to the
 * enclosing try_table's dispatch; past the function's outermost one, throw_ref unwinds to the
 * innermost try_call or entry. A return_call* leaves the try_table: its callee's exceptions
 * go to the caller (emit_call.c clears f->handler_bb around it). */
#include <stddef.h>

#include "wasm/code.h"
#include "wasm/jit/emit.h"

#define MAX_THROW_VALUES 1000 /* a tag's values: the decoder's limit on params */

/* Inside a try_table: exn (a struct wasm_exn *) goes to the innermost dispatch. */
static void to_handler(struct jit_func *f, LLVMValueRef exn)
{
    L(BuildStore)(f->b, exn, f->exn_var);
    L(BuildBr)(f->b, f->handler_bb);
}

bool sbx__jit_eh_open(struct jit_func *f, const struct wasm_instr *in, struct jit_ctl *c)
{
    c->try_in = *in;
    c->outer_handler = f->handler_bb;
    c->handler_bb = f->handler_bb;
    if (in->count == 0) /* no clause: exceptions go to the enclosing dispatch, if any */
        return true;
    if (!f->exn_var)
        f->exn_var = sbx__jit_alloca(f, f->jm->t_ptr);
    c->handler_bb = sbx__jit_block(f, "dispatch");
    f->handler_bb = c->handler_bb;
    return true;
}

/* Clause k caught exn: its values (loaded before exn_take may free it), its exnref, then the
 * branch to its label. */
static void deliver(struct jit_func *f, LLVMValueRef exn, const struct wasm_catch *k)
{
    struct jit_mod *jm = f->jm;
    uint32_t sp = f->sp;
    bool is_ref = k->kind == WASM_CATCH_REF || k->kind == WASM_CATCH_ALL_REF;
    if (k->kind == WASM_CATCH || k->kind == WASM_CATCH_REF) {
        const struct wasm_functype *t = &f->m->types[f->m->tag_types[k->tag]];
        LLVMValueRef off = sbx__jit_i64(jm, offsetof(struct wasm_exn, slots));
        LLVMValueRef slots = L(BuildGEP2)(f->b, jm->t_i8, exn, &off, 1, "");
        for (uint32_t i = 0, s = 0; i < t->param_count; s += sbx__wasm_type_slots(t->types[i++]))
            sbx__jit_push(f, sbx__jit_unpack(f, slots, s, t->types[i]));
    }
    if (is_ref)
        sbx__jit_push(f, exn);
    LLVMTypeRef p[] = {jm->t_ptr, jm->t_ptr, jm->t_i32};
    LLVMValueRef a[] = {sbx__jit_sym(jm, JIT_SYM_JIT, 0), exn, sbx__jit_i32(jm, is_ref)};
    sbx__jit_call_c(f, JIT_RT_EXN_TAKE, jm->t_void, p, a, 3);
    if (!f->is_nomem)
        sbx__jit_branch(f, k->label);
    f->sp = sp;
}

/* No clause matched: the enclosing try_table's dispatch, or unwinding out of the function. */
static void unmatched(struct jit_func *f, LLVMValueRef exn, LLVMBasicBlockRef outer)
{
    struct jit_mod *jm = f->jm;
    if (outer) {
        L(BuildBr)(f->b, outer); /* exn is still in f->exn_var */
        return;
    }
    LLVMTypeRef p[] = {jm->t_ptr, jm->t_ptr};
    LLVMValueRef a[] = {sbx__jit_sym(jm, JIT_SYM_JIT, 0), exn};
    sbx__jit_call_c(f, JIT_RT_THROW_REF, jm->t_void, p, a, 2);
    L(BuildUnreachable)(f->b);
}

bool sbx__jit_eh_close(struct jit_func *f, const struct jit_ctl *c)
{
    struct jit_mod *jm = f->jm;
    f->handler_bb = c->outer_handler;
    if (c->try_in.count == 0)
        return true;
    LLVMBasicBlockRef here = L(GetInsertBlock)(f->b);
    L(PositionBuilderAtEnd)(f->b, c->handler_bb);
    sbx__jit_fault_slot_after_call(f); /* the callee that threw wrote its own */
    LLVMValueRef exn = L(BuildLoad2)(f->b, jm->t_ptr, f->exn_var, "exn");
    const uint8_t *cursor = NULL;
    bool is_all = false;
    for (uint32_t i = 0; i < c->try_in.count && !is_all && !f->is_nomem; i++) {
        struct wasm_catch k = sbx__wasm_catch_next(&c->try_in, &cursor);
        is_all = k.kind == WASM_CATCH_ALL || k.kind == WASM_CATCH_ALL_REF;
        if (is_all) {
            deliver(f, exn, &k);
            break;
        }
        LLVMTypeRef p[] = {jm->t_ptr, jm->t_ptr, jm->t_i32};
        LLVMValueRef a[] = {sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0), exn, sbx__jit_i32(jm, k.tag)};
        LLVMValueRef is = sbx__jit_call_c(f, JIT_RT_EXN_IS, jm->t_i32, p, a, 3);
        LLVMBasicBlockRef match = sbx__jit_block(f, "catch"), next = sbx__jit_block(f, "next");
        L(BuildCondBr)
        (f->b, L(BuildICmp)(f->b, LLVMIntNE, is, sbx__jit_i32(jm, 0), ""), match, next);
        L(PositionBuilderAtEnd)(f->b, match);
        deliver(f, exn, &k);
        L(PositionBuilderAtEnd)(f->b, next);
    }
    if (!is_all)
        unmatched(f, exn, c->outer_handler);
    L(PositionBuilderAtEnd)(f->b, here);
    return !f->is_nomem;
}

/* After a throw's runtime call: a caught exception (exn) goes to the try_table's dispatch; an
 * uncaught one was unwound by the runtime, which does not return. */
static void throw_end(struct jit_func *f, LLVMValueRef exn, bool is_caught)
{
    if (is_caught)
        to_handler(f, exn);
    else
        L(BuildUnreachable)(f->b);
    sbx__jit_go_dead(f);
}

/* throw: the tag's values to slots; outside a try_table the runtime unwinds (rt.c), inside
 * one the exception goes to its dispatch. throw_ref likewise. */
bool sbx__jit_emit_throw(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef js = sbx__jit_sym(jm, JIT_SYM_JIT, 0);
    bool is_caught = f->handler_bb != NULL;
    if (in->op == WASM_OP_THROW_REF) {
        LLVMTypeRef p[] = {jm->t_ptr, jm->t_ptr};
        LLVMValueRef a[] = {js, sbx__jit_pop(f)};
        LLVMValueRef exn = sbx__jit_call_c(f, is_caught ? JIT_RT_EXN_REF : JIT_RT_THROW_REF,
                                           is_caught ? jm->t_ptr : jm->t_void, p, a, 2);
        throw_end(f, exn, is_caught);
        return true;
    }
    const struct wasm_functype *t = &f->m->types[f->m->tag_types[in->idx]];
    LLVMValueRef vals[MAX_THROW_VALUES];
    if (t->param_count > MAX_THROW_VALUES) {
        jm->feature = "tags with over 1000 values";
        return false;
    }
    for (uint32_t i = t->param_count; i > 0; i--)
        vals[i - 1] = sbx__jit_pop(f);
    LLVMValueRef packed = sbx__jit_pack(f, vals, t->types, t->param_count,
                                        sbx__wasm_types_slots(t->types, t->param_count));
    LLVMTypeRef p[] = {jm->t_ptr, jm->t_ptr, jm->t_i32, jm->t_ptr};
    LLVMValueRef a[] = {js, sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0), sbx__jit_i32(jm, in->idx),
                        packed};
    LLVMValueRef exn = sbx__jit_call_c(f, is_caught ? JIT_RT_EXN_NEW : JIT_RT_THROW,
                                       is_caught ? jm->t_ptr : jm->t_void, p, a, 4);
    throw_end(f, exn, is_caught);
    return true;
}

void sbx__jit_call_try(struct jit_func *f, LLVMValueRef fn, const struct wasm_functype *t,
                       LLVMValueRef *args, LLVMValueRef *res)
{
    LLVMValueRef slots;
    LLVMValueRef exn = sbx__jit_call_slots(f, JIT_RT_TRY_CALL, f->jm->t_ptr, fn, t, args, &slots);
    LLVMBasicBlockRef thrown = sbx__jit_block(f, "thrown"), back = sbx__jit_block(f, "returned");
    L(BuildCondBr)(f->b, L(BuildIsNull)(f->b, exn, ""), back, thrown);
    L(PositionBuilderAtEnd)(f->b, thrown);
    to_handler(f, exn);
    L(PositionBuilderAtEnd)(f->b, back);
    sbx__jit_unpack_results(f, slots, t, res);
}

/* wasm/jit/emit_call.c: calls. A call to a function of this module is a direct native call
 * (in a hot-only batch, to one of the batch; others go through sbx__jit_rt_call());
 * call_indirect checks bounds, null and signature as the interpreter does, then calls natively
 * when the target belongs to this instance, else through sbx__jit_rt_call() with the values
 * in 64-bit slots, the layout the interpreter's host calls use; inside a try_table every call
 * goes through sbx__jit_rt_try_call (emit_eh.c). Each function also gets a
 * wrapper with that slot ABI (wasm_func.jit_entry) for the host's entry and foreign callers. */
#include <stddef.h>

#include "wasm/code.h"
#include "wasm/jit/emit.h"
#include "wasm/jit/rt.h"

/* LLVM's tailcc (llvm/IR/CallingConv.h: Tail = 18; the C API names no constant for it): a call
 * marked tail in tail position is always a jump, whatever the two signatures. */
#define JIT_TAILCC 18u

void sbx__jit_func_conv(struct jit_mod *jm, LLVMValueRef fn)
{
    if (jm->m->has_tail_calls)
        L(SetFunctionCallConv)(fn, JIT_TAILCC);
}

void sbx__jit_call_conv(struct jit_mod *jm, LLVMValueRef call)
{
    if (jm->m->has_tail_calls)
        L(SetInstructionCallConv)(call, JIT_TAILCC);
}

static LLVMValueRef to_slot(struct jit_func *f, LLVMValueRef v, wasm_vtype type)
{
    struct jit_mod *jm = f->jm;
    switch (type) {
    case WASM_I32:
        return L(BuildZExt)(f->b, v, jm->t_i64, "");
    case WASM_F32:
        return L(BuildZExt)(f->b, L(BuildBitCast)(f->b, v, jm->t_i32, ""), jm->t_i64, "");
    case WASM_F64:
        return L(BuildBitCast)(f->b, v, jm->t_i64, "");
    case WASM_I64:
        return v;
    default:
        return L(BuildPtrToInt)(f->b, v, jm->t_i64, "");
    }
}

static LLVMValueRef from_slot(struct jit_func *f, LLVMValueRef s, wasm_vtype type)
{
    struct jit_mod *jm = f->jm;
    switch (type) {
    case WASM_I32:
        return L(BuildTrunc)(f->b, s, jm->t_i32, "");
    case WASM_F32:
        return L(BuildBitCast)(f->b, L(BuildTrunc)(f->b, s, jm->t_i32, ""), jm->t_f32, "");
    case WASM_F64:
        return L(BuildBitCast)(f->b, s, jm->t_f64, "");
    case WASM_I64:
        return s;
    default:
        return L(BuildIntToPtr)(f->b, s, jm->t_ptr, "");
    }
}

static LLVMValueRef slot_at(struct jit_func *f, LLVMValueRef slots, uint32_t i)
{
    LLVMValueRef idx = sbx__jit_i64(f->jm, i);
    return L(BuildGEP2)(f->b, f->jm->t_i64, slots, &idx, 1, "");
}

/* A v128 fills two slots (code.h), the interpreter's layout, stored whole: slots are only
 * 8-byte aligned. */
void sbx__jit_store_slot(struct jit_func *f, LLVMValueRef v, wasm_vtype type, LLVMValueRef slots,
                         uint32_t i)
{
    bool is_v128 = type == WASM_V128;
    LLVMValueRef st = L(BuildStore)(f->b, is_v128 ? v : to_slot(f, v, type), slot_at(f, slots, i));
    if (is_v128)
        L(SetAlignment)(st, 8);
}

LLVMValueRef sbx__jit_pack(struct jit_func *f, LLVMValueRef *vals, const wasm_vtype *types,
                           uint32_t n, uint32_t room)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef slots = sbx__jit_alloca(f, L(ArrayType)(jm->t_i64, room ? room : 1));
    for (uint32_t i = 0, k = 0; i < n; k += sbx__wasm_type_slots(types[i++]))
        sbx__jit_store_slot(f, vals[i], types[i], slots, k);
    return slots;
}

LLVMValueRef sbx__jit_unpack(struct jit_func *f, LLVMValueRef slots, uint32_t i, wasm_vtype type)
{
    if (type == WASM_V128) {
        LLVMValueRef v = L(BuildLoad2)(f->b, sbx__jit_type(f->jm, type), slot_at(f, slots, i), "");
        L(SetAlignment)(v, 8);
        return v;
    }
    LLVMValueRef s = L(BuildLoad2)(f->b, f->jm->t_i64, slot_at(f, slots, i), "");
    return from_slot(f, s, type);
}

/* Pops a call's arguments into args (np values, in order). */
static void pop_args(struct jit_func *f, LLVMValueRef *args, uint32_t np)
{
    for (uint32_t i = np; i > 0; i--)
        args[i - 1] = sbx__jit_pop(f);
}

/* Result i of a native call returning several (a struct of sbx__jit_member_type). */
static LLVMValueRef result_member(struct jit_func *f, LLVMValueRef ret,
                                  const struct wasm_functype *t, uint32_t i)
{
    LLVMValueRef v = L(BuildExtractValue)(f->b, ret, i, "");
    return sbx__jit_from_member(f, v, t->types[t->param_count + i]);
}

/* Pushes the results of a native call (void, one value, or a struct). */
static void push_results(struct jit_func *f, LLVMValueRef ret, const struct wasm_functype *t)
{
    if (t->result_count == 1) {
        sbx__jit_push(f, ret);
        return;
    }
    for (uint32_t i = 0; i < t->result_count; i++)
        sbx__jit_push(f, result_member(f, ret, t, i));
}

LLVMValueRef sbx__jit_call_slots(struct jit_func *f, enum jit_rt rt, LLVMTypeRef ret,
                                 LLVMValueRef fn, const struct wasm_functype *t, LLVMValueRef *args,
                                 LLVMValueRef *slots)
{
    struct jit_mod *jm = f->jm;
    uint32_t ps = sbx__wasm_types_slots(t->types, t->param_count);
    uint32_t rs = sbx__wasm_results_slots(t);
    *slots = sbx__jit_pack(f, args, t->types, t->param_count, ps > rs ? ps : rs);
    LLVMTypeRef p[] = {jm->t_ptr, jm->t_ptr, jm->t_ptr, jm->t_ptr};
    LLVMValueRef a[] = {sbx__jit_sym(jm, JIT_SYM_JIT, 0), fn, sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0),
                        *slots};
    return sbx__jit_call_c(f, rt, ret, p, a, 4);
}

void sbx__jit_unpack_results(struct jit_func *f, LLVMValueRef slots, const struct wasm_functype *t,
                             LLVMValueRef *res)
{
    const wasm_vtype *rtypes = t->types + t->param_count;
    for (uint32_t i = 0, k = 0; i < t->result_count; k += sbx__wasm_type_slots(rtypes[i++]))
        res[i] = sbx__jit_unpack(f, slots, k, rtypes[i]);
}

void sbx__jit_call_runtime(struct jit_func *f, LLVMValueRef fn, const struct wasm_functype *t,
                           LLVMValueRef *args, LLVMValueRef *res)
{
    LLVMValueRef slots;
    sbx__jit_call_slots(f, JIT_RT_CALL, f->jm->t_void, fn, t, args, &slots);
    sbx__jit_unpack_results(f, slots, t, res);
}

#define MAX_CALL_VALUES 1000 /* params or results of one type: the decoder's limit */

static bool op_call(struct jit_func *f, uint32_t idx)
{
    struct jit_mod *jm = f->jm;
    const struct wasm_functype *t = &f->m->types[f->m->func_type_idx[idx]];
    LLVMValueRef args[MAX_CALL_VALUES], res[MAX_CALL_VALUES];
    if (t->param_count > MAX_CALL_VALUES || t->result_count > MAX_CALL_VALUES) {
        jm->feature = "functions with over 1000 params or results";
        return false;
    }
    pop_args(f, args, t->param_count);
    uint32_t def = idx - f->m->func_import_count;
    if (f->handler_bb) { /* inside a try_table */
        sbx__jit_call_try(f, sbx__jit_sym(jm, JIT_SYM_FUNC, idx), t, args, res);
        for (uint32_t i = 0; i < t->result_count; i++)
            sbx__jit_push(f, res[i]);
        return true;
    }
    if (idx >= f->m->func_import_count && jm->fns[def]) { /* in this batch (hot-only) */
        LLVMValueRef ret = L(BuildCall2)(f->b, jm->fn_types[f->m->func_type_idx[idx]], jm->fns[def],
                                         args, t->param_count, "");
        sbx__jit_call_conv(jm, ret);
        push_results(f, ret, t);
        return true;
    }
    sbx__jit_call_runtime(f, sbx__jit_sym(jm, JIT_SYM_FUNC, idx), t, args, res);
    for (uint32_t i = 0; i < t->result_count; i++)
        sbx__jit_push(f, res[i]);
    return true;
}

/* Bounds, null and signature checks of call_indirect; returns the struct wasm_func *. */
static LLVMValueRef indirect_target(struct jit_func *f, uint32_t type_idx, uint32_t table_idx)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef i = sbx__jit_idx32(f, sbx__jit_pop(f), f->m->tables[table_idx].is64);
    LLVMValueRef size =
        sbx__jit_load_at(f, jm->t_i32, JIT_SYM_TABLE, table_idx, offsetof(struct wasm_table, size));
    sbx__jit_alias(jm, size, JIT_ALIAS_TABLE);
    sbx__jit_trap_if(f, L(BuildICmp)(f->b, LLVMIntUGE, i, size, ""), WASM_TRAP_UNDEFINED_ELEMENT);
    LLVMValueRef elems = sbx__jit_load_at(f, jm->t_ptr, JIT_SYM_TABLE, table_idx,
                                          offsetof(struct wasm_table, elems));
    sbx__jit_alias(jm, elems, JIT_ALIAS_TABLE);
    LLVMValueRef i64 = L(BuildZExt)(f->b, i, jm->t_i64, "");
    LLVMValueRef fn =
        L(BuildLoad2)(f->b, jm->t_ptr, L(BuildGEP2)(f->b, jm->t_ptr, elems, &i64, 1, ""), "");
    sbx__jit_trap_if(f, L(BuildIsNull)(f->b, fn, ""), WASM_TRAP_UNINITIALIZED_ELEMENT);
    LLVMValueRef want = sbx__jit_sym(jm, JIT_SYM_TYPE, type_idx);
    LLVMValueRef have = sbx__jit_load_field(f, jm->t_ptr, fn, offsetof(struct wasm_func, rtt));
    LLVMValueRef same = L(BuildICmp)(f->b, LLVMIntEQ, have, want, "");
    LLVMBasicBlockRef slow = sbx__jit_block(f, "sig_cmp"), ok = sbx__jit_block(f, "sig_ok");
    L(BuildCondBr)(f->b, same, ok, slow);
    L(PositionBuilderAtEnd)(f->b, slow);
    LLVMTypeRef p[] = {jm->t_ptr, jm->t_ptr};
    LLVMValueRef a[] = {fn, want};
    LLVMValueRef eq = sbx__jit_call_c(f, JIT_RT_SIG_EQ, jm->t_i32, p, a, 2);
    sbx__jit_trap_if(f, L(BuildICmp)(f->b, LLVMIntEQ, eq, sbx__jit_i32(jm, 0), ""),
                     WASM_TRAP_INDIRECT_TYPE);
    L(BuildBr)(f->b, ok);
    L(PositionBuilderAtEnd)(f->b, ok);
    return fn;
}

/* Calls fn (a struct wasm_func * of type type_idx's signature, checked), its args on the
 * stack: natively when it is this instance's (fn_table), else through the runtime. */
static bool call_fn(struct jit_func *f, LLVMValueRef fn, uint32_t type_idx)
{
    struct jit_mod *jm = f->jm;
    const struct wasm_functype *t = &f->m->types[type_idx];
    LLVMValueRef args[MAX_CALL_VALUES], fast[MAX_CALL_VALUES], slow[MAX_CALL_VALUES];
    if (t->param_count > MAX_CALL_VALUES || t->result_count > MAX_CALL_VALUES) {
        jm->feature = "functions with over 1000 params or results";
        return false;
    }
    pop_args(f, args, t->param_count);
    if (f->handler_bb || !jm->fn_table) { /* a hot-only batch: the target may be elsewhere */
        if (f->handler_bb)
            sbx__jit_call_try(f, fn, t, args, slow);
        else
            sbx__jit_call_runtime(f, fn, t, args, slow);
        for (uint32_t i = 0; i < t->result_count; i++)
            sbx__jit_push(f, slow[i]);
        return true;
    }
    LLVMValueRef finst = sbx__jit_load_field(f, jm->t_ptr, fn, offsetof(struct wasm_func, inst));
    LLVMValueRef mine =
        L(BuildICmp)(f->b, LLVMIntEQ, finst, sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0), "");
    LLVMBasicBlockRef fast_bb = sbx__jit_block(f, "ci_native"),
                      slow_bb = sbx__jit_block(f, "ci_slow");
    LLVMBasicBlockRef join = sbx__jit_block(f, "ci_join");
    L(BuildCondBr)(f->b, mine, fast_bb, slow_bb);
    L(PositionBuilderAtEnd)(f->b, fast_bb);
    LLVMValueRef def = sbx__jit_load_field(f, jm->t_i32, fn, offsetof(struct wasm_func, def_index));
    LLVMValueRef def64 = L(BuildZExt)(f->b, def, jm->t_i64, "");
    LLVMValueRef native = L(BuildLoad2)(
        f->b, jm->t_ptr, L(BuildGEP2)(f->b, jm->t_ptr, jm->fn_table, &def64, 1, ""), "");
    LLVMValueRef ret =
        L(BuildCall2)(f->b, jm->fn_types[type_idx], native, args, t->param_count, "");
    sbx__jit_call_conv(jm, ret);
    for (uint32_t i = 0; i < t->result_count; i++)
        fast[i] = t->result_count == 1 ? ret : result_member(f, ret, t, i);
    LLVMBasicBlockRef fast_end = L(GetInsertBlock)(f->b);
    L(BuildBr)(f->b, join);
    L(PositionBuilderAtEnd)(f->b, slow_bb);
    sbx__jit_call_runtime(f, fn, t, args, slow);
    LLVMBasicBlockRef slow_end = L(GetInsertBlock)(f->b);
    L(BuildBr)(f->b, join);
    L(PositionBuilderAtEnd)(f->b, join);
    for (uint32_t i = 0; i < t->result_count; i++) {
        LLVMValueRef phi = L(BuildPhi)(f->b, L(TypeOf)(fast[i]), "");
        LLVMValueRef vals[] = {fast[i], slow[i]};
        LLVMBasicBlockRef bbs[] = {fast_end, slow_end};
        L(AddIncoming)(phi, vals, bbs, 2);
        sbx__jit_push(f, phi);
    }
    return true;
}

static bool op_call_indirect(struct jit_func *f, const struct wasm_instr *in)
{
    return call_fn(f, indirect_target(f, in->idx, in->idx2), in->idx);
}

/* call_ref's callee: the reference on top, null trapping (its type is checked statically). */
static LLVMValueRef ref_target(struct jit_func *f)
{
    LLVMValueRef fn = sbx__jit_pop(f);
    sbx__jit_trap_if(f, L(BuildIsNull)(f->b, fn, ""), WASM_TRAP_NULL_FUNC_REF);
    return fn;
}

/* The tail of a return_call*: the native call's value returned as the caller's own (a call
 * marked tail, in tail position, of tailcc: a jump), or the slow call's results returned. */
static void tail_return(struct jit_func *f, LLVMValueRef call, const struct wasm_functype *t)
{
    L(SetTailCall)(call, 1);
    if (t->result_count == 0)
        L(BuildRetVoid)(f->b);
    else
        L(BuildRet)(f->b, call);
}

/* return_call: to a function of this part, a guaranteed tail call (tailcc, engine.c); to
 * another (an import, another instance or hot-only batch) the call then the return: such a
 * chain costs a native frame per crossing (docs/wasm.md, "Tail calls"). */
static bool op_return_call(struct jit_func *f, uint32_t idx)
{
    struct jit_mod *jm = f->jm;
    uint32_t def = idx - f->m->func_import_count;
    if (f->osr_slots || idx < f->m->func_import_count || !jm->fns[def]) {
        if (!op_call(f, idx)) /* in an OSR entry too, whose return stores into slots */
            return false;
        sbx__jit_return(f);
        return true;
    }
    const struct wasm_functype *t = &f->m->types[f->m->func_type_idx[idx]];
    LLVMValueRef args[MAX_CALL_VALUES];
    pop_args(f, args, t->param_count);
    LLVMValueRef call = L(BuildCall2)(f->b, jm->fn_types[f->m->func_type_idx[idx]], jm->fns[def],
                                      args, t->param_count, "");
    sbx__jit_call_conv(jm, call);
    tail_return(f, call, t);
    return true;
}

/* return_call_indirect / return_call_ref (fn the callee, checked): a tail call when the target
 * is native code of this instance (the whole-module case), else the call then the return. */
static bool tail_call_fn(struct jit_func *f, LLVMValueRef fn, uint32_t type_idx)
{
    struct jit_mod *jm = f->jm;
    const struct wasm_functype *t = &f->m->types[type_idx];
    if (f->osr_slots || !jm->fn_table) {
        if (!call_fn(f, fn, type_idx))
            return false;
        sbx__jit_return(f);
        return true;
    }
    LLVMValueRef args[MAX_CALL_VALUES], slow[MAX_CALL_VALUES];
    if (t->param_count > MAX_CALL_VALUES || t->result_count > MAX_CALL_VALUES) {
        jm->feature = "functions with over 1000 params or results";
        return false;
    }
    pop_args(f, args, t->param_count);
    LLVMValueRef finst = sbx__jit_load_field(f, jm->t_ptr, fn, offsetof(struct wasm_func, inst));
    LLVMValueRef mine =
        L(BuildICmp)(f->b, LLVMIntEQ, finst, sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0), "");
    LLVMBasicBlockRef fast_bb = sbx__jit_block(f, "rci_native"),
                      slow_bb = sbx__jit_block(f, "rci_slow");
    L(BuildCondBr)(f->b, mine, fast_bb, slow_bb);
    L(PositionBuilderAtEnd)(f->b, fast_bb);
    LLVMValueRef def = sbx__jit_load_field(f, jm->t_i32, fn, offsetof(struct wasm_func, def_index));
    LLVMValueRef def64 = L(BuildZExt)(f->b, def, jm->t_i64, "");
    LLVMValueRef native = L(BuildLoad2)(
        f->b, jm->t_ptr, L(BuildGEP2)(f->b, jm->t_ptr, jm->fn_table, &def64, 1, ""), "");
    LLVMValueRef call =
        L(BuildCall2)(f->b, jm->fn_types[type_idx], native, args, t->param_count, "");
    sbx__jit_call_conv(jm, call);
    tail_return(f, call, t);
    L(PositionBuilderAtEnd)(f->b, slow_bb);
    sbx__jit_call_runtime(f, fn, t, args, slow);
    for (uint32_t i = 0; i < t->result_count; i++)
        sbx__jit_push(f, slow[i]);
    sbx__jit_return(f);
    return true;
}

/* A return_call* leaves the try_tables around it: its callee's exceptions are the caller's. */
static bool emit_tail(struct jit_func *f, const struct wasm_instr *in)
{
    LLVMBasicBlockRef handler = f->handler_bb;
    f->handler_bb = NULL;
    bool ok;
    if (in->op == WASM_OP_RETURN_CALL)
        ok = op_return_call(f, in->idx);
    else if (in->op == WASM_OP_RETURN_CALL_INDIRECT)
        ok = tail_call_fn(f, indirect_target(f, in->idx, in->idx2), in->idx);
    else
        ok = tail_call_fn(f, ref_target(f), in->idx);
    f->handler_bb = handler;
    sbx__jit_go_dead(f);
    return ok;
}

bool sbx__jit_emit_call(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    switch (in->op) {
    case WASM_OP_RETURN_CALL:
    case WASM_OP_RETURN_CALL_INDIRECT:
    case WASM_OP_RETURN_CALL_REF:
        *ok = emit_tail(f, in);
        return true;
    case WASM_OP_CALL:
        *ok = op_call(f, in->idx);
        break;
    case WASM_OP_CALL_INDIRECT:
        *ok = op_call_indirect(f, in);
        break;
    case WASM_OP_CALL_REF:
        *ok = call_fn(f, ref_target(f), in->idx);
        break;
    default:
        return false;
    }
    if (*ok)
        sbx__jit_fault_slot_after_call(f);
    return true;
}

bool sbx__jit_emit_wrapper(struct jit_mod *jm, uint32_t def_idx, const char *name)
{
    const struct wasm_functype *t = &jm->m->types[jm->m->funcs[def_idx].type_index];
    LLVMValueRef args[MAX_CALL_VALUES];
    if (t->param_count > MAX_CALL_VALUES || t->result_count > MAX_CALL_VALUES) {
        jm->feature = "functions with over 1000 params or results";
        return false;
    }
    LLVMTypeRef wty = L(FunctionType)(jm->t_void, &jm->t_ptr, 1, 0);
    struct jit_func f = {.jm = jm, .b = jm->b, .m = jm->m};
    f.fn = L(AddFunction)(jm->mod, name, wty);
    L(PositionBuilderAtEnd)(jm->b, sbx__jit_block(&f, "entry"));
    LLVMValueRef slots = L(GetParam)(f.fn, 0);
    for (uint32_t i = 0, k = 0; i < t->param_count; k += sbx__wasm_type_slots(t->types[i++]))
        args[i] = sbx__jit_unpack(&f, slots, k, t->types[i]);
    LLVMValueRef ret = L(BuildCall2)(jm->b, jm->fn_types[jm->m->funcs[def_idx].type_index],
                                     jm->fns[def_idx], args, t->param_count, "");
    sbx__jit_call_conv(jm, ret);
    const wasm_vtype *rtypes = t->types + t->param_count;
    for (uint32_t i = 0, k = 0; i < t->result_count; k += sbx__wasm_type_slots(rtypes[i++])) {
        LLVMValueRef v = t->result_count == 1 ? ret : result_member(&f, ret, t, i);
        sbx__jit_store_slot(&f, v, rtypes[i], slots, k);
    }
    L(BuildRetVoid)(jm->b);
    return true;
}

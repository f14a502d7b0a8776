/* wasm/jit/emit_func.c: translating one function body: the operand stack, locals, trap blocks,
 * and the instruction loop that hands each instruction to its family's emitter. Dead code
 * (after br, return, unreachable) is skipped to its matching end or else, as the spec types it
 * (any values) but it cannot run. */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/code.h"
#include "wasm/jit/emit.h"
#include "wasm/jit/rt.h"

void sbx__jit_push(struct jit_func *f, LLVMValueRef v)
{
    if (f->sp == f->stack_cap) {
        uint32_t cap = f->stack_cap ? 2 * f->stack_cap : 64;
        LLVMValueRef *s = sbx__reallocn(f->stack, cap, sizeof(*s));
        if (!s) {
            f->is_nomem = true;
            return;
        }
        f->stack = s;
        f->stack_cap = cap;
    }
    f->stack[f->sp++] = v;
}

LLVMValueRef sbx__jit_pop(struct jit_func *f)
{
    /* Validation guarantees the value; an empty stack only follows a NOMEM push. */
    return f->sp ? f->stack[--f->sp] : L(GetUndef)(f->jm->t_i32);
}

LLVMTypeRef sbx__jit_type(struct jit_mod *jm, wasm_vtype valtype)
{
    switch (valtype) {
    case WASM_I32:
        return jm->t_i32;
    case WASM_I64:
        return jm->t_i64;
    case WASM_F32:
        return jm->t_f32;
    case WASM_F64:
        return jm->t_f64;
    case WASM_V128:
        return L(VectorType)(jm->t_i64, 2); /* a SIMD op bitcasts it to its lane shape */
    default:
        return jm->t_ptr;
    }
}

LLVMTypeRef sbx__jit_member_type(struct jit_mod *jm, wasm_vtype valtype)
{
    if (valtype == WASM_F32)
        return jm->t_i32;
    return valtype == WASM_F64 ? jm->t_i64 : sbx__jit_type(jm, valtype);
}

LLVMValueRef sbx__jit_to_member(struct jit_func *f, LLVMValueRef v, wasm_vtype valtype)
{
    LLVMTypeRef t = sbx__jit_member_type(f->jm, valtype);
    return t == sbx__jit_type(f->jm, valtype) ? v : L(BuildBitCast)(f->b, v, t, "");
}

LLVMValueRef sbx__jit_from_member(struct jit_func *f, LLVMValueRef v, wasm_vtype valtype)
{
    LLVMTypeRef t = sbx__jit_type(f->jm, valtype);
    return t == sbx__jit_member_type(f->jm, valtype) ? v : L(BuildBitCast)(f->b, v, t, "");
}

LLVMValueRef sbx__jit_i32(struct jit_mod *jm, uint64_t v)
{
    return L(ConstInt)(jm->t_i32, v, 0);
}

LLVMValueRef sbx__jit_i64(struct jit_mod *jm, uint64_t v)
{
    return L(ConstInt)(jm->t_i64, v, 0);
}

LLVMValueRef sbx__jit_sym(struct jit_mod *jm, enum jit_sym kind, uint32_t idx)
{
    char name[48];
    sbx__jit_sym_name(name, sizeof(name), kind, idx);
    LLVMValueRef g = L(GetNamedGlobal)(jm->mod, name);
    return g ? g : L(AddGlobal)(jm->mod, jm->t_i8, name); /* external: the loader resolves it */
}

LLVMValueRef sbx__jit_load_field(struct jit_func *f, LLVMTypeRef t, LLVMValueRef p, size_t off)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef idx = sbx__jit_i64(jm, off);
    LLVMValueRef at = off ? L(BuildGEP2)(f->b, jm->t_i8, p, &idx, 1, "") : p;
    LLVMValueRef v = L(BuildLoad2)(f->b, t, at, "");
    sbx__jit_alias(jm, v, JIT_ALIAS_FUNC); /* only struct wasm_func fields are read this way */
    return v;
}

LLVMValueRef sbx__jit_load_at(struct jit_func *f, LLVMTypeRef t, enum jit_sym kind, uint32_t idx,
                              size_t off)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef p = sbx__jit_sym(jm, kind, idx), i = sbx__jit_i64(jm, off);
    return L(BuildLoad2)(f->b, t, off ? L(BuildGEP2)(f->b, jm->t_i8, p, &i, 1, "") : p, "");
}

LLVMValueRef sbx__jit_call_c(struct jit_func *f, enum jit_rt rt, LLVMTypeRef ret,
                             LLVMTypeRef *params, LLVMValueRef *args, unsigned n)
{
    char name[48];
    sbx__jit_sym_name(name, sizeof(name), JIT_SYM_RT, rt);
    LLVMTypeRef fty = L(FunctionType)(ret, params, n, 0);
    LLVMValueRef fn = L(GetNamedFunction)(f->jm->mod, name);
    if (!fn)
        fn = L(AddFunction)(f->jm->mod, name, fty);
    return L(BuildCall2)(f->b, fty, fn, args, n, "");
}

LLVMValueRef sbx__jit_intrinsic(struct jit_func *f, const char *name, LLVMTypeRef *over,
                                size_t nover, LLVMValueRef *args, unsigned nargs)
{
    unsigned id = L(LookupIntrinsicID)(name, strlen(name));
    LLVMValueRef decl = L(GetIntrinsicDeclaration)(f->jm->mod, id, over, nover);
    LLVMTypeRef fty = L(IntrinsicGetType)(f->jm->ctx, id, over, nover);
    return L(BuildCall2)(f->b, fty, decl, args, nargs, "");
}

LLVMBasicBlockRef sbx__jit_block(struct jit_func *f, const char *name)
{
    return L(AppendBasicBlockInContext)(f->jm->ctx, f->fn, name);
}

/* The trap call: sbx__jit_rt_trap(store state, kind, instance, function index), noreturn. */
static void call_trap(struct jit_func *f, LLVMValueRef kind)
{
    struct jit_mod *jm = f->jm;
    LLVMTypeRef p[] = {jm->t_ptr, jm->t_i32, jm->t_ptr, jm->t_i32};
    LLVMValueRef a[] = {sbx__jit_sym(jm, JIT_SYM_JIT, 0), kind,
                        sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0), sbx__jit_i32(jm, f->func_idx)};
    LLVMValueRef call = sbx__jit_call_c(f, JIT_RT_TRAP, jm->t_void, p, a, 4);
    L(SetInstructionCallConv)(call, LLVMCCallConv);
    L(BuildUnreachable)(f->b);
}

static LLVMValueRef unlikely(struct jit_func *f, LLVMValueRef cond)
{
    LLVMTypeRef t = f->jm->t_i1;
    LLVMValueRef a[] = {cond, L(ConstInt)(t, 0, 0)};
    return sbx__jit_intrinsic(f, "llvm.expect", &t, 1, a, 2);
}

void sbx__jit_trap_if(struct jit_func *f, LLVMValueRef cond, enum wasm_trap_kind kind)
{
    LLVMBasicBlockRef cont = sbx__jit_block(f, "ok");
    if (!f->trap_bb[kind]) {
        LLVMBasicBlockRef here = L(GetInsertBlock)(f->b);
        f->trap_bb[kind] = sbx__jit_block(f, "trap");
        L(PositionBuilderAtEnd)(f->b, f->trap_bb[kind]);
        call_trap(f, sbx__jit_i32(f->jm, (uint64_t)kind));
        L(PositionBuilderAtEnd)(f->b, here);
    }
    L(BuildCondBr)(f->b, unlikely(f, cond), f->trap_bb[kind], cont);
    L(PositionBuilderAtEnd)(f->b, cont);
}

void sbx__jit_trap_if_kind(struct jit_func *f, LLVMValueRef kind)
{
    LLVMBasicBlockRef cont = sbx__jit_block(f, "ok"), trap = sbx__jit_block(f, "trapk");
    LLVMValueRef cond = L(BuildICmp)(f->b, LLVMIntNE, kind, sbx__jit_i32(f->jm, 0), "");
    L(BuildCondBr)(f->b, unlikely(f, cond), trap, cont);
    L(PositionBuilderAtEnd)(f->b, trap);
    call_trap(f, kind);
    L(PositionBuilderAtEnd)(f->b, cont);
}

void sbx__jit_poll(struct jit_func *f)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef flag = sbx__jit_load_at(f, jm->t_i8, JIT_SYM_INTERRUPT, 0, 0);
    L(SetOrdering)(flag, LLVMAtomicOrderingMonotonic);
    L(SetAlignment)(flag, 1);
    sbx__jit_trap_if(f, L(BuildICmp)(f->b, LLVMIntNE, flag, L(ConstInt)(jm->t_i8, 0, 0), ""),
                     WASM_TRAP_INTERRUPTED);
}

/* Deep recursion traps "call stack exhausted" before the native stack runs out: the stack
 * pointer is compared with the limit set at the host's entry (rt.c). Recursion always grows
 * the stack: engine.c keeps LLVM from turning it into loops ("disable-tail-calls"). */
static void check_stack(struct jit_func *f)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef sp = sbx__jit_intrinsic(f, "llvm.stacksave", NULL, 0, NULL, 0);
    LLVMValueRef spi = L(BuildPtrToInt)(f->b, sp, jm->t_i64, "");
    LLVMValueRef lim = sbx__jit_load_at(f, jm->t_i64, JIT_SYM_STACK_LIMIT, 0, 0);
    sbx__jit_alias(jm, lim, JIT_ALIAS_LIMIT);
    sbx__jit_trap_if(f, L(BuildICmp)(f->b, LLVMIntULT, spi, lim, ""), WASM_TRAP_STACK_EXHAUSTED);
}

static LLVMValueRef zero_of(struct jit_mod *jm, wasm_vtype t)
{
    LLVMTypeRef ty = sbx__jit_type(jm, t);
    return wasm_vtype_is_ref(t) ? L(ConstPointerNull)(ty) : L(ConstNull)(ty);
}

LLVMBuilderRef sbx__jit_entry_builder(struct jit_func *f)
{
    LLVMBuilderRef eb = L(CreateBuilderInContext)(f->jm->ctx);
    LLVMValueRef first = L(GetFirstInstruction)(f->entry_bb);
    if (first)
        L(PositionBuilderBefore)(eb, first);
    else
        L(PositionBuilderAtEnd)(eb, f->entry_bb);
    return eb;
}

LLVMValueRef sbx__jit_alloca(struct jit_func *f, LLVMTypeRef t)
{
    LLVMBuilderRef eb = sbx__jit_entry_builder(f);
    LLVMValueRef a = L(BuildAlloca)(eb, t, "");
    L(DisposeBuilder)(eb);
    return a;
}

LLVMValueRef *sbx__jit_vars(struct jit_func *f, const wasm_vtype *types, uint32_t n)
{
    LLVMValueRef *v = sbx__calloc(n ? n : 1, sizeof(*v));
    if (!v) {
        f->is_nomem = true;
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        v[i] = sbx__jit_alloca(f, sbx__jit_type(f->jm, types[i]));
    return v;
}

static bool setup_locals(struct jit_func *f, const struct wasm_func_def *def)
{
    const struct wasm_functype *t = f->type;
    f->local_count = t->param_count + def->local_count;
    f->locals = sbx__calloc(f->local_count ? f->local_count : 1, sizeof(*f->locals));
    f->local_types = sbx__calloc(f->local_count ? f->local_count : 1, sizeof(*f->local_types));
    if (!f->locals || !f->local_types)
        return false;
    memcpy(f->local_types, t->types, t->param_count * sizeof(*f->local_types));
    sbx__wasm_local_types(def, f->local_types + t->param_count);
    uint32_t k = 0; /* an OSR entry's slot of local i */
    for (uint32_t i = 0; i < f->local_count; k += sbx__wasm_type_slots(f->local_types[i++])) {
        wasm_vtype ty = f->local_types[i];
        f->locals[i] = sbx__jit_alloca(f, sbx__jit_type(f->jm, ty));
        LLVMValueRef init = f->osr_slots         ? sbx__jit_unpack(f, f->osr_slots, k, ty)
                            : i < t->param_count ? L(GetParam)(f->fn, i)
                                                 : zero_of(f->jm, ty);
        L(BuildStore)(f->b, init, f->locals[i]);
    }
    f->osr_param_slot = k;
    return true;
}

static bool dispatch(struct jit_func *f, const struct wasm_instr *in)
{
    static const jit_family_fn families[] = {
        sbx__jit_emit_control, sbx__jit_emit_call,  sbx__jit_emit_variable,
        sbx__jit_emit_memory,  sbx__jit_emit_table, sbx__jit_emit_numeric,
        sbx__jit_emit_convert, sbx__jit_emit_simd,  sbx__jit_emit_gc,
    };
    bool ok = true;
    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
        if (families[i](f, in, &ok))
            return ok && !f->is_nomem;
    }
    f->jm->feature = sbx__wasm_opinfo[in->op].text; /* names the opcode, never runs it elsewhere */
    return false;
}

/* In dead code only the nesting matters: the matching end or else resumes translation. */
static bool skips(struct jit_func *f, uint16_t op)
{
    if (!f->is_dead)
        return false;
    if (op == WASM_OP_BLOCK || op == WASM_OP_LOOP || op == WASM_OP_IF || op == WASM_OP_TRY_TABLE) {
        f->skip++;
        return true;
    }
    if (op == WASM_OP_END && f->skip > 0) {
        f->skip--;
        return true;
    }
    return !(op == WASM_OP_END || (op == WASM_OP_ELSE && f->skip == 0));
}

static bool translate(struct jit_func *f, const struct wasm_func_def *def)
{
    struct wasm_reader r = {.base = f->m->bytes,
                            .file_end = f->m->bytes + f->m->len,
                            .p = def->code,
                            .end = def->code + def->code_len};
    struct wasm_instr in;
    while (f->nctl > 0) {
        if (!sbx__wasm_read_instr(&r, &in))
            return false;                     /* validated: cannot happen */
        f->loop_seq += in.op == WASM_OP_LOOP; /* the interpreter numbers loops the same way */
        if (skips(f, in.op))
            continue;
        if (!dispatch(f, &in))
            return false;
    }
    return true;
}

/* Blocks left open by dead code (no predecessors) get an unreachable terminator. */
static void close_blocks(struct jit_func *f)
{
    for (LLVMBasicBlockRef bb = L(GetFirstBasicBlock)(f->fn); bb; bb = L(GetNextBasicBlock)(bb)) {
        if (!L(GetBasicBlockTerminator)(bb)) {
            L(PositionBuilderAtEnd)(f->b, bb);
            L(BuildUnreachable)(f->b);
        }
    }
}

static void func_free(struct jit_func *f)
{
    for (uint32_t i = 0; i < f->ctl_cap; i++) {
        sbx__free(f->ctls[i].rvars);
        sbx__free(f->ctls[i].pvars);
        sbx__free(f->ctls[i].saved);
    }
    sbx__free(f->ctls);
    sbx__free(f->stack);
    sbx__free(f->locals);
    sbx__free(f->local_types);
}

/* f for def_idx's native function fn, its builder at fn's entry block. */
static void func_init(struct jit_func *f, struct jit_mod *jm, uint32_t def_idx, LLVMValueRef fn)
{
    const struct wasm_module *m = jm->m;
    const struct wasm_func_def *def = &m->funcs[def_idx];
    memset(f, 0, sizeof(*f));
    f->jm = jm;
    f->b = jm->b;
    f->m = m;
    f->func_idx = m->func_import_count + def_idx;
    f->type = &m->types[def->type_index];
    f->fn = fn;
    f->fn_type = jm->fn_types[def->type_index];
    f->entry_bb = sbx__jit_block(f, "entry");
    L(PositionBuilderAtEnd)(f->b, f->entry_bb);
}

/* Translates def_idx into fn: the function itself, or its OSR entry (is_osr), whose locals
 * come from its slots and whose body's start is unreachable (entered only at loop headers). */
static bool emit(struct jit_mod *jm, uint32_t def_idx, LLVMValueRef fn, bool is_osr)
{
    const struct wasm_func_def *def = &jm->m->funcs[def_idx];
    struct jit_func f;
    func_init(&f, jm, def_idx, fn);
    f.osr_slots = is_osr ? L(GetParam)(fn, 0) : NULL;
    bool ok = setup_locals(&f, def);
    if (ok) {
        check_stack(&f);
        if (is_osr)
            sbx__jit_osr_open(&f); /* the loop headers poll */
        else
            sbx__jit_poll(&f);
        ok = sbx__jit_open_body(&f) && translate(&f, def) && !f.is_nomem && !jm->feature;
    }
    if (ok)
        close_blocks(&f);
    func_free(&f);
    return ok;
}

bool sbx__jit_emit_func(struct jit_mod *jm, uint32_t def_idx)
{
    return emit(jm, def_idx, jm->fns[def_idx], false);
}

bool sbx__jit_emit_osr(struct jit_mod *jm, uint32_t def_idx)
{
    LLVMValueRef fn = sbx__jit_osr_declare(jm, def_idx);
    return fn && emit(jm, def_idx, fn, true);
}

#define MAX_STUB_VALUES 1000 /* params or results of one type: the decoder's limit */

bool sbx__jit_emit_stub(struct jit_mod *jm, uint32_t def_idx)
{
    struct jit_func f;
    func_init(&f, jm, def_idx, jm->fns[def_idx]);
    const struct wasm_functype *t = f.type;
    LLVMValueRef args[MAX_STUB_VALUES], res[MAX_STUB_VALUES];
    if (t->param_count > MAX_STUB_VALUES || t->result_count > MAX_STUB_VALUES) {
        jm->feature = "functions with over 1000 params or results";
        return false;
    }
    check_stack(&f); /* its slots are a frame too */
    for (uint32_t i = 0; i < t->param_count; i++)
        args[i] = L(GetParam)(f.fn, i);
    sbx__jit_call_runtime(&f, sbx__jit_sym(jm, JIT_SYM_FUNC, f.func_idx), t, args, res);
    for (uint32_t i = 0; i < t->result_count; i++)
        sbx__jit_push(&f, res[i]);
    if (!f.is_nomem)
        sbx__jit_return(&f);
    bool ok = !f.is_nomem;
    func_free(&f);
    return ok;
}

/* wasm/jit/emit_control.c: structured control (spec 4.4.8): block, loop, if/else, end, br,
 * br_if, br_table, return, unreachable, plus nop, drop and select; try_table's block (its
 * handlers: emit_eh.c). A label's values travel
 * through allocas (rvars for a block's end, pvars for a loop's header); a loop header polls
 * the interrupt flag, so a call-free infinite loop still stops. */
#include <string.h>

#include "util/alloc.h"
#include "wasm/code.h"
#include "wasm/jit/emit.h"

/* A one-value-type block's result type lives in its jit_ctl (re-pointed when the array of
 * them moves, push_ctl). */
static void block_sig(struct jit_func *f, const struct wasm_instr *in, struct jit_ctl *c)
{
    c->np = c->nr = 0;
    c->ptypes = c->rtypes = &c->single;
    if (in->bt_kind == WASM_BT_VALTYPE) {
        c->nr = 1;
        c->single = in->valtype;
        c->is_single = true;
    } else if (in->bt_kind == WASM_BT_TYPEIDX) {
        const struct wasm_functype *t = &f->m->types[in->idx];
        c->np = t->param_count;
        c->nr = t->result_count;
        c->ptypes = t->types;
        c->rtypes = t->types + t->param_count;
    }
}

static struct jit_ctl *push_ctl(struct jit_func *f, uint16_t kind)
{
    if (f->nctl == f->ctl_cap) {
        uint32_t cap = f->ctl_cap ? 2 * f->ctl_cap : 16;
        struct jit_ctl *c = sbx__reallocn(f->ctls, cap, sizeof(*c));
        if (!c) {
            f->is_nomem = true;
            return NULL;
        }
        memset(c + f->ctl_cap, 0, (cap - f->ctl_cap) * sizeof(*c));
        for (uint32_t i = 0; i < f->nctl; i++)
            if (c[i].is_single)
                c[i].ptypes = c[i].rtypes = &c[i].single;
        f->ctls = c;
        f->ctl_cap = cap;
    }
    struct jit_ctl *c = &f->ctls[f->nctl++];
    sbx__free(c->rvars);
    sbx__free(c->pvars);
    sbx__free(c->saved);
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    return c;
}

/* Stores the top n values (kept on the stack) into vars. */
static void store_top(struct jit_func *f, LLVMValueRef *vars, uint32_t n)
{
    for (uint32_t i = 0; i < n && n <= f->sp; i++)
        L(BuildStore)(f->b, f->stack[f->sp - n + i], vars[i]);
}

static void push_loads(struct jit_func *f, LLVMValueRef *vars, const wasm_vtype *types, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        sbx__jit_push(f, L(BuildLoad2)(f->b, sbx__jit_type(f->jm, types[i]), vars[i], ""));
}

bool sbx__jit_open_body(struct jit_func *f)
{
    struct jit_ctl *c = push_ctl(f, WASM_OP_BLOCK);
    if (!c)
        return false;
    c->nr = f->type->result_count;
    c->rtypes = f->type->types + f->type->param_count;
    c->ptypes = c->rtypes;
    c->end_bb = sbx__jit_block(f, "return");
    c->rvars = sbx__jit_vars(f, c->rtypes, c->nr);
    LLVMBasicBlockRef body = sbx__jit_block(f, "body");
    L(BuildBr)(f->b, body);
    L(PositionBuilderAtEnd)(f->b, body);
    return c->rvars != NULL;
}

void sbx__jit_branch(struct jit_func *f, uint32_t depth)
{
    struct jit_ctl *c = &f->ctls[f->nctl - 1 - depth];
    if (c->kind == WASM_OP_LOOP) {
        store_top(f, c->pvars, c->np);
        L(BuildBr)(f->b, c->loop_bb);
    } else {
        store_top(f, c->rvars, c->nr);
        L(BuildBr)(f->b, c->end_bb);
    }
}

void sbx__jit_return(struct jit_func *f)
{
    uint32_t n = f->type->result_count;
    if (f->osr_slots) {
        sbx__jit_osr_return(f);
        return;
    }
    if (n == 0) {
        L(BuildRetVoid)(f->b);
        return;
    }
    if (n == 1) {
        L(BuildRet)(f->b, f->stack[f->sp - 1]);
        return;
    }
    LLVMValueRef agg = L(GetUndef)(L(GetReturnType)(f->fn_type));
    const wasm_vtype *rtypes = f->type->types + f->type->param_count;
    for (uint32_t i = 0; i < n; i++) {
        LLVMValueRef v = sbx__jit_to_member(f, f->stack[f->sp - n + i], rtypes[i]);
        agg = L(BuildInsertValue)(f->b, agg, v, i, "");
    }
    L(BuildRet)(f->b, agg);
}

/* After an unconditional transfer: a fresh block with no predecessors takes any code the
 * validator lets through until the matching end. */
void sbx__jit_go_dead(struct jit_func *f)
{
    f->is_dead = true;
    f->skip = 0;
}

static void go_dead(struct jit_func *f)
{
    sbx__jit_go_dead(f);
}

static bool op_block(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_ctl *c = push_ctl(f, in->op);
    if (!c)
        return false;
    block_sig(f, in, c);
    c->height = f->sp - c->np;
    c->end_bb = sbx__jit_block(f, "end");
    c->rvars = sbx__jit_vars(f, c->rtypes, c->nr);
    if (!c->rvars)
        return false;
    if (in->op == WASM_OP_LOOP) {
        c->pvars = sbx__jit_vars(f, c->ptypes, c->np);
        if (!c->pvars)
            return false;
        c->loop_bb = sbx__jit_block(f, "loop");
        store_top(f, c->pvars, c->np);
        L(BuildBr)(f->b, c->loop_bb);
        L(PositionBuilderAtEnd)(f->b, c->loop_bb);
        f->sp = c->height;
        push_loads(f, c->pvars, c->ptypes, c->np);
        sbx__jit_poll(f);
        if (f->osr_switch)
            sbx__jit_osr_loop(f, c);
    }
    return true;
}

static bool op_if(struct jit_func *f, const struct wasm_instr *in)
{
    LLVMValueRef cond = sbx__jit_pop(f);
    if (!op_block(f, in))
        return false;
    struct jit_ctl *c = &f->ctls[f->nctl - 1];
    c->saved = sbx__calloc(c->np ? c->np : 1, sizeof(*c->saved));
    if (!c->saved)
        return false;
    memcpy(c->saved, f->stack + c->height, c->np * sizeof(*c->saved));
    LLVMBasicBlockRef then_bb = sbx__jit_block(f, "then");
    c->else_bb = sbx__jit_block(f, "else");
    LLVMValueRef is_true = L(BuildICmp)(f->b, LLVMIntNE, cond, sbx__jit_i32(f->jm, 0), "");
    L(BuildCondBr)(f->b, is_true, then_bb, c->else_bb);
    L(PositionBuilderAtEnd)(f->b, then_bb);
    return true;
}

static bool op_else(struct jit_func *f)
{
    struct jit_ctl *c = &f->ctls[f->nctl - 1];
    if (!f->is_dead) {
        store_top(f, c->rvars, c->nr);
        L(BuildBr)(f->b, c->end_bb);
    }
    f->is_dead = false;
    c->has_else = true;
    L(PositionBuilderAtEnd)(f->b, c->else_bb);
    f->sp = c->height;
    for (uint32_t i = 0; i < c->np; i++)
        sbx__jit_push(f, c->saved[i]);
    return true;
}

static bool op_end(struct jit_func *f)
{
    struct jit_ctl *c = &f->ctls[f->nctl - 1];
    if (c->kind == WASM_OP_LOOP && !f->is_dead) {
        f->nctl--; /* a loop's end falls through with its results on the stack */
        return true;
    }
    if (!f->is_dead) {
        store_top(f, c->rvars, c->nr);
        L(BuildBr)(f->b, c->end_bb);
    }
    if (c->kind == WASM_OP_IF && !c->has_else) {
        /* The implicit else passes the params through as the results (validated equal). */
        L(PositionBuilderAtEnd)(f->b, c->else_bb);
        for (uint32_t i = 0; i < c->np; i++)
            L(BuildStore)(f->b, c->saved[i], c->rvars[i]);
        L(BuildBr)(f->b, c->end_bb);
    }
    f->is_dead = false;
    L(PositionBuilderAtEnd)(f->b, c->end_bb);
    f->sp = c->height;
    push_loads(f, c->rvars, c->rtypes, c->nr);
    f->nctl--;
    if (f->nctl == 0)
        sbx__jit_return(f);
    return true;
}

static bool op_br_if(struct jit_func *f, const struct wasm_instr *in)
{
    LLVMValueRef cond = sbx__jit_pop(f);
    LLVMBasicBlockRef taken = sbx__jit_block(f, "br_if"), cont = sbx__jit_block(f, "cont");
    LLVMValueRef is_true = L(BuildICmp)(f->b, LLVMIntNE, cond, sbx__jit_i32(f->jm, 0), "");
    L(BuildCondBr)(f->b, is_true, taken, cont);
    L(PositionBuilderAtEnd)(f->b, taken);
    sbx__jit_branch(f, in->idx);
    L(PositionBuilderAtEnd)(f->b, cont);
    return true;
}

/* br_on_null: the reference comes off for the branch and stays when it falls through;
 * br_on_non_null: the label takes it too, and it is dropped when null. */
static bool op_br_on_null(struct jit_func *f, const struct wasm_instr *in)
{
    bool on_null = in->op == WASM_OP_BR_ON_NULL;
    LLVMValueRef ref = sbx__jit_pop(f);
    LLVMBasicBlockRef taken = sbx__jit_block(f, "br_null"), cont = sbx__jit_block(f, "cont");
    LLVMValueRef is_null = L(BuildIsNull)(f->b, ref, "");
    L(BuildCondBr)(f->b, is_null, on_null ? taken : cont, on_null ? cont : taken);
    L(PositionBuilderAtEnd)(f->b, taken);
    if (!on_null)
        sbx__jit_push(f, ref);
    sbx__jit_branch(f, in->idx);
    if (!on_null)
        sbx__jit_pop(f);
    L(PositionBuilderAtEnd)(f->b, cont);
    if (on_null)
        sbx__jit_push(f, ref);
    return true;
}

/* The block that stores label depth's values and branches there: one per distinct label, so
 * a br_table of thousands of entries costs blocks per label, not per entry. */
static LLVMBasicBlockRef label_block(struct jit_func *f, LLVMBasicBlockRef *by_depth,
                                     uint32_t depth)
{
    if (!by_depth[depth]) {
        LLVMBasicBlockRef here = L(GetInsertBlock)(f->b);
        by_depth[depth] = sbx__jit_block(f, "br_case");
        L(PositionBuilderAtEnd)(f->b, by_depth[depth]);
        sbx__jit_branch(f, depth);
        L(PositionBuilderAtEnd)(f->b, here);
    }
    return by_depth[depth];
}

/* br_table: one switch over the index; the default is the last label. */
static bool op_br_table(struct jit_func *f, const struct wasm_instr *in)
{
    LLVMValueRef idx = sbx__jit_pop(f);
    LLVMBasicBlockRef *by_depth = sbx__calloc(f->nctl, sizeof(*by_depth));
    if (!by_depth) {
        f->is_nomem = true;
        return false;
    }
    LLVMValueRef sw = L(BuildSwitch)(f->b, idx, label_block(f, by_depth, in->idx), in->count);
    const uint8_t *cursor = NULL;
    for (uint32_t i = 0; i < in->count; i++) {
        uint32_t depth = sbx__wasm_br_label(in, &cursor);
        L(AddCase)(sw, sbx__jit_i32(f->jm, i), label_block(f, by_depth, depth));
    }
    sbx__free(by_depth);
    go_dead(f);
    return true;
}

static bool op_select(struct jit_func *f)
{
    LLVMValueRef cond = sbx__jit_pop(f), b = sbx__jit_pop(f), a = sbx__jit_pop(f);
    LLVMValueRef is_true = L(BuildICmp)(f->b, LLVMIntNE, cond, sbx__jit_i32(f->jm, 0), "");
    sbx__jit_push(f, L(BuildSelect)(f->b, is_true, a, b, ""));
    return true;
}

/* try_table: a block whose body's throws and calls go to its dispatch (emit_eh.c). */
static bool op_try_table(struct jit_func *f, const struct wasm_instr *in)
{
    return op_block(f, in) && sbx__jit_eh_open(f, in, &f->ctls[f->nctl - 1]);
}

/* end of a try_table: its dispatch after the block closes (clauses name outer labels). */
static bool op_end_any(struct jit_func *f)
{
    const struct jit_ctl *c = &f->ctls[f->nctl - 1];
    if (c->kind != WASM_OP_TRY_TABLE)
        return op_end(f);
    struct jit_ctl try_ctl = *c; /* stays valid: op_end only pops */
    return op_end(f) && sbx__jit_eh_close(f, &try_ctl);
}

bool sbx__jit_emit_control(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    switch (in->op) {
    case WASM_OP_NOP:
        return true;
    case WASM_OP_UNREACHABLE:
        sbx__jit_trap_if(f, L(ConstInt)(f->jm->t_i1, 1, 0), WASM_TRAP_UNREACHABLE);
        L(BuildUnreachable)(f->b); /* the continuation block cannot be reached */
        go_dead(f);
        return true;
    case WASM_OP_BLOCK:
    case WASM_OP_LOOP:
        *ok = op_block(f, in);
        return true;
    case WASM_OP_IF:
        *ok = op_if(f, in);
        return true;
    case WASM_OP_ELSE:
        *ok = op_else(f);
        return true;
    case WASM_OP_END:
        *ok = op_end_any(f);
        return true;
    case WASM_OP_TRY_TABLE:
        *ok = op_try_table(f, in);
        return true;
    case WASM_OP_BR:
        sbx__jit_branch(f, in->idx);
        go_dead(f);
        return true;
    case WASM_OP_BR_IF:
        *ok = op_br_if(f, in);
        return true;
    case WASM_OP_BR_TABLE:
        *ok = op_br_table(f, in);
        return true;
    case WASM_OP_THROW:
    case WASM_OP_THROW_REF:
        *ok = sbx__jit_emit_throw(f, in);
        return true;
    case WASM_OP_BR_ON_NULL:
    case WASM_OP_BR_ON_NON_NULL:
        *ok = op_br_on_null(f, in);
        return true;
    case WASM_OP_RETURN:
        sbx__jit_return(f);
        go_dead(f);
        return true;
    case WASM_OP_DROP:
        sbx__jit_pop(f);
        return true;
    case WASM_OP_SELECT:
    case WASM_OP_SELECT_T:
        *ok = op_select(f);
        return true;
    default:
        return false;
    }
}

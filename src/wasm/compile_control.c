/* wasm/compile_control.c: translation of control flow: blocks, loops and ifs, branches with
 * the values they carry, returns and calls. Forward targets are patched through a chain kept
 * in the unresolved words; a branch to a loop header polls (interrupt, fuel). */
#include "util/alloc.h"
#include "wasm/compile_impl.h"

/* Inverse of each fused compare (eq ne lt_s lt_u gt_s gt_u le_s le_u ge_s ge_u). */
static const uint8_t cmp_inverse[10] = {1, 0, 8, 9, 6, 7, 4, 5, 2, 3};

/* --- blocks and branches ---------------------------------------------------------------- */

static void block_type(struct compiler *c, const struct wasm_instr *in, struct cblock *b,
                       wasm_vtype *single)
{
    b->nparams = b->nresults = 0;
    b->ptypes = b->rtypes = single;
    if (in->bt_kind == WASM_BT_EMPTY)
        return;
    if (in->bt_kind == WASM_BT_VALTYPE) {
        *single = in->valtype;
        b->nresults = 1;
        return;
    }
    if (in->idx >= c->m->type_count) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown type");
        return;
    }
    const struct wasm_functype *ft = &c->m->types[in->idx];
    b->nparams = ft->param_count;
    b->nresults = ft->result_count;
    b->ptypes = ft->types;
    b->rtypes = ft->types + ft->param_count;
}

static struct cblock *label(struct compiler *c, uint32_t depth)
{
    if (depth >= c->nbl) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown label");
        return &c->bl[0];
    }
    return &c->bl[c->nbl - 1 - depth];
}

static uint32_t label_arity(const struct cblock *b)
{
    return b->kind == B_LOOP ? b->nparams : b->nresults;
}

static bool needs_moves(const struct compiler *c, const struct cblock *b)
{
    uint32_t n = label_arity(b), target = b->base_slot;
    for (uint32_t i = c->sp - n; i < c->sp; i++) {
        const struct centry *e = &c->st[i];
        if (e->kind != K_SLOT || e->slot != target)
            return true;
        target += sbx__wasm_type_slots(e->type);
    }
    return false;
}

/* Copies the label's values into its slots (ascending: sources never sit below targets). */
static void emit_moves(struct compiler *c, const struct cblock *b)
{
    uint32_t n = label_arity(b), target = b->base_slot;
    for (uint32_t i = c->sp - n; i < c->sp; i++) {
        const struct centry *e = &c->st[i];
        if (e->kind != K_SLOT || e->slot != target)
            sbx__wasm_c_copy(c, e, target);
        target += sbx__wasm_type_slots(e->type);
    }
}

static void link(struct compiler *c, struct cblock *b, uint32_t word)
{
    if (word >= c->wlen)
        return;
    if (b->kind == B_LOOP) {
        c->w[word] = (uint32_t)(b->loop_pos - word);
        return;
    }
    c->w[word] = b->fixups;
    b->fixups = word + 1;
}

static void patch_chain(struct compiler *c, uint32_t head, uint32_t target)
{
    while (head && head - 1 < c->wlen) {
        uint32_t word = head - 1;
        head = c->w[word];
        c->w[word] = target - word;
    }
}

static void patch_one(struct compiler *c, uint32_t word, uint32_t target)
{
    if (word < c->wlen)
        c->w[word] = target - word;
}

/* Results go to slots 0...; the values are copied into their own slots first when needed. */
void sbx__wasm_c_return(struct compiler *c)
{
    uint32_t n = c->ft->result_count;
    if (n == 0) {
        sbx__wasm_c_op(c, IOP_ret0);
        return;
    }
    const struct centry *first = &c->st[c->sp - n];
    if (n == 1 && first->type != WASM_V128) {
        uint32_t src = sbx__wasm_c_operand(c, first);
        sbx__wasm_c_op(c, IOP_ret1);
        sbx__wasm_c_emit(c, src);
        return;
    }
    uint32_t slots = 0;
    for (uint32_t i = c->sp - n; i < c->sp; i++) {
        if (c->st[i].kind != K_SLOT)
            sbx__wasm_c_copy(c, &c->st[i], c->st[i].slot);
        slots += sbx__wasm_type_slots(c->st[i].type);
    }
    sbx__wasm_c_op(c, IOP_retn);
    sbx__wasm_c_emit(c, first->slot);
    sbx__wasm_c_emit(c, slots);
}

/* Pops a branch condition, fusing the compare that produced it when it was the last
 * instruction (its code is taken back and folded into the branch). */
static struct ccond pop_cond(struct compiler *c)
{
    struct ccond cd = {.kind = C_NZ};
    const struct centry *top = c->sp ? &c->st[c->sp - 1] : NULL;
    if (c->last_cmp && top && top->kind == K_SLOT && c->last_cmp < c->wlen &&
        c->w[c->last_cmp] == top->slot) {
        uint32_t start = c->last_cmp - 1;
        cd.kind = c->last_cmp_kind;
        cd.cmp = c->last_cmp_op;
        cd.is_imm = c->last_cmp_imm;
        cd.a = c->w[start + 2];
        cd.b = cd.kind == C_CMP ? c->w[start + 3] : 0;
        sbx__wasm_c_unemit(c); /* the instruction before the compare is last again */
        sbx__wasm_c_pop(c);
        return cd;
    }
    struct centry e = sbx__wasm_c_pop(c);
    cd.a = sbx__wasm_c_operand(c, &e);
    return cd;
}

/* Emits a conditional jump (to a loop header when is_back: then it polls); returns the word
 * holding its target. */
static uint32_t emit_cond_br(struct compiler *c, const struct ccond *cd, bool invert, bool is_back)
{
    uint8_t kind = cd->kind, cmp = cd->cmp;
    if (invert) {
        if (kind == C_CMP)
            cmp = cmp_inverse[cmp];
        else
            kind = kind == C_NZ ? C_Z : C_NZ;
    }
    if (kind == C_CMP) {
        enum wasm_iop base = cd->is_imm ? (is_back ? IOP_br_eq_i_back : IOP_br_eq_i)
                                        : (is_back ? IOP_br_eq_back : IOP_br_eq);
        sbx__wasm_c_op(c, (enum wasm_iop)(base + cmp));
        sbx__wasm_c_emit(c, cd->a);
        sbx__wasm_c_emit(c, cd->b);
    } else {
        enum wasm_iop op = kind == C_NZ ? (is_back ? IOP_br_if_back : IOP_br_if)
                                        : (is_back ? IOP_br_unless_back : IOP_br_unless);
        sbx__wasm_c_op(c, op);
        sbx__wasm_c_emit(c, cd->a);
    }
    uint32_t word = c->wlen;
    sbx__wasm_c_emit(c, 0);
    if (is_back)
        sbx__wasm_c_emit(c, c->fuel ? c->fuel : 1);
    return word;
}

/* An unconditional branch from the current stack to label b. */
static void emit_br(struct compiler *c, struct cblock *b);

void sbx__wasm_c_emit_br(struct compiler *c, struct cblock *b)
{
    emit_br(c, b);
}

struct cblock *sbx__wasm_c_label_at(struct compiler *c, uint32_t depth)
{
    return label(c, depth);
}

void sbx__wasm_c_patch(struct compiler *c, uint32_t word, uint32_t target)
{
    patch_one(c, word, target);
}

static void emit_br(struct compiler *c, struct cblock *b)
{
    if (b->kind == B_FUNC) {
        sbx__wasm_c_return(c);
        return;
    }
    emit_moves(c, b);
    sbx__wasm_c_op(c, b->kind == B_LOOP ? IOP_br_back : IOP_br);
    uint32_t word = c->wlen;
    sbx__wasm_c_emit(c, 0);
    if (b->kind == B_LOOP)
        sbx__wasm_c_emit(c, c->fuel ? c->fuel : 1);
    link(c, b, word);
}

static void open_block(struct compiler *c, const struct cblock *tmpl, uint8_t kind)
{
    if (c->sp < tmpl->nparams) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "operand stack underflow");
        return;
    }
    uint32_t old_cap = c->blcap;
    if (!sbx__wasm_c_grow(c, (void **)&c->bl, &c->blcap, c->nbl + 1, sizeof(*c->bl)))
        return;
    /* Only after a reallocation (capacity doubles, so linear in nesting overall). */
    for (uint32_t i = 0; c->blcap != old_cap && i < c->nbl; i++)
        if (c->bl[i].is_single)
            c->bl[i].ptypes = c->bl[i].rtypes = &c->bl[i].single_type;
    struct cblock *b = &c->bl[c->nbl++];
    *b = *tmpl;
    b->kind = kind;
    b->height = c->sp - b->nparams;
    b->base_slot = b->nparams ? c->st[b->height].slot : c->slot_top;
    b->fixups = 0;
    b->else_fix = 0;
    b->try_idx = 0;
    b->is_single = false;
}

void sbx__wasm_c_block(struct compiler *c, uint8_t kind, const struct wasm_instr *in)
{
    struct cblock tmpl;
    wasm_vtype single = 0;
    block_type(c, in, &tmpl, &single);
    c->loop_seq += kind == B_LOOP; /* numbered as the compiled tier numbers them */
    if (c->is_dead) {
        c->skip_depth++;
        return;
    }
    struct ccond cd = {0};
    if (kind == B_IF)
        cd = pop_cond(c);
    sbx__wasm_c_flush_top(c, c->sp);
    open_block(c, &tmpl, kind);
    if (c->has_failed)
        return;
    struct cblock *b = &c->bl[c->nbl - 1];
    if (tmpl.ptypes == &single || tmpl.rtypes == &single) {
        b->single_type = single;
        b->is_single = true;
        b->ptypes = b->rtypes = &b->single_type;
    }
    sbx__wasm_c_label(c);
    if (kind == B_IF) {
        b->else_fix = emit_cond_br(c, &cd, true, false) + 1;
    } else if (kind == B_LOOP) {
        b->loop_pos = c->wlen;
        b->outer_fuel = c->fuel;
        c->fuel = 0;
        sbx__wasm_c_osr_loop(c, b);
    }
}

/* Resets the stack to the block's base plus the given types, all in their slots. */
static void reset_stack(struct compiler *c, const struct cblock *b, const wasm_vtype *types,
                        uint32_t n)
{
    c->sp = b->height;
    c->slot_top = b->base_slot;
    for (uint32_t i = 0; i < n; i++)
        sbx__wasm_c_push(c, types[i]);
}

void sbx__wasm_c_else(struct compiler *c)
{
    if (c->skip_depth)
        return;
    struct cblock *b = &c->bl[c->nbl - 1];
    if (!c->is_dead) {
        sbx__wasm_c_flush_top(c, b->nresults);
        sbx__wasm_c_op(c, IOP_br);
        uint32_t word = c->wlen;
        sbx__wasm_c_emit(c, 0);
        link(c, b, word);
    }
    if (b->else_fix)
        patch_one(c, b->else_fix - 1, c->wlen);
    b->else_fix = 0;
    b->kind = B_ELSE;
    reset_stack(c, b, b->ptypes, b->nparams);
    c->is_dead = false;
    sbx__wasm_c_label(c);
}

/* Returns true at the function's final end. */
bool sbx__wasm_c_end(struct compiler *c)
{
    if (c->skip_depth) {
        c->skip_depth--;
        return false;
    }
    struct cblock *b = &c->bl[c->nbl - 1];
    if (!c->is_dead)
        sbx__wasm_c_flush_top(c, b->nresults);
    if (b->kind == B_FUNC) {
        if (!c->is_dead)
            sbx__wasm_c_return(c);
        return true;
    }
    if (b->try_idx)
        sbx__wasm_c_end_try(c, b);
    if (b->else_fix)
        patch_one(c, b->else_fix - 1, c->wlen);
    if (b->kind == B_LOOP) /* the first iteration is charged with the enclosing region */
        c->fuel += b->outer_fuel;
    patch_chain(c, b->fixups, c->wlen);
    reset_stack(c, b, b->rtypes, b->nresults);
    c->nbl--;
    c->is_dead = false;
    sbx__wasm_c_label(c);
    return false;
}

void sbx__wasm_c_br(struct compiler *c, const struct wasm_instr *in)
{
    if (c->is_dead)
        return;
    emit_br(c, label(c, in->idx));
    c->is_dead = true;
}

/* A loop's back-edge `x = a + b; br_if (x cmp k)`: when the add is the instruction just
 * before the fused compare, one instruction does both. */
static bool fuse_add_branch(struct compiler *c, const struct ccond *cd, struct cblock *b)
{
    uint32_t start = c->last_start;
    bool is_add = c->last_op == IOP_i32_add || c->last_op == IOP_i32_add_i;
    if (cd->kind != C_CMP || !cd->is_imm || !is_add || start + 4 != c->wlen ||
        c->w[start + 1] != cd->a)
        return false;
    uint32_t x = c->w[start + 1], a = c->w[start + 2], k = c->w[start + 3];
    enum wasm_iop base = c->last_op == IOP_i32_add ? IOP_addbr_eq : IOP_addbr_eq_i;
    sbx__wasm_c_unemit(c);
    sbx__wasm_c_op(c, (enum wasm_iop)(base + cd->cmp));
    sbx__wasm_c_emit(c, x);
    sbx__wasm_c_emit(c, a);
    sbx__wasm_c_emit(c, k);
    sbx__wasm_c_emit(c, cd->b);
    uint32_t word = c->wlen;
    sbx__wasm_c_emit(c, 0);
    sbx__wasm_c_emit(c, c->fuel ? c->fuel : 1);
    link(c, b, word);
    return true;
}

void sbx__wasm_c_br_if(struct compiler *c, const struct wasm_instr *in)
{
    if (c->is_dead)
        return;
    struct ccond cd = pop_cond(c);
    struct cblock *b = label(c, in->idx);
    if (b->kind == B_LOOP && !needs_moves(c, b) && fuse_add_branch(c, &cd, b))
        return;
    if (b->kind != B_FUNC && !needs_moves(c, b)) {
        link(c, b, emit_cond_br(c, &cd, false, b->kind == B_LOOP));
        return;
    }
    uint32_t skip = emit_cond_br(c, &cd, true, false);
    emit_br(c, b);
    patch_one(c, skip, c->wlen);
    sbx__wasm_c_label(c);
}

/* A conditional branch on a reference test (op jumps when it holds, inv when not; words its
 * operands before the target): a forward block's label without moves is the jump's own target,
 * any other goes through emit_br (moves, a loop's poll, a return) skipped by the opposite test. */
static void test_branch(struct compiler *c, struct cblock *b, enum wasm_iop op, enum wasm_iop inv,
                        const uint32_t *words, uint32_t n)
{
    bool is_direct = b->kind != B_FUNC && b->kind != B_LOOP && !needs_moves(c, b);
    sbx__wasm_c_op(c, is_direct ? op : inv);
    for (uint32_t i = 0; i < n; i++)
        sbx__wasm_c_emit(c, words[i]);
    uint32_t word = c->wlen;
    sbx__wasm_c_emit(c, 0);
    if (is_direct) {
        link(c, b, word);
        return;
    }
    emit_br(c, b);
    patch_one(c, word, c->wlen);
}

/* br_on_null (on_null) or br_on_non_null on the reference in slot a. */
static void ref_branch(struct compiler *c, struct cblock *b, uint32_t a, bool on_null)
{
    test_branch(c, b, on_null ? IOP_br_null : IOP_br_nonnull,
                on_null ? IOP_br_nonnull : IOP_br_null, &a, 1);
}

/* br_on_cast / br_on_cast_fail: the reference stays on top either way (the label takes it). */
void sbx__wasm_c_br_on_cast(struct compiler *c, const struct wasm_instr *in)
{
    if (c->is_dead)
        return;
    struct cblock *b = label(c, in->idx);
    uint32_t words[3] = {sbx__wasm_c_operand(c, &c->st[c->sp - 1]), wasm_vtype_heap(in->valtype2),
                         wasm_vtype_is_nullable(in->valtype2)};
    bool on_fail = in->op == WASM_OP_BR_ON_CAST_FAIL;
    test_branch(c, b, on_fail ? IOP_br_on_cast_fail : IOP_br_on_cast,
                on_fail ? IOP_br_on_cast : IOP_br_on_cast_fail, words, 3);
    sbx__wasm_c_label(c);
}

/* br_on_null: the reference comes off for the branch (the label takes the values below it)
 * and stays on when it falls through. br_on_non_null: the label takes it too; it is dropped
 * when null. */
void sbx__wasm_c_br_on_null(struct compiler *c, const struct wasm_instr *in)
{
    if (c->is_dead)
        return;
    struct cblock *b = label(c, in->idx);
    if (in->op == WASM_OP_BR_ON_NULL) {
        struct centry e = sbx__wasm_c_pop(c);
        uint32_t a = sbx__wasm_c_operand(c, &e);
        ref_branch(c, b, a, true);
        struct centry *back = sbx__wasm_c_push(c, e.type); /* the same slot: e.slot */
        *back = e;
    } else {
        uint32_t a = sbx__wasm_c_operand(c, &c->st[c->sp - 1]);
        ref_branch(c, b, a, false);
        sbx__wasm_c_pop(c);
    }
    sbx__wasm_c_label(c);
}

static void br_table_targets(struct compiler *c, const uint32_t *depths, uint32_t n, uint32_t tpos)
{
    for (uint32_t i = 0; i <= n; i++) {
        struct cblock *b = label(c, depths[i]);
        if (b->kind != B_FUNC && b->kind != B_LOOP && !needs_moves(c, b))
            link(c, b, tpos + i);
    }
    for (uint32_t i = 0; i <= n; i++) {
        struct cblock *b = label(c, depths[i]);
        if (b->kind != B_FUNC && b->kind != B_LOOP && !needs_moves(c, b))
            continue;
        patch_one(c, tpos + i, c->wlen);
        emit_br(c, b);
    }
}

void sbx__wasm_c_br_table(struct compiler *c, const struct wasm_instr *in)
{
    uint32_t n = in->count;
    if (c->is_dead)
        return;
    uint32_t *depths = sbx__mallocn((size_t)n + 1, sizeof(uint32_t));
    if (!depths) {
        sbx__wasm_c_fail(c, SBX_E_NOMEM, "out of memory");
        return;
    }
    const uint8_t *cursor = NULL;
    for (uint32_t i = 0; i < n; i++)
        depths[i] = sbx__wasm_br_label(in, &cursor);
    depths[n] = in->idx;
    struct centry e = sbx__wasm_c_pop(c);
    uint32_t idx = sbx__wasm_c_operand(c, &e);
    sbx__wasm_c_op(c, IOP_br_table);
    sbx__wasm_c_emit(c, idx);
    sbx__wasm_c_emit(c, n);
    uint32_t tpos = c->wlen;
    for (uint32_t i = 0; i <= n; i++)
        sbx__wasm_c_emit(c, 0);
    br_table_targets(c, depths, n, tpos);
    c->is_dead = true;
    sbx__free(depths);
}

/* --- calls ------------------------------------------------------------------------------ */

/* Puts the args in consecutive slots and pops them; returns the first arg's slot. */
static uint32_t call_args(struct compiler *c, const struct wasm_functype *ft);

uint32_t sbx__wasm_c_call_args(struct compiler *c, const struct wasm_functype *ft)
{
    return call_args(c, ft);
}

static uint32_t call_args(struct compiler *c, const struct wasm_functype *ft)
{
    uint32_t n = ft->param_count;
    if (c->sp < n) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "operand stack underflow");
        return c->slot_top;
    }
    sbx__wasm_c_flush_top(c, n);
    uint32_t base = n ? c->st[c->sp - n].slot : c->slot_top;
    c->sp -= n;
    c->slot_top = base;
    return base;
}

static void push_results(struct compiler *c, const struct wasm_functype *ft)
{
    for (uint32_t i = 0; i < ft->result_count; i++)
        sbx__wasm_c_push(c, ft->types[ft->param_count + i]);
}

void sbx__wasm_c_call(struct compiler *c, const struct wasm_instr *in)
{
    uint32_t fidx = in->idx;
    if (c->is_dead)
        return;
    if (fidx >= c->m->func_count) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown function");
        return;
    }
    const struct wasm_functype *ft = &c->m->types[c->m->func_type_idx[fidx]];
    uint32_t base = call_args(c, ft);
    bool is_import = fidx < c->m->func_import_count;
    sbx__wasm_c_op(c, is_import ? IOP_call_func : IOP_call);
    sbx__wasm_c_emit(c, is_import ? fidx : fidx - c->m->func_import_count);
    sbx__wasm_c_emit(c, base);
    push_results(c, ft);
}

void sbx__wasm_c_call_indirect(struct compiler *c, const struct wasm_instr *in)
{
    uint32_t tidx = in->idx, table = in->idx2;
    if (c->is_dead)
        return;
    if (tidx >= c->m->type_count) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown type");
        return;
    }
    const struct wasm_functype *ft = &c->m->types[tidx];
    struct centry e = sbx__wasm_c_pop(c);
    uint32_t idx = sbx__wasm_c_operand(c, &e);
    if (table < c->m->table_count && c->m->tables[table].is64)
        idx = sbx__wasm_c_clamp64(c, &e, idx);
    uint32_t base = call_args(c, ft);
    sbx__wasm_c_op(c, IOP_call_indirect);
    sbx__wasm_c_emit(c, tidx);
    sbx__wasm_c_emit(c, table);
    sbx__wasm_c_emit(c, idx);
    sbx__wasm_c_emit(c, base);
    push_results(c, ft);
}

/* call_ref / return_call_ref x: the reference on top, the args below it. */
void sbx__wasm_c_call_ref(struct compiler *c, const struct wasm_instr *in)
{
    if (c->is_dead)
        return;
    if (in->idx >= c->m->type_count) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown type");
        return;
    }
    const struct wasm_functype *ft = &c->m->types[in->idx];
    struct centry e = sbx__wasm_c_pop(c);
    uint32_t ref = sbx__wasm_c_operand(c, &e);
    uint32_t base = call_args(c, ft);
    bool is_tail = in->op == WASM_OP_RETURN_CALL_REF;
    sbx__wasm_c_op(c, is_tail ? IOP_return_call_ref : IOP_call_ref);
    sbx__wasm_c_emit(c, ref);
    sbx__wasm_c_emit(c, base);
    if (is_tail)
        c->is_dead = true;
    else
        push_results(c, ft);
}

/* return_call / return_call_indirect: the args in consecutive slots, then the callee replaces
 * this frame (interp.c's do_tail_call moves them to slot 0): the frame stack does not grow. */
void sbx__wasm_c_return_call(struct compiler *c, const struct wasm_instr *in)
{
    if (c->is_dead)
        return;
    bool is_indirect = in->op == WASM_OP_RETURN_CALL_INDIRECT;
    uint32_t tidx = is_indirect ? in->idx : c->m->func_type_idx[in->idx], idx = 0;
    const struct wasm_functype *ft = &c->m->types[tidx];
    if (is_indirect) {
        struct centry e = sbx__wasm_c_pop(c);
        idx = sbx__wasm_c_operand(c, &e);
        if (c->m->tables[in->idx2].is64)
            idx = sbx__wasm_c_clamp64(c, &e, idx);
    }
    uint32_t base = call_args(c, ft);
    if (is_indirect) {
        sbx__wasm_c_op(c, IOP_return_call_indirect);
        sbx__wasm_c_emit(c, tidx);
        sbx__wasm_c_emit(c, in->idx2);
        sbx__wasm_c_emit(c, idx);
    } else if (in->idx < c->m->func_import_count) {
        sbx__wasm_c_op(c, IOP_return_call_func);
        sbx__wasm_c_emit(c, in->idx);
    } else {
        sbx__wasm_c_op(c, IOP_return_call);
        sbx__wasm_c_emit(c, in->idx - c->m->func_import_count);
    }
    sbx__wasm_c_emit(c, base);
    c->is_dead = true;
}

/* wasm/validate_code.c: the function-body type checker, following the spec appendix's
 * validation algorithm: a value-type stack and a control stack, with type 0 standing for the
 * unknown type an unreachable (polymorphic) stack yields. Opcodes with a fixed signature in
 * opcodes.h are checked from the table; the rest are handled one by one. */
#include <string.h>

#include "util/alloc.h"
#include "wasm/limits.h"
#include "wasm/validate_internal.h"

#define UNKNOWN VAL_UNKNOWN

bool sbx__wasm_v_fail(struct vfunc *v, const char *msg)
{
    return sbx__wasm_rd_invalid(v->r, v->at, "%s in function %u", msg, v->func_idx);
}

bool sbx__wasm_v_fail_idx(struct vfunc *v, const char *what, uint32_t idx)
{
    return sbx__wasm_rd_invalid(v->r, v->at, "unknown %s %u in function %u", what, idx,
                                v->func_idx);
}

bool sbx__wasm_v_grow(struct vfunc *v, void **buf, uint32_t *cap, size_t elem, uint32_t need)
{
    if (need <= *cap)
        return true;
    if (need > VAL_MAX)
        return sbx__wasm_v_fail(v, "operand stack too deep");
    uint32_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *p = sbx__reallocn(*buf, n, elem);
    if (p == NULL) {
        *v->nomem = true;
        return sbx__wasm_v_fail(v, "out of memory");
    }
    *buf = p;
    *cap = n;
    return true;
}

bool sbx__wasm_v_push_n(struct vfunc *v, const wasm_vtype *types, uint32_t n)
{
    if (n == 0)
        return true;
    if (!sbx__wasm_v_grow(v, (void **)&v->vals, &v->cap_vals, sizeof(*v->vals), v->nvals + n))
        return false;
    memcpy(v->vals + v->nvals, types, n * sizeof(*types));
    v->nvals += n;
    return true;
}

bool sbx__wasm_v_pop_any(struct vfunc *v, wasm_vtype *out)
{
    const struct ctl *c = &v->ctls[v->nctls - 1];
    if (v->nvals == c->height) {
        *out = UNKNOWN;
        return c->is_unreachable || sbx__wasm_v_fail(v, "type mismatch");
    }
    *out = v->vals[--v->nvals];
    return true;
}

bool sbx__wasm_v_pop_n(struct vfunc *v, const wasm_vtype *types, uint32_t n)
{
    for (uint32_t i = n; i-- > 0;) {
        if (!vpop(v, types[i]))
            return false;
    }
    return true;
}

static const wasm_vtype *ctl_results(const struct ctl *c)
{
    return c->results ? c->results : &c->single;
}

/* Opens a frame; res NULL with nr 1 is a one-value-type block, its type in single. */
static bool push_ctl(struct vfunc *v, uint16_t op, uint32_t np, const wasm_vtype *p, uint32_t nr,
                     const wasm_vtype *res, wasm_vtype single)
{
    if (v->nctls > WASM_MAX_NESTING) /* the function's own frame is ctls[0] */
        return sbx__wasm_rd_limit(v->r, v->at, "blocks nested deeper than %u in function %u",
                                  WASM_MAX_NESTING, v->func_idx);
    if (v->nctls == v->cap_ctls &&
        !sbx__wasm_v_grow(v, (void **)&v->ctls, &v->cap_ctls, sizeof *v->ctls, v->nctls + 1))
        return false;
    v->ctls[v->nctls++] = (struct ctl){.op = op,
                                       .height = v->nvals,
                                       .init_height = v->ninits,
                                       .nparams = np,
                                       .params = p,
                                       .nresults = nr,
                                       .results = res,
                                       .single = single};
    return sbx__wasm_v_push_n(v, p, np);
}

/* Pops the frame's results, checks nothing else is left above its base, and forgets the
 * locals set inside it (3.0 local initialization). */
static bool end_frame(struct vfunc *v)
{
    const struct ctl *c = &v->ctls[v->nctls - 1];
    if (!sbx__wasm_v_pop_n(v, ctl_results(c), c->nresults))
        return false;
    while (v->ninits > c->init_height)
        v->local_init[v->inits[--v->ninits]] = 0;
    return v->nvals == c->height || sbx__wasm_v_fail(v, "type mismatch");
}

static void set_unreachable(struct vfunc *v)
{
    struct ctl *c = &v->ctls[v->nctls - 1];
    v->nvals = c->height;
    c->is_unreachable = true;
}

bool sbx__wasm_v_label(struct vfunc *v, uint32_t depth, uint32_t *n, const wasm_vtype **types)
{
    if (depth >= v->nctls)
        return sbx__wasm_v_fail_idx(v, "label", depth);
    struct ctl *c = &v->ctls[v->nctls - 1 - depth];
    if (c->op == WASM_OP_LOOP) {
        *n = c->nparams, *types = c->params;
    } else {
        *n = c->nresults, *types = ctl_results(c);
    }
    return true;
}

/* A block type's params and results; a one-value-type block has res NULL, its type the
 * instruction's valtype. */
static bool block_sig(struct vfunc *v, const struct wasm_instr *in, uint32_t *np,
                      const wasm_vtype **p, uint32_t *nr, const wasm_vtype **res)
{
    *np = 0, *p = NULL, *nr = 0, *res = NULL;
    if (in->bt_kind == WASM_BT_VALTYPE) {
        *nr = 1;
        return sbx__wasm_v_check_type(v->r, v->m, in->valtype, v->at);
    } else if (in->bt_kind == WASM_BT_TYPEIDX) {
        if (in->idx >= v->m->type_count || v->m->typedefs[in->idx].kind != WASM_COMP_FUNC)
            return sbx__wasm_v_fail_idx(v, "type", in->idx);
        const struct wasm_functype *t = &v->m->types[in->idx];
        *np = t->param_count, *p = t->types;
        *nr = t->result_count, *res = t->types + t->param_count;
    }
    return true;
}

static bool op_block(struct vfunc *v, const struct wasm_instr *in)
{
    uint32_t np, nr;
    const wasm_vtype *p, *res;
    if (!block_sig(v, in, &np, &p, &nr, &res))
        return false;
    if (in->op == WASM_OP_IF && !vpop(v, WASM_I32))
        return false;
    sbx__wasm_lscan_open(&v->ls, in->op == WASM_OP_LOOP);
    return sbx__wasm_v_pop_n(v, p, np) && push_ctl(v, in->op, np, p, nr, res, in->valtype);
}

static bool op_else(struct vfunc *v)
{
    struct ctl *c = &v->ctls[v->nctls - 1];
    if (c->op != WASM_OP_IF)
        return sbx__wasm_rd_fail(v->r, v->at, "else without matching if");
    if (!end_frame(v))
        return false;
    sbx__wasm_lscan_else(&v->ls);
    c->op = WASM_OP_ELSE;
    c->is_unreachable = false;
    return sbx__wasm_v_push_n(v, c->params, c->nparams);
}

static bool op_end(struct vfunc *v)
{
    const struct ctl *c = &v->ctls[v->nctls - 1];
    /* An if without else behaves as if its else arm were empty: its params must match its
     * results. */
    if (c->op == WASM_OP_IF) {
        if (c->nparams != c->nresults)
            return sbx__wasm_v_fail(v, "type mismatch");
        for (uint32_t i = 0; i < c->nparams; i++) {
            if (!vsub(v, c->params[i], ctl_results(c)[i]))
                return sbx__wasm_v_fail(v, "type mismatch");
        }
    }
    if (!end_frame(v))
        return false;
    sbx__wasm_lscan_end(&v->ls);
    uint32_t nr = c->nresults;
    wasm_vtype single = c->single;
    const wasm_vtype *res = c->results ? c->results : &single;
    v->nctls--;
    if (v->nctls == 0)
        return true;
    return sbx__wasm_v_push_n(v, res, nr);
}

static bool op_br_table(struct vfunc *v, const struct wasm_instr *in)
{
    uint32_t arity, n;
    const wasm_vtype *types, *dflt;
    if (!vpop(v, WASM_I32) || !sbx__wasm_v_label(v, in->idx, &arity, &dflt))
        return false;
    if (!sbx__wasm_v_grow(v, (void **)&v->tmp, &v->cap_tmp, sizeof(*v->tmp), arity))
        return false;
    const uint8_t *cursor = NULL;
    uint32_t serial = ++v->br_table_serial;
    for (uint32_t i = 0; i < in->count; i++) {
        uint32_t depth = sbx__wasm_br_label(in, &cursor);
        if (!sbx__wasm_v_label(v, depth, &n, &types))
            return false;
        if (n != arity)
            return sbx__wasm_v_fail(v, "type mismatch");
        /* A label already checked by this br_table gives the same answer: skip it, so a
         * long table costs one check per distinct label, not per entry. */
        struct ctl *c = &v->ctls[v->nctls - 1 - depth];
        if (c->br_table_mark == serial)
            continue;
        c->br_table_mark = serial;
        /* Pop the label's types and push back what was popped (spec appendix). */
        for (uint32_t k = n; k-- > 0;) {
            if (!sbx__wasm_v_pop_any(v, &v->tmp[k]))
                return false;
            if (!vsub(v, v->tmp[k], types[k]))
                return sbx__wasm_v_fail(v, "type mismatch");
        }
        if (!sbx__wasm_v_push_n(v, v->tmp, n))
            return false;
    }
    if (!sbx__wasm_v_pop_n(v, dflt, arity))
        return false;
    set_unreachable(v);
    return true;
}

static bool op_call(struct vfunc *v, const struct wasm_functype *t)
{
    return sbx__wasm_v_pop_n(v, t->types, t->param_count) &&
           sbx__wasm_v_push_n(v, t->types + t->param_count, t->result_count);
}

static bool is_ref(wasm_vtype t)
{
    return wasm_vtype_is_ref(t) || t == UNKNOWN;
}

static bool op_select(struct vfunc *v, const struct wasm_instr *in)
{
    wasm_vtype t1, t2;
    if (in->op == WASM_OP_SELECT_T) {
        if (in->count != 1)
            return sbx__wasm_v_fail(v, "invalid result arity");
        return sbx__wasm_v_check_type(v->r, v->m, in->valtype, v->at) && vpop(v, WASM_I32) &&
               vpop(v, in->valtype) && vpop(v, in->valtype) && vpush(v, in->valtype);
    }
    if (!vpop(v, WASM_I32) || !sbx__wasm_v_pop_any(v, &t1) || !sbx__wasm_v_pop_any(v, &t2))
        return false;
    /* Untyped select takes numeric or vector operands only (spec 3.3.4). */
    if ((t1 != UNKNOWN && is_ref(t1)) || (t2 != UNKNOWN && is_ref(t2)))
        return sbx__wasm_v_fail(v, "type mismatch");
    if (t1 != t2 && t1 != UNKNOWN && t2 != UNKNOWN)
        return sbx__wasm_v_fail(v, "type mismatch");
    return vpush(v, t1 == UNKNOWN ? t2 : t1);
}

static bool local_type(struct vfunc *v, uint32_t idx, wasm_vtype *out)
{
    if (idx < v->nlocals) {
        *out = v->locals[idx];
        return true;
    }
    return sbx__wasm_v_fail_idx(v, "local", idx);
}

static bool op_local(struct vfunc *v, const struct wasm_instr *in, bool prev_zero)
{
    wasm_vtype t = 0;
    if (!local_type(v, in->idx, &t))
        return false;
    sbx__wasm_lscan_local(&v->ls, in->op == WASM_OP_LOCAL_GET, in->idx, prev_zero);
    if (in->op == WASM_OP_LOCAL_GET) {
        if (__builtin_expect(!v->local_init[in->idx], 0))
            return sbx__wasm_v_fail(v, "uninitialized local");
        return vpush(v, t);
    }
    if (!vpop(v, t))
        return false;
    if (__builtin_expect(!v->local_init[in->idx], 0)) {
        v->local_init[in->idx] = 1; /* room: one entry per local */
        v->inits[v->ninits++] = in->idx;
    }
    return in->op == WASM_OP_LOCAL_SET || vpush(v, t);
}

static bool op_global(struct vfunc *v, const struct wasm_instr *in)
{
    if (in->idx >= v->m->global_count)
        return sbx__wasm_v_fail_idx(v, "global", in->idx);
    const struct wasm_globaltype *g = &v->m->globals[in->idx];
    if (in->op == WASM_OP_GLOBAL_GET)
        return vpush(v, g->type);
    if (!g->is_mutable)
        return sbx__wasm_v_fail(v, "global is immutable");
    return vpop(v, g->type);
}

/* Pops a reference of any type; the bottom type gives (ref bot). */
static bool pop_ref(struct vfunc *v, wasm_vtype *out)
{
    if (!sbx__wasm_v_pop_any(v, out))
        return false;
    if (*out == UNKNOWN)
        *out = WASM_REF(0, WASM_HT_BOT);
    return wasm_vtype_is_ref(*out) || sbx__wasm_v_fail(v, "type mismatch");
}

static bool op_ref(struct vfunc *v, const struct wasm_instr *in)
{
    wasm_vtype t = 0;
    switch (in->op) {
    case WASM_OP_REF_NULL:
        return sbx__wasm_v_check_type(v->r, v->m, in->valtype, v->at) && vpush(v, in->valtype);
    case WASM_OP_REF_IS_NULL:
        return pop_ref(v, &t) && vpush(v, WASM_I32);
    case WASM_OP_REF_AS_NON_NULL:
        return pop_ref(v, &t) && vpush(v, WASM_REF(0, wasm_vtype_heap(t)));
    default: /* REF_FUNC */
        if (in->idx >= v->m->func_count)
            return sbx__wasm_v_fail_idx(v, "function", in->idx);
        if (!v->m->func_is_declared[in->idx])
            return sbx__wasm_v_fail(v, "undeclared function reference");
        return vpush(v, WASM_REF(0, v->m->func_type_idx[in->idx]));
    }
}

/* Immediate checks of opcodes whose stack effect comes from the table. */
static bool check_imm(struct vfunc *v, const struct wasm_instr *in, const struct wasm_opinfo *info)
{
    switch (info->imm) {
    case WASM_IMM_LANE:
        return in->lane < info->arg || sbx__wasm_v_fail(v, "invalid lane index");
    case WASM_IMM_SHUFFLE:
        for (int i = 0; i < 16; i++) {
            if (in->bytes[i] >= 32)
                return sbx__wasm_v_fail(v, "invalid lane index");
        }
        return true;
    default:
        return true;
    }
}

/* Applies a fixed signature from the table to the stack. */
static bool apply_sig(struct vfunc *v, const struct wasm_opinfo *info)
{
    const struct wasm_siginfo *s = &sbx__wasm_siginfo[info->sig];
    const struct ctl *c = &v->ctls[v->nctls - 1];
    uint32_t np = s->param_count;
    /* Fast path: operands present and concrete; the result overwrites the first one. */
    if (np > 0 && s->result_count == 1 && v->nvals - c->height >= np) {
        const wasm_vtype *top = v->vals + v->nvals - np;
        uint32_t i = 0;
        while (i < np && top[i] == s->params[i])
            i++;
        if (i == np) {
            v->nvals -= np - 1;
            v->vals[v->nvals - 1] = s->result;
            return true;
        }
    }
    for (uint32_t i = np; i-- > 0;) {
        if (!vpop(v, s->params[i]))
            return false;
    }
    return s->result_count == 0 || vpush(v, s->result);
}

/* The rest: memories and tables by their immediates' kind, else the fixed signature. */
static bool op_fixed(struct vfunc *v, const struct wasm_instr *in, const struct wasm_opinfo *info)
{
    switch (info->imm) {
    case WASM_IMM_MEMARG:
    case WASM_IMM_MEMARG_LANE:
    case WASM_IMM_MEMIDX:
    case WASM_IMM_MEM_MEM:
    case WASM_IMM_DATA_MEM:
    case WASM_IMM_DATA:
        return sbx__wasm_v_memory(v, in);
    case WASM_IMM_TABLE:
    case WASM_IMM_TABLE_TABLE:
    case WASM_IMM_ELEM_TABLE:
    case WASM_IMM_ELEM:
        return sbx__wasm_v_table(v, in);
    default:
        if (info->sig == WASM_SIG_NONE) /* a row no case above checks */
            return sbx__wasm_v_fail(v, "unknown instruction");
        return check_imm(v, in, info) && apply_sig(v, info);
    }
}

/* A tail call (return_call*): the callee's results must be the caller's (spec 3.3.8.9); the
 * rest of the block is unreachable. */
static bool tail_call(struct vfunc *v, const struct wasm_functype *t)
{
    const struct wasm_functype *me = v->type;
    v->def->has_tail_call = true;
    if (t->result_count != me->result_count)
        return sbx__wasm_v_fail(v, "type mismatch");
    for (uint32_t i = 0; i < t->result_count; i++) {
        if (!vsub(v, t->types[t->param_count + i], me->types[me->param_count + i]))
            return sbx__wasm_v_fail(v, "type mismatch");
    }
    if (!sbx__wasm_v_pop_n(v, t->types, t->param_count))
        return false;
    set_unreachable(v);
    return true;
}

static bool op_call_any(struct vfunc *v, const struct wasm_instr *in)
{
    const struct wasm_module *m = v->m;
    bool is_tail = in->op == WASM_OP_RETURN_CALL || in->op == WASM_OP_RETURN_CALL_INDIRECT ||
                   in->op == WASM_OP_RETURN_CALL_REF;
    if (in->op == WASM_OP_CALL || in->op == WASM_OP_RETURN_CALL) {
        if (in->idx >= m->func_count)
            return sbx__wasm_v_fail_idx(v, "function", in->idx);
        const struct wasm_functype *t = &m->types[m->func_type_idx[in->idx]];
        return is_tail ? tail_call(v, t) : op_call(v, t);
    }
    if (in->idx >= m->type_count || m->typedefs[in->idx].kind != WASM_COMP_FUNC)
        return sbx__wasm_v_fail_idx(v, "type", in->idx);
    if (in->op == WASM_OP_CALL_REF || in->op == WASM_OP_RETURN_CALL_REF) {
        /* the callee's reference is on top, its arguments below */
        if (!vpop(v, WASM_REF(1, in->idx)))
            return false;
        return is_tail ? tail_call(v, &m->types[in->idx]) : op_call(v, &m->types[in->idx]);
    }
    wasm_vtype t = 0;
    bool is64 = false;
    if (!sbx__wasm_v_table_type(v, in->idx2, &t, &is64))
        return false;
    if (!vsub(v, t, WASM_FUNCREF))
        return sbx__wasm_v_fail(v, "type mismatch");
    if (!vpop(v, is64 ? WASM_I64 : WASM_I32))
        return false;
    return is_tail ? tail_call(v, &m->types[in->idx]) : op_call(v, &m->types[in->idx]);
}

static bool op_branch(struct vfunc *v, const struct wasm_instr *in)
{
    uint32_t n;
    const wasm_vtype *types;
    switch (in->op) {
    case WASM_OP_BR:
        if (!sbx__wasm_v_label(v, in->idx, &n, &types) || !sbx__wasm_v_pop_n(v, types, n))
            return false;
        set_unreachable(v);
        return true;
    case WASM_OP_BR_IF:
        return vpop(v, WASM_I32) && sbx__wasm_v_label(v, in->idx, &n, &types) &&
               sbx__wasm_v_pop_n(v, types, n) && sbx__wasm_v_push_n(v, types, n);
    case WASM_OP_BR_TABLE:
        return op_br_table(v, in);
    case WASM_OP_BR_ON_NULL: {
        wasm_vtype rt;
        return pop_ref(v, &rt) && sbx__wasm_v_label(v, in->idx, &n, &types) &&
               sbx__wasm_v_pop_n(v, types, n) && sbx__wasm_v_push_n(v, types, n) &&
               vpush(v, WASM_REF(0, wasm_vtype_heap(rt)));
    }
    case WASM_OP_BR_ON_NON_NULL: {
        /* the label's last type takes the non-null reference, the others stay */
        wasm_vtype rt;
        if (!pop_ref(v, &rt) || !sbx__wasm_v_label(v, in->idx, &n, &types))
            return false;
        if (n == 0 || !wasm_vtype_is_ref(types[n - 1]))
            return sbx__wasm_v_fail(v, "type mismatch");
        return vpush(v, WASM_REF(0, wasm_vtype_heap(rt))) && sbx__wasm_v_pop_n(v, types, n) &&
               sbx__wasm_v_push_n(v, types, n - 1);
    }
    default: /* RETURN */
        if (!sbx__wasm_v_pop_n(v, v->type->types + v->type->param_count, v->type->result_count))
            return false;
        set_unreachable(v);
        return true;
    }
}

/* Exception handling's tag x: its type (a function type without results), or NULL. */
static const struct wasm_functype *tag_type(struct vfunc *v, uint32_t x)
{
    if (x >= v->m->tag_count) {
        sbx__wasm_v_fail_idx(v, "tag", x);
        return NULL;
    }
    return &v->m->types[v->m->tag_types[x]];
}

/* A catch clause of try_table, in the context outside it: what it hands to its label (the
 * tag's values, then (ref exn) for the _ref kinds) must match the label's types. */
static bool check_catch(struct vfunc *v, const struct wasm_catch *c)
{
    uint32_t n, np = 0;
    const wasm_vtype *types, *params = NULL;
    if (c->kind == WASM_CATCH || c->kind == WASM_CATCH_REF) {
        const struct wasm_functype *t = tag_type(v, c->tag);
        if (!t)
            return false;
        np = t->param_count, params = t->types;
    }
    bool has_ref = c->kind == WASM_CATCH_REF || c->kind == WASM_CATCH_ALL_REF;
    if (!sbx__wasm_v_label(v, c->label, &n, &types))
        return false;
    if (n != np + (has_ref ? 1u : 0u))
        return sbx__wasm_v_fail(v, "type mismatch");
    for (uint32_t i = 0; i < np; i++) {
        if (!vsub(v, params[i], types[i]))
            return sbx__wasm_v_fail(v, "type mismatch");
    }
    if (has_ref && !vsub(v, WASM_REF(0, WASM_HT_EXN), types[np]))
        return sbx__wasm_v_fail(v, "type mismatch");
    return true;
}

static bool op_exception(struct vfunc *v, const struct wasm_instr *in)
{
    if (in->op == WASM_OP_THROW) {
        const struct wasm_functype *t = tag_type(v, in->idx);
        if (!t || !sbx__wasm_v_pop_n(v, t->types, t->param_count))
            return false;
        set_unreachable(v);
        return true;
    }
    if (in->op == WASM_OP_THROW_REF) {
        if (!vpop(v, WASM_REF(1, WASM_HT_EXN)))
            return false;
        set_unreachable(v);
        return true;
    }
    const uint8_t *cursor = NULL; /* TRY_TABLE */
    for (uint32_t i = 0; i < in->count; i++) {
        struct wasm_catch c = sbx__wasm_catch_next(in, &cursor);
        if (!check_catch(v, &c))
            return false;
    }
    v->def->has_try_table = true;
    uint32_t np, nr;
    const wasm_vtype *p, *res;
    if (!block_sig(v, in, &np, &p, &nr, &res))
        return false;
    sbx__wasm_lscan_open(&v->ls, false);
    return sbx__wasm_v_pop_n(v, p, np) && push_ctl(v, WASM_OP_BLOCK, np, p, nr, res, in->valtype);
}

static bool step(struct vfunc *v, const struct wasm_instr *in, bool prev_zero)
{
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[in->op];
    wasm_vtype t = 0;
    if (__builtin_expect(!sbx__wasm_feature_on(info->feature), 0))
        return sbx__wasm_rd_unsupported(v->r, v->at, info->feature, info->text);
    switch (in->op) {
    case WASM_OP_UNREACHABLE:
        set_unreachable(v);
        return true;
    case WASM_OP_BLOCK:
    case WASM_OP_LOOP:
    case WASM_OP_IF:
        return op_block(v, in);
    case WASM_OP_ELSE:
        return op_else(v);
    case WASM_OP_END:
        return op_end(v);
    case WASM_OP_BR:
    case WASM_OP_BR_IF:
    case WASM_OP_BR_TABLE:
    case WASM_OP_RETURN:
    case WASM_OP_BR_ON_NULL:
    case WASM_OP_BR_ON_NON_NULL:
        return op_branch(v, in);
    case WASM_OP_CALL:
    case WASM_OP_CALL_INDIRECT:
    case WASM_OP_RETURN_CALL:
    case WASM_OP_RETURN_CALL_INDIRECT:
    case WASM_OP_CALL_REF:
    case WASM_OP_RETURN_CALL_REF:
        return op_call_any(v, in);
    case WASM_OP_THROW:
    case WASM_OP_THROW_REF:
    case WASM_OP_TRY_TABLE:
        return op_exception(v, in);
    case WASM_OP_DROP:
        return sbx__wasm_v_pop_any(v, &t);
    case WASM_OP_SELECT:
    case WASM_OP_SELECT_T:
        return op_select(v, in);
    case WASM_OP_LOCAL_GET:
    case WASM_OP_LOCAL_SET:
    case WASM_OP_LOCAL_TEE:
        return op_local(v, in, prev_zero);
    case WASM_OP_GLOBAL_GET:
    case WASM_OP_GLOBAL_SET:
        return op_global(v, in);
    case WASM_OP_REF_NULL:
    case WASM_OP_REF_IS_NULL:
    case WASM_OP_REF_FUNC:
    case WASM_OP_REF_AS_NON_NULL:
        return op_ref(v, in);
    default:
        if (info->feature == WASM_FEAT_GC)
            return sbx__wasm_v_gc(v, in);
        return op_fixed(v, in, info);
    }
}

/* The most common instructions without the general reader: numeric ops (no immediate, fixed
 * signature), and local.* / i32.const with a one-byte immediate. Returns 1 when handled,
 * 0 when the general path must run, -1 on error. */
static int fast_step(struct vfunc *v, struct wasm_instr *in, bool prev_zero)
{
    struct wasm_reader *r = v->r;
    uint8_t b = r->p[0];
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[b];
    if (info->imm == WASM_IMM_NONE && info->sig != WASM_SIG_NONE && b < 0xFC) {
        r->p++;
        return apply_sig(v, info) ? 1 : -1;
    }
    if (r->end - r->p < 2 || r->p[1] >= 0x80)
        return 0;
    if (b == WASM_OP_LOCAL_GET || b == WASM_OP_LOCAL_SET || b == WASM_OP_LOCAL_TEE) {
        in->op = b;
        in->idx = r->p[1];
        r->p += 2;
        return op_local(v, in, prev_zero) ? 1 : -1;
    }
    if (b == WASM_OP_I32_CONST) {
        v->ls.prev_zero = r->p[1] == 0;
        r->p += 2;
        return vpush(v, WASM_I32) ? 1 : -1;
    }
    return 0;
}

/* True if in pushes a constant whose bits are 0 (as the translator keeps it). */
static bool is_zero_const(const struct wasm_instr *in)
{
    switch (in->op) {
    case WASM_OP_I32_CONST:
    case WASM_OP_I64_CONST:
    case WASM_OP_F32_CONST:
    case WASM_OP_F64_CONST:
        return in->value == 0;
    default:
        return in->op == WASM_OP_REF_NULL;
    }
}

/* Lays out the function's locals (params first) and starts the scan of its declared ones,
 * their flags owned by the module. */
static bool begin_locals(struct vfunc *v, struct wasm_func_def *f)
{
    uint32_t np = v->type->param_count;
    v->nlocals = np + f->local_count; /* both bounded by limits.h: no overflow */
    if (!sbx__wasm_v_grow(v, (void **)&v->locals, &v->cap_locals, sizeof(*v->locals),
                          v->nlocals + 1))
        return false;
    memcpy(v->locals, v->type->types, np * sizeof(*v->locals));
    sbx__wasm_local_types(f, v->locals + np);
    if (!sbx__wasm_v_grow(v, (void **)&v->local_init, &v->cap_init, 1, v->nlocals + 1) ||
        !sbx__wasm_v_grow(v, (void **)&v->inits, &v->cap_inits, sizeof(*v->inits), v->nlocals + 1))
        return false;
    v->ninits = 0;
    memset(v->local_init, 1, np);
    for (uint32_t i = 0; i < f->run_count; i++) {
        const struct wasm_local_run *run = &f->local_runs[i];
        uint32_t from = i ? f->local_runs[i - 1].end : 0;
        if (!sbx__wasm_v_check_type(v->r, v->m, run->type, v->at))
            return false;
        /* a non-null reference has no default value: unset until written */
        bool has_default = !wasm_vtype_is_ref(run->type) || wasm_vtype_is_nullable(run->type);
        memset(v->local_init + np + from, has_default, run->end - from);
    }
    if (f->local_count > 0 && f->local_zeroed == NULL) {
        f->local_zeroed = sbx__calloc(f->local_count, 1);
        if (f->local_zeroed == NULL) {
            *v->nomem = true;
            return sbx__wasm_v_fail(v, "out of memory");
        }
    }
    if (!sbx__wasm_lscan_func(&v->ls, v->type->param_count, f->local_count, f->local_zeroed)) {
        *v->nomem = true;
        return sbx__wasm_v_fail(v, "out of memory");
    }
    return true;
}

static bool validate_func(struct vfunc *v, struct wasm_func_def *f, uint32_t def_idx)
{
    const struct wasm_module *m = v->m;
    struct wasm_reader *r = v->r;
    v->def = f;
    v->func_idx = m->func_import_count + def_idx;
    v->type = &m->types[f->type_index];
    v->nvals = v->nctls = 0;
    r->p = f->code;
    r->end = f->code + f->code_len;
    v->at = r->p;
    if (!begin_locals(v, f) || !push_ctl(v, WASM_OP_BLOCK, 0, NULL, v->type->result_count,
                                         v->type->types + v->type->param_count, 0))
        return false;
    struct wasm_instr in;
    uint32_t left = r->ticks; /* in a register: the poll is on every instruction */
    while (v->nctls > 0) {
        v->at = r->p;
        if (r->p >= r->end)
            return sbx__wasm_rd_fail(r, r->p, "END opcode expected");
        if (sbx__wasm_guard_poll(r->guard, &left))
            return sbx__wasm_rd_fail(r, r->p, "loading stopped");
        bool prev_zero = v->ls.prev_zero;
        v->ls.prev_zero = false;
        int fast = fast_step(v, &in, prev_zero);
        if (fast > 0)
            continue;
        if (fast < 0 || !sbx__wasm_read_instr(r, &in) || !step(v, &in, prev_zero))
            return false;
        v->ls.prev_zero = is_zero_const(&in);
    }
    r->ticks = left;
    if (v->ls.is_nomem) {
        *v->nomem = true;
        return sbx__wasm_v_fail(v, "out of memory");
    }
    if (r->p != r->end)
        return sbx__wasm_rd_fail(r, r->p, "section size mismatch");
    return true;
}

bool sbx__wasm_validate_code(struct wasm_reader *r, struct wasm_module *m, bool *nomem)
{
    struct vfunc v = {.m = m, .r = r, .nomem = nomem};
    bool ok = true;
    r->is_in_section = true;
    for (uint32_t i = 0; i < m->func_def_count && ok; i++) {
        ok = validate_func(&v, &m->funcs[i], i);
        m->has_tail_calls |= m->funcs[i].has_tail_call;
    }
    sbx__wasm_lscan_free(&v.ls);
    r->p = r->base;
    r->end = r->file_end;
    r->is_in_section = false;
    sbx__free(v.vals);
    sbx__free(v.ctls);
    sbx__free(v.tmp);
    sbx__free(v.locals);
    sbx__free(v.local_init);
    sbx__free(v.inits);
    return ok;
}

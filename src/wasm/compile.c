/* wasm/compile.c: translates validated function bodies into code.h's form in one pass:
 * operand-stack bookkeeping, locals, control flow and calls (compile_ops.c does the rest).
 * Branch targets are resolved here (forward ones through a patch chain), so the interpreter
 * never scans for an end. Input is validated, so typing is trusted; bounds are still checked. */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/compile.h"
#include "wasm/compile_impl.h"
#include "wasm/decode.h"
#include "wasm/opcodes.h"

#define MAX_WORDS (1u << 28)
#define MAX_SLOTS (1u << 24)

void sbx__wasm_c_fail(struct compiler *c, sbx_err rc, const char *msg)
{
    if (c->has_failed)
        return;
    c->has_failed = true;
    c->rc = rc;
    if (c->err && c->errlen)
        snprintf(c->err, c->errlen, "%s", msg);
}

void sbx__wasm_c_emit(struct compiler *c, uint32_t word)
{
    if (c->wlen == c->wcap) {
        if (c->has_failed)
            return;
        uint32_t cap = c->wcap ? c->wcap * 2 : 256;
        if (cap > MAX_WORDS) {
            sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "implementation limit: code too large");
            return;
        }
        uint32_t *w = sbx__reallocn(c->w, cap, sizeof(*w));
        if (w)
            c->w = w;
        uint8_t *is_op = sbx__reallocn(c->is_op, cap, 1);
        if (is_op)
            c->is_op = is_op;
        if (!w || !is_op) {
            sbx__wasm_c_fail(c, SBX_E_NOMEM, "out of memory");
            return;
        }
        c->wcap = cap;
    }
    c->is_op[c->wlen] = 0;
    c->w[c->wlen++] = word;
}

static bool is_add(enum wasm_iop op)
{
    return op == IOP_i32_add || op == IOP_i32_add_i;
}

static bool is_i32_compare(enum wasm_iop op)
{
    return (op >= IOP_i32_eq && op <= IOP_i32_ge_u) ||
           (op >= IOP_i32_eq_i && op <= IOP_i32_ge_u_i) || op == IOP_i32_eqz;
}

/* Two adjacent i32 adds (address arithmetic) become one dispatch once a third instruction
 * follows that did not fuse with the second. Not before a compare: the loop's closing add
 * may still fuse with it (addbr_*). Only the second add's words move, and nothing refers to
 * them: labels reset the history, branch words belong to other instructions. */
static void merge_add_pair(struct compiler *c, enum wasm_iop next)
{
    uint32_t a = c->prev_start, b = c->last_start;
    if (!is_add(c->prev_op) || !is_add(c->last_op) || is_i32_compare(next) || a + 4 != b ||
        b + 4 != c->wlen)
        return;
    int form = (c->prev_op == IOP_i32_add_i ? 2 : 0) + (c->last_op == IOP_i32_add_i ? 1 : 0);
    static const enum wasm_iop pairs[4] = {IOP_i32_add_pair, IOP_i32_add_pair_ri,
                                           IOP_i32_add_pair_ir, IOP_i32_add_pair_ii};
    c->w[a] = (uint32_t)c->ops[pairs[form]];
    for (uint32_t i = b; i < b + 3; i++) {
        c->w[i] = c->w[i + 1];
        c->is_op[i] = 0;
    }
    c->wlen--;
    c->last_op = pairs[form];
    c->last_start = a;
    c->prev_op = c->older_op;
    c->prev_start = c->older_start;
    c->older_op = IOP_unreachable;
}

void sbx__wasm_c_op(struct compiler *c, enum wasm_iop op)
{
    merge_add_pair(c, op);
    c->last_dst = 0;
    c->last_cmp = 0;
    c->older_op = c->prev_op;
    c->older_start = c->prev_start;
    c->prev_op = c->last_op;
    c->prev_start = c->last_start;
    c->last_op = op;
    c->last_start = c->wlen;
    sbx__wasm_c_emit(c, (uint32_t)c->ops[op]);
    if (c->last_start < c->wlen)
        c->is_op[c->last_start] = 1;
}

void sbx__wasm_c_unemit(struct compiler *c)
{
    c->wlen = c->last_start;
    c->last_op = c->prev_op;
    c->last_start = c->prev_start;
    c->prev_op = c->older_op;
    c->prev_start = c->older_start;
    c->older_op = IOP_unreachable;
    c->last_dst = c->last_cmp = 0;
}

bool sbx__wasm_c_grow(struct compiler *c, void **arr, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return true;
    uint32_t ncap = *cap ? *cap : 16;
    while (ncap < need && ncap < (1u << 30))
        ncap *= 2;
    void *p = ncap >= need ? sbx__reallocn(*arr, ncap, size) : NULL;
    if (!p) {
        sbx__wasm_c_fail(c, SBX_E_NOMEM, "out of memory");
        return false;
    }
    *arr = p;
    *cap = ncap;
    return true;
}

struct centry *sbx__wasm_c_push(struct compiler *c, wasm_vtype type)
{
    if (!sbx__wasm_c_grow(c, (void **)&c->st, &c->stcap, c->sp + 1, sizeof(*c->st)))
        c->sp--; /* keep going on the last entry; the failure is reported */
    struct centry *e = &c->st[c->sp++];
    e->type = type;
    e->kind = K_SLOT;
    e->slot = c->slot_top;
    e->local = 0;
    e->k = 0;
    c->slot_top += sbx__wasm_type_slots(type);
    if (c->slot_top > c->max_slot)
        c->max_slot = c->slot_top;
    return e;
}

struct centry sbx__wasm_c_pop(struct compiler *c)
{
    if (c->sp == 0) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "operand stack underflow");
        struct centry none = {.type = WASM_I32, .slot = c->slot_top};
        return none;
    }
    struct centry e = c->st[--c->sp];
    c->slot_top = e.slot;
    return e;
}

static void emit_const(struct compiler *c, uint32_t dst, uint64_t k)
{
    if (k <= UINT32_MAX) {
        sbx__wasm_c_op(c, IOP_const32);
        sbx__wasm_c_emit(c, dst);
        sbx__wasm_c_emit(c, (uint32_t)k);
        return;
    }
    sbx__wasm_c_op(c, IOP_const64);
    sbx__wasm_c_emit(c, dst);
    sbx__wasm_c_emit(c, (uint32_t)k);
    sbx__wasm_c_emit(c, (uint32_t)(k >> 32));
}

static void emit_mov(struct compiler *c, wasm_vtype type, uint32_t dst, uint32_t src)
{
    if (dst == src)
        return;
    if (type != WASM_V128 && c->last_op == IOP_mov && c->last_start + 3 == c->wlen) {
        c->w[c->last_start] = (uint32_t)c->ops[IOP_mov_mov]; /* two moves, one dispatch */
        c->last_op = IOP_mov_mov;
        sbx__wasm_c_emit(c, dst);
        sbx__wasm_c_emit(c, src);
        return;
    }
    sbx__wasm_c_op(c, type == WASM_V128 ? IOP_mov2 : IOP_mov);
    sbx__wasm_c_emit(c, dst);
    sbx__wasm_c_emit(c, src);
}

/* Puts e's value into dst without changing what the compile-time stack believes. */
void sbx__wasm_c_copy(struct compiler *c, const struct centry *e, uint32_t dst)
{
    if (e->kind == K_CONST)
        emit_const(c, dst, e->k);
    else
        emit_mov(c, e->type, dst, e->kind == K_LOCAL ? e->local : e->slot);
}

/* Returns the slot holding e's value, writing a constant into e's own slot first. Never
 * changes stack state, so it is safe on paths that only some executions take. */
uint32_t sbx__wasm_c_operand(struct compiler *c, const struct centry *e)
{
    if (e->kind == K_LOCAL)
        return e->local;
    if (e->kind == K_CONST)
        emit_const(c, e->slot, e->k);
    return e->slot;
}

static void flush_entry(struct compiler *c, struct centry *e)
{
    if (e->kind == K_SLOT)
        return;
    sbx__wasm_c_copy(c, e, e->slot);
    e->kind = K_SLOT;
}

void sbx__wasm_c_flush_top(struct compiler *c, uint32_t n)
{
    for (uint32_t i = c->sp - n; i < c->sp; i++)
        flush_entry(c, &c->st[i]);
}

static void flush_local(struct compiler *c, uint32_t lslot)
{
    for (uint32_t i = 0; i < c->sp; i++)
        if (c->st[i].kind == K_LOCAL && c->st[i].local == lslot)
            flush_entry(c, &c->st[i]);
}

void sbx__wasm_c_result(struct compiler *c, enum wasm_iop op, wasm_vtype type,
                        const uint32_t *opnds, uint32_t n)
{
    sbx__wasm_c_op(c, op);
    struct centry *e = sbx__wasm_c_push(c, type);
    uint32_t dpos = c->wlen;
    sbx__wasm_c_emit(c, e->slot);
    for (uint32_t i = 0; i < n; i++)
        sbx__wasm_c_emit(c, opnds[i]);
    c->last_dst = dpos + 1;
}

void sbx__wasm_c_label(struct compiler *c)
{
    c->last_dst = 0;
    c->last_cmp = 0;
    c->last_op = c->prev_op = c->older_op = IOP_unreachable;
}

/* --- locals, drop, select ----------------------------------------------------------------- */

static bool has_local_refs(const struct compiler *c, uint32_t lslot, uint32_t below)
{
    for (uint32_t i = 0; i < below; i++)
        if (c->st[i].kind == K_LOCAL && c->st[i].local == lslot)
            return true;
    return false;
}

/* True if local x still holds the zero it got at entry: a zeroed declared local that no
 * earlier instruction writes, outside any loop (a loop could bring a later write around). */
static bool is_still_zero(const struct compiler *c, uint32_t x)
{
    if (x < c->ft->param_count || c->local_written[x] || !c->local_zeroed[x])
        return false;
    for (uint32_t i = 0; i < c->nbl; i++)
        if (c->bl[i].kind == B_LOOP)
            return false;
    return true;
}

static void set_local(struct compiler *c, uint32_t x)
{
    uint32_t ls = c->local_slot[x];
    const struct centry *top = &c->st[c->sp - 1];
    bool was_zero = is_still_zero(c, x);
    c->local_written[x] = 1;
    /* The value was just computed into its slot: compute it into the local instead. */
    if (top->kind == K_SLOT && c->last_dst && c->last_dst - 1 < c->wlen &&
        c->w[c->last_dst - 1] == top->slot && !has_local_refs(c, ls, c->sp - 1)) {
        c->w[c->last_dst - 1] = ls;
        sbx__wasm_c_pop(c);
        c->last_dst = c->last_cmp = 0; /* still the last instruction, now writing a local */
        return;
    }
    struct centry e = sbx__wasm_c_pop(c);
    if ((e.kind == K_LOCAL && e.local == ls) || (e.kind == K_CONST && e.k == 0 && was_zero))
        return; /* the local already holds the value (C's `int x = 0;`) */
    flush_local(c, ls);
    sbx__wasm_c_copy(c, &e, ls);
}

static void do_local(struct compiler *c, const struct wasm_instr *in)
{
    uint32_t x = in->idx;
    if (c->is_dead)
        return;
    if (x >= c->local_count) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "unknown local");
        return;
    }
    if (in->op != WASM_OP_LOCAL_GET) {
        if (c->sp == 0) {
            sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "operand stack underflow");
            return;
        }
        set_local(c, x);
        if (in->op == WASM_OP_LOCAL_SET)
            return;
    }
    struct centry *e = sbx__wasm_c_push(c, c->local_type[x]);
    e->kind = K_LOCAL;
    e->local = c->local_slot[x];
}

static void do_select(struct compiler *c)
{
    if (c->is_dead)
        return;
    struct centry cond = sbx__wasm_c_pop(c), b = sbx__wasm_c_pop(c), a = sbx__wasm_c_pop(c);
    uint32_t opnds[3];
    opnds[0] = sbx__wasm_c_operand(c, &a);
    opnds[1] = sbx__wasm_c_operand(c, &b);
    opnds[2] = sbx__wasm_c_operand(c, &cond);
    sbx__wasm_c_result(c, a.type == WASM_V128 ? IOP_select2 : IOP_select, a.type, opnds, 3);
}

/* --- the driver ------------------------------------------------------------------------- */

/* Translates one control, local or stack instruction; false when in is none of them. */
static bool step_structural(struct compiler *c, const struct wasm_instr *in, bool *is_final)
{
    switch (in->op) {
    case WASM_OP_UNREACHABLE:
        if (!c->is_dead) {
            sbx__wasm_c_op(c, IOP_unreachable);
            c->is_dead = true;
        }
        return true;
    case WASM_OP_NOP:
        return true;
    case WASM_OP_BLOCK:
        sbx__wasm_c_block(c, B_BLOCK, in);
        return true;
    case WASM_OP_LOOP:
        sbx__wasm_c_block(c, B_LOOP, in);
        return true;
    case WASM_OP_IF:
        sbx__wasm_c_block(c, B_IF, in);
        return true;
    case WASM_OP_ELSE:
        sbx__wasm_c_else(c);
        return true;
    case WASM_OP_END:
        *is_final = sbx__wasm_c_end(c);
        return true;
    case WASM_OP_BR:
        sbx__wasm_c_br(c, in);
        return true;
    case WASM_OP_BR_IF:
        sbx__wasm_c_br_if(c, in);
        return true;
    case WASM_OP_BR_TABLE:
        sbx__wasm_c_br_table(c, in);
        return true;
    case WASM_OP_BR_ON_NULL:
    case WASM_OP_BR_ON_NON_NULL:
        sbx__wasm_c_br_on_null(c, in);
        return true;
    case WASM_OP_BR_ON_CAST:
    case WASM_OP_BR_ON_CAST_FAIL:
        sbx__wasm_c_br_on_cast(c, in);
        return true;
    case WASM_OP_CALL_REF:
    case WASM_OP_RETURN_CALL_REF:
        sbx__wasm_c_call_ref(c, in);
        return true;
    case WASM_OP_RETURN:
        if (!c->is_dead) {
            sbx__wasm_c_return(c);
            c->is_dead = true;
        }
        return true;
    case WASM_OP_CALL:
        sbx__wasm_c_call(c, in);
        return true;
    case WASM_OP_CALL_INDIRECT:
        sbx__wasm_c_call_indirect(c, in);
        return true;
    case WASM_OP_RETURN_CALL:
    case WASM_OP_RETURN_CALL_INDIRECT:
        sbx__wasm_c_return_call(c, in);
        return true;
    case WASM_OP_TRY_TABLE:
        sbx__wasm_c_try_table(c, in);
        return true;
    case WASM_OP_THROW:
    case WASM_OP_THROW_REF:
        sbx__wasm_c_throw(c, in);
        return true;
    case WASM_OP_DROP:
        if (!c->is_dead)
            sbx__wasm_c_pop(c);
        return true;
    case WASM_OP_SELECT:
    case WASM_OP_SELECT_T:
        do_select(c);
        return true;
    case WASM_OP_LOCAL_GET:
    case WASM_OP_LOCAL_SET:
    case WASM_OP_LOCAL_TEE:
        do_local(c, in);
        return true;
    default:
        return false;
    }
}

/* Returns true at the function's final end. Dead code (after br, return, unreachable) is
 * read, its immediates included, and dropped, but for the nesting it keeps. */
static bool step(struct compiler *c)
{
    struct wasm_instr in;
    if (!sbx__wasm_read_instr(&c->r, &in)) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "malformed code");
        return false;
    }
    if (!c->is_dead)
        c->fuel++;
    bool is_final = false;
    if (step_structural(c, &in, &is_final) || c->is_dead)
        return is_final;
    sbx__wasm_c_ops(c, &in);
    return false;
}

/* Slots: params, then the locals a call zeroes, the zero slot, the other locals. */
static bool setup_locals(struct compiler *c, const struct wasm_func_def *fd)
{
    const struct wasm_functype *ft = c->ft;
    c->local_count = ft->param_count + fd->local_count;
    c->local_slot = sbx__mallocn((size_t)c->local_count + 1, sizeof(uint32_t));
    c->local_type = sbx__mallocn((size_t)c->local_count + 1, sizeof(*c->local_type));
    c->local_written = sbx__calloc((size_t)c->local_count + 1, 1);
    c->local_zeroed = sbx__calloc((size_t)c->local_count + 1, 1);
    if (!c->local_slot || !c->local_type || !c->local_written || !c->local_zeroed)
        return false;
    for (uint32_t i = 0; i < ft->param_count; i++)
        c->local_type[i] = ft->types[i];
    sbx__wasm_local_types(fd, c->local_type + ft->param_count);
    for (uint32_t i = ft->param_count; i < c->local_count; i++)
        c->local_zeroed[i] = fd->local_zeroed ? fd->local_zeroed[i - ft->param_count] : 1;
    uint32_t slot = 0;
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 2)
            c->zero_slot = slot++;
        for (uint32_t i = 0; i < c->local_count; i++) {
            int want = i < ft->param_count ? 0 : c->local_zeroed[i] ? 1 : 2;
            if (want != pass)
                continue;
            c->local_slot[i] = slot;
            slot += sbx__wasm_type_slots(c->local_type[i]);
            if (slot > MAX_SLOTS)
                return false;
        }
    }
    c->frame_base = slot;
    c->slot_top = c->max_slot = c->frame_base;
    return true;
}

static void open_func_block(struct compiler *c)
{
    struct cblock *b = &c->bl[c->nbl++];
    memset(b, 0, sizeof(*b));
    b->kind = B_FUNC;
    b->nresults = c->ft->result_count;
    b->rtypes = c->ft->types + c->ft->param_count;
    b->base_slot = c->frame_base;
}

static uint32_t types_slots(const wasm_vtype *types, uint32_t n)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += sbx__wasm_type_slots(types[i]);
    return s;
}

/* Widens the code to its final form: handler words become the handlers' addresses, so
 * dispatch is a single indirect jump. */
static void finish(struct compiler *c, struct wasm_code *out, uint32_t func_index)
{
    const struct wasm_functype *ft = c->ft;
    const char *base = sbx__wasm_interp_base();
    out->words = sbx__mallocn(c->wlen ? c->wlen : 1, sizeof(wasm_word));
    if (!out->words) {
        sbx__wasm_c_fail(c, SBX_E_NOMEM, "out of memory");
        return;
    }
    out->op_bits = sbx__calloc(c->wlen / 8 + 1, 1);
    if (!out->op_bits) {
        sbx__wasm_c_fail(c, SBX_E_NOMEM, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < c->wlen; i++) {
        out->words[i] = c->is_op[i] ? (wasm_word)(uintptr_t)(base + (int32_t)c->w[i]) : c->w[i];
        out->op_bits[i / 8] |= (uint8_t)(c->is_op[i] << (i % 8));
    }
    out->word_count = c->wlen;
    out->func_index = func_index;
    out->param_slots = types_slots(ft->types, ft->param_count);
    out->result_slots = types_slots(ft->types + ft->param_count, ft->result_count);
    out->local_slots = c->zero_slot + (c->is_zero_used ? 1 : 0) - out->param_slots;
    out->frame_slots = c->max_slot > out->result_slots ? c->max_slot : out->result_slots;
    out->entry_fuel = c->fuel ? c->fuel : 1;
    out->type = ft;
    out->handlers = c->handlers;
    out->nhandlers = c->nhandlers;
    out->catches = c->catches;
    c->handlers = NULL;
    c->catches = NULL;
    sbx__wasm_c_osr_finish(c, out);
}

static void compile_func(struct compiler *c, uint32_t def, struct wasm_code *out)
{
    const struct wasm_func_def *fd = &c->m->funcs[def];
    c->ft = &c->m->types[fd->type_index];
    c->r = (struct wasm_reader){.base = c->m->bytes,
                                .file_end = c->m->bytes + c->m->len,
                                .p = fd->code,
                                .end = fd->code + fd->code_len};
    c->stcap = c->blcap = 16;
    c->st = sbx__calloc(c->stcap, sizeof(*c->st));
    c->bl = sbx__calloc(c->blcap, sizeof(*c->bl));
    if (!c->st || !c->bl || !setup_locals(c, fd)) {
        sbx__wasm_c_fail(c, SBX_E_NOMEM, "out of memory or too many locals");
        return;
    }
    open_func_block(c);
    uint32_t left = GUARD_PERIOD; /* sbx__wasm_compile checks the guard per function too */
    while (!c->has_failed && !step(c)) {
        if (sbx__wasm_guard_poll(c->m->guard, &left))
            sbx__wasm_c_fail(c, sbx__wasm_guard_check(c->m->guard), "loading stopped");
    }
    if (!c->has_failed && c->max_slot > MAX_SLOTS)
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "implementation limit: frame too large");
    if (!c->has_failed)
        finish(c, out, c->m->func_import_count + def);
}

static void compiler_reset(struct compiler *c)
{
    sbx__free(c->w);
    sbx__free(c->is_op);
    sbx__free(c->st);
    sbx__free(c->bl);
    sbx__free(c->local_slot);
    sbx__free(c->local_type);
    sbx__free(c->local_written);
    sbx__free(c->local_zeroed);
    sbx__free(c->osr_loops);
    sbx__free(c->handlers);
    sbx__free(c->catches);
    const struct wasm_module *m = c->m;
    const int32_t *ops = c->ops;
    char *err = c->err;
    size_t errlen = c->errlen;
    memset(c, 0, sizeof(*c));
    c->m = m;
    c->ops = ops;
    c->err = err;
    c->errlen = errlen;
}

sbx_err sbx__wasm_compile(struct wasm_module *m, char *err, size_t errlen)
{
    m->compiled = sbx__calloc(m->func_def_count ? m->func_def_count : 1, sizeof(*m->compiled));
    if (!m->compiled)
        return SBX_E_NOMEM;
    struct compiler c = {.m = m, .ops = sbx__wasm_interp_ops(), .err = err, .errlen = errlen};
    for (uint32_t i = 0; i < m->func_def_count; i++) {
        compiler_reset(&c);
        /* Per function too: setting up many locals is work no instruction count shows. */
        sbx_err stop = sbx__wasm_guard_check(m->guard);
        if (stop != SBX_OK)
            sbx__wasm_c_fail(&c, stop, "loading stopped");
        else
            compile_func(&c, i, &m->compiled[i]);
        if (c.has_failed) {
            sbx_err rc = c.rc;
            if (err && errlen && rc != SBX_E_NOMEM) {
                char msg[200];
                snprintf(msg, sizeof(msg), "%s", err);
                snprintf(err, errlen, "%s in function %u", msg, m->func_import_count + i);
            }
            compiler_reset(&c);
            sbx__wasm_compile_free(m);
            return rc;
        }
    }
    compiler_reset(&c);
    return SBX_OK;
}

void sbx__wasm_compile_free(struct wasm_module *m)
{
    if (!m || !m->compiled)
        return;
    for (uint32_t i = 0; i < m->func_def_count; i++) {
        sbx__free(m->compiled[i].words);
        sbx__free(m->compiled[i].op_bits);
        sbx__free(m->compiled[i].handlers);
        sbx__free(m->compiled[i].catches);
        sbx__wasm_osr_free(m->compiled[i].osr);
    }
    sbx__free(m->compiled);
    m->compiled = NULL;
}

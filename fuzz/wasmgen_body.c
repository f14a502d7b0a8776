/* fuzz/wasmgen_body.c: function bodies by typed stack-machine generation. The generator tracks
 * the operand types and the control frames, picks an instruction, and first pushes fresh
 * operands when the stack's top does not hold the ones it needs; so every body validates.
 * Float values reach memory, reinterpret and copysign's sign only after NaNs are made canonical
 * (a NaN's payload and sign are nondeterministic in the spec, so the tiers may differ there). */
#include <string.h>

#include "wasmgen_impl.h"

enum { CANON_TOP = 1 }; /* canonicalise the top operand's NaNs first */

/* Numeric instructions in runs of one shape: opcodes first..last take in0 (and in1) to out. */
struct numrun {
    uint8_t prefix, first, last, in0, in1, out, flags;
};

#define I WGEN_I32
#define L WGEN_I64
#define F WGEN_F32
#define D WGEN_F64
static const struct numrun numruns[] = {
    {0, 0x45, 0x45, I, 0, I, 0},
    {0, 0x46, 0x4f, I, I, I, 0},
    {0, 0x50, 0x50, L, 0, I, 0},
    {0, 0x51, 0x5a, L, L, I, 0},
    {0, 0x5b, 0x60, F, F, I, 0},
    {0, 0x61, 0x66, D, D, I, 0},
    {0, 0x67, 0x69, I, 0, I, 0},
    {0, 0x6a, 0x78, I, I, I, 0},
    {0, 0x79, 0x7b, L, 0, L, 0},
    {0, 0x7c, 0x8a, L, L, L, 0},
    {0, 0x8b, 0x91, F, 0, F, 0},
    {0, 0x92, 0x97, F, F, F, 0},
    {0, 0x98, 0x98, F, F, F, CANON_TOP},
    {0, 0x99, 0x9f, D, 0, D, 0},
    {0, 0xa0, 0xa5, D, D, D, 0},
    {0, 0xa6, 0xa6, D, D, D, CANON_TOP},
    {0, 0xa7, 0xa7, L, 0, I, 0},
    {0, 0xa8, 0xa9, F, 0, I, 0},
    {0, 0xaa, 0xab, D, 0, I, 0},
    {0, 0xac, 0xad, I, 0, L, 0},
    {0, 0xae, 0xaf, F, 0, L, 0},
    {0, 0xb0, 0xb1, D, 0, L, 0},
    {0, 0xb2, 0xb3, I, 0, F, 0},
    {0, 0xb4, 0xb5, L, 0, F, 0},
    {0, 0xb6, 0xb6, D, 0, F, 0},
    {0, 0xb7, 0xb8, I, 0, D, 0},
    {0, 0xb9, 0xba, L, 0, D, 0},
    {0, 0xbb, 0xbb, F, 0, D, 0},
    {0, 0xbc, 0xbc, F, 0, I, CANON_TOP},
    {0, 0xbd, 0xbd, D, 0, L, CANON_TOP},
    {0, 0xbe, 0xbe, I, 0, F, 0},
    {0, 0xbf, 0xbf, L, 0, D, 0},
    {0, 0xc0, 0xc1, I, 0, I, 0},
    {0, 0xc2, 0xc4, L, 0, L, 0},
    {0xfc, 0, 1, F, 0, I, 0},
    {0xfc, 2, 3, D, 0, I, 0},
    {0xfc, 4, 5, F, 0, L, 0},
    {0xfc, 6, 7, D, 0, L, 0},
};

/* Loads and stores: opcode, value type, natural alignment (log2). */
struct memop {
    uint8_t op, type, align;
};
static const struct memop loads[] = {
    {0x28, I, 2}, {0x29, L, 3}, {0x2a, F, 2}, {0x2b, D, 3}, {0x2c, I, 0},
    {0x2d, I, 0}, {0x2e, I, 1}, {0x2f, I, 1}, {0x30, L, 0}, {0x31, L, 0},
    {0x32, L, 1}, {0x33, L, 1}, {0x34, L, 2}, {0x35, L, 2},
};
static const struct memop stores[] = {
    {0x36, I, 2}, {0x37, L, 3}, {0x38, F, 2}, {0x39, D, 3}, {0x3a, I, 0},
    {0x3b, I, 1}, {0x3c, L, 0}, {0x3d, L, 1}, {0x3e, L, 2},
};
#undef I
#undef L
#undef F
#undef D
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void op(struct gen *g, uint8_t byte)
{
    buf_byte(g->code, byte);
}

static void op_idx(struct gen *g, uint8_t byte, uint32_t idx)
{
    buf_byte(g->code, byte);
    buf_uleb(g->code, idx);
}

static void op_fc(struct gen *g, uint32_t sub)
{
    buf_byte(g->code, 0xfc);
    buf_uleb(g->code, sub);
}

static void push(struct gen *g, uint8_t t)
{
    if (g->sp < MAX_STACK)
        g->stack[g->sp++] = t;
}

static struct frame *top(struct gen *g)
{
    return &g->ctrl[g->ctrl_count - 1];
}

static uint32_t avail(struct gen *g)
{
    return g->sp - top(g)->height;
}

static bool top_is(struct gen *g, const uint8_t *types, uint32_t n)
{
    return avail(g) >= n && !memcmp(&g->stack[g->sp - n], types, n);
}

static void emit_const(struct gen *g, uint8_t t, uint64_t bits)
{
    static const uint8_t ops[] = {0x44, 0x43, 0x42, 0x41}; /* by t - WGEN_F64 */
    op(g, ops[t - WGEN_F64]);
    if (t == WGEN_I32)
        buf_sleb(g->code, (int32_t)(uint32_t)bits);
    else if (t == WGEN_I64)
        buf_sleb(g->code, (int64_t)bits);
    else
        for (int i = 0; i < (t == WGEN_F32 ? 4 : 8); i++)
            op(g, (uint8_t)(bits >> (8 * i)));
}

/* Returns a local of type t chosen by the input, or -1; a param in half the cases where one
 * has the type (params vary from call to call; other locals start at 0). */
static int pick_local(struct gen *g, uint8_t t)
{
    int found[MAX_LOCALS], n = 0;
    uint32_t params = g->ctrl_count ? g->param_count : 0;
    bool is_param = gen_pick(g, 2) != 0;
    for (uint32_t i = 0; is_param && i < params; i++)
        if (g->local_type[i] == t)
            found[n++] = (int)i;
    for (uint32_t i = 0; !n && i < g->local_count; i++)
        if (g->local_type[i] == t)
            found[n++] = (int)i;
    return n ? found[gen_pick(g, (uint32_t)n)] : -1;
}

static int pick_global(struct gen *g, uint8_t t, bool need_mut)
{
    int found[MAX_GLOBALS], n = 0;
    for (uint32_t i = need_mut ? 2 : 0; i < g->global_count; i++) /* g0, g1 have their jobs */
        if (g->global_type[i] == t && (!need_mut || g->global_is_mut[i]))
            found[n++] = (int)i;
    return n ? found[gen_pick(g, (uint32_t)n)] : -1;
}

/* Pushes a fresh value of type t: a constant, a local, a global or (funcref) a reference. */
static void gen_value(struct gen *g, uint8_t t)
{
    uint32_t c = gen_pick(g, 8);
    if (t == WGEN_FUNCREF) {
        if (c < 3) {
            op(g, 0xd0);
            op(g, WGEN_FUNCREF);
        } else if (c < 6) {
            op_idx(g, 0xd2, 1 + gen_pick(g, g->func_count - 1)); /* exported, so declared */
        } else {
            emit_const(g, WGEN_I32, gen_pick(g, g->table_min + 1));
            op_idx(g, 0x25, 0);
        }
    } else if (c < 4 && pick_local(g, t) >= 0) {
        op_idx(g, 0x20, (uint32_t)pick_local(g, t));
    } else if (c == 3 && pick_global(g, t, false) >= 0) {
        op_idx(g, 0x23, (uint32_t)pick_global(g, t, false));
    } else {
        emit_const(g, t, gen_bits(g, t));
    }
    push(g, t);
}

/* Makes the top of the stack hold values of types (the last on top): uses what is there when
 * it matches, else pushes fresh ones. */
static void ensure(struct gen *g, const uint8_t *types, uint32_t n)
{
    if (top_is(g, types, n))
        return;
    for (uint32_t i = 0; i < n; i++)
        gen_value(g, types[i]);
}

static void ensure1(struct gen *g, uint8_t t)
{
    ensure(g, &t, 1);
}

/* Replaces a NaN on top of the stack (type t) with the canonical one: x == x ? x : nan. */
static void canonicalise(struct gen *g, uint8_t t)
{
    uint32_t s = t == WGEN_F32 ? g->scratch_f32 : g->scratch_f64;
    op_idx(g, 0x22, s);
    emit_const(g, t, t == WGEN_F32 ? 0x7fc00000 : 0x7ff8000000000000ull);
    op_idx(g, 0x20, s);
    op_idx(g, 0x20, s);
    op(g, t == WGEN_F32 ? 0x5b : 0x61);
    op(g, 0x1b);
}

/* Discards the top value: mostly mixes it into the sink (global 1: g1 = rotl(g1, 7) ^ v, v as
 * i64 bits, NaNs canonical), so that the compared state depends on it; sometimes a plain drop. */
static void discard(struct gen *g)
{
    uint8_t t = g->stack[--g->sp];
    if (!gen_pick(g, 4)) {
        op(g, 0x1a);
        return;
    }
    if (t == WGEN_F32 || t == WGEN_F64)
        canonicalise(g, t);
    if (t == WGEN_FUNCREF)
        op(g, 0xd1); /* ref.is_null */
    if (t == WGEN_F32 || t == WGEN_F64)
        op(g, t == WGEN_F32 ? 0xbc : 0xbd); /* reinterpret */
    if (t != WGEN_I64 && t != WGEN_F64)
        op(g, 0xad); /* i64.extend_i32_u */
    op_idx(g, 0x23, 1);
    emit_const(g, WGEN_I64, 7);
    op(g, 0x89); /* i64.rotl */
    op(g, 0x85); /* i64.xor */
    op_idx(g, 0x24, 1);
}

/* The numeric instruction number n (in table order): its run, and n becomes its offset in it. */
static const struct numrun *numop(uint32_t *n)
{
    uint32_t k = 0;
    for (; *n > (uint32_t)(numruns[k].last - numruns[k].first); k++)
        *n -= numruns[k].last - numruns[k].first + 1u;
    return &numruns[k];
}

static uint32_t numop_count(void)
{
    uint32_t total = 0;
    for (uint32_t k = 0; k < COUNT(numruns); k++)
        total += numruns[k].last - numruns[k].first + 1u;
    return total;
}

/* A trap ends the call and so hides every value it would have computed: three times in four,
 * a divisor gets its low bit set and a trapping truncation becomes the saturating one. Returns
 * true when it emitted the instruction itself. */
static bool avoid_trap(struct gen *g, const struct numrun *r, uint32_t off)
{
    uint8_t code = (uint8_t)(r->first + off);
    bool is_div = !r->prefix && ((code >= 0x6d && code <= 0x70) || (code >= 0x7f && code <= 0x82));
    bool is_trunc =
        !r->prefix && ((code >= 0xa8 && code <= 0xab) || (code >= 0xae && code <= 0xb1));
    if ((!is_div && !is_trunc) || !gen_pick(g, 4))
        return false;
    if (is_div) {
        emit_const(g, r->in1, 1);
        op(g, r->in1 == WGEN_I32 ? 0x72 : 0x84); /* or */
        return false;
    }
    op_fc(g, code <= 0xab ? code - 0xa8u : code - 0xaeu + 4);
    g->sp--;
    push(g, r->out);
    return true;
}

/* Mostly an instruction that takes the values on top of the stack (so expressions nest and
 * computed values meet each other), else any, with fresh operands. */
static void gen_numeric(struct gen *g)
{
    uint32_t total = numop_count(), off = gen_pick(g, total), fits[256], fit_count = 0;
    const struct numrun *r = numop(&off);
    for (uint32_t m = 0; m < total && fit_count < COUNT(fits); m++) {
        uint32_t moff = m;
        const struct numrun *c = numop(&moff);
        uint8_t in[2] = {c->in0, c->in1};
        if (top_is(g, in, c->in1 ? 2 : 1))
            fits[fit_count++] = m;
    }
    if (fit_count && gen_pick(g, 4)) {
        off = fits[gen_pick(g, fit_count)];
        r = numop(&off);
    }
    uint8_t in[2] = {r->in0, r->in1};
    uint32_t arity = r->in1 ? 2 : 1;
    ensure(g, in, arity);
    if (r->flags & CANON_TOP)
        canonicalise(g, in[arity - 1]);
    if (avoid_trap(g, r, off))
        return;
    if (r->prefix)
        op_fc(g, r->first + off);
    else
        op(g, (uint8_t)(r->first + off));
    g->sp -= arity;
    push(g, r->out);
}

/* The termination budget (global 0): at 0 the function returns zeros, else one unit goes. */
static void gen_budget_check(struct gen *g)
{
    const struct wgen_sig *f = &g->ctrl[0].sig;
    op_idx(g, 0x23, 0);
    op(g, 0x45);
    op(g, 0x04);
    op(g, 0x40);
    for (uint32_t i = 0; i < f->result_count; i++)
        emit_const(g, f->results[i], 0);
    op(g, 0x0f);
    op(g, 0x0b);
    op_idx(g, 0x23, 0);
    emit_const(g, WGEN_I32, 1);
    op(g, 0x6b);
    op_idx(g, 0x24, 0);
}

/* The types a branch to frame f carries: a loop's params, else its results. */
static const uint8_t *label_types(const struct frame *f, uint32_t *n)
{
    *n = f->kind == 0x03 ? f->sig.param_count : f->sig.result_count;
    return f->kind == 0x03 ? f->sig.params : f->sig.results;
}

/* After an unconditional branch the rest of the frame is unreachable: generation goes on from
 * an empty frame stack, which the validator's polymorphic stack accepts. */
static void set_unreachable(struct gen *g)
{
    g->sp = top(g)->height;
}

/* Makes the frame's stack exactly types: a br 0 when they are on top of extra values (not in a
 * loop, where br 0 goes back), else drops and fresh values. */
static void fit_stack(struct gen *g, const uint8_t *types, uint32_t n)
{
    if (avail(g) == n && top_is(g, types, n))
        return;
    if (top(g)->kind != 0x03 && top_is(g, types, n) && gen_pick(g, 2)) {
        op_idx(g, 0x0c, 0);
        set_unreachable(g);
    }
    if (!top_is(g, types, n) || avail(g) != n) {
        while (avail(g))
            discard(g);
        for (uint32_t i = 0; i < n; i++)
            gen_value(g, types[i]);
    }
}

static void close_frame(struct gen *g)
{
    struct frame *f = top(g);
    fit_stack(g, f->sig.results, f->sig.result_count);
    bool is_same = f->sig.param_count == f->sig.result_count &&
                   !memcmp(f->sig.params, f->sig.results, f->sig.param_count);
    if (f->kind == 0x04 && !f->in_else && !(is_same && gen_pick(g, 2))) {
        op(g, 0x05);
        f->in_else = true;
        g->sp = f->height;
        for (uint32_t i = 0; i < f->sig.param_count; i++)
            push(g, f->sig.params[i]);
        return;
    }
    op(g, 0x0b);
    g->sp = f->height;
    for (uint32_t i = 0; i < f->sig.result_count; i++)
        push(g, f->sig.results[i]);
    g->ctrl_count--;
}

static void gen_blocktype(struct gen *g, struct wgen_sig *sig)
{
    static const uint8_t t[] = {WGEN_I32, WGEN_I64, WGEN_F32, WGEN_F64};
    memset(sig, 0, sizeof(*sig));
    uint32_t c = gen_pick(g, 8);
    sig->param_count = (uint8_t)(c < 5 ? 0 : gen_pick(g, 3));
    sig->result_count = (uint8_t)(c < 2 ? 0 : gen_pick(g, 3));
    for (uint32_t i = 0; i < sig->param_count; i++)
        sig->params[i] = avail(g) >= sig->param_count && gen_pick(g, 2)
                             ? g->stack[g->sp - sig->param_count + i]
                             : t[gen_pick(g, 4)];
    for (uint32_t i = 0; i < sig->result_count; i++)
        sig->results[i] = t[gen_pick(g, 4)];
    for (uint32_t i = 0; i < sig->param_count; i++)
        if (sig->params[i] == WGEN_FUNCREF)
            sig->params[i] = WGEN_I32;
}

static void open_frame(struct gen *g, uint8_t kind)
{
    struct wgen_sig sig;
    if (g->ctrl_count == MAX_CTRL)
        return;
    gen_blocktype(g, &sig);
    bool has_index = sig.param_count || sig.result_count > 1;
    uint32_t type = has_index ? gen_type(g, &sig) : 0;
    if (type == UINT32_MAX) /* the type section is full */
        memset(&sig, 0, sizeof(sig));
    ensure(g, sig.params, sig.param_count);
    if (kind == 0x04) {
        gen_value(g, WGEN_I32);
        g->sp--;
    }
    op(g, kind);
    if (!sig.param_count && sig.result_count <= 1)
        op(g, sig.result_count ? sig.results[0] : 0x40);
    else
        buf_sleb(g->code, type);
    struct frame *f = &g->ctrl[g->ctrl_count++];
    f->kind = kind;
    f->in_else = false;
    f->sig = sig;
    f->height = g->sp - sig.param_count;
    if (kind == 0x03)
        gen_budget_check(g);
}

/* Pushes a condition that holds about one time in eight ((v & 7) == 0 of a fresh v): a branch
 * taken every time would leave the code after it dead. */
static void gen_rare_condition(struct gen *g)
{
    gen_value(g, WGEN_I32);
    emit_const(g, WGEN_I32, 7);
    op(g, 0x71);
    op(g, 0x45);
}

/* An unconditional branch makes the rest of its frame dead code: only inside an if's arm,
 * which runs on a condition, so that most of a body stays live. */
static bool is_conditional(struct gen *g)
{
    return top(g)->kind == 0x04;
}

static void gen_branch(struct gen *g, uint8_t kind)
{
    if (kind != 0x0d && !is_conditional(g))
        kind = 0x0d;
    uint32_t d = gen_pick(g, g->ctrl_count), n;
    const uint8_t *types = label_types(&g->ctrl[g->ctrl_count - 1 - d], &n);
    /* A branch discards the values below its label's: mostly sink them first. */
    if (kind != 0x0d && gen_pick(g, 4) && !(avail(g) == n && top_is(g, types, n)))
        while (avail(g))
            discard(g);
    ensure(g, types, n);
    if (kind == 0x0d) { /* br_if keeps the label's values */
        gen_rare_condition(g);
        op_idx(g, 0x0d, d);
        g->sp--;
        return;
    }
    if (kind == 0x0e) {
        uint32_t targets[4], count = 0, m;
        for (uint32_t i = 0; i < g->ctrl_count && count < 4; i++) {
            const uint8_t *t = label_types(&g->ctrl[g->ctrl_count - 1 - i], &m);
            if (m == n && !memcmp(t, types, n) && gen_pick(g, 2))
                targets[count++] = i;
        }
        gen_value(g, WGEN_I32);
        op_idx(g, 0x0e, count);
        for (uint32_t i = 0; i < count; i++)
            buf_uleb(g->code, targets[i]);
        buf_uleb(g->code, d);
    } else {
        op_idx(g, 0x0c, d);
    }
    set_unreachable(g);
}

static void gen_call(struct gen *g, bool is_indirect)
{
    uint32_t f = gen_pick(g, g->func_count);
    uint32_t type = g->func_type[f];
    const struct wgen_sig *t = &g->types[type];
    ensure(g, t->params, t->param_count);
    if (is_indirect) {
        if (gen_pick(g, 4)) {
            emit_const(g, WGEN_I32, gen_pick(g, g->table_min + 2));
        } else {
            gen_value(g, WGEN_I32);
            g->sp--;
        }
        op_idx(g, 0x11, type);
        op(g, 0x00);
    } else {
        op_idx(g, 0x10, f);
    }
    g->sp -= t->param_count;
    for (uint32_t i = 0; i < t->result_count; i++)
        push(g, t->results[i]);
}

/* Pushes an i32 address: mostly in bounds, sometimes at the edge of memory or anywhere (rare:
 * an out-of-bounds trap ends the call). */
static void gen_addr(struct gen *g)
{
    uint32_t c = gen_pick(g, 32);
    if (c < 16) {
        emit_const(g, WGEN_I32, gen_pick(g, 64));
    } else if (c < 18) {
        emit_const(g, WGEN_I32, g->mem_pages * 65536u - gen_pick(g, 24));
    } else if (c == 18) {
        emit_const(g, WGEN_I32, gen_bits(g, WGEN_I32));
    } else {
        gen_value(g, WGEN_I32);
        g->sp--;
        emit_const(g, WGEN_I32, 0x3ff);
        op(g, 0x71);
    }
    push(g, WGEN_I32);
}

static void gen_memarg(struct gen *g, uint8_t align)
{
    buf_uleb(g->code, gen_pick(g, align + 1u));
    uint32_t c = gen_pick(g, 64);
    buf_uleb(g->code, c == 0 ? 65535 : c == 1 ? 0xfffffff0u : gen_pick(g, 40));
}

static void gen_load(struct gen *g)
{
    const struct memop *m = &loads[gen_pick(g, COUNT(loads))];
    gen_addr(g);
    op(g, m->op);
    gen_memarg(g, m->align);
    g->sp--;
    push(g, m->type);
}

/* A value of the store's type already on top is stored (through its scratch local, as the
 * address goes below it), else a fresh one. */
static void gen_store(struct gen *g)
{
    const struct memop *m = &stores[gen_pick(g, COUNT(stores))];
    uint32_t scratch = g->local_count - 4 + (uint32_t)(WGEN_I32 - m->type);
    bool is_kept = top_is(g, &m->type, 1);
    if (is_kept) {
        op_idx(g, 0x21, scratch);
        g->sp--;
    }
    gen_addr(g);
    if (is_kept) {
        op_idx(g, 0x20, scratch);
        push(g, m->type);
    } else {
        gen_value(g, m->type);
    }
    if (m->type == WGEN_F32 || m->type == WGEN_F64)
        canonicalise(g, m->type);
    op(g, m->op);
    gen_memarg(g, m->align);
    g->sp -= 2;
}

/* Pushes the three i32 operands of a bulk operation: destination, source or value, length. */
static void gen_bulk_args(struct gen *g, uint32_t max_len)
{
    gen_addr(g);
    gen_addr(g);
    emit_const(g, WGEN_I32, gen_pick(g, 16) ? gen_pick(g, max_len) : gen_bits(g, WGEN_I32));
    g->sp -= 2;
}

static void gen_memory_misc(struct gen *g)
{
    static const uint8_t subs[] = {11, 10, 8, 9};
    uint32_t c = gen_pick(g, 6);
    if (c == 0) {
        op(g, 0x3f);
        op(g, 0x00);
        push(g, WGEN_I32);
    } else if (c == 1) {
        emit_const(g, WGEN_I32, gen_pick(g, 8) ? gen_pick(g, 3) : gen_bits(g, WGEN_I32));
        op(g, 0x40);
        op(g, 0x00);
        push(g, WGEN_I32);
    } else if (c == 5) {
        op_fc(g, 9);
        buf_uleb(g->code, gen_pick(g, 2));
    } else {
        gen_bulk_args(g, 300);
        op_fc(g, subs[c - 2]);
        if (subs[c - 2] == 8)
            op(g, 1); /* the passive segment */
        op(g, 0x00);
        if (subs[c - 2] == 10)
            op(g, 0x00);
    }
}

static void gen_table_misc(struct gen *g)
{
    uint32_t c = gen_pick(g, 9);
    if (c == 0) {
        op_fc(g, 16);
        op(g, 0);
        push(g, WGEN_I32);
    } else if (c == 1) { /* table.set */
        emit_const(g, WGEN_I32, gen_pick(g, g->table_min + 2));
        push(g, WGEN_I32);
        gen_value(g, WGEN_FUNCREF);
        op_idx(g, 0x26, 0);
        g->sp -= 2;
    } else if (c == 2) { /* table.grow */
        gen_value(g, WGEN_FUNCREF);
        emit_const(g, WGEN_I32, gen_pick(g, 4));
        op_fc(g, 15);
        op(g, 0);
        g->sp--;
        push(g, WGEN_I32);
    } else if (c == 3) { /* table.fill */
        emit_const(g, WGEN_I32, gen_pick(g, g->table_min + 2));
        push(g, WGEN_I32);
        gen_value(g, WGEN_FUNCREF);
        emit_const(g, WGEN_I32, gen_pick(g, 5));
        op_fc(g, 17);
        op(g, 0);
        g->sp -= 2;
    } else if (c == 4 || c == 5) { /* table.copy, table.init of the passive segment */
        for (int i = 0; i < 3; i++)
            emit_const(g, WGEN_I32, gen_pick(g, g->table_min + 2));
        op_fc(g, c == 4 ? 14 : 12);
        op(g, c == 4 ? 0 : 1);
        op(g, 0);
    } else if (c == 6) {
        op_fc(g, 13);
        op(g, (uint8_t)gen_pick(g, 2));
    } else { /* ref.is_null of a table element or a fresh reference */
        ensure1(g, WGEN_FUNCREF);
        op(g, 0xd1);
        g->sp--;
        push(g, WGEN_I32);
    }
}

static void gen_local_set(struct gen *g)
{
    uint32_t l = gen_pick(g, g->local_count);
    ensure1(g, g->local_type[l]);
    bool is_tee = gen_pick(g, 2);
    op_idx(g, is_tee ? 0x22 : 0x21, l);
    if (!is_tee)
        g->sp--;
}

static void gen_global_set(struct gen *g)
{
    uint32_t c = gen_pick(g, 4);
    uint8_t t = c == 0 ? WGEN_I32 : c == 1 ? WGEN_I64 : c == 2 ? WGEN_F32 : WGEN_F64;
    int idx = pick_global(g, t, true);
    if (idx < 0)
        return;
    ensure1(g, t);
    op_idx(g, 0x24, (uint32_t)idx);
    g->sp--;
}

static void gen_select(struct gen *g)
{
    uint8_t t = avail(g) && g->stack[g->sp - 1] != WGEN_FUNCREF ? g->stack[g->sp - 1] : WGEN_I32;
    uint8_t in[3] = {t, t, WGEN_I32};
    ensure(g, in, 3);
    if (gen_pick(g, 2)) {
        op(g, 0x1b);
    } else {
        op_idx(g, 0x1c, 1);
        op(g, t);
    }
    g->sp -= 2;
}

static void gen_drop(struct gen *g)
{
    if (avail(g))
        discard(g);
}

static void gen_return(struct gen *g)
{
    if (!is_conditional(g))
        return;
    if (gen_pick(g, 4))
        while (avail(g))
            discard(g);
    ensure(g, g->ctrl[0].sig.results, g->ctrl[0].sig.result_count);
    op(g, 0x0f);
    set_unreachable(g);
}

/* unreachable is rare (it ends the call); nop otherwise. */
static void gen_unreachable(struct gen *g)
{
    if (gen_pick(g, 16) || !is_conditional(g)) {
        op(g, 0x01);
        return;
    }
    op(g, 0x00);
    set_unreachable(g);
}

static void gen_local_get(struct gen *g)
{
    uint32_t l = gen_pick(g, g->local_count);
    op_idx(g, 0x20, l);
    push(g, g->local_type[l]);
}

static void gen_any_value(struct gen *g)
{
    static const uint8_t t[] = {WGEN_I32, WGEN_I64, WGEN_F32, WGEN_F64};
    gen_value(g, t[gen_pick(g, 4)]);
}

static void gen_block(struct gen *g)
{
    open_frame(g, 0x02);
}

static void gen_loop(struct gen *g)
{
    open_frame(g, 0x03);
}

static void gen_if(struct gen *g)
{
    open_frame(g, 0x04);
}

static void gen_br(struct gen *g)
{
    gen_branch(g, 0x0c);
}

static void gen_br_if(struct gen *g)
{
    gen_branch(g, 0x0d);
}

static void gen_br_table(struct gen *g)
{
    gen_branch(g, 0x0e);
}

static void gen_direct_call(struct gen *g)
{
    gen_call(g, false);
}

static void gen_indirect_call(struct gen *g)
{
    gen_call(g, true);
}

/* One step's choices, weighted by repetition; entry 0 (what exhausted input reads) closes the
 * innermost frame, so generation always ends. */
static void (*const steps[])(struct gen *) = {
    close_frame,    gen_any_value,   gen_numeric,     gen_numeric,       gen_numeric,
    gen_numeric,    gen_numeric,     gen_numeric,     gen_numeric,       gen_numeric,
    gen_numeric,    gen_numeric,     gen_numeric,     gen_numeric,       gen_local_set,
    gen_local_set,  gen_global_set,  gen_drop,        gen_select,        gen_block,
    gen_loop,       gen_if,          gen_br,          gen_br_if,         gen_br_table,
    gen_return,     gen_direct_call, gen_direct_call, gen_indirect_call, gen_load,
    gen_load,       gen_load,        gen_store,       gen_store,         gen_memory_misc,
    gen_table_misc, gen_unreachable, gen_local_get,
};

static void gen_step(struct gen *g)
{
    uint32_t c = gen_pick(g, COUNT(steps));
    if (g->sp > MAX_STACK - 24 || g->steps_left-- <= 0)
        c = 0;
    steps[c](g);
}

/* The locals: params, up to four declared, and four scratch ones (one per number type). */
static void gen_locals(struct gen *g, const struct wgen_sig *sig, struct buf *code)
{
    static const uint8_t t[] = {WGEN_I32, WGEN_I64, WGEN_F32, WGEN_F64};
    g->local_count = g->param_count = sig->param_count;
    memcpy(g->local_type, sig->params, sig->param_count);
    uint32_t declared = gen_pick(g, 5);
    buf_uleb(code, declared + 4);
    for (uint32_t i = 0; i < declared + 4; i++) {
        uint8_t type = i < declared ? t[gen_pick(g, 4)] : t[i - declared];
        buf_uleb(code, 1);
        buf_byte(code, type);
        g->local_type[g->local_count++] = type;
    }
    g->scratch_f32 = g->local_count - 2;
    g->scratch_f64 = g->local_count - 1;
}

void gen_body(struct gen *g, uint32_t idx, struct buf *code)
{
    const struct wgen_sig *sig = &g->types[g->func_type[idx]];
    gen_locals(g, sig, code);
    g->code = code;
    g->sp = 0;
    g->ctrl_count = 1;
    g->ctrl[0] = (struct frame){.kind = 0, .sig = *sig, .height = 0};
    g->ctrl[0].sig.param_count = 0; /* the body's label carries results only */
    /* Small bodies: LLVM's cost grows with the code (about 50 us per byte of module here). */
    g->steps_left = 8 + (int)gen_pick(g, 40);
    gen_budget_check(g);
    while (g->ctrl_count)
        gen_step(g);
}

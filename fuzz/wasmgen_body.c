/* fuzz/wasmgen_body.c: function bodies by typed stack-machine generation. The generator tracks
 * the operand types and the control frames, picks an instruction, and first pushes fresh
 * operands when the stack's top does not hold the ones it needs; so every body validates.
 * Float values reach memory, reinterpret and copysign's sign only after NaNs are made canonical
 * (a NaN's payload and sign are nondeterministic in the spec, so the tiers may differ there). */
#include <string.h>

#include "wasm/opcodes.h"
#include "wasmgen_impl.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The instructions the generator draws from opcodes.h, collected once: numeric ones (no
 * immediate, a fixed signature of one or two scalar operands and one result) and the scalar
 * loads and stores of WebAssembly 2.0. */
struct table_ops {
    uint16_t numeric[256], loads[32], stores[32];
    uint32_t numeric_count, load_count, store_count;
};

static bool is_scalar(uint8_t t)
{
    return t == WGEN_I32 || t == WGEN_I64 || t == WGEN_F32 || t == WGEN_F64;
}

static void collect(struct table_ops *t, uint16_t id)
{
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[id];
    const struct wasm_siginfo *sig = &sbx__wasm_siginfo[info->sig];
    if (!info->text || info->feature != WASM_FEAT_BASE || info->sig == WASM_SIG_NONE)
        return;
    if (info->imm == WASM_IMM_NONE && sig->result_count == 1 && sig->param_count >= 1 &&
        is_scalar(sig->params[0]) && (sig->param_count == 1 || is_scalar(sig->params[1])) &&
        sig->param_count <= 2 && t->numeric_count < COUNT(t->numeric))
        t->numeric[t->numeric_count++] = id;
    if (info->imm == WASM_IMM_MEMARG && sig->result_count == 1 && t->load_count < COUNT(t->loads))
        t->loads[t->load_count++] = id;
    if (info->imm == WASM_IMM_MEMARG && sig->result_count == 0 && t->store_count < COUNT(t->stores))
        t->stores[t->store_count++] = id;
}

static const struct table_ops *table_ops(void)
{
    static struct table_ops t;
    static bool is_done;
    if (!is_done) { /* the fuzzer is single-threaded */
        for (uint16_t id = 0; id < WASM_OP_SPACE; id++)
            collect(&t, id);
        is_done = true;
    }
    return &t;
}

/* The operand of a value type: what a float's NaN payload may leak through (its bits, its
 * sign) is made canonical first, as the spec leaves it nondeterministic. */
static bool needs_canonical_top(uint16_t op)
{
    return op == WASM_OP_F32_COPYSIGN || op == WASM_OP_F64_COPYSIGN ||
           op == WASM_OP_I32_REINTERPRET_F32 || op == WASM_OP_I64_REINTERPRET_F64;
}

/* Writes an instruction's opcode (its prefix and LEB code for prefixed ones). */
static void op(struct gen *g, uint16_t id)
{
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[id];
    if (info->prefix) {
        buf_byte(g->code, info->prefix);
        buf_uleb(g->code, info->code);
    } else {
        buf_byte(g->code, (uint8_t)id);
    }
}

static void op_idx(struct gen *g, uint16_t id, uint32_t idx)
{
    op(g, id);
    buf_uleb(g->code, idx);
}

/* An immediate byte (a memory or table index, a type). */
static void imm(struct gen *g, uint8_t byte)
{
    buf_byte(g->code, byte);
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
    static const uint16_t ops[] = {WASM_OP_F64_CONST, WASM_OP_F32_CONST, WASM_OP_I64_CONST,
                                   WASM_OP_I32_CONST}; /* by t - WGEN_F64 */
    op(g, ops[t - WGEN_F64]);
    if (t == WGEN_I32)
        buf_sleb(g->code, (int32_t)(uint32_t)bits);
    else if (t == WGEN_I64)
        buf_sleb(g->code, (int64_t)bits);
    else
        for (int i = 0; i < (t == WGEN_F32 ? 4 : 8); i++)
            imm(g, (uint8_t)(bits >> (8 * i)));
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
            op(g, WASM_OP_REF_NULL);
            imm(g, WGEN_FUNCREF);
        } else if (c < 6) {
            op_idx(g, WASM_OP_REF_FUNC,
                   1 + gen_pick(g, g->func_count - 1)); /* exported, so declared */
        } else {
            emit_const(g, WGEN_I32, gen_pick(g, g->table_min + 1));
            op_idx(g, WASM_OP_TABLE_GET, 0);
        }
    } else if (c < 4 && pick_local(g, t) >= 0) {
        op_idx(g, WASM_OP_LOCAL_GET, (uint32_t)pick_local(g, t));
    } else if (c == 3 && pick_global(g, t, false) >= 0) {
        op_idx(g, WASM_OP_GLOBAL_GET, (uint32_t)pick_global(g, t, false));
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
    op_idx(g, WASM_OP_LOCAL_TEE, s);
    emit_const(g, t, t == WGEN_F32 ? 0x7fc00000 : 0x7ff8000000000000ull);
    op_idx(g, WASM_OP_LOCAL_GET, s);
    op_idx(g, WASM_OP_LOCAL_GET, s);
    op(g, t == WGEN_F32 ? WASM_OP_F32_EQ : WASM_OP_F64_EQ);
    op(g, WASM_OP_SELECT);
}

/* Discards the top value: mostly mixes it into the sink (global 1: g1 = rotl(g1, 7) ^ v, v as
 * i64 bits, NaNs canonical), so that the compared state depends on it; sometimes a plain drop. */
static void discard(struct gen *g)
{
    uint8_t t = g->stack[--g->sp];
    if (!gen_pick(g, 4)) {
        op(g, WASM_OP_DROP);
        return;
    }
    if (t == WGEN_F32 || t == WGEN_F64)
        canonicalise(g, t);
    if (t == WGEN_FUNCREF)
        op(g, WASM_OP_REF_IS_NULL);
    if (t == WGEN_F32 || t == WGEN_F64)
        op(g, t == WGEN_F32 ? WASM_OP_I32_REINTERPRET_F32 : WASM_OP_I64_REINTERPRET_F64);
    if (t != WGEN_I64 && t != WGEN_F64)
        op(g, WASM_OP_I64_EXTEND_I32_U);
    op_idx(g, WASM_OP_GLOBAL_GET, 1);
    emit_const(g, WGEN_I64, 7);
    op(g, WASM_OP_I64_ROTL);
    op(g, WASM_OP_I64_XOR);
    op_idx(g, WASM_OP_GLOBAL_SET, 1);
}

static bool is_div(uint16_t op)
{
    return (op >= WASM_OP_I32_DIV_S && op <= WASM_OP_I32_REM_U) ||
           (op >= WASM_OP_I64_DIV_S && op <= WASM_OP_I64_REM_U);
}

/* The saturating form of a trapping truncation, or 0 when op is none. */
static uint16_t saturating(uint16_t op)
{
    if (op >= WASM_OP_I32_TRUNC_F32_S && op <= WASM_OP_I32_TRUNC_F64_U)
        return (uint16_t)(WASM_OP_I32_TRUNC_SAT_F32_S + (op - WASM_OP_I32_TRUNC_F32_S));
    if (op >= WASM_OP_I64_TRUNC_F32_S && op <= WASM_OP_I64_TRUNC_F64_U)
        return (uint16_t)(WASM_OP_I64_TRUNC_SAT_F32_S + (op - WASM_OP_I64_TRUNC_F32_S));
    return 0;
}

/* A trap ends the call and so hides every value it would have computed: three times in four,
 * a divisor gets its low bit set and a trapping truncation becomes the saturating one. Returns
 * true when it emitted the instruction itself. */
static bool avoid_trap(struct gen *g, uint16_t id, const struct wasm_siginfo *sig)
{
    uint16_t sat = saturating(id);
    if ((!is_div(id) && !sat) || !gen_pick(g, 4))
        return false;
    if (is_div(id)) {
        emit_const(g, sig->params[1], 1);
        op(g, sig->params[1] == WGEN_I32 ? WASM_OP_I32_OR : WASM_OP_I64_OR);
        return false;
    }
    op(g, sat);
    g->sp--;
    push(g, sig->result);
    return true;
}

static bool fits_top(struct gen *g, const struct wasm_siginfo *sig)
{
    return top_is(g, sig->params, sig->param_count);
}

/* Mostly an instruction that takes the values on top of the stack (so expressions nest and
 * computed values meet each other), else any, with fresh operands. */
static void gen_numeric(struct gen *g)
{
    const struct table_ops *t = table_ops();
    uint16_t id = t->numeric[gen_pick(g, t->numeric_count)], fits[256];
    uint32_t fit_count = 0;
    for (uint32_t m = 0; m < t->numeric_count; m++)
        if (fits_top(g, &sbx__wasm_siginfo[sbx__wasm_opinfo[t->numeric[m]].sig]))
            fits[fit_count++] = t->numeric[m];
    if (fit_count && gen_pick(g, 4))
        id = fits[gen_pick(g, fit_count)];
    const struct wasm_siginfo *sig = &sbx__wasm_siginfo[sbx__wasm_opinfo[id].sig];
    uint32_t arity = sig->param_count;
    ensure(g, sig->params, arity);
    if (needs_canonical_top(id))
        canonicalise(g, sig->params[arity - 1]);
    if (avoid_trap(g, id, sig))
        return;
    op(g, id);
    g->sp -= arity;
    push(g, sig->result);
}

/* The termination budget (global 0): at 0 the function returns zeros, else one unit goes. */
static void gen_budget_check(struct gen *g)
{
    const struct wgen_sig *f = &g->ctrl[0].sig;
    op_idx(g, WASM_OP_GLOBAL_GET, 0);
    op(g, WASM_OP_I32_EQZ);
    op(g, WASM_OP_IF);
    imm(g, 0x40);
    for (uint32_t i = 0; i < f->result_count; i++)
        emit_const(g, f->results[i], 0);
    op(g, WASM_OP_RETURN);
    op(g, WASM_OP_END);
    op_idx(g, WASM_OP_GLOBAL_GET, 0);
    emit_const(g, WGEN_I32, 1);
    op(g, WASM_OP_I32_SUB);
    op_idx(g, WASM_OP_GLOBAL_SET, 0);
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
        op_idx(g, WASM_OP_BR, 0);
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
        op(g, WASM_OP_ELSE);
        f->in_else = true;
        g->sp = f->height;
        for (uint32_t i = 0; i < f->sig.param_count; i++)
            push(g, f->sig.params[i]);
        return;
    }
    op(g, WASM_OP_END);
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
        imm(g, sig.result_count ? sig.results[0] : 0x40);
    else
        buf_sleb(g->code, type);
    if (kind == 0x1f)
        gen3_clauses(g, g->code); /* their labels: the frames around the try_table */
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
    op(g, WASM_OP_I32_AND);
    op(g, WASM_OP_I32_EQZ);
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
        op_idx(g, WASM_OP_BR_IF, d);
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
        op_idx(g, WASM_OP_BR_TABLE, count);
        for (uint32_t i = 0; i < count; i++)
            buf_uleb(g->code, targets[i]);
        buf_uleb(g->code, d);
    } else {
        op_idx(g, WASM_OP_BR, d);
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
        op_idx(g, WASM_OP_CALL_INDIRECT, type);
        imm(g, 0x00);
    } else {
        op_idx(g, WASM_OP_CALL, f);
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
        op(g, WASM_OP_I32_AND);
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
    const struct table_ops *t = table_ops();
    uint16_t id = t->loads[gen_pick(g, t->load_count)];
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[id];
    gen_addr(g);
    op(g, id);
    gen_memarg(g, info->arg);
    g->sp--;
    push(g, sbx__wasm_siginfo[info->sig].result);
}

/* A value of the store's type already on top is stored (through its scratch local, as the
 * address goes below it), else a fresh one. */
static void gen_store(struct gen *g)
{
    const struct table_ops *t = table_ops();
    uint16_t id = t->stores[gen_pick(g, t->store_count)];
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[id];
    uint8_t type = sbx__wasm_siginfo[info->sig].params[1];
    uint32_t scratch = g->local_count - 4 + (uint32_t)(WGEN_I32 - type);
    bool is_kept = top_is(g, &type, 1);
    if (is_kept) {
        op_idx(g, WASM_OP_LOCAL_SET, scratch);
        g->sp--;
    }
    gen_addr(g);
    if (is_kept) {
        op_idx(g, WASM_OP_LOCAL_GET, scratch);
        push(g, type);
    } else {
        gen_value(g, type);
    }
    if (type == WGEN_F32 || type == WGEN_F64)
        canonicalise(g, type);
    op(g, id);
    gen_memarg(g, info->arg);
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
    static const uint16_t bulk[] = {WASM_OP_MEMORY_FILL, WASM_OP_MEMORY_COPY, WASM_OP_MEMORY_INIT};
    uint32_t c = gen_pick(g, 6);
    if (c == 0) {
        op(g, WASM_OP_MEMORY_SIZE);
        imm(g, 0x00);
        push(g, WGEN_I32);
    } else if (c == 1) {
        emit_const(g, WGEN_I32, gen_pick(g, 8) ? gen_pick(g, 3) : gen_bits(g, WGEN_I32));
        op(g, WASM_OP_MEMORY_GROW);
        imm(g, 0x00);
        push(g, WGEN_I32);
    } else if (c == 5) {
        op_idx(g, WASM_OP_DATA_DROP, gen_pick(g, 2));
    } else {
        uint16_t id = bulk[c - 2];
        gen_bulk_args(g, 300);
        op(g, id);
        if (id == WASM_OP_MEMORY_INIT)
            imm(g, 1); /* the passive segment */
        imm(g, 0x00);
        if (id == WASM_OP_MEMORY_COPY)
            imm(g, 0x00);
    }
}

static void gen_table_misc(struct gen *g)
{
    uint32_t c = gen_pick(g, 9);
    if (c == 0) {
        op_idx(g, WASM_OP_TABLE_SIZE, 0);
        push(g, WGEN_I32);
    } else if (c == 1) { /* table.set */
        emit_const(g, WGEN_I32, gen_pick(g, g->table_min + 2));
        push(g, WGEN_I32);
        gen_value(g, WGEN_FUNCREF);
        op_idx(g, WASM_OP_TABLE_SET, 0);
        g->sp -= 2;
    } else if (c == 2) { /* table.grow */
        gen_value(g, WGEN_FUNCREF);
        emit_const(g, WGEN_I32, gen_pick(g, 4));
        op_idx(g, WASM_OP_TABLE_GROW, 0);
        g->sp--;
        push(g, WGEN_I32);
    } else if (c == 3) { /* table.fill */
        emit_const(g, WGEN_I32, gen_pick(g, g->table_min + 2));
        push(g, WGEN_I32);
        gen_value(g, WGEN_FUNCREF);
        emit_const(g, WGEN_I32, gen_pick(g, 5));
        op_idx(g, WASM_OP_TABLE_FILL, 0);
        g->sp -= 2;
    } else if (c == 4 || c == 5) { /* table.copy, table.init of the passive segment */
        for (int i = 0; i < 3; i++)
            emit_const(g, WGEN_I32, gen_pick(g, g->table_min + 2));
        op(g, c == 4 ? WASM_OP_TABLE_COPY : WASM_OP_TABLE_INIT);
        imm(g, c == 4 ? 0 : 1);
        imm(g, 0);
    } else if (c == 6) {
        op_idx(g, WASM_OP_ELEM_DROP, gen_pick(g, 2));
    } else { /* ref.is_null of a table element or a fresh reference */
        ensure1(g, WGEN_FUNCREF);
        op(g, WASM_OP_REF_IS_NULL);
        g->sp--;
        push(g, WGEN_I32);
    }
}

static void gen_local_set(struct gen *g)
{
    uint32_t l = gen_pick(g, g->local_count);
    ensure1(g, g->local_type[l]);
    bool is_tee = gen_pick(g, 2);
    op_idx(g, is_tee ? WASM_OP_LOCAL_TEE : WASM_OP_LOCAL_SET, l);
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
    op_idx(g, WASM_OP_GLOBAL_SET, (uint32_t)idx);
    g->sp--;
}

static void gen_select(struct gen *g)
{
    uint8_t t = avail(g) && g->stack[g->sp - 1] != WGEN_FUNCREF ? g->stack[g->sp - 1] : WGEN_I32;
    uint8_t in[3] = {t, t, WGEN_I32};
    ensure(g, in, 3);
    if (gen_pick(g, 2)) {
        op(g, WASM_OP_SELECT);
    } else {
        op_idx(g, WASM_OP_SELECT_T, 1);
        imm(g, t);
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
    op(g, WASM_OP_RETURN);
    set_unreachable(g);
}

/* unreachable is rare (it ends the call); nop otherwise. */
static void gen_unreachable(struct gen *g)
{
    if (gen_pick(g, 16) || !is_conditional(g)) {
        op(g, WASM_OP_NOP);
        return;
    }
    op(g, WASM_OP_UNREACHABLE);
    set_unreachable(g);
}

static void gen_local_get(struct gen *g)
{
    uint32_t l = gen_pick(g, g->local_count);
    op_idx(g, WASM_OP_LOCAL_GET, l);
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

static void gen_try_table(struct gen *g)
{
    open_frame(g, 0x1f);
}

void gen3_op(struct gen *g, uint16_t id)
{
    op(g, id);
}

void gen3_op_idx(struct gen *g, uint16_t id, uint32_t idx)
{
    op_idx(g, id, idx);
}

void gen3_const(struct gen *g, uint8_t t, uint64_t bits)
{
    emit_const(g, t, bits);
}

void gen3_fresh(struct gen *g, uint8_t t)
{
    gen_value(g, t);
}

void gen3_ensure(struct gen *g, const uint8_t *types, uint32_t n)
{
    ensure(g, types, n);
}

void gen3_push(struct gen *g, uint8_t t)
{
    push(g, t);
}

bool gen3_is_conditional(struct gen *g)
{
    return is_conditional(g);
}

void gen3_unreachable(struct gen *g)
{
    set_unreachable(g);
}

void gen3_budget_check(struct gen *g)
{
    gen_budget_check(g);
}

void gen3_canonicalise(struct gen *g, uint8_t t)
{
    canonicalise(g, t);
}

uint16_t gen3_memop(struct gen *g, bool is_load)
{
    const struct table_ops *t = table_ops();
    return is_load ? t->loads[gen_pick(g, t->load_count)] : t->stores[gen_pick(g, t->store_count)];
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
    gen_table_misc, gen_unreachable, gen_local_get,   gen3_tail_call,    gen3_throw,
    gen3_throw,     gen_try_table,   gen_try_table,   gen3_call_ref,     gen3_br_on_null,
    gen3_memory64,  gen3_memory64,   gen3_relaxed,    gengc_step,        gengc_step,
    gengc_step,     gengc_step,      gengc_step,      gengc_step,        gengc_step,
    gengc_step,     gengc_step,      gengc_step,
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
    buf_uleb(code, declared + 4 + 5); /* + wasmgen_gc.c's five */
    for (uint32_t i = 0; i < declared + 4; i++) {
        uint8_t type = i < declared ? t[gen_pick(g, 4)] : t[i - declared];
        buf_uleb(code, 1);
        buf_byte(code, type);
        g->local_type[g->local_count++] = type;
    }
    g->scratch_f32 = g->local_count - 2;
    g->scratch_f64 = g->local_count - 1;
    gengc_locals(g, code);
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

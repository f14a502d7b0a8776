/* wasm/interp.c: the dispatch loop over the code of code.h. Threaded with computed goto: each
 * handler ends by jumping to the next word's label. wasm-to-wasm calls push struct wasm_frame
 * records instead of recursing, so guest recursion never grows the C stack. Operands are slot
 * indices into the frame fp; every handler reads all operands before writing its result. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "wasm/base/base.h"
#include "wasm/code.h"
#include "wasm/gc_ops.h"
#include "wasm/jit/jit.h"
#include "wasm/interp_num.h"
#include "wasm/opcodes.h"
#include "wasm/types.h"

#define LIKELY(x)   __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

static int32_t op_offsets[IOP_COUNT_];
static const char *op_base;
static pthread_once_t ops_once = PTHREAD_ONCE_INIT;

static enum wasm_trap_kind run(struct wasm_exec *ex, struct wasm_func *f, uint64_t *fp);

static void init_ops(void)
{
    run(NULL, NULL, NULL);
}

const int32_t *sbx__wasm_interp_ops(void)
{
    pthread_once(&ops_once, init_ops);
    return op_offsets;
}

const char *sbx__wasm_interp_base(void)
{
    pthread_once(&ops_once, init_ops);
    return op_base;
}

enum wasm_trap_kind sbx__wasm_interp_run(struct wasm_exec *ex, struct wasm_func *f, uint64_t *fp)
{
    enum wasm_trap_kind tk = run(ex, f, fp);
    /* An exception that came back from a call unwinds in a fresh run (run's resume entry). */
    while (__builtin_expect(tk == WASM_TRAP_EXCEPTION && ex->has_resume, 0))
        tk = run(ex, NULL, NULL);
    return tk;
}

/* call_indirect's check (3.0): the callee's type is the one wanted or declares it as a
 * supertype. */
static bool call_indirect_ok(const struct wasm_func *f, const struct wasm_rtt *want)
{
    return f->rtt == want || sbx__wasm_rtt_sub(f->rtt, want);
}

/* memory.init / table.init / copy bounds: [a, a + n) within size, in 64 bits. */
static inline bool in_range(uint32_t a, uint32_t n, uint64_t size)
{
    return (uint64_t)a + n <= size;
}

static void table_copy(struct wasm_table *dt, struct wasm_table *st, uint32_t d, uint32_t s,
                       uint32_t n)
{
    memmove(dt->elems + d, st->elems + s, (size_t)n * sizeof(void *));
}

/* clang-format off */
#define NEXT()      goto *(void *)(uintptr_t)ip[0]
#define W(k)        ((uint32_t)ip[k])
#define S(k)        fp[ip[k]]
#define U32(k)      ((uint32_t)fp[ip[k]])
#define B(x)        ((uint64_t)((x) ? 1u : 0u))
#define TRAP(kind)  do { tk = (kind); goto trap; } while (0)
#define TARGET(k)   (ip + (k) + (int32_t)ip[k])
#define POLL(n)                                                                                    \
    if (UNLIKELY(atomic_load_explicit(&store->is_interrupted, memory_order_relaxed) ||            \
                 is_metered)) {                                                                    \
        tk = sbx__wasm_tier_poll(store, (n));                                                      \
        if (tk != WASM_TRAP_NONE)                                                                  \
            goto trap;                                                                             \
    }
/* A loop back-edge's poll, k the operand of its target, n its fuel: when the store is
 * interrupted, metered or tiered up (one load each), the back-edge is handed to
 * sbx__wasm_tier_backedge (do_backedge), which polls and may move the frame to native code. */
#define POLL_BACK(n, k)                                                                            \
    if (UNLIKELY(atomic_load_explicit(&store->is_interrupted, memory_order_relaxed) ||            \
                 is_metered ||                                                                     \
                 atomic_load_explicit(&store->tierup.state, memory_order_relaxed) >=              \
                     WASM_TIERUP_NATIVE)) {                                                        \
        back_fuel = (n);                                                                           \
        ip = TARGET(k);                                                                            \
        goto do_backedge;                                                                          \
    }
#define SWITCH_INST(ni)                                                                            \
    do {                                                                                           \
        inst = (ni);                                                                               \
        mem = inst->mem0;                                                                          \
        mbase = mem ? mem->data : NULL;                                                            \
        msize = mem ? mem->size : 0;                                                               \
        globals = inst->globals;                                                                   \
        codes = inst->module->compiled;                                                            \
    } while (0)

/* Runs the baseline code of this frame's function bfn from target, then goes on where it
 * stopped: it may have called and returned within this instance, so the frame comes back with
 * it (base_go's registers), and a back-edge it left at runs the interpreter's path first. */
#define BASE_GO(bfn, target)                                                                       \
    do {                                                                                           \
        store->base_regs.frp = frp;                                                                \
        store->base_regs.frames_end = frames_end;                                                  \
        store->base_regs.stack_end = stack_end;                                                    \
        ip = sbx__base_go(store, inst, (bfn), (target), fp, mbase, msize, globals);                \
        fp = store->base_regs.fp;                                                                  \
        code = store->base_regs.code;                                                              \
        frp = store->base_regs.frp;                                                                \
        if (UNLIKELY(store->base_regs.is_back))                                                    \
            goto base_back;                                                                        \
        NEXT();                                                                                    \
    } while (0)

/* i32 binary op in slot and immediate form; body sees a, b and writes S(1). */
#define BIN32(name, body)                                                                          \
    op_i32_##name : { uint32_t a = U32(2), b = U32(3); body; ip += 4; NEXT(); }                    \
    op_i32_##name##_i : { uint32_t a = U32(2), b = W(3); body; ip += 4; NEXT(); }
#define BIN64(name, body)                                                                          \
    op_i64_##name : { uint64_t a = S(2), b = S(3); body; ip += 4; NEXT(); }                        \
    op_i64_##name##_i : { uint64_t a = S(2), b = (uint64_t)(int64_t)(int32_t)ip[3]; body;          \
                          ip += 4; NEXT(); }
#define FBIN(T, name, expr)                                                                        \
    op_##T##_##name : { T##_t a = T##_of(S(2)), b = T##_of(S(3)); S(1) = T##_bits(expr);            \
                        ip += 4; NEXT(); }
#define FBIN_I(T, name, expr, kbits, len)                                                          \
    op_##T##_##name##_i : {                                                                        \
        T##_t a = T##_of(S(2)), b = T##_of(kbits);                                                 \
        S(1) = T##_bits(expr);                                                                     \
        ip += (len);                                                                               \
        NEXT();                                                                                    \
    }
#define F32_BIN(name, expr) FBIN(f32, name, expr) FBIN_I(f32, name, expr, W(3), 4)
#define F64_BIN(name, expr)                                                                        \
    FBIN(f64, name, expr) FBIN_I(f64, name, expr, (uint64_t)ip[3] | ((uint64_t)ip[4] << 32), 5)
#define FCMP(T, name, expr)                                                                        \
    op_##T##_##name : { T##_t a = T##_of(S(2)), b = T##_of(S(3)); S(1) = B(expr); ip += 4; NEXT(); }
#define FUN(T, name, expr)                                                                         \
    op_##T##_##name : { T##_t a = T##_of(S(2)); S(1) = T##_bits(expr); ip += 3; NEXT(); }
#define UN(name, expr)                                                                             \
    op_##name : { uint64_t a = S(2); S(1) = (uint64_t)(expr); ip += 3; NEXT(); }
#define BRCMP(name, expr)                                                                          \
    op_br_##name : { uint32_t a = U32(1), b = U32(2); ip = (expr) ? TARGET(3) : ip + 4; NEXT(); }  \
    op_br_##name##_i : { uint32_t a = U32(1), b = W(2); ip = (expr) ? TARGET(3) : ip + 4; NEXT(); }\
    op_br_##name##_back : {                                                                        \
        uint32_t a = U32(1), b = U32(2);                                                           \
        if (!(expr)) {                                                                             \
            ip += 5;                                                                               \
            NEXT();                                                                                \
        }                                                                                          \
        POLL_BACK(W(4), 3);                                                                        \
        ip = TARGET(3);                                                                            \
        NEXT();                                                                                    \
    }                                                                                              \
    op_addbr_##name : {                                                                            \
        uint32_t a = (uint32_t)(fp[ip[2]] + fp[ip[3]]), b = W(4);                                 \
        S(1) = a;                                                                                  \
        if (!(expr)) {                                                                             \
            ip += 7;                                                                               \
            NEXT();                                                                                \
        }                                                                                          \
        POLL_BACK(W(6), 5);                                                                        \
        ip = TARGET(5);                                                                            \
        NEXT();                                                                                    \
    }                                                                                              \
    op_addbr_##name##_i : {                                                                        \
        uint32_t a = U32(2) + W(3), b = W(4);                                                    \
        S(1) = a;                                                                                  \
        if (!(expr)) {                                                                             \
            ip += 7;                                                                               \
            NEXT();                                                                                \
        }                                                                                          \
        POLL_BACK(W(6), 5);                                                                        \
        ip = TARGET(5);                                                                            \
        NEXT();                                                                                    \
    }                                                                                              \
    op_br_##name##_i_back : {                                                                      \
        uint32_t a = U32(1), b = W(2);                                                            \
        if (!(expr)) {                                                                             \
            ip += 5;                                                                               \
            NEXT();                                                                                \
        }                                                                                          \
        POLL_BACK(W(4), 3);                                                                        \
        ip = TARGET(3);                                                                            \
        NEXT();                                                                                    \
    }
#define LOAD_AT(name, T, conv, addr, len)                                                          \
    op_##name : {                                                                                  \
        uint64_t ea = (uint64_t)(addr) + ip[(len)-1];                                              \
        if (UNLIKELY(ea + sizeof(T) > msize))                                                      \
            TRAP(WASM_TRAP_MEMORY_OOB);                                                            \
        T v;                                                                                       \
        memcpy(&v, mbase + ea, sizeof(T));                                                         \
        S(1) = conv;                                                                               \
        ip += (len);                                                                               \
        NEXT();                                                                                    \
    }
#define LOAD(name, T, conv)                                                                        \
    LOAD_AT(name, T, conv, U32(2), 4)                                                              \
    LOAD_AT(name##_add, T, conv, (uint32_t)(fp[ip[2]] + fp[ip[3]]), 5)                             \
    LOAD_AT(name##_addi, T, conv, (uint32_t)(fp[ip[2]] + W(3)), 5)
#define STORE_AT(name, T, addr, value, len)                                                      \
    op_##name : {                                                                                  \
        uint64_t ea = (uint64_t)(addr) + ip[(len)-1];                                              \
        if (UNLIKELY(ea + sizeof(T) > msize))                                                      \
            TRAP(WASM_TRAP_MEMORY_OOB);                                                            \
        T v = (T)(value);                                                                          \
        memcpy(mbase + ea, &v, sizeof(T));                                                         \
        ip += (len);                                                                               \
        NEXT();                                                                                    \
    }
#define IMM_VALUE(k) (int64_t)(int32_t)ip[k]
#define STORE(name, T)                                                                             \
    STORE_AT(name, T, U32(1), S(2), 4)                                                             \
    STORE_AT(name##_i, T, U32(1), IMM_VALUE(2), 4)                                                 \
    STORE_AT(name##_add, T, (uint32_t)(fp[ip[1]] + fp[ip[2]]), S(3), 5)                            \
    STORE_AT(name##_addi, T, (uint32_t)(fp[ip[1]] + W(2)), S(3), 5)                               \
    STORE_AT(name##_i_add, T, (uint32_t)(fp[ip[1]] + fp[ip[2]]), IMM_VALUE(3), 5)                  \
    STORE_AT(name##_i_addi, T, (uint32_t)(fp[ip[1]] + W(2)), IMM_VALUE(3), 5)
#define TRUNC(name, T, fits, conv)                                                                 \
    op_##name : {                                                                                  \
        double x = (double)T##_of(S(2));                                                           \
        if (UNLIKELY(!fits(x)))                                                                    \
            TRAP(x != x ? WASM_TRAP_INVALID_CONVERSION : WASM_TRAP_INT_OVERFLOW);                  \
        S(1) = conv;                                                                               \
        ip += 3;                                                                                   \
        NEXT();                                                                                    \
    }
/* clang-format on */

/* Memory-fused binary ops; T is the value's C type, W the access width's type. */
#define MEMOP(name, T, W, expr)                                                                    \
    op_##name##_ld:                                                                                \
    {                                                                                              \
        uint64_t ea = (uint64_t)U32(3) + ip[4];                                                    \
        if (UNLIKELY(ea + sizeof(W) > msize))                                                      \
            TRAP(WASM_TRAP_MEMORY_OOB);                                                            \
        W bits;                                                                                    \
        memcpy(&bits, mbase + ea, sizeof(W));                                                      \
        T##_t a = T##_of(S(2)), b = T##_of(bits);                                                  \
        S(1) = T##_bits(expr);                                                                     \
        ip += 5;                                                                                   \
        NEXT();                                                                                    \
    }                                                                                              \
    op_##name##_st:                                                                                \
    {                                                                                              \
        uint64_t ea = (uint64_t)U32(1) + ip[4];                                                    \
        if (UNLIKELY(ea + sizeof(W) > msize))                                                      \
            TRAP(WASM_TRAP_MEMORY_OOB);                                                            \
        T##_t a = T##_of(S(2)), b = T##_of(S(3));                                                  \
        W bits = (W)T##_bits(expr);                                                                \
        memcpy(mbase + ea, &bits, sizeof(W));                                                      \
        ip += 5;                                                                                   \
        NEXT();                                                                                    \
    }                                                                                              \
    op_##name##_rmw:                                                                               \
    {                                                                                              \
        uint64_t ea = (uint64_t)U32(1) + ip[3];                                                    \
        if (UNLIKELY(ea + sizeof(W) > msize))                                                      \
            TRAP(WASM_TRAP_MEMORY_OOB);                                                            \
        W bits;                                                                                    \
        memcpy(&bits, mbase + ea, sizeof(W));                                                      \
        T##_t a = T##_of(S(2)), b = T##_of(bits);                                                  \
        bits = (W)T##_bits(expr);                                                                  \
        memcpy(mbase + ea, &bits, sizeof(W));                                                      \
        ip += 4;                                                                                   \
        NEXT();                                                                                    \
    }

typedef float f32_t;
typedef double f64_t;

/* Code holds the addresses of this function's labels, taken by the run(NULL...) call, so the
 * compiler must not clone it (a clone has its own labels). GCC would also turn the
 * locals-zeroing loop back into a memset call, slow for a few slots. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noipa, optimize("no-tree-loop-distribute-patterns")))
#else
__attribute__((noinline))
#endif
static enum wasm_trap_kind
run(struct wasm_exec *ex, struct wasm_func *f, uint64_t *fp)
{
    const char *lbase = (const char *)&&op_unreachable;
    if (UNLIKELY(ex == NULL)) {
#define SET_OFFSET(name) op_offsets[IOP_##name] = (int32_t)((const char *)&&op_##name - lbase);
        op_base = lbase;
        WASM_ALL_OPS(SET_OFFSET)
#undef SET_OFFSET
#define SET_SIMD_OFFSET(name, prefix, code, text, imm, sig, arg, feat)                             \
    op_offsets[IOP_SIMD_BASE_ + (code)] = (int32_t)((const char *)&&op_simd_##name - lbase);
        WASM_OPCODES_SIMD(SET_SIMD_OFFSET)
        WASM_OPCODES_RELAXED_OWN(SET_SIMD_OFFSET)
#undef SET_SIMD_OFFSET
        return WASM_TRAP_NONE;
    }
    struct wasm_store *store = ex->store;
    bool is_metered = store->is_metered; /* only host calls change it while we run */
    struct wasm_frame *frames = ex->frames;
    uint64_t *stack_end = ex->stack_end;
    uint32_t entry_depth = ex->depth;
    /* frp: the next free frame record; frames_end: the call-depth limit */
    struct wasm_frame *frp = frames + ex->depth, *frames_end = frames + ex->max_depth;
    struct wasm_instance *inst;
    struct wasm_memory *mem;
    uint8_t *mbase;
    uint64_t msize;
    struct wasm_global **globals;
    const struct wasm_code *codes;
    SWITCH_INST(f ? f->inst : ex->resume.inst);
    const struct wasm_code *code = f ? &codes[f->def_index] : ex->resume.code;
    const wasm_word *ip = NULL;
    enum wasm_trap_kind tk = WASM_TRAP_NONE;
    struct wasm_tier_frame tier = {0}; /* the OSR bookkeeping of sbx__wasm_tier_backedge */
    uint32_t back_fuel = 0;            /* the fuel of the back-edge handed over */
    uint32_t throw_pos = 0;            /* do_throw_at: the word it unwinds from */
    /* Scratch for calls, set before jumping to do_call_func / do_call_wasm. */
    struct wasm_func *callf;
    const struct wasm_code *callee = code;
    struct wasm_instance *cinst = inst;
    uint64_t *nfp = fp;
    const wasm_word *ret = NULL;
    /* The baseline tier (base/base.h): its function of this frame, and what its code returned. */
    if (UNLIKELY(f == NULL)) { /* resume: the exception saved by save_resume */
        ex->has_resume = false;
        ip = ex->resume.ip;
        fp = ex->resume.fp;
        frp = frames + ex->resume_depth;
        throw_pos = ex->resume_pos;
        goto do_throw_at;
    }
    /* The entry frame: its own baseline code, if any (other calls ask in sbx__wasm_tier_call). */
    if (UNLIKELY(atomic_load_explicit(&store->tierup.state, memory_order_relaxed) >=
                 WASM_TIERUP_NATIVE) &&
        sbx__wasm_tier_base(store, cinst, callee))
        goto do_call_base;
    goto do_call_wasm;

    /* [h] */
op_unreachable:
    TRAP(WASM_TRAP_UNREACHABLE);
    /* [h][target] */
op_br:
    ip = TARGET(1);
    NEXT();
    /* [h][cond][target] */
op_br_if:
    ip = U32(1) ? TARGET(2) : ip + 3;
    NEXT();
op_br_unless:
    ip = U32(1) ? ip + 3 : TARGET(2);
    NEXT();
    /* [h][index][n][target_0 .. target_n-1][default] */
op_br_table : {
    uint32_t i = U32(1), n = W(2);
    if (i > n)
        i = n;
    ip = TARGET(3 + i);
    NEXT();
}
    /* br_on_null / br_on_non_null's test: [h][ref slot][target] */
op_br_null:
    ip = S(1) == 0 ? TARGET(2) : ip + 3;
    NEXT();
op_br_nonnull:
    ip = S(1) != 0 ? TARGET(2) : ip + 3;
    NEXT();
    /* Backward (loop) branches poll: [h][target][fuel], [h][cond][target][fuel] */
op_br_back:
    POLL_BACK(W(2), 1);
    ip = TARGET(1);
    NEXT();
op_br_if_back:
    if (!U32(1)) {
        ip += 4;
        NEXT();
    }
    POLL_BACK(W(3), 2);
    ip = TARGET(2);
    NEXT();
op_br_unless_back:
    if (U32(1)) {
        ip += 4;
        NEXT();
    }
    POLL_BACK(W(3), 2);
    ip = TARGET(2);
    NEXT();
    BRCMP(eq, a == b)
    BRCMP(ne, a != b)
    BRCMP(lt_s, (int32_t)a < (int32_t)b)
    BRCMP(lt_u, a < b)
    BRCMP(gt_s, (int32_t)a > (int32_t)b)
    BRCMP(gt_u, a > b)
    BRCMP(le_s, (int32_t)a <= (int32_t)b)
    BRCMP(le_u, a <= b)
    BRCMP(ge_s, (int32_t)a >= (int32_t)b)
    BRCMP(ge_u, a >= b)

    /* [h] / [h][src] / [h][first][slot count]: results go to fp[0...] */
op_ret1:
    fp[0] = S(1);
    goto do_return;
op_retn : {
    uint32_t src = W(1), n = W(2);
    for (uint32_t i = 0; i < n; i++)
        fp[i] = fp[src + i];
    goto do_return;
}
op_ret0:
do_return : {
    struct wasm_frame *fr = --frp;
    if (UNLIKELY(fr->ip == NULL)) {
        ex->depth = (uint32_t)(frp - frames);
        return WASM_TRAP_NONE;
    }
    ip = fr->ip;
    fp = fr->fp;
    code = fr->code;
    if (fr->inst != inst)
        SWITCH_INST(fr->inst);
    msize = mem ? mem->size : 0;
    NEXT();
}
    /* [h][defined func index][arg slot] */
op_call:
    callee = &codes[ip[1]];
    cinst = inst;
    nfp = fp + ip[2];
    ret = ip + 3;
    goto do_call_wasm;
    /* [h][func index][arg slot] */
op_call_func:
    callf = inst->funcs[ip[1]];
    nfp = fp + ip[2];
    ret = ip + 3;
    goto do_call_func;
    /* [h][type index][table][elem index slot][arg slot] */
op_call_indirect : {
    struct wasm_table *t = inst->tables[ip[2]];
    uint32_t i = U32(3);
    if (UNLIKELY(i >= t->size))
        TRAP(WASM_TRAP_UNDEFINED_ELEMENT);
    callf = t->elems[i];
    if (UNLIKELY(callf == NULL))
        TRAP(WASM_TRAP_UNINITIALIZED_ELEMENT);
    if (UNLIKELY(!call_indirect_ok(callf, inst->module->rtts[ip[1]])))
        TRAP(WASM_TRAP_INDIRECT_TYPE);
    nfp = fp + ip[4];
    ret = ip + 5;
    goto do_call_func;
}
    /* Tail calls: [h][defined func][arg slot], [h][func][arg slot], [h][type][table][elem index
     * slot][arg slot]: the callee takes this frame (do_tail_wasm), so none is pushed. */
op_return_call:
    callee = &codes[ip[1]];
    cinst = inst;
    nfp = fp + ip[2];
    goto do_tail_wasm;
op_return_call_func:
    callf = inst->funcs[ip[1]];
    nfp = fp + ip[2];
    goto do_tail_func;
op_return_call_indirect : {
    struct wasm_table *t = inst->tables[ip[2]];
    uint32_t i = U32(3);
    if (UNLIKELY(i >= t->size))
        TRAP(WASM_TRAP_UNDEFINED_ELEMENT);
    callf = t->elems[i];
    if (UNLIKELY(callf == NULL))
        TRAP(WASM_TRAP_UNINITIALIZED_ELEMENT);
    if (UNLIKELY(!call_indirect_ok(callf, inst->module->rtts[ip[1]])))
        TRAP(WASM_TRAP_INDIRECT_TYPE);
    nfp = fp + ip[4];
    goto do_tail_func;
}
    /* call_ref / return_call_ref: [h][ref slot][arg slot] (typed: no signature check) */
op_call_ref:
    callf = (struct wasm_func *)(uintptr_t)S(1);
    if (UNLIKELY(callf == NULL))
        TRAP(WASM_TRAP_NULL_FUNC_REF);
    nfp = fp + ip[2];
    ret = ip + 3;
    goto do_call_func;
op_return_call_ref:
    callf = (struct wasm_func *)(uintptr_t)S(1);
    if (UNLIKELY(callf == NULL))
        TRAP(WASM_TRAP_NULL_FUNC_REF);
    nfp = fp + ip[2];
    goto do_tail_func;
do_tail_func:
    if (LIKELY(callf->inst != NULL)) {
        cinst = callf->inst;
        callee = &cinst->module->compiled[callf->def_index];
        goto do_tail_wasm;
    }
    POLL(1); /* a host function runs on the C stack as ever; its results are then returned */
    ex->depth = (uint32_t)(frp - frames);
    ex->sp = fp + code->frame_slots;
    tk = sbx__wasm_call_host(ex, callf, inst, nfp);
    if (UNLIKELY(tk != WASM_TRAP_NONE))
        goto tail_trap;
    is_metered = store->is_metered;
    memmove(fp, nfp, sbx__wasm_results_slots(callf->type) * sizeof(uint64_t));
    goto do_return;
do_tail_wasm:
    POLL(callee->entry_fuel);
    if (UNLIKELY(atomic_load_explicit(&store->tierup.state, memory_order_relaxed) >=
                 WASM_TIERUP_NATIVE) &&
        !is_metered) { /* native code returns before the next call: the depth stays bounded */
        switch (sbx__wasm_tier_call(ex, cinst, callee, nfp, (uint32_t)(frp - frames), &tk)) {
        case WASM_TIER_RAN:
            memmove(fp, nfp, callee->result_slots * sizeof(uint64_t));
            goto do_return;
        case WASM_TIER_TRAP:
            goto tail_trap;
        case WASM_TIER_BASE:
            goto do_tail_base;
        default:
            break;
        }
    }
    if (UNLIKELY((size_t)(stack_end - fp) < callee->frame_slots))
        TRAP(WASM_TRAP_STACK_EXHAUSTED);
    memmove(fp, nfp, callee->param_slots * sizeof(uint64_t));
    for (uint64_t *z = fp + callee->param_slots, *ze = z + callee->local_slots; z < ze; z++)
        *z = 0;
    code = callee;
    ip = callee->words;
    if (cinst != inst)
        SWITCH_INST(cinst);
    NEXT();
do_call_func:
    if (LIKELY(callf->inst != NULL)) {
        cinst = callf->inst;
        callee = &cinst->module->compiled[callf->def_index];
        goto do_call_wasm;
    }
    if (UNLIKELY(frp >= frames_end))
        TRAP(WASM_TRAP_STACK_EXHAUSTED);
    POLL(1);
    ex->depth = (uint32_t)(frp - frames);
    ex->sp = fp + code->frame_slots;
    tk = sbx__wasm_call_host(ex, callf, inst, nfp);
    if (UNLIKELY(tk != WASM_TRAP_NONE))
        goto trap_host;
    msize = mem ? mem->size : 0;
    is_metered = store->is_metered; /* the host may have changed the fuel */
    ip = ret;
    NEXT();
do_call_wasm:
    if (UNLIKELY(frp >= frames_end || (size_t)(stack_end - nfp) < callee->frame_slots))
        TRAP(WASM_TRAP_STACK_EXHAUSTED);
    POLL(callee->entry_fuel);
    if (UNLIKELY(atomic_load_explicit(&store->tierup.state, memory_order_relaxed) >=
                 WASM_TIERUP_NATIVE) &&
        ret && !is_metered) { /* tiered up: a call with native code runs it */
        switch (sbx__wasm_tier_call(ex, cinst, callee, nfp, (uint32_t)(frp - frames), &tk)) {
        case WASM_TIER_RAN:
            msize = mem ? mem->size : 0;
            ip = ret;
            NEXT();
        case WASM_TIER_TRAP:
            goto trap_jit;
        case WASM_TIER_BASE:
            goto do_call_base;
        default:
            break;
        }
    }
    frp->ip = ret;
    frp->fp = fp;
    frp->code = code;
    frp->inst = inst;
    frp++;
    for (uint64_t *z = nfp + callee->param_slots, *ze = z + callee->local_slots; z < ze; z++)
        *z = 0;
    fp = nfp;
    code = callee;
    ip = callee->words;
    if (cinst != inst)
        SWITCH_INST(cinst);
    NEXT();
    /* An exception from a tail call: this frame is gone, its handlers with it. */
tail_trap:
    if (tk != WASM_TRAP_EXCEPTION)
        goto trap_jit_or_host;
    throw_pos = UINT32_MAX;
    goto save_resume;
    /* throw: [h][tag index][first value slot]; throw_ref: [h][exnref slot] */
op_throw:
    tk = sbx__wasm_exn_throw(ex, inst->tags[ip[1]], fp + ip[2]);
    if (UNLIKELY(tk != WASM_TRAP_EXCEPTION))
        goto trap_host;
    goto do_throw;
op_throw_ref:
    tk = sbx__wasm_exn_rethrow(ex, (struct wasm_exn *)(uintptr_t)S(1));
    if (UNLIKELY(tk != WASM_TRAP_EXCEPTION))
        goto trap;
    goto do_throw;
    /* The exception in flight unwinds from the instruction at ip: the innermost try_table
     * holding it whose clause matches takes it, in this frame or a caller's (their calls sit
     * just before their return addresses); past this run's entry it leaves as a trap. */
do_throw:
    throw_pos = (uint32_t)(ip - code->words);
do_throw_at : {
    uint32_t pos = throw_pos;
    for (;;) {
        const struct wasm_hcatch *h =
            code->nhandlers ? sbx__wasm_exn_find(ex, inst, code, pos) : NULL;
        if (h) {
            sbx__wasm_exn_deliver(ex, h, fp);
            ip = code->words + h->pad;
            msize = mem ? mem->size : 0;
            is_metered = store->is_metered;
            NEXT();
        }
        if (frp[-1].ip == NULL) {
            --frp;
            ex->depth = entry_depth;
            return WASM_TRAP_EXCEPTION;
        }
        struct wasm_frame *fr = --frp;
        ip = fr->ip;
        fp = fr->fp;
        code = fr->code;
        if (fr->inst != inst)
            SWITCH_INST(fr->inst);
        pos = (uint32_t)(ip - 1 - code->words);
    }
}
    /* A back-edge to the loop header at ip whose poll is due (POLL_BACK). */
do_backedge:
    switch (sbx__wasm_tier_backedge(ex, &tier, inst, code, fp, ip, back_fuel,
                                    (uint32_t)(frp - frames), &tk)) {
    case WASM_TIER_STAY:
        if (sbx__wasm_tier_base(store, inst, code)) {
            const void *at =
                sbx__base_loop(inst->funcs[code->func_index]->base, (uint32_t)(ip - code->words));
            if (at)
                BASE_GO(inst->funcs[code->func_index]->base, at);
        }
        NEXT();
    case WASM_TIER_RAN:
        goto do_return;
    default:
        if (tk != WASM_TRAP_EXCEPTION)
            goto trap_jit;
        throw_pos = UINT32_MAX; /* the OSR entry ran this frame's handlers itself */
        goto save_resume;
    }

    /* [h][dst][src] */
op_mov:
    S(1) = S(2);
    ip += 3;
    NEXT();
    /* memory = x * y + memory: [h][addr][x][y][offset]; with y from memory too, at
     * (uint32_t)(addr2 + k) + offset2: [h][addr][x][addr2][k][offset2][offset] */
op_f64_muladd_rmw : {
    uint64_t ea = (uint64_t)U32(1) + W(4);
    if (UNLIKELY(ea + 8 > msize))
        TRAP(WASM_TRAP_MEMORY_OOB);
    uint64_t m;
    memcpy(&m, mbase + ea, 8);
    double p = f64_of(S(2)) * f64_of(S(3)); /* two statements: never contracted to an FMA */
    m = f64_bits(p + f64_of(m));
    memcpy(mbase + ea, &m, 8);
    ip += 5;
    NEXT();
}
op_f64_mulldadd_rmw : {
    uint64_t ey = (uint64_t)(uint32_t)(fp[ip[3]] + W(4)) + W(5), ea = (uint64_t)U32(1) + W(6);
    if (UNLIKELY(ey + 8 > msize || ea + 8 > msize))
        TRAP(WASM_TRAP_MEMORY_OOB);
    uint64_t y, m;
    memcpy(&y, mbase + ey, 8);
    memcpy(&m, mbase + ea, 8);
    double p = f64_of(S(2)) * f64_of(y);
    m = f64_bits(p + f64_of(m));
    memcpy(mbase + ea, &m, 8);
    ip += 7;
    NEXT();
}
    /* Two i32 adds in order (address arithmetic): [h][dst][a][b][dst2][a2][b2]; _ri: b2 is
     * an immediate, _ir: b is, _ii: both are. */
op_i32_add_pair:
    S(1) = (uint32_t)(U32(2) + U32(3));
    S(4) = (uint32_t)(U32(5) + U32(6));
    ip += 7;
    NEXT();
op_i32_add_pair_ri:
    S(1) = (uint32_t)(U32(2) + U32(3));
    S(4) = (uint32_t)(U32(5) + W(6));
    ip += 7;
    NEXT();
op_i32_add_pair_ir:
    S(1) = (uint32_t)(U32(2) + W(3));
    S(4) = (uint32_t)(U32(5) + U32(6));
    ip += 7;
    NEXT();
op_i32_add_pair_ii:
    S(1) = (uint32_t)(U32(2) + W(3));
    S(4) = (uint32_t)(U32(5) + W(6));
    ip += 7;
    NEXT();
    /* i32 pairs from hashing code, z OP2 (x OP1 y): [h][dst][x][y or k][z] */
op_i32_xor_rotl_i:
    S(1) = rotl32(U32(2), W(3)) ^ U32(4);
    ip += 5;
    NEXT();
op_i32_add_add:
    S(1) = (uint32_t)(U32(2) + U32(3) + U32(4));
    ip += 5;
    NEXT();
op_i32_add_xor:
    S(1) = (uint32_t)((U32(2) ^ U32(3)) + U32(4));
    ip += 5;
    NEXT();
op_i32_add_and:
    S(1) = (uint32_t)((U32(2) & U32(3)) + U32(4));
    ip += 5;
    NEXT();
    /* [h][dst][src][dst2][src2]: two moves in order */
op_mov_mov:
    S(1) = S(2);
    S(3) = S(4);
    ip += 5;
    NEXT();
op_mov2:
    fp[ip[1]] = fp[ip[2]];
    fp[ip[1] + 1] = fp[ip[2] + 1];
    ip += 3;
    NEXT();
    /* [h][dst][k] / [h][dst][lo][hi] */
op_const32:
    S(1) = W(2);
    ip += 3;
    NEXT();
op_const64:
    S(1) = (uint64_t)ip[2] | ((uint64_t)ip[3] << 32);
    ip += 4;
    NEXT();
    /* [h][dst][a][b][cond] */
op_select : {
    uint64_t v = U32(4) ? S(2) : S(3);
    S(1) = v;
    ip += 5;
    NEXT();
}
    /* [h][dst][global] / [h][global][src] */
op_global_get:
    S(1) = globals[ip[2]]->value.i64;
    ip += 3;
    NEXT();
op_global_set:
    globals[ip[1]]->value.i64 = S(2);
    ip += 3;
    NEXT();
    /* [h][dst][func] */
    /* [h][dst][src] */
op_ref_as_non_null:
    if (UNLIKELY(S(2) == 0))
        TRAP(WASM_TRAP_NULL_REFERENCE);
    S(1) = S(2);
    ip += 3;
    NEXT();
op_ref_func:
    S(1) = (uint64_t)(uintptr_t)inst->funcs[ip[2]];
    ip += 3;
    NEXT();

    BIN32(add, S(1) = a + b)
    BIN32(sub, S(1) = a - b)
    BIN32(mul, S(1) = a * b)
    BIN32(div_s, {
        if (UNLIKELY(b == 0))
            TRAP(WASM_TRAP_DIV_ZERO);
        if (UNLIKELY(a == 0x80000000u && b == 0xFFFFFFFFu))
            TRAP(WASM_TRAP_INT_OVERFLOW);
        S(1) = (uint32_t)((int32_t)a / (int32_t)b);
    })
    BIN32(div_u, {
        if (UNLIKELY(b == 0))
            TRAP(WASM_TRAP_DIV_ZERO);
        S(1) = a / b;
    })
    BIN32(rem_s, {
        if (UNLIKELY(b == 0))
            TRAP(WASM_TRAP_DIV_ZERO);
        S(1) = b == 0xFFFFFFFFu ? 0u : (uint32_t)((int32_t)a % (int32_t)b);
    })
    BIN32(rem_u, {
        if (UNLIKELY(b == 0))
            TRAP(WASM_TRAP_DIV_ZERO);
        S(1) = a % b;
    })
    BIN32(and, S(1) = a & b)
    BIN32(or, S(1) = a | b)
    BIN32(xor, S(1) = a ^ b)
    BIN32(shl, S(1) = a << (b & 31))
    BIN32(shr_s, S(1) = (uint32_t)((int32_t)a >> (b & 31)))
    BIN32(shr_u, S(1) = a >> (b & 31))
    BIN32(rotl, S(1) = rotl32(a, b))
    BIN32(rotr, S(1) = rotr32(a, b))
    BIN32(eq, S(1) = B(a == b))
    BIN32(ne, S(1) = B(a != b))
    BIN32(lt_s, S(1) = B((int32_t)a < (int32_t)b))
    BIN32(lt_u, S(1) = B(a < b))
    BIN32(gt_s, S(1) = B((int32_t)a > (int32_t)b))
    BIN32(gt_u, S(1) = B(a > b))
    BIN32(le_s, S(1) = B((int32_t)a <= (int32_t)b))
    BIN32(le_u, S(1) = B(a <= b))
    BIN32(ge_s, S(1) = B((int32_t)a >= (int32_t)b))
    BIN32(ge_u, S(1) = B(a >= b))

    BIN64(add, S(1) = a + b)
    BIN64(sub, S(1) = a - b)
    BIN64(mul, S(1) = a * b)
    BIN64(div_s, {
        if (UNLIKELY(b == 0))
            TRAP(WASM_TRAP_DIV_ZERO);
        if (UNLIKELY(a == 0x8000000000000000u && b == UINT64_MAX))
            TRAP(WASM_TRAP_INT_OVERFLOW);
        S(1) = (uint64_t)((int64_t)a / (int64_t)b);
    })
    BIN64(div_u, {
        if (UNLIKELY(b == 0))
            TRAP(WASM_TRAP_DIV_ZERO);
        S(1) = a / b;
    })
    BIN64(rem_s, {
        if (UNLIKELY(b == 0))
            TRAP(WASM_TRAP_DIV_ZERO);
        S(1) = b == UINT64_MAX ? 0u : (uint64_t)((int64_t)a % (int64_t)b);
    })
    BIN64(rem_u, {
        if (UNLIKELY(b == 0))
            TRAP(WASM_TRAP_DIV_ZERO);
        S(1) = a % b;
    })
    BIN64(and, S(1) = a & b)
    BIN64(or, S(1) = a | b)
    BIN64(xor, S(1) = a ^ b)
    BIN64(shl, S(1) = a << (b & 63))
    BIN64(shr_s, S(1) = (uint64_t)((int64_t)a >> (b & 63)))
    BIN64(shr_u, S(1) = a >> (b & 63))
    BIN64(rotl, S(1) = rotl64(a, b))
    BIN64(rotr, S(1) = rotr64(a, b))
    BIN64(eq, S(1) = B(a == b))
    BIN64(ne, S(1) = B(a != b))
    BIN64(lt_s, S(1) = B((int64_t)a < (int64_t)b))
    BIN64(lt_u, S(1) = B(a < b))
    BIN64(gt_s, S(1) = B((int64_t)a > (int64_t)b))
    BIN64(gt_u, S(1) = B(a > b))
    BIN64(le_s, S(1) = B((int64_t)a <= (int64_t)b))
    BIN64(le_u, S(1) = B(a <= b))
    BIN64(ge_s, S(1) = B((int64_t)a >= (int64_t)b))
    BIN64(ge_u, S(1) = B(a >= b))

    UN(i32_clz, (uint32_t)a == 0 ? 32 : __builtin_clz((uint32_t)a))
    UN(i32_ctz, (uint32_t)a == 0 ? 32 : __builtin_ctz((uint32_t)a))
    UN(i32_popcnt, __builtin_popcount((uint32_t)a))
    UN(i32_eqz, (uint32_t)a == 0)
    UN(i32_extend8_s, (uint32_t)(int32_t)(int8_t)a)
    UN(i32_extend16_s, (uint32_t)(int32_t)(int16_t)a)
    UN(i64_clz, a == 0 ? 64 : __builtin_clzll(a))
    UN(i64_ctz, a == 0 ? 64 : __builtin_ctzll(a))
    UN(i64_popcnt, __builtin_popcountll(a))
    UN(i64_eqz, a == 0)
    UN(i64_extend8_s, (int64_t)(int8_t)a)
    UN(i64_extend16_s, (int64_t)(int16_t)a)
    UN(i64_extend32_s, (int64_t)(int32_t)a)
    UN(i64_extend_i32_s, (int64_t)(int32_t)a)
    UN(i64_extend_i32_u, (uint32_t)a)

    F32_BIN(add, a + b)
    F32_BIN(sub, a - b)
    F32_BIN(mul, a * b)
    F32_BIN(div, a / b)
    FBIN(f32, min, f32_min(a, b))
    FBIN(f32, max, f32_max(a, b))
    FCMP(f32, eq, a == b)
    FCMP(f32, ne, a != b)
    FCMP(f32, lt, a < b)
    FCMP(f32, gt, a > b)
    FCMP(f32, le, a <= b)
    FCMP(f32, ge, a >= b)
    FUN(f32, ceil, a != a ? a + a : ceilf(a))
    FUN(f32, floor, a != a ? a + a : floorf(a))
    FUN(f32, trunc, a != a ? a + a : truncf(a))
    FUN(f32, nearest, nearbyintf(a))
    FUN(f32, sqrt, __builtin_sqrtf(a))
op_f32_copysign:
    S(1) = (S(2) & 0x7FFFFFFFu) | (S(3) & 0x80000000u);
    ip += 4;
    NEXT();
op_f32_abs:
    S(1) = S(2) & 0x7FFFFFFFu;
    ip += 3;
    NEXT();
op_f32_neg:
    S(1) = (S(2) ^ 0x80000000u) & 0xFFFFFFFFu;
    ip += 3;
    NEXT();

    F64_BIN(add, a + b)
    F64_BIN(sub, a - b)
    F64_BIN(mul, a * b)
    F64_BIN(div, a / b)
    FBIN(f64, min, f64_min(a, b))
    FBIN(f64, max, f64_max(a, b))
    FCMP(f64, eq, a == b)
    FCMP(f64, ne, a != b)
    FCMP(f64, lt, a < b)
    FCMP(f64, gt, a > b)
    FCMP(f64, le, a <= b)
    FCMP(f64, ge, a >= b)
    FUN(f64, ceil, a != a ? a + a : ceil(a))
    FUN(f64, floor, a != a ? a + a : floor(a))
    FUN(f64, trunc, a != a ? a + a : trunc(a))
    FUN(f64, nearest, nearbyint(a))
    FUN(f64, sqrt, __builtin_sqrt(a))
op_f64_copysign:
    S(1) = (S(2) & 0x7FFFFFFFFFFFFFFFu) | (S(3) & 0x8000000000000000u);
    ip += 4;
    NEXT();
op_f64_abs:
    S(1) = S(2) & 0x7FFFFFFFFFFFFFFFu;
    ip += 3;
    NEXT();
op_f64_neg:
    S(1) = S(2) ^ 0x8000000000000000u;
    ip += 3;
    NEXT();

    TRUNC(i32_trunc_f32_s, f32, f_fits_i32, (uint32_t)(int32_t)x)
    TRUNC(i32_trunc_f32_u, f32, f_fits_u32, (uint32_t)x)
    TRUNC(i32_trunc_f64_s, f64, f_fits_i32, (uint32_t)(int32_t)x)
    TRUNC(i32_trunc_f64_u, f64, f_fits_u32, (uint32_t)x)
    TRUNC(i64_trunc_f32_s, f32, f_fits_i64, (uint64_t)(int64_t)x)
    TRUNC(i64_trunc_f32_u, f32, f_fits_u64, (uint64_t)x)
    TRUNC(i64_trunc_f64_s, f64, f_fits_i64, (uint64_t)(int64_t)x)
    TRUNC(i64_trunc_f64_u, f64, f_fits_u64, (uint64_t)x)
    UN(i32_trunc_sat_f32_s, sat_i32((double)f32_of(a)))
    UN(i32_trunc_sat_f32_u, sat_u32((double)f32_of(a)))
    UN(i32_trunc_sat_f64_s, sat_i32(f64_of(a)))
    UN(i32_trunc_sat_f64_u, sat_u32(f64_of(a)))
    UN(i64_trunc_sat_f32_s, sat_i64((double)f32_of(a)))
    UN(i64_trunc_sat_f32_u, sat_u64((double)f32_of(a)))
    UN(i64_trunc_sat_f64_s, sat_i64(f64_of(a)))
    UN(i64_trunc_sat_f64_u, sat_u64(f64_of(a)))
    UN(f32_convert_i32_s, f32_bits((float)(int32_t)a))
    UN(f32_convert_i32_u, f32_bits((float)(uint32_t)a))
    UN(f32_convert_i64_s, f32_bits((float)(int64_t)a))
    UN(f32_convert_i64_u, f32_bits((float)a))
    UN(f64_convert_i32_s, f64_bits((double)(int32_t)a))
    UN(f64_convert_i32_u, f64_bits((double)(uint32_t)a))
    UN(f64_convert_i64_s, f64_bits((double)(int64_t)a))
    UN(f64_convert_i64_u, f64_bits((double)a))
    UN(f32_demote_f64, f32_bits((float)f64_of(a)))
    UN(f64_promote_f32, f64_bits((double)f32_of(a)))

    /* loads [h][dst][addr][offset], stores [h][addr][value][offset] */
    LOAD(i32_load, uint32_t, v)
    LOAD(i64_load, uint64_t, v)
    LOAD(i32_load8_s, int8_t, (uint64_t)(uint32_t)(int32_t)v)
    LOAD(i32_load8_u, uint8_t, v)
    LOAD(i32_load16_s, int16_t, (uint64_t)(uint32_t)(int32_t)v)
    LOAD(i32_load16_u, uint16_t, v)
    LOAD(i64_load8_s, int8_t, (uint64_t)(int64_t)v)
    LOAD(i64_load8_u, uint8_t, v)
    LOAD(i64_load16_s, int16_t, (uint64_t)(int64_t)v)
    LOAD(i64_load16_u, uint16_t, v)
    LOAD(i64_load32_s, int32_t, (uint64_t)(int64_t)v)
    LOAD(i64_load32_u, uint32_t, v)
    STORE(i32_store, uint32_t)
    STORE(i64_store, uint64_t)
    STORE(i32_store8, uint8_t)
    STORE(i32_store16, uint16_t)
    STORE(i64_store32, uint32_t)

    /* [h][dst] */
op_memory_size:
    S(1) = mem ? mem->pages : 0u;
    ip += 2;
    NEXT();
    /* [h][dst][delta] */
op_memory_grow : {
    int64_t r = mem ? sbx__wasm_memory_grow(mem, U32(2)) : -1;
    S(1) = (uint32_t)r;
    msize = mem ? mem->size : 0;
    ip += 3;
    NEXT();
}
    /* [h][dst addr][src addr][n] */
op_memory_copy : {
    uint32_t d = U32(1), s = U32(2), n = U32(3);
    if (UNLIKELY(!in_range(d, n, msize) || !in_range(s, n, msize)))
        TRAP(WASM_TRAP_MEMORY_OOB);
    memmove(mbase + d, mbase + s, n);
    ip += 4;
    NEXT();
}
    /* [h][dst addr][byte][n] */
op_memory_fill : {
    uint32_t d = U32(1), n = U32(3);
    if (UNLIKELY(!in_range(d, n, msize)))
        TRAP(WASM_TRAP_MEMORY_OOB);
    memset(mbase + d, (int)(uint8_t)S(2), n);
    ip += 4;
    NEXT();
}
    /* [h][segment][dst addr][src offset][n] */
op_memory_init : {
    const struct wasm_data_seg *seg = &inst->module->datas[ip[1]];
    uint32_t d = U32(2), s = U32(3), n = U32(4);
    uint32_t len = inst->data_dropped[ip[1]] ? 0 : seg->len;
    if (UNLIKELY(!in_range(s, n, len) || !in_range(d, n, msize)))
        TRAP(WASM_TRAP_MEMORY_OOB);
    if (n)
        memcpy(mbase + d, seg->bytes + s, n);
    ip += 5;
    NEXT();
}
    /* [h][segment] */
op_data_drop:
    inst->data_dropped[ip[1]] = true;
    ip += 2;
    NEXT();

    /* [h][dst][table][index] */
op_table_get : {
    struct wasm_table *t = inst->tables[ip[2]];
    uint32_t i = U32(3);
    if (UNLIKELY(i >= t->size))
        TRAP(WASM_TRAP_TABLE_OOB);
    S(1) = (uint64_t)(uintptr_t)t->elems[i];
    ip += 4;
    NEXT();
}
    /* [h][table][index][value] */
op_table_set : {
    struct wasm_table *t = inst->tables[ip[1]];
    uint32_t i = U32(2);
    if (UNLIKELY(i >= t->size))
        TRAP(WASM_TRAP_TABLE_OOB);
    t->elems[i] = (void *)(uintptr_t)S(3);
    ip += 4;
    NEXT();
}
    /* [h][dst][table] */
op_table_size:
    S(1) = inst->tables[ip[2]]->size;
    ip += 3;
    NEXT();
    /* [h][dst][table][init][delta] */
op_table_grow : {
    wasm_value init;
    init.ref = (void *)(uintptr_t)S(3);
    int64_t r = sbx__wasm_table_grow(inst->tables[ip[2]], U32(4), init);
    S(1) = (uint32_t)r;
    ip += 5;
    NEXT();
}
    /* [h][table][index][value][n] */
op_table_fill : {
    struct wasm_table *t = inst->tables[ip[1]];
    uint32_t i = U32(2), n = U32(4);
    if (UNLIKELY(!in_range(i, n, t->size)))
        TRAP(WASM_TRAP_TABLE_OOB);
    for (uint32_t k = 0; k < n; k++)
        t->elems[i + k] = (void *)(uintptr_t)S(3);
    ip += 5;
    NEXT();
}
    /* [h][dst table][src table][dst][src][n] */
op_table_copy : {
    struct wasm_table *dt = inst->tables[ip[1]], *st = inst->tables[ip[2]];
    uint32_t d = U32(3), s = U32(4), n = U32(5);
    if (UNLIKELY(!in_range(d, n, dt->size) || !in_range(s, n, st->size)))
        TRAP(WASM_TRAP_TABLE_OOB);
    table_copy(dt, st, d, s, n);
    ip += 6;
    NEXT();
}
    /* [h][table][segment][dst][src][n] */
op_table_init : {
    struct wasm_table *t = inst->tables[ip[1]];
    uint32_t seg = W(2), d = U32(3), s = U32(4), n = U32(5);
    if (UNLIKELY(!in_range(s, n, inst->elem_sizes[seg]) || !in_range(d, n, t->size)))
        TRAP(WASM_TRAP_TABLE_OOB);
    if (n)
        memcpy(t->elems + d, inst->elem_refs[seg] + s, (size_t)n * sizeof(void *));
    ip += 6;
    NEXT();
}
    /* Memories other than a 32-bit memory 0 (multiple memories, memory64; compile_mem.c).
     * [h][dst][addr][mem][offset lo][offset hi][bytes]: a 64-bit memory's effective address,
     * checked in 64 bits, as a u32 for the plain access that follows (no memory exceeds 4 GiB:
     * memory.c) */
op_addr64 : {
    const struct wasm_memory *m = inst->mems[ip[3]];
    uint64_t a = S(2), ea = a + (ip[4] | ip[5] << 32);
    if (UNLIKELY(ea < a || ea > m->size || ip[6] > m->size - ea))
        TRAP(WASM_TRAP_MEMORY_OOB);
    S(1) = ea;
    ip += 7;
    NEXT();
}
    /* [h][mem] / [h]: the plain access between them uses that memory, then memory 0 again */
op_mem_sel:
    mem = inst->mems[ip[1]];
    mbase = mem->data;
    msize = mem->size;
    ip += 2;
    NEXT();
op_mem_sel0:
    mem = inst->mem0;
    mbase = mem ? mem->data : NULL;
    msize = mem ? mem->size : 0;
    ip += 1;
    NEXT();
    /* [h][dst][mem] */
op_memory_size_m:
    S(1) = inst->mems[ip[2]]->pages;
    ip += 3;
    NEXT();
    /* [h][dst][delta][mem]: a 64-bit memory takes and returns i64 */
op_memory_grow_m : {
    struct wasm_memory *m = inst->mems[ip[3]];
    uint64_t r = sbx__wasm_memory_grow64(m, m->type.is64 ? S(2) : U32(2));
    S(1) = m->type.is64 ? r : (uint32_t)r;
    msize = mem ? mem->size : 0; /* it may have been memory 0 */
    ip += 4;
    NEXT();
}
    /* [h][dst addr][byte][n][mem] */
op_memory_fill_m : {
    struct wasm_memory *m = inst->mems[ip[4]];
    bool w = m->type.is64;
    tk = sbx__wasm_memory_fill(m, w ? S(1) : U32(1), (uint8_t)S(2), w ? S(3) : U32(3));
    if (UNLIKELY(tk != WASM_TRAP_NONE))
        goto trap;
    ip += 5;
    NEXT();
}
    /* [h][dst addr][src addr][n][dst mem][src mem]: n is an i64 only between 64-bit ones */
op_memory_copy_m : {
    struct wasm_memory *dm = inst->mems[ip[4]], *sm = inst->mems[ip[5]];
    bool dw = dm->type.is64, sw = sm->type.is64;
    tk = sbx__wasm_memory_copy(dm, sm, dw ? S(1) : U32(1), sw ? S(2) : U32(2),
                               dw && sw ? S(3) : U32(3));
    if (UNLIKELY(tk != WASM_TRAP_NONE))
        goto trap;
    ip += 6;
    NEXT();
}
    /* [h][segment][dst addr][src offset][n][mem] */
op_memory_init_m : {
    struct wasm_memory *m = inst->mems[ip[5]];
    const struct wasm_data_seg *seg = &inst->module->datas[ip[1]];
    tk = sbx__wasm_memory_init(m, seg->bytes, inst->data_dropped[ip[1]] ? 0 : seg->len,
                               m->type.is64 ? S(2) : U32(2), U32(3), U32(4));
    if (UNLIKELY(tk != WASM_TRAP_NONE))
        goto trap;
    ip += 6;
    NEXT();
}
    /* [h][dst][src]: a 64-bit table index or length saturated to u32 (tables hold fewer than
     * 2^32 - 1 elements, so a saturated one is out of bounds as the real one was) */
op_idx64:
    S(1) = S(2) > UINT32_MAX ? UINT32_MAX : S(2);
    ip += 3;
    NEXT();
    /* [h][segment] */
op_elem_drop:
    inst->elem_sizes[ip[1]] = 0;
    ip += 2;
    NEXT();

    MEMOP(i32_add, u32, uint32_t, a + b)
    MEMOP(i32_sub, u32, uint32_t, a - b)
    MEMOP(i32_and, u32, uint32_t, a & b)
    MEMOP(i32_or, u32, uint32_t, a | b)
    MEMOP(i32_xor, u32, uint32_t, a ^ b)
    MEMOP(i64_add, u64, uint64_t, a + b)
    MEMOP(i64_sub, u64, uint64_t, a - b)
    MEMOP(f32_add, f32, uint32_t, a + b)
    MEMOP(f32_sub, f32, uint32_t, a - b)
    MEMOP(f32_mul, f32, uint32_t, a * b)
    MEMOP(f64_add, f64, uint64_t, a + b)
    MEMOP(f64_sub, f64, uint64_t, a - b)
    MEMOP(f64_mul, f64, uint64_t, a * b)

#include "wasm/interp_gc.h"
#include "wasm/interp_simd.h"

    /* The baseline tier's entries (kept out of the dispatch loop's hot paths). */
    /* A tail call whose callee runs baseline code (do_tail_wasm's checks done). */
do_tail_base:
    if (UNLIKELY((size_t)(stack_end - fp) < callee->frame_slots))
        TRAP(WASM_TRAP_STACK_EXHAUSTED);
    memmove(fp, nfp, callee->param_slots * sizeof(uint64_t));
    for (uint64_t *z = fp + callee->param_slots, *ze = z + callee->local_slots; z < ze; z++)
        *z = 0;
    code = callee;
    if (cinst != inst)
        SWITCH_INST(cinst);
    goto base_entry;
    /* A call whose callee runs baseline code (sbx__wasm_tier_call said so; the entry frame's
     * too, ret NULL): do_call_wasm's frame, then the code. */
do_call_base:
    if (UNLIKELY(frp >= frames_end || (size_t)(stack_end - nfp) < callee->frame_slots))
        TRAP(WASM_TRAP_STACK_EXHAUSTED);
    frp->ip = ret;
    frp->fp = fp;
    frp->code = code;
    frp->inst = inst;
    frp++;
    for (uint64_t *z = nfp + callee->param_slots, *ze = z + callee->local_slots; z < ze; z++)
        *z = 0;
    fp = nfp;
    code = callee;
    if (cinst != inst)
        SWITCH_INST(cinst);
base_entry:
    BASE_GO(inst->funcs[code->func_index]->base,
            sbx__base_entry(inst->funcs[code->func_index]->base));
    /* [h][address]: after an instruction baseline code handed over, back into it. */
op_base_resume:
    BASE_GO(inst->funcs[code->func_index]->base, (const void *)(uintptr_t)ip[1]);
    /* a back-edge baseline code left at: the interpreter's path polls, counts, may enter OSR */
base_back:
    back_fuel = 0;
    goto do_backedge;
trap_jit_or_host:
    if (ex->has_trap_func)
        goto trap_jit;
    goto trap_host;
trap_jit: /* the record is complete, "in <func>" included */
    if (tk == WASM_TRAP_EXCEPTION)
        goto save_resume_here;
    ex->depth = entry_depth;
    return tk;
    /* An exception from a call: this run ends and sbx__wasm_interp_run starts a fresh one at
     * do_throw_at (continuing here would keep the loop's registers live across every call's
     * failure path: +2.9% instructions on fib with frp spilled, callgrind). */
save_resume_here:
    throw_pos = (uint32_t)(ip - code->words);
save_resume:
    ex->resume = (struct wasm_frame){.ip = ip, .fp = fp, .code = code, .inst = inst};
    ex->resume_pos = throw_pos;
    ex->resume_depth = (uint32_t)(frp - frames);
    ex->has_resume = true;
    ex->depth = entry_depth;
    return WASM_TRAP_EXCEPTION;
trap_host:
    if (tk == WASM_TRAP_EXCEPTION)
        goto save_resume_here;
    ex->depth = entry_depth;
    ex->trap_inst = inst;
    ex->trap_func = code->func_index;
    ex->has_trap_func = false;
    return tk;
trap:
    ex->depth = entry_depth;
    ex->trap.kind = tk;
    ex->trap.message[0] = '\0';
    ex->trap_inst = inst;
    ex->trap_func = code->func_index;
    ex->has_trap_func = true;
    return tk;
}

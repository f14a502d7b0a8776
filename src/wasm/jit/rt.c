/* wasm/jit/rt.c: the compiled tier's runtime: the host's entry (setjmp; traps longjmp back,
 * skipping only compiled frames, which hold no resources), the native stack limit, and the
 * helpers compiled code calls for traps, foreign calls and bulk memory and table operations,
 * with the interpreter's semantics (interp.c). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/code.h"
#include "wasm/jit/rt.h"
#include "wasm/types.h"

#define STACK_MARGIN    (256u << 10) /* left for host functions, helpers and the trap path */
#define STACK_MAX_BYTES (64u << 20)  /* no entry uses more, whatever the thread has */
#define INLINE_SLOTS    32
#define NO_LOOP         UINT32_MAX /* enter(): the function's entry, not an OSR entry */

_Noreturn void sbx__jit_rt_trap(struct wasm_jit_store *js, uint32_t kind,
                                const struct wasm_instance *inst, uint32_t func_idx)
{
    struct wasm_exec *ex = js->store->exec;
    ex->trap.kind = (enum wasm_trap_kind)kind;
    ex->trap.exit_code = 0;
    ex->trap.message[0] = '\0';
    ex->trap_inst = inst;
    ex->trap_func = func_idx;
    ex->has_trap_func = true;
    longjmp(*js->top, 1);
}

_Noreturn void sbx__jit_rt_stack_trap(struct wasm_jit_store *js, const struct wasm_instance *inst)
{
    struct wasm_exec *ex = js->store->exec;
    ex->trap.kind = WASM_TRAP_STACK_EXHAUSTED;
    ex->trap.exit_code = 0;
    snprintf(ex->trap.message, sizeof(ex->trap.message), "%s",
             sbx__wasm_trap_text(WASM_TRAP_STACK_EXHAUSTED));
    ex->trap_inst = inst;
    ex->has_trap_func = false; /* the probe serves every function of the mapping */
    longjmp(*js->top, 1);
}

/* The trap record is complete (a host function or a nested entry filled it). */
static _Noreturn void rethrow(struct wasm_jit_store *js)
{
    js->store->exec->has_trap_func = false;
    longjmp(*js->top, 1);
}

_Noreturn void sbx__jit_rt_throw(struct wasm_jit_store *js, struct wasm_instance *inst,
                                 uint32_t tag, const uint64_t *slots)
{
    struct wasm_exec *ex = js->store->exec;
    sbx__wasm_exn_throw(ex, inst->tags[tag], slots);
    rethrow(js);
}

_Noreturn void sbx__jit_rt_throw_ref(struct wasm_jit_store *js, struct wasm_exn *exn)
{
    struct wasm_exec *ex = js->store->exec;
    if (sbx__wasm_exn_rethrow(ex, exn) != WASM_TRAP_EXCEPTION)
        snprintf(ex->trap.message, sizeof(ex->trap.message), "%s",
                 sbx__wasm_trap_text(WASM_TRAP_NULL_EXN_REF));
    rethrow(js);
}

/* Values to and from slots in the interpreter's layout: a v128 fills two (code.h). */
static void unpack(wasm_value *vals, const uint64_t *slots, const wasm_vtype *types, uint32_t n)
{
    for (uint32_t i = 0; i < n; slots += sbx__wasm_type_slots(types[i++])) {
        memset(&vals[i], 0, sizeof(vals[i]));
        if (types[i] == WASM_I32 || types[i] == WASM_F32)
            vals[i].i32 = (uint32_t)*slots;
        else if (wasm_vtype_is_ref(types[i]))
            vals[i].ref = (void *)(uintptr_t)*slots;
        else if (types[i] == WASM_V128)
            memcpy(vals[i].v128, slots, 16);
        else
            vals[i].i64 = *slots;
    }
}

static void pack(uint64_t *slots, const wasm_value *vals, const wasm_vtype *types, uint32_t n)
{
    for (uint32_t i = 0; i < n; slots += sbx__wasm_type_slots(types[i++])) {
        if (types[i] == WASM_I32 || types[i] == WASM_F32)
            *slots = vals[i].i32;
        else if (wasm_vtype_is_ref(types[i]))
            *slots = (uint64_t)(uintptr_t)vals[i].ref;
        else if (types[i] == WASM_V128)
            memcpy(slots, vals[i].v128, 16);
        else
            *slots = vals[i].i64;
    }
}

/* An interpreted function of another instance: a nested entry through the public call. */
static void call_interp(struct wasm_jit_store *js, struct wasm_func *fn, uint64_t *slots)
{
    const struct wasm_functype *t = fn->type;
    uint32_t n = t->param_count > t->result_count ? t->param_count : t->result_count;
    wasm_value inline_vals[2 * INLINE_SLOTS];
    wasm_value *vals = n <= INLINE_SLOTS ? inline_vals : sbx__calloc(2 * (size_t)n, sizeof(*vals));
    struct wasm_exec *ex = js->store->exec;
    if (!vals) {
        ex->trap.kind = WASM_TRAP_HOST;
        snprintf(ex->trap.message, sizeof(ex->trap.message), "host function failed: out of memory");
        rethrow(js);
    }
    unpack(vals, slots, t->types, t->param_count);
    struct wasm_trap trap;
    sbx_err rc = sbx__wasm_func_call(js->store, fn, vals, vals + n, &trap);
    if (rc == SBX_OK)
        pack(slots, vals + n, t->types + t->param_count, t->result_count);
    if (vals != inline_vals)
        sbx__free(vals);
    if (rc != SBX_OK) {
        if (rc != SBX_E_WASM_TRAP) {
            trap.kind = WASM_TRAP_HOST;
            snprintf(trap.message, sizeof(trap.message), "host function failed: out of memory");
        }
        ex->trap = trap;
        rethrow(js);
    }
}

void sbx__jit_rt_call(struct wasm_jit_store *js, struct wasm_func *fn, struct wasm_instance *caller,
                      uint64_t *slots)
{
    void (*entry)(uint64_t *) = __atomic_load_n(&fn->jit_entry, __ATOMIC_ACQUIRE);
    if (entry && fn->inst->store == js->store) { /* also a call between hot-only batches */
        entry(slots);
        return;
    }
    if (fn->inst) {
        call_interp(js, fn, slots);
        return;
    }
    if (sbx__wasm_call_host(js->store->exec, fn, caller, slots) != WASM_TRAP_NONE)
        rethrow(js);
}

/* The exception in flight if the longjmp that ended a try (to jb) carried one; any other
 * trap goes on to the entry before it. */
static struct wasm_exn *caught(struct wasm_jit_store *js, jmp_buf *prev)
{
    struct wasm_exec *ex = js->store->exec;
    js->top = prev;
    if (ex->trap.kind != WASM_TRAP_EXCEPTION || !ex->exn)
        longjmp(*prev, 1);
    return ex->exn;
}

struct wasm_exn *sbx__jit_rt_try_call(struct wasm_jit_store *js, struct wasm_func *fn,
                                      struct wasm_instance *caller, uint64_t *slots)
{
    jmp_buf jb;
    jmp_buf *prev = js->top;
    js->top = &jb;
    if (setjmp(jb) != 0)
        return caught(js, prev);
    sbx__jit_rt_call(js, fn, caller, slots);
    js->top = prev;
    return NULL;
}

struct wasm_exn *sbx__jit_rt_exn_new(struct wasm_jit_store *js, struct wasm_instance *inst,
                                     uint32_t tag, const uint64_t *slots)
{
    struct wasm_exec *ex = js->store->exec;
    if (sbx__wasm_exn_throw(ex, inst->tags[tag], slots) != WASM_TRAP_EXCEPTION)
        rethrow(js); /* over the store's memoryBytes: a trap no handler catches */
    return ex->exn;
}

struct wasm_exn *sbx__jit_rt_exn_ref(struct wasm_jit_store *js, struct wasm_exn *exn)
{
    struct wasm_exec *ex = js->store->exec;
    if (sbx__wasm_exn_rethrow(ex, exn) != WASM_TRAP_EXCEPTION) {
        snprintf(ex->trap.message, sizeof(ex->trap.message), "%s",
                 sbx__wasm_trap_text(WASM_TRAP_NULL_EXN_REF));
        rethrow(js);
    }
    return exn;
}

uint32_t sbx__jit_rt_exn_is(const struct wasm_instance *inst, const struct wasm_exn *exn,
                            uint32_t tag)
{
    return inst->tags[tag] == exn->tag ? 1u : 0u;
}

void sbx__jit_rt_exn_take(struct wasm_jit_store *js, struct wasm_exn *exn, uint32_t is_ref)
{
    struct wasm_exec *ex = js->store->exec;
    struct wasm_hcatch h = {.kind = is_ref ? WASM_CATCH_ALL_REF : WASM_CATCH_ALL};
    uint64_t ref_slot;
    if (ex->exn != exn) /* cannot happen: nothing runs between the catch and its clause */
        return;
    sbx__wasm_exn_deliver(ex, &h, &ref_slot);
}

uint32_t sbx__jit_rt_sig_eq(const struct wasm_func *fn, const struct wasm_rtt *want)
{
    return sbx__wasm_rtt_sub(fn->rtt, want) ? 1u : 0u;
}

static bool in_range(uint32_t a, uint32_t n, uint64_t size)
{
    return (uint64_t)a + n <= size;
}

uint32_t sbx__jit_rt_memory_grow(struct wasm_memory *mem, uint32_t delta)
{
    return (uint32_t)sbx__wasm_memory_grow(mem, delta);
}

uint32_t sbx__jit_rt_memory_fill(struct wasm_memory *mem, uint32_t d, uint32_t val, uint32_t n)
{
    if (!in_range(d, n, mem->size))
        return WASM_TRAP_MEMORY_OOB;
    memset(mem->data + d, (int)(uint8_t)val, n);
    return WASM_TRAP_NONE;
}

uint32_t sbx__jit_rt_memory_copy(struct wasm_memory *mem, uint32_t d, uint32_t s, uint32_t n)
{
    if (!in_range(d, n, mem->size) || !in_range(s, n, mem->size))
        return WASM_TRAP_MEMORY_OOB;
    memmove(mem->data + d, mem->data + s, n);
    return WASM_TRAP_NONE;
}

uint32_t sbx__jit_rt_memory_init(struct wasm_instance *inst, uint32_t seg, uint32_t d, uint32_t s,
                                 uint32_t n)
{
    const struct wasm_data_seg *ds = &inst->module->datas[seg];
    uint32_t len = inst->data_dropped[seg] ? 0 : ds->len;
    struct wasm_memory *mem = inst->mem0;
    if (!in_range(s, n, len) || !in_range(d, n, mem->size))
        return WASM_TRAP_MEMORY_OOB;
    if (n)
        memcpy(mem->data + d, ds->bytes + s, n);
    return WASM_TRAP_NONE;
}

void sbx__jit_rt_data_drop(struct wasm_instance *inst, uint32_t seg)
{
    inst->data_dropped[seg] = true;
}

uint32_t sbx__jit_rt_table_grow(struct wasm_table *t, void *init, uint32_t delta)
{
    wasm_value v = {.ref = init};
    return (uint32_t)sbx__wasm_table_grow(t, delta, v);
}

uint32_t sbx__jit_rt_table_fill(struct wasm_table *t, uint32_t i, void *val, uint32_t n)
{
    if (!in_range(i, n, t->size))
        return WASM_TRAP_TABLE_OOB;
    for (uint32_t k = 0; k < n; k++)
        t->elems[i + k] = val;
    return WASM_TRAP_NONE;
}

uint32_t sbx__jit_rt_table_copy(struct wasm_table *dt, struct wasm_table *st, uint32_t d,
                                uint32_t s, uint32_t n)
{
    if (!in_range(d, n, dt->size) || !in_range(s, n, st->size))
        return WASM_TRAP_TABLE_OOB;
    memmove(dt->elems + d, st->elems + s, (size_t)n * sizeof(void *));
    return WASM_TRAP_NONE;
}

uint32_t sbx__jit_rt_table_init(struct wasm_instance *inst, uint32_t table, uint32_t seg,
                                uint32_t d, uint32_t s, uint32_t n)
{
    struct wasm_table *t = inst->tables[table];
    if (!in_range(s, n, inst->elem_sizes[seg]) || !in_range(d, n, t->size))
        return WASM_TRAP_TABLE_OOB;
    if (n)
        memcpy(t->elems + d, inst->elem_refs[seg] + s, (size_t)n * sizeof(void *));
    return WASM_TRAP_NONE;
}

void sbx__jit_rt_elem_drop(struct wasm_instance *inst, uint32_t seg)
{
    inst->elem_sizes[seg] = 0;
}

/* This thread's stack end, asked once per thread: on the main thread pthread_getattr_np reads
 * /proc/self/maps, which every outermost entry (an interpreted loop calling a tiered-up
 * function) would otherwise pay. 1 when unknown. */
static _Thread_local uintptr_t stack_end;

static uintptr_t thread_stack_end(void)
{
    if (stack_end)
        return stack_end;
    pthread_attr_t a;
    void *lo = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        pthread_attr_getstack(&a, &lo, &size);
        pthread_attr_destroy(&a);
    }
    stack_end = lo ? (uintptr_t)lo : 1;
    return stack_end;
}

uintptr_t sbx__wasm_thread_stack_low(void)
{
    uintptr_t lo = thread_stack_end();
    return lo == 1 ? 0 : lo;
}

/* The lowest stack address compiled code may reach on this thread: STACK_MARGIN above the
 * thread's stack end, and no more than STACK_MAX_BYTES below the entry. */
static uintptr_t stack_limit(void)
{
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    uintptr_t floor = here > STACK_MAX_BYTES ? here - STACK_MAX_BYTES : 0;
    uintptr_t lo = thread_stack_end();
    lo = lo == 1 ? 0 : lo;
    uintptr_t low = lo + STACK_MARGIN;
    if (!lo || low >= here)
        low = here > (1u << 20) ? here - (1u << 20) : 0; /* unknown: assume 1 MiB is there */
    return low > floor ? low : floor;
}

static enum wasm_trap_kind out_of_memory(struct wasm_exec *ex)
{
    ex->trap.kind = WASM_TRAP_HOST;
    snprintf(ex->trap.message, sizeof(ex->trap.message), "host function failed: out of memory");
    ex->has_trap_func = false;
    return WASM_TRAP_HOST;
}

/* Runs the entry with a jmp_buf of its own; kept out of line so setjmp's frame holds only what
 * survives a longjmp unchanged. */
static __attribute__((noinline)) enum wasm_trap_kind
enter(struct wasm_jit_store *js, struct wasm_func *f, uint64_t *slots, uint32_t loop, bool *has_run)
{
    jmp_buf jb;
    jmp_buf *prev = js->top;
    uintptr_t prev_limit = js->stack_limit;
    struct wasm_jit_store *prev_running; /* another store's, when nested */
    /* From here this thread's faults may be this store's guest's (fault.c). */
    if (!sbx__jit_running_push(js, &prev_running))
        return out_of_memory(js->store->exec);
    if (!prev)
        js->stack_limit = stack_limit();
    js->top = &jb;
    enum wasm_trap_kind tk = WASM_TRAP_NONE;
    if (setjmp(jb) == 0) {
        if (loop == NO_LOOP)
            f->jit_entry(slots);
        else
            *has_run = f->osr_entry(slots, loop) != 0;
    } else {
        tk = js->store->exec->trap.kind;
    }
    sbx__jit_running_pop(prev_running);
    js->top = prev;
    js->stack_limit = prev_limit;
    return tk;
}

enum wasm_trap_kind sbx__wasm_jit_call(struct wasm_exec *ex, struct wasm_func *f,
                                       const wasm_value *args, wasm_value *results)
{
    const struct wasm_functype *t = f->type;
    uint32_t ps = sbx__wasm_types_slots(t->types, t->param_count);
    uint32_t rs = sbx__wasm_types_slots(t->types + t->param_count, t->result_count);
    uint32_t n = ps > rs ? ps : rs;
    uint64_t inline_slots[INLINE_SLOTS];
    uint64_t *slots = n <= INLINE_SLOTS ? inline_slots : sbx__mallocn(n, sizeof(uint64_t));
    if (!slots)
        return out_of_memory(ex);
    pack(slots, args, t->types, t->param_count);
    ex->store->tierup.native_entries++;
    ex->nest++;
    enum wasm_trap_kind tk = enter(ex->store->jit, f, slots, NO_LOOP, NULL);
    ex->nest--;
    if (tk == WASM_TRAP_NONE)
        unpack(results, slots, t->types + t->param_count, t->result_count);
    if (slots != inline_slots)
        sbx__free(slots);
    return tk;
}

bool sbx__wasm_jit_call_code(struct wasm_exec *ex, struct wasm_instance *inst,
                             const struct wasm_code *code, uint64_t *slots, enum wasm_trap_kind *tk)
{
    struct wasm_func *f = inst->funcs[code->func_index];
    if (!__atomic_load_n(&f->jit_entry, __ATOMIC_ACQUIRE) || !ex->store->jit) {
        sbx__wasm_lazy_hit(ex->store, f, true);
        return false;
    }
    ex->store->tierup.native_entries++;
    ex->nest++;
    *tk = enter(ex->store->jit, f, slots, NO_LOOP, NULL);
    ex->nest--;
    return true;
}

/* The worker publishes jit_entry last (link.c, release): its acquire makes osr_entry visible. */
bool sbx__wasm_jit_has_osr(struct wasm_store *s, struct wasm_instance *inst,
                           const struct wasm_code *code)
{
    struct wasm_func *f = inst->funcs[code->func_index];
    if (__atomic_load_n(&f->jit_entry, __ATOMIC_ACQUIRE) && f->osr_entry)
        return true;
    sbx__wasm_lazy_hit(s, f, false);
    return false;
}

bool sbx__wasm_jit_osr(struct wasm_exec *ex, struct wasm_instance *inst,
                       const struct wasm_code *code, uint64_t *slots, uint32_t loop,
                       enum wasm_trap_kind *tk)
{
    struct wasm_func *f = inst->funcs[code->func_index];
    if (!sbx__wasm_jit_has_osr(ex->store, inst, code) || !ex->store->jit)
        return false;
    bool has_run = true; /* a trap inside ran it */
    ex->nest++;
    *tk = enter(ex->store->jit, f, slots, loop, &has_run);
    ex->nest--;
    if (has_run) {
        ex->store->tierup.native_entries++;
        ex->store->tierup.osr_entries++;
    }
    return has_run;
}

uint32_t sbx__jit_rt_memory_fill64(struct wasm_instance *inst, uint32_t mem, uint64_t d,
                                   uint32_t val, uint64_t n)
{
    return sbx__wasm_memory_fill(inst->mems[mem], d, (uint8_t)val, n);
}

uint32_t sbx__jit_rt_memory_copy64(struct wasm_instance *inst, uint32_t dmem, uint32_t smem,
                                   uint64_t d, uint64_t s, uint64_t n)
{
    return sbx__wasm_memory_copy(inst->mems[dmem], inst->mems[smem], d, s, n);
}

uint32_t sbx__jit_rt_memory_init64(struct wasm_instance *inst, uint32_t mem, uint32_t seg,
                                   uint64_t d, uint32_t s, uint32_t n)
{
    const struct wasm_data_seg *ds = &inst->module->datas[seg];
    return sbx__wasm_memory_init(inst->mems[mem], ds->bytes, inst->data_dropped[seg] ? 0 : ds->len,
                                 d, s, n);
}

/* wasm/interp_call.c: entering and leaving the interpreter: sbx__wasm_func_call(), host
 * functions and their struct wasm_call, the per-store stacks and trap reports. Host functions may
 * call back in, and compiled code calls interpreted functions (over the compile-cost bound, not
 * in a hot-only batch yet) the same way: each such entry nests C frames, bounded by the native
 * stack (nest_is_too_deep), as compiled code is (jit/rt.c). */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/code.h"
#include "wasm/types.h"
#include "wasm/jit/jit.h"

#define NEST_RESERVE       (256u << 10) /* stack left below a nested entry (rt.c's margin) */
#define MAX_NEST_UNKNOWN   200          /* the bound on a thread whose stack is not known */
#define DEFAULT_DEPTH      10000
#define DEFAULT_STACK      (8u << 20)
#define HOST_INLINE_VALUES 16

bool sbx__wasm_functype_eq(const struct wasm_functype *a, const struct wasm_functype *b)
{
    if (a->param_count != b->param_count || a->result_count != b->result_count)
        return false;
    size_t n = (size_t)a->param_count + a->result_count;
    return n == 0 || memcmp(a->types, b->types, n * sizeof(*a->types)) == 0;
}

static size_t stack_slots(const struct wasm_store_limits *l)
{
    size_t bytes = l->max_stack_bytes ? l->max_stack_bytes : DEFAULT_STACK;
    return bytes / sizeof(uint64_t) < 1024 ? 1024 : bytes / sizeof(uint64_t);
}

static uint32_t max_depth(const struct wasm_store_limits *l)
{
    return l->max_call_depth ? l->max_call_depth : DEFAULT_DEPTH;
}

uint64_t sbx__wasm_exec_bytes(const struct wasm_store_limits *limits)
{
    return (uint64_t)stack_slots(limits) * sizeof(uint64_t) +
           ((uint64_t)max_depth(limits) + 1) * sizeof(struct wasm_frame);
}

static sbx_err exec_get(struct wasm_store *store, struct wasm_exec **out)
{
    if (store->exec) {
        *out = store->exec;
        return SBX_OK;
    }
    struct wasm_exec *ex = sbx__calloc(1, sizeof(*ex));
    if (!ex)
        return SBX_E_NOMEM;
    size_t slots = stack_slots(&store->limits);
    ex->max_depth = max_depth(&store->limits);
    ex->stack = sbx__mallocn(slots, sizeof(uint64_t));
    ex->frames = sbx__mallocn((size_t)ex->max_depth + 1, sizeof(struct wasm_frame));
    if (!ex->stack || !ex->frames) {
        sbx__wasm_exec_destroy(ex);
        return SBX_E_NOMEM;
    }
    ex->stack_end = ex->stack + slots;
    ex->sp = ex->stack;
    ex->store = store;
    store->exec = ex;
    *out = ex;
    return SBX_OK;
}

void sbx__wasm_exec_destroy(struct wasm_exec *exec)
{
    if (!exec)
        return;
    sbx__wasm_exn_free_all(exec);
    sbx__free(exec->stack);
    sbx__free(exec->frames);
    sbx__free(exec);
}

static uint32_t types_slots(const wasm_vtype *types, uint32_t count)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++)
        n += sbx__wasm_type_slots(types[i]);
    return n;
}

/* Writes values into slots per their types; returns slots used. */
static void pack(uint64_t *slots, const wasm_value *vals, const wasm_vtype *types, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        switch (wasm_vtype_code(types[i])) {
        case WASM_I32:
        case WASM_F32:
            *slots++ = vals[i].i32;
            break;
        case WASM_V128:
            memcpy(slots, vals[i].v128, 16);
            slots += 2;
            break;
        case WASM_REF_NULL_CODE:
        case WASM_REF_CODE:
            *slots++ = (uint64_t)(uintptr_t)vals[i].ref;
            break;
        default:
            *slots++ = vals[i].i64;
            break;
        }
    }
}

static void unpack(wasm_value *vals, const uint64_t *slots, const wasm_vtype *types, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        memset(&vals[i], 0, sizeof(vals[i]));
        switch (wasm_vtype_code(types[i])) {
        case WASM_I32:
        case WASM_F32:
            vals[i].i32 = (uint32_t)*slots++;
            break;
        case WASM_V128:
            memcpy(vals[i].v128, slots, 16);
            slots += 2;
            break;
        case WASM_REF_NULL_CODE:
        case WASM_REF_CODE:
            vals[i].ref = (void *)(uintptr_t)*slots++;
            break;
        default:
            vals[i].i64 = *slots++;
            break;
        }
    }
}

static void set_trap(struct wasm_trap *trap, enum wasm_trap_kind kind, const char *msg)
{
    trap->kind = kind;
    trap->exit_code = 0;
    snprintf(trap->message, sizeof(trap->message), "%s", msg);
}

/* Runs a host function with a wasm_call context; fills ex->trap on failure. */
static enum wasm_trap_kind invoke_host(struct wasm_exec *ex, struct wasm_func *f,
                                       struct wasm_instance *caller, const wasm_value *args,
                                       wasm_value *results)
{
    struct wasm_call call = {.exec = ex, .inst = caller, .has_trap = false};
    if (f->host_fn(&call, f->host_user, args, results) == 0)
        return WASM_TRAP_NONE;
    if (!call.has_trap)
        set_trap(&ex->trap, WASM_TRAP_HOST, sbx__wasm_trap_text(WASM_TRAP_HOST));
    if (ex->trap.kind == WASM_TRAP_EXCEPTION) {
        /* A guest exception never unwinds through a host frame: past it, it is a trap no
         * try_table catches. */
        char msg[sizeof(ex->trap.message)];
        snprintf(msg, sizeof(msg), "%s", ex->trap.message[0] ? ex->trap.message : "exception");
        snprintf(ex->trap.message, sizeof(ex->trap.message), "%.200s (crossed a host function)",
                 msg);
        ex->trap.kind = WASM_TRAP_HOST;
    }
    ex->has_trap_func = false;
    return ex->trap.kind;
}

enum wasm_trap_kind sbx__wasm_call_host(struct wasm_exec *ex, struct wasm_func *f,
                                        struct wasm_instance *caller, uint64_t *slots)
{
    const struct wasm_functype *t = f->type;
    wasm_value inline_vals[2 * HOST_INLINE_VALUES];
    wasm_value *args = inline_vals, *results = inline_vals + HOST_INLINE_VALUES;
    bool is_heap = t->param_count > HOST_INLINE_VALUES || t->result_count > HOST_INLINE_VALUES;
    if (is_heap) {
        uint32_t most = t->param_count > t->result_count ? t->param_count : t->result_count;
        args = sbx__calloc(2 * (size_t)most, sizeof(wasm_value));
        if (!args) {
            set_trap(&ex->trap, WASM_TRAP_HOST, "host function failed: out of memory");
            return WASM_TRAP_HOST;
        }
        results = args + most;
    }
    unpack(args, slots, t->types, t->param_count);
    memset(results, 0, (size_t)t->result_count * sizeof(wasm_value));
    ex->nest++;
    enum wasm_trap_kind tk = invoke_host(ex, f, caller, args, results);
    ex->nest--;
    if (tk == WASM_TRAP_NONE)
        pack(slots, results, t->types + t->param_count, t->result_count);
    if (is_heap)
        sbx__free(args);
    return tk;
}

/* Turns the interpreter's trap record into the caller's, adding "in <name>" for guest traps. */
static void report_trap(struct wasm_exec *ex, struct wasm_trap *trap)
{
    sbx__wasm_exn_describe(ex);
    if (!ex->has_trap_func) {
        *trap = ex->trap;
        return;
    }
    const char *text = sbx__wasm_trap_text(ex->trap.kind);
    const struct wasm_module *m = ex->trap_inst ? ex->trap_inst->module : NULL;
    const char *name = NULL;
    if (m && m->func_names && ex->trap_func < m->func_count)
        name = m->func_names[ex->trap_func];
    trap->kind = ex->trap.kind;
    trap->exit_code = 0;
    if (name)
        snprintf(trap->message, sizeof(trap->message), "%s in %s", text, name);
    else
        snprintf(trap->message, sizeof(trap->message), "%s", text);
}

static enum wasm_trap_kind call_guest(struct wasm_exec *ex, struct wasm_func *f,
                                      const wasm_value *args, wasm_value *results)
{
    struct wasm_store *s = ex->store;
    if (!s->is_metered && sbx__wasm_tier_native(s)) { /* fuel: interpreter only */
        if (__atomic_load_n(&f->jit_entry, __ATOMIC_ACQUIRE))
            return sbx__wasm_jit_call(ex, f, args, results);
        sbx__wasm_lazy_hit(s, f, true); /* hot-only: counts the host's (or compiled code's) call */
        s->tierup.interp_fallbacks++;
    }
    bool is_timed = ex->nest == 0 && s->limits.tier == WASM_TIER_AUTO && !s->is_metered;
    const struct wasm_functype *t = f->type;
    uint32_t ps = types_slots(t->types, t->param_count);
    uint32_t rs = types_slots(t->types + t->param_count, t->result_count);
    uint64_t *fp = ex->sp;
    if ((size_t)(ex->stack_end - fp) < (ps > rs ? ps : rs)) {
        set_trap(&ex->trap, WASM_TRAP_STACK_EXHAUSTED, "call stack exhausted");
        ex->has_trap_func = false;
        return WASM_TRAP_STACK_EXHAUSTED;
    }
    pack(fp, args, t->types, t->param_count);
    if (is_timed)
        sbx__wasm_tierup_enter(s);
    ex->nest++;
    enum wasm_trap_kind tk = sbx__wasm_interp_run(ex, f, fp);
    ex->nest--;
    if (is_timed)
        sbx__wasm_tierup_leave(s);
    ex->sp = fp;
    if (tk == WASM_TRAP_NONE)
        unpack(results, fp, t->types + t->param_count, t->result_count);
    return tk;
}

/* A nested entry (a host function's or compiled code's call back in) is refused when the
 * native stack has less than NEST_RESERVE left; the first entry never is. */
static bool nest_is_too_deep(const struct wasm_exec *ex)
{
    if (ex->nest == 0)
        return false;
    uintptr_t low = sbx__wasm_thread_stack_low();
    if (!low)
        return ex->nest >= MAX_NEST_UNKNOWN;
    return (uintptr_t)__builtin_frame_address(0) < low + NEST_RESERVE;
}

sbx_err sbx__wasm_func_call(struct wasm_store *store, struct wasm_func *f, const wasm_value *args,
                            wasm_value *results, struct wasm_trap *trap)
{
    struct wasm_trap local;
    if (!trap)
        trap = &local;
    memset(trap, 0, sizeof(*trap));
    struct wasm_exec *ex;
    sbx_err rc = exec_get(store, &ex);
    if (rc != SBX_OK)
        return rc;
    enum wasm_trap_kind tk;
    if (atomic_load(&store->is_interrupted)) {
        set_trap(&ex->trap, WASM_TRAP_INTERRUPTED, "interrupted");
        ex->has_trap_func = false;
        tk = WASM_TRAP_INTERRUPTED;
    } else if (nest_is_too_deep(ex)) {
        set_trap(&ex->trap, WASM_TRAP_STACK_EXHAUSTED, "call stack exhausted");
        ex->has_trap_func = false;
        tk = WASM_TRAP_STACK_EXHAUSTED;
    } else if (f->inst == NULL) {
        ex->nest++;
        tk = invoke_host(ex, f, NULL, args, results);
        ex->nest--;
    } else {
        bool is_outermost = ex->native_top == NULL; /* the GC scans the stack up to here */
        if (is_outermost)
            ex->native_top = __builtin_frame_address(0);
        tk = call_guest(ex, f, args, results);
        if (is_outermost)
            ex->native_top = NULL;
    }
    if (tk == WASM_TRAP_NONE)
        return SBX_OK;
    report_trap(ex, trap);
    return SBX_E_WASM_TRAP;
}

uint64_t sbx__wasm_store_interp_fallbacks(const struct wasm_store *s)
{
    return s->tierup.interp_fallbacks;
}

static void host_func_free(void *p)
{
    struct wasm_func *f = p;
    sbx__wasm_rtt_release(f->rtt);
    sbx__free(f->host_type.types);
    sbx__free(f);
}

struct wasm_func *sbx__wasm_func_new_host(struct wasm_store *store,
                                          const struct wasm_functype *type, wasm_host_fn fn,
                                          void *user)
{
    struct wasm_func *f = sbx__calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    size_t n = (size_t)type->param_count + type->result_count;
    f->host_type.types = sbx__mallocn(n ? n : 1, sizeof(*f->host_type.types));
    if (!f->host_type.types) {
        sbx__free(f);
        return NULL;
    }
    if (n)
        memcpy(f->host_type.types, type->types, n * sizeof(*type->types));
    f->host_type.param_count = type->param_count;
    f->host_type.result_count = type->result_count;
    f->type = &f->host_type;
    f->rtt = sbx__wasm_rtt_of_functype(type);
    if (!f->rtt) {
        host_func_free(f);
        return NULL;
    }
    f->host_fn = fn;
    f->host_user = user;
    if (!sbx__wasm_store_own(store, f, host_func_free)) {
        host_func_free(f);
        return NULL;
    }
    return f;
}

const struct wasm_functype *sbx__wasm_func_type(const struct wasm_func *f)
{
    return f->type;
}

struct wasm_memory *sbx__wasm_call_memory(struct wasm_call *call)
{
    return call->inst ? call->inst->mem0 : NULL;
}

struct wasm_store *sbx__wasm_call_store(struct wasm_call *call)
{
    return call->exec->store;
}

void sbx__wasm_call_trap(struct wasm_call *call, enum wasm_trap_kind kind, const char *fmt, ...)
{
    struct wasm_trap *trap = &call->exec->trap;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(trap->message, sizeof(trap->message), fmt, ap);
    va_end(ap);
    trap->kind = kind;
    trap->exit_code = 0;
    call->has_trap = true;
}

void sbx__wasm_call_exit(struct wasm_call *call, int exit_code)
{
    struct wasm_trap *trap = &call->exec->trap;
    trap->kind = WASM_TRAP_EXIT;
    trap->exit_code = exit_code;
    snprintf(trap->message, sizeof(trap->message), "exit with code %d", exit_code);
    call->has_trap = true;
}

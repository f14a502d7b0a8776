/* wasm/jit/jit.h: the compiled tier as the rest of src/wasm sees it. An instance of a store
 * whose tier is compiled gets native code for every defined function at instantiation
 * (wasm_func.jit_entry); sbx__wasm_func_call() then enters it instead of the interpreter,
 * unless the store is metered (fuel runs stay in the interpreter, which counts fuel). */
#ifndef SBX_WASM_JIT_JIT_H
#define SBX_WASM_JIT_JIT_H

#include <setjmp.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "wasm/wasm.h"

struct wasm_exec;
struct wasm_load_guard;
struct wasm_lazy_item;
struct wasm_code;

struct sbx__jit_code;
struct sbx__jit_image_entry;

/* A store's compiled-tier state: the mappings that hold its instances' code (link.h), and the
 * current entry from the host (traps longjmp there; compiled code has no cleanups to skip). */
struct wasm_jit_store {
    struct wasm_store *store;
    struct sbx__jit_code *code;          /* freed with the store */
    struct sbx__jit_image_entry *images; /* per module compiled in this store (image.c) */
    struct sbx__jit_hot *hot;            /* per module: its hot-only batches (cache_hot.c) */
    jmp_buf *top;                        /* innermost entry, NULL outside compiled code */
    uintptr_t stack_limit;               /* compiled code traps "call stack exhausted" below it */
    /* Guarded code (fault.c): the function index a memory fault is reported in, written at the
     * entry of each function that accesses memory and again after each of its calls. */
    uint32_t fault_func;
};

/* What ends a compile at its next function or phase (each may be NULL): the store's tier-up
 * cancel (its destruction), its interrupt flag (the watchdog's timeout or an abort of the call
 * that instantiates, compiled tier) and the guard of the run that instantiates (its deadline
 * and stop flag, as they bound loading). A phase of LLVM (a part's pass pipeline or code
 * generation) cannot be stopped midway; parts are kept small for that (engine.c). */
struct sbx__jit_stop {
    const atomic_bool *cancel;
    const atomic_bool *interrupt;
    const struct wasm_load_guard *guard;
};
/* SBX_OK, or why stop (may be NULL) ends the compile now: SBX_E_TIMEOUT past the guard's
 * deadline, the guard's stop code, or SBX_E_ABORTED (cancel, interrupt). */
sbx_err sbx__jit_stop_check(const struct sbx__jit_stop *stop);

/* Compiles inst's module (image.h) and links its code for inst, setting the jit_entry of its
 * functions (all but those over the compile-cost bound, level.h: they stay interpreted). A
 * compiled-tier store's compile also ends at its interrupt and at guard (may be NULL). Returns
 * SBX_OK, SBX_E_UNAVAILABLE (libLLVM-16 missing, or the module uses a feature this tier does
 * not compile yet: err names it), SBX_E_ABORTED or SBX_E_TIMEOUT (sbx__jit_stop_check) or
 * SBX_E_NOMEM. */
sbx_err sbx__wasm_jit_instance(struct wasm_instance *inst, const struct wasm_load_guard *guard,
                               char *err, size_t errlen);

/* One relocatable object (ELF64 x86-64) of a compiled module. */
struct sbx__jit_obj {
    uint8_t *bytes;
    size_t len;
};

/* The most objects (parts) of one image. */
#define SBX__JIT_MAX_PARTS 64u

/* engine.c: compiles m to objects, one per part (engine.c says how a module is split; parts
 * run on two threads); defined function i is sbx_f<i>, its slot-ABI wrapper sbx_w<i>
 * (sbx__jit_wrapper_name). A function over the compile-cost bound (sbx__jit_func_fits) gets
 * no wrapper and a sbx_f<i> that calls the interpreter through the runtime. is_guarded:
 * memory accesses have no bounds checks and rely on the guard region (only for instances
 * whose memory is guarded: image.c checks it at link). */
sbx_err sbx__jit_compile(const struct wasm_module *m, bool is_guarded,
                         const struct sbx__jit_stop *stop, struct sbx__jit_obj objs[],
                         uint32_t *nobjs, char *err, size_t errlen);
/* The same for the defined functions i with only[i] set: with only_level NULL a hot-only batch
 * (one object, at sbx__jit_level_of_batch), else a hot set at only_level, in parts, whose
 * functions call each other directly: calls to the others, and call_indirect, go through the
 * runtime (sbx__jit_rt_call). Only functions with only[i] == SBX__JIT_ONLY_OSR get OSR entries. */
#define SBX__JIT_ONLY_FUNC 1
#define SBX__JIT_ONLY_OSR  2
struct sbx__jit_level;
sbx_err sbx__jit_compile_set(const struct wasm_module *m, bool is_guarded, const uint8_t *only,
                             const struct sbx__jit_level *only_level,
                             const struct sbx__jit_stop *stop, struct sbx__jit_obj objs[],
                             uint32_t *nobjs, char *err, size_t errlen);
void sbx__jit_objs_free(struct sbx__jit_obj *objs, uint32_t n);
void sbx__jit_wrapper_name(char *buf, size_t len, uint32_t def_idx);

/* Runs f's native code with args; results written on success. Returns WASM_TRAP_NONE or the
 * trap kind with ex->trap (and its "in <func>" facts) filled as the interpreter fills them. */
enum wasm_trap_kind sbx__wasm_jit_call(struct wasm_exec *ex, struct wasm_func *f,
                                       const wasm_value *args, wasm_value *results);

/* Runs the native code of the function code belongs to (in inst) on the interpreter's slots, a
 * call inside the interpreter once the store's tier-up has finished: false (nothing run) when
 * it has none. *tk is the trap kind, its record filled as for sbx__wasm_jit_call(). */
bool sbx__wasm_jit_call_code(struct wasm_exec *ex, struct wasm_instance *inst,
                             const struct wasm_code *code, uint64_t *slots,
                             enum wasm_trap_kind *tk);

/* Runs the OSR entry of code's function (in inst) for its loop-th loop on slots (emit.h), from
 * a back-edge of the interpreter: false (nothing run) when it has none. *tk as above. */
bool sbx__wasm_jit_osr(struct wasm_exec *ex, struct wasm_instance *inst,
                       const struct wasm_code *code, uint64_t *slots, uint32_t loop,
                       enum wasm_trap_kind *tk);

/* Whether code's function (in inst) has an OSR entry; when not, a hot-only store counts the
 * back-edge (sbx__wasm_lazy_hit). */
bool sbx__wasm_jit_has_osr(struct wasm_store *s, struct wasm_instance *inst,
                           const struct wasm_code *code);

/* lazy.c: hot-only tier-up. hit counts an interpreted call (is_call) or back-edge of f (a
 * no-op unless s is LAZY) and queues f for the worker once it is hot; the store's thread only. */
void sbx__wasm_lazy_hit(struct wasm_store *s, struct wasm_func *f, bool is_call);
/* wasm_func.hits of a function handed to the worker: nothing counts for it any more. */
#define SBX__WASM_LAZY_QUEUED UINT32_MAX
/* Whether s compiles only hot functions (its limits and the size of its modules). */
bool sbx__wasm_lazy_wants(const struct wasm_store *s);
/* Counts n back-edges of f that ran in baseline code (base/base.h) but the last, which its
 * back-edge path then counts. */
void sbx__wasm_lazy_credit(struct wasm_store *s, struct wasm_func *f, uint32_t n);
/* The worker's side (tierup.c, without its lock): compiles the n functions of items (of one
 * instance) and publishes their entries; false when nothing was (no LLVM, cancelled, or a
 * function the tier does not compile: those stay interpreted). */
bool sbx__wasm_lazy_compile(struct wasm_store *s, const struct wasm_lazy_item *items, uint32_t n);
/* tierup.c: hands def of inst to the worker (under its lock). */
void sbx__wasm_tierup_queue(struct wasm_store *s, struct wasm_instance *inst, uint32_t def,
                            bool wants_osr, bool is_one_call);
/* For tests: how many functions of s got native code from hot-only batches, in how many, and
 * how many of those functions at the hot-set level. */
uint32_t sbx__wasm_store_lazy_compiled(struct wasm_store *s);
uint32_t sbx__wasm_store_lazy_batches(struct wasm_store *s);
uint32_t sbx__wasm_store_lazy_hot_level(struct wasm_store *s);

/* tierup.c: AUTO stores. enter/leave bracket an outermost interpreted call from the host (the
 * first enter arms the store); cancel, at store destruction, forgets the store and waits for
 * a compile of it in flight (stopped at its next function). */
void sbx__wasm_tierup_enter(struct wasm_store *s);
void sbx__wasm_tierup_leave(struct wasm_store *s);
void sbx__wasm_tierup_cancel(struct wasm_store *s);
/* From now on no compile starts; a compile in flight stops at its next function or phase and
 * is waited for, bounded, as is a load in flight (sbx__jit_quiesce). sbx_shutdown() and the
 * coverage build's exit quiesce call it before exit(): a compile or load running under exit()
 * crashes the process (docs/wasm.md, "Exit"). */
void sbx__wasm_tierup_stop(void);
/* True when calls of s may run native code: COMPILED, or AUTO after its tier-up. */
bool sbx__wasm_tier_native(struct wasm_store *s);
/* For tests and benchmarks: enum wasm_tierup_state (runtime.h), and how many times compiled
 * code was entered (from the host, from the interpreter's calls or its back-edges). */
unsigned sbx__wasm_store_tierup_state(struct wasm_store *s);
uint64_t sbx__wasm_store_native_entries(const struct wasm_store *s);
/* Of those, how many moved an interpreted frame at a loop back-edge (OSR). */
uint64_t sbx__wasm_store_osr_entries(const struct wasm_store *s);
/* rt.c: the lowest address of this thread's stack (asked once per thread), 0 when unknown. */
uintptr_t sbx__wasm_thread_stack_low(void);
/* How many calls of s ran in the interpreter although its calls may run native code (a
 * function not compiled: over the compile-cost bound, not in a hot-only batch yet); its
 * tests assert 0 where every function must be native (interp_call.c). */
uint64_t sbx__wasm_store_interp_fallbacks(const struct wasm_store *s);

/* fault.c: installs the SIGSEGV/SIGBUS handler that turns a fault of guarded compiled code
 * inside its memory's guard region into the trap "out of bounds memory access", and chains
 * every other fault to the handler installed before it. Once per process; thread-safe. */
void sbx__jit_fault_install(void);
/* running.c: the store whose compiled code this thread runs (rt.c's entry pushes it; *prev
 * gets the one it nests in, restored by pop), readable in a signal handler (get). push is
 * false when out of memory (the entry must not run). */
bool sbx__jit_running_push(struct wasm_jit_store *js, struct wasm_jit_store **prev);
void sbx__jit_running_pop(struct wasm_jit_store *prev);
struct wasm_jit_store *sbx__jit_running_get(void);

/* Whether libLLVM-16 has been loaded in this process (llvm_api.c; never loads it). */
bool sbx__jit_llvm_is_loaded(void);

/* quiesce.c: every use of LLVM (the load, a compile) is bracketed by use_begin/use_end;
 * begin is false once the process stops using LLVM. quiesce stops new uses (compiles in flight
 * stop at their next function or phase: is_stopped) and waits, bounded, for those in flight
 * (a load to its end); true when none is left. exit_hook registers an atexit() that does the
 * same but never waits for a load (docs/wasm.md, "Exit"): before the load, after it and after
 * the first compile, so that it is newer than most of LLVM's destructors. */
bool sbx__jit_use_begin(bool is_load);
void sbx__jit_use_end(bool is_load);
bool sbx__jit_is_stopped(void);
bool sbx__jit_quiesce(void);
void sbx__jit_exit_hook(void);
/* Tests only (test_tierup.c defines it; NULL in the library): called inside the load right
 * after dlopen (where 0), at the start of a compile (where 1), to pause a use in flight, and
 * at each of a compile's cancellation checks before it reads the flag (where 2, engine.c), at
 * the start of a store's first look in the caches (where 3, tierup.c, no lock held). */
__attribute__((weak, visibility("hidden"))) void sbx__jit_test_pause(int where);
/* test_env.c: the same pause inside the load, asked for by the environment (the bindings'
 * tests: SBX_TEST_PAUSE_LLVM_LOAD=MS:PATH); a no-op without it. */
void sbx__jit_env_pause_load(void);

/* Frees the store's compiled code. Accepts NULL. */
void sbx__wasm_jit_store_free(struct wasm_jit_store *js);

#endif

/* js/engine.h: one JavaScript evaluation on the calling thread, in a fresh SpiderMonkey global
 * (realm) on the thread's own context. The C seam in front of the C++ adapter (engine.cpp,
 * runtime.cpp, console.cpp). Never blocks except in guest code; stops soon after *stop is set
 * or deadline_ns passes. */
#ifndef SBX_JS_ENGINE_H
#define SBX_JS_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#include <atomic>
typedef std::atomic<int> sbx__js_atomic_int; /* the same object as C's _Atomic int */
extern "C" {
#include <sbx/sandbox.h>

#include "util/buf.h"
#else
#include <sbx/sandbox.h>

#include "util/buf.h"

#include <stdatomic.h>
typedef _Atomic int sbx__js_atomic_int;
#endif

struct sbx__js_eval_in {
    const char *code; /* body of function (context); UTF-8 */
    size_t code_len;
    const char *context_json; /* JSON text, NULL for null */
    size_t context_len;
    uint64_t memory_bytes;     /* cap on what the guest allocates (GC heap, buffers) */
    uint64_t max_output_bytes; /* per console stream */
    uint64_t deadline_ns;      /* sbx__now_ns() clock; 0 = none */
    bool jit;                  /* policy.js.jit; must match the process's engine (sm_jit_mode) */
    char tz[65];               /* the policy's env TZ, "" = UTC */
    /* Scripts run in the realm before the body (sbx_sandbox_preload), held by the caller. */
    struct sbx__js_script *const *preloads;
    size_t preload_count;
    char locale[36];          /* BCP 47 tag from the policy's env LC_ALL/LC_MESSAGES/LANG, "" */
    sbx__js_atomic_int *stop; /* another thread stores SBX_E_TIMEOUT or SBX_E_ABORTED; or NULL */
    /* Called once *out is final, before the realm is collected (which takes a while for a big
     * heap), so a waiter can take the result early; sbx__js_eval touches *out no more after it. */
    void (*on_done)(void *arg);
    void *on_done_arg;
    /* sbx_run_input.on_output: a worker job (worker.c) taps its console buffers with it, which
     * console.cpp flushes once per console call; sbx__js_eval itself does not look at it. */
    sbx_output_fn on_output;
    void *on_output_user;
};

struct sbx__js_eval_out {
    sbx_err error;          /* SBX_OK if the code returned and its value encoded */
    sbx_limit limit;        /* SBX_LIMIT_TIMEOUT / _MEMORY when one ended the run */
    char *message;          /* one line (UTF-8) when error != SBX_OK */
    char *value_json;       /* UTF-8 JSON of the return value when error == SBX_OK */
    char *stack;            /* the guest's stack when it threw, or NULL */
    struct sbx__buf out;    /* console.log/info/debug */
    struct sbx__buf err;    /* console.error/warn */
    size_t heap_peak_bytes; /* the context's GC heap when the run ended */
};

/* For tests only: engines started from now on ignore stops and deadlines for their first ms
 * milliseconds, like an engine stuck in a native call; 0 turns it off. */
void sbx__js_test_deaf_ms(unsigned ms);

/* Whether a run stuck in the engine is throttled by the engine's watchdog (it is unless the host
 * handles the signal it would use); otherwise the pool lowers an abandoned thread's priority. */
bool sbx__js_can_throttle(void);

/* Fixes the process's JIT mode (policy.js.jit) to jit unless a run already did. */
void sbx__js_claim_jit(bool jit);

/* A script compiled once per process and run in many realms (js/script.cpp): created with one
 * reference (NULL on NOMEM; name and source copied), shared by sbx__js_script_ref. Releasing
 * the last reference frees it; a released script's cached copies leave each thread's cache at
 * that thread's next run. Thread-safe. */
struct sbx__js_script;
struct sbx__js_script *sbx__js_script_new(const char *name, const char *source, size_t len);
void sbx__js_script_ref(struct sbx__js_script *s);
void sbx__js_script_release(struct sbx__js_script *s);

/* Zeroes out and sets the console caps. */
void sbx__js_eval_out_init(struct sbx__js_eval_out *out, uint64_t max_output_bytes);
void sbx__js_eval_out_free(struct sbx__js_eval_out *out);

/* A ticket for one run on the thread that created it (whose context then exists). */
struct sbx__js_engine;

/* Starts the calling thread's engine context ahead of a run, so the run does not wait for it.
 * Returns NULL when the engine cannot start. */
struct sbx__js_engine *sbx__js_engine_create(void);

/* Frees an engine that will not run. Accepts NULL. */
void sbx__js_engine_destroy(struct sbx__js_engine *e);

/* Runs in on e exactly as sbx__js_eval does, then frees e. Must be called on e's thread; a NULL
 * e reports NOMEM. */
void sbx__js_engine_run(struct sbx__js_engine *e, const struct sbx__js_eval_in *in,
                        struct sbx__js_eval_out *out);

/* Runs in->code with `context` bound to the parsed in->context_json and fills *out (initialised
 * by the caller). Guest failures, limits and engine fatal errors all end up in out->error; the
 * host is never aborted. An invalid context gives SBX_E_INVALID_ARGUMENT. */
void sbx__js_eval(const struct sbx__js_eval_in *in, struct sbx__js_eval_out *out);

#ifdef __cplusplus
}
#endif

#endif

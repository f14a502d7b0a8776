/* sbx/wasm.h: the WebAssembly plugin host (docs/wasm-plugins.md). A handle holds one module
 * instance with WASI preview1 and the capability imports the policy grants; it runs a command
 * (_start) or serves a reactor (_initialize once, then exported calls with typed values). */
#ifndef SBX_WASM_H
#define SBX_WASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "policy.h"
#include "sandbox.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbx_wasm_sandbox sbx_wasm_sandbox;
typedef struct sbx_wasm_completion sbx_wasm_completion;

typedef enum sbx_wasm_valtype {
    SBX_WASM_I32 = 0,
    SBX_WASM_I64 = 1,
    SBX_WASM_F32 = 2,
    SBX_WASM_F64 = 3,
} sbx_wasm_valtype;

/* A typed value crossing the guest boundary (arguments, results, host function values). */
typedef struct sbx_wasm_value {
    sbx_wasm_valtype type;
    union {
        int32_t i32;
        int64_t i64;
        float f32;
        double f64;
    } of;
} sbx_wasm_value;

/* What a denied capability import returns to the guest in every i32/i64 result (minus WASI's
 * ENOTCAPABLE); float results get 0. Functions without results just return. */
#define SBX_WASM_DENIED (-76)

/* A host function the embedder offers as a capability. It is called on the guest's thread with
 * the guest's arguments (arg_count values typed as the signature says) and must finish c
 * exactly once, with sbx_wasm_completion_finish() or sbx_wasm_completion_fail(), either before
 * it returns or later from any thread (asynchronous completion). The guest's call blocks until
 * then, or until the timeout or an abort ends the run; finishing after that is harmless. */
typedef void (*sbx_wasm_host_fn)(void *user, const sbx_wasm_value *args, size_t arg_count,
                                 sbx_wasm_completion *c);

typedef struct sbx_wasm_host_func {
    const char *name;      /* "module.name": the import it satisfies, the policy's key */
    const char *signature; /* "(i32, i64) -> i32"; "() -> ()" for none */
    sbx_wasm_host_fn fn;
    void *user; /* passed to fn; must outlive the sandbox */
} sbx_wasm_host_func;

/* Options of sbx_wasm_sandbox_create(). Zero-initialise, set size = sizeof(sbx_wasm_options),
 * then set what you need; every pointer is borrowed for the create call (copied). */
typedef struct sbx_wasm_options {
    size_t size;
    const char *const *argv;   /* NULL-terminated guest argv, argv[0] = program name; NULL = none */
    const uint8_t *stdin_data; /* the guest's stdin (captured mode); NULL = empty */
    size_t stdin_len;
    /* true: guest stdio is the caller's fds 0-2; false: stdin from stdin_data, stdout and
     * stderr captured into the result, capped at the policy's maxOutputBytes. */
    bool inherit_stdio;
    const sbx_wasm_host_func *host_funcs; /* capability imports the embedder offers */
    size_t host_func_count;
    /* false (default): an import the policy does not allow links a stub that returns
     * SBX_WASM_DENIED and counts the denial each time it is called, so a plugin can probe for
     * an optional capability and degrade. true: create fails with
     * SBX_E_WASM_PERMISSION_DENIED instead, so a plugin that asks for more than it is granted
     * never runs at all. */
    bool deny_at_create;
    /* Optional: captured output chunks as the guest writes them, during every run and call of
     * the sandbox (see sbx_output_fn in sandbox.h); ignored with inherit_stdio. */
    sbx_output_fn on_output;
    void *on_output_user;
} sbx_wasm_options;

/* Loads, validates and instantiates a module (len bytes, copied) under policy (copied) and runs
 * its _initialize export, if any. options may be NULL (defaults). On failure *out is NULL and
 * err (if errlen > 0) holds one line: SBX_E_WASM_INVALID_MODULE, SBX_E_WASM_LINK (an import
 * nobody serves, or a signature mismatch), SBX_E_WASM_PERMISSION_DENIED (deny_at_create),
 * SBX_E_WASM_INSTANTIATE (a segment out of bounds), SBX_E_MEMORY_LIMIT (initial memory above
 * memoryBytes), the outcome of a start function or _initialize that did not finish
 * (SBX_E_WASM_TRAP, SBX_E_TIMEOUT, SBX_E_WASM_FUEL_EXHAUSTED, SBX_E_EXECUTION_FAILED),
 * SBX_E_INVALID_OPTIONS (bad signature string, unopenable fs grant), SBX_E_UNAVAILABLE
 * (cpuPercent < 100 and the throttle signal is taken), SBX_E_INVALID_ARGUMENT, SBX_E_NOMEM. */
SBX_API sbx_err sbx_wasm_sandbox_create(const uint8_t *bytes, size_t len, const sbx_policy *policy,
                                        const sbx_wasm_options *options, sbx_wasm_sandbox **out,
                                        char *err, size_t errlen);

/* Runs the command's _start under the policy's limits and fills *out (free it with
 * sbx_result_free()): exit_code (proc_exit's, 0 when _start returns), captured output, and
 * error/limit when the guest trapped (SBX_E_WASM_TRAP with the trap message), ran out of time
 * (SBX_E_TIMEOUT), fuel (SBX_E_WASM_FUEL_EXHAUSTED), was aborted (SBX_E_ABORTED) or exited
 * non-zero (SBX_E_EXECUTION_FAILED). Returns SBX_OK when the guest ran; SBX_E_WASM_DISPOSED
 * after dispose, SBX_E_WASM_NO_EXPORT without _start (and *out says the same). */
SBX_API sbx_err sbx_wasm_sandbox_run(sbx_wasm_sandbox *sb, sbx_result *out);

/* Calls the exported function name with args (typed as its signature) and stores up to
 * result_count results in results, under the policy's time and fuel limits per call. Output
 * captured during the call is in *out. Returns as sbx_wasm_sandbox_run() does, plus
 * SBX_E_INVALID_ARGUMENT when the values do not match the export's signature. results are set
 * only when out->ok. The instance survives a trap: later calls see its memory as it was. */
SBX_API sbx_err sbx_wasm_sandbox_call(sbx_wasm_sandbox *sb, const char *name,
                                      const sbx_wasm_value *args, size_t arg_count,
                                      sbx_wasm_value *results, size_t result_count,
                                      sbx_result *out);

/* Describes the exported function name: writes up to cap parameter and result types and sets
 * the full counts. Returns SBX_OK, SBX_E_WASM_NO_EXPORT, SBX_E_WASM_DISPOSED,
 * SBX_E_INVALID_ARGUMENT (a type outside i32/i64/f32/f64, or NULL arguments). */
SBX_API sbx_err sbx_wasm_sandbox_export_type(const sbx_wasm_sandbox *sb, const char *name,
                                             sbx_wasm_valtype *params, size_t *param_count,
                                             sbx_wasm_valtype *results, size_t *result_count,
                                             size_t cap);

/* Makes the run or call in progress end with SBX_E_ABORTED within about 1 ms, including one
 * blocked on an asynchronous host function. With none in progress the abort is remembered, and
 * the next run or call ends at once with SBX_E_ABORTED. Safe from any thread. */
SBX_API void sbx_wasm_sandbox_abort(sbx_wasm_sandbox *sb);

/* Forgets an abort remembered while no run or call was in progress (see
 * sbx_sandbox_clear_abort()). Safe from any thread. */
SBX_API void sbx_wasm_sandbox_clear_abort(sbx_wasm_sandbox *sb);

/* Frees the instance, its memory and its WASI fds. Idempotent; later runs and calls return
 * SBX_E_WASM_DISPOSED. Must not race a run on the same handle (abort it first). */
SBX_API void sbx_wasm_sandbox_dispose(sbx_wasm_sandbox *sb);

/* Disposes (if needed) and frees the handle. Accepts NULL. */
SBX_API void sbx_wasm_sandbox_destroy(sbx_wasm_sandbox *sb);

/* Returns how many denials the handle has counted (WASI and capability imports). */
SBX_API uint64_t sbx_wasm_sandbox_denied_count(const sbx_wasm_sandbox *sb);

/* Completes a host call with result_count values typed as the signature's results. Returns
 * SBX_OK; SBX_E_INVALID_ARGUMENT (count or types wrong: the guest then traps) ; SBX_E_ABORTED
 * when the guest stopped waiting (timeout, abort), in which case c is simply released. Safe
 * from any thread; c is invalid afterwards. */
SBX_API sbx_err sbx_wasm_completion_finish(sbx_wasm_completion *c, const sbx_wasm_value *results,
                                           size_t result_count);

/* Completes a host call with a failure: the guest traps with SBX_E_WASM_TRAP and message.
 * Same threading and lifetime rules as sbx_wasm_completion_finish(). */
SBX_API sbx_err sbx_wasm_completion_fail(sbx_wasm_completion *c, const char *message);

/* Copies guest memory [gaddr, gaddr + len) into buf (read) or buf into it (write) while the
 * guest waits for c. Returns SBX_OK, SBX_E_INVALID_ARGUMENT when the range is outside linear
 * memory, SBX_E_ABORTED when the guest no longer waits. Safe from any thread. */
SBX_API sbx_err sbx_wasm_completion_read(sbx_wasm_completion *c, uint32_t gaddr, void *buf,
                                         size_t len);
SBX_API sbx_err sbx_wasm_completion_write(sbx_wasm_completion *c, uint32_t gaddr, const void *buf,
                                          size_t len);

/* ---- conformance harness ------------------------------------------------------------------ */

/* One probe: a module that tries one capability under the policy. */
typedef struct sbx_wasm_conformance_case {
    char name[48];       /* "fs.read", "fs.escape.dotdot", "net.connect", "cap.<module.name>" */
    bool expect_allowed; /* what the policy says */
    bool was_allowed;    /* what the guest observed */
    bool passed;         /* the policy was enforced: observed == expected (escapes: denied) */
    char detail[160];    /* what the guest saw, e.g. "path_open -> errno 76 (ENOTCAPABLE)" */
} sbx_wasm_conformance_case;

typedef struct sbx_wasm_conformance_report {
    sbx_wasm_conformance_case *cases;
    size_t case_count;
    size_t passed_count;
} sbx_wasm_conformance_report;

/* Runs the battery of probe modules (fs read, write, create, escape by ".." and by symlink,
 * outbound connect, env, args, clock, random, and capability imports: each one the policy
 * names plus an unlisted one) under policy. Filesystem probes run against a scratch directory
 * mapped at the guest path of the policy's first fs grant with that grant's mode (so no user
 * file is read or written); connect targets a loopback listener the harness opens. Returns
 * SBX_OK with *report filled (free it with sbx_wasm_conformance_free()) even when probes fail;
 * SBX_E_IO (scratch setup), SBX_E_NOMEM, SBX_E_INVALID_ARGUMENT otherwise. */
SBX_API sbx_err sbx_wasm_run_conformance(const sbx_policy *policy,
                                         sbx_wasm_conformance_report *report);

/* Frees what the report owns and zeroes it. Accepts NULL. */
SBX_API void sbx_wasm_conformance_free(sbx_wasm_conformance_report *report);

/* Compiles a module (len bytes, borrowed) for the compiled tier into the on-disk cache
 * (docs/wasm.md, "Cache"), so that a later run under policy.wasm.cache instantiates it
 * without LLVM. Writes the entry's path to path (pathlen bytes) and sets *was_cached when a
 * valid entry was already there (nothing compiled). Returns SBX_OK; SBX_E_WASM_INVALID_MODULE;
 * SBX_E_UNAVAILABLE (the cache directory is refused, libLLVM-16 is missing, or the module uses
 * a feature the tier does not compile); SBX_E_IO (the entry could not be written);
 * SBX_E_NOMEM; SBX_E_INVALID_ARGUMENT. err (if errlen > 0) gets one line. */
SBX_API sbx_err sbx_wasm_compile(const uint8_t *bytes, size_t len, char *path, size_t pathlen,
                                 bool *was_cached, char *err, size_t errlen);

/* The default path keeps the functions that got hot in a run, compiled cheaply as they got
 * hot, for the module's later runs (docs/wasm.md, "Kept batches"). Their upgrade recompiles
 * them as one unit at a higher level and replaces the kept code: off any run's clock, once the
 * runs that kept them have spent at least its estimated CPU. sbx_wasm_hot_due says whether a
 * sandbox of this process, since destroyed, left the module (its bytes) due for it: `sbx wasm`
 * then starts `sbx compile --hot` in the background at idle priority. sbx_wasm_compile_hot
 * does it when due (*did), holding the cache directory's upgrade lock (held by another process:
 * nothing done); err (if errlen > 0) gets one line saying what was done or why nothing was.
 * Returns SBX_OK (done or not due); SBX_E_WASM_INVALID_MODULE; SBX_E_UNAVAILABLE (the cache
 * directory is refused, no libLLVM-16); SBX_E_IO; SBX_E_NOMEM; SBX_E_INVALID_ARGUMENT. */
SBX_API bool sbx_wasm_hot_due(const uint8_t *bytes, size_t len);
SBX_API sbx_err sbx_wasm_compile_hot(const uint8_t *bytes, size_t len, char *path, size_t pathlen,
                                     bool *did, char *err, size_t errlen);

/* Opens (creating it 0700) the cache directory the compiled tier uses: $SBX_CACHE_DIR, else
 * $XDG_CACHE_HOME/sbx, else ~/.cache/sbx. Returns SBX_OK with its path in path, or
 * SBX_E_UNAVAILABLE with one line in err saying why it is refused (a symlink, another owner,
 * writable by group or others): runs then compile without the cache. */
SBX_API sbx_err sbx_wasm_cache_check(char *path, size_t pathlen, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif

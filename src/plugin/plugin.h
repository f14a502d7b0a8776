/* plugin/plugin.h: the wasm plugin host's private pieces (sandbox handle, watchdog, capability
 * imports, completions, the probe encoder). Only src/plugin/ includes this. */
#ifndef SBX_PLUGIN_PLUGIN_H
#define SBX_PLUGIN_PLUGIN_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <sbx/wasm.h>

#include "core/abort.h"
#include "core/policy.h"
#include "util/buf.h"
#include "wasm/wasm.h"

struct sbx__wasi;

/* ---- watchdog.c: timeout and cpuPercent for one run ------------------------------------- */

/* Per-handle throttle state. A signal handler reads it (through the signal's sival_ptr), so it
 * lives as long as the handle and only holds lock-free atomics. */
struct sbx__throttle {
    uint32_t magic;
    _Atomic uint64_t pause_until_ns; /* the handler sleeps until then (CLOCK_MONOTONIC) */
    atomic_bool is_pausing;
    /* The guest thread runs the embedder's host function: never pause it there (it may hold
     * the embedder's locks), and its time is the embedder's, not the guest's. */
    atomic_bool is_host_call;
    _Atomic uint64_t host_cpu_ns; /* CPU time spent in host functions during this call */
    atomic_int *stop_reason;      /* the handle's: a non-zero value ends a pause at once */
    _Atomic uint64_t paused_ns;   /* total pause time, for tests and telemetry */
};

struct sbx__watchdog {
    pthread_t thread; /* started on the first call, joined by destroy */
    pthread_mutex_t mu;
    pthread_cond_t cond;
    bool is_started, is_armed, is_exiting; /* under mu (is_started: guest thread only) */
    uint64_t start_ns, deadline_ns;
    uint64_t wait_until_ns; /* when the thread's current wait ends; 0 = idle, untimed */
    uint32_t cpu_percent;
    pthread_t guest;
    clockid_t guest_clock;
    sigset_t saved_mask; /* the guest thread's mask before arm */
    struct sbx__throttle *throttle;
    /* Called from the watchdog thread, under mu, when an armed deadline passes. */
    void (*on_timeout)(void *user);
    void *user;
    struct sbx__watchdog *cov_next; /* coverage builds: the live watchdogs (watchdog.c) */
};

/* Checks that the throttle signal can be used (installs its handler once). SBX_OK or
 * SBX_E_UNAVAILABLE when the embedder already handles the signal. */
sbx_err sbx__plugin_throttle_init(void);
/* Watches the calling thread for one call: timeout_ms from now, throttled to cpu_percent when
 * below 100. Starts the watchdog thread on first use. */
sbx_err sbx__plugin_watchdog_arm(struct sbx__watchdog *wd, uint32_t timeout_ms,
                                 uint32_t cpu_percent, struct sbx__throttle *throttle);
/* Ends the call's watch: no timeout fires after this returns, and a throttle signal still
 * pending has run, so the handler never sees the state later. Call on the guest thread. */
void sbx__plugin_watchdog_disarm(struct sbx__watchdog *wd);
/* Stops and joins the watchdog thread. Accepts a never-armed watchdog. */
void sbx__plugin_watchdog_destroy(struct sbx__watchdog *wd);

/* ---- caps.c: capability imports ------------------------------------------------------------ */

struct sbx__cap_func {
    char *name; /* "module.name" */
    struct wasm_functype type;
    sbx_wasm_host_fn fn;
    void *user;
    bool is_allowed;
    struct sbx_wasm_sandbox *sb;
};

/* A stub for a denied import, typed from the module's import. */
struct sbx__cap_stub {
    char *name;
    const struct wasm_functype *type;
    struct sbx_wasm_sandbox *sb;
};

struct sbx__caps {
    struct sbx__cap_func *funcs;
    size_t func_count;
    struct sbx__cap_stub *stubs; /* one per import of the module (only denied ones are set) */
    size_t stub_count;
    struct sbx_wasm_sandbox *sb;
    const struct sbx_policy *policy; /* the handle's reference to the caller's */
};

/* Parses "(i32, i64) -> (f64)" into *out (types owned by out). false if malformed. */
bool sbx__plugin_parse_signature(const char *sig, struct wasm_functype *out);
/* Copies the embedder's functions and decides allow/deny for each from policy. On failure
 * writes err. SBX_E_INVALID_OPTIONS (bad name or signature, duplicate), SBX_E_NOMEM. */
sbx_err sbx__plugin_caps_init(struct sbx__caps *caps, struct sbx_wasm_sandbox *sb,
                              const struct sbx_policy *policy, const sbx_wasm_options *opt,
                              const struct wasm_module *m, char *err, size_t errlen);
/* Returns the first non-WASI function import the policy denies, or NULL. */
const struct wasm_import *sbx__plugin_caps_first_denied(const struct sbx__caps *caps,
                                                        const struct sbx_policy *policy,
                                                        const struct wasm_module *m);
/* Resolves a non-WASI import: an allowed, registered function, or a deny stub. false for an
 * allowed name nobody registered, and for non-function imports. */
bool sbx__plugin_caps_resolve(struct sbx__caps *caps, struct wasm_store *store,
                              const struct wasm_module *m, const struct wasm_import *imp,
                              struct wasm_extern *out);
void sbx__plugin_caps_free(struct sbx__caps *caps);
/* Formats "module.name" of an import into buf. */
void sbx__plugin_import_name(const struct wasm_import *imp, char *buf, size_t len);

/* ---- completion.c -------------------------------------------------------------------------- */

/* Calls a host function and waits for its completion, the stop reason, or the deadline.
 * Returns 0 with results set, or -1 after recording a trap on call. */
int sbx__plugin_call_host(struct sbx__cap_func *f, struct wasm_call *call, const wasm_value *args,
                          wasm_value *results);
/* Wakes the call blocked on a completion, if any (abort, timeout). Any thread. */
void sbx__plugin_wake_pending(struct sbx_wasm_sandbox *sb);
/* Converts between the engine's raw values and the public typed ones. */
void sbx__plugin_to_public(wasm_vtype type, wasm_value v, sbx_wasm_value *out);
bool sbx__plugin_from_public(wasm_vtype type, const sbx_wasm_value *v, wasm_value *out);

/* ---- sandbox.c ------------------------------------------------------------------------------- */

struct sbx_wasm_sandbox {
    struct sbx_policy *policy;
    struct wasm_module *module;
    struct wasm_store *store;
    struct sbx__wasi *wasi;
    struct wasm_instance *inst;
    struct sbx__caps caps;
    struct sbx__buf out_buf, err_buf;
    bool inherit_stdio;
    sbx_output_fn on_output; /* options.on_output: the buffers' tap */
    void *on_output_user;
    bool is_disposed;
    bool emit_span;          /* false when core's sbx_sandbox_run already made the span */
    atomic_int stop_reason;  /* SBX_OK, or SBX_E_TIMEOUT / SBX_E_ABORTED for the current call */
    struct sbx__abort abort; /* the call abort reaches, or a pending abort (core/abort.h) */
    /* core's run->interrupt_reason when run by the backend: an abort that core delivered just
     * before this call started is seen by begin_call (see sbx__plugin_begin_call). */
    const atomic_int *external_reason;
    _Atomic uint64_t denied;
    uint64_t deadline_ns;       /* of the current call, for waits on completions */
    uint64_t run_deadline_ns;   /* sbx_sandbox_run's: no call outlives it; 0 = none */
    pthread_mutex_t pending_mu; /* guards pending */
    struct sbx_wasm_completion *pending;
    struct sbx__watchdog watchdog;
    struct sbx__throttle throttle;
};

/* Counts one denial (handle counter + plugin.permission_denied_total). Any thread. */
void sbx__plugin_denied(struct sbx_wasm_sandbox *sb, const char *capability);
/* Arms the watchdog and clears the stop state for one call into the guest; end_call disarms. */
sbx_err sbx__plugin_begin_call(struct sbx_wasm_sandbox *sb);
void sbx__plugin_end_call(struct sbx_wasm_sandbox *sb);
/* Fills out from a finished call (rc and trap from the engine): error, limit, exit code. */
void sbx__plugin_set_outcome(struct sbx_wasm_sandbox *sb, sbx_err rc, const struct wasm_trap *trap,
                             sbx_result *out);
/* Creates a handle, with or without telemetry spans for its runs (the backend makes its own).
 * Loading stops at guard's deadline or stop flag (NULL: the policy's timeout from now), and
 * create then fails with SBX_E_TIMEOUT or SBX_E_ABORTED. */
sbx_err sbx__plugin_create(const uint8_t *bytes, size_t len, const struct sbx_policy *policy,
                           const sbx_wasm_options *opt, bool emit_span,
                           const struct wasm_load_guard *guard, sbx_wasm_sandbox **out, char *err,
                           size_t errlen);

/* ---- encode.c: a minimal module encoder for the conformance probes ------------------------ */

struct sbx__enc {
    struct sbx__buf types, imports, funcs, exports, code, data;
    uint32_t type_count, import_count, func_count, export_count, data_count, mem_pages;
    bool has_memory, is_oom;
};

void sbx__enc_init(struct sbx__enc *e);
void sbx__enc_free(struct sbx__enc *e);
/* Each returns the new index (type, imported function, defined function). */
uint32_t sbx__enc_type(struct sbx__enc *e, const char *params, const char *results);
uint32_t sbx__enc_import(struct sbx__enc *e, const char *module, const char *name, uint32_t type);
uint32_t sbx__enc_func(struct sbx__enc *e, uint32_t type, const uint8_t *body, size_t len);
void sbx__enc_memory(struct sbx__enc *e, uint32_t min_pages);
void sbx__enc_export_func(struct sbx__enc *e, const char *name, uint32_t func);
void sbx__enc_data(struct sbx__enc *e, uint32_t offset, const void *bytes, size_t len);
/* Returns the module bytes (caller frees with sbx__free) or NULL on NOMEM. */
uint8_t *sbx__enc_finish(struct sbx__enc *e, size_t *len);

/* ---- probes.c: the conformance probe module ------------------------------------------ */

/* Guest memory layout of the probe module (2 pages). */
enum {
    PROBE_FDOUT = 0,     /* fd from path_open / sock_open */
    PROBE_NOUT = 8,      /* bytes read or written */
    PROBE_IOV = 16,      /* one iovec {buf, len} */
    PROBE_SIZES = 32,    /* count, size from *_sizes_get */
    PROBE_CLOCK = 40,    /* 8-byte timestamp */
    PROBE_ADDR = 48,     /* the socket extension's address {buf, buf_len} */
    PROBE_IP = 64,       /* address bytes for PROBE_ADDR */
    PROBE_STRINGS = 512, /* probe_strings[i] at PROBE_STRINGS + 64 * i */
    PROBE_PTRS = 4096,   /* argv / environ pointer arrays */
    PROBE_BUF = 65536,   /* page 2: argv / environ / read data */
};

/* Builds the probe reactor: exports open_read, read, open_write, write, create, dotdot,
 * symlink, abs_symlink, env, args, clock, random, sock_open, connect, and cap0..capN-1 calling
 * the imports caps[i] ("module.name", type () -> i32). Returns sbx__free-able bytes or NULL. */
uint8_t *sbx__probe_module(const char *const *caps, size_t cap_count, uint16_t port, size_t *len);

#endif

/* core/backend.h: the whole contract between core and a tier. Core checks state, starts the
 * span and the clock, and calls exec; the tier enforces the policy and fills the result. */
#ifndef SBX_CORE_BACKEND_H
#define SBX_CORE_BACKEND_H

#include <stdatomic.h>
#include <stdint.h>

#include <sbx/sandbox.h>

#include "core/policy.h"

struct sbx__backend;

struct sbx__run {
    const struct sbx__backend *backend; /* the tier running it */
    const struct sbx_policy *policy;
    const sbx_run_input *input;
    uint64_t start_ns;    /* CLOCK_MONOTONIC */
    uint64_t deadline_ns; /* start_ns + policy->timeout_ms */
    /* SBX_OK while running; SBX_E_ABORTED once sbx_sandbox_abort() was called. An abort that
     * comes before the run is registered never reaches the tier: core ends the run itself. */
    _Atomic int interrupt_reason;
    void *tier_handle; /* what the tier's create() returned for this sandbox */
    void *state;       /* the tier's per-run state, set by open() */
};

struct sbx__backend {
    const char *name; /* "worker", "process", "wasm" */
    /* Per sandbox handle, optional: set up shared state (e.g. a temp root). */
    sbx_err (*create)(const struct sbx_policy *policy, void **tier_handle);
    /* Idempotent teardown of create()'s state; removes every temporary file. */
    void (*dispose)(void *tier_handle);
    /* Per run: check the input, allocate. A failure here is a host failure. */
    sbx_err (*open)(struct sbx__run *run);
    /* Runs to completion. Returns SBX_OK when the guest ran (its outcome in *out: ok, error,
     * limit, output, value); another code if the host failed. Must return by deadline_ns
     * plus the tier's documented latency bound. */
    sbx_err (*exec)(struct sbx__run *run, sbx_result *out);
    /* Makes exec return soon with SBX_E_ABORTED. Called from any thread, while exec runs. */
    void (*interrupt)(struct sbx__run *run);
    /* Frees open()'s state; safe after any failure, and when open() never ran. */
    void (*close)(struct sbx__run *run);
    /* Optional (worker): adds a script every later run sees evaluated first (sandbox.h). */
    sbx_err (*preload)(void *tier_handle, const char *name, const char *source, size_t len);
    /* Optional (worker): adds from_handle's preloads to tier_handle's. */
    sbx_err (*preload_from)(void *tier_handle, const void *from_handle);
};

extern const struct sbx__backend sbx__backend_worker;
extern const struct sbx__backend sbx__backend_process;
extern const struct sbx__backend sbx__backend_wasm;

/* Result helpers for the tiers. */
/* Marks the result failed with err and a printf-style message (first failure wins). */
void sbx__result_fail(sbx_result *out, sbx_err err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Monotonic clock in nanoseconds. */
uint64_t sbx__now_ns(void);

#endif

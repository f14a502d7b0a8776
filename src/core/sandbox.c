/* core/sandbox.c: the sandbox handle. Checks state, times the run, emits telemetry, and hands
 * the run to the tier through its backend vtable; abort is the only cross-thread entry. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sbx/sandbox.h>

#include "core/abort.h"
#include "core/backend.h"
#include "core/telemetry.h"
#include "util/alloc.h"

struct sbx_sandbox {
    sbx_backend kind;
    const struct sbx__backend *backend;
    struct sbx_policy *policy;
    void *tier_handle;
    bool is_disposed;
    struct sbx__abort abort; /* the run abort reaches, or a pending abort (core/abort.h) */
};

static const struct sbx__backend *const backends[] = {
    [SBX_BACKEND_WORKER] = &sbx__backend_worker,
    [SBX_BACKEND_PROCESS] = &sbx__backend_process,
    [SBX_BACKEND_WASM] = &sbx__backend_wasm,
};

uint64_t sbx__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *sbx_backend_name(sbx_backend backend)
{
    if ((unsigned)backend < sizeof(backends) / sizeof(backends[0]))
        return backends[backend]->name;
    return "unknown";
}

int sbx_backend_from_name(const char *name, sbx_backend *out)
{
    for (unsigned i = 0; name && i < sizeof(backends) / sizeof(backends[0]); i++) {
        if (strcmp(backends[i]->name, name) == 0) {
            if (out)
                *out = (sbx_backend)i;
            return 0;
        }
    }
    return -1;
}

sbx_err sbx_sandbox_create(sbx_backend backend, const sbx_policy *policy, sbx_sandbox **out)
{
    if (!out)
        return SBX_E_INVALID_ARGUMENT;
    *out = NULL;
    if (!policy || (unsigned)backend >= sizeof(backends) / sizeof(backends[0]))
        return SBX_E_INVALID_ARGUMENT;
    sbx_sandbox *sb = sbx__calloc(1, sizeof(*sb));
    if (!sb)
        return SBX_E_NOMEM;
    sb->kind = backend;
    sb->backend = backends[backend];
    sb->policy = sbx__policy_ref(policy); /* shared, never copied */
    if (sbx__abort_init(&sb->abort) != 0) {
        sbx_policy_destroy(sb->policy);
        sbx__free(sb);
        return SBX_E_NOMEM;
    }
    if (sb->backend->create) {
        sbx_err e = sb->backend->create(sb->policy, &sb->tier_handle);
        if (e) {
            sbx__abort_destroy(&sb->abort);
            sbx_policy_destroy(sb->policy);
            sbx__free(sb);
            return e;
        }
    }
    *out = sb;
    return SBX_OK;
}

void sbx__result_fail(sbx_result *out, sbx_err err, const char *fmt, ...)
{
    out->ok = false;
    if (out->error != SBX_OK && out->error_message)
        return; /* the first failure wins */
    out->error = err;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    sbx__free(out->error_message);
    out->error_message = sbx__strdup(msg);
}

static void *span_begin(const sbx_sandbox *sb)
{
    const sbx_telemetry_hooks *h = sbx__telemetry_hooks();
    if (!h || !h->span_start)
        return NULL;
    sbx_attr attr = {"backend", sb->backend->name, SBX_ATTR_STRING};
    return h->span_start(h->user, "sandbox.run", &attr, 1);
}

static void span_finish(const sbx_sandbox *sb, void *span, const sbx_result *r)
{
    sbx__telemetry_run_end(span, sb->backend->name, r);
}

/* What an abort does to the registered run (under the latch's lock): the reason first, so a
 * tier that has not reached its interruptible part yet still sees it. */
static void interrupt_run(void *arg)
{
    struct sbx__run *run = arg;
    atomic_store(&run->interrupt_reason, SBX_E_ABORTED);
    const struct sbx__backend *be = run->backend;
    if (be->interrupt)
        be->interrupt(run);
}

static void exec_run(sbx_sandbox *sb, struct sbx__run *run, sbx_result *out, sbx_err *rc)
{
    const struct sbx__backend *be = sb->backend;
    if (!be->exec) {
        *rc = SBX_E_UNAVAILABLE;
        sbx__result_fail(out, *rc, "the %s tier is not available in this build", be->name);
        return;
    }
    /* Until a run is registered an abort has no run to interrupt: it stays pending for these
     * checks instead of being lost. */
    bool is_aborted = sbx__abort_take(&sb->abort);
    *rc = !is_aborted && be->open ? be->open(run) : SBX_OK;
    if (*rc == SBX_OK && !is_aborted) {
        /* an abort may have come while open() ran */
        is_aborted = sbx__abort_begin(&sb->abort, interrupt_run, run);
        if (!is_aborted)
            *rc = be->exec(run, out);
        sbx__abort_end(&sb->abort);
    }
    if (is_aborted) /* a guest outcome, as an abort during the run is */
        sbx__result_fail(out, SBX_E_ABORTED, "run was aborted by the host before it started");
    if (be->close)
        be->close(run);
    if (*rc != SBX_OK)
        sbx__result_fail(out, *rc, "%s", sbx_err_message(*rc));
}

sbx_err sbx_sandbox_run(sbx_sandbox *sb, const sbx_run_input *input, sbx_result *out)
{
    if (!out)
        return SBX_E_INVALID_ARGUMENT;
    memset(out, 0, sizeof(*out));
    out->exit_code = -1;
    if (!sb || !input) {
        sbx__result_fail(out, SBX_E_INVALID_ARGUMENT, "sandbox and input are required");
        return SBX_E_INVALID_ARGUMENT;
    }
    out->backend = sb->kind;
    if (sb->is_disposed) {
        sbx__result_fail(out, SBX_E_DISPOSED, "sandbox was disposed");
        return SBX_OK;
    }
    struct sbx__run run = {
        .backend = sb->backend,
        .policy = sb->policy,
        .input = input,
        .start_ns = sbx__now_ns(),
        .tier_handle = sb->tier_handle,
    };
    run.deadline_ns = run.start_ns + (uint64_t)sb->policy->timeout_ms * 1000000ull;
    void *span = span_begin(sb);
    sbx_err rc;
    exec_run(sb, &run, out, &rc);
    out->backend = sb->kind;
    out->duration_ms = (double)(sbx__now_ns() - run.start_ns) / 1e6;
    span_finish(sb, span, out);
    return rc;
}

void sbx_sandbox_abort(sbx_sandbox *sb)
{
    if (sb)
        sbx__abort_request(&sb->abort);
}

void sbx_sandbox_clear_abort(sbx_sandbox *sb)
{
    if (sb)
        sbx__abort_clear(&sb->abort);
}

sbx_err sbx_sandbox_preload(sbx_sandbox *sb, const char *name, const char *source, size_t len)
{
    if (!sb || !name || !source)
        return SBX_E_INVALID_ARGUMENT;
    if (sb->is_disposed)
        return SBX_E_DISPOSED;
    if (!sb->backend->preload)
        return SBX_E_INVALID_ARGUMENT;
    return sb->backend->preload(sb->tier_handle, name, source, len);
}

sbx_err sbx_sandbox_preload_from(sbx_sandbox *sb, const sbx_sandbox *from)
{
    if (!sb || !from || sb->backend != from->backend || !sb->backend->preload_from)
        return SBX_E_INVALID_ARGUMENT;
    if (sb->is_disposed || from->is_disposed)
        return SBX_E_DISPOSED;
    return sb->backend->preload_from(sb->tier_handle, from->tier_handle);
}

void sbx_sandbox_dispose(sbx_sandbox *sb)
{
    if (!sb || sb->is_disposed)
        return;
    sb->is_disposed = true;
    if (sb->backend->dispose)
        sb->backend->dispose(sb->tier_handle);
    sb->tier_handle = NULL;
}

void sbx_sandbox_destroy(sbx_sandbox *sb)
{
    if (!sb)
        return;
    sbx_sandbox_dispose(sb);
    sbx__abort_destroy(&sb->abort);
    sbx_policy_destroy(sb->policy);
    sbx__free(sb);
}

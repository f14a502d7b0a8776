/* plugin/sandbox.c: the wasm plugin handle. Create loads, links (WASI, then capabilities) and
 * instantiates; run and call execute exports under the policy's time, fuel and CPU limits and
 * turn the engine's trap into the result. Abort is the only cross-thread entry. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/telemetry.h"
#include "plugin/plugin.h"
#include "util/alloc.h"
#include "wasi/wasi.h"

#define MAX_VALUES 32

void sbx__plugin_denied(struct sbx_wasm_sandbox *sb, const char *capability)
{
    atomic_fetch_add(&sb->denied, 1);
    sbx__telemetry_denied(capability);
}

/* Stops the current call for reason (the first reason wins). Any thread. */
static void stop(struct sbx_wasm_sandbox *sb, sbx_err reason)
{
    int expected = SBX_OK;
    atomic_compare_exchange_strong(&sb->stop_reason, &expected, (int)reason);
    sbx__wasm_store_interrupt(sb->store);
    if (sb->wasi)
        sbx__wasi_interrupt(sb->wasi);
    sbx__plugin_wake_pending(sb);
}

static void on_timeout(void *user)
{
    stop(user, SBX_E_TIMEOUT);
}

static void on_abort(void *user)
{
    stop(user, SBX_E_ABORTED);
}

/* ---- one guarded call ------------------------------------------------------------------- */

sbx_err sbx__plugin_begin_call(struct sbx_wasm_sandbox *sb)
{
    atomic_store(&sb->stop_reason, SBX_OK);
    sbx__wasm_store_clear_interrupt(sb->store);
    sbx__wasm_store_clear_refused(sb->store);
    /* A timeout or abort interrupted WASI too; blocking calls must block again. */
    if (sb->wasi)
        sbx__wasi_clear_interrupt(sb->wasi);
    sbx__wasm_store_set_fuel(sb->store, sb->policy->fuel);
    uint64_t now = sbx__now_ns(), timeout_ns = (uint64_t)sb->policy->timeout_ms * 1000000ull;
    if (sb->run_deadline_ns) /* what loading and instantiation left of the run's time */
        timeout_ns = sb->run_deadline_ns <= now               ? 0
                     : sb->run_deadline_ns - now < timeout_ns ? sb->run_deadline_ns - now
                                                              : timeout_ns;
    sb->deadline_ns = now + timeout_ns;
    if (timeout_ns == 0) /* the run's time ran out before this call (loading, instantiating) */
        stop(sb, SBX_E_TIMEOUT);
    sb->watchdog.on_timeout = on_timeout;
    sb->watchdog.user = sb;
    sb->throttle.stop_reason = &sb->stop_reason;
    uint32_t timeout_ms = (uint32_t)((timeout_ns + 999999) / 1000000);
    sbx_err e =
        sbx__plugin_watchdog_arm(&sb->watchdog, timeout_ms, sb->policy->cpu_percent, &sb->throttle);
    if (e != SBX_OK)
        return e;
    /* An abort that came before this call (sbx_wasm_sandbox_abort() while idle, or core's
     * reason set before its interrupt found the handle) ends the call at once. */
    bool is_aborted = sbx__abort_begin(&sb->abort, on_abort, sb) ||
                      (sb->external_reason && atomic_load(sb->external_reason) == SBX_E_ABORTED);
    if (is_aborted)
        stop(sb, SBX_E_ABORTED);
    return SBX_OK;
}

void sbx__plugin_end_call(struct sbx_wasm_sandbox *sb)
{
    sbx__abort_end(&sb->abort);
    sbx__plugin_watchdog_disarm(&sb->watchdog);
}

/* Fills out from a finished call: the trap becomes error and limit. A grow the policy refused
 * (the guest saw -1 and may have gone on) is the memory limit shaping the run. */
void sbx__plugin_set_outcome(struct sbx_wasm_sandbox *sb, sbx_err rc, const struct wasm_trap *trap,
                             sbx_result *out)
{
    out->ok = true;
    if (sbx__wasm_store_was_refused(sb->store))
        out->limit = SBX_LIMIT_MEMORY;
    if (rc == SBX_OK)
        return;
    if (rc != SBX_E_WASM_TRAP) {
        sbx__result_fail(out, rc, "%s", sbx_err_message(rc));
        return;
    }
    switch (trap->kind) {
    case WASM_TRAP_EXIT:
        out->exit_code = trap->exit_code;
        if (trap->exit_code != 0)
            sbx__result_fail(out, SBX_E_EXECUTION_FAILED, "guest exited with status %d",
                             trap->exit_code);
        return;
    case WASM_TRAP_FUEL_EXHAUSTED:
        out->limit = SBX_LIMIT_FUEL;
        sbx__result_fail(out, SBX_E_WASM_FUEL_EXHAUSTED, "guest ran out of fuel (%" PRIu64 ")",
                         sb->policy->fuel);
        return;
    case WASM_TRAP_INTERRUPTED:
        if (atomic_load(&sb->stop_reason) == SBX_E_ABORTED) {
            sbx__result_fail(out, SBX_E_ABORTED, "run was aborted by the host");
            return;
        }
        out->limit = SBX_LIMIT_TIMEOUT;
        sbx__result_fail(out, SBX_E_TIMEOUT, "guest exceeded its time limit of %" PRIu32 " ms",
                         sb->policy->timeout_ms);
        return;
    case WASM_TRAP_HEAP_EXHAUSTED: /* GC objects are charged to memoryBytes (wasm/gc.h) */
        out->limit = SBX_LIMIT_MEMORY;
        sbx__result_fail(out, SBX_E_MEMORY_LIMIT, "%s", trap->message);
        return;
    default:
        sbx__result_fail(out, SBX_E_WASM_TRAP, "%s", trap->message);
        return;
    }
}

static void take_output(struct sbx_wasm_sandbox *sb, sbx_result *out)
{
    out->stdout_truncated = sb->out_buf.is_truncated;
    out->stderr_truncated = sb->err_buf.is_truncated;
    out->stdout_data = sbx__buf_take(&sb->out_buf, &out->stdout_len);
    out->stderr_data = sbx__buf_take(&sb->err_buf, &out->stderr_len);
}

static void *span_begin(const struct sbx_wasm_sandbox *sb, const char *entry)
{
    const sbx_telemetry_hooks *h = sb->emit_span ? sbx__telemetry_hooks() : NULL;
    if (!h || !h->span_start)
        return NULL;
    sbx_attr attrs[2] = {{"backend", "wasm", SBX_ATTR_STRING},
                         {"wasm.export", entry, SBX_ATTR_STRING}};
    return h->span_start(h->user, "sandbox.run", attrs, 2);
}

/* Ends the span and records the run as core does for sbx_sandbox_run(). */
static void span_finish(const struct sbx_wasm_sandbox *sb, void *span, const sbx_result *r)
{
    if (sb->emit_span)
        sbx__telemetry_run_end(span, "wasm", r);
}

/* Runs f under the limits and fills out; returns SBX_OK when the guest ran. */
static sbx_err invoke(struct sbx_wasm_sandbox *sb, struct wasm_func *f, const wasm_value *args,
                      wasm_value *results, sbx_result *out)
{
    sbx_err e = sbx__plugin_begin_call(sb);
    if (e != SBX_OK) {
        sbx__result_fail(out, e, "cannot start the watchdog: %s", sbx_err_message(e));
        return e;
    }
    struct wasm_trap trap = {.kind = WASM_TRAP_INTERRUPTED};
    sbx_err rc = SBX_E_WASM_TRAP; /* an abort that came before the call: never enter the guest */
    if (atomic_load(&sb->stop_reason) != SBX_E_ABORTED)
        rc = sbx__wasm_func_call(sb->store, f, args, results, &trap);
    sbx__plugin_end_call(sb);
    sbx__plugin_set_outcome(sb, rc, &trap, out);
    if (sb->wasi)
        sbx__wasi_take_denials(sb->wasi, out);
    return rc == SBX_OK || rc == SBX_E_WASM_TRAP ? SBX_OK : rc;
}

static void result_init(sbx_result *out)
{
    memset(out, 0, sizeof(*out));
    out->exit_code = -1;
    out->backend = SBX_BACKEND_WASM;
}

/* Looks up an exported function; fills out on failure (and on a remembered abort). */
static struct wasm_func *find_export(struct sbx_wasm_sandbox *sb, const char *name, sbx_result *out,
                                     sbx_err *rc)
{
    struct wasm_extern ext;
    *rc = SBX_OK;
    if (sb->is_disposed) {
        *rc = SBX_E_WASM_DISPOSED;
        sbx__result_fail(out, *rc, "wasm sandbox was disposed");
        return NULL;
    }
    if (sbx__abort_take(&sb->abort)) { /* a guest outcome, as an abort during the call is */
        sbx__result_fail(out, SBX_E_ABORTED, "run was aborted by the host before it started");
        return NULL;
    }
    if (!sbx__wasm_instance_export(sb->inst, name, strlen(name), &ext) ||
        ext.kind != WASM_EXTERN_FUNC) {
        *rc = SBX_E_WASM_NO_EXPORT;
        sbx__result_fail(out, *rc, "module exports no function \"%s\"", name);
        return NULL;
    }
    return ext.u.func;
}

sbx_err sbx_wasm_sandbox_run(sbx_wasm_sandbox *sb, sbx_result *out)
{
    if (!out)
        return SBX_E_INVALID_ARGUMENT;
    result_init(out);
    if (!sb) {
        sbx__result_fail(out, SBX_E_INVALID_ARGUMENT, "sandbox is required");
        return SBX_E_INVALID_ARGUMENT;
    }
    uint64_t start = sbx__now_ns();
    void *span = span_begin(sb, "_start");
    sbx_err rc;
    struct wasm_func *f = find_export(sb, "_start", out, &rc);
    if (f) {
        wasm_value results[MAX_VALUES];
        const struct wasm_functype *t = sbx__wasm_func_type(f);
        if (t->param_count != 0 || t->result_count > MAX_VALUES) {
            rc = SBX_E_WASM_NO_EXPORT;
            sbx__result_fail(out, rc, "_start must take no parameters");
        } else {
            rc = invoke(sb, f, NULL, results, out);
            if (out->ok && out->exit_code < 0)
                out->exit_code = 0;
            take_output(sb, out);
        }
    }
    out->duration_ms = (double)(sbx__now_ns() - start) / 1e6;
    span_finish(sb, span, out);
    return rc;
}

/* Converts args to the export's parameter types; fills out on mismatch. */
static bool convert_args(const struct wasm_functype *t, const sbx_wasm_value *args,
                         size_t arg_count, wasm_value *raw, sbx_result *out)
{
    if (arg_count != t->param_count || t->param_count > MAX_VALUES ||
        t->result_count > MAX_VALUES || (arg_count && !args)) {
        sbx__result_fail(out, SBX_E_INVALID_ARGUMENT, "export takes %" PRIu32 " arguments, got %zu",
                         t->param_count, arg_count);
        return false;
    }
    for (size_t i = 0; i < arg_count; i++) {
        if (!sbx__plugin_from_public(t->types[i], &args[i], &raw[i])) {
            sbx__result_fail(out, SBX_E_INVALID_ARGUMENT, "argument %zu has the wrong type", i);
            return false;
        }
    }
    return true;
}

sbx_err sbx_wasm_sandbox_call(sbx_wasm_sandbox *sb, const char *name, const sbx_wasm_value *args,
                              size_t arg_count, sbx_wasm_value *results, size_t result_count,
                              sbx_result *out)
{
    if (!out)
        return SBX_E_INVALID_ARGUMENT;
    result_init(out);
    if (!sb || !name || (result_count && !results)) {
        sbx__result_fail(out, SBX_E_INVALID_ARGUMENT, "sandbox, name and results are required");
        return SBX_E_INVALID_ARGUMENT;
    }
    uint64_t start = sbx__now_ns();
    void *span = span_begin(sb, name);
    sbx_err rc;
    struct wasm_func *f = find_export(sb, name, out, &rc);
    if (f) {
        const struct wasm_functype *t = sbx__wasm_func_type(f);
        wasm_value raw_args[MAX_VALUES], raw_results[MAX_VALUES];
        if (!convert_args(t, args, arg_count, raw_args, out)) {
            rc = SBX_E_INVALID_ARGUMENT;
        } else {
            rc = invoke(sb, f, raw_args, raw_results, out);
            for (size_t i = 0; out->ok && i < result_count && i < t->result_count; i++)
                sbx__plugin_to_public(t->types[t->param_count + i], raw_results[i], &results[i]);
            take_output(sb, out);
        }
    }
    out->duration_ms = (double)(sbx__now_ns() - start) / 1e6;
    span_finish(sb, span, out);
    return rc;
}

static bool public_type(wasm_vtype t, sbx_wasm_valtype *out)
{
    switch (t) {
    case WASM_I32:
        *out = SBX_WASM_I32;
        return true;
    case WASM_I64:
        *out = SBX_WASM_I64;
        return true;
    case WASM_F32:
        *out = SBX_WASM_F32;
        return true;
    case WASM_F64:
        *out = SBX_WASM_F64;
        return true;
    default:
        return false;
    }
}

sbx_err sbx_wasm_sandbox_export_type(const sbx_wasm_sandbox *sb, const char *name,
                                     sbx_wasm_valtype *params, size_t *param_count,
                                     sbx_wasm_valtype *results, size_t *result_count, size_t cap)
{
    struct wasm_extern ext;
    if (!sb || !name || !param_count || !result_count || (cap && (!params || !results)))
        return SBX_E_INVALID_ARGUMENT;
    if (sb->is_disposed)
        return SBX_E_WASM_DISPOSED;
    if (!sbx__wasm_instance_export(sb->inst, name, strlen(name), &ext) ||
        ext.kind != WASM_EXTERN_FUNC)
        return SBX_E_WASM_NO_EXPORT;
    const struct wasm_functype *t = sbx__wasm_func_type(ext.u.func);
    *param_count = t->param_count;
    *result_count = t->result_count;
    for (uint32_t i = 0; i < t->param_count + t->result_count; i++) {
        bool is_param = i < t->param_count;
        size_t k = is_param ? i : i - t->param_count;
        sbx_wasm_valtype v;
        if (!public_type(t->types[i], &v))
            return SBX_E_INVALID_ARGUMENT;
        if (k < cap)
            (is_param ? params : results)[k] = v;
    }
    return SBX_OK;
}

void sbx_wasm_sandbox_abort(sbx_wasm_sandbox *sb)
{
    if (!sb)
        return;
    sbx__abort_request(&sb->abort); /* the latch's lock: a stop meant for this call cannot land
                                     * on the next one */
}

void sbx_wasm_sandbox_clear_abort(sbx_wasm_sandbox *sb)
{
    if (!sb)
        return;
    sbx__abort_clear(&sb->abort);
}

uint64_t sbx_wasm_sandbox_denied_count(const sbx_wasm_sandbox *sb)
{
    return sb ? atomic_load(&sb->denied) : 0;
}

void sbx_wasm_sandbox_dispose(sbx_wasm_sandbox *sb)
{
    if (!sb || sb->is_disposed)
        return;
    sb->is_disposed = true;
    sbx__plugin_watchdog_destroy(&sb->watchdog);
    /* The store owns the instance and every host function; WASI closes the guest's fds. */
    if (sb->store)
        sbx__wasm_store_destroy(sb->store);
    sb->store = NULL;
    sb->inst = NULL;
    sbx__wasi_destroy(sb->wasi);
    sb->wasi = NULL;
    if (sb->module)
        sbx__wasm_module_destroy(sb->module);
    sb->module = NULL;
    sbx__plugin_caps_free(&sb->caps);
    sbx__buf_free(&sb->out_buf);
    sbx__buf_free(&sb->err_buf);
}

void sbx_wasm_sandbox_destroy(sbx_wasm_sandbox *sb)
{
    if (!sb)
        return;
    sbx_wasm_sandbox_dispose(sb);
    pthread_mutex_destroy(&sb->pending_mu);
    sbx__abort_destroy(&sb->abort);
    sbx_policy_destroy(sb->policy);
    sbx__free(sb);
}

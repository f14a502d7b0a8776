/* core/telemetry.c: the process-wide hook table. Readers take one acquire load, so the cost
 * with no hooks installed is a load and a branch per instrument. */
#include "core/telemetry.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

static sbx_telemetry_hooks installed;
static _Atomic(const sbx_telemetry_hooks *) current;

void sbx_telemetry_set_hooks(const sbx_telemetry_hooks *hooks)
{
    if (!hooks) {
        atomic_store_explicit(&current, NULL, memory_order_release);
        return;
    }
    installed = *hooks;
    atomic_store_explicit(&current, &installed, memory_order_release);
}

const sbx_telemetry_hooks *sbx__telemetry_hooks(void)
{
    return atomic_load_explicit(&current, memory_order_acquire);
}

void sbx__telemetry_denied(const char *capability)
{
    const sbx_telemetry_hooks *h = sbx__telemetry_hooks();
    if (!h || !h->counter_add)
        return;
    sbx_attr attr = {"capability", capability ? capability : "unknown", SBX_ATTR_STRING};
    h->counter_add(h->user, "plugin.permission_denied_total", 1, &attr, 1);
}

static const char *outcome_of(const sbx_result *r)
{
    if (r->ok)
        return "ok";
    return r->error == SBX_E_TIMEOUT ? "timeout" : r->error == SBX_E_ABORTED ? "aborted" : "error";
}

/* The span's end attributes: the two labels the metrics share first, then the typed ones. */
void sbx__telemetry_run_end(void *span, const char *backend, const sbx_result *r)
{
    const sbx_telemetry_hooks *h = sbx__telemetry_hooks();
    if (!h)
        return;
    char exit_code[16], sig[16], duration[32];
    snprintf(exit_code, sizeof(exit_code), "%d", r->exit_code);
    snprintf(sig, sizeof(sig), "%d", r->signal);
    snprintf(duration, sizeof(duration), "%.17g", r->duration_ms);
    sbx_attr attrs[7] = {
        {"backend", backend, SBX_ATTR_STRING},
        {"outcome", outcome_of(r), SBX_ATTR_STRING},
        {"duration_ms", duration, SBX_ATTR_DOUBLE},
        {"output_truncated", r->stdout_truncated || r->stderr_truncated ? "true" : "false",
         SBX_ATTR_BOOL},
    };
    size_t n = 4;
    if (r->exit_code >= 0)
        attrs[n++] = (sbx_attr){"exit_code", exit_code, SBX_ATTR_INT};
    if (r->signal > 0)
        attrs[n++] = (sbx_attr){"signal", sig, SBX_ATTR_INT};
    if (!r->ok)
        attrs[n++] = (sbx_attr){"error.code", sbx_err_name(r->error), SBX_ATTR_STRING};
    if (h->span_end)
        h->span_end(h->user, span, attrs, n, !r->ok, r->error_message);
    if (h->counter_add)
        h->counter_add(h->user, "sandbox.runs_total", 1, attrs, 2);
    if (h->histogram_record)
        h->histogram_record(h->user, "sandbox.duration_ms", r->duration_ms, attrs, 1);
}

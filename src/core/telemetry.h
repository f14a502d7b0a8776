/* core/telemetry.h: how the tiers emit spans and metrics through the installed hooks.
 * Each call is one atomic load when no hooks are installed. */
#ifndef SBX_CORE_TELEMETRY_H
#define SBX_CORE_TELEMETRY_H

#include <stdbool.h>

#include <sbx/sandbox.h>
#include <sbx/telemetry.h>

/* Returns the installed hooks, or NULL. */
const sbx_telemetry_hooks *sbx__telemetry_hooks(void);

/* Counts one policy denial: plugin.permission_denied_total{capability}. */
void sbx__telemetry_denied(const char *capability);

/* Ends a run's span (attributes backend, outcome, duration_ms, output_truncated, and exit_code,
 * signal and error.code where they apply, typed) and records sandbox.runs_total{backend,outcome}
 * and sandbox.duration_ms{backend}. */
void sbx__telemetry_run_end(void *span, const char *backend, const sbx_result *r);

#endif

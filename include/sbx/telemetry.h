/* sbx/telemetry.h: OpenTelemetry-shaped hooks the tiers call, and the exporters that ship.
 * Instruments: span "sandbox.run", counter "sandbox.runs_total{backend,outcome}", histogram
 * "sandbox.duration_ms{backend}", counter "plugin.permission_denied_total{capability}". */
#ifndef SBX_TELEMETRY_H
#define SBX_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A string-valued attribute (OpenTelemetry attribute / Prometheus label). */
typedef struct sbx_attr {
    const char *key;
    const char *value;
} sbx_attr;

/* The hook table. Any member may be NULL. Hooks may be called from any thread, concurrently;
 * attribute arrays and strings are borrowed for the call only. */
typedef struct sbx_telemetry_hooks {
    void *user;
    /* Starts a span; the returned token is passed to span_end (NULL is a valid token). */
    void *(*span_start)(void *user, const char *name, const sbx_attr *attrs, size_t attr_count);
    /* Ends a span with final attributes and status (is_error, status message or NULL). */
    void (*span_end)(void *user, void *span, const sbx_attr *attrs, size_t attr_count,
                     bool is_error, const char *status_message);
    void (*counter_add)(void *user, const char *name, uint64_t value, const sbx_attr *attrs,
                        size_t attr_count);
    void (*histogram_record)(void *user, const char *name, double value, const sbx_attr *attrs,
                             size_t attr_count);
} sbx_telemetry_hooks;

/* Installs hooks process-wide (copied), or removes them with NULL. With none installed the
 * tiers skip all telemetry work. Not safe to call while runs are in flight. */
SBX_API void sbx_telemetry_set_hooks(const sbx_telemetry_hooks *hooks);

#ifdef __cplusplus
}
#endif
#endif

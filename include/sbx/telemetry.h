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

/* How an attribute's value is exported: OTLP sends intValue, doubleValue or boolValue for the
 * typed ones; the text is parsed (strtoll, strtod, "true"/"false") and, if it does not parse,
 * sent as a string. Prometheus labels always use the text. */
typedef enum sbx_attr_type {
    SBX_ATTR_STRING = 0,
    SBX_ATTR_INT,
    SBX_ATTR_DOUBLE,
    SBX_ATTR_BOOL,
} sbx_attr_type;

/* An attribute (OpenTelemetry attribute / Prometheus label): its value as text, and its type
 * (SBX_ATTR_STRING, the zero value, when left out of an initializer). */
typedef struct sbx_attr {
    const char *key;
    const char *value;
    sbx_attr_type type;
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

/* ---- Prometheus text exposition exporter ---------------------------------------------------
 * An in-memory registry of the counters and histograms emitted through its hooks, rendered in
 * the Prometheus text format (docs/telemetry.md): dots become underscores, counters end in
 * _total, a millisecond histogram ("*_ms") is exposed in seconds ("*_seconds"). Spans are ignored.
 * The hooks are thread-safe; render/write may run concurrently with them. */
typedef struct sbx_prometheus sbx_prometheus;

/* Creates an empty registry. Returns SBX_E_INVALID_ARGUMENT for NULL out, SBX_E_NOMEM. */
SBX_API sbx_err sbx_prometheus_create(sbx_prometheus **out);

/* Returns the hook table that feeds p, to pass to sbx_telemetry_set_hooks(). Owned by p and valid
 * until sbx_prometheus_destroy(). */
SBX_API const sbx_telemetry_hooks *sbx_prometheus_hooks(sbx_prometheus *p);

/* Returns the current exposition text (NUL-terminated). The caller frees it with sbx_free();
 * NULL on NOMEM or NULL p. */
SBX_API char *sbx_prometheus_render(sbx_prometheus *p);

/* Renders and writes the exposition to path atomically (temporary file + rename).
 * Returns SBX_E_IO with errno preserved on failure, SBX_E_NOMEM. */
SBX_API sbx_err sbx_prometheus_write_file(sbx_prometheus *p, const char *path);

/* Frees the registry. Uninstall its hooks first. Accepts NULL. */
SBX_API void sbx_prometheus_destroy(sbx_prometheus *p);

/* ---- OTLP/HTTP exporter (protobuf or JSON encoding, libcurl) -------------------------------
 * Buffers finished spans (bounded; overflow is dropped and counted) and aggregates metrics
 * cumulatively in memory; nothing is sent until sbx_otlp_flush() or sbx_otlp_destroy(), so a run
 * never waits on the network. The hooks are thread-safe. */
typedef struct sbx_otlp sbx_otlp;

/* Creates an exporter configured by the standard variables (docs/telemetry.md lists them all):
 * OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318; "/v1/traces" and "/v1/metrics" are
 * appended), OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT (used as is), _HEADERS, _TIMEOUT and
 * _PROTOCOL in their generic and per-signal forms (http/protobuf by default, http/json; grpc is
 * sent as http/protobuf, with a warning in sbx_otlp_last_error(NULL)), OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_SERVICE_NAME, OTEL_BSP_MAX_QUEUE_SIZE, OTEL_{TRACES,METRICS}_EXPORTER. Returns
 * SBX_E_INVALID_OPTIONS for a malformed variable (sbx_otlp_last_error(NULL) then names it),
 * SBX_E_UNAVAILABLE if libcurl cannot be initialised, SBX_E_NOMEM. */
SBX_API sbx_err sbx_otlp_create_from_env(sbx_otlp **out);

/* Returns the hook table that feeds o, to pass to sbx_telemetry_set_hooks(). Owned by o and valid
 * until sbx_otlp_destroy(). */
SBX_API const sbx_telemetry_hooks *sbx_otlp_hooks(sbx_otlp *o);

/* POSTs the buffered spans to the traces endpoint and the cumulative metrics to the metrics
 * endpoint, the two at once. Each signal's export, retries included (429, 502, 503, 504 and a
 * dropped connection, with exponential backoff and jitter, honouring Retry-After), ends within
 * that signal's timeout, so the whole flush takes at most the larger of the two. Spans leave the
 * buffer even when the export fails (they are then counted as dropped); metrics are cumulative,
 * so after a transient failure the next flush resends them; they are not sent when nothing was
 * recorded since the last delivery or rejection. Returns SBX_OK, SBX_E_IO when a signal's export
 * failed (sbx_otlp_last_error() names each one that did), SBX_E_NOMEM. After SBX_OK,
 * sbx_otlp_last_error() is non-empty if the collector reported a partial success (items
 * rejected). Safe to call while hooks run on other threads. */
SBX_API sbx_err sbx_otlp_flush(sbx_otlp *o);

/* Returns the spans dropped so far (buffer full, allocation failure or failed POST). */
SBX_API uint64_t sbx_otlp_dropped_spans(const sbx_otlp *o);

/* Returns a one-line description of the last flush's failures or partial success, or "" if
 * none. Owned by o; valid until the next flush or destroy; not to be read while another thread
 * flushes. With o NULL: why this thread's last sbx_otlp_create_from_env() failed, naming the
 * variable; after a success, a warning about the configuration it worked around (grpc), or "".
 * The library never prints: showing it is the caller's choice. */
SBX_API const char *sbx_otlp_last_error(const sbx_otlp *o);

/* Flushes what was recorded since the last flush (ignoring failures; metrics a flush failed to
 * deliver are not sent again, so flush + destroy is bounded by one timeout) and frees the
 * exporter. Uninstall its hooks first. Accepts NULL. */
SBX_API void sbx_otlp_destroy(sbx_otlp *o);

#ifdef __cplusplus
}
#endif
#endif

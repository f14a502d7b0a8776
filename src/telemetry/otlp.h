/* telemetry/otlp.h: the OTLP exporter's state, shared by its lifecycle/transport (otlp.c), its
 * environment configuration (otlp_env.c) and its JSON encoder (otlp_json.c). */
#ifndef SBX_TELEMETRY_OTLP_H
#define SBX_TELEMETRY_OTLP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <sbx/telemetry.h>

#include "telemetry/store.h"
#include "util/buf.h"

#define SBX__OTLP_MAX_SPAN_ATTRS 16
#define SBX__OTLP_MAX_TEXT       1024 /* bytes kept of a span name, attribute or status */

struct sbx__span {
    struct sbx__span *next;
    char *name;
    uint8_t trace_id[16];
    uint8_t span_id[8];
    uint64_t start_ns, end_ns; /* unix epoch nanoseconds */
    size_t attr_count;
    sbx_attr attrs[SBX__OTLP_MAX_SPAN_ATTRS]; /* strings owned */
    bool is_error;
    char *status_message; /* NULL when none */
};

/* Settings read from the environment; strings owned. */
struct sbx__otlp_config {
    char *traces_url;
    char *metrics_url;
    char *service_name;
    char **headers; /* "Key: value" lines, header_count of them */
    size_t header_count;
    long timeout_ms;
    size_t max_queued_spans;
    bool is_traces_off;  /* OTEL_TRACES_EXPORTER=none */
    bool is_metrics_off; /* OTEL_METRICS_EXPORTER=none */
};

struct sbx_otlp {
    sbx_telemetry_hooks hooks;
    struct sbx__otlp_config cfg;
    struct sbx__store store;
    uint64_t start_ns;          /* start of the cumulative metric streams */
    pthread_mutex_t lock;       /* guards the span queue */
    pthread_mutex_t flush_lock; /* one flush at a time; guards last_error */
    struct sbx__span *head, *tail;
    atomic_size_t queued;    /* written under lock, read without */
    atomic_size_t in_flight; /* started, not yet ended */
    atomic_uint_least64_t dropped;
    uint64_t sent_updates; /* store.updates at the last metrics POST that succeeded */
    char last_error[256];
};

/* Fills cfg from OTEL_* variables. Returns SBX_E_INVALID_OPTIONS for a malformed one. */
sbx_err sbx__otlp_config_from_env(struct sbx__otlp_config *cfg);
void sbx__otlp_config_free(struct sbx__otlp_config *cfg);

/* Appends an ExportTraceServiceRequest for the spans in list. */
bool sbx__otlp_encode_traces(struct sbx__buf *b, const sbx_otlp *o, const struct sbx__span *list);
/* Appends an ExportMetricsServiceRequest for every series in the store, stamped now_ns, and
 * sets *updates to the store's sample count at that instant. */
bool sbx__otlp_encode_metrics(struct sbx__buf *b, sbx_otlp *o, uint64_t now_ns, uint64_t *updates);

#endif

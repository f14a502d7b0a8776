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

enum sbx__otlp_protocol { SBX__OTLP_PROTOBUF, SBX__OTLP_JSON };

/* One signal's settings: the per-signal variable where set, else the generic one. */
struct sbx__otlp_signal {
    const char *name; /* "traces" or "metrics" */
    char *url;
    char **headers; /* "Key: value" lines (curl's "Key;" for an empty value) */
    size_t header_count;
    long timeout_ms;
    enum sbx__otlp_protocol protocol;
    bool is_off; /* OTEL_<SIGNAL>_EXPORTER=none */
};

/* Settings read from the environment; strings owned. */
struct sbx__otlp_config {
    struct sbx__otlp_signal traces, metrics;
    sbx_attr *resource; /* OTEL_RESOURCE_ATTRIBUTES, then service.name and telemetry.sdk.* */
    size_t resource_count;
    size_t max_queued_spans;
};

struct sbx_otlp {
    sbx_telemetry_hooks hooks;
    struct sbx__otlp_config cfg;
    struct sbx__store store;
    uint64_t start_ns;          /* start of the cumulative metric streams */
    pthread_mutex_t lock;       /* guards the span queue */
    pthread_mutex_t flush_lock; /* one flush at a time; guards what follows */
    struct sbx__span *head, *tail;
    atomic_size_t queued;    /* written under lock, read without */
    atomic_size_t in_flight; /* started, not yet ended */
    atomic_uint_least64_t dropped;
    uint64_t sent_updates;  /* store.updates at the last metrics export delivered or rejected */
    uint64_t tried_updates; /* store.updates at the last metrics export attempted */
    char last_error[512];
};

/* One POST of an export, with its outcome. */
struct sbx__otlp_request {
    const struct sbx__otlp_signal *sig;
    const char *body;
    size_t len;
    sbx_err result;    /* SBX_OK once delivered */
    bool is_permanent; /* failed for good (a 4xx other than 429): do not send it again */
    uint64_t rejected; /* partialSuccess: items the collector rejected */
    int attempts;
    char message[200]; /* the failure, or the partialSuccess message */
};

/* Sends the n requests concurrently, each retried within its signal's timeout. */
sbx_err sbx__otlp_send(struct sbx__otlp_request *reqs, size_t n);

/* Fills cfg from OTEL_* variables. Returns SBX_E_INVALID_OPTIONS for a malformed one, with the
 * reason in the thread's create error (sbx__otlp_create_error()). */
sbx_err sbx__otlp_config_from_env(struct sbx__otlp_config *cfg);
void sbx__otlp_config_free(struct sbx__otlp_config *cfg);
/* This thread's reason for the last failed create ("" if none). */
char *sbx__otlp_create_error(void);

/* An attribute's value as OTLP types it: the parsed number or boolean, or STRING when the text
 * does not parse as the declared type. */
struct sbx__otlp_value {
    sbx_attr_type type;
    long long i;
    double d;
    bool b;
};
sbx_attr_type sbx__otlp_value_of(const sbx_attr *a, struct sbx__otlp_value *v);

/* Appends an ExportTraceServiceRequest for the spans in list (JSON or protobuf). */
bool sbx__otlp_encode_traces(struct sbx__buf *b, const sbx_otlp *o, const struct sbx__span *list);
bool sbx__otlp_proto_traces(struct sbx__buf *b, const sbx_otlp *o, const struct sbx__span *list);
/* Appends an ExportMetricsServiceRequest for the n series (sorted by name), stamped now_ns. */
bool sbx__otlp_encode_metrics(struct sbx__buf *b, const sbx_otlp *o,
                              struct sbx__series *const *series, size_t n, uint64_t now_ns);
bool sbx__otlp_proto_metrics(struct sbx__buf *b, const sbx_otlp *o,
                             struct sbx__series *const *series, size_t n, uint64_t now_ns);

/* The metric's unit: ms, us, ns or s from its name's suffix, "1" for a counter, else "". */
const char *sbx__otlp_unit_of(const struct sbx__series *se);

/* Reads partialSuccess (rejected count, error message) from an export response body; returns
 * false when there is none. */
bool sbx__otlp_json_partial(const char *body, size_t len, uint64_t *rejected, char *msg,
                            size_t cap);
bool sbx__otlp_proto_partial(const uint8_t *body, size_t len, uint64_t *rejected, char *msg,
                             size_t cap);

#endif

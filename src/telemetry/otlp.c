/* telemetry/otlp.c: the OTLP/HTTP exporter: span buffering, metric aggregation, POST over
 * libcurl (otlp_send.c). Hooks only touch memory (bounded queue, store); the network is used by
 * flush alone. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <sbx/telemetry.h>

#include "telemetry/curl.h"
#include "telemetry/otlp.h"
#include "telemetry/text.h"
#include "util/alloc.h"

#define BODY_LIMIT (32u << 20)

static uint64_t now_unix_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Random IDs (W3C Trace Context: an all-zero ID is invalid). IDs need uniqueness, not secrecy,
 * so each thread runs xorshift64* seeded once from getrandom() (or the clock and a counter when
 * that fails) instead of making two system calls per span. */
static void random_id(uint8_t *id, size_t len)
{
    static _Thread_local uint64_t state;
    if (state == 0) {
        static atomic_uint_least64_t counter;
        if (getrandom(&state, sizeof(state), GRND_NONBLOCK) != (ssize_t)sizeof(state))
            state = now_unix_ns() ^ (atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15u);
        state |= 1;
    }
    for (size_t i = 0; i < len; i += 8) {
        state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
        uint64_t x = state * 0x2545f4914f6cdd1du;
        memcpy(id + i, &x, len - i < 8 ? len - i : 8);
    }
    id[len - 1] |= 1;
}

static char *copy_text(const char *s)
{
    return sbx__strndup(s ? s : "", strnlen(s ? s : "", SBX__OTLP_MAX_TEXT));
}

static void span_free(struct sbx__span *s)
{
    for (size_t i = 0; i < s->attr_count; i++) {
        sbx__free((char *)s->attrs[i].key);
        sbx__free((char *)s->attrs[i].value);
    }
    sbx__free(s->name);
    sbx__free(s->status_message);
    sbx__free(s);
}

static void span_list_free(struct sbx__span *s)
{
    while (s) {
        struct sbx__span *next = s->next;
        span_free(s);
        s = next;
    }
}

/* Sets key to value on s: a repeated key is overwritten, as the OpenTelemetry API requires. */
static bool span_set_attr(struct sbx__span *s, const sbx_attr *a)
{
    if (!a->key || !a->key[0])
        return true;
    char *v = copy_text(a->value);
    if (!v)
        return false;
    for (size_t i = 0; i < s->attr_count; i++) {
        if (strncmp(s->attrs[i].key, a->key, SBX__OTLP_MAX_TEXT) == 0) {
            sbx__free((char *)s->attrs[i].value);
            s->attrs[i].value = v;
            s->attrs[i].type = a->type;
            return true;
        }
    }
    char *k = s->attr_count < SBX__OTLP_MAX_SPAN_ATTRS ? copy_text(a->key) : NULL;
    if (!k) {
        sbx__free(v);
        return s->attr_count == SBX__OTLP_MAX_SPAN_ATTRS; /* over the limit: dropped by design */
    }
    s->attrs[s->attr_count] = (sbx_attr){k, v, a->type};
    s->attr_count++;
    return true;
}

static void *hook_span_start(void *user, const char *name, const sbx_attr *attrs, size_t count)
{
    sbx_otlp *o = user;
    if (o->cfg.traces.is_off)
        return NULL;
    size_t busy = atomic_fetch_add(&o->in_flight, 1) + 1;
    struct sbx__span *s = NULL;
    if (busy + o->queued <= o->cfg.max_queued_spans) /* racy read of queued: a bound, not a count */
        s = sbx__calloc(1, sizeof(*s));
    bool ok = s && (s->name = copy_text(name)) != NULL;
    for (size_t i = 0; ok && i < count; i++)
        ok = span_set_attr(s, &attrs[i]);
    if (!ok) {
        if (s)
            span_free(s);
        atomic_fetch_sub(&o->in_flight, 1);
        atomic_fetch_add(&o->dropped, 1);
        return NULL;
    }
    random_id(s->trace_id, sizeof(s->trace_id));
    random_id(s->span_id, sizeof(s->span_id));
    s->start_ns = now_unix_ns();
    return s;
}

static void hook_span_end(void *user, void *span, const sbx_attr *attrs, size_t count,
                          bool is_error, const char *status_message)
{
    sbx_otlp *o = user;
    struct sbx__span *s = span;
    if (!s)
        return; /* dropped at start (and counted), or traces are off */
    atomic_fetch_sub(&o->in_flight, 1);
    s->end_ns = now_unix_ns();
    s->is_error = is_error;
    bool ok = !status_message || (s->status_message = copy_text(status_message)) != NULL;
    for (size_t i = 0; ok && i < count; i++)
        ok = span_set_attr(s, &attrs[i]);
    pthread_mutex_lock(&o->lock);
    ok = ok && o->queued < o->cfg.max_queued_spans;
    if (ok) {
        if (o->tail)
            o->tail->next = s;
        else
            o->head = s;
        o->tail = s;
        o->queued++;
    }
    pthread_mutex_unlock(&o->lock);
    if (!ok) {
        span_free(s);
        atomic_fetch_add(&o->dropped, 1);
    }
}

static void hook_counter(void *user, const char *name, uint64_t value, const sbx_attr *attrs,
                         size_t count)
{
    sbx_otlp *o = user;
    if (!o->cfg.metrics.is_off)
        sbx__store_counter_add(&o->store, name, value, attrs, count);
}

static void hook_histogram(void *user, const char *name, double value, const sbx_attr *attrs,
                           size_t count)
{
    sbx_otlp *o = user;
    if (!o->cfg.metrics.is_off)
        sbx__store_histogram_record(&o->store, name, value, attrs, count);
}

sbx_attr_type sbx__otlp_value_of(const sbx_attr *a, struct sbx__otlp_value *v)
{
    const char *t = a->value ? a->value : "";
    char *end = NULL;
    *v = (struct sbx__otlp_value){SBX_ATTR_STRING, 0, 0, false};
    errno = 0;
    if (a->type == SBX_ATTR_INT) {
        v->i = strtoll(t, &end, 10);
    } else if (a->type == SBX_ATTR_DOUBLE) {
        v->d = strtod(t, &end);
    } else if (a->type == SBX_ATTR_BOOL && (strcmp(t, "true") == 0 || strcmp(t, "false") == 0)) {
        v->b = t[0] == 't';
        return v->type = SBX_ATTR_BOOL;
    }
    if (end && end != t && !*end && errno == 0)
        v->type = a->type;
    return v->type;
}

static size_t span_count(const struct sbx__span *s)
{
    size_t n = 0;
    for (; s; s = s->next)
        n++;
    return n;
}

/* One signal's body to send, with what it carries. */
struct batch {
    struct sbx__buf body;
    struct sbx__span *spans; /* traces */
    uint64_t updates;        /* metrics: store.updates encoded */
    bool is_encoded;
};

static void note(sbx_otlp *o, const char *signal, const char *text)
{
    size_t len = strlen(o->last_error);
    snprintf(o->last_error + len, sizeof(o->last_error) - len, "%s%s: %s", len ? "; " : "", signal,
             text);
}

static void encode_traces(sbx_otlp *o, struct batch *t)
{
    pthread_mutex_lock(&o->lock);
    t->spans = o->head;
    o->head = o->tail = NULL;
    o->queued = 0;
    pthread_mutex_unlock(&o->lock);
    if (!t->spans)
        return;
    bool ok = o->cfg.traces.protocol == SBX__OTLP_JSON
                  ? sbx__otlp_encode_traces(&t->body, o, t->spans)
                  : sbx__otlp_proto_traces(&t->body, o, t->spans);
    t->is_encoded = ok && !t->body.is_truncated;
    if (!t->is_encoded) {
        note(o, "traces", t->body.is_truncated ? "batch over the body limit" : "out of memory");
        atomic_fetch_add(&o->dropped, span_count(t->spans));
    }
}

/* Encodes the cumulative totals unless nothing was recorded since the last export that ended
 * for good (delivered or rejected), or, for destroy, since the last one attempted. */
static void encode_metrics(sbx_otlp *o, struct batch *m, bool is_final)
{
    struct sbx__series **series;
    size_t n;
    if (sbx__store_snapshot(&o->store, &series, &n) != 0) {
        note(o, "metrics", "out of memory");
        return;
    }
    m->updates = o->store.updates;
    if (m->updates != (is_final ? o->tried_updates : o->sent_updates)) {
        uint64_t now = now_unix_ns();
        bool ok = o->cfg.metrics.protocol == SBX__OTLP_JSON
                      ? sbx__otlp_encode_metrics(&m->body, o, series, n, now)
                      : sbx__otlp_proto_metrics(&m->body, o, series, n, now);
        m->is_encoded = ok && !m->body.is_truncated;
        if (!m->is_encoded)
            note(o, "metrics",
                 m->body.is_truncated ? "batch over the body limit" : "out of memory");
    }
    sbx__store_unlock(&o->store);
    sbx__free(series);
}

/* Records a request's outcome: the message, spans dropped (failed or rejected), and which
 * metric totals need not be sent again. */
static void settle(sbx_otlp *o, const struct sbx__otlp_request *q, const struct batch *b,
                   bool is_traces)
{
    if (q->message[0])
        note(o, q->sig->name, q->message);
    if (is_traces) {
        atomic_fetch_add(&o->dropped, q->result != SBX_OK ? span_count(b->spans) : q->rejected);
        return;
    }
    o->tried_updates = b->updates;
    if (q->result == SBX_OK || q->is_permanent)
        o->sent_updates = b->updates;
}

static sbx_err export_all(sbx_otlp *o, bool is_final)
{
    o->last_error[0] = '\0';
    struct batch b[2] = {0};
    sbx__buf_init(&b[0].body, BODY_LIMIT);
    sbx__buf_init(&b[1].body, BODY_LIMIT);
    sbx_err e = SBX_OK;
    encode_traces(o, &b[0]);
    encode_metrics(o, &b[1], is_final);
    if (o->last_error[0])
        e = SBX_E_NOMEM;
    struct sbx__otlp_request reqs[2];
    struct batch *which[2];
    size_t n = 0;
    const struct sbx__otlp_signal *sigs[2] = {&o->cfg.traces, &o->cfg.metrics};
    for (size_t i = 0; i < 2; i++) {
        if (!b[i].is_encoded)
            continue;
        reqs[n] = (struct sbx__otlp_request){
            .sig = sigs[i], .body = b[i].body.data, .len = b[i].body.len};
        which[n++] = &b[i];
    }
    sbx__otlp_send(reqs, n);
    for (size_t i = 0; i < n; i++) {
        settle(o, &reqs[i], which[i], which[i] == &b[0]);
        if (reqs[i].result != SBX_OK)
            e = e == SBX_OK || e == SBX_E_NOMEM ? reqs[i].result : e;
    }
    span_list_free(b[0].spans);
    sbx__buf_free(&b[0].body);
    sbx__buf_free(&b[1].body);
    return e;
}

sbx_err sbx_otlp_flush(sbx_otlp *o)
{
    if (!o)
        return SBX_E_INVALID_ARGUMENT;
    pthread_mutex_lock(&o->flush_lock);
    sbx_err e = export_all(o, false);
    pthread_mutex_unlock(&o->flush_lock);
    return e;
}

static sbx_err otlp_init(sbx_otlp *o)
{
    if (!sbx__curl_get()) {
        snprintf(sbx__otlp_create_error(), 256, "libcurl (libcurl.so.4) cannot be loaded");
        return SBX_E_UNAVAILABLE;
    }
    sbx_err e = sbx__otlp_config_from_env(&o->cfg);
    if (e != SBX_OK)
        return e;
    if (sbx__store_init(&o->store) != 0) {
        sbx__otlp_config_free(&o->cfg);
        return SBX_E_NOMEM;
    }
    pthread_mutex_init(&o->lock, NULL);
    pthread_mutex_init(&o->flush_lock, NULL);
    o->start_ns = now_unix_ns();
    o->hooks = (sbx_telemetry_hooks){.user = o,
                                     .span_start = hook_span_start,
                                     .span_end = hook_span_end,
                                     .counter_add = hook_counter,
                                     .histogram_record = hook_histogram};
    return SBX_OK;
}

sbx_err sbx_otlp_create_from_env(sbx_otlp **out)
{
    if (!out)
        return SBX_E_INVALID_ARGUMENT;
    *out = NULL;
    sbx__otlp_create_error()[0] = '\0';
    sbx_otlp *o = sbx__calloc(1, sizeof(*o));
    if (!o)
        return SBX_E_NOMEM;
    sbx_err e = otlp_init(o);
    if (e != SBX_OK) {
        sbx__free(o);
        return e;
    }
    *out = o;
    return SBX_OK;
}

const sbx_telemetry_hooks *sbx_otlp_hooks(sbx_otlp *o)
{
    return o ? &o->hooks : NULL;
}

uint64_t sbx_otlp_dropped_spans(const sbx_otlp *o)
{
    return o ? atomic_load(&((sbx_otlp *)o)->dropped) : 0;
}

const char *sbx_otlp_last_error(const sbx_otlp *o)
{
    return o ? o->last_error : sbx__otlp_create_error();
}

void sbx_otlp_destroy(sbx_otlp *o)
{
    if (!o)
        return;
    pthread_mutex_lock(&o->flush_lock);
    export_all(o, true);
    pthread_mutex_unlock(&o->flush_lock);
    span_list_free(o->head);
    sbx__store_destroy(&o->store);
    sbx__otlp_config_free(&o->cfg);
    pthread_mutex_destroy(&o->lock);
    pthread_mutex_destroy(&o->flush_lock);
    sbx__free(o);
}

/* telemetry/otlp.c: the OTLP/HTTP exporter: span buffering, metric aggregation, POST over
 * libcurl. Hooks only touch memory (bounded queue, store); the network is used by flush alone. */
#include <inttypes.h>
#include <stdio.h>
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
            return true;
        }
    }
    char *k = s->attr_count < SBX__OTLP_MAX_SPAN_ATTRS ? copy_text(a->key) : NULL;
    if (!k) {
        sbx__free(v);
        return s->attr_count == SBX__OTLP_MAX_SPAN_ATTRS; /* over the limit: dropped by design */
    }
    s->attrs[s->attr_count].key = k;
    s->attrs[s->attr_count].value = v;
    s->attr_count++;
    return true;
}

static void *hook_span_start(void *user, const char *name, const sbx_attr *attrs, size_t count)
{
    sbx_otlp *o = user;
    if (o->cfg.is_traces_off)
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
    if (!o->cfg.is_metrics_off)
        sbx__store_counter_add(&o->store, name, value, attrs, count);
}

static void hook_histogram(void *user, const char *name, double value, const sbx_attr *attrs,
                           size_t count)
{
    sbx_otlp *o = user;
    if (!o->cfg.is_metrics_off)
        sbx__store_histogram_record(&o->store, name, value, attrs, count);
}

static size_t discard_body(char *ptr, size_t size, size_t nmemb, void *user)
{
    (void)ptr;
    (void)user;
    return size * nmemb;
}

/* POSTs body to url; fills o->last_error and returns SBX_E_IO on failure or a non-2xx status. */
static sbx_err post(sbx_otlp *o, const char *url, const char *body, size_t len)
{
    const struct sbx__curl *cu = sbx__curl_get(); /* loaded by otlp_init */
    CURL *curl = cu->easy_init();
    struct curl_slist *hdrs = cu->slist_append(NULL, "Content-Type: application/json");
    for (size_t i = 0; hdrs && i < o->cfg.header_count; i++) {
        struct curl_slist *more = cu->slist_append(hdrs, o->cfg.headers[i]);
        if (!more) {
            cu->slist_free_all(hdrs);
            hdrs = NULL;
        }
        hdrs = more;
    }
    if (!curl || !hdrs) {
        cu->easy_cleanup(curl);
        cu->slist_free_all(hdrs);
        return SBX_E_NOMEM;
    }
    cu->easy_setopt(curl, CURLOPT_URL, url);
    cu->easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    cu->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L); /* hooks' threads must not see SIGALRM */
    cu->easy_setopt(curl, CURLOPT_TIMEOUT_MS, o->cfg.timeout_ms);
    cu->easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);
    cu->easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    cu->easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    cu->easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard_body);
    CURLcode rc = cu->easy_perform(curl);
    long status = 0;
    cu->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    cu->easy_cleanup(curl);
    cu->slist_free_all(hdrs);
    if (rc != CURLE_OK)
        snprintf(o->last_error, sizeof(o->last_error), "POST %s: %s", url, cu->easy_strerror(rc));
    else if (status < 200 || status > 299)
        snprintf(o->last_error, sizeof(o->last_error), "POST %s: HTTP %ld", url, status);
    return rc == CURLE_OK && status >= 200 && status <= 299 ? SBX_OK : SBX_E_IO;
}

static size_t span_count(const struct sbx__span *s)
{
    size_t n = 0;
    for (; s; s = s->next)
        n++;
    return n;
}

static sbx_err flush_traces(sbx_otlp *o)
{
    pthread_mutex_lock(&o->lock);
    struct sbx__span *list = o->head;
    o->head = o->tail = NULL;
    o->queued = 0;
    pthread_mutex_unlock(&o->lock);
    if (!list)
        return SBX_OK;
    struct sbx__buf b;
    sbx__buf_init(&b, BODY_LIMIT);
    sbx_err e = SBX_E_NOMEM;
    if (sbx__otlp_encode_traces(&b, o, list) && !b.is_truncated)
        e = post(o, o->cfg.traces_url, b.data, b.len);
    else if (b.is_truncated)
        snprintf(o->last_error, sizeof(o->last_error), "trace batch over %u bytes", BODY_LIMIT);
    if (e != SBX_OK)
        atomic_fetch_add(&o->dropped, span_count(list));
    sbx__buf_free(&b);
    span_list_free(list);
    return e;
}

/* Sends the cumulative totals unless nothing was recorded since the last successful send (so
 * flush followed by destroy does not post the same totals twice). */
static sbx_err flush_metrics(sbx_otlp *o)
{
    struct sbx__buf b;
    sbx__buf_init(&b, BODY_LIMIT);
    uint64_t updates = 0;
    sbx_err e = SBX_E_NOMEM;
    if (sbx__otlp_encode_metrics(&b, o, now_unix_ns(), &updates) && !b.is_truncated)
        e = updates == o->sent_updates ? SBX_OK : post(o, o->cfg.metrics_url, b.data, b.len);
    if (e == SBX_OK)
        o->sent_updates = updates;
    sbx__buf_free(&b);
    return e;
}

sbx_err sbx_otlp_flush(sbx_otlp *o)
{
    if (!o)
        return SBX_E_INVALID_ARGUMENT;
    pthread_mutex_lock(&o->flush_lock);
    o->last_error[0] = '\0';
    sbx_err e = flush_traces(o);
    sbx_err m = flush_metrics(o);
    pthread_mutex_unlock(&o->flush_lock);
    return e != SBX_OK ? e : m;
}

static sbx_err otlp_init(sbx_otlp *o)
{
    if (!sbx__curl_get())
        return SBX_E_UNAVAILABLE;
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
    return o ? o->last_error : "";
}

void sbx_otlp_destroy(sbx_otlp *o)
{
    if (!o)
        return;
    sbx_otlp_flush(o);
    span_list_free(o->head);
    sbx__store_destroy(&o->store);
    sbx__otlp_config_free(&o->cfg);
    pthread_mutex_destroy(&o->lock);
    pthread_mutex_destroy(&o->flush_lock);
    sbx__free(o);
}

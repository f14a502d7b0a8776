/* bindings/node/src/telemetry.c: libsbx's own telemetry hooks (sbx_telemetry_set_hooks),
 * forwarded to a JS sink that feeds @opentelemetry/api. Hooks fire on any thread; each event
 * is copied and queued to the JS thread, so a run never waits on JS. The spans and metrics are
 * exactly libsbx's: names, attributes and outcomes are not re-derived here. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "addon.h"

enum event_kind { EV_SPAN_START, EV_SPAN_END, EV_COUNTER, EV_HISTOGRAM };

static const char *const kind_names[] = {"spanStart", "spanEnd", "counter", "histogram"};

struct event {
    enum event_kind kind;
    char *name, *status;
    double value, time_ms;
    uint64_t span;
    bool is_error;
    size_t attr_count;
    sbx_attr attrs[]; /* keys and values strdup'd */
};

static napi_threadsafe_function sink_tsfn;
static atomic_uint_fast64_t next_span = 1;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void event_free(struct event *e)
{
    for (size_t i = 0; i < e->attr_count; i++) {
        free((char *)e->attrs[i].key);
        free((char *)e->attrs[i].value);
    }
    free(e->name);
    free(e->status);
    free(e);
}

/* Queues one event; dropped (never blocking the run) when memory or the queue fails. */
static void emit(enum event_kind kind, const char *name, double value, uint64_t span,
                 const sbx_attr *attrs, size_t n, bool is_error, const char *status)
{
    struct event *e = calloc(1, sizeof(*e) + n * sizeof(sbx_attr));
    if (!e)
        return;
    *e = (struct event){kind,
                        name ? strdup(name) : NULL,
                        status ? strdup(status) : NULL,
                        value,
                        now_ms(),
                        span,
                        is_error,
                        0};
    for (size_t i = 0; i < n; i++, e->attr_count++)
        e->attrs[i] = (sbx_attr){strdup(attrs[i].key ? attrs[i].key : ""),
                                 strdup(attrs[i].value ? attrs[i].value : ""), attrs[i].type};
    if (!sink_tsfn || napi_call_threadsafe_function(sink_tsfn, e, napi_tsfn_nonblocking) != napi_ok)
        event_free(e);
}

static void *span_start(void *user, const char *name, const sbx_attr *attrs, size_t n)
{
    (void)user;
    uint64_t id = atomic_fetch_add(&next_span, 1);
    emit(EV_SPAN_START, name, 0, id, attrs, n, false, NULL);
    return (void *)(uintptr_t)id;
}

static void span_end(void *user, void *span, const sbx_attr *attrs, size_t n, bool is_error,
                     const char *status)
{
    (void)user;
    emit(EV_SPAN_END, NULL, 0, (uint64_t)(uintptr_t)span, attrs, n, is_error, status);
}

static void counter_add(void *user, const char *name, uint64_t v, const sbx_attr *attrs, size_t n)
{
    (void)user;
    emit(EV_COUNTER, name, (double)v, 0, attrs, n, false, NULL);
}

static void histogram_record(void *user, const char *name, double v, const sbx_attr *attrs,
                             size_t n)
{
    (void)user;
    emit(EV_HISTOGRAM, name, v, 0, attrs, n, false, NULL);
}

/* JS thread: sink({kind, name, value, span, attributes, isError, status, timeMs}). */
static void sink_call_js(napi_env env, napi_value sink, void *context, void *data)
{
    (void)context;
    struct event *e = data;
    if (env) {
        napi_value o, attrs, v, undef;
        napi_create_object(env, &o);
        napi_create_object(env, &attrs);
        for (size_t i = 0; i < e->attr_count; i++)
            napi_set_named_property(env, attrs, e->attrs[i].key,
                                    sbx_node_str(env, e->attrs[i].value));
        napi_set_named_property(env, o, "kind", sbx_node_str(env, kind_names[e->kind]));
        if (e->name)
            napi_set_named_property(env, o, "name", sbx_node_str(env, e->name));
        napi_create_double(env, e->value, &v);
        napi_set_named_property(env, o, "value", v);
        napi_create_double(env, (double)e->span, &v);
        napi_set_named_property(env, o, "span", v);
        napi_create_double(env, e->time_ms, &v);
        napi_set_named_property(env, o, "timeMs", v);
        napi_get_boolean(env, e->is_error, &v);
        napi_set_named_property(env, o, "isError", v);
        if (e->status)
            napi_set_named_property(env, o, "status", sbx_node_str(env, e->status));
        napi_set_named_property(env, o, "attributes", attrs);
        napi_get_undefined(env, &undef);
        if (napi_call_function(env, undef, sink, 1, &o, NULL) != napi_ok) {
            napi_value exc; /* a failing sink must not take the process down */
            napi_get_and_clear_last_exception(env, &exc);
        }
    }
    event_free(e);
}

static void uninstall(void *arg)
{
    (void)arg;
    sbx_telemetry_set_hooks(NULL);
    sink_tsfn = NULL;
}

/* telemetryInstall(sink): installs the hooks process-wide, once, before any run. */
static napi_value telemetry_install(napi_env env, napi_callback_info info)
{
    napi_value argv[1], name = sbx_node_str(env, "sbx.telemetry");
    if (!sbx_node_args(env, info, 1, argv, NULL))
        return NULL;
    if (sink_tsfn)
        return sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, "telemetry is already installed");
    if (napi_create_threadsafe_function(env, argv[0], NULL, name, 0, 1, NULL, NULL, NULL,
                                        sink_call_js, &sink_tsfn) != napi_ok)
        return sbx_node_throw(env, SBX_E_NOMEM, "cannot create a threadsafe function");
    napi_unref_threadsafe_function(env, sink_tsfn);
    napi_add_env_cleanup_hook(env, uninstall, NULL);
    static const sbx_telemetry_hooks hooks = {
        .span_start = span_start,
        .span_end = span_end,
        .counter_add = counter_add,
        .histogram_record = histogram_record,
    };
    sbx_telemetry_set_hooks(&hooks);
    return NULL;
}

void sbx_node_init_telemetry(napi_env env, napi_value exports)
{
    static const struct sbx_node_fn fns[] = {{"telemetryInstall", telemetry_install}};
    sbx_node_define(env, exports, fns, 1);
}

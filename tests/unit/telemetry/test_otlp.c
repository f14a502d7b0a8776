/* tests/unit/telemetry/test_otlp.c: the OTLP/HTTP JSON exporter against a real receiver
 * (tests/telemetry/otlp_receiver.js on 127.0.0.1): payload shape, IDs, 64-bit integers as
 * strings, headers, HTTP failures, the bounded span buffer, env validation, 8 concurrent threads.
 * (Retries and the time bound: test_otlp_retry.c.) */
#include "otlp_util.h"

START_TEST(test_payload_shape)
{
    struct receiver r;
    if (!receiver_start(&r, 2, 200) && node_missing("test_payload_shape"))
        return;
    use_protocol(_i);
    setenv("OTEL_SERVICE_NAME", "sbx-test", 1);
    setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=abc%20def , x-tenant = t1", 1);
    sbx_otlp *o = exporter(NULL, 0);
    const sbx_telemetry_hooks *h = sbx_otlp_hooks(o);
    emit_run(h, "wasm", false);
    emit_run(h, "wasm", true);
    sbx_attr cap = {"capability", "fs.write", SBX_ATTR_STRING};
    h->counter_add(h->user, "plugin.permission_denied_total", 5000000000ull, &cap, 1);
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_OK);
    ck_assert_str_eq(sbx_otlp_last_error(o), "");
    json_t *all = receiver_finish(&r);
    ck_assert_int_eq(json_array_size(all), 2);
    json_t *rec = json_array_get(all, 0);
    json_t *hdrs = json_object_get(rec, "headers");
    check_request(rec, _i);
    check_request(json_array_get(all, 1), _i);
    ck_assert_str_eq(json_string_value(json_object_get(hdrs, "x-api-key")), "abc def");
    ck_assert_str_eq(json_string_value(json_object_get(hdrs, "x-tenant")), "t1");
    check_spans(request_body(all, "/v1/traces"));
    check_metrics(request_body(all, "/v1/metrics"));
    json_decref(all);
    ck_assert_int_eq(sbx_otlp_dropped_spans(o), 0);
    /* Nothing new: no request at all (the receiver is gone, so any POST would fail). */
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_OK);
    h->counter_add(h->user, "plugin.permission_denied_total", 1, &cap, 1);
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_E_IO);
    sbx_otlp_destroy(o); /* its final flush fails too: the totals were never delivered */
}
END_TEST

START_TEST(test_http_error_status)
{
    struct receiver r;
    if (!receiver_start(&r, 2, 500) && node_missing("test_http_error_status"))
        return;
    sbx_otlp *o = exporter("worker", 3);
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_E_IO);
    ck_assert_ptr_nonnull(strstr(sbx_otlp_last_error(o), "HTTP 500"));
    ck_assert_int_eq(sbx_otlp_dropped_spans(o), 3);
    json_decref(receiver_finish(&r));
    sbx_otlp_destroy(o);
}
END_TEST

START_TEST(test_connection_refused)
{
    endpoint_refused();
    sbx_otlp *o = exporter(NULL, 0);
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_OK); /* nothing buffered: nothing sent */
    emit_run(sbx_otlp_hooks(o), "process", true);
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_E_IO);
    ck_assert_ptr_nonnull(strstr(sbx_otlp_last_error(o), "POST http://127.0.0.1:"));
    ck_assert_int_eq(sbx_otlp_dropped_spans(o), 1);
    sbx_otlp_destroy(o);
}
END_TEST

START_TEST(test_bounded_span_buffer)
{
    endpoint_refused();
    setenv("OTEL_BSP_MAX_QUEUE_SIZE", "4", 1);
    sbx_otlp *o = exporter(NULL, 0);
    const sbx_telemetry_hooks *h = sbx_otlp_hooks(o);
    for (int i = 0; i < 10; i++)
        h->span_end(h->user, h->span_start(h->user, "s", NULL, 0), NULL, 0, false, NULL);
    ck_assert_int_eq(sbx_otlp_dropped_spans(o), 6);
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_E_IO);
    ck_assert_int_eq(sbx_otlp_dropped_spans(o), 10);
    void *open[5];
    for (int i = 0; i < 5; i++)
        open[i] = h->span_start(h->user, "in-flight", NULL, 0);
    ck_assert_ptr_nonnull(open[3]);
    ck_assert_ptr_null(open[4]); /* spans in flight count against the bound too */
    for (int i = 0; i < 5; i++)
        h->span_end(h->user, open[i], NULL, 0, false, NULL);
    sbx_otlp_destroy(o);
}
END_TEST

/* Typed attributes: intValue as a decimal string (JSON), doubleValue, boolValue, in both
 * encodings; text that does not parse as its type is sent as a string. */
START_TEST(test_typed_attributes)
{
    struct receiver r;
    if (!receiver_start(&r, 1, 200) && node_missing("test_typed_attributes"))
        return;
    use_protocol(_i);
    sbx_otlp *o = exporter(NULL, 0);
    const sbx_telemetry_hooks *h = sbx_otlp_hooks(o);
    sbx_attr attrs[] = {
        {"exit_code", "42", SBX_ATTR_INT},
        {"signal", "-9", SBX_ATTR_INT},
        {"big", "9007199254740993", SBX_ATTR_INT},
        {"duration_ms", "2.5", SBX_ATTR_DOUBLE},
        {"ok", "true", SBX_ATTR_BOOL},
        {"truncated", "false", SBX_ATTR_BOOL},
        {"bad_int", "4x", SBX_ATTR_INT},
        {"bad_bool", "yes", SBX_ATTR_BOOL},
        {"text", "7", SBX_ATTR_STRING},
    };
    size_t n = sizeof(attrs) / sizeof(attrs[0]);
    h->span_end(h->user, h->span_start(h->user, "typed", NULL, 0), attrs, n, false, NULL);
    json_t *all = flushed(o, &r);
    check_request(json_array_get(all, 0), _i);
    json_t *rs = json_object_get(request_body(all, "/v1/traces"), "resourceSpans");
    json_t *ss = json_array_get(json_object_get(json_array_get(rs, 0), "scopeSpans"), 0);
    json_t *got = json_object_get(json_array_get(json_object_get(ss, "spans"), 0), "attributes");
    ck_assert_int_eq(json_array_size(got), n);
    json_t *v = json_object_get(attr_value(got, "exit_code"), "intValue");
    ck_assert_msg(json_is_string(v), "intValue must be a string");
    ck_assert_str_eq(json_string_value(v), "42");
    ck_assert_str_eq(json_string_value(json_object_get(attr_value(got, "signal"), "intValue")),
                     "-9");
    ck_assert_str_eq(json_string_value(json_object_get(attr_value(got, "big"), "intValue")),
                     "9007199254740993"); /* beyond a double's exact range */
    ck_assert_double_eq(
        json_number_value(json_object_get(attr_value(got, "duration_ms"), "doubleValue")), 2.5);
    ck_assert(json_is_true(json_object_get(attr_value(got, "ok"), "boolValue")));
    ck_assert(json_is_false(json_object_get(attr_value(got, "truncated"), "boolValue")));
    ck_assert_str_eq(attr(got, "bad_int"), "4x");
    ck_assert_str_eq(attr(got, "bad_bool"), "yes");
    ck_assert_str_eq(attr(got, "text"), "7");
    json_decref(all);
    sbx_otlp_destroy(o);
}
END_TEST

/* OTEL_RESOURCE_ATTRIBUTES: percent-decoded keys and values merged into the resource;
 * OTEL_SERVICE_NAME wins over a service.name given there, which is used when it is unset. */
START_TEST(test_resource_attributes)
{
    for (int with_name = 1; with_name >= 0; with_name--) {
        struct receiver r;
        if (!receiver_start(&r, 1, 200) && node_missing("test_resource_attributes"))
            return;
        setenv("OTEL_RESOURCE_ATTRIBUTES",
               "deployment.environment=prod%20eu , service.name=from-res,%6Bey=a%2Cb,"
               "telemetry.sdk.name=not-sbx,empty=",
               1);
        if (with_name)
            setenv("OTEL_SERVICE_NAME", "from-env", 1);
        else
            unsetenv("OTEL_SERVICE_NAME");
        setenv("OTEL_METRICS_EXPORTER", "none", 1);
        sbx_otlp *o = exporter("worker", 1);
        json_t *all = flushed(o, &r);
        json_t *rs = json_object_get(request_body(all, "/v1/traces"), "resourceSpans");
        json_t *res =
            json_object_get(json_object_get(json_array_get(rs, 0), "resource"), "attributes");
        ck_assert_str_eq(attr(res, "deployment.environment"), "prod eu");
        ck_assert_str_eq(attr(res, "key"), "a,b");
        ck_assert_str_eq(attr(res, "empty"), "");
        ck_assert_str_eq(attr(res, "service.name"), with_name ? "from-env" : "from-res");
        ck_assert_str_eq(attr(res, "telemetry.sdk.name"), "sbx");
        ck_assert_int_eq(json_array_size(res), 6); /* one service.name, one sdk.name */
        json_decref(all);
        sbx_otlp_destroy(o);
    }
}
END_TEST

/* 429 and 503 with Retry-After: the POST is sent again no sooner than the collector asked, the
 * flush succeeds, and no failure is reported for a request that then succeeded. */
START_TEST(test_per_signal_settings)
{
    struct receiver r;
    if (!receiver_script(&r, 2, "/v1/traces=hang;/v1/metrics=200", 20000) &&
        node_missing("test_per_signal_settings"))
        return;
    setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "30000", 1);
    setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "800", 1);
    setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-all=1", 1);
    setenv("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "x-metrics=2", 1);
    setenv("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/json", 1);
    sbx_otlp *o = exporter("worker", 1);
    double t0 = now_ms();
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_E_IO);
    double took = now_ms() - t0;
    ck_assert_msg(took >= 700 && took < 800 + 2000, "flush took %.0f ms, traces timeout 800", took);
    const char *err = sbx_otlp_last_error(o);
    ck_assert_ptr_nonnull(strstr(err, "traces: POST "));
    ck_assert_ptr_nonnull(strstr(err, "within the 800 ms timeout"));
    ck_assert_ptr_null(strstr(err, "metrics"));
    json_t *all = receiver_kill(&r);
    json_t *t = NULL, *m = NULL;
    requests_to(all, "/v1/traces", &t, NULL);
    requests_to(all, "/v1/metrics", &m, NULL);
    json_t *th = json_object_get(t, "headers"), *mh = json_object_get(m, "headers");
    ck_assert_str_eq(json_string_value(json_object_get(th, "x-all")), "1");
    ck_assert_ptr_null(json_object_get(th, "x-metrics"));
    ck_assert_str_eq(json_string_value(json_object_get(mh, "x-metrics")), "2");
    ck_assert_ptr_null(json_object_get(mh, "x-all"));
    ck_assert_str_eq(json_string_value(json_object_get(th, "content-type")),
                     "application/x-protobuf");
    ck_assert_str_eq(json_string_value(json_object_get(mh, "content-type")), "application/json");
    json_decref(all);
    sbx_otlp_destroy(o);
}
END_TEST

/* Headers: an empty value is sent, keys are percent-decoded as values are. */
START_TEST(test_header_forms)
{
    struct receiver r;
    if (!receiver_start(&r, 1, 200) && node_missing("test_header_forms"))
        return;
    setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-empty=,x%2Dkey=v%3D1,x-spaced = a b ", 1);
    setenv("OTEL_TRACES_EXPORTER", "none", 1);
    sbx_otlp *o = exporter("worker", 1);
    json_t *all = flushed(o, &r);
    json_t *h = json_object_get(json_array_get(all, 0), "headers");
    ck_assert_str_eq(json_string_value(json_object_get(h, "x-empty")), "");
    ck_assert_str_eq(json_string_value(json_object_get(h, "x-key")), "v=1");
    ck_assert_str_eq(json_string_value(json_object_get(h, "x-spaced")), "a b");
    json_decref(all);
    sbx_otlp_destroy(o);
}
END_TEST

/* partialSuccess with rejected items: the flush succeeded, the rejection is reported through
 * sbx_otlp_last_error, rejected spans are counted as dropped, and the metrics count as sent. */
START_TEST(test_partial_success)
{
    struct receiver r;
    if (!receiver_script(&r, 2, "/v1/traces=partial;/v1/metrics=partial", 1000) &&
        node_missing("test_partial_success"))
        return;
    use_protocol(_i);
    sbx_otlp *o = exporter("wasm", 3);
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_OK);
    ck_assert_str_eq(sbx_otlp_last_error(o),
                     "traces: collector rejected 2 spans: two were bad; "
                     "metrics: collector rejected 2 data points: two were bad");
    ck_assert_int_eq(sbx_otlp_dropped_spans(o), 2);
    sbx_otlp_destroy(o);
    json_t *all = receiver_finish(&r);
    ck_assert_int_eq(json_array_size(all), 2);
    json_decref(all);
}
END_TEST

/* grpc is not spoken: warned about once, sent as http/protobuf; another value is rejected. */
START_TEST(test_grpc_protocol)
{
    struct receiver r;
    if (!receiver_start(&r, 2, 200) && node_missing("test_grpc_protocol"))
        return;
    setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", 1);
    sbx_otlp *o = exporter("wasm", 1);
    /* The warning goes to the caller, never to the host's stderr (#29 item 5). */
    ck_assert_str_eq(sbx_otlp_last_error(NULL),
                     "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not "
                     "supported; sending http/protobuf over HTTP instead");
    json_t *all = flushed(o, &r);
    check_request(json_array_get(all, 0), 0);
    json_decref(all);
    sbx_otlp_destroy(o);
}
END_TEST

static const struct {
    const char *var, *value;
    sbx_err want;
} ENV_CASES[] = {
    {"OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://collector:21", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "localhost:4318", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "file:///etc/passwd", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_TIMEOUT", "abc", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_TIMEOUT", "-5", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_TIMEOUT", "0", SBX_E_INVALID_OPTIONS},
    {"OTEL_BSP_MAX_QUEUE_SIZE", "0", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_HEADERS", "novalue", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_HEADERS", "=v", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_HEADERS", "a=b%0d%0aX-Evil: 1", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_HEADERS", "a=b%00c", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_HEADERS", "a=b,,c=d,", SBX_OK},
    {"OTEL_EXPORTER_OTLP_TIMEOUT", "250", SBX_OK},
    {"OTEL_EXPORTER_OTLP_ENDPOINT", "https://collector.example:4318/", SBX_OK},
    {"OTEL_TRACES_EXPORTER", "zipkin", SBX_E_INVALID_OPTIONS},
    {"OTEL_METRICS_EXPORTER", "console", SBX_E_INVALID_OPTIONS},
    {"OTEL_METRICS_EXPORTER", "otlp,console", SBX_E_INVALID_OPTIONS},
    {"OTEL_TRACES_EXPORTER", "otlp", SBX_OK},
    {"OTEL_METRICS_EXPORTER", "none", SBX_OK},
    {"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "x", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "3600001", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "3600000", SBX_OK},
    {"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "a b=c", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_METRICS_HEADERS", "a:b=c", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_HEADERS", "a%0A=c", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_HEADERS", "x-empty=", SBX_OK},
    {"OTEL_EXPORTER_OTLP_PROTOCOL", "http/xml", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "HTTP/JSON", SBX_E_INVALID_OPTIONS},
    {"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", SBX_OK},
    {"OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf", SBX_OK},
    {"OTEL_RESOURCE_ATTRIBUTES", "no-equals", SBX_E_INVALID_OPTIONS},
    {"OTEL_RESOURCE_ATTRIBUTES", "=v", SBX_E_INVALID_OPTIONS},
    {"OTEL_RESOURCE_ATTRIBUTES", "k=a%00b", SBX_E_INVALID_OPTIONS},
    {"OTEL_RESOURCE_ATTRIBUTES", "k=v,k2=v%20x,,", SBX_OK},
};

START_TEST(test_env_validation)
{
    sbx_otlp *o = (sbx_otlp *)&o;
    setenv(ENV_CASES[_i].var, ENV_CASES[_i].value, 1);
    ck_assert_int_eq(sbx_otlp_create_from_env(&o), ENV_CASES[_i].want);
    if (ENV_CASES[_i].want != SBX_OK) {
        ck_assert_ptr_null(o);
        const char *why = sbx_otlp_last_error(NULL);
        ck_assert_msg(strncmp(why, ENV_CASES[_i].var, strlen(ENV_CASES[_i].var)) == 0 &&
                          why[strlen(ENV_CASES[_i].var)] == ':',
                      "'%s' does not name %s", why, ENV_CASES[_i].var);
        return;
    }
    ck_assert_str_eq(sbx_otlp_last_error(NULL), "");
    sbx_otlp_destroy(o); /* nothing buffered: sends nothing */
}
END_TEST

START_TEST(test_null_arguments)
{
    ck_assert_int_eq(sbx_otlp_create_from_env(NULL), SBX_E_INVALID_ARGUMENT);
    ck_assert_int_eq(sbx_otlp_flush(NULL), SBX_E_INVALID_ARGUMENT);
    ck_assert_ptr_null(sbx_otlp_hooks(NULL));
    ck_assert_int_eq(sbx_otlp_dropped_spans(NULL), 0);
    sbx_otlp_destroy(NULL);
}
END_TEST

START_TEST(test_signal_endpoints)
{
    struct receiver r;
    if (!receiver_start(&r, 2, 200) && node_missing("test_signal_endpoints"))
        return;
    char url[96];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/custom/traces", r.port);
    setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", url, 1);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d//", r.port);
    setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url, 1);
    sbx_otlp *o = exporter("worker", 1);
    json_t *all = flushed(o, &r);
    ck_assert_ptr_nonnull(request_body(all, "/custom/traces"));
    json_t *rm = json_object_get(request_body(all, "/v1/metrics"), "resourceMetrics");
    json_t *res = json_object_get(json_array_get(rm, 0), "resource");
    const char *svc = attr(json_object_get(res, "attributes"), "service.name");
    ck_assert_str_eq(svc, "unknown_service:test_otlp"); /* the specification's default */
    json_decref(all);
    sbx_otlp_destroy(o);
}
END_TEST

/* OTEL_{TRACES,METRICS}_EXPORTER=none: that signal is neither recorded nor sent. The receiver
 * takes one request, so a POST of the other signal would fail the flush. */
static void one_signal_off(const char *off_var, const char *want_path)
{
    struct receiver r;
    if (!receiver_start(&r, 1, 200) && node_missing("test_exporter_none"))
        return;
    setenv(off_var, "none", 1);
    sbx_otlp *o = exporter("wasm", 1);
    ck_assert_int_eq(sbx_otlp_dropped_spans(o), 0);
    json_t *all = flushed(o, &r);
    ck_assert_uint_eq(json_array_size(all), 1);
    ck_assert_ptr_nonnull(request_body(all, want_path));
    json_decref(all);
    sbx_otlp_destroy(o); /* nothing recorded since: no request */
    unsetenv(off_var);
}

START_TEST(test_exporter_none)
{
    one_signal_off("OTEL_TRACES_EXPORTER", "/v1/metrics");
    one_signal_off("OTEL_METRICS_EXPORTER", "/v1/traces");
}
END_TEST

#define THREADS    8
#define PER_THREAD 500

static void *writer(void *arg)
{
    static const char *const backends[] = {"worker", "process", "wasm"};
    for (int i = 0; i < PER_THREAD; i++)
        emit_run(arg, backends[i % 3], i % 5 == 0);
    return NULL;
}

START_TEST(test_concurrent_threads)
{
    struct receiver r;
    if (!receiver_start(&r, 2, 200) && node_missing("test_concurrent_threads"))
        return;
    setenv("OTEL_BSP_MAX_QUEUE_SIZE", "100000", 1);
    sbx_otlp *o = exporter(NULL, 0);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, writer, (void *)sbx_otlp_hooks(o)), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    json_t *all = flushed(o, &r);
    json_t *rs = json_object_get(request_body(all, "/v1/traces"), "resourceSpans");
    json_t *ss = json_array_get(json_object_get(json_array_get(rs, 0), "scopeSpans"), 0);
    ck_assert_int_eq(json_array_size(json_object_get(ss, "spans")), THREADS * PER_THREAD);
    json_t *rm = json_object_get(request_body(all, "/v1/metrics"), "resourceMetrics");
    json_t *sm = json_array_get(json_object_get(json_array_get(rm, 0), "scopeMetrics"), 0);
    json_t *runs =
        json_object_get(metric(json_object_get(sm, "metrics"), "sandbox.runs_total"), "sum");
    unsigned long long total = 0;
    size_t i;
    json_t *dp;
    json_array_foreach(json_object_get(runs, "dataPoints"), i, dp) total +=
        u64_string(json_object_get(dp, "asInt"), "asInt");
    ck_assert_int_eq(total, THREADS * PER_THREAD);
    ck_assert_int_eq(json_array_size(json_object_get(runs, "dataPoints")), 6);
    json_decref(all);
    ck_assert_int_eq(sbx_otlp_dropped_spans(o), 0);
    sbx_otlp_destroy(o);
}
END_TEST

/* Fails the 1st, 2nd, ... allocation of create + spans + metrics + flush (to a refused port):
 * never a crash or leak; a span that could not be stored is counted as dropped. */
START_TEST(test_alloc_failure_walk)
{
    endpoint_refused();
    unsigned long n, ok_run = 0;
    for (n = 1; n < 10000 && ok_run < 32; n++) {
        sbx_otlp *o = NULL;
        sbx__alloc_fail_at(n);
        sbx_err e = sbx_otlp_create_from_env(&o);
        ck_assert(e == SBX_OK || e == SBX_E_NOMEM);
        bool is_complete = false;
        if (e == SBX_OK) {
            emit_run(sbx_otlp_hooks(o), "wasm", true);
            e = sbx_otlp_flush(o);
            ck_assert(e == SBX_E_IO || e == SBX_E_NOMEM);
            is_complete = e == SBX_E_IO && strstr(sbx_otlp_last_error(o), "POST ") != NULL;
        }
        sbx__alloc_fail_at(0);
        ok_run = is_complete ? ok_run + 1 : 0;
        ck_assert(o == NULL || sbx_otlp_dropped_spans(o) == 1);
        sbx_otlp_destroy(o);
    }
    ck_assert_int_lt(n, 10000);
}
END_TEST

int main(void)
{
    otlp_test_env();
    Suite *s = suite_create("telemetry_otlp");
    TCase *tc = tcase_create("otlp");
    tcase_set_timeout(tc, TIMEOUT_S);
    tcase_add_loop_test(tc, test_payload_shape, 0, (int)(sizeof(PROTOCOLS) / sizeof(PROTOCOLS[0])));
    tcase_add_test(tc, test_exporter_none);
    tcase_add_loop_test(tc, test_typed_attributes, 0, 2);
    tcase_add_test(tc, test_resource_attributes);
    tcase_add_test(tc, test_per_signal_settings);
    tcase_add_test(tc, test_header_forms);
    tcase_add_loop_test(tc, test_partial_success, 0, 2);
    tcase_add_test(tc, test_grpc_protocol);
    tcase_add_test(tc, test_http_error_status);
    tcase_add_test(tc, test_connection_refused);
    tcase_add_test(tc, test_bounded_span_buffer);
    tcase_add_loop_test(tc, test_env_validation, 0,
                        (int)(sizeof(ENV_CASES) / sizeof(ENV_CASES[0])));
    tcase_add_test(tc, test_null_arguments);
    tcase_add_test(tc, test_signal_endpoints);
    tcase_add_test(tc, test_concurrent_threads);
    tcase_add_test(tc, test_alloc_failure_walk);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

/* tests/unit/telemetry/test_otlp.c: the OTLP/HTTP JSON exporter against a real receiver
 * (tests/telemetry/otlp_receiver.js on 127.0.0.1): payload shape, IDs, 64-bit integers as
 * strings, headers, HTTP failures, the bounded span buffer, env validation, 8 concurrent threads.
 */
#include <check.h>
#include <ctype.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sbx.h>

#include "telemetry/curl.h"
#include "util/alloc.h"
#include "sbx_test.h"

#define TIMEOUT_S 60
#define RECEIVER  "tests/telemetry/otlp_receiver.js"

extern char **environ;

struct receiver {
    pid_t pid;
    int port;
    char dir[64];
    char out[128];
};

/* Starts the node receiver answering count requests as script says (see otlp_receiver.js; NULL:
 * 200 to all), staying linger_ms after the last; returns false if node is absent. */
static bool receiver_script(struct receiver *r, int count, const char *script, int linger_ms)
{
    if (system("command -v node >/dev/null 2>&1") != 0)
        return false;
    snprintf(r->dir, sizeof(r->dir), "/tmp/sbx-otlp-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(r->dir));
    snprintf(r->out, sizeof(r->out), "%s/requests.jsonl", r->dir);
    char count_s[16], linger_s[16];
    snprintf(count_s, sizeof(count_s), "%d", count);
    snprintf(linger_s, sizeof(linger_s), "%d", linger_ms);
    char *argv[] = {"node",        RECEIVER, "--out",        r->out,
                    "--count",     count_s,  "--script",     (char *)(script ? script : ""),
                    "--linger-ms", linger_s, "--timeout-ms", "30000",
                    NULL};
    int fds[2];
    ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    ck_assert_int_eq(posix_spawnp(&r->pid, "node", &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    char line[32] = {0};
    size_t n = 0;
    while (n < sizeof(line) - 1 && read(fds[0], line + n, 1) == 1 && line[n] != '\n')
        n++;
    close(fds[0]);
    r->port = (int)strtol(line, NULL, 10);
    ck_assert_msg(r->port > 0, "receiver gave no port: '%s'", line);
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", r->port);
    setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url, 1);
    return true;
}

/* Answers status to count requests on either path. */
static bool receiver_start(struct receiver *r, int count, int status)
{
    char script[64];
    snprintf(script, sizeof(script), "/v1/traces=%d;/v1/metrics=%d", status, status);
    return receiver_script(r, count, script, 0);
}

/* Waits for the receiver to exit and returns its requests, one JSON object each. */
static json_t *receiver_finish(struct receiver *r)
{
    int st;
    ck_assert_int_eq(waitpid(r->pid, &st, 0), r->pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "receiver status %d", st);
    FILE *f = fopen(r->out, "r");
    ck_assert_ptr_nonnull(f);
    json_t *all = json_array();
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        json_error_t err;
        json_t *rec = json_loads(line, 0, &err);
        ck_assert_msg(rec != NULL, "bad record: %s", err.text);
        json_array_append_new(all, rec);
    }
    free(line);
    fclose(f);
    unlink(r->out);
    rmdir(r->dir);
    return all;
}

/* Stops a receiver left answering nothing (hang, drip) and returns its requests. */
static json_t *receiver_kill(struct receiver *r)
{
    kill(r->pid, SIGTERM);
    return receiver_finish(r);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The records sent to path, in order. */
static size_t requests_to(json_t *all, const char *path, json_t **first, json_t **second)
{
    size_t i, n = 0;
    json_t *rec;
    json_array_foreach(all, i, rec)
    {
        if (strcmp(json_string_value(json_object_get(rec, "path")), path) != 0)
            continue;
        if (n == 0 && first)
            *first = rec;
        if (n == 1 && second)
            *second = rec;
        n++;
    }
    return n;
}

static bool node_missing(const char *test)
{
    printf("SKIP %s: node not found (Debian package nodejs)\n", test);
    return true;
}

/* Points the exporter at a port nothing listens on. */
static void endpoint_refused(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", ntohs(a.sin_port));
    setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url, 1);
}

static json_t *request_body(json_t *all, const char *path)
{
    size_t i;
    json_t *rec;
    json_array_foreach(all, i, rec)
    {
        if (strcmp(json_string_value(json_object_get(rec, "path")), path) == 0)
            return json_object_get(rec, "body");
    }
    ck_abort_msg("no request to %s", path);
    return NULL;
}

static bool is_hex(const char *s, size_t len)
{
    if (!s || strlen(s) != len)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
            return false;
    }
    return strspn(s, "0") != len; /* all-zero IDs are invalid */
}

/* A 64-bit integer in OTLP/JSON: a string of decimal digits. Returns its value. */
static unsigned long long u64_string(json_t *v, const char *what)
{
    const char *s = json_string_value(v);
    ck_assert_msg(s && s[0] && strspn(s, "0123456789") == strlen(s), "%s is not a decimal string",
                  what);
    return strtoull(s, NULL, 10);
}

/* The AnyValue of key in an attribute list, or NULL. */
static json_t *attr_value(json_t *attrs, const char *key)
{
    size_t i;
    json_t *a;
    json_array_foreach(attrs, i, a)
    {
        if (strcmp(json_string_value(json_object_get(a, "key")), key) == 0)
            return json_object_get(a, "value");
    }
    return NULL;
}

static const char *attr(json_t *attrs, const char *key)
{
    return json_string_value(json_object_get(attr_value(attrs, key), "stringValue"));
}

static json_t *only(json_t *arr, const char *what)
{
    ck_assert_msg(json_is_array(arr) && json_array_size(arr) == 1, "%s: want one element", what);
    return json_array_get(arr, 0);
}

static void emit_run(const sbx_telemetry_hooks *h, const char *backend, bool is_error)
{
    sbx_attr start[] = {{"backend", backend, SBX_ATTR_STRING}};
    void *span = h->span_start(h->user, "sandbox.run", start, 1);
    const char *outcome = is_error ? "SAND_WASM_TRAP" : "ok";
    sbx_attr end[] = {{"backend", backend, SBX_ATTR_STRING},
                      {"outcome", outcome, SBX_ATTR_STRING},
                      {"error.code", outcome, SBX_ATTR_STRING}};
    h->span_end(h->user, span, end, 3, is_error,
                is_error ? "guest trapped: \"unreachable\"" : NULL);
    h->counter_add(h->user, "sandbox.runs_total", 1, end, 2);
    h->histogram_record(h->user, "sandbox.duration_ms", is_error ? 12.5 : 0.3, start, 1);
}

/* An exporter configured from the environment, with runs successful runs of backend buffered. */
static sbx_otlp *exporter(const char *backend, int runs)
{
    sbx_otlp *o = NULL;
    ck_assert_int_eq(sbx_otlp_create_from_env(&o), SBX_OK);
    for (int i = 0; i < runs; i++)
        emit_run(sbx_otlp_hooks(o), backend, false);
    return o;
}

/* Flushes o, which must succeed, and returns what the receiver got (json_decref it). */
static json_t *flushed(sbx_otlp *o, struct receiver *r)
{
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_OK);
    return receiver_finish(r);
}

static void check_resource(json_t *resource_list, const char *what)
{
    json_t *res = json_object_get(only(resource_list, what), "resource");
    ck_assert_str_eq(attr(json_object_get(res, "attributes"), "service.name"), "sbx-test");
    ck_assert_str_eq(attr(json_object_get(res, "attributes"), "telemetry.sdk.name"), "sbx");
}

static void check_spans(json_t *body)
{
    json_t *rs = json_object_get(body, "resourceSpans");
    check_resource(rs, "resourceSpans");
    json_t *ss = only(json_object_get(json_array_get(rs, 0), "scopeSpans"), "scopeSpans");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(ss, "scope"), "name")),
                     "sbx");
    json_t *spans = json_object_get(ss, "spans");
    ck_assert_int_eq(json_array_size(spans), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *sp = json_array_get(spans, i);
        ck_assert(is_hex(json_string_value(json_object_get(sp, "traceId")), 32));
        ck_assert(is_hex(json_string_value(json_object_get(sp, "spanId")), 16));
        ck_assert_str_eq(json_string_value(json_object_get(sp, "name")), "sandbox.run");
        unsigned long long t0 = u64_string(json_object_get(sp, "startTimeUnixNano"), "start");
        unsigned long long t1 = u64_string(json_object_get(sp, "endTimeUnixNano"), "end");
        ck_assert(t0 > 1600000000ull * 1000000000ull && t1 >= t0);
        ck_assert_str_eq(attr(json_object_get(sp, "attributes"), "backend"), "wasm");
    }
    json_t *ok = json_array_get(spans, 0), *bad = json_array_get(spans, 1);
    ck_assert_str_ne(json_string_value(json_object_get(ok, "traceId")),
                     json_string_value(json_object_get(bad, "traceId")));
    ck_assert_str_eq(attr(json_object_get(ok, "attributes"), "outcome"), "ok");
    ck_assert_ptr_null(json_object_get(json_object_get(ok, "status"), "code"));
    json_t *st = json_object_get(bad, "status");
    ck_assert_int_eq(json_integer_value(json_object_get(st, "code")), 2);
    ck_assert_str_eq(json_string_value(json_object_get(st, "message")),
                     "guest trapped: \"unreachable\"");
}

static json_t *metric(json_t *metrics, const char *name)
{
    size_t i;
    json_t *m;
    json_array_foreach(metrics, i, m)
    {
        if (strcmp(json_string_value(json_object_get(m, "name")), name) == 0)
            return m;
    }
    ck_abort_msg("no metric %s", name);
    return NULL;
}

static void check_sum(json_t *m, const char *key, const char *value, unsigned long long want)
{
    json_t *sum = json_object_get(m, "sum");
    ck_assert(json_is_true(json_object_get(sum, "isMonotonic")));
    ck_assert_int_eq(json_integer_value(json_object_get(sum, "aggregationTemporality")), 2);
    size_t i;
    json_t *dp;
    json_array_foreach(json_object_get(sum, "dataPoints"), i, dp)
    {
        u64_string(json_object_get(dp, "startTimeUnixNano"), "startTimeUnixNano");
        u64_string(json_object_get(dp, "timeUnixNano"), "timeUnixNano");
        const char *v = attr(json_object_get(dp, "attributes"), key);
        if (v && strcmp(v, value) == 0) {
            ck_assert_int_eq(u64_string(json_object_get(dp, "asInt"), "asInt"), want);
            return;
        }
    }
    ck_abort_msg("no data point %s=%s", key, value);
}

static void check_histogram(json_t *m)
{
    ck_assert_str_eq(json_string_value(json_object_get(m, "unit")), "ms");
    json_t *h = json_object_get(m, "histogram");
    ck_assert_int_eq(json_integer_value(json_object_get(h, "aggregationTemporality")), 2);
    json_t *dp = only(json_object_get(h, "dataPoints"), "histogram dataPoints");
    ck_assert_str_eq(attr(json_object_get(dp, "attributes"), "backend"), "wasm");
    ck_assert_int_eq(u64_string(json_object_get(dp, "count"), "count"), 2);
    ck_assert_double_eq_tol(json_real_value(json_object_get(dp, "sum")), 12.8, 1e-9);
    json_t *counts = json_object_get(dp, "bucketCounts");
    json_t *bounds = json_object_get(dp, "explicitBounds");
    ck_assert_int_gt(json_array_size(bounds), 0);
    ck_assert_int_eq(json_array_size(counts), json_array_size(bounds) + 1);
    unsigned long long total = 0;
    for (size_t i = 0; i < json_array_size(counts); i++)
        total += u64_string(json_array_get(counts, i), "bucketCounts[]");
    ck_assert_int_eq(total, 2);
    for (size_t i = 1; i < json_array_size(bounds); i++)
        ck_assert(json_number_value(json_array_get(bounds, i)) >
                  json_number_value(json_array_get(bounds, i - 1)));
}

static void check_metrics(json_t *body)
{
    json_t *rm = json_object_get(body, "resourceMetrics");
    check_resource(rm, "resourceMetrics");
    json_t *sm = only(json_object_get(json_array_get(rm, 0), "scopeMetrics"), "scopeMetrics");
    json_t *metrics = json_object_get(sm, "metrics");
    ck_assert_int_eq(json_array_size(metrics), 3);
    check_sum(metric(metrics, "sandbox.runs_total"), "outcome", "ok", 1);
    check_sum(metric(metrics, "sandbox.runs_total"), "outcome", "SAND_WASM_TRAP", 1);
    check_sum(metric(metrics, "plugin.permission_denied_total"), "capability", "fs.write",
              5000000000ull);
    check_histogram(metric(metrics, "sandbox.duration_ms"));
}

/* The two encodings, by OTEL_EXPORTER_OTLP_PROTOCOL (unset: the specification's default). */
static const struct {
    const char *value, *content_type;
    bool is_proto;
} PROTOCOLS[] = {
    {NULL, "application/x-protobuf", true},
    {"http/json", "application/json", false},
    {"http/protobuf", "application/x-protobuf", true},
};

static void use_protocol(int i)
{
    if (PROTOCOLS[i].value)
        setenv("OTEL_EXPORTER_OTLP_PROTOCOL", PROTOCOLS[i].value, 1);
}

/* Checks the request's encoding and the headers every request carries. */
static void check_request(json_t *rec, int protocol)
{
    json_t *hdrs = json_object_get(rec, "headers");
    ck_assert_str_eq(json_string_value(json_object_get(rec, "method")), "POST");
    ck_assert_str_eq(json_string_value(json_object_get(hdrs, "content-type")),
                     PROTOCOLS[protocol].content_type);
    ck_assert_int_eq(json_is_true(json_object_get(rec, "proto")), PROTOCOLS[protocol].is_proto);
    ck_assert_str_eq(json_string_value(json_object_get(hdrs, "user-agent")),
                     "OTel-OTLP-Exporter-C/" SBX_VERSION " sbx/" SBX_VERSION);
    json_t *body = json_object_get(rec, "body");
    ck_assert_msg(!json_object_get(body, "parseError") && !json_object_get(body, "_unknown"),
                  "body not decoded cleanly: %s", json_dumps(body, JSON_COMPACT));
}

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
START_TEST(test_retry_after)
{
    struct receiver r;
    if (!receiver_script(&r, 4, "/v1/traces=503@1,200;/v1/metrics=429@1,200", 0) &&
        node_missing("test_retry_after"))
        return;
    use_protocol(_i);
    sbx_otlp *o = exporter("wasm", 1);
    double t0 = now_ms();
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_OK);
    double took = now_ms() - t0;
    ck_assert_str_eq(sbx_otlp_last_error(o), "");
    ck_assert_int_eq(sbx_otlp_dropped_spans(o), 0);
    json_t *all = receiver_finish(&r);
    static const char *const paths[] = {"/v1/traces", "/v1/metrics"};
    for (size_t i = 0; i < 2; i++) {
        json_t *a = NULL, *b = NULL;
        ck_assert_int_eq(requests_to(all, paths[i], &a, &b), 2);
        json_int_t gap = json_integer_value(json_object_get(b, "t")) -
                         json_integer_value(json_object_get(a, "t"));
        ck_assert_msg(gap >= 950, "%s retried after %lld ms, before Retry-After: 1", paths[i],
                      (long long)gap);
        ck_assert(json_equal(json_object_get(a, "body"), json_object_get(b, "body")));
    }
    ck_assert_msg(took < 1000 + 3000, "two 1 s waits in parallel took %.0f ms", took);
    json_decref(all);
    sbx_otlp_destroy(o); /* delivered: nothing left to send */
}
END_TEST

/* 502 and 504 without Retry-After: exponential backoff with jitter, then success; a failed traces
 * POST is retried too, so its spans are delivered, not dropped. */
START_TEST(test_retry_backoff)
{
    struct receiver r;
    if (!receiver_script(&r, 5, "/v1/traces=502,200;/v1/metrics=504,503,200", 0) &&
        node_missing("test_retry_backoff"))
        return;
    sbx_otlp *o = exporter(NULL, 0);
    emit_run(sbx_otlp_hooks(o), "process", true);
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_OK);
    ck_assert_str_eq(sbx_otlp_last_error(o), "");
    ck_assert_int_eq(sbx_otlp_dropped_spans(o), 0);
    json_t *all = receiver_finish(&r);
    ck_assert_int_eq(requests_to(all, "/v1/traces", NULL, NULL), 2);
    ck_assert_int_eq(requests_to(all, "/v1/metrics", NULL, NULL), 3);
    json_t *a = NULL, *b = NULL;
    requests_to(all, "/v1/traces", &a, &b);
    json_int_t gap =
        json_integer_value(json_object_get(b, "t")) - json_integer_value(json_object_get(a, "t"));
    ck_assert_msg(gap >= 200 && gap < 2000, "first backoff %lld ms, want 250..500", (long long)gap);
    json_decref(all);
    sbx_otlp_destroy(o);
}
END_TEST

/* 400 is never retried: one POST per signal, the failed signal named and the other not, and
 * the rejected metrics are not sent again by destroy (the receiver lingers to see one). */
START_TEST(test_no_retry_on_400)
{
    struct receiver r;
    if (!receiver_script(&r, 2, "/v1/traces=200;/v1/metrics=400", 1500) &&
        node_missing("test_no_retry_on_400"))
        return;
    sbx_otlp *o = exporter("wasm", 1);
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_E_IO);
    const char *err = sbx_otlp_last_error(o);
    ck_assert_msg(strncmp(err, "metrics: POST http://127.0.0.1:", 31) == 0, "error: %s", err);
    ck_assert_ptr_nonnull(strstr(err, "/v1/metrics: HTTP 400"));
    ck_assert_ptr_null(strstr(err, "traces"));
    ck_assert_ptr_null(strstr(err, "attempt"));
    sbx_otlp_destroy(o);
    json_t *all = receiver_finish(&r);
    ck_assert_int_eq(json_array_size(all), 2);
    ck_assert_int_eq(requests_to(all, "/v1/metrics", NULL, NULL), 1);
    json_decref(all);
}
END_TEST

/* A collector that accepts and never answers, or drips its reply: the whole flush ends within
 * the timeout (both signals at once), both signals are named, and destroy sends nothing more. */
START_TEST(test_time_bound)
{
    static const char *const scripts[] = {"/v1/traces=hang;/v1/metrics=hang",
                                          "/v1/traces=drip;/v1/metrics=drip",
                                          "/v1/traces=hang;/v1/metrics=503"};
    struct receiver r;
    if (!receiver_script(&r, 2, scripts[_i], 20000) && node_missing("test_time_bound"))
        return;
    setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1500", 1);
    sbx_otlp *o = exporter("worker", 1);
    double t0 = now_ms();
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_E_IO);
    double took = now_ms() - t0;
    /* One timeout for both signals (at once); one after the other would take 3000 ms. */
    ck_assert_msg(took >= 1400 && took < 2800, "flush took %.0f ms, timeout 1500", took);
    const char *err = sbx_otlp_last_error(o);
    ck_assert_msg(strstr(err, "traces: POST ") && strstr(err, "; metrics: POST "), "error: %s",
                  err);
    ck_assert_ptr_nonnull(strstr(err, "no complete reply within the 1500 ms timeout"));
    if (_i == 2) /* 503s retried until no time was left, then given up */
        ck_assert_ptr_nonnull(strstr(err, "HTTP 503 (attempt "));
    ck_assert_int_eq(sbx_otlp_dropped_spans(o), 1);
    t0 = now_ms();
    sbx_otlp_destroy(o);
    ck_assert_msg(now_ms() - t0 < 500, "destroy sent the failed export again");
    json_t *all = receiver_kill(&r);
    ck_assert_int_eq(requests_to(all, "/v1/traces", NULL, NULL), 1);
    json_decref(all);
}
END_TEST

/* A Retry-After past the timeout: given up at once rather than waited for. */
START_TEST(test_retry_after_past_timeout)
{
    struct receiver r;
    if (!receiver_script(&r, 2, "/v1/traces=503@30;/v1/metrics=429@30", 0) &&
        node_missing("test_retry_after_past_timeout"))
        return;
    setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "5000", 1);
    sbx_otlp *o = exporter("worker", 1);
    double t0 = now_ms();
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_E_IO);
    ck_assert_msg(now_ms() - t0 < 2000, "waited for a Retry-After past the timeout");
    const char *err = sbx_otlp_last_error(o);
    ck_assert_ptr_nonnull(strstr(err, "traces: POST "));
    ck_assert_ptr_nonnull(strstr(err, "HTTP 503; no time left to retry after Retry-After"));
    ck_assert_ptr_nonnull(strstr(err, "HTTP 429; no time left to retry after Retry-After"));
    json_decref(receiver_finish(&r));
    sbx_otlp_destroy(o);
}
END_TEST

/* The export's curl calls, wrapped (the table is curl.c's, loaded by create): once a POST
 * that is to be retried has finished, the loop stalls past its backoff (at most 500 ms for a
 * first retry) before it computes its next wait, as a busy host can make it; the wait then
 * computed is recorded. */
#define STALL_MS 700

static struct sbx__curl real_curl;
static atomic_bool is_stall_due, has_stalled;
static atomic_int wait_after_stall = -2;

static CURLMsg *stalling_info_read(CURLM *m, int *queued)
{
    CURLMsg *msg = real_curl.multi_info_read(m, queued);
    long status = 0;
    if (msg && msg->msg == CURLMSG_DONE &&
        real_curl.easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
        status == 503)
        atomic_store(&is_stall_due, true);
    if (!msg && atomic_exchange(&is_stall_due, false) && !atomic_exchange(&has_stalled, true))
        usleep(STALL_MS * 1000);
    return msg;
}

static CURLMcode recording_poll(CURLM *m, struct curl_waitfd *extra, unsigned n, int timeout_ms,
                                int *numfds)
{
    int none = -2;
    if (atomic_load(&has_stalled))
        atomic_compare_exchange_strong(&wait_after_stall, &none, timeout_ms);
    return real_curl.multi_poll(m, extra, n, timeout_ms, numfds);
}

/* A retry whose time came while the loop was busy elsewhere is sent at once: the loop's next
 * wait is 0 ms, not a wait computed from a time already past; the retried POST succeeds. A
 * retry's time passed before the loop looked only on a loaded host (moved between coverage
 * runs, issue 15). */
START_TEST(test_retry_already_due)
{
    struct receiver r;
    if (!receiver_script(&r, 3, "/v1/traces=503,200;/v1/metrics=200", 0) &&
        node_missing("test_retry_already_due"))
        return;
    sbx_otlp *o = exporter("worker", 1);
    struct sbx__curl *cu = (struct sbx__curl *)sbx__curl_get(); /* loaded by create */
    ck_assert_ptr_nonnull(cu);
    real_curl = *cu;
    cu->multi_info_read = stalling_info_read;
    cu->multi_poll = recording_poll;
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_OK);
    *cu = real_curl;
    ck_assert(atomic_load(&has_stalled)); /* the control: the 503 was seen and the loop held */
    int waited_ms = atomic_load(&wait_after_stall);
    ck_assert_int_eq(waited_ms, 0);
    ck_assert_str_eq(sbx_otlp_last_error(o), "");
    json_t *all = receiver_finish(&r);
    ck_assert_int_eq(requests_to(all, "/v1/traces", NULL, NULL), 2);
    ck_assert_int_eq(requests_to(all, "/v1/metrics", NULL, NULL), 1);
    json_decref(all);
    sbx_otlp_destroy(o);
}
END_TEST

/* Per-signal _TIMEOUT, _HEADERS and _PROTOCOL replace the generic ones for that signal. */
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
    /* Tests set OTEL_* in their forked child; start each from a clean environment. */
    static const char *const vars[] = {"OTEL_EXPORTER_OTLP_ENDPOINT",
                                       "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                                       "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
                                       "OTEL_EXPORTER_OTLP_HEADERS",
                                       "OTEL_EXPORTER_OTLP_TIMEOUT",
                                       "OTEL_SERVICE_NAME",
                                       "OTEL_BSP_MAX_QUEUE_SIZE",
                                       "OTEL_TRACES_EXPORTER",
                                       "OTEL_METRICS_EXPORTER",
                                       "OTEL_EXPORTER_OTLP_PROTOCOL",
                                       "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
                                       "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
                                       "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                                       "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
                                       "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
                                       "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
                                       "OTEL_RESOURCE_ATTRIBUTES"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        unsetenv(vars[i]);
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create("telemetry_otlp");
    TCase *tc = tcase_create("otlp");
    tcase_set_timeout(tc, TIMEOUT_S);
    tcase_add_loop_test(tc, test_payload_shape, 0, (int)(sizeof(PROTOCOLS) / sizeof(PROTOCOLS[0])));
    tcase_add_test(tc, test_exporter_none);
    tcase_add_loop_test(tc, test_typed_attributes, 0, 2);
    tcase_add_test(tc, test_resource_attributes);
    tcase_add_loop_test(tc, test_retry_after, 0, 2);
    tcase_add_test(tc, test_retry_backoff);
    tcase_add_test(tc, test_no_retry_on_400);
    tcase_add_loop_test(tc, test_time_bound, 0, 3);
    tcase_add_test(tc, test_retry_after_past_timeout);
    tcase_add_test(tc, test_retry_already_due);
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

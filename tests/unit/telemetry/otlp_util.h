/* tests/unit/telemetry/otlp_util.h: the OTLP exporter tests' scaffolding: the real receiver
 * (tests/telemetry/otlp_receiver.js on 127.0.0.1) and checks of what it received. */
#ifndef SBX_TESTS_OTLP_UTIL_H
#define SBX_TESTS_OTLP_UTIL_H

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
static inline bool receiver_script(struct receiver *r, int count, const char *script, int linger_ms)
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
static inline bool receiver_start(struct receiver *r, int count, int status)
{
    char script[64];
    snprintf(script, sizeof(script), "/v1/traces=%d;/v1/metrics=%d", status, status);
    return receiver_script(r, count, script, 0);
}

/* Waits for the receiver to exit and returns its requests, one JSON object each. */
static inline json_t *receiver_finish(struct receiver *r)
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
static inline json_t *receiver_kill(struct receiver *r)
{
    kill(r->pid, SIGTERM);
    return receiver_finish(r);
}

static inline double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The records sent to path, in order. */
static inline size_t requests_to(json_t *all, const char *path, json_t **first, json_t **second)
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

static inline bool node_missing(const char *test)
{
    printf("SKIP %s: node not found (Debian package nodejs)\n", test);
    return true;
}

/* Points the exporter at a port nothing listens on. */
static inline void endpoint_refused(void)
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

static inline json_t *request_body(json_t *all, const char *path)
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

static inline bool is_hex(const char *s, size_t len)
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
static inline unsigned long long u64_string(json_t *v, const char *what)
{
    const char *s = json_string_value(v);
    ck_assert_msg(s && s[0] && strspn(s, "0123456789") == strlen(s), "%s is not a decimal string",
                  what);
    return strtoull(s, NULL, 10);
}

/* The AnyValue of key in an attribute list, or NULL. */
static inline json_t *attr_value(json_t *attrs, const char *key)
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

static inline const char *attr(json_t *attrs, const char *key)
{
    return json_string_value(json_object_get(attr_value(attrs, key), "stringValue"));
}

static inline json_t *only(json_t *arr, const char *what)
{
    ck_assert_msg(json_is_array(arr) && json_array_size(arr) == 1, "%s: want one element", what);
    return json_array_get(arr, 0);
}

static inline void emit_run(const sbx_telemetry_hooks *h, const char *backend, bool is_error)
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
static inline sbx_otlp *exporter(const char *backend, int runs)
{
    sbx_otlp *o = NULL;
    ck_assert_int_eq(sbx_otlp_create_from_env(&o), SBX_OK);
    for (int i = 0; i < runs; i++)
        emit_run(sbx_otlp_hooks(o), backend, false);
    return o;
}

/* Flushes o, which must succeed, and returns what the receiver got (json_decref it). */
static inline json_t *flushed(sbx_otlp *o, struct receiver *r)
{
    ck_assert_int_eq(sbx_otlp_flush(o), SBX_OK);
    return receiver_finish(r);
}

static inline void check_resource(json_t *resource_list, const char *what)
{
    json_t *res = json_object_get(only(resource_list, what), "resource");
    ck_assert_str_eq(attr(json_object_get(res, "attributes"), "service.name"), "sbx-test");
    ck_assert_str_eq(attr(json_object_get(res, "attributes"), "telemetry.sdk.name"), "sbx");
}

static inline void check_spans(json_t *body)
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

static inline json_t *metric(json_t *metrics, const char *name)
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

static inline void check_sum(json_t *m, const char *key, const char *value, unsigned long long want)
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

static inline void check_histogram(json_t *m)
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

static inline void check_metrics(json_t *body)
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

static inline void use_protocol(int i)
{
    if (PROTOCOLS[i].value)
        setenv("OTEL_EXPORTER_OTLP_PROTOCOL", PROTOCOLS[i].value, 1);
}

/* Checks the request's encoding and the headers every request carries. */
static inline void check_request(json_t *rec, int protocol)
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

/* What each test program's main does first: a clean OTEL_* environment, SIGPIPE ignored. */
static inline void otlp_test_env(void)
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
}

#endif

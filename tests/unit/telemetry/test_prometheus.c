/* tests/unit/telemetry/test_prometheus.c: the Prometheus exporter, fed through its hook table:
 * exposition names and values, escaping, limits, 8 concurrent writers, and `promtool check`. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sbx.h>

#include "util/alloc.h"
#include "sbx_test.h"

#define TIMEOUT_S 30

static void counter(const sbx_telemetry_hooks *h, const char *name, uint64_t v, const char *k1,
                    const char *v1, const char *k2, const char *v2)
{
    sbx_attr a[2] = {{k1, v1, SBX_ATTR_STRING}, {k2, v2, SBX_ATTR_STRING}};
    h->counter_add(h->user, name, v, a, k2 ? 2 : k1 ? 1 : 0);
}

static void record(const sbx_telemetry_hooks *h, const char *name, double v, const char *k1,
                   const char *v1)
{
    sbx_attr a = {k1, v1, SBX_ATTR_STRING};
    h->histogram_record(h->user, name, v, &a, k1 ? 1 : 0);
}

/* Emits what core and the plugin layer emit for a few runs. */
static void emit_standard(const sbx_telemetry_hooks *h)
{
    counter(h, "sandbox.runs_total", 3, "backend", "worker", "outcome", "ok");
    counter(h, "sandbox.runs_total", 1, "outcome", "SANDBOX_TIMEOUT", "backend", "wasm");
    record(h, "sandbox.duration_ms", 0.05, "backend", "worker");
    record(h, "sandbox.duration_ms", 3, "backend", "worker");
    record(h, "sandbox.duration_ms", 7000, "backend", "worker");
    record(h, "sandbox.duration_ms", 5000, "backend", "wasm");
    counter(h, "plugin.permission_denied_total", 2, "capability", "fs.write", NULL, NULL);
    void *span = h->span_start ? h->span_start(h->user, "sandbox.run", NULL, 0) : NULL;
    if (h->span_end)
        h->span_end(h->user, span, NULL, 0, false, NULL);
}

static char *render_standard(void)
{
    sbx_prometheus *p;
    ck_assert_int_eq(sbx_prometheus_create(&p), SBX_OK);
    emit_standard(sbx_prometheus_hooks(p));
    char *text = sbx_prometheus_render(p);
    ck_assert_ptr_nonnull(text);
    sbx_prometheus_destroy(p);
    return text;
}

static void assert_has(const char *text, const char *line)
{
    ck_assert_msg(strstr(text, line) != NULL, "missing line <%s> in:\n%s", line, text);
}

/* Returns the value on the line that starts with prefix. */
static double value_of(const char *text, const char *prefix)
{
    const char *line = strstr(text, prefix);
    ck_assert_msg(line != NULL, "no line %s", prefix);
    return strtod(line + strlen(prefix), NULL);
}

START_TEST(test_names_and_values)
{
    char *t = render_standard();
    assert_has(t, "# HELP sandbox_runs_total Sandbox runs finished, by tier and outcome.\n");
    assert_has(t, "# TYPE sandbox_runs_total counter\n");
    assert_has(t, "\nsandbox_runs_total{backend=\"worker\",outcome=\"ok\"} 3\n");
    assert_has(t, "\nsandbox_runs_total{backend=\"wasm\",outcome=\"SANDBOX_TIMEOUT\"} 1\n");
    assert_has(t, "# TYPE sandbox_duration_seconds histogram\n");
    assert_has(t, "sandbox_duration_seconds_bucket{backend=\"worker\",le=\"0.0001\"} 1\n");
    assert_has(t, "sandbox_duration_seconds_bucket{backend=\"worker\",le=\"0.0025\"} 1\n");
    assert_has(t, "sandbox_duration_seconds_bucket{backend=\"worker\",le=\"0.005\"} 2\n");
    assert_has(t, "sandbox_duration_seconds_bucket{backend=\"worker\",le=\"5\"} 2\n");
    assert_has(t, "sandbox_duration_seconds_bucket{backend=\"worker\",le=\"10\"} 3\n");
    assert_has(t, "sandbox_duration_seconds_bucket{backend=\"worker\",le=\"+Inf\"} 3\n");
    ck_assert_double_eq_tol(value_of(t, "sandbox_duration_seconds_sum{backend=\"worker\"} "),
                            7.00305, 1e-9);
    assert_has(t, "sandbox_duration_seconds_count{backend=\"worker\"} 3\n");
    /* upper bounds are inclusive: 5000 ms lands in le="5" */
    assert_has(t, "sandbox_duration_seconds_bucket{backend=\"wasm\",le=\"2.5\"} 0\n");
    assert_has(t, "sandbox_duration_seconds_bucket{backend=\"wasm\",le=\"5\"} 1\n");
    assert_has(t, "# TYPE plugin_permission_denied_total counter\n");
    assert_has(t, "\nplugin_permission_denied_total{capability=\"fs.write\"} 2\n");
    ck_assert_ptr_null(strstr(t, "sbx_telemetry_dropped"));
    ck_assert_ptr_null(strstr(t, "sandbox.run"));
    /* families sorted by name, each HELP/TYPE exactly once */
    const char *a = strstr(t, "# TYPE plugin_"), *b = strstr(t, "# TYPE sandbox_duration");
    const char *c = strstr(t, "# TYPE sandbox_runs");
    ck_assert(a < b && b < c);
    ck_assert_ptr_null(strstr(c + 1, "# TYPE sandbox_runs"));
    sbx_free(t);
}
END_TEST

START_TEST(test_empty_and_null)
{
    sbx_prometheus *p;
    ck_assert_int_eq(sbx_prometheus_create(NULL), SBX_E_INVALID_ARGUMENT);
    ck_assert_int_eq(sbx_prometheus_create(&p), SBX_OK);
    char *t = sbx_prometheus_render(p);
    ck_assert_str_eq(t, "");
    sbx_free(t);
    ck_assert_ptr_null(sbx_prometheus_render(NULL));
    ck_assert_ptr_null(sbx_prometheus_hooks(NULL));
    ck_assert_int_eq(sbx_prometheus_write_file(p, NULL), SBX_E_INVALID_ARGUMENT);
    sbx_prometheus_destroy(p);
    sbx_prometheus_destroy(NULL);
}
END_TEST

START_TEST(test_escaping_and_translation)
{
    sbx_prometheus *p;
    ck_assert_int_eq(sbx_prometheus_create(&p), SBX_OK);
    const sbx_telemetry_hooks *h = sbx_prometheus_hooks(p);
    counter(h, "plugin.permission_denied_total", 1, "capability", "a\"b\\c\nd", NULL, NULL);
    counter(h, "plugin.permission_denied_total", 1, "capability", "bad\xff\xc3(utf8", NULL, NULL);
    counter(h, "my.custom-metric", 5, "weird key!", "v", "dup", "first");
    counter(h, "my.custom-metric", 1, "dup", "first", "weird key!", "v"); /* same series */
    counter(h, "label.clash", 1, "a.b", "1", "a_b", "2");                 /* same exposed name */
    record(h, "with.le_ms", 1, "le", "x");                                /* reserved label */
    counter(h, "x.dups", 1, "dup", "first", "dup", "second");             /* first one wins */
    record(h, "queue.wait_us", 250, NULL, NULL);
    record(h, "9lives", 1, NULL, NULL);
    record(h, "sandbox.duration_ms", NAN, "backend", "worker");
    char *t = sbx_prometheus_render(p);
    assert_has(t, "plugin_permission_denied_total{capability=\"a\\\"b\\\\c\\nd\"} 1\n");
    assert_has(t,
               "plugin_permission_denied_total{capability=\"bad\xef\xbf\xbd\xef\xbf\xbd(utf8\"} 1");
    assert_has(t, "# HELP my_custom_metric_total sbx metric my.custom-metric\n");
    assert_has(t, "my_custom_metric_total{dup=\"first\",weird_key_=\"v\"} 6\n");
    ck_assert_double_eq_tol(value_of(t, "queue_wait_seconds_sum "), 0.00025, 1e-12);
    assert_has(t, "\nx_dups_total{dup=\"first\"} 1\n");
    assert_has(t, "\nlabel_clash_total{a_b=\"1\"} 1\n");
    assert_has(t, "\nwith_le_seconds_bucket{le=\"+Inf\"} 1\n");
    assert_has(t, "_9lives_bucket{le=\"1\"} 1\n");
    assert_has(t, "sbx_telemetry_dropped_samples_total 1\n"); /* the NaN */
    ck_assert_ptr_null(strstr(t, "sandbox_duration"));
    sbx_free(t);
    sbx_prometheus_destroy(p);
}
END_TEST

START_TEST(test_series_limit)
{
    sbx_prometheus *p;
    ck_assert_int_eq(sbx_prometheus_create(&p), SBX_OK);
    const sbx_telemetry_hooks *h = sbx_prometheus_hooks(p);
    for (int i = 0; i < 2000; i++) {
        char cap[32];
        snprintf(cap, sizeof(cap), "cap%04d", i);
        counter(h, "plugin.permission_denied_total", 1, "capability", cap, NULL, NULL);
    }
    char *t = sbx_prometheus_render(p);
    assert_has(t, "capability=\"cap1023\"} 1\n");
    ck_assert_ptr_null(strstr(t, "cap1024"));
    assert_has(t, "sbx_telemetry_dropped_samples_total 976\n");
    sbx_free(t);
    sbx_prometheus_destroy(p);
}
END_TEST

#define THREADS    8
#define PER_THREAD 20000

static void *writer(void *arg)
{
    const sbx_telemetry_hooks *h = arg;
    static const char *const backends[] = {"worker", "process", "wasm"};
    for (int i = 0; i < PER_THREAD; i++) {
        const char *b = backends[i % 3];
        counter(h, "sandbox.runs_total", 1, "backend", b, "outcome", i % 2 ? "ok" : "error");
        record(h, "sandbox.duration_ms", (double)(i % 100), "backend", b);
    }
    return NULL;
}

START_TEST(test_concurrent_writers)
{
    sbx_prometheus *p;
    ck_assert_int_eq(sbx_prometheus_create(&p), SBX_OK);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, writer, (void *)sbx_prometheus_hooks(p)), 0);
    char *mid = sbx_prometheus_render(p); /* rendering concurrently with writers is allowed */
    ck_assert_ptr_nonnull(mid);
    sbx_free(mid);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    char *t = sbx_prometheus_render(p);
    double total = 0;
    static const char *const lines[] = {
        "sandbox_runs_total{backend=\"worker\",outcome=\"ok\"} ",
        "sandbox_runs_total{backend=\"worker\",outcome=\"error\"} ",
        "sandbox_runs_total{backend=\"process\",outcome=\"ok\"} ",
        "sandbox_runs_total{backend=\"process\",outcome=\"error\"} ",
        "sandbox_runs_total{backend=\"wasm\",outcome=\"ok\"} ",
        "sandbox_runs_total{backend=\"wasm\",outcome=\"error\"} ",
    };
    for (size_t i = 0; i < 6; i++)
        total += value_of(t, lines[i]);
    ck_assert_int_eq((long)total, THREADS * PER_THREAD);
    double count = value_of(t, "sandbox_duration_seconds_count{backend=\"worker\"} ") +
                   value_of(t, "sandbox_duration_seconds_count{backend=\"process\"} ") +
                   value_of(t, "sandbox_duration_seconds_count{backend=\"wasm\"} ");
    ck_assert_int_eq((long)count, THREADS * PER_THREAD);
    sbx_free(t);
    sbx_prometheus_destroy(p);
}
END_TEST

/* Runs `promtool check metrics < path`; returns its exit status, or -1 when promtool is absent. */
static int promtool_check(const char *path, char *out, size_t outlen)
{
    if (system("command -v promtool >/dev/null 2>&1") != 0)
        return -1;
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "promtool check metrics < '%s' 2>&1", path);
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(out, 1, outlen - 1, f);
    out[n] = '\0';
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

START_TEST(test_promtool_accepts)
{
    sbx_prometheus *p;
    ck_assert_int_eq(sbx_prometheus_create(&p), SBX_OK);
    const sbx_telemetry_hooks *h = sbx_prometheus_hooks(p);
    emit_standard(h);
    counter(h, "plugin.permission_denied_total", 1, "capability", "q\"uo\\te\nnl\xff", NULL, NULL);
    record(h, "sandbox.duration_ms", 123456789, "backend", "process");
    counter(h, "label.clash", 1, "a.b", "1", "a_b", "2");
    record(h, "with.le_ms", 1, "le", "x");
    char dir[] = "/tmp/sbx-prom-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/metrics.prom", dir);
    ck_assert_int_eq(sbx_prometheus_write_file(p, path), SBX_OK);
    ck_assert_int_eq(access(path, R_OK), 0);
    char out[4096];
    int rc = promtool_check(path, out, sizeof(out));
    unlink(path);
    rmdir(dir);
    sbx_prometheus_destroy(p);
    if (rc == -1) {
        printf("SKIP test_promtool_accepts: promtool not found (Debian package prometheus)\n");
        return;
    }
    ck_assert_msg(rc == 0 && out[0] == '\0', "promtool rc=%d:\n%s", rc, out);
}
END_TEST

START_TEST(test_promtool_rejects_bad_input)
{
    /* The check above can fail: promtool does flag a unit abbreviation. */
    char path[] = "/tmp/sbx-prom-bad-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char bad[] = "# HELP x_ms d\n# TYPE x_ms counter\nx_ms 1\n";
    ck_assert_int_eq(write(fd, bad, sizeof(bad) - 1), (ssize_t)sizeof(bad) - 1);
    close(fd);
    char out[4096];
    int rc = promtool_check(path, out, sizeof(out));
    unlink(path);
    if (rc == -1) {
        printf("SKIP test_promtool_rejects_bad_input: promtool not found\n");
        return;
    }
    ck_assert_int_ne(rc, 0);
}
END_TEST

START_TEST(test_write_file_error)
{
    sbx_prometheus *p;
    ck_assert_int_eq(sbx_prometheus_create(&p), SBX_OK);
    errno = 0;
    ck_assert_int_eq(sbx_prometheus_write_file(p, "/nonexistent-dir/metrics.prom"), SBX_E_IO);
    ck_assert_int_eq(errno, ENOENT);
    sbx_prometheus_destroy(p);
}
END_TEST

/* End to end: core's sandbox.run instrumentation feeding the exporter through the global table. */
START_TEST(test_sandbox_run_feeds_registry)
{
    sbx_prometheus *p;
    ck_assert_int_eq(sbx_prometheus_create(&p), SBX_OK);
    sbx_telemetry_set_hooks(sbx_prometheus_hooks(p));
    sbx_policy *pol;
    char err[256];
    ck_assert_int_eq(sbx_policy_parse("{}", 2, &pol, err, sizeof(err)), SBX_OK);
    sbx_sandbox *sb;
    sbx_err e = sbx_sandbox_create(SBX_BACKEND_WORKER, pol, &sb);
    if (e != SBX_OK) {
        printf("SKIP test_sandbox_run_feeds_registry: worker tier: %s\n", sbx_err_name(e));
    } else {
        sbx_run_input in = {.code = "return 1", .code_len = 8};
        sbx_result r = {0};
        ck_assert_int_eq(sbx_sandbox_run(sb, &in, &r), SBX_OK);
        sbx_result_free(&r);
        sbx_sandbox_destroy(sb);
        char *t = sbx_prometheus_render(p);
        assert_has(t, "sandbox_runs_total{backend=\"worker\",outcome=");
        assert_has(t, "sandbox_duration_seconds_count{backend=\"worker\"} 1\n");
        sbx_free(t);
    }
    sbx_telemetry_set_hooks(NULL);
    sbx_policy_destroy(pol);
    sbx_prometheus_destroy(p);
}
END_TEST

/* Fails the 1st, 2nd, ... allocation of create + emit + render: never a crash or leak, and a
 * dropped sample is counted rather than silently lost. */
START_TEST(test_alloc_failure_walk)
{
    char *want = render_standard();
    unsigned long n, ok_run = 0, failures = 0;
    for (n = 1; n < 10000 && ok_run < 32; n++) {
        sbx_prometheus *p = NULL;
        char *t = NULL;
        sbx__alloc_fail_at(n);
        if (sbx_prometheus_create(&p) == SBX_OK) {
            emit_standard(sbx_prometheus_hooks(p));
            t = sbx_prometheus_render(p);
        }
        sbx__alloc_fail_at(0);
        bool is_complete = t && strcmp(t, want) == 0;
        ck_assert(!t || is_complete || strstr(t, "sbx_telemetry_dropped_samples_total 1\n"));
        ok_run = is_complete ? ok_run + 1 : 0;
        failures += !is_complete;
        sbx_free(t);
        sbx_prometheus_destroy(p);
    }
    ck_assert_int_lt(n, 10000);
    ck_assert_int_gt(failures, 5);
    sbx_free(want);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("telemetry_prometheus");
    TCase *tc = tcase_create("prometheus");
    tcase_set_timeout(tc, TIMEOUT_S);
    tcase_add_test(tc, test_names_and_values);
    tcase_add_test(tc, test_empty_and_null);
    tcase_add_test(tc, test_escaping_and_translation);
    tcase_add_test(tc, test_series_limit);
    tcase_add_test(tc, test_concurrent_writers);
    tcase_add_test(tc, test_promtool_accepts);
    tcase_add_test(tc, test_promtool_rejects_bad_input);
    tcase_add_test(tc, test_write_file_error);
    tcase_add_test(tc, test_sandbox_run_feeds_registry);
    tcase_add_test(tc, test_alloc_failure_walk);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

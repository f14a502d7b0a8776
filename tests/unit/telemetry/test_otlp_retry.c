/* tests/unit/telemetry/test_otlp_retry.c: the OTLP exporter's retries against a real receiver
 * (tests/telemetry/otlp_receiver.js on 127.0.0.1): Retry-After, backoff, no retry on 400, the
 * export's time bound, a retry due past the timeout or already due. */
#include "otlp_util.h"

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
int main(void)
{
    otlp_test_env();
    Suite *s = suite_create("telemetry_otlp_retry");
    TCase *tc = tcase_create("retry");
    tcase_set_timeout(tc, TIMEOUT_S);
    tcase_add_loop_test(tc, test_retry_after, 0, 2);
    tcase_add_test(tc, test_retry_backoff);
    tcase_add_test(tc, test_no_retry_on_400);
    tcase_add_loop_test(tc, test_time_bound, 0, 3);
    tcase_add_test(tc, test_retry_after_past_timeout);
    tcase_add_test(tc, test_retry_already_due);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

/* test_backend.c: the wasm tier behind sbx_sandbox_run() (plugin/backend.c): a command with
 * its output, and the module's loading under the run's deadline and abort. Modules come from
 * the fixture builder. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sbx.h>

#include "core/backend.h"
#include "plugin/plugin.h"
#include "sbx_test.h"
#include "wasm_builder.h"

/* ---- the backend of sbx_sandbox_run() ----------------------------------------------------- */

START_TEST(backend_runs_a_command)
{
    sbx_sandbox *sb = sbx_test_sandbox(SBX_BACKEND_WASM, NULL);
    size_t len;
    uint8_t *bytes = wb_fixture_print_exit("via core\n", 1, 4, &len);
    sbx_run_input in = {.module = bytes, .module_len = len};
    sbx_result r;
    ck_assert_int_eq(sbx_sandbox_run(sb, &in, &r), SBX_OK);
    ck_assert_int_eq(r.exit_code, 4);
    ck_assert_str_eq(r.stdout_data, "via core\n");
    ck_assert_int_eq(r.backend, SBX_BACKEND_WASM);
    sbx_result_free(&r);
    /* A bad module is a host-side failure with the decoder's message. */
    in.module_len = 4;
    ck_assert_int_eq(sbx_sandbox_run(sb, &in, &r), SBX_E_WASM_INVALID_MODULE);
    ck_assert_int_eq(r.error, SBX_E_WASM_INVALID_MODULE);
    ck_assert_ptr_nonnull(r.error_message);
    sbx_result_free(&r);
    free(bytes);
    sbx_sandbox_destroy(sb);
}
END_TEST

/* A module slow to load: an unexported function has a body at the size limit of `x + x` pairs
 * (about 0.2 s to validate and translate on the dev VM); _start returns, or spins when is_spin. */
static uint8_t *slow_module(bool is_spin, size_t *len)
{
    struct wb *w = wb_new();
    struct wb_bytes c = {0};
    for (int i = 0; i < 1250000; i++) { /* 6 bytes each: 7.5 MB */
        wbc_local_get(&c, 0);
        wbc_local_get(&c, 0);
        wbc_op(&c, 0x6a); /* i32.add */
        wbc_op(&c, 0x1a); /* drop */
    }
    wbc_end(&c);
    wb_func(w, "", "", "i", &c);
    wb_bytes_free(&c);
    if (is_spin)
        wbc_spin(&c);
    wbc_end(&c);
    return wb_finish_export(w, "_start", "", "", &c, len);
}

static sbx_err run_backend(const char *policy, const uint8_t *bytes, size_t len, sbx_result *r,
                           sbx_sandbox **box)
{
    *box = sbx_test_sandbox(SBX_BACKEND_WASM, policy);
    sbx_run_input in = {.module = bytes, .module_len = len};
    return sbx_sandbox_run(*box, &in, r);
}

/* Issue 10: loading ran before any deadline applied. It is now under the run's timeout. */
START_TEST(backend_load_is_under_the_timeout)
{
    size_t len;
    uint8_t *bytes = slow_module(false, &len);
    sbx_sandbox *box;
    sbx_result r;
    /* Control: with time enough it loads and runs, and loading takes longer than 20 ms. */
    ck_assert_int_eq(run_backend("{\"timeoutMs\": 60000}", bytes, len, &r, &box), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_double_gt(r.duration_ms, 40);
    sbx_result_free(&r);
    sbx_sandbox_destroy(box);
    ck_assert_int_eq(run_backend("{\"timeoutMs\": 20}", bytes, len, &r, &box), SBX_OK);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.error, SBX_E_TIMEOUT);
    ck_assert_int_eq(r.limit, SBX_LIMIT_TIMEOUT);
    ck_assert_str_eq(r.error_message, "time limit reached while loading the module");
    sbx_result_free(&r);
    sbx_sandbox_destroy(box);
    /* The handle API bounds loading by the same timeout. */
    sbx_policy *p = sbx_test_policy("{\"timeoutMs\": 20}");
    sbx_wasm_sandbox *sb = NULL;
    char err[256];
    ck_assert_int_eq(sbx_wasm_sandbox_create(bytes, len, p, NULL, &sb, err, sizeof(err)),
                     SBX_E_TIMEOUT);
    ck_assert_ptr_null(sb);
    sbx_policy_destroy(p);
    free(bytes);
}
END_TEST

/* Loading, instantiation and the run share the run's one deadline: a guest that spins after a
 * slow load is stopped at timeoutMs from the start of the run, not timeoutMs after loading. */
START_TEST(backend_run_shares_the_deadline_with_loading)
{
    size_t len;
    uint8_t *quick = slow_module(false, &len);
    sbx_sandbox *box;
    sbx_result r;
    ck_assert_int_eq(run_backend("{\"timeoutMs\": 60000}", quick, len, &r, &box), SBX_OK);
    double load_ms = r.duration_ms;
    sbx_result_free(&r);
    sbx_sandbox_destroy(box);
    free(quick);
    int timeout_ms = load_ms * 3 > 500 ? (int)(load_ms * 3) : 500;
    char policy[64];
    snprintf(policy, sizeof(policy), "{\"timeoutMs\": %d}", timeout_ms);
    uint8_t *spin = slow_module(true, &len);
    ck_assert_int_eq(run_backend(policy, spin, len, &r, &box), SBX_OK);
    ck_assert_int_eq(r.error, SBX_E_TIMEOUT);
    fprintf(stderr, "load %.0f ms, timeout %d ms, run %.0f ms\n", load_ms, timeout_ms,
            r.duration_ms);
    /* Separate deadlines would give about load + timeout, at least 1.33 x timeout. */
    ck_assert_double_lt(r.duration_ms, timeout_ms * 1.2);
    sbx_result_free(&r);
    sbx_sandbox_destroy(box);
    free(spin);
}
END_TEST

struct box_aborter {
    sbx_sandbox *box;
    int delay_ms;
};

static void *abort_box_later(void *arg)
{
    struct box_aborter *a = arg;
    usleep((useconds_t)a->delay_ms * 1000);
    sbx_sandbox_abort(a->box);
    return NULL;
}

START_TEST(backend_load_stops_at_abort)
{
    size_t len;
    uint8_t *bytes = slow_module(false, &len);
    sbx_sandbox *box = sbx_test_sandbox(SBX_BACKEND_WASM, "{\"timeoutMs\": 60000}");
    struct box_aborter a = {.box = box, .delay_ms = 5};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, abort_box_later, &a), 0);
    sbx_run_input in = {.module = bytes, .module_len = len};
    sbx_result r;
    ck_assert_int_eq(sbx_sandbox_run(box, &in, &r), SBX_OK);
    pthread_join(t, NULL);
    ck_assert_int_eq(r.error, SBX_E_ABORTED);
    ck_assert_str_eq(r.error_message, "run was aborted by the host while loading the module");
    sbx_result_free(&r);
    sbx_sandbox_destroy(box);
    free(bytes);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plugin_backend");
    TCase *tc = tcase_create("backend");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, backend_runs_a_command);
    suite_add_tcase(s, tc);
    TCase *load = tcase_create("load"); /* a 7.5 MB body takes seconds under sanitizers */
    tcase_set_timeout(load, 120);
    tcase_add_test(load, backend_load_is_under_the_timeout);
    tcase_add_test(load, backend_load_stops_at_abort);
    tcase_add_test(load, backend_run_shares_the_deadline_with_loading);
    suite_add_tcase(s, load);
    return sbx_test_main(s);
}

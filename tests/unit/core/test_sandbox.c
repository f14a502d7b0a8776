/* The sandbox handle's state machine and the result's JSON form, independent of any tier. */
#include <stdio.h>
#include <string.h>

#include <sbx.h>

#include "sbx_test.h"
#include "util/alloc.h"
#include "wasm_builder.h"

START_TEST(create_rejects_bad_arguments)
{
    sbx_policy *p = sbx_test_policy(NULL);
    sbx_sandbox *sb = (sbx_sandbox *)1;
    ck_assert_int_eq(sbx_sandbox_create(SBX_BACKEND_WORKER, NULL, &sb), SBX_E_INVALID_ARGUMENT);
    ck_assert_ptr_null(sb);
    ck_assert_int_eq(sbx_sandbox_create((sbx_backend)7, p, &sb), SBX_E_INVALID_ARGUMENT);
    ck_assert_int_eq(sbx_sandbox_create(SBX_BACKEND_WORKER, p, NULL), SBX_E_INVALID_ARGUMENT);
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(run_after_dispose_is_disposed)
{
    sbx_sandbox *sb = sbx_test_sandbox(SBX_BACKEND_WORKER, NULL);
    sbx_sandbox_dispose(sb);
    sbx_sandbox_dispose(sb); /* idempotent */
    sbx_run_input in = {.code = "return 1", .code_len = 8};
    sbx_result r;
    ck_assert_int_eq(sbx_sandbox_run(sb, &in, &r), SBX_OK);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.error, SBX_E_DISPOSED);
    char *json = sbx_result_to_json(&r);
    ck_assert_ptr_nonnull(strstr(json, "\"code\":\"SANDBOX_DISPOSED\""));
    sbx_free(json);
    sbx_result_free(&r);
    ck_assert_int_eq(sbx_sandbox_run(sb, NULL, &r), SBX_E_INVALID_ARGUMENT);
    ck_assert_int_eq(r.error, SBX_E_INVALID_ARGUMENT);
    sbx_result_free(&r);
    ck_assert_int_eq(sbx_sandbox_run(sb, &in, NULL), SBX_E_INVALID_ARGUMENT);
    sbx_sandbox_destroy(sb);
    sbx_sandbox_destroy(NULL);
    sbx_sandbox_abort(NULL);
    sbx_sandbox_dispose(NULL);
}
END_TEST

START_TEST(backend_names_round_trip)
{
    const char *names[] = {"worker", "process", "wasm"};
    for (int i = 0; i < 3; i++) {
        sbx_backend b;
        ck_assert_int_eq(sbx_backend_from_name(names[i], &b), 0);
        ck_assert_int_eq(b, i);
        ck_assert_str_eq(sbx_backend_name(b), names[i]);
    }
    ck_assert_int_eq(sbx_backend_from_name("vm", NULL), -1);
    ck_assert_int_eq(sbx_backend_from_name(NULL, NULL), -1);
    ck_assert_str_eq(sbx_backend_name((sbx_backend)9), "unknown");
}
END_TEST

START_TEST(result_json_shape)
{
    sbx_result r = {0};
    r.ok = true;
    r.value_json = sbx__strdup("{\"a\":[1,2]}");
    r.stdout_data = sbx__strdup("hi \xF0\x9F\x98\x80\n");
    r.stdout_len = strlen(r.stdout_data);
    r.stderr_data = sbx__strndup("bad \xFF\xC0 bytes", 12);
    r.stderr_len = 12;
    r.stderr_truncated = true;
    r.duration_ms = 0.3125;
    r.backend = SBX_BACKEND_WORKER;
    char *json = sbx_result_to_json(&r);
    ck_assert_str_eq(json,
                     "{\"ok\":true,\"value\":{\"a\":[1,2]},\"stdout\":\"hi \xF0\x9F\x98\x80\\n\","
                     "\"stderr\":\"bad \xEF\xBF\xBD\xEF\xBF\xBD bytes\","
                     "\"stdoutTruncated\":false,\"stderrTruncated\":true,\"error\":null,"
                     "\"durationMs\":0.312,\"backend\":\"worker\"}");
    sbx_free(json);
    sbx_result_free(&r);
    ck_assert_ptr_null(r.value_json);
    ck_assert_int_eq(r.exit_code, -1);
    sbx_result_free(NULL);
}
END_TEST

/* Reals keep the guest's own text: jansson would print 10 significant digits (0.1 + 0.2 came
 * out as 0.3 in every result JSON, the CLI's and the bindings'). */
START_TEST(result_json_keeps_reals)
{
    sbx_result r = {0};
    r.ok = true;
    r.value_json = sbx__strdup("[0.30000000000000004,0.1,1.3369140625,{\"a\":[1e+21,-5e-324]},7]");
    r.backend = SBX_BACKEND_WORKER;
    char *json = sbx_result_to_json(&r);
    ck_assert_ptr_nonnull(strstr(
        json, "\"value\":[0.30000000000000004,0.1,1.3369140625,{\"a\":[1e+21,-5e-324]},7],"));
    sbx_free(json);
    sbx_result_free(&r);
}
END_TEST

START_TEST(result_json_process_fields)
{
    sbx_result r = {0};
    r.backend = SBX_BACKEND_PROCESS;
    r.error = SBX_E_TIMEOUT;
    r.exit_code = -1;
    r.signal = 9;
    r.limit = SBX_LIMIT_TIMEOUT;
    r.enforced = SBX_ENFORCED_CGROUP_V1 | SBX_ENFORCED_SECCOMP;
    char *json = sbx_result_to_json(&r);
    ck_assert_ptr_nonnull(strstr(json, "\"error\":{\"code\":\"SANDBOX_TIMEOUT\",\"message\":"
                                       "\"run exceeded its time limit\"}"));
    ck_assert_ptr_nonnull(strstr(json, "\"exitCode\":null,\"signal\":9,\"limit\":\"timeout\""));
    ck_assert_ptr_nonnull(strstr(json, "\"enforced\":[\"cgroup-v1\",\"seccomp\"]"));
    sbx_free(json);
    ck_assert_ptr_null(sbx_result_to_json(NULL));
}
END_TEST

/* One tier's guests: spin never ends by itself, quick ends at once with success. */
struct tier_guests {
    sbx_backend backend;
    sbx_run_input spin, quick;
};

static const char *const sh_spin[] = {"sh", "-c", "while :; do :; done", NULL};
static const char *const sh_quick[] = {"sh", "-c", "exit 0", NULL};

/* Fills the tier's guests; the wasm ones are modules the caller frees (modules[0..1]). */
static struct tier_guests tier_guests(int i, uint8_t *modules[2])
{
    size_t spin_len = 0, quick_len = 0;
    struct tier_guests t = {.backend = (sbx_backend)i};
    switch (t.backend) {
    case SBX_BACKEND_WORKER:
        t.spin = (sbx_run_input){.code = "for (;;) {}", .code_len = 11};
        t.quick = (sbx_run_input){.code = "return 1", .code_len = 8};
        break;
    case SBX_BACKEND_PROCESS:
        t.spin = (sbx_run_input){.argv = sh_spin};
        t.quick = (sbx_run_input){.argv = sh_quick};
        break;
    case SBX_BACKEND_WASM:
        modules[0] = wb_fixture_spin(&spin_len);
        modules[1] = wb_fixture_print_exit("", 1, 0, &quick_len);
        t.spin = (sbx_run_input){.module = modules[0], .module_len = spin_len};
        t.quick = (sbx_run_input){.module = modules[1], .module_len = quick_len};
        break;
    }
    return t;
}

static void run_expect(sbx_sandbox *sb, const sbx_run_input *in, sbx_err error, double max_ms)
{
    sbx_result r;
    ck_assert_int_eq(sbx_sandbox_run(sb, in, &r), SBX_OK);
    ck_assert_msg(r.error == error, "%s: got %s (%s), want %s", sbx_backend_name(r.backend),
                  sbx_err_name(r.error), r.error_message ? r.error_message : "",
                  sbx_err_name(error));
    ck_assert_msg(r.duration_ms < max_ms, "%s: took %.1f ms", sbx_backend_name(r.backend),
                  r.duration_ms);
    sbx_result_free(&r);
}

/* An abort that comes before the run is registered is remembered (sbx_sandbox_abort's latch):
 * the run ends at once with SANDBOX_ABORTED instead of spinning to its 5 s limit, in each tier.
 * The control spins to its limit, so the prompt ABORTED is the latch, not the guest ending. */
START_TEST(abort_before_run_is_remembered)
{
    uint8_t *modules[2] = {NULL, NULL};
    struct tier_guests t = tier_guests(_i, modules);
    sbx_sandbox *control = sbx_test_sandbox(t.backend, "{\"timeoutMs\": 200}");
    run_expect(control, &t.spin, SBX_E_TIMEOUT, 5000);
    sbx_sandbox_destroy(control);

    sbx_sandbox *sb = sbx_test_sandbox(t.backend, "{\"timeoutMs\": 5000}");
    sbx_sandbox_abort(sb);
    run_expect(sb, &t.spin, SBX_E_ABORTED, 1000);
    /* The abort reached that one run; a cleared one reaches none. */
    run_expect(sb, &t.quick, SBX_OK, 5000);
    sbx_sandbox_abort(sb);
    sbx_sandbox_clear_abort(sb);
    run_expect(sb, &t.quick, SBX_OK, 5000);
    sbx_sandbox_destroy(sb);
    free(modules[0]);
    free(modules[1]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sandbox");
    TCase *tc = tcase_create("sandbox");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, create_rejects_bad_arguments);
    tcase_add_test(tc, run_after_dispose_is_disposed);
    tcase_add_test(tc, backend_names_round_trip);
    tcase_add_test(tc, result_json_shape);
    tcase_add_test(tc, result_json_keeps_reals);
    tcase_add_test(tc, result_json_process_fields);
    suite_add_tcase(s, tc);
    TCase *latch = tcase_create("abort_latch"); /* the control spins to its 200 ms limit */
    tcase_set_timeout(latch, 30);
    tcase_add_loop_test(latch, abort_before_run_is_remembered, 0, 3);
    suite_add_tcase(s, latch);
    return sbx_test_main(s);
}

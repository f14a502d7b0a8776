/* The sandbox handle's state machine and the result's JSON form, independent of any tier. */
#include <string.h>

#include <sbx.h>

#include "sbx_test.h"
#include "util/alloc.h"

static sbx_policy *default_policy(void)
{
    sbx_policy *p = NULL;
    ck_assert_int_eq(sbx_policy_parse("{}", 2, &p, NULL, 0), SBX_OK);
    return p;
}

START_TEST(create_rejects_bad_arguments)
{
    sbx_policy *p = default_policy();
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
    sbx_policy *p = default_policy();
    sbx_sandbox *sb = NULL;
    ck_assert_int_eq(sbx_sandbox_create(SBX_BACKEND_WORKER, p, &sb), SBX_OK);
    sbx_policy_destroy(p); /* the sandbox keeps its own copy */
    sbx_sandbox_abort(sb); /* idle: no effect */
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

int main(void)
{
    Suite *s = suite_create("sandbox");
    TCase *tc = tcase_create("sandbox");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, create_rejects_bad_arguments);
    tcase_add_test(tc, run_after_dispose_is_disposed);
    tcase_add_test(tc, backend_names_round_trip);
    tcase_add_test(tc, result_json_shape);
    tcase_add_test(tc, result_json_process_fields);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

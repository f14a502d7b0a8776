/* tests/unit/core/test_result_alloc.c: sbx_result_to_json under allocation failure, through the
 * library's allocator and through jansson's: every step gives the whole document or NULL, never
 * a document with a member missing. */
#include <check.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <sbx/sandbox.h>

#include "jansson_fail.h"
#include "sbx_test.h"
#include "util/alloc.h"

#define MAX_STEPS     100000
#define CONFIRM_STEPS 32

/* A failed process run: every member present, ill-formed UTF-8 in stderr to sanitise. */
static sbx_result sample(void)
{
    static sbx_denial denials[] = {{.kind = SBX_DENIAL_CONNECT,
                                    .family = 2 /* AF_INET */,
                                    .host = "10.0.0.1",
                                    .port = 80,
                                    .count = 2},
                                   {.kind = SBX_DENIAL_DNS, .host = "evil.example", .count = 1}};
    static char out[] = "line\n", err[] = "bad \xff byte", msg[] = "guest killed by SIGKILL";
    static char value[] = "{\"a\": [1, 2, {\"b\": \"c\"}]}";
    return (sbx_result){.ok = false,
                        .error = SBX_E_TIMEOUT,
                        .error_message = msg,
                        .value_json = value,
                        .stdout_data = out,
                        .stdout_len = strlen(out),
                        .stderr_data = err,
                        .stderr_len = strlen(err),
                        .exit_code = -1,
                        .signal = 9,
                        .limit = SBX_LIMIT_TIMEOUT,
                        .duration_ms = 12.5,
                        .backend = SBX_BACKEND_PROCESS,
                        .enforced = SBX_ENFORCED_CGROUP_V2 | SBX_ENFORCED_SECCOMP,
                        .denials = denials,
                        .denial_count = 2,
                        .denied_total = 3};
}

/* use_jansson: fail jansson's nth allocation, else the library's. jansson's lexer reports some
 * allocation failures as syntax errors, which the value's parse cannot tell from a value that is
 * not JSON (kept as a string), so that walk leaves the value out. */
static void walk(bool use_jansson)
{
    sbx_result r = sample();
    if (use_jansson)
        r.value_json = NULL;
    char *want = sbx_result_to_json(&r);
    ck_assert_ptr_nonnull(want);
    ck_assert_ptr_nonnull(strstr(want, "\"enforced\":[\"cgroup-v2\",\"seccomp\"]"));
    ck_assert_ptr_nonnull(strstr(want, "\"count\":2},{\"kind\":\"dns\""));
    unsigned long n, ok_run = 0, failures = 0;
    for (n = 1; n < MAX_STEPS && ok_run < CONFIRM_STEPS; n++) {
        jansson_arm(use_jansson ? n : 0);
        sbx__alloc_fail_at(use_jansson ? 0 : n);
        char *got = sbx_result_to_json(&r);
        sbx__alloc_fail_at(0);
        jansson_arm(0);
        if (got)
            ck_assert_str_eq(got, want);
        ok_run = got ? ok_run + 1 : 0;
        failures += got == NULL;
        sbx_free(got);
    }
    ck_assert_int_lt(n, MAX_STEPS);
    ck_assert_int_ge(failures, 3);
    sbx_free(want);
}

START_TEST(library_allocations_fail)
{
    walk(false);
}
END_TEST

START_TEST(jansson_allocations_fail)
{
    jansson_fail_install(true);
    walk(true);
    jansson_fail_install(false);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("result_alloc");
    TCase *tc = tcase_create("result_alloc");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, library_allocations_fail);
    tcase_add_test(tc, jansson_allocations_fail);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

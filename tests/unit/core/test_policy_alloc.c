/* tests/unit/core/test_policy_alloc.c: allocation-failure torture for the policy module. For each
 * input, fail the 1st, 2nd, ... library allocation (sbx__alloc_fail_at) until the call succeeds;
 * every failing step must return a clean error with no policy and (under `make SAN=1`) leak
 * nothing. jansson's own allocations are failed separately (jansson_fail.h, test_jansson_walk). */
#include <check.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sbx/policy.h>

#include "core/policy.h"
#include "jansson_fail.h"
#include "util/alloc.h"
#include "sbx_test.h"

#define TIMEOUT_S 60
/* Consecutive successes after the first: an allocation failure the code swallowed would show up
 * as a later failure here. */
#define CONFIRM_STEPS 32
#define MAX_STEPS     100000

static const char FULL[] =
    "{\"timeoutMs\": 2000, \"memoryBytes\": 33554432, \"cpuPercent\": 50, \"maxOutputBytes\": 4096,"
    " \"pids\": 16, \"env\": {\"LANG\": \"C.UTF-8\", \"HOME\": \"/home/guest\", \"E\": \"\"},"
    " \"fs\": [\"/srv/data::/data\", \"rw:/tmp/out::/out\", \"/etc\", \"rw:/tmp/out::/out\"],"
    " \"net\": {\"loopback\": true, \"outbound\": [\"api.example.org:443\", "
    "\"*.cdn.example.org:443\", \"10.0.0.5:*\", \"[::1]:8080\"]},"
    " \"capabilities\": {\"host.log\": \"allow\", \"host.http\": \"deny\"}, \"fuel\": 100000000}";

/* Inputs whose parse ends in a validation error after some allocations. */
static const char *const INVALID[] = {
    "{\"env\": {\"A\": \"1\", \"B\": 2}}",
    "{\"fs\": [\"/a\", \"/b::/c\", \"rw:\"]}",
    "{\"net\": {\"outbound\": [\"a.example:1\", \"b.example:99999\"]}}",
    "{\"capabilities\": {\"a.b\": \"allow\", \"c.d\": \"maybe\"}}",
    "{\"fs\": [\"/x\"], \"bogus\": 1}",
};

/* Runs parse with the nth allocation failing; returns its result and checks the failure shape. */
static sbx_err parse_failing(const char *json, unsigned long n, sbx_err want_final)
{
    sbx_policy *p = (sbx_policy *)&p;
    char err[256] = "";
    sbx__alloc_fail_at(n);
    sbx_err e = sbx_policy_parse(json, strlen(json), &p, err, sizeof(err));
    sbx__alloc_fail_at(0);
    if (e == SBX_OK) {
        ck_assert_ptr_nonnull(p);
        sbx_policy_destroy(p);
        return e;
    }
    ck_assert_msg(e == SBX_E_NOMEM || e == want_final, "step %lu: %s (%s)", n, sbx_err_name(e),
                  err);
    ck_assert_msg(p == NULL, "step %lu: failed parse left a policy", n);
    ck_assert_msg(e != SBX_E_INVALID_OPTIONS || err[0], "step %lu: no message", n);
    return e;
}

START_TEST(test_parse_valid_walk)
{
    unsigned long n, ok_run = 0, nomem = 0;
    for (n = 1; n < MAX_STEPS && ok_run < CONFIRM_STEPS; n++) {
        sbx_err e = parse_failing(FULL, n, SBX_E_NOMEM);
        ok_run = e == SBX_OK ? ok_run + 1 : 0;
        nomem += e == SBX_E_NOMEM;
    }
    ck_assert_int_lt(n, MAX_STEPS);
    ck_assert_msg(nomem >= 10, "only %lu allocations were failed: the switch did not reach parse",
                  nomem);
    printf("policy parse: %lu allocation failure points, each returned SANDBOX_HOST_NOMEM\n",
           nomem);
}
END_TEST

START_TEST(test_parse_invalid_walk)
{
    const char *json = INVALID[_i];
    unsigned long n, invalid_run = 0;
    for (n = 1; n < MAX_STEPS && invalid_run < CONFIRM_STEPS; n++) {
        sbx_err e = parse_failing(json, n, SBX_E_INVALID_OPTIONS);
        ck_assert_msg(e != SBX_OK, "invalid policy accepted at step %lu: %s", n, json);
        invalid_run = e == SBX_E_INVALID_OPTIONS ? invalid_run + 1 : 0;
    }
    ck_assert_int_lt(n, MAX_STEPS);
}
END_TEST

START_TEST(test_to_json_walk)
{
    sbx_policy *p;
    char err[256];
    ck_assert_int_eq(sbx_policy_parse(FULL, strlen(FULL), &p, err, sizeof(err)), SBX_OK);
    char *want = sbx_policy_to_json(p);
    ck_assert_ptr_nonnull(want);
    unsigned long n, ok_run = 0, failures = 0;
    for (n = 1; n < MAX_STEPS && ok_run < CONFIRM_STEPS; n++) {
        sbx__alloc_fail_at(n);
        char *got = sbx_policy_to_json(p);
        sbx__alloc_fail_at(0);
        ok_run = got ? ok_run + 1 : 0;
        failures += got == NULL;
        if (got)
            ck_assert_str_eq(got, want); /* never a partial document */
        sbx_free(got);
    }
    ck_assert_int_gt(failures, 0);
    sbx_free(want);
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(test_with_walk)
{
    sbx_policy *base;
    char err[256];
    ck_assert_int_eq(sbx_policy_parse(FULL, strlen(FULL), &base, err, sizeof(err)), SBX_OK);
    static const char *const edits[][2] = {
        {"fs", "[\"rw:/var/tmp\"]"},
        {"net.outbound", "[\"x.example:80\"]"},
        {"env", "{\"NEW\": \"1\"}"},
        {"timeoutMs", "100"},
    };
    for (size_t k = 0; k < sizeof(edits) / sizeof(edits[0]); k++) {
        unsigned long n, ok_run = 0;
        for (n = 1; n < MAX_STEPS && ok_run < CONFIRM_STEPS; n++) {
            sbx_policy *out = (sbx_policy *)&out;
            sbx__alloc_fail_at(n);
            sbx_err e = sbx_policy_with(base, edits[k][0], edits[k][1], &out, err, sizeof(err));
            sbx__alloc_fail_at(0);
            ck_assert_msg(e == SBX_OK || e == SBX_E_NOMEM, "%s step %lu: %s (%s)", edits[k][0], n,
                          sbx_err_name(e), err);
            ck_assert(e == SBX_OK ? out != NULL : out == NULL);
            ok_run = e == SBX_OK ? ok_run + 1 : 0;
            sbx_policy_destroy(e == SBX_OK ? out : NULL);
        }
        ck_assert_int_lt(n, MAX_STEPS);
    }
    sbx_policy_destroy(base);
}
END_TEST

/* The library's own jansson allocations (the JSON form, edits) fail one at a time: every entry
 * point fails cleanly with no partial result, then succeeds once the failure point lies past its
 * last allocation. A parse fails only at its first allocation: jansson 2.14 asserts in its lexer
 * on some later ones. */
START_TEST(test_jansson_walk)
{
    jansson_fail_install(true);
    sbx_policy *base;
    char err[256];
    ck_assert_int_eq(sbx_policy_parse(FULL, strlen(FULL), &base, err, sizeof(err)), SBX_OK);
    char *want = sbx_policy_to_json(base);
    ck_assert_ptr_nonnull(want);
    unsigned long n, ok_run = 0, failures = 0;
    for (n = 1; n < MAX_STEPS && ok_run < CONFIRM_STEPS; n++) {
        sbx_policy *q = (sbx_policy *)&q;
        jansson_arm(n);
        char *got = sbx_policy_to_json(base);
        jansson_arm(n);
        sbx_err we = sbx_policy_with(base, "pids", "2", &q, err, sizeof(err));
        jansson_arm(0); /* (sharing a policy takes no JSON: sbx__policy_ref, test_policy.c) */
        ck_assert_msg(we == SBX_OK || we == SBX_E_NOMEM, "with step %lu: %s", n, err);
        ck_assert(we == SBX_OK ? q != NULL : q == NULL);
        if (we == SBX_E_NOMEM)
            ck_assert_str_eq(err, "policy: out of memory");
        if (got)
            ck_assert_str_eq(got, want); /* never a partial document */
        bool all_ok = we == SBX_OK && got;
        ok_run = all_ok ? ok_run + 1 : 0;
        failures += !all_ok;
        sbx_free(got);
        sbx_policy_destroy(we == SBX_OK ? q : NULL);
    }
    ck_assert_int_lt(n, MAX_STEPS);
    ck_assert_int_ge(failures, 10);
    /* The parser's first allocation (its lexer's buffer) fails before any error is set. */
    sbx_policy *p = (sbx_policy *)&p;
    jansson_arm(1);
    ck_assert_int_eq(sbx_policy_parse(FULL, strlen(FULL), &p, err, sizeof(err)), SBX_E_NOMEM);
    ck_assert_ptr_null(p);
    ck_assert_str_eq(err, "policy: out of memory");
    char path[] = "/tmp/sbx-policy-alloc-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, FULL, strlen(FULL)), (ssize_t)strlen(FULL));
    close(fd);
    jansson_arm(1);
    ck_assert_int_eq(sbx_policy_parse_file(path, &p, err, sizeof(err)), SBX_E_NOMEM);
    jansson_arm(0);
    unlink(path);
    ck_assert_ptr_null(p);
    ck_assert_ptr_null(sbx_policy_to_json(NULL));
    sbx_free(want);
    sbx_policy_destroy(base);
    jansson_fail_install(false);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("policy_alloc");
    TCase *tc = tcase_create("alloc_failure");
    tcase_set_timeout(tc, TIMEOUT_S);
    tcase_add_test(tc, test_parse_valid_walk);
    tcase_add_loop_test(tc, test_parse_invalid_walk, 0,
                        (int)(sizeof(INVALID) / sizeof(INVALID[0])));
    tcase_add_test(tc, test_to_json_walk);
    tcase_add_test(tc, test_with_walk);
    tcase_add_test(tc, test_jansson_walk);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

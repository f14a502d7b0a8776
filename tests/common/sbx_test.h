/* tests/common/sbx_test.h: shared helpers for Check-based unit tests: the runner's main, and
 * policies and sandboxes made from JSON through the public API. */
#ifndef SBX_TEST_H
#define SBX_TEST_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <sbx.h>

/* Runs one suite, prints Check's summary line, and returns the process exit status. */
static inline int sbx_test_main(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Parses policy JSON (NULL: "{}"), failing the test with the parser's message. */
static inline sbx_policy *sbx_test_policy(const char *json)
{
    char err[256] = "";
    sbx_policy *p = NULL;
    json = json ? json : "{}";
    sbx_err rc = sbx_policy_parse(json, strlen(json), &p, err, sizeof(err));
    ck_assert_msg(rc == SBX_OK, "policy %s: %s", json, err);
    return p;
}

/* Creates a sandbox of the tier under policy JSON (NULL: "{}"); sbx_sandbox_destroy() it. */
static inline sbx_sandbox *sbx_test_sandbox(sbx_backend backend, const char *json)
{
    sbx_policy *p = sbx_test_policy(json);
    sbx_sandbox *sb = NULL;
    sbx_err rc = sbx_sandbox_create(backend, p, &sb);
    sbx_policy_destroy(p);
    ck_assert_msg(rc == SBX_OK, "create %s: %s", sbx_backend_name(backend), sbx_err_name(rc));
    return sb;
}

/* Runs in once in a fresh sandbox of the tier under policy JSON; returns sbx_sandbox_run()'s
 * code, and the caller frees *r. */
static inline sbx_err sbx_test_run_once(sbx_backend backend, const char *json,
                                        const sbx_run_input *in, sbx_result *r)
{
    sbx_sandbox *sb = sbx_test_sandbox(backend, json);
    sbx_err rc = sbx_sandbox_run(sb, in, r);
    sbx_sandbox_destroy(sb);
    return rc;
}

#endif

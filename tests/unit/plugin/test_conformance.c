/* test_conformance.c: the harness's self-test. Under a deny-all, a read-only and a permissive
 * policy every probe must pass, and each must have expected and seen what the policy says
 * (so a harness that expected the wrong thing fails here too). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include <sbx.h>
#include "sbx_test.h"

static sbx_policy *policy_of(const char *json)
{
    sbx_policy *p = NULL;
    char err[256];
    ck_assert_msg(sbx_policy_parse(json, strlen(json), &p, err, sizeof(err)) == SBX_OK, "%s", err);
    return p;
}

static const sbx_wasm_conformance_case *find(const sbx_wasm_conformance_report *r, const char *name)
{
    for (size_t i = 0; i < r->case_count; i++)
        if (!strcmp(r->cases[i].name, name))
            return &r->cases[i];
    ck_abort_msg("no case %s", name);
    return NULL;
}

static void run(const char *json, sbx_wasm_conformance_report *r)
{
    sbx_policy *p = policy_of(json);
    ck_assert_int_eq(sbx_wasm_run_conformance(p, r), SBX_OK);
    sbx_policy_destroy(p);
    for (size_t i = 0; i < r->case_count; i++)
        fprintf(stderr, "%-4s %-28s expect %-5s saw %-5s %s\n", r->cases[i].passed ? "ok" : "FAIL",
                r->cases[i].name, r->cases[i].expect_allowed ? "allow" : "deny",
                r->cases[i].was_allowed ? "allow" : "deny", r->cases[i].detail);
    ck_assert_uint_ge(r->case_count, 12);
    ck_assert_uint_eq(r->passed_count, r->case_count);
}

static void expect(const sbx_wasm_conformance_report *r, const char *name, bool allowed)
{
    const sbx_wasm_conformance_case *c = find(r, name);
    ck_assert_msg(c->expect_allowed == allowed && c->was_allowed == allowed && c->passed, "%s",
                  name);
}

START_TEST(deny_all_policy)
{
    sbx_wasm_conformance_report r;
    run("{}", &r);
    expect(&r, "fs.read", false);
    expect(&r, "fs.write", false);
    expect(&r, "fs.create", false);
    expect(&r, "fs.escape.dotdot", false);
    expect(&r, "net.connect", false);
    expect(&r, "env", false);
    expect(&r, "args", true);
    expect(&r, "clock", true);
    expect(&r, "random", true);
    expect(&r, "cap.sbx_conformance.unlisted", false);
    sbx_wasm_conformance_free(&r);
}
END_TEST

START_TEST(read_only_grant)
{
    sbx_wasm_conformance_report r;
    run("{\"fs\": [\"/nonexistent-but-moved::/data\"], \"env\": {\"A\": \"1\"}}", &r);
    expect(&r, "fs.read", true);
    expect(&r, "fs.write", false);
    expect(&r, "fs.create", false);
    expect(&r, "fs.escape.dotdot", false);
    expect(&r, "fs.escape.symlink", false);
    expect(&r, "fs.escape.abs_symlink", false);
    expect(&r, "env", true);
    sbx_wasm_conformance_free(&r);
}
END_TEST

START_TEST(permissive_policy)
{
    sbx_wasm_conformance_report r;
    run("{\"fs\": [\"rw:/x::/work\"], \"net\": {\"outbound\": [\"127.0.0.1:*\"]},"
        " \"capabilities\": {\"host.log\": \"allow\", \"host.http\": \"deny\"}}",
        &r);
    expect(&r, "fs.read", true);
    expect(&r, "fs.write", true);
    expect(&r, "fs.create", true);
    expect(&r, "fs.escape.dotdot", false);
    expect(&r, "fs.escape.symlink", false);
    expect(&r, "net.connect", true);
    expect(&r, "cap.host.log", true);
    expect(&r, "cap.host.http", false);
    expect(&r, "cap.sbx_conformance.unlisted", false);
    sbx_wasm_conformance_free(&r);
}
END_TEST

START_TEST(bad_arguments)
{
    sbx_wasm_conformance_report r;
    ck_assert_int_eq(sbx_wasm_run_conformance(NULL, &r), SBX_E_INVALID_ARGUMENT);
    ck_assert_uint_eq(r.case_count, 0);
    sbx_policy *p = policy_of("{}");
    ck_assert_int_eq(sbx_wasm_run_conformance(p, NULL), SBX_E_INVALID_ARGUMENT);
    sbx_policy_destroy(p);
    sbx_wasm_conformance_free(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plugin_conformance");
    TCase *tc = tcase_create("conformance");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, deny_all_policy);
    tcase_add_test(tc, read_only_grant);
    tcase_add_test(tc, permissive_policy);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

/* tests/unit/jail/test_plan.c: the parent-side pieces of the process tier, table-driven: guest
 * path checks, exec candidates (execvp order), the environment, the sbx-js record parser, the
 * seccomp export and the Landlock access sets. */
#include <string.h>

#include "jail_test.h"

#include "core/policy.h"
#include "jail/guest.h"
#include "jail/jail.h"
#include "jail/plan.h"

static struct sbx_policy *policy_of(const char *json)
{
    char err[256];
    sbx_policy *p = NULL;
    ck_assert_msg(sbx_policy_parse(json, strlen(json), &p, err, sizeof(err)) == SBX_OK, "%s", err);
    return p;
}

START_TEST(test_guest_paths)
{
    static const struct {
        const char *guest;
        sbx_err want;
    } cases[] = {
        {"/data", SBX_OK},
        {"/a/b/c", SBX_OK},
        {"/proc", SBX_E_INVALID_OPTIONS},
        {"/proc/x", SBX_E_INVALID_OPTIONS},
        {"/dev", SBX_E_INVALID_OPTIONS},
        {"/sbx", SBX_E_INVALID_OPTIONS},
        {"/a/../etc", SBX_E_INVALID_OPTIONS},
        {"/..", SBX_E_INVALID_OPTIONS},
        {"/", SBX_E_INVALID_OPTIONS},
        {"/procx", SBX_OK},
        {"/a/..b", SBX_OK},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char json[256];
        snprintf(json, sizeof(json), "{\"fs\":[\"/usr::%s\"]}", cases[i].guest);
        struct sbx_policy *p = policy_of(json);
        struct sbx__jail_spec spec = {.root_dir = "/r", .exec_fd = -1, .landlock_abi = 1};
        char err[256] = "";
        sbx_err e = sbx__jail_plan_fs(&spec, p, NULL, err, sizeof(err));
        ck_assert_msg(e == cases[i].want, "%s: got %s (%s)", cases[i].guest, sbx_err_name(e), err);
        if (e == SBX_OK) {
            struct sbx__jail_mount *last = &spec.mounts[spec.mount_count - 1];
            char want[256];
            snprintf(want, sizeof(want), "/r%s", cases[i].guest);
            ck_assert_str_eq(last->dst, want);
            ck_assert_int_eq(last->kind, SBX__MNT_BIND);
        }
        sbx__jail_plan_free(&spec);
        sbx_policy_destroy(p);
    }
}
END_TEST

START_TEST(test_plan_defaults)
{
    struct sbx_policy *p = policy_of("{\"fs\":[\"rw:/tmp::/w\"]}");
    struct sbx__jail_spec spec = {.root_dir = "/r", .exec_fd = -1, .landlock_abi = 3};
    char err[256];
    ck_assert_int_eq(sbx__jail_plan_fs(&spec, p, "/in", err, sizeof(err)), SBX_OK);
    bool has_proc = false, has_passwd = false, has_sbx = false, has_rw = false;
    for (size_t i = 0; i < spec.mount_count; i++) {
        const struct sbx__jail_mount *m = &spec.mounts[i];
        has_proc |= m->kind == SBX__MNT_PROC && strcmp(m->dst, "/r/proc") == 0;
        has_passwd |= m->src && strstr(m->src, "passwd") != NULL;
        has_sbx |= m->kind == SBX__MNT_BIND && strcmp(m->dst, "/r/sbx") == 0;
        has_rw |= m->kind == SBX__MNT_BIND_RW && strcmp(m->dst, "/r/w") == 0;
    }
    ck_assert(has_proc && has_sbx && has_rw && !has_passwd);
    bool rule_rw = false;
    for (size_t i = 0; i < spec.rule_count; i++) {
        if (strcmp(spec.rules[i].path, "/w") == 0)
            rule_rw = (spec.rules[i].access & sbx__jail_landlock_write_access(3)) != 0;
    }
    ck_assert(rule_rw);
    sbx__jail_plan_free(&spec);
    sbx__jail_plan_free(&spec); /* idempotent */
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(test_exec_candidates)
{
    static const struct {
        const char *policy;
        const char *cmd;
        size_t count;
        const char *first;
    } cases[] = {
        {"{}", "sh", 6, "/usr/local/bin/sh"},
        {"{}", "/bin/sh", 1, "/bin/sh"},
        {"{\"env\":{\"PATH\":\"/opt/x:relative::/usr/bin\"}}", "py", 2, "/opt/x/py"},
        {"{}", "./local", 1, "./local"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sbx_policy *p = policy_of(cases[i].policy);
        struct sbx__jail_spec spec = {.exec_fd = -1};
        const char *argv[] = {cases[i].cmd, "arg", NULL};
        ck_assert_int_eq(sbx__jail_plan_exec(&spec, p, argv), SBX_OK);
        ck_assert_uint_eq(spec.exec_path_count, cases[i].count);
        ck_assert_str_eq(spec.exec_paths[0], cases[i].first);
        ck_assert_str_eq(spec.argv[1], "arg");
        ck_assert_ptr_null(spec.argv[2]);
        sbx__jail_plan_free(&spec);
        sbx_policy_destroy(p);
    }
    struct sbx_policy *p = policy_of("{\"env\":{\"A\":\"1=2\"}}");
    struct sbx__jail_spec spec = {.exec_fd = -1};
    const char *argv[] = {"x", NULL};
    ck_assert_int_eq(sbx__jail_plan_exec(&spec, p, argv), SBX_OK);
    ck_assert_str_eq(spec.envp[0], "A=1=2");
    ck_assert_ptr_null(spec.envp[1]);
    sbx__jail_plan_free(&spec);
    const char *empty[] = {"", NULL};
    ck_assert_int_eq(sbx__jail_plan_exec(&spec, p, empty), SBX_E_INVALID_ARGUMENT);
    sbx__jail_plan_free(&spec);
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(test_guest_records)
{
    static const struct {
        const char *data;
        bool parsed;
        bool ok;
        sbx_err err;
        const char *value;
        sbx_limit limit;
    } cases[] = {
        {"ok:1:1value:7:{\"a\":1}", true, true, SBX_OK, "{\"a\":1}", SBX_LIMIT_NONE},
        {"ok:1:0error:15:SANDBOX_TIMEOUTmessage:3:t/o", true, false, SBX_E_TIMEOUT, NULL,
         SBX_LIMIT_TIMEOUT},
        {"ok:1:0error:5:BOGUS", true, false, SBX_E_EXECUTION_FAILED, NULL, SBX_LIMIT_NONE},
        {"ok:1:1value:99:short", true, true, SBX_OK, NULL, SBX_LIMIT_NONE},
        /* a value that is not JSON fails the run (it was shown as a string) */
        {"ok:1:1value:6:{\"a\":1", true, false, SBX_E_EXECUTION_FAILED, NULL, SBX_LIMIT_NONE},
        {"value:1:1", false, false, SBX_OK, "1", SBX_LIMIT_NONE},
        {"garbage", false, false, SBX_OK, NULL, SBX_LIMIT_NONE},
        {"ok:99999999999999999999999:1", false, false, SBX_OK, NULL, SBX_LIMIT_NONE},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sbx_result r;
        memset(&r, 0, sizeof(r));
        bool parsed = sbx__jail_guest_apply_result(cases[i].data, strlen(cases[i].data), &r);
        ck_assert_msg(parsed == cases[i].parsed, "case %zu", i);
        ck_assert_int_eq(r.ok, cases[i].ok);
        ck_assert_int_eq(r.error, cases[i].err);
        ck_assert_int_eq(r.limit, cases[i].limit);
        if (cases[i].value)
            ck_assert_str_eq(r.value_json, cases[i].value);
        else
            ck_assert_ptr_null(r.value_json);
        sbx_result_free(&r);
    }
}
END_TEST

START_TEST(test_filters_and_landlock)
{
    struct sbx__jail_bpf f[2];
    ck_assert_int_eq(sbx__jail_seccomp_filters(f), SBX_OK);
    ck_assert_uint_gt(f[0].count, 4);
    ck_assert_uint_gt(f[1].count, 100); /* the allowlist */
    struct sbx__jail_bpf again[2];
    sbx__jail_seccomp_filters(again);
    ck_assert_ptr_eq(again[1].insns, f[1].insns); /* built once */
    uint64_t rd = sbx__jail_landlock_read_access();
    ck_assert_uint_eq(rd & sbx__jail_landlock_write_access(1), 0);
    ck_assert_uint_lt(sbx__jail_landlock_write_access(1), sbx__jail_landlock_write_access(3));
    ck_assert_int_ge(sbx__jail_landlock_abi(), 0);
    ck_assert_str_eq(sbx__jail_stage_name(SBX__STAGE_SECCOMP), "seccomp");
    ck_assert_str_eq(sbx__jail_stage_name(999), "setup");
    ck_assert(sbx__jail_guest_is_js(NULL) && sbx__jail_guest_is_js("sbx-js"));
    ck_assert(!sbx__jail_guest_is_js("node"));
}
END_TEST

static Suite *plan_suite(void)
{
    Suite *s = suite_create("jail-plan");
    TCase *tc = tcase_create("plan");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_guest_paths);
    tcase_add_test(tc, test_plan_defaults);
    tcase_add_test(tc, test_exec_candidates);
    tcase_add_test(tc, test_guest_records);
    tcase_add_test(tc, test_filters_and_landlock);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(plan_suite());
}

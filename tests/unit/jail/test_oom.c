/* tests/unit/jail/test_oom.c: an OOM kill of any process of a run is the run's outcome: a child
 * killed by the memory cgroup gives limit "memory" and no clean success even when the main
 * process swallows the kill and exits 0. The control runs the same shape under the cap. */
#include <signal.h>

#include "jail_test.h"

#define CAP "33554432" /* 32 MiB */

static bool has_cgroup(const sbx_result *r)
{
    return (r->enforced & (SBX_ENFORCED_CGROUP_V1 | SBX_ENFORCED_CGROUP_V2)) != 0;
}

/* sh is the main process; python3 is its child, which allocates mb MiB and touches it. */
static sbx_err run_child_alloc(sbx_sandbox *sb, int mb, sbx_result *r)
{
    char script[256];
    snprintf(script, sizeof(script),
             "python3 -c 'b = bytearray(%d << 20); print(len(b) >> 20)'; echo child=$?; exit 0",
             mb);
    return jt_sh(sb, script, r);
}

START_TEST(test_child_oom_kill_is_reported)
{
    sbx_sandbox *sb = jt_sandbox("{\"memoryBytes\":" CAP ",\"timeoutMs\":15000}");
    sbx_result r;
    ck_assert_int_eq(run_child_alloc(sb, 8, &r), SBX_OK); /* control: under the cap */
    ck_assert_msg(r.ok, "%s: %s", r.error_message, r.stderr_data);
    ck_assert_str_eq(jt_out(&r), "8\nchild=0\n");
    ck_assert_int_eq(r.limit, SBX_LIMIT_NONE);
    sbx_result_free(&r);
    ck_assert_int_eq(run_child_alloc(sb, 128, &r), SBX_OK);
    if (!has_cgroup(&r)) {
        /* rlimit fallback: the allocation fails inside the child; there is no kill to report. */
        ck_assert(r.enforced & SBX_ENFORCED_RLIMIT);
        ck_assert_ptr_nonnull(strstr(r.stderr_data, "MemoryError"));
    } else {
        /* The kill really happened (SIGKILL, 128 + 9), and the main process exited 0. */
        ck_assert_str_eq(jt_out(&r), "child=137\n");
        ck_assert_int_eq(r.exit_code, 0);
        ck_assert(!r.ok);
        ck_assert_int_eq(r.limit, SBX_LIMIT_MEMORY);
        ck_assert_msg(r.error == SBX_E_MEMORY_LIMIT, "%s", sbx_err_name(r.error));
        ck_assert_ptr_nonnull(strstr(r.error_message, CAP));
    }
    sbx_result_free(&r);
    /* The counter is per run: the next clean run on the same handle is clean again. */
    ck_assert_int_eq(run_child_alloc(sb, 8, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s: %s", r.error_message, r.stderr_data);
    ck_assert_int_eq(r.limit, SBX_LIMIT_NONE);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

/* The main process itself killed: the signal and the limit, as before. */
START_TEST(test_main_oom_kill_is_reported)
{
    sbx_sandbox *sb = jt_sandbox("{\"memoryBytes\":" CAP ",\"timeoutMs\":15000}");
    sbx_result r;
    const char *argv[] = {"python3", "-c", "b = bytearray(128 << 20)", NULL};
    ck_assert_int_eq(jt_run_argv(sb, argv, &r), SBX_OK);
    ck_assert(!r.ok);
    if (has_cgroup(&r)) {
        ck_assert_int_eq(r.limit, SBX_LIMIT_MEMORY);
        ck_assert_int_eq(r.error, SBX_E_MEMORY_LIMIT);
        ck_assert_int_eq(r.signal, SIGKILL);
    }
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

static Suite *oom_suite(void)
{
    Suite *s = suite_create("jail-oom");
    TCase *tc = tcase_create("oom");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_child_oom_kill_is_reported);
    tcase_add_test(tc, test_main_oom_kill_is_reported);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    jt_guest_binary();
    return sbx_test_main(oom_suite());
}

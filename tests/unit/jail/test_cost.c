/* tests/unit/jail/test_cost.c: what a one-shot process (`sbx run`) pays, kept correct. The temp
 * root is on a tmpfs without $TMPDIR (/tmp when that is one, else /dev/shm), whose mkdir and
 * rmdir do not wait on a journal as ext4's do; $TMPDIR, when set, wins. The first run of a
 * process gets its seccomp filters built while its child sets up, and still gets both. */
#include <glob.h>
#include <sys/vfs.h>

#include <linux/magic.h>

#include "jail_test.h"

static bool is_tmpfs(const char *dir)
{
    struct statfs sf;
    return statfs(dir, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
}

/* The temp roots this process has under base: "<base>/sbx-jail-<pid>-*". */
static size_t roots_in(const char *base, char first[PATH_MAX])
{
    char pattern[PATH_MAX];
    snprintf(pattern, sizeof(pattern), "%s/sbx-jail-%d-*", base, (int)getpid());
    glob_t g;
    size_t n = glob(pattern, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
    if (n)
        snprintf(first, PATH_MAX, "%s", g.gl_pathv[0]);
    globfree(&g);
    return n;
}

START_TEST(test_temp_root_on_tmpfs)
{
    if (!is_tmpfs("/tmp") && !is_tmpfs("/dev/shm"))
        return; /* no tmpfs to prefer: /tmp it is, as before */
    unsetenv("TMPDIR");
    sbx_sandbox *sb = jt_sandbox("{}");
    char root[PATH_MAX] = "";
    size_t n = roots_in("/tmp", root) + roots_in("/dev/shm", root);
    ck_assert_uint_eq(n, 1);
    ck_assert_msg(is_tmpfs(root), "temp root %s is not on a tmpfs", root);
    sbx_result r;
    ck_assert_int_eq(jt_sh(sb, "echo hi", &r), SBX_OK); /* the jail's mount point works there */
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_str_eq(jt_out(&r), "hi\n");
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    ck_assert_uint_eq(roots_in("/tmp", root) + roots_in("/dev/shm", root), 0);
}
END_TEST

/* Control: $TMPDIR still decides, tmpfs or not. */
START_TEST(test_tmpdir_wins)
{
    char dir[PATH_MAX], root[PATH_MAX];
    jt_tempdir(dir, "tmpdir");
    setenv("TMPDIR", dir, 1);
    sbx_sandbox *sb = jt_sandbox("{}");
    unsetenv("TMPDIR");
    ck_assert_uint_eq(roots_in(dir, root), 1);
    sbx_sandbox_destroy(sb);
    ck_assert_uint_eq(roots_in(dir, root), 0);
    jt_rmrf(dir);
}
END_TEST

/* Each Check test is a fresh process: run 1 takes the late filters, run 2 the built ones. */
START_TEST(test_first_run_filters)
{
    sbx_sandbox *sb = jt_sandbox("{}");
    for (int i = 0; i < 2; i++) {
        sbx_result r;
        ck_assert_int_eq(jt_sh(sb, "grep Seccomp /proc/self/status; unshare -U true 2>&1", &r),
                         SBX_OK);
        ck_assert_msg(strstr(jt_out(&r), "Seccomp:\t2\nSeccomp_filters:\t2\n"), "run %d: %s", i,
                      jt_out(&r));
        ck_assert_ptr_nonnull(strstr(jt_out(&r), "Operation not permitted"));
        ck_assert(!r.ok);
        sbx_result_free(&r);
    }
    sbx_sandbox_destroy(sb);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jail-cost");
    TCase *tc = tcase_create("cost");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_temp_root_on_tmpfs);
    tcase_add_test(tc, test_tmpdir_wins);
    tcase_add_test(tc, test_first_run_filters);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

/* tests/unit/util/test_path.c: sbx__path_open_nofollow, by openat2 and by the component walk:
 * real files and directories open; a symlink anywhere in the path (last component, middle,
 * absolute or relative target, a magic link) is -ELOOP; other failures keep their errno. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx_test.h"
#include "util/path.h"

static char dir[PATH_MAX];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/sbx-path-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char p[PATH_MAX + 32];
    snprintf(p, sizeof(p), "%s/real", dir);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/real/f", dir);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs("data", f);
    fclose(f);
    static const char *const links[][2] = {
        {"abs", "/etc"}, {"rel", "real"}, {"up", "../../../../../etc"}, {"dot", "."}};
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, links[i][0]);
        ck_assert_int_eq(symlink(links[i][1], p), 0);
    }
}

static void teardown(void)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

typedef int (*open_fn)(const char *, int);
static const open_fn modes[] = {sbx__path_open_nofollow, sbx__path_open_nofollow_walk};

/* Returns what fn gives for dir + rel (the fd closed), or -errno. */
static int try_open(open_fn fn, const char *rel, int flags)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof(p), "%s%s", dir, rel);
    int fd = fn(p, flags);
    if (fd >= 0) {
        ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
        close(fd);
        return 0;
    }
    return fd;
}

START_TEST(test_real_paths_open)
{
    open_fn fn = modes[_i];
    static const struct {
        const char *rel;
        int flags;
    } ok[] = {
        {"", O_RDONLY | O_DIRECTORY},
        {"/", O_RDONLY | O_DIRECTORY},
        {"/real", O_RDONLY | O_DIRECTORY},
        {"/real/", O_RDONLY | O_DIRECTORY},
        {"/real/f", O_RDONLY},
        {"//real//f", O_RDONLY},
        {"/real/../real/f", O_RDONLY},
        {"/./real/./f", O_RDONLY},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        ck_assert_msg(try_open(fn, ok[i].rel, ok[i].flags) == 0, "%s", ok[i].rel);
        ck_assert_msg(try_open(fn, ok[i].rel, O_PATH) == 0, "%s (O_PATH)", ok[i].rel);
    }
    int fd = fn("/", O_PATH);
    ck_assert_int_ge(fd, 0);
    close(fd);
}
END_TEST

START_TEST(test_symlinks_refused)
{
    open_fn fn = modes[_i];
    static const char *const bad[] = {"/abs", "/abs/passwd", "/rel",      "/rel/f",
                                      "/up",  "/up/passwd",  "/dot/real", "/real/../rel/f"};
    static const int flags[] = {O_PATH, O_RDONLY, O_RDONLY | O_DIRECTORY};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        for (size_t j = 0; j < sizeof(flags) / sizeof(flags[0]); j++)
            ck_assert_msg(try_open(fn, bad[i], flags[j]) == -ELOOP, "%s flags %#x: %d", bad[i],
                          flags[j], try_open(fn, bad[i], flags[j]));
    ck_assert_int_eq(fn("/proc/self/root/etc", O_PATH), -ELOOP); /* a magic link */
    ck_assert_str_eq(sbx__path_open_error(-ELOOP),
                     "a symlink in the host path is never followed (grant the path it points to)");
}
END_TEST

START_TEST(test_other_errors_kept)
{
    open_fn fn = modes[_i];
    ck_assert_int_eq(try_open(fn, "/missing", O_PATH), -ENOENT);
    ck_assert_int_eq(try_open(fn, "/real/f/x", O_PATH), -ENOTDIR);
    ck_assert_int_eq(try_open(fn, "/real/f", O_RDONLY | O_DIRECTORY), -ENOTDIR);
    ck_assert_int_eq(fn("", O_PATH), -ENOENT);
    char longp[PATH_MAX + 8];
    memset(longp, 'a', sizeof(longp) - 1);
    longp[0] = '/';
    longp[sizeof(longp) - 1] = '\0';
    ck_assert_int_eq(fn(longp, O_PATH), -ENAMETOOLONG);
    ck_assert_str_eq(sbx__path_open_error(-ENOENT), strerror(ENOENT));
}
END_TEST

/* Relative paths resolve from the working directory, with the same rule. */
START_TEST(test_relative_paths)
{
    open_fn fn = modes[_i];
    char cwd[PATH_MAX];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_int_eq(chdir(dir), 0);
    int fd = fn("real/f", O_RDONLY);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(fn("rel/f", O_RDONLY), -ELOOP);
    ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("util.path");
    TCase *tc = tcase_create("nofollow");
    tcase_set_timeout(tc, 10);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_real_paths_open, 0, 2);
    tcase_add_loop_test(tc, test_symlinks_refused, 0, 2);
    tcase_add_loop_test(tc, test_other_errors_kept, 0, 2);
    tcase_add_loop_test(tc, test_relative_paths, 0, 2);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

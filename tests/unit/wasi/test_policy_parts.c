/* The policy pieces of src/wasi/: preopens (build, merge, match), the outbound gate and the
 * errno table. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sbx_test.h"
#include "util/alloc.h"
#include "wasi/internal.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static struct sbx_policy fs_policy(struct sbx__fs_grant *g, size_t n)
{
    struct sbx_policy p = {0};
    p.fs = g;
    p.fs_count = n;
    return p;
}

START_TEST(preopens_read_only_by_default)
{
    struct sbx__fs_grant g[] = {{"/srv/data", "/srv/data", false}};
    struct sbx_policy p = fs_policy(g, 1);
    sbx_preopen *list;
    size_t n;
    ck_assert_int_eq(sbx__wasi_preopens_build(&p, &list, &n), SBX_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(list[0].host_path, "/srv/data");
    ck_assert_str_eq(list[0].guest_path, "/srv/data");
    ck_assert(!list[0].is_writable);
    sbx__wasi_preopens_free(list, n);
}
END_TEST

START_TEST(preopens_rw_prefix_and_guest_path)
{
    struct sbx__fs_grant g[] = {{"/tmp/work", "/work/", true}, {"/opt/x", "./", false}};
    struct sbx_policy p = fs_policy(g, 2);
    sbx_preopen *list;
    size_t n;
    ck_assert_int_eq(sbx__wasi_preopens_build(&p, &list, &n), SBX_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(list[0].guest_path, "/work");
    ck_assert(list[0].is_writable);
    ck_assert_str_eq(list[1].guest_path, ".");
    ck_assert(!list[1].is_writable);
    sbx__wasi_preopens_free(list, n);
}
END_TEST

START_TEST(preopens_dedup)
{
    /* the same guest path three times: one preopen, writable because one grant said rw: */
    struct sbx__fs_grant g[] = {{"/a", "/data", false},
                                {"/b", "/data/", true},
                                {"/c", "//data/.", false},
                                {"/d", "/other", false},
                                {"/d", "/other", false}};
    struct sbx_policy p = fs_policy(g, COUNT(g));
    sbx_preopen *list;
    size_t n;
    ck_assert_int_eq(sbx__wasi_preopens_build(&p, &list, &n), SBX_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(list[0].guest_path, "/data");
    ck_assert_str_eq(list[0].host_path, "/a"); /* the first grant's host path */
    ck_assert(list[0].is_writable);
    ck_assert_str_eq(list[1].guest_path, "/other");
    ck_assert(!list[1].is_writable); /* never writable without an explicit rw: */
    sbx__wasi_preopens_free(list, n);
}
END_TEST

START_TEST(preopens_empty_and_null)
{
    sbx_preopen *list = (void *)1;
    size_t n = 9;
    ck_assert_int_eq(sbx__wasi_preopens_build(NULL, &list, &n), SBX_OK);
    ck_assert_ptr_null(list);
    ck_assert_uint_eq(n, 0);
    struct sbx__fs_grant g[] = {{"/x", NULL, false}};
    struct sbx_policy p = fs_policy(g, 1);
    ck_assert_int_eq(sbx__wasi_preopens_build(&p, &list, &n), SBX_OK);
    ck_assert_str_eq(list[0].guest_path, "/x"); /* no guest path: the host path */
    sbx__wasi_preopens_free(list, n);
    sbx__wasi_preopens_free(NULL, 0);
}
END_TEST

START_TEST(preopens_nomem)
{
    struct sbx__fs_grant g[] = {{"/a", "/a", false}, {"/b", "/b", false}};
    struct sbx_policy p = fs_policy(g, 2);
    sbx_preopen *list;
    size_t n;
    for (unsigned long k = 1; k <= 6; k++) {
        sbx__alloc_fail_at(k);
        sbx_err rc = sbx__wasi_preopens_build(&p, &list, &n);
        sbx__alloc_fail_at(0);
        if (rc == SBX_OK) {
            ck_assert_uint_eq(n, 2);
            sbx__wasi_preopens_free(list, n);
        } else {
            ck_assert_int_eq(rc, SBX_E_NOMEM);
        }
    }
}
END_TEST

START_TEST(preopen_match)
{
    sbx_preopen list[] = {{"/h/root", "/", false},
                          {"/h/data", "/data", false},
                          {"/h/sub", "/data/sub", true},
                          {"/h/rel", "rel", false},
                          {"/h/cwd", ".", false}};
    const char *rest;
    ck_assert_int_eq(sbx__wasi_preopen_match(list, 5, "/data/sub/x/y", &rest), 2);
    ck_assert_str_eq(rest, "x/y");
    ck_assert_int_eq(sbx__wasi_preopen_match(list, 5, "/data/subway", &rest), 1);
    ck_assert_str_eq(rest, "subway");
    ck_assert_int_eq(sbx__wasi_preopen_match(list, 5, "/database", &rest), 0);
    ck_assert_str_eq(rest, "database");
    ck_assert_int_eq(sbx__wasi_preopen_match(list, 5, "/data", &rest), 1);
    ck_assert_str_eq(rest, ".");
    ck_assert_int_eq(sbx__wasi_preopen_match(list, 5, "/data//", &rest), 1);
    ck_assert_str_eq(rest, ".");
    ck_assert_int_eq(sbx__wasi_preopen_match(list, 5, "rel/file", &rest), 3);
    ck_assert_str_eq(rest, "file");
    ck_assert_int_eq(sbx__wasi_preopen_match(list, 5, "other/file", &rest), 4);
    ck_assert_str_eq(rest, "other/file");
    ck_assert_int_eq(sbx__wasi_preopen_match(list, 2, "x", NULL), -1);
    ck_assert_int_eq(sbx__wasi_preopen_match(list + 1, 1, "/etc", &rest), -1);
}
END_TEST

/* The uid that root drops to below: modes bind it, as they never bind root. */
#define NOBODY 65534

/* Opens dir/x, a directory its user may traverse but not list (0311), as a preopen: returns 0
 * when that works and the file in it opens by name, else the number of the step that failed. */
static int open_traverse_only(const char *dir)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/x", dir);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 || errno != EACCES)
        return 1; /* the control: a plain open must be refused, or nothing here is tested */
    sbx_preopen p = {path, "/x", false};
    char err[256];
    if (sbx__wasi_preopen_open(&p, &fd, err, sizeof(err)) != SBX_OK)
        return 2;
    int rc = (fcntl(fd, F_GETFL) & O_PATH) ? 0 : 3;
    int f = openat(fd, "f", O_RDONLY | O_CLOEXEC);
    char buf[4] = "";
    if (rc == 0 && (f < 0 || read(f, buf, sizeof(buf)) != 3 || memcmp(buf, "ok\n", 3) != 0))
        rc = 4;
    if (f >= 0)
        close(f);
    close(fd);
    return rc;
}

/* Runs open_traverse_only() as an unprivileged user: this one, or as root a child that drops
 * to NOBODY (exit(), not _exit(): coverage builds write the child's counters at exit). */
static int traverse_only_unprivileged(const char *dir)
{
    if (geteuid() != 0)
        return open_traverse_only(dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
            exit(10);
        exit(open_traverse_only(dir));
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

START_TEST(preopen_traverse_only_dir)
{
    /* A grant of a directory the host user may search but not list still opens (as O_PATH):
     * the guest reaches the files it names in it. */
    char dir[] = "/tmp/sbx-preopen-XXXXXX", path[600];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/x", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/x/f", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("ok\n", f);
    fclose(f);
    if (geteuid() == 0) {
        ck_assert_int_eq(chown(dir, NOBODY, NOBODY), 0);
        snprintf(path, sizeof(path), "%s/x", dir);
        ck_assert_int_eq(chown(path, NOBODY, NOBODY), 0);
        snprintf(path, sizeof(path), "%s/x/f", dir);
        ck_assert_int_eq(chown(path, NOBODY, NOBODY), 0);
    }
    snprintf(path, sizeof(path), "%s/x", dir);
    ck_assert_int_eq(chmod(path, 0311), 0);
    int step = traverse_only_unprivileged(dir);
    snprintf(path, sizeof(path), "%s/x/f", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/x", dir);
    rmdir(path);
    rmdir(dir);
    ck_assert_msg(step == 0, "traverse-only preopen failed at step %d", step);
}
END_TEST

static const sbx_outbound_rule pats[] = {
    {"api.example.com", 443, false, false},
    {"*.example.org", 443, true, false},
    {"any.test", 0, false, true},
    {"10.0.0.5", 8080, false, false},
    {"2001:db8::1", 53, false, false},
    {"example.net", 0, true, true}, /* wildcard flag without "*.": deeper names only */
};

START_TEST(outbound_patterns)
{
    struct sbx_policy p = {0};
    p.outbound = (sbx_outbound_rule *)pats;
    p.outbound_count = COUNT(pats);
    struct {
        const char *host;
        uint16_t port;
        bool allowed;
    } cases[] = {
        {"api.example.com", 443, true},
        {"API.Example.COM", 443, true},
        {"api.example.com.", 443, true},
        {"api.example.com", 80, false},
        {"example.com", 443, false},
        {"x.api.example.com", 443, false},
        {"a.example.org", 443, true},
        {"a.b.example.org", 443, true},
        {"example.org", 443, false},
        {"aexample.org", 443, false},
        {"a.example.org", 80, false},
        {"any.test", 1, true},
        {"any.test", 65535, true},
        {"sub.any.test", 1, false},
        {"10.0.0.5", 8080, true},
        {"10.0.0.5", 8081, false},
        {"010.0.0.5", 8080, false},
        {"10.0.0.6", 8080, false},
        {"2001:db8::1", 53, true},
        {"[2001:db8::1]", 53, true},
        {"2001:DB8:0:0::1", 53, true},
        {"2001:db8::2", 53, false},
        {"[2001:db8::1]", 54, false},
        {"x.example.net", 9, true},
        {"example.net", 9, false},
        {"1.2.3.4", 443, false},
        {"", 443, false},
        {"[]", 443, false},
        {"*.example.org", 443, true}, /* the literal pattern text is itself a deeper name */
    };
    for (size_t i = 0; i < COUNT(cases); i++)
        ck_assert_msg(sbx__outbound_allowed(&p, cases[i].host, cases[i].port) == cases[i].allowed,
                      "%s:%u", cases[i].host, cases[i].port);
    char longname[400];
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    ck_assert(!sbx__outbound_allowed(&p, longname, 443));
    ck_assert(!sbx__outbound_allowed(&p, NULL, 443));
    ck_assert(!sbx__outbound_allowed(NULL, "api.example.com", 443));
}
END_TEST

START_TEST(outbound_deny_by_default)
{
    struct sbx_policy p = {0};
    ck_assert(!sbx__outbound_allowed(&p, "127.0.0.1", 80));
    ck_assert(!sbx__outbound_allowed(&p, "localhost", 80));
    /* a bad pattern (too long, or an IP pattern against a name) never matches */
    char longpat[300];
    memset(longpat, 'b', sizeof(longpat) - 1);
    longpat[sizeof(longpat) - 1] = '\0';
    sbx_outbound_rule bad[] = {{longpat, 0, false, true}, {"127.0.0.1", 0, false, true}};
    p.outbound = bad;
    p.outbound_count = 2;
    ck_assert(!sbx__outbound_allowed(&p, "localhost", 80));
    ck_assert(sbx__outbound_allowed(&p, "127.0.0.1", 80));
    ck_assert(!sbx__outbound_allowed(&p, "::ffff:127.0.0.2", 80));
}
END_TEST

START_TEST(errno_table)
{
    static const struct {
        int host;
        uint16_t wasi;
    } pairs[] = {
        {0, WASI_ESUCCESS},
        {E2BIG, WASI_E2BIG},
        {EACCES, WASI_EACCES},
        {EAGAIN, WASI_EAGAIN},
        {EWOULDBLOCK, WASI_EAGAIN},
        {EBADF, WASI_EBADF},
        {EEXIST, WASI_EEXIST},
        {EINVAL, WASI_EINVAL},
        {EISDIR, WASI_EISDIR},
        {ELOOP, WASI_ELOOP},
        {ENOENT, WASI_ENOENT},
        {ENOTDIR, WASI_ENOTDIR},
        {ENOTEMPTY, WASI_ENOTEMPTY},
        {ENOTSUP, WASI_ENOTSUP},
        {EOPNOTSUPP, WASI_ENOTSUP},
        {EPERM, WASI_EPERM},
        {EPIPE, WASI_EPIPE},
        {EROFS, WASI_EROFS},
        {ESPIPE, WASI_ESPIPE},
        {EXDEV, WASI_EXDEV},
        {ETXTBSY, WASI_ETXTBSY},
        {ECONNREFUSED, WASI_ECONNREFUSED},
        {EDEADLOCK, WASI_EDEADLK},
        {EPROTO, WASI_EPROTO},
        {ENOTCONN, WASI_ENOTCONN},
        {EADDRINUSE, WASI_EADDRINUSE},
        {ETIMEDOUT, WASI_ETIMEDOUT},
        {ENAMETOOLONG, WASI_ENAMETOOLONG},
        {EMFILE, WASI_EMFILE},
        {ENOMEM, WASI_ENOMEM},
        {ENOSYS, WASI_ENOSYS},
        {EFAULT, WASI_EFAULT},
        {EILSEQ, WASI_EILSEQ},
        {EINTR, WASI_EINTR},
        {EOVERFLOW, WASI_EOVERFLOW},
        {ESTALE, WASI_ESTALE},
        /* no WASI name: EIO, as wasmtime */
        {ENOMEDIUM, WASI_EIO},
        {EHOSTDOWN, WASI_EIO},
        {-1, WASI_EIO},
        {100000, WASI_EIO},
    };
    for (size_t i = 0; i < COUNT(pairs); i++)
        ck_assert_msg(sbx__wasi_errno(pairs[i].host) == pairs[i].wasi, "host errno %d",
                      pairs[i].host);
    /* the table is one-to-one on the codes WASI names: every host errno 1..133 maps to a
     * distinct WASI value unless it is EIO or a Linux alias */
    int seen[128] = {0};
    for (int e = 1; e < 134; e++) {
        uint16_t w = sbx__wasi_errno(e);
        ck_assert_uint_lt(w, 77);
        if (w != WASI_EIO && e != EWOULDBLOCK && e != EDEADLOCK && e != EOPNOTSUPP)
            ck_assert_msg(seen[w]++ == 0, "WASI errno %u mapped twice (host %d)", w, e);
    }
}
END_TEST

START_TEST(filetypes_and_rights)
{
    static const struct {
        unsigned mode;
        uint8_t ft;
    } m[] = {{S_IFREG, FT_REG},    {S_IFDIR, FT_DIR},   {S_IFLNK, FT_SYMLINK},
             {S_IFCHR, FT_CHAR},   {S_IFBLK, FT_BLOCK}, {S_IFSOCK, FT_SOCK_STREAM},
             {S_IFIFO, FT_UNKNOWN}};
    for (size_t i = 0; i < COUNT(m); i++)
        ck_assert_uint_eq(sbx__wasi_filetype_of_mode(m[i].mode | 0644), m[i].ft);
    uint64_t base, inh;
    sbx__wasi_rights_for(FT_DIR, false, &base, &inh);
    ck_assert(base & R_PATH_CREATE_FILE);
    ck_assert(inh & R_FD_WRITE);
    sbx__wasi_rights_for(FT_DIR, true, &base, &inh);
    ck_assert(!(base & (R_PATH_CREATE_FILE | R_PATH_UNLINK_FILE | R_PATH_RENAME_TARGET)));
    ck_assert(!(inh & (R_FD_WRITE | R_FD_ALLOCATE | R_FD_FILESTAT_SET_SIZE)));
    ck_assert(base & R_PATH_OPEN);
    ck_assert(inh & R_FD_READ);
    sbx__wasi_rights_for(FT_CHAR, false, &base, &inh);
    ck_assert(!(base & (R_FD_SEEK | R_FD_TELL))); /* what makes isatty() true */
    sbx__wasi_rights_for(FT_SOCK_STREAM, false, &base, &inh);
    ck_assert(base & R_SOCK_SHUTDOWN);
    ck_assert_uint_eq(inh, 0);
    sbx__wasi_rights_for(FT_REG, false, &base, &inh);
    ck_assert(base & R_FD_WRITE);
    ck_assert(!(base & R_FD_READDIR));
    ck_assert_uint_eq(base & ~R_ALL, 0);
}
END_TEST

static Suite *parts_suite(void)
{
    Suite *s = suite_create("wasi_policy_parts");
    TCase *tc = tcase_create("preopens");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, preopens_read_only_by_default);
    tcase_add_test(tc, preopens_rw_prefix_and_guest_path);
    tcase_add_test(tc, preopens_dedup);
    tcase_add_test(tc, preopens_empty_and_null);
    tcase_add_test(tc, preopens_nomem);
    tcase_add_test(tc, preopen_match);
    tcase_add_test(tc, preopen_traverse_only_dir);
    suite_add_tcase(s, tc);
    tc = tcase_create("outbound");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, outbound_patterns);
    tcase_add_test(tc, outbound_deny_by_default);
    suite_add_tcase(s, tc);
    tc = tcase_create("errno");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, errno_table);
    tcase_add_test(tc, filetypes_and_rights);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(parts_suite());
}

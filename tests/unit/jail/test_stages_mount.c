/* tests/unit/jail/test_stages_mount.c: the mount stage of the jail child's pipeline (mount.c)
 * run alone in a forked child, on a spec built like run.c's prepare() with the library's own
 * plan code: the tree after pivot_root, vanished grants, no propagation to the host, and the
 * stage's error returns. (The other stages: test_stages.c.) */
#include <dirent.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "stages_util.h"
#include "util/alloc.h"
#include "util/path.h"

char stages_base[PATH_MAX];

/* ---- mount.c ---- */

struct mount_case {
    struct stages_env *e;
    stages_child_fn pid1;    /* what pid 1 of the new pid namespace runs */
    char sub[PATH_MAX];      /* propagation case: the host path the parent mounts on */
    char bin_link[PATH_MAX]; /* the host's /bin symlink target, "" when a directory */
    bool has_ld_cache;
    int want_err; /* the vanished-grant cases: what the grant's mount step fails with */
};

static void check_mount_root(const struct mount_case *c)
{
    struct stat a, b;
    char cwd[8];
    CHILD_CHECK(is_fs("/", TMPFS_MAGIC));
    CHILD_CHECK(has_flags("/", ST_RDONLY | ST_NOSUID | ST_NODEV));
    CHILD_ERRNO(open("/new", O_WRONLY | O_CREAT | O_CLOEXEC, 0644), EROFS);
    CHILD_ERRNO(mkdir("/newdir", 0755), EROFS);
    CHILD_CHECK(getcwd(cwd, sizeof(cwd)) && strcmp(cwd, "/") == 0);
    CHILD_CHECK(stat("/", &a) == 0 && stat("/..", &b) == 0 && a.st_ino == b.st_ino);
    /* Nothing of the host tree beyond the plan. */
    CHILD_ERRNO(access(c->e->dir, F_OK), ENOENT);
    CHILD_ERRNO(access("/etc/passwd", F_OK), ENOENT);
    CHILD_ERRNO(access("/home", F_OK), ENOENT);
    CHILD_ERRNO(access("/root", F_OK), ENOENT);
    CHILD_ERRNO(access("/var", F_OK), ENOENT);
}

static void check_mount_system(const struct mount_case *c)
{
    CHILD_CHECK(has_flags("/usr", ST_RDONLY | ST_NOSUID | ST_NODEV));
    CHILD_ERRNO(open("/usr/sbx-probe", O_WRONLY | O_CREAT | O_CLOEXEC, 0644), EROFS);
    if (c->bin_link[0]) {
        char l[PATH_MAX];
        ssize_t n = readlink("/bin", l, sizeof(l) - 1);
        CHILD_CHECK(n > 0);
        l[n] = '\0';
        CHILD_CHECK(strcmp(l, c->bin_link) == 0);
    } else {
        CHILD_CHECK(has_flags("/bin", ST_RDONLY));
    }
    if (c->has_ld_cache)
        CHILD_CHECK(has_flags("/etc/ld.so.cache", ST_RDONLY | ST_NOSUID));
    /* A dynamic binary runs from the binds. */
    char out[64];
    char *const argv[] = {"/bin/sh", "-c", "echo in; exit 3", NULL};
    int st = run_prog(argv, out, sizeof(out));
    CHILD_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3 && strcmp(out, "in\n") == 0);
}

static void check_mount_proc(void)
{
    char l[16];
    CHILD_CHECK(is_fs("/proc", PROC_SUPER_MAGIC));
    CHILD_CHECK(has_flags("/proc", ST_NOSUID | ST_NODEV | ST_NOEXEC));
    CHILD_CHECK(!(statvfs_flags("/proc") & ST_RDONLY));
    ssize_t n = readlink("/proc/self", l, sizeof(l) - 1);
    CHILD_CHECK(n == 1 && l[0] == '1' && getpid() == 1); /* this pid namespace's procfs */
    CHILD_CHECK(has_flags("/proc/sys", ST_RDONLY));
    if (access("/proc/sysrq-trigger", F_OK) == 0)
        CHILD_CHECK(has_flags("/proc/sysrq-trigger", ST_RDONLY));
}

static void check_mount_dev(void)
{
    char buf[16];
    CHILD_CHECK(is_fs("/dev", TMPFS_MAGIC) && has_flags("/dev", ST_RDONLY | ST_NOSUID));
    CHILD_ERRNO(open("/dev/sbx-probe", O_WRONLY | O_CREAT | O_CLOEXEC, 0644), EROFS);
    CHILD_CHECK(has_flags("/dev/null", ST_NOSUID | ST_NOEXEC));
    CHILD_CHECK(!(statvfs_flags("/dev/null") & ST_RDONLY));
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    CHILD_CHECK(fd >= 0 && write(fd, "x", 1) == 1);
    close(fd);
    fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    CHILD_CHECK(fd >= 0 && read(fd, buf, 4) == 4 && !memcmp(buf, "\0\0\0\0", 4));
    close(fd);
    fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
    CHILD_CHECK(fd >= 0);
    CHILD_ERRNO(write(fd, "x", 1), ENOSPC);
    close(fd);
    fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    CHILD_CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
    close(fd);
    ssize_t n = readlink("/dev/stdin", buf, sizeof(buf) - 1);
    CHILD_CHECK(n > 0 && (buf[n] = '\0', strcmp(buf, "/proc/self/fd/0") == 0));
    DIR *d = opendir("/dev");
    CHILD_CHECK(d != NULL);
    int count = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;)
        count += de->d_name[0] != '.';
    closedir(d);
    CHILD_CHECK(count == 9); /* null zero full random urandom fd stdin stdout stderr */
}

static void check_mount_tmp_and_grants(const struct mount_case *c)
{
    struct statvfs sv;
    struct stat st;
    CHILD_CHECK(is_fs("/tmp", TMPFS_MAGIC) && statvfs("/tmp", &sv) == 0);
    CHILD_CHECK(!(sv.f_flag & ST_RDONLY) &&
                sv.f_blocks * sv.f_frsize == c->e->policy->memory_bytes);
    CHILD_CHECK(stat("/tmp", &st) == 0 && (st.st_mode & 07777) == 01777);
    CHILD_CHECK(write_new("/tmp/f", "t") && stat("/tmp/f", &st) == 0 &&
                st.st_uid == SBX__JAIL_GUEST_ID);
    /* The run input at /sbx and the policy's grants, at their guest paths. */
    CHILD_CHECK(file_is("/sbx/input.txt", "input") && has_flags("/sbx", ST_RDONLY | ST_NOSUID));
    CHILD_ERRNO(open("/sbx/x", O_WRONLY | O_CREAT | O_CLOEXEC, 0644), EROFS);
    CHILD_CHECK(file_is("/data/data.txt", "ro-data"));
    CHILD_CHECK(has_flags("/data", ST_RDONLY | ST_NOSUID | ST_NODEV));
    CHILD_ERRNO(open("/data/new", O_WRONLY | O_CREAT | O_CLOEXEC, 0644), EROFS);
    CHILD_CHECK(file_is("/deep/er/data/data.txt", "ro-data"));
    CHILD_CHECK(has_flags("/out", ST_NOSUID | ST_NODEV));
    CHILD_CHECK(!(statvfs_flags("/out") & ST_RDONLY));
    CHILD_CHECK(write_new("/out/guest.txt", "from guest"));
    CHILD_CHECK(write_new("/cfg/one.txt", "ONE") && file_is("/cfg/one.txt", "ONE"));
}

static void pid1_mount(void *arg)
{
    const struct mount_case *c = arg;
    const struct sbx__jail_spec *s = &c->e->spec;
    int failed = 7;
    CHILD_CHECK(sbx__jail_userns_apply(s) == 0);
    CHILD_CHECK(sbx__jail_mount_apply(s, &failed) == 0 && failed == -1);
    CHILD_CHECK(sbx__jail_mount_pivot(s->root_dir) == 0);
    CHILD_CHECK(sbx__jail_mount_finish() == 0);
    check_mount_root(c);
    check_mount_system(c);
    check_mount_proc();
    check_mount_dev();
    check_mount_tmp_and_grants(c);
}

static void child_mount(void *arg)
{
    const struct mount_case *c = arg;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) != 0)
        stages_skip("unshare(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWPID) refused by the kernel", errno);
    stages_await_maps(&c->e->spec);
    stages_as_pid1(c->pid1, arg);
}

static const char *const mount_policy =
    "{\"fs\":[\"@/ro::/data\",\"rw:@/rw::/out\",\"@/ro::/deep/er/data\","
    "\"rw:@/one.txt::/cfg/one.txt\"]}";

/* The host root mount point is untouched: no mount on it, nothing in it. */
static void assert_root_clean(const struct stages_env *e)
{
    struct stat a, b;
    ck_assert_int_eq(stat(e->dir, &a), 0);
    ck_assert_int_eq(stat(e->root, &b), 0);
    ck_assert_uint_eq(a.st_dev, b.st_dev);
    DIR *d = opendir(e->root);
    ck_assert_ptr_nonnull(d);
    int count = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;)
        count += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(d);
    ck_assert_int_eq(count, 0);
}

/* Points the plan's optional bind of /proc/sysrq-trigger at /proc/KNOB instead. */
static void retarget_proc_file(struct sbx__jail_spec *s, const char *knob)
{
    for (size_t i = 0; i < s->mount_count; i++) {
        struct sbx__jail_mount *m = &s->mounts[i];
        char *at = m->dst ? strstr(m->dst, "/proc/sysrq-trigger") : NULL;
        if (!at || m->kind != SBX__MNT_BIND)
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%.*s/proc/%s", (int)(at - m->dst), m->dst, knob);
        sbx__free(m->dst);
        sbx__free(m->src);
        m->dst = sbx__strdup(path);
        m->src = sbx__strdup(path);
        ck_assert(m->dst && m->src);
        return;
    }
    ck_abort_msg("the plan has no bind of /proc/sysrq-trigger");
}

/* stand_in: a /proc file to bind instead of /proc/sysrq-trigger when this kernel lacks it. */
static void mount_tree_case(const char *name, bool is_self_mapped, const char *stand_in)
{
    struct stages_env e;
    struct mount_case c = {.e = &e, .pid1 = pid1_mount};
    stages_env_init(&e);
    char policy[PATH_MAX + 256];
    snprintf(policy, sizeof(policy), "%.*s%s%s%s", (int)strlen(mount_policy) - 2, mount_policy,
             stages_cov_dir[0] && is_self_mapped ? ",\"rw:" : "",
             stages_cov_dir[0] && is_self_mapped ? stages_cov_dir : "",
             stages_cov_dir[0] && is_self_mapped ? "\"]}" : "]}");
    stages_env_plan(&e, policy, "in");
    if (is_self_mapped)
        stages_self_mapped(&e.spec);
    if (stand_in && access("/proc/sysrq-trigger", F_OK) != 0)
        retarget_proc_file(&e.spec, stand_in);
    struct stat st;
    if (lstat("/bin", &st) == 0 && S_ISLNK(st.st_mode))
        ck_assert_int_gt(readlink("/bin", c.bin_link, sizeof(c.bin_link) - 1), 0);
    c.has_ld_cache = access("/etc/ld.so.cache", F_OK) == 0;
    stages_hook_spec = &e.spec;
    if (stages_run(name, child_mount, &c, stages_hook_maps)) {
        char p[PATH_MAX];
        stages_path(p, &e, "rw/guest.txt");
        ck_assert(file_is(p, "from guest"));
        ck_assert_int_eq(stat(p, &st), 0);
        ck_assert_uint_eq(st.st_uid, e.spec.host_uid);
        stages_path(p, &e, "one.txt");
        ck_assert(file_is(p, "ONE"));
    }
    assert_root_clean(&e);
    stages_env_free(&e);
}

START_TEST(test_mount_tree)
{
    mount_tree_case("mount", false, NULL);
}
END_TEST

/* In a coverage build this one also grants the build dir, so pid 1 can dump its counters. */
START_TEST(test_mount_tree_self_mapped)
{
    mount_tree_case("mount/self", true, NULL);
}
END_TEST

/* A /proc file bound read-only over itself is root's, mode 0400 or 0200: the mount point is
 * the file itself, never opened for writing (a kernel with /proc/sysrq-trigger failed every
 * run at the mount stage with EACCES). This kernel may lack sysrq, so kmsg stands in. */
START_TEST(test_mount_proc_file_over_itself)
{
    mount_tree_case("mount/proc-file", false, "kmsg");
}
END_TEST

static void pid1_mount_vanished(void *arg)
{
    const struct mount_case *c = arg;
    const struct sbx__jail_spec *s = &c->e->spec;
    int failed = 7;
    CHILD_CHECK(sbx__jail_userns_apply(s) == 0);
    CHILD_CHECK(sbx__jail_mount_apply(s, &failed) == -c->want_err);
    CHILD_CHECK(failed == (int)s->mount_count - 1 && s->mounts[failed].is_grant);
    CHILD_CHECK(strstr(s->mounts[failed].src, "/gone") != NULL);
}

/* A grant's directory removed after the plan; with want_err ELOOP, replaced by a symlink to a
 * real directory (the host's secret): the child's own open refuses it, never follows it. */
static void vanished_case(const char *name, bool is_self_mapped, int want_err)
{
    struct stages_env e;
    struct mount_case c = {.e = &e, .pid1 = pid1_mount_vanished, .want_err = want_err};
    stages_env_init(&e);
    stages_mkdir(&e, "gone", 0755);
    stages_env_plan(&e, "{\"fs\":[\"@/ro::/data\",\"@/gone::/gone\"]}", NULL);
    if (is_self_mapped)
        stages_self_mapped(&e.spec);
    char p[PATH_MAX], outside[PATH_MAX];
    stages_path(p, &e, "gone");
    ck_assert_int_eq(rmdir(p), 0);
    stages_path(outside, &e, "outside");
    if (want_err == ELOOP)
        ck_assert_int_eq(symlink(outside, p), 0);
    stages_hook_spec = &e.spec;
    stages_run(name, child_mount, &c, stages_hook_maps);
    assert_root_clean(&e);
    stages_env_free(&e);
}

START_TEST(test_mount_grant_vanished)
{
    vanished_case("mount/vanished", false, ENOENT);
    vanished_case("mount/vanished-self", true, ENOENT);
    vanished_case("mount/swapped-for-symlink", false, ELOOP);
    vanished_case("mount/swapped-for-symlink-self", true, ELOOP);
}
END_TEST

/* pid 1, after the whole mount stage: the parent mounts a tmpfs under the shared host mount
 * that /data is bound from; it must not appear at /data/sub. */
static void pid1_mount_watch(void *arg)
{
    const struct mount_case *c = arg;
    const struct sbx__jail_spec *s = &c->e->spec;
    int failed = 7;
    char b = 'p';
    CHILD_CHECK(sbx__jail_userns_apply(s) == 0);
    CHILD_CHECK(sbx__jail_mount_apply(s, &failed) == 0);
    CHILD_CHECK(sbx__jail_mount_pivot(s->root_dir) == 0);
    CHILD_CHECK(sbx__jail_mount_finish() == 0);
    CHILD_CHECK(!is_fs("/data/sub", TMPFS_MAGIC));
    CHILD_CHECK(write(stages_sync_wr, &b, 1) == 1 && read(stages_sync_rd, &b, 1) == 1);
    CHILD_CHECK(!is_fs("/data/sub", TMPFS_MAGIC));
}

/* The control: a mount namespace copied into a user namespace, left as the copy made it (the
 * host's shared mounts become slaves), does receive the parent's mount. */
static void child_mount_watch_control(void *arg)
{
    const struct mount_case *c = arg;
    char b = 'p';
    stages_unshare(CLONE_NEWNS, true);
    CHILD_CHECK(!is_fs(c->sub, TMPFS_MAGIC));
    CHILD_CHECK(write(stages_sync_wr, &b, 1) == 1 && read(stages_sync_rd, &b, 1) == 1);
    CHILD_CHECK(is_fs(c->sub, TMPFS_MAGIC));
}

static void hook_mount_on_host(pid_t pid, int rd, int wr, void *arg)
{
    const struct mount_case *c = arg;
    if (c->pid1)
        stages_hook_maps(pid, rd, wr, NULL);
    char b;
    if (read(rd, &b, 1) != 1)
        return; /* the child failed first; its report says why */
    int err = mount("tmpfs", c->sub, "tmpfs", 0, "size=16k") == 0 ? 0 : errno;
    b = 'c';
    ck_assert_int_eq(write(wr, &b, 1), 1);
    ck_assert_msg(err == 0, "mount on the host side: %s", strerror(err));
}

/* Host mounts made while a jail runs stay out of it (mount_apply's MS_PRIVATE). Root only: the
 * shared mount is made in this test process's own mount namespace. */
START_TEST(test_mount_no_propagation)
{
    if (geteuid() != 0 || (getenv("CK_FORK") && strcmp(getenv("CK_FORK"), "no") == 0)) {
        printf("mount/propagation: SKIPPED: needs root and Check's fork mode (a shared mount in "
               "the test process's own mount namespace)\n");
        return;
    }
    struct stages_env e;
    struct mount_case c = {.e = &e};
    if (unshare(CLONE_NEWNS) != 0) {
        printf("mount/propagation: SKIPPED: unshare(CLONE_NEWNS) refused: %s\n", strerror(errno));
        return;
    }
    ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
    stages_env_init(&e);
    stages_mkdir(&e, "ro/sub", 0755);
    stages_path(c.sub, &e, "ro/sub");
    ck_assert_int_eq(mount(e.dir, e.dir, NULL, MS_BIND, NULL), 0);
    ck_assert_int_eq(mount(NULL, e.dir, NULL, MS_SHARED, NULL), 0);
    stages_run("mount/propagation-control", child_mount_watch_control, &c, hook_mount_on_host);
    ck_assert_int_eq(umount2(c.sub, MNT_DETACH), 0);
    stages_env_plan(&e, "{\"fs\":[\"@/ro::/data\"]}", NULL);
    c.pid1 = pid1_mount_watch;
    stages_hook_spec = &e.spec;
    stages_run("mount/propagation", child_mount, &c, hook_mount_on_host);
    ck_assert_int_eq(umount2(c.sub, MNT_DETACH), 0);
    ck_assert_int_eq(umount2(e.dir, MNT_DETACH), 0);
    stages_env_free(&e);
}
END_TEST

static void child_mount_no_caps(void *arg)
{
    const struct stages_env *e = arg;
    int failed = 7;
    stages_unshare(CLONE_NEWNS, false);
    CHILD_CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
    CHILD_CHECK(sbx__jail_caps_drop() == 0);
    CHILD_CHECK(sbx__jail_mount_apply(&e->spec, &failed) == -EPERM && failed == -1);
    CHILD_CHECK(sbx__jail_mount_finish() == -EPERM);
}

/* Bad steps a plan never makes, and pivot_root without a mounted root. */
static void child_mount_bad_steps(void *arg)
{
    struct stages_env *e = arg;
    char missing[PATH_MAX], longp[PATH_MAX + 64], link_dst[PATH_MAX];
    stages_unshare(CLONE_NEWNS, false);
    CHILD_CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
    stages_path(missing, e, "missing");
    CHILD_CHECK(sbx__jail_mount_pivot(missing) == -ENOENT);
    int rc = sbx__jail_mount_pivot(e->root); /* not a mount point: EBUSY when on /'s mount */
    CHILD_CHECK(rc == -EINVAL || rc == -EBUSY);
    memset(longp, 'a', sizeof(longp) - 1);
    longp[0] = '/';
    longp[sizeof(longp) - 1] = '\0';
    CHILD_CHECK(snprintf(link_dst, sizeof(link_dst), "%s/no/such/dir/link", e->root) < 200);
    struct sbx__jail_mount steps[] = {
        {.kind = SBX__MNT_DIR, .dst = longp, .is_dir = true},
        {.kind = SBX__MNT_SYMLINK, .src = "/x", .dst = link_dst},
        {.kind = (enum sbx__jail_mount_kind)99, .dst = link_dst},
    };
    struct sbx__jail_spec s = {.root_dir = e->root, .mounts = steps, .mount_count = 1};
    int failed = 7;
    CHILD_CHECK(sbx__jail_mount_apply(&s, &failed) == -ENAMETOOLONG && failed == 0);
    s.mounts = &steps[1];
    CHILD_CHECK(sbx__jail_mount_apply(&s, &failed) == -ENOENT && failed == 0);
    s.mount_count = 2;
    steps[1].kind = SBX__MNT_DIR; /* now creates the parents; the unknown kind then fails */
    steps[1].is_dir = true;
    CHILD_CHECK(sbx__jail_mount_apply(&s, &failed) == -EINVAL && failed == 1);
}

/* A mount point below a regular file (bound just before): ENOTDIR, for a bind and a dir. */
static void child_mount_under_file(void *arg)
{
    struct stages_env *e = arg;
    char file[PATH_MAX], dir[PATH_MAX], f[PATH_MAX], sub[PATH_MAX];
    stages_unshare(CLONE_NEWNS, false);
    CHILD_CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
    stages_path(file, e, "one.txt");
    stages_path(dir, e, "ro");
    CHILD_CHECK(snprintf(f, sizeof(f), "%s/f", e->root) < 200);
    CHILD_CHECK(snprintf(sub, sizeof(sub), "%s/f/sub", e->root) < 200);
    struct sbx__jail_mount steps[] = {
        {.kind = SBX__MNT_BIND, .src = file, .dst = f},
        {.kind = SBX__MNT_BIND, .src = dir, .dst = sub, .is_dir = true},
        {.kind = SBX__MNT_DIR, .dst = sub, .is_dir = true},
    };
    struct sbx__jail_spec s = {.root_dir = e->root, .mounts = steps, .mount_count = 2};
    int failed = 7;
    CHILD_CHECK(sbx__jail_mount_apply(&s, &failed) == -ENOTDIR && failed == 1);
    steps[1] = steps[2];
    CHILD_CHECK(sbx__jail_mount_apply(&s, &failed) == -ENOTDIR && failed == 1);
}

/* procfs may only be mounted by the pid namespace's owner: without CLONE_NEWPID the plan's
 * /proc step is refused (why spawn.c takes a pid namespace). */
static void child_mount_no_pidns(void *arg)
{
    const struct stages_env *e = arg;
    int failed = 7;
    stages_unshare(CLONE_NEWNS, true);
    int rc = sbx__jail_mount_apply(&e->spec, &failed);
    CHILD_CHECK(failed >= 0 && e->spec.mounts[failed].kind == SBX__MNT_PROC);
    CHILD_CHECK(rc == -EPERM);
}

START_TEST(test_mount_errors)
{
    struct stages_env e;
    stages_env_init(&e);
    stages_env_plan(&e, "{}", NULL);
    stages_run("mount/no-caps", child_mount_no_caps, &e, NULL);
    stages_run("mount/bad-steps", child_mount_bad_steps, &e, NULL);
    stages_run("mount/under-file", child_mount_under_file, &e, NULL);
    stages_run("mount/no-pidns", child_mount_no_pidns, &e, NULL);
    assert_root_clean(&e);
    stages_env_free(&e);
}
END_TEST

static Suite *stages_mount_suite(void)
{
    Suite *s = suite_create("jail.stages.mount");
    TCase *tc = tcase_create("mount");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_mount_tree);
    tcase_add_test(tc, test_mount_tree_self_mapped);
    tcase_add_test(tc, test_mount_grant_vanished);
    tcase_add_test(tc, test_mount_no_propagation);
    tcase_add_test(tc, test_mount_errors);
    tcase_add_test(tc, test_mount_proc_file_over_itself);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return stages_main(stages_mount_suite(), "test_stages_mount");
}

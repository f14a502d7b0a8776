/* The resolver (src/wasi/path.c), in both modes: every case runs once with the O_NOFOLLOW
 * walk and once with openat2. Nothing may ever resolve outside the preopen. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>

#include "sbx_test.h"
#include "util/alloc.h"
#include "wasi_fixture.h"

static const enum sbx__wasi_resolver modes[] = {SBX_WASI_RESOLVE_WALK, SBX_WASI_RESOLVE_OPENAT2};

static struct fixture fx;

static void setup_tree(int i)
{
    /* without openat2 (Linux < 5.6) the OPENAT2 mode cannot run: AUTO falls back to the walk */
    fx_setup(&fx, false,
             modes[i] == SBX_WASI_RESOLVE_OPENAT2 && !sbx__wasi_have_openat2()
                 ? SBX_WASI_RESOLVE_WALK
                 : modes[i]);
    fx_dir(&fx, "root/sub");
    fx_dir(&fx, "root/sub/deeper");
    fx_file(&fx, "root/file.txt", "inside\n");
    fx_file(&fx, "root/sub/deeper/leaf.txt", "leaf\n");
    fx_link(&fx, "root/abs", fx.outside);
    fx_link(&fx, "root/abs_slash", "/");
    fx_link(&fx, "root/up", "..");
    fx_link(&fx, "root/sub/back", "..");
    fx_link(&fx, "root/sub/climb", "../../outside/secret.txt");
    fx_link(&fx, "root/loop1", "loop2");
    fx_link(&fx, "root/loop2", "loop1");
    fx_link(&fx, "root/tofile", "sub/deeper/leaf.txt");
    fx_link(&fx, "root/todir", "sub/deeper/");
    fx_link(&fx, "root/dot", ".");
    fx_link(&fx, "root/dangling", "newfile.txt");
    fx_link(&fx, "root/dangling_out", "../outside/created.txt");
}

/* Opens path read-only beneath the preopen; returns the WASI errno (fd closed). */
static uint32_t try_open(const char *path, bool follow, int flags)
{
    int fd = -1;
    uint32_t r = sbx__wasi_path_resolve(fx.w, fx.root_fd, path, follow, flags, 0644, &fd);
    if (r == 0) {
        ck_assert_int_ge(fd, 0);
        close(fd);
    } else {
        ck_assert_int_eq(fd, -1);
    }
    return r;
}

/* Reads the file path resolves to into buf. */
static void read_via(const char *path, char *buf, size_t cap)
{
    int fd = -1;
    ck_assert_uint_eq(sbx__wasi_path_resolve(fx.w, fx.root_fd, path, true, O_RDONLY, 0, &fd), 0);
    ssize_t n = read(fd, buf, cap - 1);
    ck_assert_int_ge(n, 0);
    buf[n] = '\0';
    close(fd);
}

START_TEST(plain_paths)
{
    setup_tree(_i);
    char buf[64];
    read_via("file.txt", buf, sizeof(buf));
    ck_assert_str_eq(buf, "inside\n");
    read_via("sub/deeper/leaf.txt", buf, sizeof(buf));
    ck_assert_str_eq(buf, "leaf\n");
    read_via("sub//deeper/./../deeper/leaf.txt", buf, sizeof(buf));
    ck_assert_str_eq(buf, "leaf\n");
    read_via("sub/../file.txt", buf, sizeof(buf));
    ck_assert_str_eq(buf, "inside\n");
    ck_assert_uint_eq(try_open(".", true, O_RDONLY | O_DIRECTORY), 0);
    ck_assert_uint_eq(try_open("sub/", true, O_RDONLY | O_DIRECTORY), 0);
    ck_assert_uint_eq(try_open("sub/..", true, O_RDONLY | O_DIRECTORY), 0);
    ck_assert_uint_eq(try_open("sub/deeper/..", false, O_RDONLY), 0);
    ck_assert_uint_eq(try_open("missing", true, O_RDONLY), WASI_ENOENT);
    ck_assert_uint_eq(try_open("missing/x", true, O_RDONLY), WASI_ENOENT);
    ck_assert_uint_eq(try_open("", true, O_RDONLY), WASI_ENOENT);
    ck_assert_uint_eq(try_open("file.txt/", true, O_RDONLY), WASI_ENOTDIR);
    ck_assert_uint_eq(try_open("file.txt/x", true, O_RDONLY), WASI_ENOTDIR);
    ck_assert_int_eq(fx.denials, 0);
    fx_teardown(&fx);
}
END_TEST

START_TEST(escapes_are_contained)
{
    setup_tree(_i);
    static const char *const escapes[] = {
        "..",
        "../outside/secret.txt",
        "sub/../..",
        "sub/../../outside",
        "/etc/passwd",
        "/",
        "abs",
        "abs/secret.txt",
        "abs_slash",
        "abs_slash/etc/passwd",
        "up",
        "up/outside/secret.txt",
        "sub/back/..",
        "sub/climb",
        "dot/../outside",
        "sub/deeper/../../..",
    };
    for (size_t k = 0; k < sizeof(escapes) / sizeof(escapes[0]); k++) {
        int before = fx.denials;
        ck_assert_msg(try_open(escapes[k], true, O_RDONLY) == WASI_ENOTCAPABLE, "%s escaped",
                      escapes[k]);
        ck_assert_int_eq(fx.denials, before + 1);
        ck_assert_str_eq(fx.last_denial, "fs.escape");
    }
    /* "sub/back" is ".." of sub: the root itself, which is fine */
    ck_assert_uint_eq(try_open("sub/back", true, O_RDONLY | O_DIRECTORY), 0);
    char buf[64];
    read_via("sub/back/file.txt", buf, sizeof(buf));
    ck_assert_str_eq(buf, "inside\n");
    ck_assert_uint_eq(sbx__wasi_denied_count(fx.w), (uint64_t)fx.denials);
    fx_teardown(&fx);
}
END_TEST

START_TEST(symlinks_inside)
{
    setup_tree(_i);
    char buf[64];
    read_via("tofile", buf, sizeof(buf));
    ck_assert_str_eq(buf, "leaf\n");
    read_via("todir/leaf.txt", buf, sizeof(buf));
    ck_assert_str_eq(buf, "leaf\n");
    read_via("dot/dot/file.txt", buf, sizeof(buf));
    ck_assert_str_eq(buf, "inside\n");
    ck_assert_uint_eq(try_open("todir", true, O_RDONLY | O_DIRECTORY), 0);
    /* without follow, a final symlink is not opened (ELOOP, as O_NOFOLLOW says) ... */
    ck_assert_uint_eq(try_open("tofile", false, O_RDONLY), WASI_ELOOP);
    /* ... but O_PATH opens the link itself, and an absolute one is no escape then */
    ck_assert_uint_eq(try_open("abs", false, O_PATH), 0);
    ck_assert_uint_eq(try_open("loop1", true, O_RDONLY), WASI_ELOOP);
    ck_assert_uint_eq(try_open("loop1/x", true, O_RDONLY), WASI_ELOOP);
    fx_teardown(&fx);
}
END_TEST

START_TEST(create_through_links)
{
    setup_tree(_i);
    ck_assert_uint_eq(try_open("dangling", true, O_CREAT | O_WRONLY), 0);
    ck_assert(fx_exists(&fx, "root/newfile.txt"));
    ck_assert_uint_eq(try_open("dangling_out", true, O_CREAT | O_WRONLY), WASI_ENOTCAPABLE);
    ck_assert(!fx_exists(&fx, "outside/created.txt"));
    ck_assert_uint_eq(try_open("abs/made.txt", true, O_CREAT | O_WRONLY), WASI_ENOTCAPABLE);
    ck_assert(!fx_exists(&fx, "outside/made.txt"));
    ck_assert_uint_eq(try_open("sub/new.txt", true, O_CREAT | O_EXCL | O_WRONLY), 0);
    ck_assert_uint_eq(try_open("sub/new.txt", true, O_CREAT | O_EXCL | O_WRONLY), WASI_EEXIST);
    fx_teardown(&fx);
}
END_TEST

START_TEST(symlink_chain_limit)
{
    setup_tree(_i);
    /* l0 -> l1 -> ... -> l45 -> file.txt: longer than the 40 links Linux allows */
    char name[32], target[32];
    for (int k = 0; k < 45; k++) {
        snprintf(name, sizeof(name), "root/l%d", k);
        snprintf(target, sizeof(target), "l%d", k + 1);
        fx_link(&fx, name, target);
    }
    fx_link(&fx, "root/l45", "file.txt");
    ck_assert_uint_eq(try_open("l0", true, O_RDONLY), WASI_ELOOP);
    ck_assert_uint_eq(try_open("l10", true, O_RDONLY), 0);
    fx_teardown(&fx);
}
END_TEST

START_TEST(parent_split)
{
    setup_tree(_i);
    char p1[] = "sub/deeper/leaf.txt", p2[] = "file.txt", p3[] = "sub/deeper/..",
         p4[] = "sub/deeper//", p5[] = "/abs", p6[] = "", p7[] = "../x", p8[] = "missing/x";
    int parent;
    const char *name;
    bool slash;
    ck_assert_uint_eq(sbx__wasi_path_parent(fx.w, fx.root_fd, p1, &parent, &name, &slash), 0);
    ck_assert_str_eq(name, "leaf.txt");
    ck_assert(!slash);
    struct stat st;
    ck_assert_int_eq(fstatat(parent, name, &st, 0), 0);
    close(parent);
    ck_assert_uint_eq(sbx__wasi_path_parent(fx.w, fx.root_fd, p2, &parent, &name, &slash), 0);
    ck_assert_str_eq(name, "file.txt");
    close(parent);
    ck_assert_uint_eq(sbx__wasi_path_parent(fx.w, fx.root_fd, p3, &parent, &name, &slash), 0);
    ck_assert_str_eq(name, ".");
    close(parent);
    ck_assert_uint_eq(sbx__wasi_path_parent(fx.w, fx.root_fd, p4, &parent, &name, &slash), 0);
    ck_assert_str_eq(name, "deeper");
    ck_assert(slash);
    close(parent);
    ck_assert_uint_eq(sbx__wasi_path_parent(fx.w, fx.root_fd, p5, &parent, &name, &slash),
                      WASI_ENOTCAPABLE);
    ck_assert_uint_eq(sbx__wasi_path_parent(fx.w, fx.root_fd, p6, &parent, &name, &slash),
                      WASI_ENOENT);
    ck_assert_uint_eq(sbx__wasi_path_parent(fx.w, fx.root_fd, p7, &parent, &name, &slash),
                      WASI_ENOTCAPABLE);
    ck_assert_uint_eq(sbx__wasi_path_parent(fx.w, fx.root_fd, p8, &parent, &name, &slash),
                      WASI_ENOENT);
    ck_assert_int_eq(parent, -1);
    fx_teardown(&fx);
}
END_TEST

/* A thread keeps swapping root/d between a real directory and a symlink to outside while
 * the resolver opens d/secret.txt: it may fail, but must never open the outside file. */
static atomic_bool stop;

static void *swapper(void *arg)
{
    (void)arg;
    char d[256], dtmp[256], l[256];
    fx_path(&fx, d, sizeof(d), "root/d");
    fx_path(&fx, dtmp, sizeof(dtmp), "root/d.real");
    fx_path(&fx, l, sizeof(l), "root/d.link");
    while (!atomic_load(&stop)) {
        rename(l, d);    /* d is now the symlink to outside */
        rename(d, l);    /* back */
        rename(dtmp, d); /* d is the real directory */
        rename(d, dtmp);
    }
    return NULL;
}

START_TEST(swap_race_contained)
{
    setup_tree(_i);
    fx_dir(&fx, "root/d.real");
    fx_file(&fx, "root/d.real/secret.txt", "inner\n");
    fx_link(&fx, "root/d.link", fx.outside);
    struct stat outside;
    char sp[256];
    fx_path(&fx, sp, sizeof(sp), "outside/secret.txt");
    ck_assert_int_eq(stat(sp, &outside), 0);
    atomic_store(&stop, false);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, swapper, NULL), 0);
    int opened = 0;
    for (int k = 0; k < 20000; k++) {
        int fd = -1;
        if (sbx__wasi_path_resolve(fx.w, fx.root_fd, "d/secret.txt", true, O_RDONLY, 0, &fd))
            continue;
        struct stat st;
        ck_assert_int_eq(fstat(fd, &st), 0);
        ck_assert_msg(st.st_ino != outside.st_ino, "escaped through a swapped directory");
        opened++;
        close(fd);
    }
    atomic_store(&stop, true);
    pthread_join(t, NULL);
    /* settle with d a symlink to outside: now the escape is certain to be refused */
    char d[256], l[256];
    fx_path(&fx, d, sizeof(d), "root/d");
    fx_path(&fx, l, sizeof(l), "root/d.link");
    rename(d, l);
    fx_link(&fx, "root/d", fx.outside);
    ck_assert_uint_eq(try_open("d/secret.txt", true, O_RDONLY), WASI_ENOTCAPABLE);
    (void)opened;
    fx_teardown(&fx);
}
END_TEST

START_TEST(auto_mode_probes)
{
    /* AUTO probes once (the answer is cached) and contains escapes either way */
    fx_setup(&fx, false, SBX_WASI_RESOLVE_AUTO);
    bool first = sbx__wasi_have_openat2();
    ck_assert(sbx__wasi_have_openat2() == first);
    ck_assert_uint_eq(try_open("..", true, O_RDONLY), WASI_ENOTCAPABLE);
    ck_assert_uint_eq(try_open(".", true, O_RDONLY), 0);
    fx_teardown(&fx);
}
END_TEST

START_TEST(long_paths)
{
    setup_tree(_i);
    /* a 3000-byte target ("./" repeated) followed by a 2000-byte tail overflows PATH_MAX */
    char target[3001], path[2101];
    for (int k = 0; k < 1500; k++)
        memcpy(target + 2 * k, "./", 2);
    target[3000] = '\0';
    fx_link(&fx, "root/long", target);
    memcpy(path, "long/", 5);
    for (int k = 0; k < 1048; k++)
        memcpy(path + 5 + 2 * k, "./", 2);
    path[2101 - 1] = '\0';
    path[2100 - 1] = 'x';
    uint32_t r = try_open(path, true, O_RDONLY);
    ck_assert_uint_eq(r, fx.w->resolver == SBX_WASI_RESOLVE_WALK ? WASI_ENAMETOOLONG : WASI_ENOENT);
    char huge[5000];
    memset(huge, 'a', sizeof(huge) - 1);
    huge[sizeof(huge) - 1] = '\0';
    ck_assert_uint_eq(try_open(huge, true, O_RDONLY), WASI_ENAMETOOLONG);
    fx_teardown(&fx);
}
END_TEST

START_TEST(walk_nomem)
{
    setup_tree(0);
    /* the walk allocates its copy of the path, then one buffer per symlink it expands */
    sbx__alloc_fail_at(1);
    ck_assert_uint_eq(try_open("dot/file.txt", true, O_RDONLY), WASI_ENOMEM);
    sbx__alloc_fail_at(2);
    ck_assert_uint_eq(try_open("dot/file.txt", true, O_RDONLY), WASI_ENOMEM);
    sbx__alloc_fail_at(0);
    ck_assert_uint_eq(try_open("dot/file.txt", true, O_RDONLY), 0);
    fx_teardown(&fx);
}
END_TEST

/* ---- openat2 retried on EINTR --------------------------------------------------------- */

static atomic_int signals_caught;
static atomic_bool is_open_done;

static void on_signal(int sig)
{
    (void)sig;
    atomic_fetch_add(&signals_caught, 1);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Whether thread tid is (or, within 10 s, gets) blocked inside openat2: the first field of
 * /proc/self/task/<tid>/syscall is the number of the call it sleeps in ("running" when not). */
static bool blocked_in_openat2(pid_t tid)
{
    char p[64];
    snprintf(p, sizeof(p), "/proc/self/task/%d/syscall", (int)tid);
    for (double end = now_s() + 10; now_s() < end && !atomic_load(&is_open_done); usleep(1000)) {
        FILE *f = fopen(p, "r");
        long nr = -1;
        if (f && fscanf(f, "%ld", &nr) != 1)
            nr = -1;
        if (f)
            fclose(f);
        if (nr == SYS_openat2)
            return true;
    }
    return false;
}

struct fifo_opener {
    pid_t tid; /* the thread whose resolve opens the FIFO for reading */
    char path[256];
    bool is_retried; /* it was blocked in openat2 again after the signal */
};

/* Interrupts the reader's open with a signal, waits until it is blocked in openat2 again, then
 * opens the FIFO for writing, which lets the reader's open finish, and writes "fifo\n". */
static void *interrupt_then_write(void *arg)
{
    struct fifo_opener *o = arg;
    if (blocked_in_openat2(o->tid)) {
        syscall(SYS_tgkill, getpid(), o->tid, SIGUSR1);
        for (double end = now_s() + 10; atomic_load(&signals_caught) == 0 && now_s() < end;)
            usleep(1000);
        o->is_retried = atomic_load(&signals_caught) == 1 && blocked_in_openat2(o->tid);
    }
    int fd = -1; /* nonblocking: fails (ENXIO) while no reader has the FIFO open */
    for (double end = now_s() + 10; fd < 0 && now_s() < end && !atomic_load(&is_open_done);
         usleep(1000))
        fd = open(o->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
        if (write(fd, "fifo\n", 5) != 5)
            o->is_retried = false;
        close(fd);
    }
    return NULL;
}

/* Opening a FIFO for reading blocks in openat2 until a writer comes; a signal whose handler has
 * no SA_RESTART ends that wait with EINTR, which the resolver retries (open_beneath) rather than
 * give the guest. The signal is sent only once the thread is seen blocked in openat2, and the
 * writer comes only once it is blocked there again, so the retry is taken every run. Fails with
 * EINTR removed from the retry's condition (WASI_EINTR). openat2 only: the EAGAIN half needs a
 * rename landing inside one lookup's "..", which nothing can hold the kernel at. */
START_TEST(openat2_retried_on_eintr)
{
    if (!sbx__wasi_have_openat2()) {
        fprintf(stderr, "no openat2 here: the walk has no retry to test\n");
        return;
    }
    fx_setup(&fx, true, SBX_WASI_RESOLVE_OPENAT2);
    struct fifo_opener o = {.tid = (pid_t)syscall(SYS_gettid)};
    fx_path(&fx, o.path, sizeof(o.path), "root/fifo");
    ck_assert_int_eq(mkfifo(o.path, 0600), 0);
    struct sigaction sa = {.sa_handler = on_signal}, old; /* no SA_RESTART */
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGUSR1, &sa, &old), 0);
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
    atomic_store(&signals_caught, 0);
    atomic_store(&is_open_done, false);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, interrupt_then_write, &o), 0);
    int fd = -1;
    uint32_t r = sbx__wasi_path_resolve(fx.w, fx.root_fd, "fifo", true, O_RDONLY, 0, &fd);
    atomic_store(&is_open_done, true);
    pthread_join(t, NULL);
    sigaction(SIGUSR1, &old, NULL);
    ck_assert_uint_eq(r, 0);
    ck_assert_int_eq(atomic_load(&signals_caught), 1);
    ck_assert(o.is_retried);
    char buf[8] = "";
    ck_assert_int_eq(read(fd, buf, sizeof(buf) - 1), 5);
    ck_assert_str_eq(buf, "fifo\n");
    close(fd);
    fx_teardown(&fx);
}
END_TEST

static Suite *path_suite(void)
{
    Suite *s = suite_create("wasi_path");
    TCase *tc = tcase_create("resolver");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, plain_paths, 0, 2);
    tcase_add_loop_test(tc, escapes_are_contained, 0, 2);
    tcase_add_loop_test(tc, symlinks_inside, 0, 2);
    tcase_add_loop_test(tc, create_through_links, 0, 2);
    tcase_add_loop_test(tc, symlink_chain_limit, 0, 2);
    tcase_add_loop_test(tc, parent_split, 0, 2);
    tcase_add_loop_test(tc, swap_race_contained, 0, 2);
    tcase_add_test(tc, auto_mode_probes);
    tcase_add_loop_test(tc, long_paths, 0, 2);
    tcase_add_test(tc, walk_nomem);
    tcase_add_test(tc, openat2_retried_on_eintr);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(path_suite());
}

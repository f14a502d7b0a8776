/* tests/unit/jail/test_reaper.c: the temp-root reaper (src/jail/backend.c reap_stale) when a
 * leftover vanishes between readdir and fstatat, as when another host's reaper takes it first.
 * That window was reached only by chance (moved between coverage runs, issue 15); here a
 * seccomp user notification holds the reaper's fstatat of that one entry while the test
 * removes the entry, so the fstatat fails with ENOENT every run. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <linux/seccomp.h>

#include "jail_test.h"

#define ROOTS 3

struct reap_watch {
    char tmp[PATH_MAX];
    char prefix[32];               /* "sbx-jail-<dead pid>-": the roots' names begin so */
    int seen;                      /* the reaper's fstatat calls of roots so far */
    char gone_path[PATH_MAX + 64]; /* the root that vanishes, as a walk of it would name it */
    int notify_fd;
    atomic_int state; /* 0 loading the filter, 1 filtered (notify_fd set), 2 done, -1 failed */
    sbx_sandbox *sb;
    int vanished;      /* roots removed while the reaper's fstatat of them was held */
    int touched_after; /* stats of gone's path after it vanished */
};

/* The thread whose handle creation runs the reaper: only its newfstatat calls are held (a
 * filter without TSYNC applies to the loading thread). */
static void *create_filtered(void *arg)
{
    struct reap_watch *rw = arg;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    bool is_loaded = ctx && seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(newfstatat), 0) == 0 &&
                     seccomp_load(ctx) == 0 && (rw->notify_fd = seccomp_notify_fd(ctx)) >= 0;
    seccomp_release(ctx); /* the filter stays loaded; the notify fd stays open */
    atomic_store(&rw->state, is_loaded ? 1 : -1);
    if (!is_loaded)
        return NULL;
    rw->sb = sbx_test_sandbox(SBX_BACKEND_PROCESS, "{}");
    atomic_store(&rw->state, 2);
    return NULL;
}

/* Answers one held newfstatat: the reaper's of the second root it stats is let through only
 * after that root is removed (the first leaves its stat of a directory of ours behind); every
 * other call goes on untouched. */
static void answer(struct reap_watch *rw, struct seccomp_notif *req,
                   struct seccomp_notif_resp *resp)
{
    const char *path = (const char *)(uintptr_t)req->data.args[1]; /* this process's memory */
    if (path && strncmp(path, rw->prefix, strlen(rw->prefix)) == 0 && ++rw->seen == 2) {
        snprintf(rw->gone_path, sizeof(rw->gone_path), "%s/%s", rw->tmp, path);
        ck_assert_int_eq(rmdir(rw->gone_path), 0);
        rw->vanished++;
    } else if (path && rw->vanished && strcmp(path, rw->gone_path) == 0) {
        rw->touched_after++;
    }
    resp->id = req->id;
    resp->error = 0;
    resp->val = 0;
    resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    ck_assert_int_eq(seccomp_notify_respond(rw->notify_fd, resp), 0);
}

static void supervise(struct reap_watch *rw)
{
    struct seccomp_notif *req;
    struct seccomp_notif_resp *resp;
    ck_assert_int_eq(seccomp_notify_alloc(&req, &resp), 0);
    while (atomic_load(&rw->state) == 1) {
        struct pollfd p = {.fd = rw->notify_fd, .events = POLLIN};
        if (poll(&p, 1, 10) <= 0 || !(p.revents & POLLIN))
            continue;
        memset(req, 0, sizeof(*req));
        if (seccomp_notify_receive(rw->notify_fd, req) == 0)
            answer(rw, req, resp);
    }
    seccomp_notify_free(req, resp);
}

/* Three temp roots named for a dead host; the second the reaper stats is removed while its
 * fstatat is held. The reaper skips it (no walk of the missing path: with the fstatat's
 * failure ignored, it walks it, taking the stat left by the root before) and reaps the other
 * two; the handle is made as usual. */
START_TEST(entry_gone_before_fstatat)
{
    struct reap_watch rw = {.notify_fd = -1};
    jt_tempdir(rw.tmp, "reaper");
    pid_t dead = fork(); /* a pid that surely has no process */
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    snprintf(rw.prefix, sizeof(rw.prefix), "sbx-jail-%d-", (int)dead);
    char roots[ROOTS][PATH_MAX + 64];
    for (int i = 0; i < ROOTS; i++) {
        snprintf(roots[i], sizeof(roots[i]), "%s/%sroot%d", rw.tmp, rw.prefix, i);
        ck_assert_int_eq(mkdir(roots[i], 0711), 0);
    }
    setenv("TMPDIR", rw.tmp, 1);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, create_filtered, &rw), 0);
    while (atomic_load(&rw.state) == 0)
        usleep(1000);
    supervise(&rw);
    pthread_join(t, NULL);
    unsetenv("TMPDIR");
    ck_assert_int_eq(atomic_load(&rw.state), 2);
    ck_assert_ptr_nonnull(rw.sb);
    ck_assert_int_eq(rw.seen, ROOTS); /* each root stat'ed once */
    ck_assert_int_eq(rw.vanished, 1);
    ck_assert_int_eq(rw.touched_after, 0);
    struct stat st;
    for (int i = 0; i < ROOTS; i++) /* the vanished one, and the others reaped */
        ck_assert_msg(lstat(roots[i], &st) != 0 && errno == ENOENT, "%s is left", roots[i]);
    sbx_sandbox_destroy(rw.sb);
    close(rw.notify_fd);
    jt_rmrf(rw.tmp);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jail-reaper");
    TCase *tc = tcase_create("reaper");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, entry_gone_before_fstatat);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

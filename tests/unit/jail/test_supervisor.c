/* tests/unit/jail/test_supervisor.c: a jail never outlives its supervisor. A host killed in the
 * middle of a run (SIGKILL, nothing of it runs) must take the jail with it: the guest's
 * heartbeat into a writable grant stops. The control: the heartbeat runs while the host lives.
 * Then the poll loop itself, on pipes and a child the test holds: a pipe fuller than one read
 * slice, and a reader whose writer outlives init (each kind of reader, killed or not). */
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "jail/jail.h"
#include "jail_test.h"

static off_t size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

START_TEST(test_jail_dies_with_its_host)
{
    char dir[PATH_MAX], json[PATH_MAX + 64], beat[PATH_MAX + 8];
    jt_tempdir(dir, "host");
    ck_assert_int_eq(chmod(dir, 0777), 0);
    snprintf(json, sizeof(json), "{\"timeoutMs\":20000,\"fs\":[\"rw:%s::/w\"]}", dir);
    snprintf(beat, sizeof(beat), "%s/beat", dir);
    pid_t host = fork();
    ck_assert_int_ge(host, 0);
    if (host == 0) {
        sbx_sandbox *sb = jt_sandbox(json);
        sbx_result r;
        jt_sh(sb, "while :; do echo x >> /w/beat; sleep 0.02; done", &r);
        _exit(0); /* not reached: killed during the run */
    }
    off_t first = -1;
    for (int i = 0; i < 200 && first <= 0; i++, sleep_ms(25))
        first = size_of(beat);
    sleep_ms(200);
    ck_assert_msg(size_of(beat) > first, "control: no heartbeat while the host lives");
    kill(host, SIGKILL);
    ck_assert_int_eq(waitpid(host, NULL, 0), host);
    sleep_ms(300); /* the kernel's SIGKILL of the jail, and its teardown */
    off_t after = size_of(beat);
    sleep_ms(500);
    ck_assert_msg(size_of(beat) == after, "the guest still beats after its host died");
    jt_rmrf(dir);
}
END_TEST

/* The poll loop's side of a run: init is a forked child, and every pipe's write end stays with
 * the test, which fills or closes it. */
enum { S_STATUS, S_OUT, S_ERR, S_RESULT, S_COUNT };

struct fake_run {
    struct sbx__jail_watch w;
    int wfd[S_COUNT]; /* write ends, -1 once closed */
    struct sbx__buf result;
    sbx_result out;
};

/* init exits with status 3 at once, or (is_stuck) waits to be killed. */
static void fake_start(struct fake_run *f, bool is_stuck, uint64_t timeout_ms)
{
    memset(f, 0, sizeof(*f));
    int rfd[S_COUNT];
    for (int i = 0; i < S_COUNT; i++) {
        int p[2];
        ck_assert_int_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        rfd[i] = p[0];
        f->wfd[i] = p[1];
    }
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        while (is_stuck)
            pause();
        _exit(3);
    }
    f->w = (struct sbx__jail_watch){.pid = pid,
                                    .pidfd = (int)syscall(SYS_pidfd_open, pid, 0),
                                    .status_fd = rfd[S_STATUS],
                                    .stdin_fd = -1,
                                    .out_fds = {rfd[S_OUT], rfd[S_ERR]},
                                    .result_fd = rfd[S_RESULT],
                                    .event_fd = -1,
                                    .deadline_ns = sbx__now_ns() + timeout_ms * 1000000u,
                                    .max_output = 4u << 20};
    ck_assert_int_ge(f->w.pidfd, 0);
    sbx__buf_init(&f->result, 1u << 20);
}

static void fake_close(struct fake_run *f, int slot)
{
    if (f->wfd[slot] >= 0)
        close(f->wfd[slot]);
    f->wfd[slot] = -1;
}

/* Runs the loop; returns its wall time in ms. */
static double fake_supervise(struct fake_run *f)
{
    _Atomic int interrupt = SBX_OK;
    uint64_t t0 = sbx__now_ns();
    ck_assert_int_eq(sbx__jail_supervise(&f->w, &interrupt, &f->out, &f->result), SBX_OK);
    return (double)(sbx__now_ns() - t0) / 1e6;
}

static void fake_end(struct fake_run *f)
{
    for (int i = 0; i < S_COUNT; i++)
        fake_close(f, i);
    int fds[] = {f->w.pidfd, f->w.status_fd, f->w.out_fds[0], f->w.out_fds[1], f->w.result_fd};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        close(fds[i]);
    sbx__buf_free(&f->result);
    sbx_result_free(&f->out);
}

/* A stdout pipe holding more than one read slice (16 reads of 64 KiB) when the loop first looks:
 * it reads a slice, lets the other fds be looked at, and comes back for the rest; nothing is
 * lost or reordered. */
START_TEST(test_full_pipe_read_in_slices)
{
    struct fake_run f;
    fake_start(&f, false, 20000);
    int cap = fcntl(f.wfd[S_OUT], F_SETPIPE_SZ, 2 << 20);
    if (cap < (2 << 20)) /* over fs.pipe-max-size (1 MiB by default) for an unprivileged run */
        cap = fcntl(f.wfd[S_OUT], F_SETPIPE_SZ, 1 << 20);
    ck_assert_int_ge(cap, 16 * 65536);
    static char data[2 << 20];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (char)('a' + (i * 7 + i / 4096) % 26);
    size_t put = 0;
    for (ssize_t n; put < sizeof(data) && (n = write(f.wfd[S_OUT], data + put, 4096)) > 0;)
        put += (size_t)n;
    ck_assert_uint_ge(put, 16 * 65536); /* more than one slice is waiting */
    for (int i = 0; i < S_COUNT; i++)
        fake_close(&f, i);
    fake_supervise(&f);
    ck_assert_int_eq(f.w.init_wstatus, 3 << 8);
    ck_assert_uint_eq(f.out.stdout_len, put);
    ck_assert(!f.out.stdout_truncated);
    ck_assert_int_eq(memcmp(f.out.stdout_data, data, put), 0);
    fake_end(&f);
}
END_TEST

/* A reader whose write end outlives init (a daemon the guest left holding it, here the test)
 * keeps the loop draining for the grace only: it returns with what was written, although the
 * pipe never reaches EOF. Each reader in turn (status, stdout, stderr, result), every other one
 * closed; init exits by itself, or (the last case) is killed at its deadline first. */
START_TEST(test_held_reader_ends_after_grace)
{
    int slot = _i < S_COUNT ? _i : S_OUT;
    bool is_stuck = _i == S_COUNT;
    struct fake_run f;
    fake_start(&f, is_stuck, is_stuck ? 100 : 20000);
    if (slot != S_STATUS)
        ck_assert_int_eq(write(f.wfd[slot], "held\n", 5), 5);
    for (int i = 0; i < S_COUNT; i++) {
        if (i != slot)
            fake_close(&f, i);
    }
    double ms = fake_supervise(&f);
    ck_assert_msg(ms >= 499, "case %d: back after %.0f ms, before the drain grace", _i, ms);
    ck_assert_int_eq(f.w.is_timeout, is_stuck);
    ck_assert_int_eq(f.w.init_wstatus, is_stuck ? SIGKILL : 3 << 8);
    ck_assert(!f.w.has_report);
    size_t len = slot == S_OUT ? f.out.stdout_len : slot == S_ERR ? f.out.stderr_len : 0;
    const char *got = slot == S_OUT ? f.out.stdout_data : f.out.stderr_data;
    if (slot == S_RESULT) {
        len = f.result.len;
        got = f.result.data;
    }
    if (slot != S_STATUS) {
        ck_assert_uint_eq(len, 5);
        ck_assert_int_eq(memcmp(got, "held\n", 5), 0);
    }
    fake_end(&f);
}
END_TEST

int main(void)
{
    jt_guest_binary();
    Suite *s = suite_create("jail-supervisor");
    TCase *tc = tcase_create("supervisor");
    tcase_set_timeout(tc, 40);
    tcase_add_test(tc, test_jail_dies_with_its_host);
    tcase_add_test(tc, test_full_pipe_read_in_slices);
    tcase_add_loop_test(tc, test_held_reader_ends_after_grace, 0, S_COUNT + 1);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

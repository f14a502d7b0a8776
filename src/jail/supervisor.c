/* jail/supervisor.c: the host side of a running jail: one poll loop over the guest's stdout and
 * stderr (captured up to max_output each, the rest drained and dropped, so the host's memory
 * stays bounded whatever the guest prints), the stdin writer, the status pipe, the pidfd, the
 * interrupt eventfd and the deadline. Timeout and abort SIGKILL the jail's init through the
 * pidfd; its death takes the whole pid namespace with it. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jail/gate.h"
#include "jail/jail.h"
#include "jail/tty.h"

enum { P_PIDFD_I, P_STATUS, P_STDIN, P_OUT, P_ERR, P_RESULT, P_EVENT, P_COUNT };
#define P_GATE (P_COUNT + SBX__TTY_SLOTS) /* after the pty relay's slots */
#define P_ALL  (P_GATE + SBX__GATE_SLOTS) /* then the net.outbound broker's */

/* Grace after init's exit for the last pipe bytes (writers are dead, so EOF is near). */
#define DRAIN_GRACE_NS (500ull * 1000000ull)

struct loop {
    struct sbx__jail_watch *w;
    struct pollfd pfd[P_ALL];
    struct sbx__buf *bufs[3]; /* stdout, stderr, result */
    size_t status_got;
    size_t stdin_off;
    bool is_exited;
    bool is_killed;
    uint64_t exit_ns;
};

static void close_slot(struct loop *l, int slot)
{
    if (l->pfd[slot].fd >= 0 && slot == P_STDIN)
        close(l->pfd[slot].fd);
    l->pfd[slot].fd = -1;
}

static void kill_jail(struct loop *l)
{
    if (!l->is_killed && !l->is_exited)
        syscall(SYS_pidfd_send_signal, l->w->pidfd, SIGKILL, NULL, 0);
    l->is_killed = true;
}

/* A write to a pipe whose reader died raises SIGPIPE; library code must not change the host's
 * disposition, so the signal is blocked for this thread and a pending one consumed. */
ssize_t sbx__jail_write_nosig(int fd, const void *data, size_t len)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t n = write(fd, data, len);
    int err = errno;
    if (n < 0 && err == EPIPE) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = err;
    return n;
}

static void write_stdin(struct loop *l)
{
    size_t left = l->w->stdin_len - l->stdin_off;
    ssize_t n = sbx__jail_write_nosig(l->pfd[P_STDIN].fd, l->w->stdin_data + l->stdin_off, left);
    if (n > 0)
        l->stdin_off += (size_t)n;
    if ((n < 0 && errno != EAGAIN && errno != EINTR) || l->stdin_off == l->w->stdin_len)
        close_slot(l, P_STDIN);
}

static void read_pipe(struct loop *l, int slot)
{
    char chunk[65536];
    for (int i = 0; i < 16; i++) {
        ssize_t n = read(l->pfd[slot].fd, chunk, sizeof(chunk));
        if (n > 0) {
            struct sbx__buf *b = l->bufs[slot - P_OUT];
            if (b) {
                sbx__buf_append(b, chunk, (size_t)n);
                sbx__buf_flush_tap(b);
            }
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR))
            close_slot(l, slot);
        return;
    }
}

static void read_status(struct loop *l)
{
    char *dst = (char *)&l->w->report + l->status_got;
    ssize_t n = read(l->pfd[P_STATUS].fd, dst, sizeof(l->w->report) - l->status_got);
    if (n > 0) {
        l->status_got += (size_t)n;
        if (l->status_got == sizeof(l->w->report)) {
            l->w->has_report = true;
            close_slot(l, P_STATUS);
        }
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        close_slot(l, P_STATUS);
    }
}

static void reap(struct loop *l)
{
    siginfo_t info;
    memset(&info, 0, sizeof(info));
    if (waitid((idtype_t)P_PIDFD, (id_t)l->w->pidfd, &info, WEXITED | __WALL) == 0)
        l->w->init_wstatus =
            info.si_code == CLD_EXITED ? W_EXITCODE(info.si_status, 0) : info.si_status;
    l->is_exited = true;
    l->exit_ns = sbx__now_ns();
    l->pfd[P_PIDFD_I].fd = -1;
}

static int poll_timeout(const struct loop *l, uint64_t now)
{
    uint64_t until = l->is_exited ? l->exit_ns + DRAIN_GRACE_NS : l->w->deadline_ns;
    if (l->is_killed && !l->is_exited)
        return 50; /* SIGKILL sent: the pidfd will report soon */
    if (now >= until)
        return 0;
    uint64_t ms = (until - now + 999999) / 1000000;
    return ms > 60000 ? 60000 : (int)ms;
}

static bool readers_open(const struct loop *l)
{
    return l->pfd[P_STATUS].fd >= 0 || l->pfd[P_OUT].fd >= 0 || l->pfd[P_ERR].fd >= 0 ||
           l->pfd[P_RESULT].fd >= 0 || (l->w->tty && sbx__jail_tty_is_busy(l->w->tty));
}

static void handle_events(struct loop *l)
{
    if (l->pfd[P_EVENT].fd >= 0 && (l->pfd[P_EVENT].revents & POLLIN)) {
        l->w->is_aborted = true;
        kill_jail(l);
        l->pfd[P_EVENT].fd = -1;
    }
    if (l->pfd[P_STDIN].fd >= 0 && (l->pfd[P_STDIN].revents & (POLLOUT | POLLERR | POLLHUP)))
        write_stdin(l);
    for (int s = P_OUT; s <= P_RESULT; s++) {
        if (l->pfd[s].fd >= 0 && (l->pfd[s].revents & (POLLIN | POLLHUP | POLLERR)))
            read_pipe(l, s);
    }
    if (l->pfd[P_STATUS].fd >= 0 && (l->pfd[P_STATUS].revents & (POLLIN | POLLHUP | POLLERR)))
        read_status(l);
    if (l->pfd[P_PIDFD_I].fd >= 0 && (l->pfd[P_PIDFD_I].revents & POLLIN))
        reap(l);
    if (l->w->tty)
        sbx__jail_tty_handle(l->w->tty, &l->pfd[P_COUNT]);
    if (l->w->gate)
        sbx__jail_gate_handle(l->w->gate, &l->pfd[P_GATE]);
}

static void init_loop(struct loop *l, struct sbx__jail_watch *w, struct sbx__buf bufs[2],
                      struct sbx__buf *result)
{
    memset(l, 0, sizeof(*l));
    l->w = w;
    int fds[P_COUNT] = {w->pidfd,      w->status_fd, w->stdin_fd, w->out_fds[0],
                        w->out_fds[1], w->result_fd, w->event_fd};
    short ev[P_COUNT] = {POLLIN, POLLIN, POLLOUT, POLLIN, POLLIN, POLLIN, POLLIN};
    for (int i = 0; i < P_ALL; i++)
        l->pfd[i] =
            (struct pollfd){.fd = i < P_COUNT ? fds[i] : -1, .events = i < P_COUNT ? ev[i] : 0};
    l->bufs[0] = &bufs[0];
    l->bufs[1] = &bufs[1];
    l->bufs[2] = result;
    if (w->stdin_fd >= 0 && w->stdin_len == 0)
        close_slot(l, P_STDIN);
}

static void tap_output(void *user, int stream, const char *data, size_t len)
{
    const struct sbx__jail_watch *w = user;
    w->on_output(w->on_output_user, (sbx_stream)stream, data, len);
}

sbx_err sbx__jail_supervise(struct sbx__jail_watch *w, const _Atomic int *interrupt,
                            sbx_result *out, struct sbx__buf *result)
{
    struct sbx__buf bufs[2];
    sbx__buf_init(&bufs[0], w->max_output);
    sbx__buf_init(&bufs[1], w->max_output);
    if (w->on_output) {
        sbx__buf_set_tap(&bufs[0], tap_output, w, SBX_STREAM_STDOUT);
        sbx__buf_set_tap(&bufs[1], tap_output, w, SBX_STREAM_STDERR);
    }
    struct loop l;
    init_loop(&l, w, bufs, result);
    while (!l.is_exited || readers_open(&l)) {
        uint64_t now = sbx__now_ns();
        if (atomic_load(interrupt) != SBX_OK && !l.is_killed) {
            w->is_aborted = true;
            kill_jail(&l);
        }
        if (!l.is_exited && !l.is_killed && now >= w->deadline_ns) {
            w->is_timeout = true;
            kill_jail(&l);
        }
        if (l.is_exited && now >= l.exit_ns + DRAIN_GRACE_NS)
            break;
        /* Once pid 1 has reported, only its exit matters: the rest of the jail dies with it,
         * so the output pipes wait (their data stays buffered) and this thread wakes once. */
        bool is_ending = w->has_report && !l.is_exited;
        for (int s = P_OUT; s <= P_RESULT; s++)
            l.pfd[s].events = is_ending ? 0 : POLLIN;
        if (w->tty)
            sbx__jail_tty_poll_fds(w->tty, &l.pfd[P_COUNT], is_ending);
        if (w->gate)
            sbx__jail_gate_poll_fds(w->gate, &l.pfd[P_GATE]);
        int n = poll(l.pfd, P_ALL, poll_timeout(&l, now));
        if (n < 0 && errno != EINTR)
            return SBX_E_IO;
        if (n > 0)
            handle_events(&l);
    }
    close_slot(&l, P_STDIN);
    out->stdout_truncated = bufs[0].is_truncated;
    out->stderr_truncated = bufs[1].is_truncated;
    bool is_oom = bufs[0].is_oom || bufs[1].is_oom;
    out->stdout_data = sbx__buf_take(&bufs[0], &out->stdout_len);
    out->stderr_data = sbx__buf_take(&bufs[1], &out->stderr_len);
    return is_oom ? SBX_E_NOMEM : SBX_OK;
}

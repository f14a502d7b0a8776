/* jail/tty.c: a guest in pass-through mode never holds the host's terminal. Where fd 0, 1 or 2
 * is a terminal, the guest gets the slave of a fresh pty (from the host's /dev/ptmx: the jail's
 * /dev has none) with the host's modes and window size, or pipes when no pty opens; the
 * supervisor relays both ways. The host terminal is reopened for the relay (a description of our
 * own, non-blocking, so the host's O_NONBLOCK stays as it was), raw only while keystrokes are
 * relayed to a pty, and restored at close, with the file status flags of fds 0-2. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "jail/tty.h"

/* A host terminal we could not reopen is shared with the host: writes stay this small, under
 * the room a terminal signals with POLLOUT (WAKEUP_CHARS), so they do not block. */
#define SHARED_WRITE_MAX 256

enum { S_HOST_IN, S_GUEST_IN, S_GUEST_OUT, S_HOST_OUT, S_WINCH };

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void sbx__jail_tty_init(struct sbx__jail_tty *t)
{
    memset(t, 0, sizeof(*t));
    t->master = t->relay_in = t->relay_out = t->winch_fd = t->size_fd = -1;
    t->guest_ends[0] = t->guest_ends[1] = -1;
    t->host_fds[0] = t->host_fds[1] = -1;
    t->to_guest.src = t->to_guest.dst = t->to_host.src = t->to_host.dst = -1;
    for (int i = 0; i < 3; i++)
        t->saved_flags[i] = -1;
}

/* Our own open file description of the host terminal behind fd, non-blocking; else a copy of
 * fd itself (is_shared: its flags are the host's, so they are left alone). */
static int reopen_host(int fd, bool *is_shared)
{
    char path[32];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    int r = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    *is_shared = r < 0;
    return r >= 0 ? r : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

/* The guest's ends: the slave of a fresh pty for both, or two pipes. */
static bool open_guest_ends(struct sbx__jail_tty *t, const struct termios *modes,
                            const struct winsize *ws)
{
    /* Non-blocking: a guest that stops reading (or stops output) must not stall the
     * supervisor past the deadline. The slave the guest gets stays blocking. */
    t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    int slave = -1;
    if (t->master >= 0 && unlockpt(t->master) == 0 && fcntl(t->master, F_SETFL, O_NONBLOCK) == 0)
        slave = ioctl(t->master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave >= 0) {
        if (modes)
            tcsetattr(slave, TCSANOW, modes);
        if (ws)
            ioctl(slave, TIOCSWINSZ, ws);
        t->guest_ends[0] = t->guest_ends[1] = slave;
        t->relay_in = t->relay_out = t->master;
        return true;
    }
    close_fd(&t->master);
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0)
        return false;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return false;
    }
    t->guest_ends[0] = in[0];
    t->guest_ends[1] = out[1];
    t->relay_in = in[1];
    t->relay_out = out[0];
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    return true;
}

/* Keystrokes are relayed only while this process may read the terminal without stealing the
 * input of the job in the foreground. */
static bool may_read(int fd)
{
    pid_t fg = tcgetpgrp(fd);
    return fg < 0 || fg == getpgrp();
}

static void follow_size(struct sbx__jail_tty *t)
{
    struct winsize ws;
    if (t->master >= 0 && ioctl(t->size_fd, TIOCGWINSZ, &ws) == 0)
        ioctl(t->master, TIOCSWINSZ, &ws);
}

/* SIGWINCH through a signalfd: blocked in this thread for the run (the mask is put back at
 * close), so the host's own disposition is never changed. */
static void watch_size(struct sbx__jail_tty *t)
{
    sigset_t winch;
    sigemptyset(&winch);
    sigaddset(&winch, SIGWINCH);
    if (t->master < 0 || pthread_sigmask(SIG_BLOCK, &winch, &t->old_mask) != 0)
        return;
    t->has_mask = true;
    t->winch_fd = signalfd(-1, &winch, SFD_NONBLOCK | SFD_CLOEXEC);
}

static void save_flags(struct sbx__jail_tty *t, bool is_tty[3])
{
    for (int i = 0; i < 3; i++) {
        t->saved_flags[i] = fcntl(i, F_GETFL);
        is_tty[i] = t->saved_flags[i] >= 0 && isatty(i);
    }
}

/* The host's end of input reaches a pty guest as its EOF character (a cooked ^D; again later),
 * a pipe guest as the end of its pipe; is_final: no more input will come. */
static void send_eof(struct sbx__jail_tty *t, bool is_final)
{
    struct termios m;
    if (t->master >= 0 && tcgetattr(t->master, &m) == 0 && t->to_guest.len == 0)
        t->to_guest.buf[t->to_guest.len++] = (char)m.c_cc[VEOF];
    if (is_final)
        t->to_guest.src = -1;
    if (is_final && t->master < 0) {
        close_fd(&t->relay_in);
        t->to_guest.dst = -1;
    }
}

/* Lines and an end of input (^D) the host's cooked terminal already holds are taken as what
 * they are. poll first: a description shared with the host may be blocking, and a cooked
 * terminal is readable only with a whole line or an end of input in it. */
static void take_typed(struct sbx__jail_tty *t)
{
    struct sbx__tty_pipe *p = &t->to_guest;
    struct pollfd pfd = {.fd = p->src, .events = POLLIN};
    while (p->src >= 0 && p->len < sizeof(p->buf) && poll(&pfd, 1, 0) == 1 &&
           (pfd.revents & POLLIN)) {
        ssize_t n = read(p->src, p->buf + p->len, sizeof(p->buf) - p->len);
        struct termios m;
        if (n > 0) {
            p->len += (size_t)n;
            continue;
        }
        if (n == 0 && t->master >= 0 && tcgetattr(t->master, &m) == 0)
            p->buf[p->len++] = (char)m.c_cc[VEOF];
        return;
    }
}

/* Raw mode would hand a ^D the cooked terminal holds over as the NUL byte n_tty keeps for it, and
 * the guest's pty would echo that as "^@" (script(1) types ^D when its own input is at its end:
 * #23 item 6). The line discipline takes typed bytes asynchronously, so no poll can say none is
 * on its way. Hence two steps: first the EOF character is switched off (and echo, which would
 * show it as "^D"), so a ^D taken from then on is a plain byte that raw mode passes on and the
 * guest's pty reads as its own EOF; then what the terminal held before is taken; then raw. */
static void go_raw(struct sbx__jail_tty *t)
{
    struct termios m;
    if (t->master >= 0 && t->host_fds[0] >= 0 && t->host_fds[1] >= 0 &&
        tcgetattr(t->host_fds[0], &t->saved) == 0) {
        m = t->saved;
        m.c_cc[VEOF] = _POSIX_VDISABLE;
        m.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
        t->is_raw = tcsetattr(t->host_fds[0], TCSANOW, &m) == 0;
    }
    take_typed(t);
    if (!t->is_raw)
        return;
    m = t->saved;
    cfmakeraw(&m);
    if (tcsetattr(t->host_fds[0], TCSANOW, &m) != 0) {
        tcsetattr(t->host_fds[0], TCSANOW, &t->saved);
        t->is_raw = false;
    }
}

sbx_err sbx__jail_tty_open(struct sbx__jail_tty *t, int guest[3], char *err, size_t errlen)
{
    bool is_tty[3];
    save_flags(t, is_tty);
    if (!is_tty[0] && !is_tty[1] && !is_tty[2])
        return SBX_OK;
    t->size_fd = is_tty[0] ? 0 : is_tty[1] ? 1 : 2;
    struct termios modes;
    struct winsize ws;
    bool has_modes = tcgetattr(t->size_fd, &modes) == 0;
    bool has_size = ioctl(t->size_fd, TIOCGWINSZ, &ws) == 0;
    if (!open_guest_ends(t, has_modes ? &modes : NULL, has_size ? &ws : NULL)) {
        snprintf(err, errlen, "stdio is a terminal, and neither a pty nor a pipe opens: %s",
                 strerror(errno));
        return SBX_E_UNAVAILABLE;
    }
    t->to_guest.dst = t->relay_in;
    t->to_host.src = t->relay_out;
    if (is_tty[0] && may_read(0))
        t->to_guest.src = t->host_fds[0] = reopen_host(0, &t->is_shared[0]);
    else if (is_tty[0])
        send_eof(t, true); /* in the background: the guest reads EOF, not the user's keys */
    int out = is_tty[1] ? 1 : is_tty[2] ? 2 : -1;
    if (out >= 0)
        t->to_host.dst = t->host_fds[1] = reopen_host(out, &t->is_shared[1]);
    for (int i = 0; i < 3; i++)
        guest[i] = is_tty[i] ? t->guest_ends[i == 0 ? 0 : 1] : -1;
    go_raw(t);
    return SBX_OK;
}

static void close_guest_ends(struct sbx__jail_tty *t)
{
    if (t->guest_ends[1] == t->guest_ends[0])
        t->guest_ends[1] = -1;
    close_fd(&t->guest_ends[0]);
    close_fd(&t->guest_ends[1]);
}

/* SIGWINCH is blocked only now: the child inherits this thread's mask at clone. A resize since
 * the open went to the default disposition (ignored), so the size is taken once more. */
void sbx__jail_tty_started(struct sbx__jail_tty *t)
{
    close_guest_ends(t);
    watch_size(t);
    follow_size(t);
}

void sbx__jail_tty_poll_fds(const struct sbx__jail_tty *t, struct pollfd pfd[SBX__TTY_SLOTS],
                            bool is_ending)
{
    const struct sbx__tty_pipe *in = &t->to_guest, *out = &t->to_host;
    pfd[S_HOST_IN] = (struct pollfd){.fd = in->len == 0 ? in->src : -1, .events = POLLIN};
    pfd[S_GUEST_IN] = (struct pollfd){.fd = in->len > 0 ? in->dst : -1, .events = POLLOUT};
    bool has_room = out->len < sizeof(out->buf) && !is_ending;
    pfd[S_GUEST_OUT] = (struct pollfd){.fd = has_room ? out->src : -1, .events = POLLIN};
    pfd[S_HOST_OUT] = (struct pollfd){.fd = out->len > 0 ? out->dst : -1, .events = POLLOUT};
    pfd[S_WINCH] = (struct pollfd){.fd = t->winch_fd, .events = POLLIN};
}

/* Reads what src has into buf; what has nowhere to go (no host terminal for output) is dropped. */
static ssize_t fill(struct sbx__tty_pipe *p)
{
    ssize_t n = read(p->src, p->buf + p->len, sizeof(p->buf) - p->len);
    if (n > 0)
        p->len += (size_t)n;
    if (p->dst < 0)
        p->len = 0;
    return n;
}

static bool is_end(ssize_t n)
{
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
}

static void drain(struct sbx__tty_pipe *p, bool is_shared)
{
    size_t len = is_shared && p->len > SHARED_WRITE_MAX ? SHARED_WRITE_MAX : p->len;
    ssize_t n = write(p->dst, p->buf, len);
    if (n > 0) {
        memmove(p->buf, p->buf + n, p->len - (size_t)n);
        p->len -= (size_t)n;
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        p->dst = -1;
        p->len = 0;
    }
}

/* The host's end of input (^D at a cooked terminal) reaches a pty guest as its EOF character,
 * a pipe guest as the end of its pipe. A hung-up terminal ends the input for good. */
static void host_input(struct sbx__jail_tty *t, short revents)
{
    ssize_t n = fill(&t->to_guest);
    if (is_end(n))
        send_eof(t, n != 0 || (revents & (POLLHUP | POLLERR)));
}

void sbx__jail_tty_handle(struct sbx__jail_tty *t, const struct pollfd pfd[SBX__TTY_SLOTS])
{
    const short any = POLLIN | POLLOUT | POLLHUP | POLLERR;
    if (pfd[S_HOST_IN].fd >= 0 && (pfd[S_HOST_IN].revents & any))
        host_input(t, pfd[S_HOST_IN].revents);
    if (pfd[S_GUEST_IN].fd >= 0 && (pfd[S_GUEST_IN].revents & any))
        drain(&t->to_guest, false);
    /* EIO from the master: every slave is closed, the guest is gone. */
    if (pfd[S_GUEST_OUT].fd >= 0 && (pfd[S_GUEST_OUT].revents & any) && is_end(fill(&t->to_host)))
        t->to_host.src = -1;
    if (pfd[S_HOST_OUT].fd >= 0 && (pfd[S_HOST_OUT].revents & any))
        drain(&t->to_host, t->is_shared[1]);
    if (pfd[S_WINCH].fd >= 0 && (pfd[S_WINCH].revents & POLLIN)) {
        struct signalfd_siginfo si[4];
        while (read(t->winch_fd, si, sizeof(si)) > 0)
            ;
        follow_size(t);
    }
}

bool sbx__jail_tty_is_busy(const struct sbx__jail_tty *t)
{
    return t->to_host.src >= 0 || (t->to_host.len > 0 && t->to_host.dst >= 0);
}

void sbx__jail_tty_close(struct sbx__jail_tty *t)
{
    if (t->is_raw)
        tcsetattr(t->host_fds[0], TCSANOW, &t->saved);
    t->is_raw = false;
    close_fd(&t->winch_fd);
    if (t->has_mask)
        pthread_sigmask(SIG_SETMASK, &t->old_mask, NULL);
    t->has_mask = false;
    close_guest_ends(t);
    if (t->relay_in == t->master)
        t->relay_in = -1;
    if (t->relay_out == t->master)
        t->relay_out = -1;
    close_fd(&t->relay_in);
    close_fd(&t->relay_out);
    close_fd(&t->master);
    close_fd(&t->host_fds[0]);
    close_fd(&t->host_fds[1]);
    t->to_guest.src = t->to_guest.dst = t->to_host.src = t->to_host.dst = -1;
    /* A guest shares the open file descriptions of the non-terminal fds it inherits: O_NONBLOCK
     * or O_APPEND it set would outlive the run. */
    for (int i = 0; i < 3; i++) {
        if (t->saved_flags[i] >= 0 && fcntl(i, F_GETFL) != t->saved_flags[i])
            fcntl(i, F_SETFL, t->saved_flags[i]);
        t->saved_flags[i] = -1;
    }
}

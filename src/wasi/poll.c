/* wasi/poll.c: poll_oneoff and the blocking waits of fd_read / sock_*. Clock subscriptions
 * become one ppoll timeout (relative or absolute on any WASI clock); fd subscriptions on host
 * pipes and sockets are polled; files and captured stdio are always ready, as in wasmtime.
 * Every wait also watches the context's eventfd so sbx__wasi_interrupt() ends it. */
#include <errno.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <time.h>

#include "util/alloc.h"
#include "wasi/internal.h"

enum { EV_CLOCK = 0, EV_FD_READ = 1, EV_FD_WRITE = 2 };
#define SUB_SIZE   48
#define EVENT_SIZE 32
#define NO_TIMEOUT UINT64_MAX

static uint64_t now_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Polls fds (the last one the wake fd) for up to timeout_ns; EINTR when woken. */
static uint32_t wait_fds(struct sbx__wasi *w, struct pollfd *pfd, nfds_t n, uint64_t timeout_ns)
{
    pfd[n].fd = w->wake_fd;
    pfd[n].events = POLLIN;
    pfd[n].revents = 0;
    if (atomic_load(&w->is_interrupted))
        return WASI_EINTR;
    struct timespec ts = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
    int rc;
    do
        rc = ppoll(pfd, n + 1, timeout_ns == NO_TIMEOUT ? NULL : &ts, NULL);
    while (rc < 0 && errno == EINTR && !atomic_load(&w->is_interrupted));
    if (rc < 0)
        return sbx__wasi_errno(errno);
    if (pfd[n].revents || atomic_load(&w->is_interrupted))
        return WASI_EINTR;
    return WASI_ESUCCESS;
}

uint32_t sbx__wasi_wait(struct sbx__wasi *w, int fd, bool for_write)
{
    struct pollfd pfd[2] = {{.fd = fd, .events = for_write ? POLLOUT : POLLIN}};
    return wait_fds(w, pfd, 1, NO_TIMEOUT);
}

static void put_event(uint8_t *ev, const uint8_t *sub, uint16_t error, uint64_t nbytes,
                      uint16_t flags)
{
    memset(ev, 0, EVENT_SIZE);
    memcpy(ev, sub, 8); /* userdata */
    put_u16(ev + 8, error);
    ev[10] = sub[8];
    put_u64(ev + 16, nbytes);
    put_u16(ev + 24, flags);
}

/* A clock subscription's timeout relative to now, or an errno for a bad clock. */
static uint16_t clock_rel(const uint8_t *sub, uint64_t *rel)
{
    clockid_t id;
    if (!sbx__wasi_clock_id(get_u32(sub + 16), &id))
        return WASI_EINVAL;
    uint64_t t = get_u64(sub + 24);
    if (get_u16(sub + 40) & 1) { /* SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME */
        uint64_t now = now_ns(id);
        t = t > now ? t - now : 0;
    }
    *rel = t;
    return WASI_ESUCCESS;
}

/* Classifies an fd subscription: <0 = an event was written now, else the host fd to poll. */
static int fd_sub(struct wasi_env *e, const uint8_t *sub, uint8_t *ev, uint32_t *nev)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_fd_get(e->w, get_u32(sub + 16), &err);
    if (f)
        err = sbx__wasi_rights_check(e->w, f, R_POLL_FD_READWRITE);
    if (err) {
        put_event(ev + EVENT_SIZE * (*nev)++, sub, (uint16_t)err, 0, 0);
        return -1;
    }
    if (f->kind == FDK_HOST && f->filetype != FT_REG && f->filetype != FT_DIR)
        return f->host_fd;
    uint64_t n = f->kind == FDK_STDIN_BUF ? e->w->stdin_len - e->w->stdin_pos : 0;
    put_event(ev + EVENT_SIZE * (*nev)++, sub, 0, n, 0);
    return -1;
}

static uint64_t readable_bytes(int fd)
{
    int n = 0;
    return ioctl(fd, FIONREAD, &n) == 0 && n > 0 ? (uint64_t)n : 0;
}

/* One poll_oneoff call's working set: host fds to poll (and which subscription each came
 * from), each clock's relative timeout, the events written so far. */
struct poll_set {
    const uint8_t *in;
    uint8_t *out;
    uint32_t n, nev;
    struct pollfd *pfd;
    uint32_t *pidx;
    uint64_t *rel;
    nfds_t np;
    uint64_t timeout;
};

/* Sorts the subscriptions into clocks, fds to poll, and events known at once. */
static uint32_t collect(struct wasi_env *e, struct poll_set *ps)
{
    for (uint32_t i = 0; i < ps->n; i++) {
        const uint8_t *sub = ps->in + SUB_SIZE * i;
        ps->rel[i] = NO_TIMEOUT;
        if (sub[8] == EV_CLOCK) {
            uint16_t ce = clock_rel(sub, &ps->rel[i]);
            if (ce)
                put_event(ps->out + EVENT_SIZE * ps->nev++, sub, ce, 0, 0);
            else if (ps->rel[i] < ps->timeout)
                ps->timeout = ps->rel[i];
        } else if (sub[8] == EV_FD_READ || sub[8] == EV_FD_WRITE) {
            int fd = fd_sub(e, sub, ps->out, &ps->nev);
            if (fd >= 0) {
                ps->pfd[ps->np] = (struct pollfd){fd, sub[8] == EV_FD_READ ? POLLIN : POLLOUT, 0};
                ps->pidx[ps->np++] = i;
            }
        } else {
            return WASI_EINVAL;
        }
    }
    return WASI_ESUCCESS;
}

/* After the wait: an event per ready fd, then per clock that expired (the earliest one when
 * nothing else happened, so clock granularity cannot lose it). */
static void report(struct poll_set *ps, uint64_t elapsed)
{
    for (nfds_t k = 0; k < ps->np; k++) {
        if (!ps->pfd[k].revents)
            continue;
        const uint8_t *sub = ps->in + SUB_SIZE * ps->pidx[k];
        uint16_t flags = (ps->pfd[k].revents & POLLHUP) ? 1 : 0; /* FD_READWRITE_HANGUP */
        uint64_t nb = sub[8] == EV_FD_READ ? readable_bytes(ps->pfd[k].fd) : 0;
        put_event(ps->out + EVENT_SIZE * ps->nev++, sub, 0, nb, flags);
    }
    bool is_idle = ps->nev == 0;
    for (uint32_t i = 0; i < ps->n; i++) {
        const uint8_t *sub = ps->in + SUB_SIZE * i;
        if (sub[8] == EV_CLOCK && ps->rel[i] != NO_TIMEOUT &&
            (ps->rel[i] <= elapsed || (is_idle && ps->rel[i] == ps->timeout)))
            put_event(ps->out + EVENT_SIZE * ps->nev++, sub, 0, 0, 0);
    }
}

/* a: in, out, nsubscriptions, result count */
WASI_FN(poll_oneoff)
{
    struct poll_set ps = {.n = a[2].i32, .timeout = NO_TIMEOUT};
    if (ps.n == 0 || ps.n > 4096)
        return ps.n == 0 ? WASI_EINVAL : WASI_ENOTSUP;
    ps.in = g_span(e, a[0].i32, ps.n * SUB_SIZE);
    ps.out = g_span(e, a[1].i32, ps.n * EVENT_SIZE);
    if (!ps.in || !ps.out || !g_span(e, a[3].i32, 4))
        return WASI_EFAULT;
    ps.pfd = sbx__calloc(ps.n + 1, sizeof(*ps.pfd));
    ps.pidx = sbx__calloc(ps.n, sizeof(*ps.pidx));
    ps.rel = sbx__calloc(ps.n, sizeof(*ps.rel));
    uint32_t err = (ps.pfd && ps.pidx && ps.rel) ? collect(e, &ps) : WASI_ENOMEM;
    uint64_t start = now_ns(CLOCK_MONOTONIC);
    if (!err)
        err = wait_fds(e->w, ps.pfd, ps.np, ps.nev ? 0 : ps.timeout);
    if (!err)
        report(&ps, now_ns(CLOCK_MONOTONIC) - start);
    sbx__free(ps.pfd);
    sbx__free(ps.pidx);
    sbx__free(ps.rel);
    return err ? err : g_put_u32(e, a[3].i32, ps.nev);
}

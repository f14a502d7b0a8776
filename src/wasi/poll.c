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

/* a: in, out, nsubscriptions, result count */
WASI_FN(poll_oneoff)
{
    uint32_t n = a[2].i32;
    if (n == 0)
        return WASI_EINVAL;
    if (n > 4096)
        return WASI_ENOTSUP;
    const uint8_t *in = g_span(e, a[0].i32, n * SUB_SIZE);
    uint8_t *out = g_span(e, a[1].i32, n * EVENT_SIZE);
    if (!in || !out || !g_span(e, a[3].i32, 4))
        return WASI_EFAULT;
    struct pollfd *pfd = sbx__calloc(n + 1, sizeof(*pfd));
    uint32_t *pidx = sbx__calloc(n, sizeof(*pidx));
    uint64_t *rel = sbx__calloc(n, sizeof(*rel));
    uint32_t err = (pfd && pidx && rel) ? WASI_ESUCCESS : WASI_ENOMEM;
    uint32_t nev = 0;
    nfds_t np = 0;
    uint64_t timeout = NO_TIMEOUT;
    for (uint32_t i = 0; !err && i < n; i++) {
        const uint8_t *sub = in + SUB_SIZE * i;
        rel[i] = NO_TIMEOUT;
        if (sub[8] == EV_CLOCK) {
            uint16_t ce = clock_rel(sub, &rel[i]);
            if (ce)
                put_event(out + EVENT_SIZE * nev++, sub, ce, 0, 0);
            else if (rel[i] < timeout)
                timeout = rel[i];
        } else if (sub[8] == EV_FD_READ || sub[8] == EV_FD_WRITE) {
            int fd = fd_sub(e, sub, out, &nev);
            if (fd >= 0) {
                pfd[np] = (struct pollfd){fd, sub[8] == EV_FD_READ ? POLLIN : POLLOUT, 0};
                pidx[np++] = i;
            }
        } else {
            err = WASI_EINVAL;
        }
    }
    uint64_t start = now_ns(CLOCK_MONOTONIC);
    if (!err)
        err = wait_fds(e->w, pfd, np, nev ? 0 : timeout);
    uint64_t elapsed = now_ns(CLOCK_MONOTONIC) - start;
    for (nfds_t k = 0; !err && k < np; k++) {
        if (!pfd[k].revents)
            continue;
        const uint8_t *sub = in + SUB_SIZE * pidx[k];
        uint16_t flags = (pfd[k].revents & POLLHUP) ? 1 : 0; /* FD_READWRITE_HANGUP */
        uint64_t nb = sub[8] == EV_FD_READ ? readable_bytes(pfd[k].fd) : 0;
        put_event(out + EVENT_SIZE * nev++, sub, 0, nb, flags);
    }
    for (uint32_t i = 0; !err && i < n; i++) {
        const uint8_t *sub = in + SUB_SIZE * i;
        if (sub[8] == EV_CLOCK && rel[i] != NO_TIMEOUT &&
            (rel[i] <= elapsed || (nev == 0 && rel[i] == timeout)))
            put_event(out + EVENT_SIZE * nev++, sub, 0, 0, 0);
    }
    sbx__free(pfd);
    sbx__free(pidx);
    sbx__free(rel);
    return err ? err : g_put_u32(e, a[3].i32, nev);
}

/* serve/frame.c: the runner protocol's framing over a socketpair: a 16-byte header (payload
 * length u32, type u8, stream u8, 2 zero bytes, tag u64, host byte order: both ends are the
 * same binary on the same host) and the payload. A peer that sends a frame over
 * SERVE_FRAME_MAX, or an unknown type, is broken: the reader gives up on it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "serve/serve.h"

struct header {
    uint32_t len;
    uint8_t type, stream, pad[2];
    uint64_t tag;
};

int serve_frame_write(int fd, uint8_t type, uint8_t stream, uint64_t tag, const void *data,
                      uint32_t len)
{
    struct header h = {.len = len, .type = type, .stream = stream, .tag = tag};
    struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)data, len}};
    int cnt = len ? 2 : 1;
    size_t left = sizeof(h) + len;
    while (left > 0) {
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)cnt};
        ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        left -= (size_t)n;
        for (int i = 0; i < cnt && n > 0; i++) { /* advance past what was sent */
            size_t take = (size_t)n < iov[i].iov_len ? (size_t)n : iov[i].iov_len;
            iov[i].iov_base = (char *)iov[i].iov_base + take;
            iov[i].iov_len -= take;
            n -= (ssize_t)take;
        }
    }
    return 0;
}

static int read_full(int fd, void *buf, size_t len)
{
    for (size_t got = 0; got < len;) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

int serve_frame_read(int fd, struct serve_frame *f)
{
    struct header h;
    memset(f, 0, sizeof(*f));
    if (read_full(fd, &h, sizeof(h)) != 0)
        return -1;
    if (h.len > SERVE_FRAME_MAX || h.type < FRAME_HELLO || h.type > FRAME_METRICS) {
        errno = EPROTO;
        return -1;
    }
    f->data = malloc((size_t)h.len + 1);
    if (!f->data)
        return -1;
    if (read_full(fd, f->data, h.len) != 0) {
        free(f->data);
        f->data = NULL;
        return -1;
    }
    f->data[h.len] = '\0';
    f->len = h.len;
    f->type = h.type;
    f->stream = h.stream;
    f->tag = h.tag;
    return 0;
}

void serve_frame_free(struct serve_frame *f)
{
    free(f->data);
    f->data = NULL;
    f->len = 0;
}

/* wasi/sock_io.c: data and metadata on sockets: sock_recv / sock_send / sock_shutdown
 * (preview1) and the extension's sock_addr_resolve, address getters and options. Name
 * resolution is itself gated: only a name some outbound pattern allows is looked up. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/alloc.h"
#include "wasi/internal.h"

/* a: fd, iovs, iovs_len, riflags, result len, result roflags */
WASI_FN(sock_recv)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_sock_get(e, a[0].i32, R_FD_READ, &err);
    if (!f)
        return err;
    if (a[3].i32 & ~3u)
        return WASI_EINVAL;
    if (!g_span(e, a[4].i32, 4) || !g_span(e, a[5].i32, 2))
        return WASI_EFAULT;
    struct iovec *iov;
    if ((err = sbx__wasi_iovecs(e, a[1].i32, a[2].i32, &iov)) != 0)
        return err;
    int flags = ((a[3].i32 & 1) ? MSG_PEEK : 0) | ((a[3].i32 & 2) ? MSG_WAITALL : 0);
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = a[2].i32};
    if (!(f->fdflags & FDF_NONBLOCK))
        err = sbx__wasi_wait(e->w, f->host_fd, false);
    ssize_t n = err ? -1 : recvmsg(f->host_fd, &mh, flags);
    int host_errno = errno;
    sbx__free(iov);
    if (err || n < 0)
        return err ? err : sbx__wasi_errno(host_errno);
    put_u16(g_span(e, a[5].i32, 2), (mh.msg_flags & MSG_TRUNC) ? 1 : 0);
    return g_put_u32(e, a[4].i32, (uint32_t)n);
}

/* a: fd, iovs, iovs_len, siflags, result len */
WASI_FN(sock_send)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_sock_get(e, a[0].i32, R_FD_WRITE, &err);
    if (!f)
        return err;
    if (a[3].i32 != 0)
        return WASI_EINVAL;
    if (!g_span(e, a[4].i32, 4))
        return WASI_EFAULT;
    struct iovec *iov;
    if ((err = sbx__wasi_iovecs(e, a[1].i32, a[2].i32, &iov)) != 0)
        return err;
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = a[2].i32};
    ssize_t n = sendmsg(f->host_fd, &mh, MSG_NOSIGNAL);
    int host_errno = errno;
    sbx__free(iov);
    if (n < 0)
        return sbx__wasi_errno(host_errno);
    return g_put_u32(e, a[4].i32, (uint32_t)n);
}

WASI_FN(sock_shutdown)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_sock_get(e, a[0].i32, R_SOCK_SHUTDOWN, &err);
    if (!f)
        return err;
    static const int how[] = {-1, SHUT_RD, SHUT_WR, SHUT_RDWR};
    if (a[1].i32 == 0 || a[1].i32 > 3)
        return WASI_EINVAL;
    return shutdown(f->host_fd, how[a[1].i32]) == 0 ? WASI_ESUCCESS : sbx__wasi_errno(errno);
}

/* True when some outbound pattern names host (at port, or at any port when port is 0). */
static bool resolve_allowed(const struct sbx__wasi *w, const char *host, uint32_t port)
{
    if (port != 0)
        return sbx__outbound_match(w->outbound, w->outbound_count, host, (uint16_t)port);
    return sbx__outbound_names(w->outbound, w->outbound_count, host);
}

static void remember(struct sbx__wasi *w, const uint8_t ip[16], const char *host)
{
    struct wasi_resolved_name *n = sbx__calloc(1, sizeof(*n));
    if (!n)
        return;
    n->host = sbx__strdup(host);
    if (!n->host) {
        sbx__free(n);
        return;
    }
    memcpy(n->ip, ip, 16);
    n->next = w->names;
    w->names = n;
}

/* Writes one 20-byte result: u16 family (1 = v4, 2 = v6), u16 port, 16 address bytes. */
static void put_result(uint8_t *p, const struct addrinfo *ai, uint32_t port, uint8_t ip[16])
{
    memset(p, 0, 20);
    if (ai->ai_family == AF_INET) {
        put_u16(p, 1);
        memcpy(p + 4, &((const struct sockaddr_in *)ai->ai_addr)->sin_addr, 4);
        memset(ip, 0, 10);
        ip[10] = ip[11] = 0xff;
        memcpy(ip + 12, p + 4, 4);
    } else {
        put_u16(p, 2);
        memcpy(p + 4, &((const struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 16);
        memcpy(ip, p + 4, 16);
    }
    put_u16(p + 2, (uint16_t)port);
}

/* a: host, host_len, port (0 = any), results, max results, result count. */
WASI_FN(sock_addr_resolve)
{
    char *host;
    uint32_t err = sbx__wasi_path_copy(e, a[0].i32, a[1].i32, &host);
    if (err)
        return err;
    uint8_t *out = (uint64_t)a[4].i32 * 20 > UINT32_MAX ? NULL : g_span(e, a[3].i32, a[4].i32 * 20);
    if (!out || !g_span(e, a[5].i32, 4) || a[2].i32 > 65535) {
        sbx__free(host);
        return a[2].i32 > 65535 ? WASI_EINVAL : WASI_EFAULT;
    }
    if (!resolve_allowed(e->w, host, a[2].i32)) {
        sbx__denials_add(&e->w->net_denials, SBX_DENIAL_DNS, AF_UNSPEC, host, 0);
        sbx__free(host);
        sbx__wasi_deny(e->w, "net.resolve");
        return WASI_EACCES;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    int rc = getaddrinfo(host, NULL, &hints, &res);
    uint32_t count = 0;
    for (struct addrinfo *ai = res; rc == 0 && ai && count < a[4].i32; ai = ai->ai_next) {
        uint8_t ip[16];
        put_result(out + 20 * count++, ai, a[2].i32, ip);
        remember(e->w, ip, host);
    }
    if (res)
        freeaddrinfo(res);
    sbx__free(host);
    if (rc != 0)
        return rc == EAI_SYSTEM ? sbx__wasi_errno(errno) : WASI_ENOENT;
    return g_put_u32(e, a[5].i32, count);
}

/* Writes an address into a WasmEdge {buf, buf_len}: the 128-byte form when buf_len >= 18,
 * else the raw 4 or 16 bytes (EINVAL if they do not fit). */
static uint32_t write_addr(const struct wasi_env *e, uint32_t gaddr, uint32_t port_gaddr,
                           const struct sockaddr_storage *ss)
{
    const uint8_t *a = g_span(e, gaddr, 8);
    if (!a || !g_span(e, port_gaddr, 4))
        return WASI_EFAULT;
    uint32_t blen = get_u32(a + 4);
    uint8_t *b = g_span(e, get_u32(a), blen);
    if (!b)
        return WASI_EFAULT;
    bool is_v4 = ss->ss_family == AF_INET;
    const void *src = is_v4 ? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
                            : (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
    uint16_t port = ntohs(is_v4 ? ((const struct sockaddr_in *)ss)->sin_port
                                : ((const struct sockaddr_in6 *)ss)->sin6_port);
    uint32_t n = is_v4 ? 4 : 16;
    if (blen >= 18) {
        put_u16(b, is_v4 ? 1 : 2);
        memcpy(b + 2, src, n);
    } else if (blen >= n) {
        memcpy(b, src, n);
    } else {
        return WASI_EINVAL;
    }
    return g_put_u32(e, port_gaddr, port);
}

static uint32_t get_addr(struct wasi_env *e, const wasm_value *a, bool is_peer)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_sock_get(e, a[0].i32, 0, &err);
    if (!f)
        return err;
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    int rc = is_peer ? getpeername(f->host_fd, (struct sockaddr *)&ss, &len)
                     : getsockname(f->host_fd, (struct sockaddr *)&ss, &len);
    if (rc != 0)
        return sbx__wasi_errno(errno);
    return write_addr(e, a[1].i32, a[2].i32, &ss);
}

/* a: fd, address, result port */
WASI_FN(sock_getlocaladdr)
{
    return get_addr(e, a, false);
}
WASI_FN(sock_getpeeraddr)
{
    return get_addr(e, a, true);
}

/* WasmEdge's option numbers at level 0 (SOL_SOCKET) that are plain ints. */
static int sockopt_name(uint32_t level, uint32_t name)
{
    static const int names[] = {SO_REUSEADDR, SO_TYPE,   SO_ERROR,  SO_DONTROUTE,
                                SO_BROADCAST, SO_SNDBUF, SO_RCVBUF, SO_KEEPALIVE};
    if (level != 0 || name >= sizeof(names) / sizeof(names[0]))
        return -1;
    return names[name];
}

static uint32_t sockopt(struct wasi_env *e, const wasm_value *a, bool is_set)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_sock_get(e, a[0].i32, 0, &err);
    if (!f)
        return err;
    int name = sockopt_name(a[1].i32, a[2].i32);
    if (name < 0)
        return WASI_ENOPROTOOPT;
    if (a[4].i32 != 4 && is_set)
        return WASI_EINVAL;
    uint8_t *p = g_span(e, a[3].i32, 4);
    if (!p)
        return WASI_EFAULT;
    int v = (int)get_u32(p);
    socklen_t len = sizeof(v);
    int rc = is_set ? setsockopt(f->host_fd, SOL_SOCKET, name, &v, len)
                    : getsockopt(f->host_fd, SOL_SOCKET, name, &v, &len);
    if (rc != 0)
        return sbx__wasi_errno(errno);
    if (!is_set)
        put_u32(p, (uint32_t)v);
    return WASI_ESUCCESS;
}

/* a: fd, level, name, value (i32), value size */
WASI_FN(sock_setsockopt)
{
    return sockopt(e, a, true);
}
/* a: fd, level, name, value (i32), value size pointer is not used: the value is 4 bytes */
WASI_FN(sock_getsockopt)
{
    return sockopt(e, a, false);
}

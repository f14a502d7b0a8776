/* wasi/sock.c: preview1's sock_accept/recv/send/shutdown plus a socket extension in the shape
 * of WasmEdge's (sock_open, sock_bind, sock_listen, sock_connect, sock_addr_resolve,
 * sock_get{local,peer}addr, sock_{set,get}sockopt). Every connect passes the outbound gate:
 * a denied one is EACCES and counted ("net.connect"). Binding is allowed on loopback only,
 * and only with policy net.loopback ("net.bind"); connecting there still needs a pattern. Layouts
 * are documented at each call. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/alloc.h"
#include "wasi/internal.h"

enum { AF_WASI_INET4 = 1, AF_WASI_INET6 = 2 };
enum { SOCK_WASI_DGRAM = 1, SOCK_WASI_STREAM = 2 };

void sbx__wasi_sock_names_free(struct sbx__wasi *w)
{
    while (w->names) {
        struct wasi_resolved_name *n = w->names;
        w->names = n->next;
        sbx__free(n->host);
        sbx__free(n);
    }
}

static void ip16_of(const struct sockaddr_storage *ss, uint8_t ip[16])
{
    if (ss->ss_family == AF_INET) {
        memset(ip, 0, 10);
        ip[10] = ip[11] = 0xff;
        memcpy(ip + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
    } else {
        memcpy(ip, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
    }
}

/* A WasmEdge address {u32 buf, u32 buf_len}: buf holds 4 (IPv4) or 16 (IPv6) bytes, or the
 * 128-byte form: u16 family (1 = v4, 2 = v6) then the address bytes. */
static uint32_t read_addr(const struct wasi_env *e, uint32_t gaddr, uint32_t port,
                          struct sockaddr_storage *ss, socklen_t *len)
{
    const uint8_t *a = g_span(e, gaddr, 8);
    if (!a)
        return WASI_EFAULT;
    uint32_t blen = get_u32(a + 4);
    const uint8_t *b = g_span(e, get_u32(a), blen);
    if (!b)
        return WASI_EFAULT;
    if (port > 65535)
        return WASI_EINVAL;
    memset(ss, 0, sizeof(*ss));
    uint16_t fam = blen == 4 ? AF_WASI_INET4 : blen == 16 ? AF_WASI_INET6 : 0;
    if (blen >= 18) {
        fam = get_u16(b);
        b += 2;
    }
    if (fam == AF_WASI_INET4) {
        struct sockaddr_in *in = (struct sockaddr_in *)ss;
        in->sin_family = AF_INET;
        in->sin_port = htons((uint16_t)port);
        memcpy(&in->sin_addr, b, 4);
        *len = sizeof(*in);
    } else if (fam == AF_WASI_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        memcpy(&in6->sin6_addr, b, 16);
        *len = sizeof(*in6);
    } else {
        return WASI_EINVAL;
    }
    return WASI_ESUCCESS;
}

struct wasi_fd *sbx__wasi_sock_get(struct wasi_env *e, uint32_t num, uint64_t need, uint32_t *err)
{
    struct wasi_fd *f = sbx__wasi_fd_get(e->w, num, err);
    if (!f)
        return NULL;
    if (f->kind != FDK_HOST || (f->filetype != FT_SOCK_STREAM && f->filetype != FT_SOCK_DGRAM)) {
        *err = WASI_ENOTSOCK; /* before rights: stdio lacks socket rights but is no socket */
        return NULL;
    }
    *err = sbx__wasi_rights_check(e->w, f, need);
    return *err ? NULL : f;
}

static uint32_t new_sock_fd(struct wasi_env *e, int host_fd, uint8_t filetype, uint32_t gaddr)
{
    uint32_t num = 0, err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_fd_alloc(e->w, &num, &err);
    if (!f) {
        close(host_fd);
        return err;
    }
    f->kind = FDK_HOST;
    f->host_fd = host_fd;
    f->filetype = filetype;
    sbx__wasi_rights_for(filetype, false, &f->base, &f->inheriting);
    return g_put_u32(e, gaddr, num);
}

/* a: address family, socket type, result fd */
WASI_FN(sock_open)
{
    int af = a[0].i32 == AF_WASI_INET4 ? AF_INET : a[0].i32 == AF_WASI_INET6 ? AF_INET6 : -1;
    int type = a[1].i32 == SOCK_WASI_STREAM  ? SOCK_STREAM
               : a[1].i32 == SOCK_WASI_DGRAM ? SOCK_DGRAM
                                             : -1;
    if (af < 0 || type < 0)
        return af < 0 ? WASI_EAFNOSUPPORT : WASI_EPROTOTYPE;
    if (!g_span(e, a[2].i32, 4))
        return WASI_EFAULT;
    int fd = socket(af, type | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return sbx__wasi_errno(errno);
    return new_sock_fd(e, fd, type == SOCK_STREAM ? FT_SOCK_STREAM : FT_SOCK_DGRAM, a[2].i32);
}

static bool is_loopback(const uint8_t ip[16])
{
    static const uint8_t v6_lo[16] = {[15] = 1};
    static const uint8_t v4_mapped[12] = {[10] = 0xff, [11] = 0xff};
    return memcmp(ip, v6_lo, 16) == 0 || (memcmp(ip, v4_mapped, 12) == 0 && ip[12] == 127);
}

/* The outbound gate for one address: its literal, or a name it was resolved from, must be
 * allowed. Loopback is no exception: net.loopback only lets a guest listen. */
static bool connect_allowed(struct sbx__wasi *w, const struct sockaddr_storage *ss, uint16_t port)
{
    uint8_t ip[16];
    char text[INET6_ADDRSTRLEN];
    ip16_of(ss, ip);
    const void *src = ss->ss_family == AF_INET
                          ? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
                          : (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
    inet_ntop(ss->ss_family, src, text, sizeof(text));
    if (sbx__outbound_match(w->outbound, w->outbound_count, text, port))
        return true;
    for (const struct wasi_resolved_name *n = w->names; n; n = n->next)
        if (memcmp(n->ip, ip, 16) == 0 &&
            sbx__outbound_match(w->outbound, w->outbound_count, n->host, port))
            return true;
    return false;
}

/* Connects; a blocking guest socket waits in sbx__wasi_wait() so an interrupt ends it. */
static uint32_t connect_wait(struct sbx__wasi *w, const struct wasi_fd *f,
                             const struct sockaddr_storage *ss, socklen_t len)
{
    bool is_blocking = !(f->fdflags & FDF_NONBLOCK);
    int fl = fcntl(f->host_fd, F_GETFL);
    if (is_blocking)
        fcntl(f->host_fd, F_SETFL, fl | O_NONBLOCK);
    int rc = connect(f->host_fd, (const struct sockaddr *)ss, len);
    int host_errno = rc == 0 ? 0 : errno;
    uint32_t r = WASI_ESUCCESS;
    if (host_errno == EINPROGRESS && is_blocking) {
        r = sbx__wasi_wait(w, f->host_fd, true);
        socklen_t elen = sizeof(host_errno);
        if (!r)
            getsockopt(f->host_fd, SOL_SOCKET, SO_ERROR, &host_errno, &elen);
    }
    if (is_blocking)
        fcntl(f->host_fd, F_SETFL, fl);
    return r ? r : host_errno ? sbx__wasi_errno(host_errno) : WASI_ESUCCESS;
}

/* The call's socket a[0] (with the rights need) and its address a[1] with port a[2]; NULL with
 * *err set when either is bad. */
static struct wasi_fd *sock_with_addr(struct wasi_env *e, const wasm_value *a, uint64_t need,
                                      struct sockaddr_storage *ss, socklen_t *len, uint32_t *err)
{
    struct wasi_fd *f = sbx__wasi_sock_get(e, a[0].i32, need, err);
    if (f && (*err = read_addr(e, a[1].i32, a[2].i32, ss, len)) != 0)
        return NULL;
    return f;
}

/* a: fd, address, port */
WASI_FN(sock_connect)
{
    uint32_t err = WASI_EBADF;
    struct sockaddr_storage ss;
    socklen_t len;
    struct wasi_fd *f = sock_with_addr(e, a, R_FD_WRITE, &ss, &len, &err);
    if (!f)
        return err;
    if (!connect_allowed(e->w, &ss, (uint16_t)a[2].i32)) {
        sbx__denials_add_sockaddr(&e->w->net_denials, &ss, len);
        sbx__wasi_deny(e->w, "net.connect");
        return WASI_EACCES;
    }
    return connect_wait(e->w, f, &ss, len);
}

/* a: fd, address, port */
WASI_FN(sock_bind)
{
    uint32_t err = WASI_EBADF;
    struct sockaddr_storage ss;
    socklen_t len;
    struct wasi_fd *f = sock_with_addr(e, a, 0, &ss, &len, &err);
    if (!f)
        return err;
    uint8_t ip[16];
    ip16_of(&ss, ip);
    if (!e->w->net_loopback || !is_loopback(ip)) {
        sbx__wasi_deny(e->w, "net.bind");
        return WASI_EACCES;
    }
    int one = 1;
    setsockopt(f->host_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    return bind(f->host_fd, (struct sockaddr *)&ss, len) == 0 ? WASI_ESUCCESS
                                                              : sbx__wasi_errno(errno);
}

WASI_FN(sock_listen)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_sock_get(e, a[0].i32, 0, &err);
    if (!f)
        return err;
    int backlog = a[1].i32 > 1024 ? 1024 : (int)a[1].i32;
    return listen(f->host_fd, backlog) == 0 ? WASI_ESUCCESS : sbx__wasi_errno(errno);
}

static uint32_t accept_into(struct wasi_env *e, uint32_t num, uint32_t flags, uint32_t gaddr)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_sock_get(e, num, R_SOCK_ACCEPT, &err);
    if (!f)
        return err;
    if (flags & ~(uint32_t)FDF_NONBLOCK)
        return WASI_EINVAL;
    if (!g_span(e, gaddr, 4))
        return WASI_EFAULT;
    if (!(f->fdflags & FDF_NONBLOCK) && (err = sbx__wasi_wait(e->w, f->host_fd, false)) != 0)
        return err;
    int fd = accept4(f->host_fd, NULL, NULL,
                     SOCK_CLOEXEC | ((flags & FDF_NONBLOCK) ? SOCK_NONBLOCK : 0));
    if (fd < 0)
        return sbx__wasi_errno(errno);
    return new_sock_fd(e, fd, FT_SOCK_STREAM, gaddr);
}

/* preview1: fd, fdflags, result fd */
WASI_FN(sock_accept)
{
    return accept_into(e, a[0].i32, a[1].i32, a[2].i32);
}

/* WasmEdge's older form: fd, result fd */
WASI_FN(sock_accept_v1)
{
    return accept_into(e, a[0].i32, 0, a[1].i32);
}

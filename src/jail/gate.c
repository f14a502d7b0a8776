/* jail/gate.c: the broker of policy.net.outbound, run inside the supervisor's poll loop. Per
 * trapped connect() it reads the guest's sockaddr once, checks the notification is still live,
 * inspects the guest's socket through pidfd_getfd and matches its own copy of the address with
 * the policy's rules (core/outbound.h, every tier's matcher). An allowed TCP destination is
 * connected by a socket of its own in the host namespace, installed over the guest's fd (ADDFD +
 * SETFD). The guest's syscall is never continued: another thread could swap the fd (dup2) or the
 * address after the check. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/backend.h"
#include "core/policy.h"
#include "core/telemetry.h"
#include "jail/gate.h"

#define PIDFD_THREAD_FLAG 0x80 /* O_EXCL: PIDFD_THREAD of Linux 6.9 */

/* What one trapped connect() asked, as the broker's own copy. */
struct ask {
    uint64_t id;
    pid_t tid;
    int fd;
    struct sockaddr_storage addr;
    socklen_t addr_len;
};

/* The guest's socket, seen through a copy of its file. */
struct sock_info {
    int domain, type, protocol;
    bool is_nonblock, is_host, is_cloexec;
    uint64_t sndtimeo_ns; /* SO_SNDTIMEO, which bounds a blocking connect; 0 = none */
};

static void answer(const struct sbx__jail_gate *g, uint64_t id, int err)
{
    struct seccomp_notif_resp resp = {.id = id, .val = 0, .error = err ? -err : 0, .flags = 0};
    ioctl(g->listener_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

static bool is_live(const struct sbx__jail_gate *g, uint64_t id)
{
    return ioctl(g->listener_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

void sbx__jail_gate_deny_connect(struct sbx__jail_gate *g, const struct sockaddr_storage *addr,
                                 socklen_t addr_len)
{
    sbx__denials_add_sockaddr(&g->denials, addr, addr_len);
    sbx__telemetry_denied("net.outbound");
}

void sbx__jail_gate_deny_name(struct sbx__jail_gate *g, const char *name)
{
    sbx__denials_add(&g->denials, SBX_DENIAL_DNS, AF_UNSPEC, name, 0);
    sbx__telemetry_denied("net.outbound");
}

void sbx__jail_gate_denials(struct sbx__jail_gate *g, sbx_result *out)
{
    sbx__denials_move(&g->denials, out);
}

static void deny(struct sbx__jail_gate *g, const struct ask *a, int err)
{
    sbx__jail_gate_deny_connect(g, &a->addr, a->addr_len);
    answer(g, a->id, err);
}

static uint64_t netns_cookie(int sock)
{
    uint64_t cookie = 0;
    socklen_t len = sizeof(cookie);
    if (getsockopt(sock, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) != 0)
        return 0;
    return cookie;
}

/* Reads the address once; the kernel's own limits (move_addr_to_kernel) apply. */
static int read_addr(struct ask *a, uint64_t gaddr, uint64_t glen)
{
    if ((int)glen < 0 || (int)glen > (int)sizeof(a->addr))
        return EINVAL;
    a->addr_len = (socklen_t)(int)glen;
    memset(&a->addr, 0, sizeof(a->addr));
    if (a->addr_len == 0)
        return 0;
    struct iovec local = {.iov_base = &a->addr, .iov_len = a->addr_len};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)gaddr, .iov_len = a->addr_len};
    ssize_t n = process_vm_readv(a->tid, &local, 1, &remote, 1, 0);
    return n == (ssize_t)a->addr_len ? 0 : EFAULT;
}

/* The thread group of tid, from /proc/<tid>/status; -1 when it cannot be read. */
static pid_t thread_group(pid_t tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
    int f = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = f >= 0 ? read(f, buf, sizeof(buf) - 1) : -1;
    if (f >= 0)
        close(f);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *tgid = strstr(buf, "\nTgid:");
    return tgid ? (pid_t)strtol(tgid + 6, NULL, 10) : -1;
}

/* Before 6.9 only a thread-group leader has a pidfd: a connect from another thread is
 * inspected through its group's, whose fd table the thread shares (CLONE_FILES, as with
 * pthreads). The notification is checked live after, so the pid read was the caller's. */
static int open_thread(const struct sbx__jail_gate *g, pid_t tid)
{
    int fd = g->has_pidfd_thread ? (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD_FLAG) : -1;
    if (fd >= 0 || (g->has_pidfd_thread && errno != EINVAL))
        return fd;
    pid_t tgid = thread_group(tid);
    return tgid > 0 ? (int)syscall(SYS_pidfd_open, tgid, 0) : -1;
}

/* FD_CLOEXEC lives in the guest's fd table, not in the file: fdinfo shows it as O_CLOEXEC. */
static bool fd_is_cloexec(pid_t tid, int fd)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)tid, fd);
    int f = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = f >= 0 ? read(f, buf, sizeof(buf) - 1) : -1;
    if (f >= 0)
        close(f);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *flags = strstr(buf, "flags:");
    return flags && (strtoul(flags + 6, NULL, 8) & O_CLOEXEC) != 0;
}

static int inspect(const struct sbx__jail_gate *g, int sock, struct sock_info *si)
{
    socklen_t len = sizeof(int);
    if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &si->domain, &len) != 0)
        return errno;
    len = sizeof(int);
    if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &si->type, &len) != 0)
        return errno;
    len = sizeof(int);
    if (getsockopt(sock, SOL_SOCKET, SO_PROTOCOL, &si->protocol, &len) != 0)
        return errno;
    int fl = fcntl(sock, F_GETFL);
    si->is_nonblock = fl >= 0 && (fl & O_NONBLOCK);
    struct timeval tv = {0, 0};
    len = sizeof(tv);
    if (getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, &len) == 0 && tv.tv_sec >= 0)
        si->sndtimeo_ns = (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
    si->is_host = netns_cookie(sock) == g->host_netns_cookie;
    return 0;
}

/* A brokered socket's second connect() is answered from its state, never performed: a failed
 * one stays refused (the guest retries with a fresh socket, as clients do). */
static int brokered_state(int sock)
{
    struct sockaddr_storage peer;
    socklen_t len = sizeof(peer);
    if (getpeername(sock, (struct sockaddr *)&peer, &len) == 0)
        return EISCONN;
    int soerr = 0;
    len = sizeof(soerr);
    getsockopt(sock, SOL_SOCKET, SO_ERROR, &soerr, &len);
    struct tcp_info ti;
    memset(&ti, 0, sizeof(ti));
    len = sizeof(ti);
    getsockopt(sock, IPPROTO_TCP, TCP_INFO, &ti, &len);
    if (soerr)
        return soerr;
    return ti.tcpi_state == TCP_SYN_SENT ? EALREADY : ECONNREFUSED;
}

static bool is_loopback_name(const char *ip)
{
    return strcmp(ip, "127.0.0.1") == 0 || strcmp(ip, "::1") == 0 ||
           strcmp(ip, "::ffff:127.0.0.1") == 0;
}

/* The destination as the allowlist sees it; EAFNOSUPPORT/EINVAL as the kernel would say. */
static int destination(const struct ask *a, int domain, char ip[INET6_ADDRSTRLEN], uint16_t *port)
{
    const struct sockaddr *sa = (const struct sockaddr *)&a->addr;
    if (a->addr_len < sizeof(sa_family_t) || sa->sa_family != domain)
        return a->addr_len < sizeof(sa_family_t) ? EINVAL : EAFNOSUPPORT;
    if (domain == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&a->addr;
        if (a->addr_len < sizeof(*in))
            return EINVAL;
        inet_ntop(AF_INET, &in->sin_addr, ip, INET6_ADDRSTRLEN);
        *port = ntohs(in->sin_port);
        return 0;
    }
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&a->addr;
    if (a->addr_len < 24) /* SIN6_LEN_RFC2133 */
        return EINVAL;
    inet_ntop(AF_INET6, &in6->sin6_addr, ip, INET6_ADDRSTRLEN);
    *port = ntohs(in6->sin6_port);
    return 0;
}

static bool is_allowed(const struct sbx__jail_gate *g, const char *ip, uint16_t port)
{
    if (port == 0)
        return false;
    if (sbx__outbound_match(g->rules, g->rule_count, ip, port))
        return true;
    if (is_loopback_name(ip) && sbx__outbound_match(g->rules, g->rule_count, "localhost", port))
        return true;
    return sbx__jail_gate_name_allows(g, ip, port); /* reached by a name the stub answered */
}

/* Puts the host socket over the guest's fd number, with the guest's O_NONBLOCK and
 * FD_CLOEXEC. A dup2 that swapped the number meanwhile only gets this allowed connection. */
static int install(const struct sbx__jail_gate *g, uint64_t id, int host, int guest_fd,
                   bool is_nonblock, bool is_cloexec)
{
    int fl = fcntl(host, F_GETFL);
    if (fl < 0 || fcntl(host, F_SETFL, is_nonblock ? fl | O_NONBLOCK : fl & ~O_NONBLOCK) != 0)
        return errno;
    struct seccomp_notif_addfd add = {.id = id,
                                      .flags = SECCOMP_ADDFD_FLAG_SETFD,
                                      .srcfd = (uint32_t)host,
                                      .newfd = (uint32_t)guest_fd,
                                      .newfd_flags = is_cloexec ? O_CLOEXEC : 0};
    return ioctl(g->listener_fd, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0 ? errno : 0;
}

static void finish(struct sbx__jail_gate *g, uint64_t id, int host, int guest_fd, bool is_cloexec)
{
    int err = install(g, id, host, guest_fd, false, is_cloexec);
    if (err != ENOENT) /* ENOENT: the guest thread is gone */
        answer(g, id, err);
    close(host);
}

static void park(struct sbx__jail_gate *g, uint64_t id, int host, int guest_fd,
                 const struct sock_info *si)
{
    for (int i = 0; i < SBX__GATE_PENDING; i++) {
        struct sbx__jail_gate_conn *c = &g->conns[i];
        if (c->sock < 0) {
            uint64_t deadline = si->sndtimeo_ns ? sbx__now_ns() + si->sndtimeo_ns : 0;
            *c = (struct sbx__jail_gate_conn){id, host, guest_fd, si->is_cloexec, deadline};
            if (deadline)
                sbx__jail_gate_arm(g);
            return;
        }
    }
    close(host);
    answer(g, id, EAGAIN);
}

/* An allowed TCP destination: the broker's own non-blocking socket in the host namespace. A
 * blocking guest waits parked until the connect completes; the loop itself never blocks. */
static void broker(struct sbx__jail_gate *g, const struct ask *a, const struct sock_info *si)
{
    int host = socket(si->domain, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
    if (host < 0) {
        answer(g, a->id, errno);
        return;
    }
    int rc = connect(host, (const struct sockaddr *)&a->addr, a->addr_len) == 0 ? 0 : errno;
    if (rc != 0 && rc != EINPROGRESS) {
        close(host);
        answer(g, a->id, rc);
    } else if (si->is_nonblock) {
        int err = install(g, a->id, host, a->fd, true, si->is_cloexec);
        if (err != ENOENT)
            answer(g, a->id, err ? err : rc);
        close(host);
    } else if (rc == 0) {
        finish(g, a->id, host, a->fd, si->is_cloexec);
    } else {
        park(g, a->id, host, a->fd, si);
    }
}

/* The decision for a live notification whose socket the broker holds (a copy of the file). */
static void decide(struct sbx__jail_gate *g, const struct ask *a, int sock, struct sock_info *si)
{
    int type = si->type & 0xf;
    if (si->is_host) {
        answer(g, a->id, brokered_state(sock));
    } else if (si->domain != AF_INET && si->domain != AF_INET6) {
        /* AF_UNIX and the rest: the broker never performs them (a path would resolve in the
         * host's mount namespace), and continuing the guest's call is a TOCTOU hole. */
        deny(g, a, EACCES);
    } else if (type == SOCK_DGRAM ||
               (a->addr_len >= sizeof(sa_family_t) && a->addr.ss_family == AF_UNSPEC)) {
        /* The guest's own socket in its own namespace (no route out): UDP, or a disconnect.
         * Done by the broker on the file it checked, with its copy of the address. */
        int rc = connect(sock, (const struct sockaddr *)&a->addr, a->addr_len);
        answer(g, a->id, rc == 0 ? 0 : errno);
    } else if (type != SOCK_STREAM || si->protocol != IPPROTO_TCP) {
        deny(g, a, EACCES);
    } else {
        char ip[INET6_ADDRSTRLEN];
        uint16_t port = 0;
        int err = destination(a, si->domain, ip, &port);
        if (err)
            answer(g, a->id, err);
        else if (!is_allowed(g, ip, port))
            deny(g, a, ECONNREFUSED);
        else
            broker(g, a, si);
    }
}

static void serve(struct sbx__jail_gate *g)
{
    struct seccomp_notif req;
    memset(&req, 0, sizeof(req));
    if (ioctl(g->listener_fd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
        return; /* ENOENT: the thread was killed before the broker took it */
    struct ask a = {.id = req.id, .tid = (pid_t)req.pid, .fd = (int)req.data.args[0]};
    int err = read_addr(&a, req.data.args[1], req.data.args[2]);
    int pidfd = err ? -1 : open_thread(g, a.tid);
    int sock = pidfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pidfd, a.fd, 0) : -1;
    if (!err && sock < 0)
        err = pidfd < 0 ? ESRCH : errno == EBADF ? EBADF : ENOTSOCK;
    /* The reads above named a pid; only a live notification proves it was the caller. */
    struct sock_info si = {0};
    if (is_live(g, a.id)) {
        if (!err)
            err = inspect(g, sock, &si);
        si.is_cloexec = !err && fd_is_cloexec(a.tid, a.fd);
        if (err)
            answer(g, a.id, err);
        else if (is_live(g, a.id))
            decide(g, &a, sock, &si);
    }
    if (sock >= 0)
        close(sock);
    if (pidfd >= 0)
        close(pidfd);
}

static void complete(struct sbx__jail_gate *g, struct sbx__jail_gate_conn *c)
{
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    if (getsockopt(c->sock, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0)
        soerr = errno;
    if (soerr) {
        answer(g, c->id, soerr);
        close(c->sock);
    } else {
        finish(g, c->id, c->sock, c->guest_fd, c->is_cloexec);
    }
    c->sock = -1;
}

/* The listener, then the DNS stub's socket (non-blocking: only the loop reads it). */
/* SO_SNDTIMEO ran out, as in the kernel's connect: the socket, still connecting, is the
 * guest's, and the answer EINPROGRESS; a later connect() on it says EALREADY, then EISCONN. */
static void expire_conns(struct sbx__jail_gate *g)
{
    uint64_t now = sbx__now_ns();
    for (int i = 0; i < SBX__GATE_PENDING; i++) {
        struct sbx__jail_gate_conn *c = &g->conns[i];
        if (c->sock < 0 || !c->deadline_ns || now < c->deadline_ns)
            continue;
        int err = install(g, c->id, c->sock, c->guest_fd, false, c->is_cloexec);
        if (err != ENOENT)
            answer(g, c->id, err ? err : EINPROGRESS);
        close(c->sock);
        c->sock = -1;
    }
}

static int recv_listener(int sock, int *stub)
{
    char byte;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(2 * sizeof(int))];
    } ctl;
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = ctl.buf,
                         .msg_controllen = sizeof(ctl.buf)};
    if (recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1)
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
        return -1;
    int fds[2] = {-1, -1};
    if (c->cmsg_len == CMSG_LEN(2 * sizeof(int)))
        memcpy(fds, CMSG_DATA(c), 2 * sizeof(int));
    else if (c->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(fds, CMSG_DATA(c), sizeof(int));
    if (fds[1] >= 0) {
        int fl = fcntl(fds[1], F_GETFL);
        fcntl(fds[1], F_SETFL, fl | O_NONBLOCK);
    }
    *stub = fds[1];
    return fds[0];
}

void sbx__jail_gate_poll_fds(struct sbx__jail_gate *g, struct pollfd *pfd)
{
    int first = g->listener_fd >= 0 ? g->listener_fd : g->ctrl_fd;
    pfd[0] = (struct pollfd){.fd = first, .events = POLLIN};
    for (int i = 0; i < SBX__GATE_PENDING; i++)
        pfd[1 + i] = (struct pollfd){.fd = g->conns[i].sock, .events = POLLOUT};
    sbx__jail_gate_stub_poll_fds(g, &pfd[SBX__GATE_STUB_SLOT]);
}

void sbx__jail_gate_handle(struct sbx__jail_gate *g, const struct pollfd *pfd)
{
    if (pfd[0].fd >= 0 && pfd[0].fd == g->ctrl_fd && pfd[0].revents) {
        g->listener_fd = recv_listener(g->ctrl_fd, &g->stub_fd);
        close(g->ctrl_fd);
        g->ctrl_fd = -1;
    } else if (pfd[0].fd >= 0 && pfd[0].fd == g->listener_fd) {
        if (pfd[0].revents & POLLIN)
            serve(g);
        else if (pfd[0].revents & (POLLHUP | POLLERR)) {
            close(g->listener_fd); /* every task of the filter is gone */
            g->listener_fd = -1;
        }
    }
    for (int i = 0; i < SBX__GATE_PENDING; i++) {
        if (pfd[1 + i].fd >= 0 && pfd[1 + i].fd == g->conns[i].sock && pfd[1 + i].revents)
            complete(g, &g->conns[i]);
    }
    expire_conns(g); /* before the stub's timer handling re-arms the timer */
    sbx__jail_gate_stub_handle(g, &pfd[SBX__GATE_STUB_SLOT]);
}

/* $SBX_JAIL_KERNEL_RELEASE stands in for uname's release, so the tests can see what an older
 * kernel is refused (it can only make the check stricter than the real kernel allows). */
static bool kernel_at_least(int major, int minor)
{
    struct utsname u;
    int ma = 0, mi = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
        return false;
    const char *stand_in = getenv("SBX_JAIL_KERNEL_RELEASE");
    int sa = 0, si = 0;
    if (stand_in && sscanf(stand_in, "%d.%d", &sa, &si) == 2 &&
        (sa < ma || (sa == ma && si < mi))) {
        ma = sa;
        mi = si;
    }
    return ma > major || (ma == major && mi >= minor);
}

bool sbx__jail_gate_init(struct sbx__jail_gate *g, const struct sbx_policy *p, int ctrl_fd)
{
    memset(g, 0, sizeof(*g));
    g->ctrl_fd = ctrl_fd;
    g->listener_fd = -1;
    for (int i = 0; i < SBX__GATE_PENDING; i++)
        g->conns[i].sock = -1;
    if (!sbx__jail_gate_stub_init(g))
        return false;
    g->has_pidfd_thread = kernel_at_least(6, 9);
    int probe = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    g->host_netns_cookie = probe >= 0 ? netns_cookie(probe) : 0;
    if (probe >= 0)
        close(probe);
    g->rules = p->outbound; /* the policy outlives the run */
    g->rule_count = p->outbound_count;
    return g->host_netns_cookie != 0;
}

void sbx__jail_gate_destroy(struct sbx__jail_gate *g)
{
    int *fds[] = {&g->ctrl_fd, &g->listener_fd};
    for (size_t i = 0; i < 2; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
    for (int i = 0; i < SBX__GATE_PENDING; i++) {
        if (g->conns[i].sock >= 0)
            close(g->conns[i].sock);
        g->conns[i].sock = -1;
    }
    sbx__jail_gate_stub_destroy(g);
    sbx__denials_free(&g->denials);
    g->rules = NULL;
    g->rule_count = 0;
}

sbx_err sbx__jail_gate_check(const struct sbx_policy *p, char *err, size_t errlen)
{
    (void)p;
    /* SECCOMP_ADDFD_FLAG_SETFD 5.9, SO_NETNS_COOKIE 5.14, WAIT_KILLABLE_RECV 5.19. */
    if (!kernel_at_least(5, 19)) {
        snprintf(err, errlen,
                 "policy.net.outbound: the process tier needs Linux 5.19 "
                 "(SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)");
        return SBX_E_UNAVAILABLE;
    }
    return SBX_OK;
}

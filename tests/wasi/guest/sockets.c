/* The socket extension (WasmEdge's shape) on loopback: listen, a gated connect, accept,
 * send/recv, poll readiness, shutdown; denied connects and lookups return EACCES. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wasi/api.h>

#define IMPORT(name) __attribute__((import_module("wasi_snapshot_preview1"), import_name(name)))
struct addr {
    uint8_t *buf;
    uint32_t buf_len;
};
IMPORT("sock_open") int sock_open(int af, int type, int *fd);
IMPORT("sock_bind") int sock_bind(int fd, struct addr *a, int port);
IMPORT("sock_listen") int sock_listen(int fd, int backlog);
IMPORT("sock_connect") int sock_connect(int fd, struct addr *a, int port);
IMPORT("sock_getlocaladdr") int sock_getlocaladdr(int fd, struct addr *a, uint32_t *port);
IMPORT("sock_addr_resolve")
int sock_addr_resolve(const char *host, size_t len, int port, uint8_t *out, int max, int *count);

static uint8_t lo4[4] = {127, 0, 0, 1};
static uint8_t lo4b[4] = {127, 0, 0, 2};
static uint8_t lo6[16] = {[15] = 1};

int main(void)
{
    int srv, cli, conn;
    struct addr a = {lo4, 4};
    printf("open: %d\n", sock_open(1, 2, &srv));
    printf("bind: %d\n", sock_bind(srv, &a, 0));
    printf("listen: %d\n", sock_listen(srv, 4));
    uint8_t got[128] = {0};
    struct addr la = {got, sizeof(got)};
    uint32_t port = 0;
    printf("localaddr: %d family %d %d.%d.%d.%d port>0 %d\n", sock_getlocaladdr(srv, &la, &port),
           got[0], got[2], got[3], got[4], got[5], port > 0);

    sock_open(1, 2, &cli);
    struct addr bad = {lo4b, 4};
    printf("connect 127.0.0.2 (denied): %d\n", sock_connect(cli, &bad, (int)port));
    printf("connect 127.0.0.1: %d\n", sock_connect(cli, &a, (int)port));
    printf("accept: %d\n", __wasi_sock_accept(srv, 0, &conn));

    char msg[] = "ping";
    __wasi_ciovec_t civ = {(const uint8_t *)msg, 4};
    __wasi_size_t n = 0;
    printf("send: %d n=%lu\n", __wasi_sock_send(cli, &civ, 1, 0, &n), (unsigned long)n);

    __wasi_subscription_t sub = {.userdata = 42};
    sub.u.tag = __WASI_EVENTTYPE_FD_READ;
    sub.u.u.fd_read.file_descriptor = conn;
    __wasi_event_t ev;
    __wasi_size_t nev = 0;
    __wasi_errno_t e = __wasi_poll_oneoff(&sub, &ev, 1, &nev);
    printf("poll: %d events %lu userdata %llu nbytes %llu\n", e, (unsigned long)nev,
           (unsigned long long)ev.userdata, (unsigned long long)ev.fd_readwrite.nbytes);

    char buf[16] = {0};
    __wasi_iovec_t iov = {(uint8_t *)buf, sizeof(buf) - 1};
    __wasi_roflags_t ro = 0;
    printf("recv: %d n=%lu %s\n", __wasi_sock_recv(conn, &iov, 1, 0, &n, &ro), (unsigned long)n,
           buf);
    printf("shutdown: %d\n", __wasi_sock_shutdown(cli, __WASI_SDFLAGS_WR));
    printf("recv at eof: %d n=%lu\n", __wasi_sock_recv(conn, &iov, 1, 0, &n, &ro),
           (unsigned long)n);
    printf("shutdown bad how: %d\n", __wasi_sock_shutdown(cli, 0));

    uint8_t res[20 * 4];
    int count = 0;
    printf("resolve example.com (denied): %d\n",
           sock_addr_resolve("example.com", 11, 80, res, 4, &count));
    printf("resolve localhost:2 (denied): %d\n",
           sock_addr_resolve("localhost", 9, 2, res, 4, &count));
    int rc = sock_addr_resolve("localhost", 9, 1, res, 4, &count);
    printf("resolve localhost:1: %d count>0 %d family %d port %d addr %d.%d.%d.%d\n", rc, count > 0,
           res[0], res[2], res[4], res[5], res[6], res[7]);
    int c6;
    struct addr a6 = {lo6, 16};
    sock_open(2, 2, &c6);
    printf("connect ::1 (denied): %d\n", sock_connect(c6, &a6, 1));
    printf("bind 0.0.0.0 (denied): %d\n", sock_bind(c6, &(struct addr){(uint8_t[4]){0}, 4}, 0));
    return 0;
}

/* bench/process/connect.c: connect() to a host listener on 127.0.0.1, from python3 in a jail whose
 * policy allows it (each connect brokered by the supervisor) and from the same python3 on the host,
 * interleaved per round. Each round times 200 connects (new socket, connect, close) and reports the
 * median; the table shows the median over rounds and the difference: the broker's added cost. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sbx.h>

#include "connect.h"

static const char script[] =
    "import socket, time\n"
    "t = []\n"
    "for i in range(200):\n"
    "    s = socket.socket(); a = time.perf_counter_ns()\n"
    "    s.connect(('127.0.0.1', %d)); t.append(time.perf_counter_ns() - a); s.close()\n"
    "t.sort(); print(t[len(t) // 2] / 1000)\n";

static _Atomic bool is_done;

static void *accept_loop(void *p)
{
    int fd = *(int *)p;
    while (!atomic_load(&is_done)) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, 20) > 0) {
            int c = accept(fd, NULL, NULL);
            if (c >= 0)
                close(c);
        }
    }
    return NULL;
}

static int listen_loopback(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 512) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    *port = ntohs(a.sin_port);
    return fd;
}

static double jail_us(sbx_sandbox *sb, const char *code)
{
    sbx_run_input in = {.code = code, .code_len = strlen(code), .interpreter = "python3"};
    sbx_result r;
    double us = -1;
    if (sbx_sandbox_run(sb, &in, &r) == SBX_OK && r.ok && r.stdout_data)
        us = strtod(r.stdout_data, NULL);
    sbx_result_free(&r);
    return us;
}

static double host_us(const char *code)
{
    char path[] = "/tmp/sbx-bench-connect-XXXXXX", cmd[128], out[64] = "";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, code, strlen(code)) != (ssize_t)strlen(code))
        return -1;
    close(fd);
    snprintf(cmd, sizeof(cmd), "python3 %s", path);
    FILE *f = popen(cmd, "r");
    if (f && !fgets(out, sizeof(out), f))
        out[0] = '\0';
    if (f)
        pclose(f);
    unlink(path);
    return out[0] ? strtod(out, NULL) : -1;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static sbx_sandbox *outbound_sandbox(int port)
{
    char json[128], err[256];
    snprintf(json, sizeof(json), "{\"timeoutMs\":30000,\"net\":{\"outbound\":[\"127.0.0.1:%d\"]}}",
             port);
    sbx_policy *p = NULL;
    sbx_sandbox *sb = NULL;
    if (sbx_policy_parse(json, strlen(json), &p, err, sizeof(err)) == SBX_OK)
        sbx_sandbox_create(SBX_BACKEND_PROCESS, p, &sb);
    sbx_policy_destroy(p);
    return sb;
}

void bench_connect(int rounds)
{
    int port, fd = listen_loopback(&port);
    sbx_sandbox *sb = fd >= 0 ? outbound_sandbox(port) : NULL;
    if (!sb) {
        printf("\nconnect: n/a (no listener or sandbox)\n");
        return;
    }
    pthread_t t;
    pthread_create(&t, NULL, accept_loop, &fd);
    char code[512];
    snprintf(code, sizeof(code), script, port);
    double jail[64], host[64];
    int n = rounds < 64 ? rounds : 64, got = 0;
    for (int i = 0; i < n; i++) {
        double j = jail_us(sb, code), h = host_us(code);
        if (j > 0 && h > 0) {
            jail[got] = j;
            host[got++] = h;
        }
    }
    atomic_store(&is_done, true);
    pthread_join(t, NULL);
    close(fd);
    sbx_sandbox_destroy(sb);
    if (got == 0) {
        printf("\nconnect: n/a (python3 runs failed)\n");
        return;
    }
    qsort(jail, (size_t)got, sizeof(double), cmp);
    qsort(host, (size_t)got, sizeof(double), cmp);
    double mj = jail[got / 2], mh = host[got / 2];
    printf("\nconnect() to 127.0.0.1, python3, median of %d rounds x 200 connects\n", got);
    printf("  host (plain connect)      %8.1f us\n", mh);
    printf("  jail (brokered connect)   %8.1f us\n", mj);
    printf("  added per connect         %8.1f us (x%.2f)\n", mj - mh, mj / mh);
}

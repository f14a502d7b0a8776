/* bench/serve/http_client.h: the one HTTP/1.1 keep-alive client of load.c and bench_lib.c: a
 * POST of body to host:port/path and its whole answer; returns the status. Not thread-shared:
 * each thread its own connection. */
#ifndef SBX_BENCH_HTTP_CLIENT_H
#define SBX_BENCH_HTTP_CLIENT_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *host, *path, *body;
static int port;

static inline double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static inline int connect_to(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        perror("connect");
        exit(1);
    }
    return fd;
}

/* What an answer says of its own time, in ms (-1: not said): the result's durationMs (the
 * library's run) and the server's Server-Timing stages body, submit, wait, respond. */
struct answer_times {
    double run, stage[4];
};

static inline void parse_times(const char *head_end, const char *head, struct answer_times *at)
{
    static const char *const names[4] = {"body;dur=", "submit;dur=", "wait;dur=", "respond;dur="};
    const char *d = strstr(head_end, "\"durationMs\":");
    at->run = d ? atof(d + 13) : -1;
    const char *st = strcasestr(head, "Server-Timing:");
    for (int i = 0; i < 4; i++) {
        const char *v = st && st < head_end ? strstr(st, names[i]) : NULL;
        at->stage[i] = v && v < head_end ? atof(v + strlen(names[i])) : -1;
    }
}

/* One request and its whole answer on fd; returns the status. at (when not NULL) gets what
 * the answer says of its time. */
static inline int exchange_timed(int fd, struct answer_times *at)
{
    char req[8192];
    int n = snprintf(req, sizeof(req),
                     "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n%s",
                     path, host, strlen(body), body);
    if (write(fd, req, (size_t)n) != n)
        return -1;
    char buf[65536];
    size_t got = 0;
    for (;;) {
        ssize_t k = read(fd, buf + got, sizeof(buf) - 1 - got);
        if (k <= 0)
            return -1;
        got += (size_t)k;
        buf[got] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        char *cl = strcasestr(buf, "Content-Length:");
        if (end && cl && got >= (size_t)(end + 4 - buf) + strtoul(cl + 15, NULL, 10)) {
            if (at)
                parse_times(end, buf, at);
            return atoi(buf + 9);
        }
    }
}

static inline int exchange(int fd)
{
    return exchange_timed(fd, NULL);
}

#endif

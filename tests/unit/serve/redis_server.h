/* tests/unit/serve/redis_server.h: a real redis-server for a test: a free loopback port, its own
 * temp dir, AOF on, killed with the test process (PR_SET_PDEATHSIG) so a test that times out
 * leaves none behind. */
#ifndef SBX_TEST_REDIS_SERVER_H
#define SBX_TEST_REDIS_SERVER_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

struct test_redis {
    pid_t pid;
    int port;
    char dir[64];
    char url[96];
};

static inline int test_redis_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return ntohs(a.sin_port);
}

/* Starts redis-server on r->port (0: a free one) in r->dir (empty: a new temp dir). True once
 * it answers PING (within 10 s). */
static inline bool test_redis_start(struct test_redis *r)
{
    if (!r->dir[0]) {
        snprintf(r->dir, sizeof(r->dir), "/tmp/sbx-redis-XXXXXX");
        if (!mkdtemp(r->dir))
            return false;
    }
    if (!r->port)
        r->port = test_redis_free_port();
    snprintf(r->url, sizeof(r->url), "redis://127.0.0.1:%d", r->port);
    char port[16];
    snprintf(port, sizeof(port), "%d", r->port);
    pid_t parent = getpid();
    r->pid = fork();
    if (r->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execlp("redis-server", "redis-server", "--port", port, "--bind", "127.0.0.1", "--dir",
               r->dir, "--save", "", "--appendonly", "yes", "--appendfsync", "everysec",
               (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 1000 && r->pid > 0; i++) {
        struct timeval tv = {.tv_sec = 1};
        redisContext *c = redisConnectWithTimeout("127.0.0.1", r->port, tv);
        redisReply *rep = c && !c->err ? redisCommand(c, "PING") : NULL;
        bool is_up = rep && rep->type == REDIS_REPLY_STATUS;
        freeReplyObject(rep);
        redisFree(c);
        if (is_up)
            return true;
        struct timespec t = {.tv_nsec = 10 * 1000000L};
        nanosleep(&t, NULL);
    }
    return false;
}

/* Stops it with sig (SIGTERM: Redis writes its AOF and exits) and waits for it. */
static inline void test_redis_stop(struct test_redis *r, int sig)
{
    if (r->pid > 0) {
        kill(r->pid, sig);
        waitpid(r->pid, NULL, 0);
        r->pid = 0;
    }
}

/* Stops it and removes its dir. */
static inline void test_redis_destroy(struct test_redis *r)
{
    test_redis_stop(r, SIGKILL);
    if (r->dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", r->dir);
    }
}

/* One command on a connection of its own (for checks the queue API does not offer). */
static inline redisReply *test_redis_command(const struct test_redis *r, const char *fmt, ...)
{
    struct timeval tv = {.tv_sec = 5};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", r->port, tv);
    if (!c || c->err) {
        redisFree(c);
        return NULL;
    }
    va_list ap;
    va_start(ap, fmt);
    redisReply *rep = redisvCommand(c, fmt, ap);
    va_end(ap);
    redisFree(c);
    return rep;
}

#endif

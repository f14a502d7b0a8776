/* serve/queue_redis_conn.c: connections to Redis for the queue. A blocking hiredis context is not
 * thread-safe, so each call in progress takes one from the pool and gives it back. After an I/O
 * error every idle connection is closed too (they were made to the same server: after a restart
 * all of them are dead) and no new one is tried for a backoff that doubles from 100 ms to 5 s,
 * so an API node answers 503 at once while Redis is away instead of queueing connects. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/queue_redis.h"

#define IDLE_MAX    32
#define BACKOFF_MIN 100
#define BACKOFF_MAX 5000
#define TIMEOUT_MS  2000

uint64_t rq_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

const char *rq_str(const redisReply *r, size_t i)
{
    if (!r || r->type != REDIS_REPLY_ARRAY || i >= r->elements)
        return "";
    const redisReply *e = r->element[i];
    return e->type == REDIS_REPLY_STRING || e->type == REDIS_REPLY_STATUS ? e->str : "";
}

/* Copies s[0..n) percent-decoded into out (cap bytes); false if it does not fit or is bad. */
static bool decode(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '%') {
            if (i + 2 >= n || !isxdigit((unsigned char)s[i + 1]) ||
                !isxdigit((unsigned char)s[i + 2]))
                return false;
            char hex[3] = {s[i + 1], s[i + 2], 0};
            c = (char)strtol(hex, NULL, 16);
            i += 2;
        }
        if (o + 1 >= cap)
            return false;
        out[o++] = c;
    }
    out[o] = '\0';
    return true;
}

static bool parse_number(const char *s, size_t n, long max, int *out)
{
    if (n == 0 || n > 9)
        return false;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (s[i] - '0');
    }
    if (v > max)
        return false;
    *out = (int)v;
    return true;
}

/* user:password@ (either may be empty; no colon: a password alone, as redis-cli reads it). */
static bool parse_login(const char *s, size_t n, struct rq_addr *a)
{
    const char *colon = memchr(s, ':', n);
    if (!colon)
        return decode(s, n, a->password, sizeof(a->password));
    return decode(s, (size_t)(colon - s), a->user, sizeof(a->user)) &&
           decode(colon + 1, n - (size_t)(colon - s) - 1, a->password, sizeof(a->password));
}

/* HOST[:PORT] or [V6]:PORT. */
static bool parse_host(const char *s, size_t n, struct rq_addr *a, char *err, size_t errlen)
{
    const char *port = NULL, *end = s + n;
    size_t hlen = n;
    if (n > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close || (close + 1 < end && close[1] != ':')) {
            snprintf(err, errlen, "an IPv6 host goes in brackets: [::1]:6379");
            return false;
        }
        s++;
        hlen = (size_t)(close - s);
        port = close + 1 < end ? close + 2 : NULL;
    } else {
        const char *colon = memchr(s, ':', n);
        if (colon) {
            hlen = (size_t)(colon - s);
            port = colon + 1;
        }
    }
    if (hlen == 0 || hlen >= sizeof(a->host)) {
        snprintf(err, errlen, "no host (redis://HOST:PORT)");
        return false;
    }
    memcpy(a->host, s, hlen);
    a->host[hlen] = '\0';
    a->port = 6379;
    if (port && !parse_number(port, (size_t)(end - port), 65535, &a->port)) {
        snprintf(err, errlen, "the port must be a number in 1..65535");
        return false;
    }
    if (a->port == 0) {
        snprintf(err, errlen, "the port must be a number in 1..65535");
        return false;
    }
    return true;
}

bool rq_addr_parse(const char *url, struct rq_addr *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof(*a));
    if (strncmp(url, "redis://", 8) != 0) {
        snprintf(err, errlen,
                 "%s: not a redis://[USER:PASSWORD@]HOST:PORT[/DB] URL "
                 "(rediss:// needs TLS, which hiredis 0.14 lacks: use a TLS proxy)",
                 url);
        return false;
    }
    const char *s = url + 8, *slash = strchr(s, '/');
    const char *end = slash ? slash : s + strlen(s);
    const char *at = memrchr(s, '@', (size_t)(end - s));
    if (at && !parse_login(s, (size_t)(at - s), a)) {
        snprintf(err, errlen, "the user or password is too long or badly %%-encoded");
        return false;
    }
    const char *host = at ? at + 1 : s;
    if (!parse_host(host, (size_t)(end - host), a, err, errlen))
        return false;
    if (slash && slash[1] && !parse_number(slash + 1, strlen(slash + 1), 1000000, &a->db)) {
        snprintf(err, errlen, "the database (after /) must be a number");
        return false;
    }
    return true;
}

void rq_pool_init(struct rq_pool *p, const struct rq_addr *a)
{
    memset(p, 0, sizeof(*p));
    p->addr = *a;
    pthread_mutex_init(&p->lock, NULL);
    p->backoff_ms = BACKOFF_MIN;
    p->timeout_ms = TIMEOUT_MS;
    p->is_up = true;
}

static void free_idle(struct rq_conn *list)
{
    while (list) {
        struct rq_conn *next = list->next;
        redisFree(list->c);
        free(list);
        list = next;
    }
}

void rq_pool_destroy(struct rq_pool *p)
{
    free_idle(p->idle);
    pthread_mutex_destroy(&p->lock);
}

static bool is_error(const redisReply *r, const char *prefix)
{
    return r && r->type == REDIS_REPLY_ERROR && strncmp(r->str, prefix, strlen(prefix)) == 0;
}

/* AUTH, SELECT and SCRIPT LOAD of every script, pipelined: one round trip. */
static bool login(struct rq_pool *p, redisContext *c)
{
    const struct rq_addr *a = &p->addr;
    int n = 0;
    if (a->password[0] && a->user[0])
        n += redisAppendCommand(c, "AUTH %s %s", a->user, a->password) == REDIS_OK;
    else if (a->password[0])
        n += redisAppendCommand(c, "AUTH %s", a->password) == REDIS_OK;
    if (a->db)
        n += redisAppendCommand(c, "SELECT %d", a->db) == REDIS_OK;
    for (int s = 0; s < RQ_SCRIPTS; s++)
        n += redisAppendCommand(c, "SCRIPT LOAD %s", rq_script_text[s]) == REDIS_OK;
    bool is_ok = true;
    int first_script = n - RQ_SCRIPTS;
    for (int i = 0; i < n; i++) {
        redisReply *r = NULL;
        if (redisGetReply(c, (void **)&r) != REDIS_OK)
            return false;
        if (r->type == REDIS_REPLY_ERROR) {
            if (is_ok) /* the first says why (a bad password: the scripts' NOAUTH follow) */
                fprintf(stderr, "sbx serve: redis %s:%d: %s\n", a->host, a->port, r->str);
            is_ok = false;
        } else if (i >= first_script && r->type == REDIS_REPLY_STRING && r->len == 40) {
            pthread_mutex_lock(&p->lock);
            memcpy(p->sha[i - first_script], r->str, 41);
            pthread_mutex_unlock(&p->lock);
        }
        freeReplyObject(r);
    }
    return is_ok;
}

redisContext *rq_connect(struct rq_pool *p)
{
    struct timeval tv = {.tv_sec = p->timeout_ms / 1000, .tv_usec = (p->timeout_ms % 1000) * 1000};
    redisContext *c = redisConnectWithTimeout(p->addr.host, p->addr.port, tv);
    if (!c || c->err || redisSetTimeout(c, tv) != REDIS_OK || !login(p, c)) {
        redisFree(c);
        return NULL;
    }
    redisEnableKeepAlive(c);
    return c;
}

static void went_down(struct rq_pool *p) /* lock held */
{
    uint64_t now = rq_now_ms();
    if (p->is_up || now >= p->down_until_ms) {
        p->down_until_ms = now + p->backoff_ms;
        p->backoff_ms = p->backoff_ms * 2 > BACKOFF_MAX ? BACKOFF_MAX : p->backoff_ms * 2;
    }
    p->is_up = false;
    p->epoch++;
    free_idle(p->idle);
    p->idle = NULL;
    p->idle_count = 0;
}

void rq_pool_failed(struct rq_pool *p)
{
    pthread_mutex_lock(&p->lock);
    went_down(p);
    pthread_mutex_unlock(&p->lock);
}

struct rq_conn *rq_get(struct rq_pool *p)
{
    pthread_mutex_lock(&p->lock);
    struct rq_conn *c = p->idle;
    if (c) {
        p->idle = c->next;
        p->idle_count--;
        pthread_mutex_unlock(&p->lock);
        return c;
    }
    bool is_waiting = !p->is_up && rq_now_ms() < p->down_until_ms;
    uint64_t epoch = p->epoch;
    pthread_mutex_unlock(&p->lock);
    if (is_waiting)
        return NULL;
    redisContext *ctx = rq_connect(p);
    c = ctx ? calloc(1, sizeof(*c)) : NULL;
    pthread_mutex_lock(&p->lock);
    if (!c) {
        redisFree(ctx);
        went_down(p);
    } else {
        c->c = ctx;
        c->epoch = epoch;
        p->is_up = true;
        p->backoff_ms = BACKOFF_MIN;
    }
    pthread_mutex_unlock(&p->lock);
    return c;
}

void rq_put(struct rq_pool *p, struct rq_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&p->lock);
    bool is_broken = c->c->err != 0;
    if (is_broken && c->epoch == p->epoch)
        went_down(p);
    if (is_broken || c->epoch != p->epoch || p->idle_count >= IDLE_MAX) {
        pthread_mutex_unlock(&p->lock);
        redisFree(c->c);
        free(c);
        return;
    }
    p->is_up = true;
    c->next = p->idle;
    p->idle = c;
    p->idle_count++;
    pthread_mutex_unlock(&p->lock);
}

/* EVALSHA sha 0 argv...: the scripts compute their keys from a prefix (one Redis, not a
 * cluster), so no KEYS. */
static int eval_args(struct rq_pool *p, enum rq_script s, int argc, const char **argv,
                     const size_t *lens, const char **out, size_t *out_lens, char sha[41])
{
    pthread_mutex_lock(&p->lock);
    memcpy(sha, p->sha[s], 41);
    pthread_mutex_unlock(&p->lock);
    out[0] = "EVALSHA";
    out[1] = sha;
    out[2] = "0";
    out_lens[0] = 7;
    out_lens[1] = strlen(sha);
    out_lens[2] = 1;
    for (int i = 0; i < argc; i++) {
        out[3 + i] = argv[i];
        out_lens[3 + i] = lens[i];
    }
    return argc + 3;
}

#define ARGS_MAX 24

void rq_eval_append(struct rq_pool *p, struct rq_conn *c, enum rq_script s, int argc,
                    const char **argv, const size_t *lens)
{
    const char *args[ARGS_MAX];
    size_t arg_lens[ARGS_MAX];
    char sha[41];
    int n = eval_args(p, s, argc, argv, lens, args, arg_lens, sha);
    redisAppendCommandArgv(c->c, n, args, arg_lens);
}

bool rq_load(struct rq_pool *p, struct rq_conn *c, enum rq_script s)
{
    redisReply *r = redisCommand(c->c, "SCRIPT LOAD %s", rq_script_text[s]);
    bool is_ok = r && r->type == REDIS_REPLY_STRING && r->len == 40;
    if (is_ok) {
        pthread_mutex_lock(&p->lock);
        memcpy(p->sha[s], r->str, 41);
        pthread_mutex_unlock(&p->lock);
    }
    freeReplyObject(r);
    return is_ok;
}

redisReply *rq_eval(struct rq_pool *p, struct rq_conn *c, enum rq_script s, int argc,
                    const char **argv, const size_t *lens)
{
    for (int round = 0; round < 2; round++) {
        const char *args[ARGS_MAX];
        size_t arg_lens[ARGS_MAX];
        char sha[41];
        int n = eval_args(p, s, argc, argv, lens, args, arg_lens, sha);
        redisReply *r = redisCommandArgv(c->c, n, args, arg_lens);
        if (!r || !is_error(r, "NOSCRIPT") || round == 1)
            return r;
        freeReplyObject(r); /* SCRIPT FLUSH, or a server that lost its cache: load, again */
        if (!rq_load(p, c, s) && c->c->err)
            return NULL;
    }
    return NULL;
}

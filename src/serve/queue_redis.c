/* serve/queue_redis.c: the queue on Redis Streams (#25), so API nodes and worker nodes on any
 * machines share one queue. A stream per lane with one consumer group; a claim is an entry in
 * the group's pending list (PEL), kept alive by heartbeats (XCLAIM JUSTID resets its idle time)
 * and taken over by another worker with XAUTOCLAIM once idle past the visibility timeout; each
 * start of a run increments its attempt, the fence that makes a stale worker's publish and
 * complete change nothing. The scripts (queue_redis_lua.c) make every change atomic; this file
 * turns the ops of queue.h into them. Bounds: queueMax(Bytes) on enqueue, resultsMax(Bytes) and
 * the TTL on results, eventsMaxBytes and a MAXLEN on each run's events. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "serve/queue_redis.h"

#define EVENTS_MAX 65536 /* events kept per run (MAXLEN); eventsMaxBytes bounds them first */

static const char *const lane_names[RQ_LANES] = {"jail", "js"};

/* The lane of a job's flags: a stream each. */
static int lane_of(uint32_t flags)
{
    return (int)serve_job_lane(flags);
}

static void sleep_ms(unsigned ms)
{
    struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

static bool is_reply(const redisReply *r, const char *s)
{
    return r && (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS) &&
           strcmp(r->str, s) == 0;
}

/* An error reply from a script is a bug or Redis refusing (OOM, READONLY, ...): logged. */
static enum serve_q_rc script_error(struct rq *q, const char *what, const redisReply *r)
{
    if (r && r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "sbx serve: redis queue: %s: %s\n", what, r->str);
        if (strncmp(r->str, "OOM", 3) == 0)
            return SERVE_Q_FULL; /* maxmemory: as full as queueMax, 503 + Retry-After */
    }
    (void)q;
    return SERVE_Q_UNAVAILABLE;
}

static void num(char *buf, size_t cap, uint64_t v)
{
    snprintf(buf, cap, "%llu", (unsigned long long)v);
}

static enum serve_q_rc rq_enqueue(struct serve_queue *base, const struct serve_job *job,
                                  char id_out[SERVE_ID_MAX])
{
    struct rq *q = (struct rq *)base;
    char id[SERVE_ID_MAX], flags[24], qmax[24], qbmax[24];
    memcpy(id, job->id, SERVE_ID_MAX);
    id[SERVE_ID_LEN] = '\0';
    num(flags, sizeof(flags), job->flags);
    num(qmax, sizeof(qmax), base->cfg.queue_max);
    num(qbmax, sizeof(qbmax), base->cfg.queue_max_bytes);
    const char *idem = job->idempotency_key ? job->idempotency_key : "";
    enum serve_q_rc rc = SERVE_Q_UNAVAILABLE;
    for (int tries = 0; tries < 3; tries++) {
        struct rq_conn *c = rq_get(&q->pool);
        if (!c)
            return SERVE_Q_UNAVAILABLE;
        const char *argv[] = {
            q->prefix,    id,   job->key_name, flags, lane_names[lane_of(job->flags)],
            job->payload, idem, qmax,          qbmax};
        size_t lens[9];
        for (int i = 0; i < 9; i++)
            lens[i] = argv[i] == job->payload ? job->payload_len : strlen(argv[i]);
        redisReply *r = rq_eval(&q->pool, c, RQ_ENQUEUE, 9, argv, lens);
        const char *what = rq_str(r, 0);
        bool is_taken = !strcmp(what, "taken");
        if (!strcmp(what, "ok") && serve_id_valid(rq_str(r, 1))) {
            memcpy(id_out, rq_str(r, 1), SERVE_ID_MAX);
            rc = SERVE_Q_OK;
        } else if (!strcmp(what, "full")) {
            rc = SERVE_Q_FULL;
        } else if (!is_taken) {
            rc = script_error(q, "enqueue", r);
        }
        freeReplyObject(r);
        rq_put(&q->pool, c);
        if (!is_taken)
            return rc;
        serve_id_new(id); /* 130 random bits met another run's: another id */
    }
    return rc;
}

/* Fills out from a {claim, id, key, flags, payload, attempt, entry, lane} reply. */
static bool claim_from(const redisReply *r, struct serve_claim *out, int *lane)
{
    const char *id = rq_str(r, 1), *entry = rq_str(r, 6), *ln = rq_str(r, 7);
    const redisReply *payload = r->elements > 4 ? r->element[4] : NULL;
    if (!serve_id_valid(id) || !payload || payload->type != REDIS_REPLY_STRING ||
        strlen(entry) >= sizeof(out->ref))
        return false;
    memcpy(out->id, id, SERVE_ID_MAX);
    snprintf(out->key_name, sizeof(out->key_name), "%s", rq_str(r, 2));
    out->flags = (uint32_t)strtoul(rq_str(r, 3), NULL, 10);
    out->attempt = (uint32_t)strtoul(rq_str(r, 5), NULL, 10);
    snprintf(out->ref, sizeof(out->ref), "%s", entry);
    *lane = strcmp(ln, lane_names[1]) == 0;
    out->payload = malloc(payload->len + 1);
    if (!out->payload)
        return false;
    memcpy(out->payload, payload->str, payload->len);
    out->payload[payload->len] = '\0';
    out->payload_len = payload->len;
    return true;
}

/* The claim script in mode (claim, start, requeue) for lanes (a mask) and entry. */
static redisReply *claim_script(struct rq *q, struct rq_conn *c, const char *mode, unsigned lanes,
                                const char *entry)
{
    char vis[24], att[24], ttl[24], rmax[24], rbmax[24], evb[24], evn[24], nl[24];
    const struct serve_queue_config *cfg = &q->base.cfg;
    num(vis, sizeof(vis), cfg->visibility_ms);
    num(att, sizeof(att), cfg->max_attempts);
    num(ttl, sizeof(ttl), cfg->result_ttl_ms);
    num(rmax, sizeof(rmax), cfg->results_max);
    num(rbmax, sizeof(rbmax), cfg->results_max_bytes);
    num(evb, sizeof(evb), cfg->events_max_bytes);
    num(evn, sizeof(evn), EVENTS_MAX);
    const char *argv[13 + RQ_LANES] = {q->prefix,      q->node, vis, att,  ttl,   rmax, rbmax,
                                       q->failed_code, evb,     evn, mode, entry, nl};
    int n = 13;
    for (int l = 0; l < RQ_LANES; l++) {
        if (lanes & (1u << l))
            argv[n++] = lane_names[l];
    }
    num(nl, sizeof(nl), (uint64_t)(n - 13));
    size_t lens[13 + RQ_LANES];
    for (int i = 0; i < n; i++)
        lens[i] = strlen(argv[i]);
    return rq_eval(&q->pool, c, RQ_CLAIM, n, argv, lens);
}

static bool block_fd(struct rq *q, int fd, bool is_add)
{
    pthread_mutex_lock(&q->block_lock);
    bool is_open = !q->is_closed;
    for (size_t i = 0; i < sizeof(q->blocked_fds) / sizeof(q->blocked_fds[0]); i++) {
        if (is_add && is_open && q->blocked_fds[i] < 0) {
            q->blocked_fds[i] = fd;
            break;
        }
        if (!is_add && q->blocked_fds[i] == fd)
            q->blocked_fds[i] = -1;
    }
    pthread_mutex_unlock(&q->block_lock);
    return is_open;
}

static void set_timeout(redisContext *c, unsigned long long ms)
{
    struct timeval tv = {.tv_sec = (time_t)(ms / 1000), .tv_usec = (long)(ms % 1000) * 1000};
    redisSetTimeout(c, tv);
}

/* Waits in XREADGROUP BLOCK for a new entry of the lanes, at most ms: Redis hands each new entry
 * to one blocked consumer (no herd of claimers woken per entry). NULL: none came (or an error). */
static redisReply *read_blocking(struct rq *q, struct rq_conn *c, unsigned lanes, unsigned ms)
{
    const char *argv[9 + 2 * RQ_LANES] = {"XREADGROUP", "GROUP", RQ_GROUP, q->node,  "COUNT",
                                          "1",          "BLOCK", NULL,     "STREAMS"};
    char block[16], names[RQ_LANES][64];
    snprintf(block, sizeof(block), "%u", ms);
    argv[7] = block;
    int n = 9, k = 0;
    for (int l = 0; l < RQ_LANES; l++) {
        if (lanes & (1u << l)) {
            snprintf(names[k], sizeof(names[k]), "%sjobs:%s", q->prefix, lane_names[l]);
            argv[n++] = names[k++];
        }
    }
    for (int i = 0; i < k; i++)
        argv[n++] = ">";
    set_timeout(c->c, (unsigned long long)ms + (unsigned long long)q->pool.timeout_ms);
    redisReply *r = NULL;
    if (block_fd(q, c->c->fd, true)) {
        r = redisCommandArgv(c->c, n, argv, NULL);
        block_fd(q, c->c->fd, false);
    }
    if (!c->c->err)
        set_timeout(c->c, (unsigned long long)q->pool.timeout_ms);
    if (r && r->type != REDIS_REPLY_ARRAY) {
        if (r->type == REDIS_REPLY_ERROR)
            script_error(q, "XREADGROUP", r);
        freeReplyObject(r);
        r = NULL;
    }
    return r;
}

static bool is_closed(struct rq *q)
{
    pthread_mutex_lock(&q->block_lock);
    bool closed = q->is_closed;
    pthread_mutex_unlock(&q->block_lock);
    return closed;
}

/* How long an idle claimer blocks before it sweeps the pending list for takeovers again. */
static unsigned sweep_ms(const struct rq *q)
{
    uint64_t v = q->base.cfg.visibility_ms / 4;
    return v < 50 ? 50 : v > 1000 ? 1000 : (unsigned)v;
}

static int lane_index(const struct rq *q, const char *stream)
{
    size_t pl = strlen(q->prefix);
    return strncmp(stream, q->prefix, pl) == 0 && strcmp(stream + pl, "jobs:js") == 0;
}

static bool older(const char *a, const char *b)
{
    unsigned long long am = 0, as = 0, bm = 0, bs = 0;
    sscanf(a, "%llu-%llu", &am, &as);
    sscanf(b, "%llu-%llu", &bm, &bs);
    return am != bm ? am < bm : as < bs;
}

/* Starts the oldest entry of an XREADGROUP reply and gives the others back (a read of two
 * lanes may bring one of each); returns the start's reply (a claim, or again). */
static redisReply *start_read(struct rq *q, struct rq_conn *c, const redisReply *read)
{
    int best = -1;
    const char *ids[RQ_LANES] = {NULL};
    for (size_t i = 0; i < read->elements && i < RQ_LANES; i++) {
        const redisReply *s = read->element[i];
        if (s->type != REDIS_REPLY_ARRAY || s->elements != 2 ||
            s->element[1]->type != REDIS_REPLY_ARRAY || s->element[1]->elements == 0 ||
            s->element[1]->element[0]->type != REDIS_REPLY_ARRAY ||
            s->element[1]->element[0]->elements < 1)
            continue;
        int lane = lane_index(q, s->element[0]->str);
        ids[lane] = s->element[1]->element[0]->element[0]->str;
        if (best < 0 || older(ids[lane], ids[best]))
            best = lane;
    }
    for (int l = 0; l < RQ_LANES; l++) {
        if (ids[l] && l != best)
            freeReplyObject(claim_script(q, c, "requeue", 1u << l, ids[l]));
    }
    return best >= 0 ? claim_script(q, c, "start", 1u << best, ids[best]) : NULL;
}

/* One claim attempt on c: OK (out filled), EMPTY (nothing, after waiting up to a sweep period),
 * UNAVAILABLE, NOMEM. */
static enum serve_q_rc claim_once(struct rq *q, struct rq_conn *c, unsigned lanes,
                                  uint64_t deadline, struct serve_claim *out, int *lane)
{
    redisReply *r = claim_script(q, c, "claim", lanes, "");
    uint64_t now = rq_now_ms();
    if (!strcmp(rq_str(r, 0), "empty") && now < deadline) {
        uint64_t left = deadline - now;
        unsigned ms = left < sweep_ms(q) ? (unsigned)left : sweep_ms(q);
        redisReply *read = read_blocking(q, c, lanes, ms);
        freeReplyObject(r);
        r = read && !c->c->err ? start_read(q, c, read) : NULL;
        freeReplyObject(read);
        if (!r)
            return c->c->err ? SERVE_Q_UNAVAILABLE : SERVE_Q_EMPTY;
    }
    const char *what = rq_str(r, 0);
    enum serve_q_rc rc = SERVE_Q_EMPTY;
    if (!strcmp(what, "claim"))
        rc = claim_from(r, out, lane) ? SERVE_Q_OK : SERVE_Q_NOMEM;
    else if (strcmp(what, "again") != 0 && strcmp(what, "empty") != 0)
        rc = script_error(q, "claim", r);
    freeReplyObject(r);
    return rc;
}

static enum serve_q_rc rq_claim(struct serve_queue *base, const char *consumer, unsigned lanes,
                                int timeout_ms, serve_cancel_fn on_cancel, void *cancel_user,
                                struct serve_claim *out)
{
    (void)consumer; /* Redis knows consumers by node: serve_queue_redis_create's */
    struct rq *q = (struct rq *)base;
    memset(out, 0, sizeof(*out));
    uint64_t deadline = rq_now_ms() + (timeout_ms > 0 ? (uint64_t)timeout_ms : 0);
    lanes &= (1u << RQ_LANES) - 1;
    if (!lanes)
        return SERVE_Q_EMPTY;
    for (;;) {
        if (is_closed(q))
            return SERVE_Q_CLOSED;
        struct rq_conn *c = rq_get(&q->pool);
        enum serve_q_rc rc = SERVE_Q_UNAVAILABLE;
        int lane = 0;
        if (c) {
            rc = claim_once(q, c, lanes, deadline, out, &lane);
            if (is_closed(q) && c->c->err) { /* woken by close(): not a Redis failure */
                redisFree(c->c);
                free(c);
                c = NULL;
            }
            rq_put(&q->pool, c);
        }
        if (rc == SERVE_Q_OK) {
            struct rq_local *l = calloc(1, sizeof(*l));
            if (!l) {
                serve_queue_claim_free(out);
                return SERVE_Q_NOMEM; /* unheartbeated: another worker takes it over */
            }
            memcpy(l->id, out->id, SERVE_ID_MAX);
            l->attempt = out->attempt;
            l->lane = lane;
            snprintf(l->entry, sizeof(l->entry), "%s", out->ref);
            l->on_cancel = on_cancel;
            l->cancel_user = cancel_user;
            rq_local_add(q, l);
            return SERVE_Q_OK;
        }
        if (rc == SERVE_Q_NOMEM || rq_now_ms() >= deadline)
            return rc == SERVE_Q_EMPTY || rc == SERVE_Q_NOMEM ? rc : SERVE_Q_UNAVAILABLE;
        if (rc == SERVE_Q_UNAVAILABLE) {
            uint64_t left = deadline - rq_now_ms();
            sleep_ms(left < 100 ? (unsigned)left : 100); /* Redis away: no spinning */
        }
    }
}

/* Runs a script for a claim: argv after the prefix, id and attempt. */
static redisReply *claim_eval(struct rq *q, enum rq_script s, const struct serve_claim *cl,
                              int argc, const char **more, const size_t *more_lens)
{
    struct rq_conn *c = rq_get(&q->pool);
    if (!c)
        return NULL;
    char att[24];
    num(att, sizeof(att), cl->attempt);
    const char *argv[12] = {q->prefix, cl->id, att};
    size_t lens[12] = {strlen(q->prefix), strlen(cl->id), strlen(att)};
    for (int i = 0; i < argc && i < 9; i++) {
        argv[3 + i] = more[i];
        lens[3 + i] = more_lens ? more_lens[i] : strlen(more[i]);
    }
    redisReply *r = rq_eval(&q->pool, c, s, 3 + argc, argv, lens);
    rq_put(&q->pool, c);
    return r;
}

static enum serve_q_rc rq_heartbeat(struct serve_queue *base, const struct serve_claim *cl)
{
    struct rq *q = (struct rq *)base;
    const char *more[] = {q->node, lane_names[lane_of(cl->flags)], cl->ref};
    redisReply *r = claim_eval(q, RQ_HEARTBEAT, cl, 3, more, NULL);
    enum serve_q_rc rc = is_reply(r, "ok")          ? SERVE_Q_OK
                         : is_reply(r, "stale")     ? SERVE_Q_STALE
                         : is_reply(r, "cancelled") ? SERVE_Q_CANCELLED
                                                    : script_error(q, "heartbeat", r);
    freeReplyObject(r);
    return rc;
}

static enum serve_q_rc rq_publish(struct serve_queue *base, const struct serve_claim *cl,
                                  enum serve_ev_kind kind, const void *data, size_t len)
{
    struct rq *q = (struct rq *)base;
    if (!(cl->flags & SERVE_JOB_EVENTS) || kind == SERVE_EV_RESULT)
        return SERVE_Q_OK; /* nobody may read them: no round trip (complete() fences) */
    char k[24], evb[24], evn[24];
    num(k, sizeof(k), (uint64_t)kind);
    num(evb, sizeof(evb), base->cfg.events_max_bytes);
    num(evn, sizeof(evn), EVENTS_MAX);
    const char *more[] = {k, data, evb, evn};
    size_t lens[] = {strlen(k), len, strlen(evb), strlen(evn)};
    redisReply *r = claim_eval(q, RQ_PUBLISH, cl, 4, more, lens);
    enum serve_q_rc rc = is_reply(r, "ok")      ? SERVE_Q_OK
                         : is_reply(r, "stale") ? SERVE_Q_STALE
                                                : script_error(q, "publish", r);
    freeReplyObject(r);
    return rc;
}

/* A result is retried while Redis is away, for up to a visibility period: past it the claim
 * has likely been taken over, and the run goes on elsewhere (the heartbeats go on meanwhile). */
static enum serve_q_rc rq_complete(struct serve_queue *base, const struct serve_claim *cl,
                                   const char *result_json, size_t len)
{
    struct rq *q = (struct rq *)base;
    char ttl[24], rmax[24], rbmax[24];
    num(ttl, sizeof(ttl), base->cfg.result_ttl_ms);
    num(rmax, sizeof(rmax), base->cfg.results_max);
    num(rbmax, sizeof(rbmax), base->cfg.results_max_bytes);
    const char *more[] = {result_json, ttl, rmax, rbmax, q->node};
    size_t lens[] = {len, strlen(ttl), strlen(rmax), strlen(rbmax), strlen(q->node)};
    uint64_t until = rq_now_ms() + base->cfg.visibility_ms;
    enum serve_q_rc rc;
    for (unsigned pause = 50;; pause = pause < 1000 ? pause * 2 : 1000) {
        redisReply *r = claim_eval(q, RQ_COMPLETE, cl, 5, more, lens);
        rc = is_reply(r, "ok")      ? SERVE_Q_OK
             : is_reply(r, "stale") ? SERVE_Q_STALE
                                    : script_error(q, "complete", r);
        freeReplyObject(r);
        if (rc != SERVE_Q_UNAVAILABLE || rq_now_ms() + pause > until || is_closed(q))
            break;
        sleep_ms(pause);
    }
    rq_local_remove(q, cl->id, cl->attempt);
    __atomic_add_fetch(rc == SERVE_Q_OK ? &q->completes_n : &q->stale_n, 1, __ATOMIC_RELAXED);
    return rc;
}

static enum serve_q_rc rq_cancel(struct serve_queue *base, const char *id, const char *aborted_json,
                                 enum serve_q_status *found)
{
    struct rq *q = (struct rq *)base;
    struct rq_conn *c = rq_get(&q->pool);
    if (!c)
        return SERVE_Q_UNAVAILABLE;
    char ttl[24], rmax[24], rbmax[24];
    num(ttl, sizeof(ttl), base->cfg.result_ttl_ms);
    num(rmax, sizeof(rmax), base->cfg.results_max);
    num(rbmax, sizeof(rbmax), base->cfg.results_max_bytes);
    const char *argv[] = {q->prefix, id, aborted_json, ttl, rmax, rbmax};
    size_t lens[6];
    for (int i = 0; i < 6; i++)
        lens[i] = strlen(argv[i]);
    redisReply *r = rq_eval(&q->pool, c, RQ_CANCEL, 6, argv, lens);
    enum serve_q_rc rc = SERVE_Q_OK;
    if (is_reply(r, "queued"))
        *found = SERVE_Q_QUEUED;
    else if (is_reply(r, "running"))
        *found = SERVE_Q_RUNNING;
    else if (is_reply(r, "done"))
        *found = SERVE_Q_DONE;
    else
        rc = is_reply(r, "none") ? SERVE_Q_NOT_FOUND : script_error(q, "cancel", r);
    freeReplyObject(r);
    rq_put(&q->pool, c);
    return rc;
}

static enum serve_q_status status_of(const char *s)
{
    return !strcmp(s, "done")      ? SERVE_Q_DONE
           : !strcmp(s, "running") ? SERVE_Q_RUNNING
                                   : SERVE_Q_QUEUED;
}

static enum serve_q_rc rq_get_run(struct serve_queue *base, const char *id,
                                  enum serve_q_status *status, char key_name[SERVE_KEY_NAME_MAX],
                                  char **result_json, size_t *len)
{
    struct rq *q = (struct rq *)base;
    *result_json = NULL;
    *len = 0;
    struct rq_conn *c = rq_get(&q->pool);
    if (!c)
        return SERVE_Q_UNAVAILABLE;
    redisReply *r = redisCommand(c->c, "HMGET %srun:%s status key result", q->prefix, id);
    rq_put(&q->pool, c);
    enum serve_q_rc rc = SERVE_Q_UNAVAILABLE;
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 3) {
        rc = *rq_str(r, 0) ? SERVE_Q_OK : SERVE_Q_NOT_FOUND;
        if (rc == SERVE_Q_OK) {
            *status = status_of(rq_str(r, 0));
            if (key_name)
                snprintf(key_name, SERVE_KEY_NAME_MAX, "%s", rq_str(r, 1));
        }
        const redisReply *res = r->element[2];
        if (rc == SERVE_Q_OK && *status == SERVE_Q_DONE && res->type == REDIS_REPLY_STRING) {
            *result_json = malloc(res->len + 1);
            if (!*result_json) {
                rc = SERVE_Q_NOMEM;
            } else {
                memcpy(*result_json, res->str, res->len);
                (*result_json)[res->len] = '\0';
                *len = res->len;
            }
        }
    } else if (r) {
        script_error(q, "get", r);
    }
    freeReplyObject(r);
    return rc;
}

static void rq_close(struct serve_queue *base)
{
    struct rq *q = (struct rq *)base;
    pthread_mutex_lock(&q->block_lock);
    q->is_closed = true;
    for (size_t i = 0; i < sizeof(q->blocked_fds) / sizeof(q->blocked_fds[0]); i++) {
        if (q->blocked_fds[i] >= 0)
            shutdown(q->blocked_fds[i], SHUT_RDWR); /* the XREAD returns now */
    }
    pthread_mutex_unlock(&q->block_lock);
}

static uint64_t reply_u64(const redisReply *r)
{
    if (!r)
        return 0;
    if (r->type == REDIS_REPLY_INTEGER)
        return r->integer > 0 ? (uint64_t)r->integer : 0;
    if (r->type == REDIS_REPLY_STRING) {
        long long v = strtoll(r->str, NULL, 10);
        return v > 0 ? (uint64_t)v : 0;
    }
    return 0;
}

static void rq_stats(struct serve_queue *base, struct serve_q_stats *out)
{
    struct rq *q = (struct rq *)base;
    memset(out, 0, sizeof(*out));
    struct rq_conn *c = rq_get(&q->pool);
    if (!c)
        return;
    static const char *const names[] = {"queued",    "qbytes", "running", "rbytes",
                                        "takeovers", "claims", "retries", "failed"};
    uint64_t *slots[] = {&out->queued,    &out->queued_bytes, &out->running, &out->result_bytes,
                         &out->takeovers, &out->claims,       &out->retries, &out->failed};
    enum { N = sizeof(names) / sizeof(names[0]) };
    char keys[N][48];
    const char *argv[N + 1] = {"MGET"};
    for (int i = 0; i < N; i++) {
        snprintf(keys[i], sizeof(keys[i]), "%sn:%s", q->prefix, names[i]);
        argv[i + 1] = keys[i];
    }
    redisAppendCommandArgv(c->c, N + 1, argv, NULL);
    redisAppendCommand(c->c, "ZCARD %sdone", q->prefix);
    redisReply *m = NULL, *z = NULL;
    if (redisGetReply(c->c, (void **)&m) == REDIS_OK &&
        redisGetReply(c->c, (void **)&z) == REDIS_OK && m->type == REDIS_REPLY_ARRAY &&
        m->elements == N) {
        for (int i = 0; i < N; i++)
            *slots[i] = reply_u64(m->element[i]);
        out->results = reply_u64(z);
        out->is_healthy = true;
    }
    freeReplyObject(m);
    freeReplyObject(z);
    rq_put(&q->pool, c);
}

/* Runs completed per node (from Redis: every node's), and this node's own claims. */
static void rq_metrics(struct serve_queue *base, FILE *out)
{
    struct rq *q = (struct rq *)base;
    fprintf(out,
            "# HELP sbx_serve_queue_node_claims_total Claims this node made (every attempt).\n"
            "# TYPE sbx_serve_queue_node_claims_total counter\n"
            "sbx_serve_queue_node_claims_total{node=\"%s\"} %llu\n"
            "# HELP sbx_serve_queue_node_stale_total Results of this node refused by the fence "
            "(its claim had been taken over).\n"
            "# TYPE sbx_serve_queue_node_stale_total counter\n"
            "sbx_serve_queue_node_stale_total{node=\"%s\"} %llu\n",
            q->node, (unsigned long long)__atomic_load_n(&q->claims_n, __ATOMIC_RELAXED), q->node,
            (unsigned long long)__atomic_load_n(&q->stale_n, __ATOMIC_RELAXED));
    struct rq_conn *c = rq_get(&q->pool);
    redisReply *r = c ? redisCommand(c->c, "HGETALL %sn:nodes", q->prefix) : NULL;
    rq_put(&q->pool, c);
    if (r && r->type == REDIS_REPLY_ARRAY) {
        fprintf(out, "# HELP sbx_serve_queue_runs_completed_total Runs completed, by the worker "
                     "node that ran them (every node's, from Redis).\n"
                     "# TYPE sbx_serve_queue_runs_completed_total counter\n");
        for (size_t i = 0; i + 1 < r->elements; i += 2) {
            if (strpbrk(rq_str(r, i), "\"\\\n"))
                continue; /* not a name this code makes */
            fprintf(out, "sbx_serve_queue_runs_completed_total{node=\"%s\"} %s\n", rq_str(r, i),
                    rq_str(r, i + 1));
        }
    }
    freeReplyObject(r);
}

static void rq_destroy(struct serve_queue *base)
{
    struct rq *q = (struct rq *)base;
    rq_close(base);
    rq_threads_stop(q);
    while (q->claims) {
        struct rq_local *next = q->claims->next;
        free(q->claims);
        q->claims = next;
    }
    rq_pool_destroy(&q->pool);
    pthread_mutex_destroy(&q->claims_lock);
    pthread_mutex_destroy(&q->block_lock);
    free(q);
}

static const struct serve_queue_ops redis_ops = {
    .name = "redis",
    .enqueue = rq_enqueue,
    .claim = rq_claim,
    .heartbeat = rq_heartbeat,
    .publish = rq_publish,
    .complete = rq_complete,
    .cancel = rq_cancel,
    .get = rq_get_run,
    .subscribe = rq_subscribe,
    .unsubscribe = rq_unsubscribe,
    .close = rq_close,
    .stats = rq_stats,
    .metrics = rq_metrics,
    .destroy = rq_destroy,
};

enum serve_q_rc serve_queue_redis_create(const char *url, const char *node,
                                         const struct serve_queue_config *cfg,
                                         struct serve_queue **out, char *err, size_t errlen)
{
    struct rq_addr addr;
    if (!rq_addr_parse(url, &addr, err, errlen))
        return SERVE_Q_UNAVAILABLE;
    struct rq *q = calloc(1, sizeof(*q));
    if (!q) {
        snprintf(err, errlen, "out of memory");
        return SERVE_Q_NOMEM;
    }
    q->base.ops = &redis_ops;
    q->base.cfg = *cfg;
    if (q->base.cfg.max_attempts == 0)
        q->base.cfg.max_attempts = 1;
    rq_pool_init(&q->pool, &addr);
    snprintf(q->node, sizeof(q->node), "%s", node && *node ? node : "node");
    for (char *ch = q->node; *ch; ch++) { /* a consumer name and a metrics label */
        if (!isalnum((unsigned char)*ch) && !strchr("._:-", *ch))
            *ch = '_';
    }
    snprintf(q->prefix, sizeof(q->prefix), "sbx:");
    /* sbx_err_name(SBX_E_RUNNER_DIED) once serve's error code is on main */
    snprintf(q->failed_code, sizeof(q->failed_code), "SANDBOX_RUNNER_DIED");
    pthread_mutex_init(&q->claims_lock, NULL);
    pthread_mutex_init(&q->block_lock, NULL);
    for (size_t i = 0; i < sizeof(q->blocked_fds) / sizeof(q->blocked_fds[0]); i++)
        q->blocked_fds[i] = -1;
    if (!rq_threads_start(q)) {
        snprintf(err, errlen, "cannot start the queue's threads: %s", strerror(errno));
        rq_destroy(&q->base);
        return SERVE_Q_NOMEM;
    }
    *out = &q->base;
    return SERVE_Q_OK;
}

/* serve/queue_redis_sub.c: the Redis queue's two threads.
 * - Pub/sub: one connection per process listens to `cancel` (a DELETE on any API node reaches
 *   the worker that runs the run: on_cancel) and to `ch:ID` for each run a local subscriber
 *   follows. A subscription waits until Redis confirmed its channel, then replays the run's kept
 *   events after after_seq and reads its status (done: the result alone), while live messages
 *   are held back; sequence numbers drop what both gave. After a reconnect every subscription
 *   replays the same way, so a Redis restart loses no event a subscriber waits for.
 * - Heartbeats: every visibility/3 each claim this process holds is renewed (pipelined, one round
 *   trip for all). A claim found stale (taken over) or cancelled gets its on_cancel once. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "serve/clock.h"
#include "serve/queue_redis.h"

enum chan_state { CH_WANT, CH_SENT, CH_ACTIVE, CH_LEAVING };

struct rq_chan {
    char id[SERVE_ID_MAX];
    enum chan_state state;
    bool needs_sync; /* subscribed again after a reconnect: its subscriptions replay */
    struct serve_sub *subs;
    struct rq_chan *next;
};

struct pend { /* a live event held back while its subscription replays */
    uint64_t seq;
    uint32_t attempt;
    int kind;
    char *data;
    size_t len;
    struct pend *next;
};

struct serve_sub {
    struct rq *q;
    struct rq_chan *chan; /* NULL once detached (result given, unsubscribed) */
    char id[SERVE_ID_MAX];
    serve_event_fn fn;
    void *user;
    bool is_result_only, is_replaying, is_done, is_gone;
    uint64_t last_seq;
    int refs;
    struct pend *pend, *pend_tail;
    struct serve_sub *next;
};

static void wake(struct rq *q)
{
    uint64_t one = 1;
    ssize_t n = write(q->wake_fd, &one, sizeof(one));
    (void)n; /* a counter already non-zero wakes the thread just as well */
}

static struct rq_chan *find_chan(struct rq *q, const char *id)
{
    for (struct rq_chan *c = q->chans; c; c = c->next) {
        if (strcmp(c->id, id) == 0)
            return c;
    }
    return NULL;
}

static void free_pend(struct serve_sub *s)
{
    while (s->pend) {
        struct pend *next = s->pend->next;
        free(s->pend->data);
        free(s->pend);
        s->pend = next;
    }
    s->pend_tail = NULL;
}

static void detach(struct rq *q, struct serve_sub *s) /* sub_lock held */
{
    struct rq_chan *c = s->chan;
    if (!c)
        return;
    for (struct serve_sub **pp = &c->subs; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    s->chan = NULL;
    s->next = NULL;
    if (!c->subs)
        wake(q); /* the channel may go */
}

static void unref(struct serve_sub *s) /* sub_lock held */
{
    if (--s->refs > 0)
        return;
    free_pend(s);
    free(s);
}

/* Gives an event to s if it is new to it; the lock is held. */
static void deliver(struct rq *q, struct serve_sub *s, uint64_t seq, uint32_t attempt, int kind,
                    const char *data, size_t len)
{
    if (s->is_done || s->is_gone || (s->is_result_only && kind != SERVE_EV_RESULT))
        return;
    if (kind != SERVE_EV_RESULT && seq <= s->last_seq)
        return;
    struct serve_event ev = {
        .seq = seq, .attempt = attempt, .kind = (enum serve_ev_kind)kind, .data = data, .len = len};
    s->fn(s->user, &ev);
    if (seq > s->last_seq)
        s->last_seq = seq;
    if (kind == SERVE_EV_RESULT) {
        s->is_done = true;
        detach(q, s);
    }
}

static void hold(struct serve_sub *s, uint64_t seq, uint32_t attempt, int kind, const char *data,
                 size_t len)
{
    struct pend *p = calloc(1, sizeof(*p));
    char *copy = p ? malloc(len + 1) : NULL;
    if (!copy) {
        free(p);
        return; /* the replay after it gives it, unless it was live-only: its result says all */
    }
    memcpy(copy, data, len);
    copy[len] = '\0';
    *p = (struct pend){.seq = seq, .attempt = attempt, .kind = kind, .data = copy, .len = len};
    if (s->pend_tail)
        s->pend_tail->next = p;
    else
        s->pend = p;
    s->pend_tail = p;
}

/* A snapshot of a run read for a replay. */
struct snap {
    redisReply *hash, *events; /* HMGET status seq result attempt; XRANGE */
};

static bool read_snap(struct rq *q, const struct serve_sub *s, uint64_t after, struct snap *sn)
{
    memset(sn, 0, sizeof(*sn));
    struct rq_conn *c = rq_get(&q->pool);
    if (!c)
        return false;
    redisAppendCommand(c->c, "HMGET %srun:%s status seq result attempt", q->prefix, s->id);
    if (!s->is_result_only)
        redisAppendCommand(c->c, "XRANGE %sev:%s (%llu-0 +", q->prefix, s->id,
                           (unsigned long long)after);
    bool is_ok = redisGetReply(c->c, (void **)&sn->hash) == REDIS_OK &&
                 (s->is_result_only || redisGetReply(c->c, (void **)&sn->events) == REDIS_OK);
    rq_put(&q->pool, c);
    is_ok = is_ok && sn->hash->type == REDIS_REPLY_ARRAY && sn->hash->elements == 4;
    if (!is_ok) {
        freeReplyObject(sn->hash);
        freeReplyObject(sn->events);
    }
    return is_ok;
}

/* Delivers a snapshot's events to s, then what was held back; the lock is held. */
static void apply_snap(struct rq *q, struct serve_sub *s, const struct snap *sn)
{
    const redisReply *ev = sn->events;
    for (size_t i = 0; ev && ev->type == REDIS_REPLY_ARRAY && i < ev->elements; i++) {
        const redisReply *e = ev->element[i];
        if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 ||
            e->element[1]->type != REDIS_REPLY_ARRAY || e->element[1]->elements != 6)
            continue;
        const redisReply *f = e->element[1]; /* k KIND a ATTEMPT d DATA */
        deliver(q, s, strtoull(e->element[0]->str, NULL, 10),
                (uint32_t)strtoul(f->element[3]->str, NULL, 10),
                (int)strtol(f->element[1]->str, NULL, 10), f->element[5]->str, f->element[5]->len);
    }
    if (!strcmp(rq_str(sn->hash, 0), "done") && sn->hash->element[2]->type == REDIS_REPLY_STRING)
        deliver(q, s, strtoull(rq_str(sn->hash, 1), NULL, 10),
                (uint32_t)strtoul(rq_str(sn->hash, 3), NULL, 10), SERVE_EV_RESULT,
                sn->hash->element[2]->str, sn->hash->element[2]->len);
    for (struct pend *p = s->pend; p; p = p->next)
        deliver(q, s, p->seq, p->attempt, p->kind, p->data, p->len);
    free_pend(s);
    s->is_replaying = false;
}

/* Replays s: NOT_FOUND when the run is unknown, UNAVAILABLE when Redis did not answer. */
static enum serve_q_rc sync_sub(struct rq *q, struct serve_sub *s)
{
    pthread_mutex_lock(&q->sub_lock);
    uint64_t after = s->last_seq;
    s->refs++;
    pthread_mutex_unlock(&q->sub_lock);
    struct snap sn;
    bool is_ok = read_snap(q, s, after, &sn);
    pthread_mutex_lock(&q->sub_lock);
    enum serve_q_rc rc = !is_ok                 ? SERVE_Q_UNAVAILABLE
                         : !*rq_str(sn.hash, 0) ? SERVE_Q_NOT_FOUND
                                                : SERVE_Q_OK;
    if (rc == SERVE_Q_OK && !s->is_gone)
        apply_snap(q, s, &sn);
    unref(s);
    pthread_mutex_unlock(&q->sub_lock);
    if (is_ok) {
        freeReplyObject(sn.hash);
        freeReplyObject(sn.events);
    }
    return rc;
}

/* Waits (lock held) until s's channel is active, up to the command timeout. */
static bool wait_active(struct rq *q, struct serve_sub *s)
{
    struct timespec until = serve_deadline(CLOCK_MONOTONIC, (uint64_t)q->pool.timeout_ms);
    while (s->chan && s->chan->state != CH_ACTIVE) {
        if (pthread_cond_timedwait(&q->sub_cond, &q->sub_lock, &until) != 0)
            break;
    }
    return s->chan && s->chan->state == CH_ACTIVE;
}

/* Whether run id exists: OK, NOT_FOUND, UNAVAILABLE. */
static enum serve_q_rc run_exists(struct rq *q, const char *id)
{
    struct rq_conn *c = rq_get(&q->pool);
    if (!c)
        return SERVE_Q_UNAVAILABLE;
    redisReply *r = redisCommand(c->c, "EXISTS %srun:%s", q->prefix, id);
    rq_put(&q->pool, c);
    enum serve_q_rc rc = !r || r->type != REDIS_REPLY_INTEGER ? SERVE_Q_UNAVAILABLE
                         : r->integer                         ? SERVE_Q_OK
                                                              : SERVE_Q_NOT_FOUND;
    freeReplyObject(r);
    return rc;
}

/* Adds s to its run's channel (made if new) and asks the pub/sub thread for it; the lock is
 * held. False on NOMEM. */
static bool join_chan(struct rq *q, struct serve_sub *s)
{
    struct rq_chan *c = find_chan(q, s->id);
    if (!c && (c = calloc(1, sizeof(*c)))) {
        memcpy(c->id, s->id, SERVE_ID_MAX);
        c->state = CH_WANT;
        c->next = q->chans;
        q->chans = c;
    }
    if (!c)
        return false;
    s->chan = c;
    s->next = c->subs;
    c->subs = s;
    if (c->state != CH_ACTIVE)
        wake(q);
    return true;
}

/* A run known to exist gets a subscription even while the pub/sub connection is not (yet)
 * listening: its replay then happens when Redis confirms the channel (so a waiting request is
 * not left without its result because that connection was slow to come back). */
enum serve_q_rc rq_subscribe(struct serve_queue *base, const char *id, uint64_t after_seq,
                             bool result_only, serve_event_fn fn, void *user,
                             struct serve_sub **out)
{
    struct rq *q = (struct rq *)base;
    enum serve_q_rc rc = serve_id_valid(id) ? run_exists(q, id) : SERVE_Q_NOT_FOUND;
    struct serve_sub *s = rc == SERVE_Q_OK ? calloc(1, sizeof(*s)) : NULL;
    if (!s)
        return rc == SERVE_Q_OK ? SERVE_Q_NOMEM : rc;
    *s = (struct serve_sub){.q = q,
                            .fn = fn,
                            .user = user,
                            .is_result_only = result_only,
                            .is_replaying = true,
                            .last_seq = after_seq,
                            .refs = 1};
    memcpy(s->id, id, SERVE_ID_MAX);
    pthread_mutex_lock(&q->sub_lock);
    bool is_joined = join_chan(q, s), is_active = is_joined && wait_active(q, s);
    if (is_joined && !is_active)
        s->chan->needs_sync = true; /* on_confirm replays it */
    pthread_mutex_unlock(&q->sub_lock);
    rc = !is_joined ? SERVE_Q_NOMEM : is_active ? sync_sub(q, s) : SERVE_Q_OK;
    if (rc != SERVE_Q_OK) {
        rq_unsubscribe(base, s);
        return rc;
    }
    *out = s;
    return SERVE_Q_OK;
}

void rq_unsubscribe(struct serve_queue *base, struct serve_sub *s)
{
    struct rq *q = (struct rq *)base;
    if (!s)
        return;
    pthread_mutex_lock(&q->sub_lock);
    s->is_gone = true;
    detach(q, s);
    unref(s);
    pthread_mutex_unlock(&q->sub_lock);
}

/* ---- the pub/sub connection ----------------------------------------------------------------- */

/* "SEQ ATTEMPT KIND\n" DATA on ch:ID: to that channel's subscriptions. */
static void on_run_message(struct rq *q, const char *id, const char *msg, size_t len)
{
    const char *nl = memchr(msg, '\n', len);
    unsigned long long seq;
    unsigned attempt;
    int kind;
    if (!nl || sscanf(msg, "%llu %u %d", &seq, &attempt, &kind) != 3)
        return;
    const char *data = nl + 1;
    size_t dlen = len - (size_t)(data - msg);
    pthread_mutex_lock(&q->sub_lock);
    struct rq_chan *c = find_chan(q, id);
    for (struct serve_sub *s = c ? c->subs : NULL, *next; s; s = next) {
        next = s->next;
        if (s->is_replaying) {
            if (!s->is_result_only || kind == SERVE_EV_RESULT)
                hold(s, seq, attempt, kind, data, dlen);
        } else {
            deliver(q, s, seq, attempt, kind, data, dlen);
        }
    }
    pthread_mutex_unlock(&q->sub_lock);
}

/* "ID ATTEMPT" on cancel: the local claim's on_cancel, once. */
static void on_cancel_message(struct rq *q, const char *msg)
{
    char id[SERVE_ID_MAX];
    unsigned attempt;
    if (sscanf(msg, "%26s %u", id, &attempt) != 2)
        return;
    pthread_mutex_lock(&q->claims_lock);
    for (struct rq_local *l = q->claims; l; l = l->next) {
        if (!strcmp(l->id, id) && l->attempt == attempt && !l->is_told) {
            l->is_told = true;
            if (l->on_cancel) {
                struct serve_claim c = {.attempt = l->attempt};
                memcpy(c.id, l->id, SERVE_ID_MAX);
                snprintf(c.ref, sizeof(c.ref), "%s", l->entry);
                l->on_cancel(l->cancel_user, &c);
            }
        }
    }
    pthread_mutex_unlock(&q->claims_lock);
}

static struct rq_chan *chan_of(struct rq *q, const char *channel)
{
    size_t pl = strlen(q->prefix);
    if (strncmp(channel, q->prefix, pl) != 0 || strncmp(channel + pl, "ch:", 3) != 0)
        return NULL;
    return find_chan(q, channel + pl + 3);
}

/* A confirmation of (un)subscribe for a run's channel; the lock is held. Returns true when the
 * channel's subscriptions must replay (it came back after a reconnect). */
static bool on_confirm(struct rq *q, const char *what, const char *channel)
{
    struct rq_chan *c = chan_of(q, channel), **pp;
    if (!c)
        return false;
    if (!strcmp(what, "subscribe")) {
        c->state = CH_ACTIVE;
        pthread_cond_broadcast(&q->sub_cond);
        bool is_sync = c->needs_sync && c->subs;
        c->needs_sync = false;
        return is_sync;
    }
    if (c->subs) { /* someone came back meanwhile: subscribe again */
        c->state = CH_WANT;
        return false;
    }
    for (pp = &q->chans; *pp != c; pp = &(*pp)->next)
        ;
    *pp = c->next;
    free(c);
    return false;
}

/* Replays every subscription of the channel named (after a reconnect). */
static void resync(struct rq *q, const char *id)
{
    for (;;) {
        pthread_mutex_lock(&q->sub_lock);
        struct rq_chan *c = find_chan(q, id);
        struct serve_sub *s = NULL;
        for (struct serve_sub *t = c ? c->subs : NULL; t && !s; t = t->next)
            s = t->is_replaying && !t->is_gone ? t : NULL;
        if (s)
            s->refs++;
        pthread_mutex_unlock(&q->sub_lock);
        if (!s)
            return;
        if (sync_sub(q, s) == SERVE_Q_UNAVAILABLE) {
            pthread_mutex_lock(&q->sub_lock);
            s->is_replaying = false; /* Redis went again: the next reconnect replays it */
            unref(s);
            pthread_mutex_unlock(&q->sub_lock);
            return;
        }
        pthread_mutex_lock(&q->sub_lock);
        unref(s);
        pthread_mutex_unlock(&q->sub_lock);
    }
}

static void on_reply(struct rq *q, const redisReply *r)
{
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 3)
        return;
    const char *what = rq_str(r, 0), *channel = rq_str(r, 1);
    if (!strcmp(what, "message")) {
        char cancel[64];
        snprintf(cancel, sizeof(cancel), "%scancel", q->prefix);
        const redisReply *m = r->element[2];
        size_t pl = strlen(q->prefix);
        if (!strcmp(channel, cancel))
            on_cancel_message(q, m->str);
        else if (!strncmp(channel, q->prefix, pl) && !strncmp(channel + pl, "ch:", 3))
            on_run_message(q, channel + pl + 3, m->str, m->len);
        return;
    }
    if (strcmp(what, "subscribe") != 0 && strcmp(what, "unsubscribe") != 0)
        return;
    pthread_mutex_lock(&q->sub_lock);
    bool is_sync = on_confirm(q, what, channel);
    pthread_mutex_unlock(&q->sub_lock);
    if (is_sync)
        resync(q, channel + strlen(q->prefix) + 3);
}

/* Appends the (un)subscriptions the channels want to ctx; the lock is held. */
static void queue_commands(struct rq *q, redisContext *ctx)
{
    for (struct rq_chan **pp = &q->chans; *pp;) {
        struct rq_chan *c = *pp;
        if (c->subs && c->state == CH_WANT) {
            redisAppendCommand(ctx, "SUBSCRIBE %sch:%s", q->prefix, c->id);
            c->state = CH_SENT;
        } else if (!c->subs && c->state == CH_ACTIVE) {
            redisAppendCommand(ctx, "UNSUBSCRIBE %sch:%s", q->prefix, c->id);
            c->state = CH_LEAVING;
        } else if (!c->subs && c->state == CH_WANT) {
            *pp = c->next; /* never subscribed */
            free(c);
            continue;
        }
        pp = &c->next;
    }
}

/* A new connection: every channel with subscribers is wanted again and replays once active;
 * live events wait meanwhile. */
static void relink(struct rq *q, redisContext *ctx)
{
    pthread_mutex_lock(&q->sub_lock);
    q->links++;
    for (struct rq_chan **pp = &q->chans; *pp;) {
        struct rq_chan *c = *pp;
        if (!c->subs) {
            *pp = c->next;
            free(c);
            continue;
        }
        c->state = CH_WANT;
        c->needs_sync = true;
        for (struct serve_sub *s = c->subs; s; s = s->next)
            s->is_replaying = true;
        pp = &c->next;
    }
    redisAppendCommand(ctx, "SUBSCRIBE %scancel", q->prefix);
    pthread_cond_broadcast(&q->sub_cond);
    pthread_mutex_unlock(&q->sub_lock);
}

static bool flush(redisContext *ctx)
{
    int done = 0;
    while (!done) {
        if (redisBufferWrite(ctx, &done) != REDIS_OK)
            return false;
    }
    return true;
}

static bool is_stopping(struct rq *q)
{
    pthread_mutex_lock(&q->sub_lock);
    bool stop = q->is_stopping;
    pthread_mutex_unlock(&q->sub_lock);
    return stop;
}

/* Serves one connection until it fails or the queue stops. */
static void serve_link(struct rq *q, redisContext *ctx)
{
    relink(q, ctx);
    struct pollfd fds[2] = {{.fd = ctx->fd, .events = POLLIN},
                            {.fd = q->wake_fd, .events = POLLIN}};
    while (!is_stopping(q)) {
        pthread_mutex_lock(&q->sub_lock);
        queue_commands(q, ctx);
        pthread_mutex_unlock(&q->sub_lock);
        if (!flush(ctx))
            return;
        if (poll(fds, 2, 1000) < 0 && errno != EINTR)
            return;
        if (fds[1].revents & POLLIN) {
            uint64_t n;
            ssize_t got = read(q->wake_fd, &n, sizeof(n));
            (void)got;
        }
        if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
            if (redisBufferRead(ctx) != REDIS_OK)
                return;
            redisReply *r = NULL;
            while (redisGetReplyFromReader(ctx, (void **)&r) == REDIS_OK && r) {
                on_reply(q, r);
                freeReplyObject(r);
                r = NULL;
            }
            if (ctx->err)
                return;
        }
    }
}

static void *sub_main(void *arg)
{
    struct rq *q = arg;
    unsigned backoff = 100;
    while (!is_stopping(q)) {
        redisContext *ctx = rq_connect(&q->pool);
        if (ctx) {
            backoff = 100;
            serve_link(q, ctx);
            redisFree(ctx);
            continue;
        }
        struct pollfd fd = {.fd = q->wake_fd, .events = POLLIN};
        poll(&fd, 1, (int)backoff);
        backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
    }
    return NULL;
}

/* ---- heartbeats ---------------------------------------------------------------------------- */

struct beat {
    char id[SERVE_ID_MAX], entry[64], att[16];
    uint32_t attempt;
    int lane;
};

static size_t snapshot_claims(struct rq *q, struct beat **out)
{
    pthread_mutex_lock(&q->claims_lock);
    size_t n = 0;
    for (struct rq_local *l = q->claims; l; l = l->next)
        n += !l->is_stale;
    struct beat *b = n ? calloc(n, sizeof(*b)) : NULL;
    size_t i = 0;
    for (struct rq_local *l = q->claims; b && l; l = l->next) {
        if (l->is_stale)
            continue;
        memcpy(b[i].id, l->id, SERVE_ID_MAX);
        memcpy(b[i].entry, l->entry, sizeof(b[i].entry));
        snprintf(b[i].att, sizeof(b[i].att), "%u", l->attempt);
        b[i].attempt = l->attempt;
        b[i++].lane = l->lane;
    }
    pthread_mutex_unlock(&q->claims_lock);
    *out = b;
    return b ? n : 0;
}

/* Tells a claim found stale or cancelled (once); the claims lock is held. */
static void told(struct rq *q, const struct beat *b, bool is_stale)
{
    for (struct rq_local *l = q->claims; l; l = l->next) {
        if (strcmp(l->id, b->id) != 0 || l->attempt != b->attempt)
            continue;
        l->is_stale |= is_stale;
        if (!l->is_told && l->on_cancel) {
            struct serve_claim c = {.attempt = l->attempt};
            memcpy(c.id, l->id, SERVE_ID_MAX);
            snprintf(c.ref, sizeof(c.ref), "%s", l->entry);
            l->on_cancel(l->cancel_user, &c);
        }
        l->is_told = true;
    }
}

static void beat_round(struct rq *q)
{
    static const char *const lanes[RQ_LANES] = {"jail", "js"};
    struct beat *b;
    size_t n = snapshot_claims(q, &b);
    struct rq_conn *c = n ? rq_get(&q->pool) : NULL;
    if (!c) {
        free(b);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const char *argv[] = {q->prefix, b[i].id, b[i].att, q->node, lanes[b[i].lane], b[i].entry};
        size_t lens[6];
        for (int k = 0; k < 6; k++)
            lens[k] = strlen(argv[k]);
        rq_eval_append(&q->pool, c, RQ_HEARTBEAT, 6, argv, lens);
    }
    for (size_t i = 0; i < n; i++) {
        redisReply *r = NULL;
        if (redisGetReply(c->c, (void **)&r) != REDIS_OK)
            break;
        bool is_text = r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS;
        bool is_stale = is_text && !strcmp(r->str, "stale");
        bool is_cancelled = is_text && !strcmp(r->str, "cancelled");
        if (r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "NOSCRIPT", 8))
            rq_load(&q->pool, c, RQ_HEARTBEAT); /* SCRIPT FLUSH: the next round has it again */
        if (is_stale || is_cancelled) {
            pthread_mutex_lock(&q->claims_lock);
            told(q, &b[i], is_stale);
            pthread_mutex_unlock(&q->claims_lock);
        }
        freeReplyObject(r);
    }
    rq_put(&q->pool, c);
    free(b);
}

/* Deletes consumers of nodes gone (idle 10 visibility periods, at least 1 s, holding nothing). */
static void gc_round(struct rq *q)
{
    static const char *const lanes[RQ_LANES] = {"jail", "js"};
    char idle[24];
    uint64_t ms = q->base.cfg.visibility_ms * 10;
    snprintf(idle, sizeof(idle), "%llu", (unsigned long long)(ms < 1000 ? 1000 : ms));
    const char *argv[3 + RQ_LANES] = {q->prefix, idle, "2", lanes[0], lanes[1]};
    size_t lens[3 + RQ_LANES];
    for (int i = 0; i < 3 + RQ_LANES; i++)
        lens[i] = strlen(argv[i]);
    struct rq_conn *c = rq_get(&q->pool);
    if (c)
        freeReplyObject(rq_eval(&q->pool, c, RQ_GC, 3 + RQ_LANES, argv, lens));
    rq_put(&q->pool, c);
}

static void *beat_main(void *arg)
{
    struct rq *q = arg;
    uint64_t every = q->base.cfg.visibility_ms / 3, rounds = 0;
    every = every < 10 ? 10 : every;
    pthread_mutex_lock(&q->beat_lock);
    while (!q->is_stopping) {
        struct timespec until = serve_deadline(CLOCK_MONOTONIC, every);
        pthread_cond_timedwait(&q->beat_cond, &q->beat_lock, &until);
        if (q->is_stopping)
            break;
        pthread_mutex_unlock(&q->beat_lock);
        beat_round(q);
        if (rounds++ % 100 == 0)
            gc_round(q);
        pthread_mutex_lock(&q->beat_lock);
    }
    pthread_mutex_unlock(&q->beat_lock);
    return NULL;
}

void rq_local_add(struct rq *q, struct rq_local *l)
{
    pthread_mutex_lock(&q->claims_lock);
    l->next = q->claims;
    q->claims = l;
    q->claims_n++;
    pthread_mutex_unlock(&q->claims_lock);
}

void rq_local_remove(struct rq *q, const char *id, uint32_t attempt)
{
    pthread_mutex_lock(&q->claims_lock);
    for (struct rq_local **pp = &q->claims; *pp; pp = &(*pp)->next) {
        if (!strcmp((*pp)->id, id) && (*pp)->attempt == attempt) {
            struct rq_local *l = *pp;
            *pp = l->next;
            free(l);
            break;
        }
    }
    pthread_mutex_unlock(&q->claims_lock);
}

bool rq_threads_start(struct rq *q)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&q->sub_lock, NULL);
    pthread_cond_init(&q->sub_cond, &attr);
    pthread_mutex_init(&q->beat_lock, NULL);
    pthread_cond_init(&q->beat_cond, &attr);
    pthread_condattr_destroy(&attr);
    q->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (q->wake_fd < 0)
        return false;
    q->is_sub_started = pthread_create(&q->sub_thread, NULL, sub_main, q) == 0;
    q->is_beat_started =
        q->is_sub_started && pthread_create(&q->beat_thread, NULL, beat_main, q) == 0;
    return q->is_beat_started;
}

void rq_threads_stop(struct rq *q)
{
    pthread_mutex_lock(&q->sub_lock);
    pthread_mutex_lock(&q->beat_lock);
    q->is_stopping = true; /* read under either lock */
    pthread_cond_broadcast(&q->beat_cond);
    pthread_mutex_unlock(&q->beat_lock);
    pthread_mutex_unlock(&q->sub_lock);
    if (q->wake_fd >= 0)
        wake(q);
    if (q->is_sub_started)
        pthread_join(q->sub_thread, NULL);
    if (q->is_beat_started)
        pthread_join(q->beat_thread, NULL);
    while (q->chans) {
        struct rq_chan *next = q->chans->next;
        free(q->chans);
        q->chans = next;
    }
    if (q->wake_fd >= 0)
        close(q->wake_fd);
    pthread_cond_destroy(&q->sub_cond);
    pthread_mutex_destroy(&q->sub_lock);
    pthread_cond_destroy(&q->beat_cond);
    pthread_mutex_destroy(&q->beat_lock);
}

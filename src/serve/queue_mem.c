/* serve/queue_mem.c: the embedded queue: one mutex over a table of runs by id, a FIFO of queued
 * runs per lane and a list of done runs in completion order (retention evicts from its head). Every
 * store is bounded: queueMax/queueMaxBytes, resultsMax/resultsMaxBytes/TTL, and the event
 * bytes kept per running run. One process: attempts are always 1, heartbeats only report. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/clock.h"
#include "serve/queue.h"

struct sub_node {
    struct serve_sub *sub;
    struct sub_node *next;
};

struct ev {
    uint64_t seq;
    uint32_t attempt;
    enum serve_ev_kind kind;
    char *data;
    size_t len;
};

struct run {
    char id[SERVE_ID_MAX];
    char key_name[SERVE_KEY_NAME_MAX];
    char *idem;
    enum serve_q_status status;
    uint32_t flags, attempt;
    uint64_t order; /* enqueue order: the oldest of several lanes goes first */
    char *payload;  /* while queued; moved to the claim */
    size_t payload_len;
    char *result; /* when done */
    size_t result_len;
    uint64_t done_ms;
    struct ev *events; /* while running, SERVE_JOB_EVENTS only */
    size_t event_count, event_cap, event_bytes;
    uint64_t seq;
    struct serve_sub *subs;
    serve_cancel_fn on_cancel;
    void *cancel_user;
    bool is_cancelled;
    struct run *prev, *next;   /* in the FIFO (queued) or the done list */
    struct run *hnext, *inext; /* id table chain, idempotency table chain */
};

struct serve_sub {
    struct run *run; /* NULL once detached (after the result, or unsubscribed) */
    serve_event_fn fn;
    void *user;
    bool is_result_only;
    struct serve_sub *next;
};

struct list {
    struct run *head, *tail;
    uint64_t count;
};

struct memq {
    struct serve_queue base;
    pthread_mutex_t lock;
    pthread_cond_t ready; /* a job was queued, or the queue closed */
    struct run **table, **itable;
    size_t buckets; /* power of two */
    uint64_t total; /* runs in the table */
    struct list queued[SERVE_LANES], done;
    uint64_t queued_count, queued_bytes, result_bytes, running, next_order;
    bool is_closed;
};

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static size_t hash(const char *s, size_t buckets)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)(h & (buckets - 1));
}

static void list_push(struct list *l, struct run *r)
{
    r->next = NULL;
    r->prev = l->tail;
    if (l->tail)
        l->tail->next = r;
    else
        l->head = r;
    l->tail = r;
    l->count++;
}

static void list_remove(struct list *l, struct run *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        l->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        l->tail = r->prev;
    r->prev = r->next = NULL;
    l->count--;
}

static struct run *find(struct memq *q, const char *id)
{
    for (struct run *r = q->table[hash(id, q->buckets)]; r; r = r->hnext) {
        if (strcmp(r->id, id) == 0)
            return r;
    }
    return NULL;
}

/* Idempotency keys are scoped by the API key: another key's equal one is another run. */
static struct run *find_idem(struct memq *q, const char *key, const char *key_name)
{
    for (struct run *r = q->itable[hash(key, q->buckets)]; r; r = r->inext) {
        if (strcmp(r->idem, key) == 0 && strncmp(r->key_name, key_name, SERVE_KEY_NAME_MAX) == 0)
            return r;
    }
    return NULL;
}

static void unchain(struct run **slot, struct run *r, bool is_idem)
{
    for (; *slot; slot = is_idem ? &(*slot)->inext : &(*slot)->hnext) {
        if (*slot == r) {
            *slot = is_idem ? r->inext : r->hnext;
            return;
        }
    }
}

/* Doubles the tables when they hold more runs than buckets (chains stay short). */
static bool grow(struct memq *q)
{
    if (q->total < q->buckets)
        return true;
    size_t n = q->buckets * 2;
    struct run **t = calloc(n, sizeof(*t)), **it = calloc(n, sizeof(*it));
    if (!t || !it) {
        free(t);
        free(it);
        return false;
    }
    for (size_t i = 0; i < q->buckets; i++) {
        for (struct run *r = q->table[i], *next; r; r = next) {
            next = r->hnext;
            r->hnext = t[hash(r->id, n)];
            t[hash(r->id, n)] = r;
        }
        for (struct run *r = q->itable[i], *next; r; r = next) {
            next = r->inext;
            r->inext = it[hash(r->idem, n)];
            it[hash(r->idem, n)] = r;
        }
    }
    free(q->table);
    free(q->itable);
    q->table = t;
    q->itable = it;
    q->buckets = n;
    return true;
}

static void free_events(struct run *r)
{
    for (size_t i = 0; i < r->event_count; i++)
        free(r->events[i].data);
    free(r->events);
    r->events = NULL;
    r->event_count = r->event_cap = r->event_bytes = 0;
}

/* Removes a done run from every structure and frees it. */
static void drop_done(struct memq *q, struct run *r)
{
    list_remove(&q->done, r);
    unchain(&q->table[hash(r->id, q->buckets)], r, false);
    if (r->idem)
        unchain(&q->itable[hash(r->idem, q->buckets)], r, true);
    q->result_bytes -= r->result_len;
    q->total--;
    free(r->result);
    free(r->idem);
    free(r);
}

/* Retention: expired results first, then the oldest while over the count or byte bound. */
static void evict(struct memq *q)
{
    uint64_t now = now_ms();
    const struct serve_queue_config *c = &q->base.cfg;
    while (q->done.head &&
           (q->done.head->done_ms + c->result_ttl_ms <= now || q->done.count > c->results_max ||
            q->result_bytes > c->results_max_bytes))
        drop_done(q, q->done.head);
}

static void deliver(struct run *r, enum serve_ev_kind kind, const char *data, size_t len,
                    uint64_t seq)
{
    struct serve_event ev = {
        .seq = seq, .attempt = r->attempt, .kind = kind, .data = data, .len = len};
    for (struct serve_sub *s = r->subs; s; s = s->next) {
        if (kind == SERVE_EV_RESULT || !s->is_result_only)
            s->fn(s->user, &ev);
    }
}

/* Keeps an event of a running run (within events_max_bytes) and gives it to subscribers. */
static void add_event(struct memq *q, struct run *r, enum serve_ev_kind kind, const void *data,
                      size_t len)
{
    if (!(r->flags & SERVE_JOB_EVENTS))
        return;
    if (r->event_bytes + len > q->base.cfg.events_max_bytes)
        return; /* the output caps bound this already; a full log drops, never grows */
    if (r->event_count == r->event_cap) {
        size_t cap = r->event_cap ? r->event_cap * 2 : 16;
        struct ev *e = realloc(r->events, cap * sizeof(*e));
        if (!e)
            return;
        r->events = e;
        r->event_cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, data, len);
    copy[len] = '\0';
    uint64_t seq = ++r->seq;
    r->events[r->event_count++] =
        (struct ev){.seq = seq, .attempt = r->attempt, .kind = kind, .data = copy, .len = len};
    r->event_bytes += len;
    deliver(r, kind, copy, len, seq);
}

/* Done: keeps result (moved in), tells subscribers, detaches them, joins the done list. */
static void finish(struct memq *q, struct run *r, char *result, size_t len)
{
    free_events(r);
    free(r->payload);
    r->payload = NULL;
    r->payload_len = 0;
    r->result = result;
    r->result_len = len;
    r->status = SERVE_Q_DONE;
    r->done_ms = now_ms();
    r->on_cancel = NULL;
    deliver(r, SERVE_EV_RESULT, result, len, ++r->seq);
    for (struct serve_sub *s = r->subs; s; s = s->next)
        s->run = NULL;
    r->subs = NULL;
    q->result_bytes += len;
    list_push(&q->done, r);
    evict(q);
}

static char *dup_bytes(const char *data, size_t len)
{
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, data, len);
        p[len] = '\0';
    }
    return p;
}

static enum serve_q_rc mem_enqueue(struct serve_queue *base, const struct serve_job *job,
                                   char id_out[SERVE_ID_MAX])
{
    struct memq *q = (struct memq *)base;
    pthread_mutex_lock(&q->lock);
    evict(q);
    struct run *same =
        job->idempotency_key ? find_idem(q, job->idempotency_key, job->key_name) : NULL;
    if (same) {
        memcpy(id_out, same->id, SERVE_ID_MAX);
        pthread_mutex_unlock(&q->lock);
        return SERVE_Q_OK;
    }
    enum serve_q_rc rc = SERVE_Q_OK;
    if (q->queued_count >= base->cfg.queue_max ||
        q->queued_bytes + job->payload_len > base->cfg.queue_max_bytes)
        rc = SERVE_Q_FULL;
    struct run *r = rc ? NULL : calloc(1, sizeof(*r));
    if (!rc && (!r || !grow(q) || !(r->payload = dup_bytes(job->payload, job->payload_len)) ||
                (job->idempotency_key && !(r->idem = strdup(job->idempotency_key))))) {
        if (r)
            free(r->payload);
        free(r);
        rc = SERVE_Q_NOMEM;
    }
    if (rc == SERVE_Q_OK) {
        memcpy(r->id, job->id, SERVE_ID_MAX);
        memcpy(r->key_name, job->key_name, SERVE_KEY_NAME_MAX);
        r->id[SERVE_ID_LEN] = r->key_name[SERVE_KEY_NAME_MAX - 1] = '\0';
        r->payload_len = job->payload_len;
        r->flags = job->flags;
        r->status = SERVE_Q_QUEUED;
        size_t h = hash(r->id, q->buckets);
        r->hnext = q->table[h];
        q->table[h] = r;
        if (r->idem) {
            h = hash(r->idem, q->buckets);
            r->inext = q->itable[h];
            q->itable[h] = r;
        }
        q->total++;
        q->queued_count++;
        q->queued_bytes += r->payload_len;
        r->order = ++q->next_order;
        list_push(&q->queued[serve_job_lane(r->flags)], r);
        memcpy(id_out, r->id, SERVE_ID_MAX);
        pthread_cond_broadcast(&q->ready); /* claimers may wait for other lanes */
    }
    pthread_mutex_unlock(&q->lock);
    return rc;
}

/* The oldest queued run of lanes, or NULL; the lock is held. */
static struct run *oldest(struct memq *q, unsigned lanes)
{
    struct run *best = NULL;
    for (int l = 0; l < SERVE_LANES; l++) {
        struct run *r = lanes & SERVE_LANE_BIT(l) ? q->queued[l].head : NULL;
        if (r && (!best || r->order < best->order))
            best = r;
    }
    return best;
}

static void unqueue(struct memq *q, struct run *r)
{
    list_remove(&q->queued[serve_job_lane(r->flags)], r);
    q->queued_count--;
    q->queued_bytes -= r->payload_len;
}

/* Waits for a queued run until deadline (ms clock, 0 = no wait); the lock is held. */
static void wait_ready(struct memq *q, unsigned lanes, int timeout_ms)
{
    if (timeout_ms <= 0)
        return;
    struct timespec until = serve_deadline(CLOCK_MONOTONIC, (uint64_t)timeout_ms);
    while (!oldest(q, lanes) && !q->is_closed) {
        if (pthread_cond_timedwait(&q->ready, &q->lock, &until) != 0)
            break;
    }
}

static enum serve_q_rc mem_claim(struct serve_queue *base, const char *consumer, unsigned lanes,
                                 int timeout_ms, serve_cancel_fn on_cancel, void *cancel_user,
                                 struct serve_claim *out)
{
    (void)consumer;
    struct memq *q = (struct memq *)base;
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&q->lock);
    wait_ready(q, lanes, timeout_ms);
    struct run *r = q->is_closed ? NULL : oldest(q, lanes);
    if (r) {
        unqueue(q, r);
        q->running++;
        r->status = SERVE_Q_RUNNING;
        r->attempt++;
        r->on_cancel = on_cancel;
        r->cancel_user = cancel_user;
        memcpy(out->id, r->id, SERVE_ID_MAX);
        memcpy(out->key_name, r->key_name, SERVE_KEY_NAME_MAX);
        out->attempt = r->attempt;
        out->flags = r->flags;
        out->payload = r->payload; /* moved: one attempt, nothing to retry from */
        out->payload_len = r->payload_len;
        r->payload = NULL;
        add_event(q, r, SERVE_EV_STATUS, "running", 7);
    }
    enum serve_q_rc rc = r ? SERVE_Q_OK : q->is_closed ? SERVE_Q_CLOSED : SERVE_Q_EMPTY;
    pthread_mutex_unlock(&q->lock);
    return rc;
}

/* The run c claims, if the claim is still current; the lock is held. */
static struct run *current(struct memq *q, const struct serve_claim *c)
{
    struct run *r = find(q, c->id);
    return r && r->status == SERVE_Q_RUNNING && r->attempt == c->attempt ? r : NULL;
}

static enum serve_q_rc mem_heartbeat(struct serve_queue *base, const struct serve_claim *c)
{
    struct memq *q = (struct memq *)base;
    pthread_mutex_lock(&q->lock);
    struct run *r = current(q, c);
    enum serve_q_rc rc = !r ? SERVE_Q_STALE : r->is_cancelled ? SERVE_Q_CANCELLED : SERVE_Q_OK;
    pthread_mutex_unlock(&q->lock);
    return rc;
}

static enum serve_q_rc mem_publish(struct serve_queue *base, const struct serve_claim *c,
                                   enum serve_ev_kind kind, const void *data, size_t len)
{
    struct memq *q = (struct memq *)base;
    pthread_mutex_lock(&q->lock);
    struct run *r = current(q, c);
    if (r && kind != SERVE_EV_RESULT)
        add_event(q, r, kind, data, len);
    pthread_mutex_unlock(&q->lock);
    return r ? SERVE_Q_OK : SERVE_Q_STALE;
}

static enum serve_q_rc mem_complete(struct serve_queue *base, const struct serve_claim *c,
                                    const char *result_json, size_t len)
{
    struct memq *q = (struct memq *)base;
    char *copy = dup_bytes(result_json, len);
    if (!copy)
        return SERVE_Q_NOMEM;
    pthread_mutex_lock(&q->lock);
    struct run *r = current(q, c);
    if (r) {
        q->running--;
        finish(q, r, copy, len);
    }
    pthread_mutex_unlock(&q->lock);
    if (!r)
        free(copy);
    return r ? SERVE_Q_OK : SERVE_Q_STALE;
}

static enum serve_q_rc mem_cancel(struct serve_queue *base, const char *id,
                                  const char *aborted_json, enum serve_q_status *found)
{
    struct memq *q = (struct memq *)base;
    size_t len = strlen(aborted_json);
    char *copy = dup_bytes(aborted_json, len);
    if (!copy)
        return SERVE_Q_NOMEM;
    pthread_mutex_lock(&q->lock);
    evict(q);
    struct run *r = find(q, id);
    if (r)
        *found = r->status;
    if (r && r->status == SERVE_Q_QUEUED) {
        unqueue(q, r);
        finish(q, r, copy, len);
        copy = NULL;
    } else if (r && r->status == SERVE_Q_RUNNING && !r->is_cancelled) {
        r->is_cancelled = true;
        if (r->on_cancel) {
            struct serve_claim c = {.attempt = r->attempt, .flags = r->flags};
            memcpy(c.id, r->id, SERVE_ID_MAX);
            memcpy(c.key_name, r->key_name, SERVE_KEY_NAME_MAX);
            r->on_cancel(r->cancel_user, &c);
        }
    }
    pthread_mutex_unlock(&q->lock);
    free(copy);
    return r ? SERVE_Q_OK : SERVE_Q_NOT_FOUND;
}

static enum serve_q_rc mem_get(struct serve_queue *base, const char *id,
                               enum serve_q_status *status, char key_name[SERVE_KEY_NAME_MAX],
                               char **result_json, size_t *len)
{
    struct memq *q = (struct memq *)base;
    *result_json = NULL;
    *len = 0;
    pthread_mutex_lock(&q->lock);
    evict(q);
    struct run *r = find(q, id);
    enum serve_q_rc rc = r ? SERVE_Q_OK : SERVE_Q_NOT_FOUND;
    if (r) {
        *status = r->status;
        if (key_name)
            memcpy(key_name, r->key_name, SERVE_KEY_NAME_MAX);
        if (r->status == SERVE_Q_DONE) {
            *result_json = dup_bytes(r->result, r->result_len);
            *len = r->result_len;
            rc = *result_json ? SERVE_Q_OK : SERVE_Q_NOMEM;
        }
    }
    pthread_mutex_unlock(&q->lock);
    return rc;
}

static enum serve_q_rc mem_subscribe(struct serve_queue *base, const char *id, uint64_t after_seq,
                                     bool result_only, serve_event_fn fn, void *user,
                                     struct serve_sub **out)
{
    struct memq *q = (struct memq *)base;
    struct serve_sub *s = calloc(1, sizeof(*s));
    if (!s)
        return SERVE_Q_NOMEM;
    *s = (struct serve_sub){.fn = fn, .user = user, .is_result_only = result_only};
    pthread_mutex_lock(&q->lock);
    evict(q);
    struct run *r = find(q, id);
    if (r && r->status == SERVE_Q_DONE) {
        struct serve_event ev = {.seq = r->seq,
                                 .attempt = r->attempt,
                                 .kind = SERVE_EV_RESULT,
                                 .data = r->result,
                                 .len = r->result_len};
        fn(user, &ev);
    } else if (r) {
        for (size_t i = 0; !result_only && i < r->event_count; i++) {
            const struct ev *e = &r->events[i];
            struct serve_event ev = {.seq = e->seq,
                                     .attempt = e->attempt,
                                     .kind = e->kind,
                                     .data = e->data,
                                     .len = e->len};
            if (e->seq > after_seq)
                fn(user, &ev);
        }
        s->run = r;
        s->next = r->subs;
        r->subs = s;
    }
    pthread_mutex_unlock(&q->lock);
    if (!r) {
        free(s);
        return SERVE_Q_NOT_FOUND;
    }
    *out = s;
    return SERVE_Q_OK;
}

static void mem_unsubscribe(struct serve_queue *base, struct serve_sub *s)
{
    struct memq *q = (struct memq *)base;
    if (!s)
        return;
    pthread_mutex_lock(&q->lock);
    if (s->run) {
        for (struct serve_sub **p = &s->run->subs; *p; p = &(*p)->next) {
            if (*p == s) {
                *p = s->next;
                break;
            }
        }
    }
    pthread_mutex_unlock(&q->lock);
    free(s);
}

static void mem_close(struct serve_queue *base)
{
    struct memq *q = (struct memq *)base;
    pthread_mutex_lock(&q->lock);
    q->is_closed = true;
    pthread_cond_broadcast(&q->ready);
    pthread_mutex_unlock(&q->lock);
}

static void mem_stats(struct serve_queue *base, struct serve_q_stats *out)
{
    struct memq *q = (struct memq *)base;
    pthread_mutex_lock(&q->lock);
    evict(q);
    *out = (struct serve_q_stats){.queued = q->queued_count,
                                  .queued_bytes = q->queued_bytes,
                                  .running = q->running,
                                  .results = q->done.count,
                                  .result_bytes = q->result_bytes,
                                  .is_healthy = true};
    pthread_mutex_unlock(&q->lock);
}

static void mem_destroy(struct serve_queue *base)
{
    struct memq *q = (struct memq *)base;
    for (size_t i = 0; i < q->buckets; i++) {
        for (struct run *r = q->table[i], *next; r; r = next) {
            next = r->hnext;
            for (struct serve_sub *s = r->subs; s; s = s->next)
                s->run = NULL;
            free_events(r);
            free(r->payload);
            free(r->result);
            free(r->idem);
            free(r);
        }
    }
    free(q->table);
    free(q->itable);
    pthread_cond_destroy(&q->ready);
    pthread_mutex_destroy(&q->lock);
    free(q);
}

static const struct serve_queue_ops mem_ops = {
    .name = "memory",
    .enqueue = mem_enqueue,
    .claim = mem_claim,
    .heartbeat = mem_heartbeat,
    .publish = mem_publish,
    .complete = mem_complete,
    .cancel = mem_cancel,
    .get = mem_get,
    .subscribe = mem_subscribe,
    .unsubscribe = mem_unsubscribe,
    .close = mem_close,
    .stats = mem_stats,
    .destroy = mem_destroy,
};

enum serve_q_rc serve_queue_mem_create(const struct serve_queue_config *cfg,
                                       struct serve_queue **out)
{
    struct memq *q = calloc(1, sizeof(*q));
    if (!q)
        return SERVE_Q_NOMEM;
    q->buckets = 1024;
    q->table = calloc(q->buckets, sizeof(*q->table));
    q->itable = calloc(q->buckets, sizeof(*q->itable));
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (!q->table || !q->itable || pthread_cond_init(&q->ready, &attr) != 0) {
        pthread_condattr_destroy(&attr);
        free(q->table);
        free(q->itable);
        free(q);
        return SERVE_Q_NOMEM;
    }
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&q->lock, NULL);
    q->base.ops = &mem_ops;
    q->base.cfg = *cfg;
    q->base.cfg.max_attempts = 1;
    *out = &q->base;
    return SERVE_Q_OK;
}

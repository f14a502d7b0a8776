/* tests/unit/serve/queue_contract.h: the contract of serve/queue.h, one suite run against each
 * backend (test_queue.c: the embedded queue; test_queue_redis.c: Redis Streams on a real
 * redis-server). A test opens "nodes" (handles) through the backend; every handle of one test
 * reaches the same jobs (the embedded queue gives the one queue to each). Order, the attempt
 * fence, bounds, blocking claims, cancel, events, retention, idempotency, lanes. */
#ifndef SBX_TEST_QUEUE_CONTRACT_H
#define SBX_TEST_QUEUE_CONTRACT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx_test.h"
#include "serve/queue.h"

typedef void qc_tune(struct serve_queue_config *);

/* A backend under test; the timings say how soon a loaded machine must see things happen. */
struct qc_backend {
    /* Opens a handle named node; a tune applies to the queue the first handle makes. */
    struct serve_queue *(*open)(const char *node, qc_tune *tune);
    void (*close)(struct serve_queue *q);
    unsigned claim_wait_ms; /* an empty claim's timeout (it must wait that long) */
    unsigned wake_ms;       /* a blocked claim sees another node's job within this */
    unsigned closed_ms;     /* a blocked claim sees close() within this */
    unsigned result_ttl_ms; /* retention tests' TTL (waited for + a margin) */
    bool is_synchronous;    /* cancel callbacks and events run inside the call causing them */
    bool stats_sweep;       /* stats drop expired results by themselves (no later write) */
    long (*event_entries)(const char *id); /* NULL, or a run's stored events (-1: none kept) */
};

/* Set by each test file before the suite runs. */
static const struct qc_backend *QC;

static inline double qc_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void qc_put(struct serve_queue *q, const char *payload, uint32_t flags,
                   char id[SERVE_ID_MAX])
{
    struct serve_job job = {.payload = payload, .payload_len = strlen(payload), .flags = flags};
    serve_id_new(job.id);
    strcpy(job.key_name, "k");
    ck_assert_int_eq(serve_queue_enqueue(q, &job, id), SERVE_Q_OK);
    ck_assert_str_eq(id, job.id);
}

static char *qc_result_of(struct serve_queue *q, const char *id, enum serve_q_status *st)
{
    char *res = NULL;
    size_t len;
    ck_assert_int_eq(serve_queue_get(q, id, st, NULL, &res, &len), SERVE_Q_OK);
    return res;
}

/* ---- events as a subscriber sees them ------------------------------------------------------ */

struct qc_seen {
    pthread_mutex_t lock;
    char log[1024];
    int count;
    uint64_t last_seq;
    bool is_out_of_order;
};

#define QC_SEEN                                                                                    \
    {                                                                                              \
        .lock = PTHREAD_MUTEX_INITIALIZER                                                          \
    }

static void qc_record(void *user, const struct serve_event *ev)
{
    struct qc_seen *s = user;
    static const char *kinds[] = {"", "status", "out", "err", "result"};
    pthread_mutex_lock(&s->lock);
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof(s->log) - n, "%s:%.*s;", kinds[ev->kind], (int)ev->len, ev->data);
    s->is_out_of_order |= ev->seq <= s->last_seq;
    s->last_seq = ev->seq;
    s->count++;
    pthread_mutex_unlock(&s->lock);
}

/* Checks that s's log is want: at once for a synchronous backend, else within 5 s. */
static void qc_expect_log(struct qc_seen *s, const char *want)
{
    double t0 = qc_now_ms();
    while (!QC->is_synchronous) {
        pthread_mutex_lock(&s->lock);
        bool is_there = strcmp(s->log, want) == 0;
        pthread_mutex_unlock(&s->lock);
        if (is_there || qc_now_ms() - t0 > 5000)
            break;
        usleep(2000);
    }
    pthread_mutex_lock(&s->lock);
    ck_assert_str_eq(s->log, want);
    ck_assert(!s->is_out_of_order);
    pthread_mutex_unlock(&s->lock);
}

static int qc_count(struct qc_seen *s)
{
    pthread_mutex_lock(&s->lock);
    int n = s->count;
    pthread_mutex_unlock(&s->lock);
    return n;
}

/* ---- the contract -------------------------------------------------------------------------- */

START_TEST(fifo_claim_complete_get)
{
    struct serve_queue *api = QC->open("api", NULL), *w = QC->open("w1", NULL);
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX];
    qc_put(api, "first", 0, a);
    qc_put(api, "second", 0, b);
    enum serve_q_status st;
    char owner[SERVE_KEY_NAME_MAX] = "", *res;
    size_t len;
    ck_assert_int_eq(serve_queue_get(w, a, &st, owner, &res, &len), SERVE_Q_OK);
    ck_assert_int_eq(st, SERVE_Q_QUEUED);
    ck_assert_str_eq(owner, "k");
    ck_assert_ptr_null(res);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_str_eq(c.id, a); /* oldest first */
    ck_assert_str_eq(c.payload, "first");
    ck_assert_str_eq(c.key_name, "k");
    ck_assert_uint_eq(c.attempt, 1);
    free(qc_result_of(api, a, &st));
    ck_assert_int_eq(st, SERVE_Q_RUNNING);
    ck_assert_int_eq(serve_queue_heartbeat(w, &c), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_complete(w, &c, "{\"ok\":true}", 11), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_get(api, a, &st, NULL, &res, &len), SERVE_Q_OK);
    ck_assert_int_eq(st, SERVE_Q_DONE);
    ck_assert_str_eq(res, "{\"ok\":true}");
    ck_assert_uint_eq(len, 11);
    free(res);
    /* The fence: a claim completed already is stale for everything. */
    ck_assert_int_eq(serve_queue_complete(w, &c, "{}", 2), SERVE_Q_STALE);
    ck_assert_int_eq(serve_queue_heartbeat(w, &c), SERVE_Q_STALE);
    c.flags |= SERVE_JOB_EVENTS; /* without, Redis drops it unread (queue.h allows both) */
    ck_assert_int_eq(serve_queue_publish(w, &c, SERVE_EV_STDOUT, "x", 1), SERVE_Q_STALE);
    serve_queue_claim_free(&c);
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_str_eq(c.id, b);
    struct serve_claim forged = c;
    forged.attempt = 2; /* an attempt that does not own the run */
    ck_assert_int_eq(serve_queue_complete(w, &forged, "{}", 2), SERVE_Q_STALE);
    ck_assert_int_eq(serve_queue_complete(w, &c, "{}", 2), SERVE_Q_OK);
    serve_queue_claim_free(&c);
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_EMPTY);
    ck_assert_int_eq(serve_queue_get(api, "0000000000000000000000000Z", &st, NULL, &res, &len),
                     SERVE_Q_NOT_FOUND);
    struct serve_q_stats s;
    serve_queue_stats(api, &s);
    ck_assert(s.is_healthy);
    ck_assert_uint_eq(s.queued, 0);
    ck_assert_uint_eq(s.running, 0);
    ck_assert_uint_eq(s.results, 2);
    QC->close(api);
    QC->close(w);
}
END_TEST

static void qc_small(struct serve_queue_config *c)
{
    c->queue_max = 3;
    c->queue_max_bytes = 100;
}

START_TEST(bounds_refuse_with_full)
{
    struct serve_queue *q = QC->open("n", qc_small);
    char id[SERVE_ID_MAX];
    for (int i = 0; i < 3; i++)
        qc_put(q, "x", 0, id);
    struct serve_job job = {.payload = "x", .payload_len = 1};
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(q, &job, id), SERVE_Q_FULL);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(q, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_complete(q, &c, "{}", 2), SERVE_Q_OK);
    serve_queue_claim_free(&c); /* control: one gone, one more fits */
    ck_assert_int_eq(serve_queue_enqueue(q, &job, id), SERVE_Q_OK);
    char big[120];
    memset(big, 'b', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    struct serve_job fat = {.payload = big, .payload_len = strlen(big)};
    serve_id_new(fat.id);
    for (int i = 0; i < 3; i++) { /* empty it: bytes, not count, refuse the next */
        ck_assert_int_eq(serve_queue_claim(q, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
        serve_queue_complete(q, &c, "{}", 2);
        serve_queue_claim_free(&c);
    }
    ck_assert_int_eq(serve_queue_enqueue(q, &fat, id), SERVE_Q_FULL);
    struct serve_q_stats s;
    serve_queue_stats(q, &s);
    ck_assert_uint_eq(s.queued, 0);
    ck_assert_uint_eq(s.queued_bytes, 0);
    ck_assert(s.is_healthy);
    QC->close(q);
}
END_TEST

static void *qc_late_put(void *arg)
{
    usleep(200 * 1000);
    char id[SERVE_ID_MAX];
    qc_put(arg, "late", 0, id);
    return NULL;
}

struct qc_closer {
    struct serve_queue *q;
    double closed_at;
};

static void *qc_close_later(void *arg)
{
    struct qc_closer *cl = arg;
    usleep(300 * 1000);
    cl->closed_at = qc_now_ms();
    serve_queue_close(cl->q);
    return NULL;
}

START_TEST(claim_waits_then_wakes_or_times_out)
{
    struct serve_queue *api = QC->open("api", NULL), *w = QC->open("w1", NULL);
    struct serve_claim c;
    double t0 = qc_now_ms();
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, QC->claim_wait_ms, NULL, NULL, &c),
                     SERVE_Q_EMPTY);
    ck_assert_double_ge(qc_now_ms() - t0, QC->claim_wait_ms - 10);
    pthread_t t;
    pthread_create(&t, NULL, qc_late_put, api);
    t0 = qc_now_ms();
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 10000, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_double_lt(qc_now_ms() - t0, QC->wake_ms);
    ck_assert_str_eq(c.payload, "late");
    ck_assert_int_eq(serve_queue_complete(w, &c, "{}", 2), SERVE_Q_OK);
    serve_queue_claim_free(&c);
    pthread_join(t, NULL);
    /* close() wakes a blocked claimer at once; later claims say CLOSED at once. */
    struct qc_closer cl = {.q = w};
    pthread_create(&t, NULL, qc_close_later, &cl);
    enum serve_q_rc rc = serve_queue_claim(w, "x", SERVE_LANES_ALL, 20000, NULL, NULL, &c);
    pthread_join(t, NULL);
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 20000, NULL, NULL, &c),
                     SERVE_Q_CLOSED);
    ck_assert_msg(rc == SERVE_Q_CLOSED || rc == SERVE_Q_EMPTY, "%s", serve_q_rc_name(rc));
    ck_assert_double_lt(qc_now_ms() - cl.closed_at, QC->closed_ms);
    QC->close(api);
    QC->close(w);
}
END_TEST

static _Atomic int qc_cancels;
static void qc_on_cancel(void *user, const struct serve_claim *c)
{
    ck_assert_str_eq(c->id, user);
    qc_cancels++;
}

START_TEST(cancel_queued_and_running)
{
    struct serve_queue *api = QC->open("api", NULL), *w = QC->open("w1", NULL);
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX];
    qc_put(api, "a", 0, a);
    qc_put(api, "b", 0, b);
    enum serve_q_status found;
    ck_assert_int_eq(serve_queue_cancel(api, b, "{\"aborted\":1}", &found), SERVE_Q_OK);
    ck_assert_int_eq(found, SERVE_Q_QUEUED);
    enum serve_q_status st;
    char *res = qc_result_of(w, b, &st);
    ck_assert_int_eq(st, SERVE_Q_DONE);
    ck_assert_str_eq(res, "{\"aborted\":1}");
    free(res);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, qc_on_cancel, a, &c),
                     SERVE_Q_OK);
    ck_assert_str_eq(c.id, a); /* b left the queue */
    ck_assert_int_eq(serve_queue_cancel(api, a, "{}", &found), SERVE_Q_OK);
    ck_assert_int_eq(found, SERVE_Q_RUNNING);
    double t0 = qc_now_ms();
    while (!QC->is_synchronous && qc_cancels == 0 && qc_now_ms() - t0 < 5000)
        usleep(5000);
    ck_assert_int_eq(qc_cancels, 1); /* the claimant hears of it at once (Redis: pub/sub) */
    ck_assert_double_lt(qc_now_ms() - t0, 1000);
    ck_assert_int_eq(serve_queue_heartbeat(w, &c), SERVE_Q_CANCELLED);
    serve_queue_cancel(api, a, "{}", &found); /* a second cancel does not call again */
    if (!QC->is_synchronous)
        usleep(300 * 1000);
    ck_assert_int_eq(qc_cancels, 1);
    ck_assert_int_eq(serve_queue_complete(w, &c, "{\"x\":2}", 7), SERVE_Q_OK);
    res = qc_result_of(api, a, &st);
    ck_assert_str_eq(res, "{\"x\":2}"); /* the claimant's result, not the cancel's */
    free(res);
    serve_queue_cancel(api, a, "{}", &found);
    ck_assert_int_eq(found, SERVE_Q_DONE);
    serve_queue_claim_free(&c);
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_EMPTY);
    ck_assert_int_eq(serve_queue_cancel(api, "0000000000000000000000000Z", "{}", &found),
                     SERVE_Q_NOT_FOUND);
    QC->close(api);
    QC->close(w);
}
END_TEST

START_TEST(events_replay_live_and_end_with_result)
{
    struct serve_queue *api = QC->open("api", NULL), *api2 = QC->open("api2", NULL),
                       *w = QC->open("w1", NULL);
    char id[SERVE_ID_MAX];
    qc_put(api, "p", SERVE_JOB_EVENTS, id);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_publish(w, &c, SERVE_EV_STDOUT, "a", 1), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_publish(w, &c, SERVE_EV_STDERR, "b", 1), SERVE_Q_OK);
    struct qc_seen all = QC_SEEN, later = QC_SEEN, waiter = QC_SEEN, after = QC_SEEN;
    struct serve_sub *s1, *s2, *s3, *s4;
    ck_assert_int_eq(serve_queue_subscribe(api, id, 0, false, qc_record, &all, &s1), SERVE_Q_OK);
    qc_expect_log(&all, "status:running;out:a;err:b;"); /* replayed */
    ck_assert_int_eq(serve_queue_subscribe(api2, id, 2, false, qc_record, &later, &s2), SERVE_Q_OK);
    qc_expect_log(&later, "err:b;"); /* only after seq 2 */
    ck_assert_int_eq(serve_queue_subscribe(api2, id, 0, true, qc_record, &waiter, &s3), SERVE_Q_OK);
    ck_assert_int_eq(qc_count(&waiter), 0);
    ck_assert_int_eq(serve_queue_publish(w, &c, SERVE_EV_STDOUT, "c", 1), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_complete(w, &c, "R", 1), SERVE_Q_OK);
    qc_expect_log(&all, "status:running;out:a;err:b;out:c;result:R;"); /* live, on another node */
    qc_expect_log(&later, "err:b;out:c;result:R;");
    qc_expect_log(&waiter, "result:R;");
    /* A run done already gives its result alone. */
    ck_assert_int_eq(serve_queue_subscribe(api2, id, 0, false, qc_record, &after, &s4), SERVE_Q_OK);
    qc_expect_log(&after, "result:R;");
    serve_queue_unsubscribe(api, s1);
    serve_queue_unsubscribe(api2, s2);
    serve_queue_unsubscribe(api2, s3);
    serve_queue_unsubscribe(api2, s4);
    serve_queue_claim_free(&c);
    /* A job without SERVE_JOB_EVENTS keeps none; unsubscribe stops delivery. */
    qc_put(api, "p", 0, id);
    serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c);
    struct qc_seen quiet = QC_SEEN;
    ck_assert_int_eq(serve_queue_subscribe(api, id, 0, false, qc_record, &quiet, &s1), SERVE_Q_OK);
    serve_queue_publish(w, &c, SERVE_EV_STDOUT, "a", 1);
    serve_queue_unsubscribe(api, s1);
    serve_queue_complete(w, &c, "R", 1);
    if (!QC->is_synchronous)
        usleep(200 * 1000);
    ck_assert_int_eq(qc_count(&quiet), 0);
    ck_assert_int_eq(
        serve_queue_subscribe(api, "0000000000000000000000000Z", 0, false, qc_record, &quiet, &s1),
        SERVE_Q_NOT_FOUND);
    serve_queue_claim_free(&c);
    QC->close(api);
    QC->close(api2);
    QC->close(w);
}
END_TEST

static void qc_tiny_events(struct serve_queue_config *c)
{
    c->events_max_bytes = 4;
}

START_TEST(event_log_is_bounded)
{
    struct serve_queue *q = QC->open("n", qc_tiny_events);
    char id[SERVE_ID_MAX];
    qc_put(q, "p", SERVE_JOB_EVENTS, id);
    struct serve_claim c;
    /* "running": 7 bytes, over 4: dropped */
    serve_queue_claim(q, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c);
    serve_queue_publish(q, &c, SERVE_EV_STDOUT, "abc", 3);
    serve_queue_publish(q, &c, SERVE_EV_STDOUT, "de", 2); /* would make 5 */
    struct qc_seen s = QC_SEEN;
    struct serve_sub *sub;
    serve_queue_subscribe(q, id, 0, false, qc_record, &s, &sub);
    qc_expect_log(&s, "out:abc;");
    serve_queue_unsubscribe(q, sub);
    if (QC->event_entries)
        ck_assert_int_eq(QC->event_entries(id), 1);
    serve_queue_complete(q, &c, "R", 1);
    if (QC->event_entries) /* a done run's events are gone */
        ck_assert_int_eq(QC->event_entries(id), -1);
    serve_queue_claim_free(&c);
    QC->close(q);
}
END_TEST

static void qc_short_retention(struct serve_queue_config *c)
{
    c->result_ttl_ms = QC->result_ttl_ms;
    c->results_max = 2;
    c->results_max_bytes = 10;
}

static void qc_idem_retention(struct serve_queue_config *c)
{
    c->result_ttl_ms = QC->result_ttl_ms;
}

static void qc_run_to_done(struct serve_queue *q, const char *result, char id[SERVE_ID_MAX])
{
    qc_put(q, "p", 0, id);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(q, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_complete(q, &c, result, strlen(result)), SERVE_Q_OK);
    serve_queue_claim_free(&c);
}

/* Waits out the retention TTL (and half of it more). */
static void qc_sleep_past_ttl(void)
{
    usleep((useconds_t)QC->result_ttl_ms * 3 / 2 * 1000);
}

START_TEST(retention_by_count_bytes_and_time)
{
    struct serve_queue *q = QC->open("n", qc_short_retention);
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX], c[SERVE_ID_MAX], d[SERVE_ID_MAX];
    enum serve_q_status st;
    char *res;
    size_t len;
    qc_run_to_done(q, "1", a);
    qc_run_to_done(q, "2", b);
    qc_run_to_done(q, "3", c); /* three results, two kept: the oldest goes */
    ck_assert_int_eq(serve_queue_get(q, a, &st, NULL, &res, &len), SERVE_Q_NOT_FOUND);
    free(qc_result_of(q, b, &st));
    qc_run_to_done(q, "123456789", d); /* 1 + 9 = 10 bytes fit, with b's it would be 11 */
    ck_assert_int_eq(serve_queue_get(q, b, &st, NULL, &res, &len), SERVE_Q_NOT_FOUND);
    free(qc_result_of(q, c, &st));
    struct serve_q_stats s;
    serve_queue_stats(q, &s);
    ck_assert_uint_eq(s.results, 2);
    ck_assert_uint_eq(s.result_bytes, 10);
    qc_sleep_past_ttl();
    ck_assert_int_eq(serve_queue_get(q, d, &st, NULL, &res, &len), SERVE_Q_NOT_FOUND);
    if (QC->stats_sweep) {
        serve_queue_stats(q, &s);
        ck_assert_uint_eq(s.results, 0);
    }
    char e[SERVE_ID_MAX];
    qc_run_to_done(q, "4", e); /* the next result sweeps the expired ones from the counts */
    serve_queue_stats(q, &s);
    ck_assert_uint_eq(s.results, 1);
    ck_assert_uint_eq(s.result_bytes, 1);
    /* Many results within one millisecond: still the oldest go first (not by their ids). */
    char many[12][SERVE_ID_MAX];
    for (int i = 0; i < 12; i++)
        qc_run_to_done(q, "x", many[i]);
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(serve_queue_get(q, many[i], &st, NULL, &res, &len), SERVE_Q_NOT_FOUND);
    free(qc_result_of(q, many[10], &st));
    free(qc_result_of(q, many[11], &st));
    QC->close(q);
}
END_TEST

START_TEST(idempotency_key_returns_the_same_run)
{
    struct serve_queue *a = QC->open("a", qc_idem_retention), *b = QC->open("b", qc_idem_retention);
    struct serve_job job = {.payload = "p", .payload_len = 1, .idempotency_key = "key-1"};
    strcpy(job.key_name, "alice");
    char first[SERVE_ID_MAX], again[SERVE_ID_MAX], other[SERVE_ID_MAX], third[SERVE_ID_MAX];
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(a, &job, first), SERVE_Q_OK);
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(b, &job, again), SERVE_Q_OK); /* a retry elsewhere */
    ck_assert_str_eq(first, again);
    strcpy(job.key_name, "bob"); /* another API key never gets alice's run */
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(b, &job, other), SERVE_Q_OK);
    ck_assert_str_ne(first, other);
    strcpy(job.key_name, "alice"); /* nor does another idempotency key */
    job.idempotency_key = "key-2";
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(a, &job, third), SERVE_Q_OK);
    ck_assert_str_ne(first, third);
    ck_assert_str_ne(other, third);
    struct serve_q_stats s;
    serve_queue_stats(a, &s);
    ck_assert_uint_eq(s.queued, 3);
    /* Done, the same key still gives the same run (and its result) until it expires. */
    struct serve_claim c;
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(serve_queue_claim(a, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
        serve_queue_complete(a, &c, "{}", 2);
        serve_queue_claim_free(&c);
    }
    job.idempotency_key = "key-1";
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(b, &job, again), SERVE_Q_OK);
    ck_assert_str_eq(first, again);
    qc_sleep_past_ttl();
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(b, &job, again), SERVE_Q_OK);
    ck_assert_str_eq(again, job.id); /* expired with its run: a new one */
    QC->close(a);
    QC->close(b);
}
END_TEST

/* A claimer takes only its lanes' jobs, the oldest among them; the other lane's stay queued
 * (and say so). */
START_TEST(lanes_keep_jobs_for_their_runners)
{
    struct serve_queue *q = QC->open("n", NULL);
    char js1[SERVE_ID_MAX], jail1[SERVE_ID_MAX], js2[SERVE_ID_MAX];
    unsigned js = SERVE_LANE_BIT(SERVE_LANE_JS), jail = SERVE_LANE_BIT(SERVE_LANE_JAIL);
    qc_put(q, "js1", SERVE_JOB_JS, js1);
    qc_put(q, "jail1", 0, jail1);
    qc_put(q, "js2", SERVE_JOB_JS, js2);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(q, "x", jail, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_str_eq(c.payload, "jail1");
    serve_queue_claim_free(&c);
    ck_assert_int_eq(serve_queue_claim(q, "x", jail, 0, NULL, NULL, &c), SERVE_Q_EMPTY);
    enum serve_q_status st;
    free(qc_result_of(q, js1, &st));
    ck_assert_int_eq(st, SERVE_Q_QUEUED);
    qc_put(q, "jail2", 0, jail1);
    ck_assert_int_eq(serve_queue_claim(q, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_str_eq(c.payload, "js1"); /* the oldest of both lanes */
    serve_queue_claim_free(&c);
    ck_assert_int_eq(serve_queue_claim(q, "x", js, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_str_eq(c.payload, "js2");
    serve_queue_claim_free(&c);
    struct serve_q_stats s;
    serve_queue_stats(q, &s);
    ck_assert_uint_eq(s.queued, 1);
    QC->close(q);
}
END_TEST

START_TEST(lanes_oldest_first_and_only_the_lanes_asked)
{
    struct serve_queue *api = QC->open("api", NULL), *w = QC->open("w1", NULL);
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX], c[SERVE_ID_MAX], d[SERVE_ID_MAX];
    qc_put(api, "jail1", 0, a);
    qc_put(api, "js1", SERVE_JOB_JS, b);
    qc_put(api, "jail2", 0, c);
    struct serve_claim cl[4];
    unsigned js = SERVE_LANE_BIT(SERVE_LANE_JS), jail = SERVE_LANE_BIT(SERVE_LANE_JAIL);
    ck_assert_int_eq(serve_queue_claim(w, "x", js, 0, NULL, NULL, &cl[0]), SERVE_Q_OK);
    ck_assert_str_eq(cl[0].id, b); /* only the lane asked for, though a is older */
    ck_assert_int_eq(serve_queue_claim(w, "x", js, 0, NULL, NULL, &cl[1]), SERVE_Q_EMPTY);
    ck_assert_int_eq(serve_queue_claim(w, "x", jail, 0, NULL, NULL, &cl[1]), SERVE_Q_OK);
    ck_assert_str_eq(cl[1].id, a);
    qc_put(api, "js2", SERVE_JOB_JS, d);
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &cl[2]), SERVE_Q_OK);
    ck_assert_str_eq(cl[2].id, c); /* the oldest of both lanes */
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &cl[3]), SERVE_Q_OK);
    ck_assert_str_eq(cl[3].id, d);
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(serve_queue_complete(w, &cl[i], "{}", 2), SERVE_Q_OK);
        serve_queue_claim_free(&cl[i]);
    }
    QC->close(api);
    QC->close(w);
}
END_TEST

/* The contract's tests, in a case of their own (fixtures: the caller's). */
static TCase *qc_tcase(const char *name, int timeout_s)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, timeout_s);
    tcase_add_test(tc, fifo_claim_complete_get);
    tcase_add_test(tc, bounds_refuse_with_full);
    tcase_add_test(tc, claim_waits_then_wakes_or_times_out);
    tcase_add_test(tc, cancel_queued_and_running);
    tcase_add_test(tc, events_replay_live_and_end_with_result);
    tcase_add_test(tc, event_log_is_bounded);
    tcase_add_test(tc, retention_by_count_bytes_and_time);
    tcase_add_test(tc, idempotency_key_returns_the_same_run);
    tcase_add_test(tc, lanes_keep_jobs_for_their_runners);
    tcase_add_test(tc, lanes_oldest_first_and_only_the_lanes_asked);
    return tc;
}

#endif

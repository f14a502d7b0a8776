/* The embedded queue against the contract of serve/queue.h: order, bounds, fencing, cancel,
 * events and subscriptions, retention, idempotency, and many threads at once. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx_test.h"
#include "serve/queue.h"

#define ALL SERVE_LANES_ALL

static struct serve_queue *make(void (*tune)(struct serve_queue_config *))
{
    struct serve_queue_config cfg;
    serve_queue_config_init(&cfg);
    if (tune)
        tune(&cfg);
    struct serve_queue *q = NULL;
    ck_assert_int_eq(serve_queue_mem_create(&cfg, &q), SERVE_Q_OK);
    return q;
}

static void put(struct serve_queue *q, const char *payload, uint32_t flags, char id[SERVE_ID_MAX])
{
    struct serve_job job = {.payload = payload, .payload_len = strlen(payload), .flags = flags};
    serve_id_new(job.id);
    strcpy(job.key_name, "k");
    ck_assert_int_eq(serve_queue_enqueue(q, &job, id), SERVE_Q_OK);
    ck_assert_str_eq(id, job.id);
}

START_TEST(fifo_claim_complete_get)
{
    struct serve_queue *q = make(NULL);
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX];
    put(q, "first", 0, a);
    put(q, "second", 0, b);
    enum serve_q_status st;
    char *res;
    size_t len;
    char owner[SERVE_KEY_NAME_MAX] = "";
    ck_assert_int_eq(serve_queue_get(q, a, &st, owner, &res, &len), SERVE_Q_OK);
    ck_assert_int_eq(st, SERVE_Q_QUEUED);
    ck_assert_str_eq(owner, "k");
    ck_assert_ptr_null(res);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(q, "w", ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_str_eq(c.id, a);
    ck_assert_str_eq(c.payload, "first");
    ck_assert_str_eq(c.key_name, "k");
    ck_assert_uint_eq(c.attempt, 1);
    serve_queue_get(q, a, &st, NULL, &res, &len);
    ck_assert_int_eq(st, SERVE_Q_RUNNING);
    ck_assert_int_eq(serve_queue_heartbeat(q, &c), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_complete(q, &c, "{\"ok\":true}", 11), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_get(q, a, &st, NULL, &res, &len), SERVE_Q_OK);
    ck_assert_int_eq(st, SERVE_Q_DONE);
    ck_assert_str_eq(res, "{\"ok\":true}");
    ck_assert_uint_eq(len, 11);
    free(res);
    /* Fencing: a claim already completed is stale for everything. */
    ck_assert_int_eq(serve_queue_complete(q, &c, "{}", 2), SERVE_Q_STALE);
    ck_assert_int_eq(serve_queue_heartbeat(q, &c), SERVE_Q_STALE);
    ck_assert_int_eq(serve_queue_publish(q, &c, SERVE_EV_STDOUT, "x", 1), SERVE_Q_STALE);
    serve_queue_claim_free(&c);
    ck_assert_int_eq(serve_queue_claim(q, "w", ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_str_eq(c.id, b);
    struct serve_claim forged = c;
    forged.attempt = 2; /* an attempt that does not own the run */
    ck_assert_int_eq(serve_queue_complete(q, &forged, "{}", 2), SERVE_Q_STALE);
    ck_assert_int_eq(serve_queue_complete(q, &c, "{}", 2), SERVE_Q_OK);
    serve_queue_claim_free(&c);
    ck_assert_int_eq(serve_queue_claim(q, "w", ALL, 0, NULL, NULL, &c), SERVE_Q_EMPTY);
    ck_assert_int_eq(serve_queue_get(q, "0000000000000000000000000Z", &st, NULL, &res, &len),
                     SERVE_Q_NOT_FOUND);
    serve_queue_destroy(q);
}
END_TEST

static void small(struct serve_queue_config *c)
{
    c->queue_max = 3;
    c->queue_max_bytes = 100;
}

START_TEST(bounds_refuse_with_full)
{
    struct serve_queue *q = make(small);
    char id[SERVE_ID_MAX];
    for (int i = 0; i < 3; i++)
        put(q, "x", 0, id);
    struct serve_job job = {.payload = "x", .payload_len = 1};
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(q, &job, id), SERVE_Q_FULL);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(q, "w", ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    serve_queue_claim_free(&c); /* control: one gone, one more fits */
    ck_assert_int_eq(serve_queue_enqueue(q, &job, id), SERVE_Q_OK);
    serve_queue_destroy(q);
    q = make(small);
    char big[120];
    memset(big, 'b', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    struct serve_job fat = {.payload = big, .payload_len = strlen(big)};
    serve_id_new(fat.id);
    ck_assert_int_eq(serve_queue_enqueue(q, &fat, id), SERVE_Q_FULL); /* bytes, not count */
    struct serve_q_stats s;
    serve_queue_stats(q, &s);
    ck_assert_uint_eq(s.queued, 0);
    ck_assert(s.is_healthy);
    serve_queue_destroy(q);
}
END_TEST

static void *late_put(void *arg)
{
    usleep(100 * 1000);
    char id[SERVE_ID_MAX];
    put(arg, "late", 0, id);
    return NULL;
}

static double ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

START_TEST(claim_waits_then_wakes_or_times_out)
{
    struct serve_queue *q = make(NULL);
    struct serve_claim c;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(serve_queue_claim(q, "w", ALL, 150, NULL, NULL, &c), SERVE_Q_EMPTY);
    ck_assert_double_ge(ms_since(&t0), 140);
    pthread_t t;
    pthread_create(&t, NULL, late_put, q);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(serve_queue_claim(q, "w", ALL, 5000, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_double_lt(ms_since(&t0), 2000);
    ck_assert_str_eq(c.payload, "late");
    serve_queue_claim_free(&c);
    pthread_join(t, NULL);
    serve_queue_close(q);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(serve_queue_claim(q, "w", ALL, 5000, NULL, NULL, &c), SERVE_Q_CLOSED);
    ck_assert_double_lt(ms_since(&t0), 1000);
    serve_queue_destroy(q);
}
END_TEST

static int cancels;
static void on_cancel(void *user, const struct serve_claim *c)
{
    ck_assert_str_eq(c->id, user);
    cancels++;
}

START_TEST(cancel_queued_and_running)
{
    struct serve_queue *q = make(NULL);
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX];
    put(q, "a", 0, a);
    put(q, "b", 0, b);
    enum serve_q_status found;
    ck_assert_int_eq(serve_queue_cancel(q, b, "{\"aborted\":1}", &found), SERVE_Q_OK);
    ck_assert_int_eq(found, SERVE_Q_QUEUED);
    enum serve_q_status st;
    char *res;
    size_t len;
    serve_queue_get(q, b, &st, NULL, &res, &len);
    ck_assert_int_eq(st, SERVE_Q_DONE);
    ck_assert_str_eq(res, "{\"aborted\":1}");
    free(res);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(q, "w", ALL, 0, on_cancel, a, &c), SERVE_Q_OK);
    ck_assert_str_eq(c.id, a); /* b left the queue */
    ck_assert_int_eq(serve_queue_cancel(q, a, "{}", &found), SERVE_Q_OK);
    ck_assert_int_eq(found, SERVE_Q_RUNNING);
    ck_assert_int_eq(cancels, 1);
    ck_assert_int_eq(serve_queue_heartbeat(q, &c), SERVE_Q_CANCELLED);
    serve_queue_cancel(q, a, "{}", &found); /* a second cancel does not call again */
    ck_assert_int_eq(cancels, 1);
    ck_assert_int_eq(serve_queue_complete(q, &c, "{\"x\":2}", 7), SERVE_Q_OK);
    serve_queue_get(q, a, &st, NULL, &res, &len);
    ck_assert_str_eq(res, "{\"x\":2}"); /* the claimant's result, not the cancel's */
    free(res);
    serve_queue_cancel(q, a, "{}", &found);
    ck_assert_int_eq(found, SERVE_Q_DONE);
    serve_queue_claim_free(&c);
    ck_assert_int_eq(serve_queue_claim(q, "w", ALL, 0, NULL, NULL, &c), SERVE_Q_EMPTY);
    ck_assert_int_eq(serve_queue_cancel(q, "0000000000000000000000000Z", "{}", &found),
                     SERVE_Q_NOT_FOUND);
    serve_queue_destroy(q);
}
END_TEST

struct seen {
    char log[512];
    int count;
    uint64_t last_seq;
};

static void record(void *user, const struct serve_event *ev)
{
    struct seen *s = user;
    static const char *kinds[] = {"", "status", "out", "err", "result"};
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof(s->log) - n, "%s:%.*s;", kinds[ev->kind], (int)ev->len, ev->data);
    ck_assert_uint_gt(ev->seq, s->last_seq);
    s->last_seq = ev->seq;
    s->count++;
}

START_TEST(events_replay_live_and_end_with_result)
{
    struct serve_queue *q = make(NULL);
    char id[SERVE_ID_MAX];
    put(q, "p", SERVE_JOB_EVENTS, id);
    struct serve_claim c;
    serve_queue_claim(q, "w", ALL, 0, NULL, NULL, &c);
    serve_queue_publish(q, &c, SERVE_EV_STDOUT, "a", 1);
    serve_queue_publish(q, &c, SERVE_EV_STDERR, "b", 1);
    struct seen all = {0}, later = {0}, waiter = {0}, after = {0};
    struct serve_sub *s1, *s2, *s3, *s4;
    ck_assert_int_eq(serve_queue_subscribe(q, id, 0, false, record, &all, &s1), SERVE_Q_OK);
    ck_assert_str_eq(all.log, "status:running;out:a;err:b;"); /* replayed */
    ck_assert_int_eq(serve_queue_subscribe(q, id, 2, false, record, &later, &s2), SERVE_Q_OK);
    ck_assert_str_eq(later.log, "err:b;"); /* only after seq 2 */
    serve_queue_subscribe(q, id, 0, true, record, &waiter, &s3);
    ck_assert_int_eq(waiter.count, 0);
    serve_queue_publish(q, &c, SERVE_EV_STDOUT, "c", 1);
    serve_queue_complete(q, &c, "R", 1);
    ck_assert_str_eq(all.log, "status:running;out:a;err:b;out:c;result:R;");
    ck_assert_str_eq(waiter.log, "result:R;");
    /* A run done already gives its result alone. */
    ck_assert_int_eq(serve_queue_subscribe(q, id, 0, false, record, &after, &s4), SERVE_Q_OK);
    ck_assert_str_eq(after.log, "result:R;");
    serve_queue_unsubscribe(q, s1);
    serve_queue_unsubscribe(q, s2);
    serve_queue_unsubscribe(q, s3);
    serve_queue_unsubscribe(q, s4);
    serve_queue_claim_free(&c);
    /* A job without SERVE_JOB_EVENTS keeps none; unsubscribe stops delivery. */
    put(q, "p", 0, id);
    serve_queue_claim(q, "w", ALL, 0, NULL, NULL, &c);
    struct seen quiet = {0};
    serve_queue_subscribe(q, id, 0, false, record, &quiet, &s1);
    serve_queue_publish(q, &c, SERVE_EV_STDOUT, "a", 1);
    serve_queue_unsubscribe(q, s1);
    serve_queue_complete(q, &c, "R", 1);
    ck_assert_int_eq(quiet.count, 0);
    ck_assert_int_eq(
        serve_queue_subscribe(q, "0000000000000000000000000Z", 0, false, record, &quiet, &s1),
        SERVE_Q_NOT_FOUND);
    serve_queue_claim_free(&c);
    serve_queue_destroy(q);
}
END_TEST

static void tiny_events(struct serve_queue_config *c)
{
    c->events_max_bytes = 4;
}

START_TEST(event_log_is_bounded)
{
    struct serve_queue *q = make(tiny_events);
    char id[SERVE_ID_MAX];
    put(q, "p", SERVE_JOB_EVENTS, id);
    struct serve_claim c;
    serve_queue_claim(q, "w", ALL, 0, NULL, NULL, &c); /* "running": 7 bytes, over 4: dropped */
    serve_queue_publish(q, &c, SERVE_EV_STDOUT, "abc", 3);
    serve_queue_publish(q, &c, SERVE_EV_STDOUT, "de", 2); /* would make 5 */
    struct seen s = {0};
    struct serve_sub *sub;
    serve_queue_subscribe(q, id, 0, false, record, &s, &sub);
    ck_assert_str_eq(s.log, "out:abc;");
    serve_queue_unsubscribe(q, sub);
    serve_queue_complete(q, &c, "R", 1);
    serve_queue_claim_free(&c);
    serve_queue_destroy(q);
}
END_TEST

static void short_retention(struct serve_queue_config *c)
{
    c->result_ttl_ms = 100;
    c->results_max = 2;
    c->results_max_bytes = 10;
}

static void run_to_done(struct serve_queue *q, const char *result, char id[SERVE_ID_MAX])
{
    put(q, "p", 0, id);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(q, "w", ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    serve_queue_complete(q, &c, result, strlen(result));
    serve_queue_claim_free(&c);
}

START_TEST(retention_by_count_bytes_and_time)
{
    struct serve_queue *q = make(short_retention);
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX], c[SERVE_ID_MAX], d[SERVE_ID_MAX];
    enum serve_q_status st;
    char *res;
    size_t len;
    run_to_done(q, "1", a);
    run_to_done(q, "2", b);
    run_to_done(q, "3", c); /* three results, two kept: the oldest goes */
    ck_assert_int_eq(serve_queue_get(q, a, &st, NULL, &res, &len), SERVE_Q_NOT_FOUND);
    ck_assert_int_eq(serve_queue_get(q, b, &st, NULL, &res, &len), SERVE_Q_OK);
    free(res);
    run_to_done(q, "123456789", d); /* 1 + 9 = 10 bytes fit, with b's it would be 11 */
    ck_assert_int_eq(serve_queue_get(q, b, &st, NULL, &res, &len), SERVE_Q_NOT_FOUND);
    ck_assert_int_eq(serve_queue_get(q, c, &st, NULL, &res, &len), SERVE_Q_OK);
    free(res);
    struct serve_q_stats s;
    serve_queue_stats(q, &s);
    ck_assert_uint_eq(s.results, 2);
    ck_assert_uint_eq(s.result_bytes, 10);
    usleep(150 * 1000);
    ck_assert_int_eq(serve_queue_get(q, d, &st, NULL, &res, &len), SERVE_Q_NOT_FOUND);
    serve_queue_stats(q, &s);
    ck_assert_uint_eq(s.results, 0);
    serve_queue_destroy(q);
}
END_TEST

START_TEST(idempotency_key_returns_the_same_run)
{
    struct serve_queue *q = make(NULL);
    struct serve_job job = {.payload = "p", .payload_len = 1, .idempotency_key = "key-1"};
    char first[SERVE_ID_MAX], again[SERVE_ID_MAX], other[SERVE_ID_MAX];
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(q, &job, first), SERVE_Q_OK);
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(q, &job, again), SERVE_Q_OK);
    ck_assert_str_eq(first, again);
    job.idempotency_key = "key-2";
    serve_id_new(job.id);
    serve_queue_enqueue(q, &job, other);
    ck_assert_str_ne(first, other);
    struct serve_q_stats s;
    serve_queue_stats(q, &s);
    ck_assert_uint_eq(s.queued, 2);
    serve_queue_destroy(q);
}
END_TEST

START_TEST(ids_are_random_and_checked)
{
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX];
    serve_id_new(a);
    serve_id_new(b);
    ck_assert_uint_eq(strlen(a), SERVE_ID_LEN);
    ck_assert_str_ne(a, b);
    ck_assert(serve_id_valid(a));
    ck_assert(!serve_id_valid(""));
    ck_assert(!serve_id_valid("0000000000000000000000000"));   /* 25 */
    ck_assert(!serve_id_valid("000000000000000000000000000")); /* 27 */
    ck_assert(!serve_id_valid("0000000000000000000000000I"));  /* not in the alphabet */
    ck_assert(!serve_id_valid("../../../../../../etc/pass"));
}
END_TEST

#define STRESS_JOBS 20000
struct stress {
    struct serve_queue *q;
    int done[STRESS_JOBS];
};

static void *producer(void *arg)
{
    struct stress *s = arg;
    for (int i = 0; i < STRESS_JOBS / 4; i++) {
        char payload[32], id[SERVE_ID_MAX];
        static _Atomic int next;
        snprintf(payload, sizeof(payload), "%d", next++);
        struct serve_job job = {.payload = payload, .payload_len = strlen(payload)};
        serve_id_new(job.id);
        while (serve_queue_enqueue(s->q, &job, id) == SERVE_Q_FULL)
            usleep(100);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    struct stress *s = arg;
    struct serve_claim c;
    while (serve_queue_claim(s->q, "w", ALL, 1000, NULL, NULL, &c) == SERVE_Q_OK) {
        __atomic_add_fetch(&s->done[atoi(c.payload)], 1, __ATOMIC_SEQ_CST);
        ck_assert_int_eq(serve_queue_complete(s->q, &c, c.payload, c.payload_len), SERVE_Q_OK);
        serve_queue_claim_free(&c);
    }
    return NULL;
}

static void stress_bounds(struct serve_queue_config *c)
{
    c->queue_max = 500;
    c->results_max = 1000;
}

START_TEST(many_threads_each_job_once)
{
    static struct stress s;
    s.q = make(stress_bounds);
    pthread_t p[4], c[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&c[i], NULL, consumer, &s);
    for (int i = 0; i < 4; i++)
        pthread_create(&p[i], NULL, producer, &s);
    for (int i = 0; i < 4; i++)
        pthread_join(p[i], NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(c[i], NULL); /* each ends 1 s after the queue ran dry */
    for (int i = 0; i < STRESS_JOBS; i++)
        ck_assert_msg(s.done[i] == 1, "job %d ran %d times", i, s.done[i]);
    struct serve_q_stats st;
    serve_queue_stats(s.q, &st);
    ck_assert_uint_eq(st.queued, 0);
    ck_assert_uint_eq(st.running, 0);
    ck_assert_uint_eq(st.results, 1000); /* bounded */
    serve_queue_destroy(s.q);
}
END_TEST

/* A claimer takes only its lanes' jobs, the oldest among them; the other lane's stay queued
 * (and say so). */
START_TEST(lanes_keep_jobs_for_their_runners)
{
    struct serve_queue *q = make(NULL);
    char js1[SERVE_ID_MAX], jail1[SERVE_ID_MAX], js2[SERVE_ID_MAX];
    put(q, "js1", SERVE_JOB_JS, js1);
    put(q, "jail1", 0, jail1);
    put(q, "js2", SERVE_JOB_JS, js2);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(q, "w", SERVE_LANE_BIT(SERVE_LANE_JAIL), 0, NULL, NULL, &c),
                     SERVE_Q_OK);
    ck_assert_str_eq(c.payload, "jail1");
    serve_queue_claim_free(&c);
    ck_assert_int_eq(serve_queue_claim(q, "w", SERVE_LANE_BIT(SERVE_LANE_JAIL), 0, NULL, NULL, &c),
                     SERVE_Q_EMPTY);
    enum serve_q_status st;
    char *res;
    size_t len;
    serve_queue_get(q, js1, &st, NULL, &res, &len);
    ck_assert_int_eq(st, SERVE_Q_QUEUED);
    put(q, "jail2", 0, jail1);
    ck_assert_int_eq(serve_queue_claim(q, "w", ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_str_eq(c.payload, "js1"); /* the oldest of both lanes */
    serve_queue_claim_free(&c);
    ck_assert_int_eq(serve_queue_claim(q, "w", SERVE_LANE_BIT(SERVE_LANE_JS), 0, NULL, NULL, &c),
                     SERVE_Q_OK);
    ck_assert_str_eq(c.payload, "js2");
    serve_queue_claim_free(&c);
    struct serve_q_stats s;
    serve_queue_stats(q, &s);
    ck_assert_uint_eq(s.queued, 1);
    serve_queue_destroy(q);
}
END_TEST

static Suite *queue_suite(void)
{
    Suite *s = suite_create("serve_queue");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, fifo_claim_complete_get);
    tcase_add_test(tc, bounds_refuse_with_full);
    tcase_add_test(tc, claim_waits_then_wakes_or_times_out);
    tcase_add_test(tc, cancel_queued_and_running);
    tcase_add_test(tc, events_replay_live_and_end_with_result);
    tcase_add_test(tc, event_log_is_bounded);
    tcase_add_test(tc, retention_by_count_bytes_and_time);
    tcase_add_test(tc, idempotency_key_returns_the_same_run);
    tcase_add_test(tc, ids_are_random_and_checked);
    tcase_add_test(tc, many_threads_each_job_once);
    tcase_add_test(tc, lanes_keep_jobs_for_their_runners);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(queue_suite());
}

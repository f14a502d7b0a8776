/* The embedded queue against the contract of serve/queue.h (queue_contract.h: the suite the
 * Redis queue runs too), plus what only it has: ids, and many threads on one queue with its
 * bounds. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "queue_contract.h"
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

/* Every node of a test shares the one queue (made by the first open, freed by the last close). */
static struct serve_queue *shared;
static int shared_refs;

static struct serve_queue *mem_open(const char *node, qc_tune *tune)
{
    (void)node;
    if (!shared_refs++)
        shared = make(tune);
    return shared;
}

static void mem_close(struct serve_queue *q)
{
    ck_assert_ptr_eq(q, shared);
    if (!--shared_refs)
        serve_queue_destroy(q);
}

static const struct qc_backend mem_backend = {
    .open = mem_open,
    .close = mem_close,
    .claim_wait_ms = 150,
    .wake_ms = 2000,
    .closed_ms = 1000,
    .result_ttl_ms = 100,
    .is_synchronous = true,
    .stats_sweep = true,
};

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

/* The embedded queue fences a stale claimant's publish even for a job without events (Redis
 * drops those unread: the contract allows both). */
START_TEST(stale_publish_refused_without_events)
{
    struct serve_queue *q = make(NULL);
    char id[SERVE_ID_MAX];
    qc_put(q, "p", 0, id);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(q, "w", ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_publish(q, &c, SERVE_EV_STDOUT, "x", 1), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_complete(q, &c, "{}", 2), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_publish(q, &c, SERVE_EV_STDOUT, "x", 1), SERVE_Q_STALE);
    serve_queue_claim_free(&c);
    serve_queue_destroy(q);
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

static Suite *queue_suite(void)
{
    Suite *s = suite_create("serve_queue");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, ids_are_random_and_checked);
    tcase_add_test(tc, stale_publish_refused_without_events);
    tcase_add_test(tc, many_threads_each_job_once);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, qc_tcase("contract", 30));
    return s;
}

int main(void)
{
    QC = &mem_backend;
    return sbx_test_main(queue_suite());
}

/* The Redis Streams queue (#25) against a real redis-server (a free loopback port, a temp dir,
 * AOF on), through the contract of serve/queue.h: several queue handles stand for API and worker
 * nodes; claimants that die (SIGKILL) or freeze (SIGSTOP) are child processes, so their
 * heartbeats really stop. Claims, takeovers, the attempt fence, max attempts, cancels across
 * nodes, events across nodes, retention, idempotency, bounds, Redis going away and coming back. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "redis_server.h"
#include "sbx_test.h"
#include "serve/queue.h"
#include "serve/queue_redis.h"

static struct test_redis R;

static void start_redis(void)
{
    memset(&R, 0, sizeof(R));
    ck_assert_msg(test_redis_start(&R), "redis-server did not start (is it installed?)");
}

static void quick(struct serve_queue_config *c)
{
    c->visibility_ms = 1000; /* heartbeats every 333 ms: room for a loaded machine */
    c->max_attempts = 3;
}

static struct serve_queue *open_q(const char *node, void (*tune)(struct serve_queue_config *))
{
    struct serve_queue_config cfg;
    serve_queue_config_init(&cfg);
    quick(&cfg);
    if (tune)
        tune(&cfg);
    struct serve_queue *q = NULL;
    char err[256] = "";
    ck_assert_msg(serve_queue_redis_create(R.url, node, &cfg, &q, err, sizeof(err)) == SERVE_Q_OK,
                  "%s", err);
    return q;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void put(struct serve_queue *q, const char *payload, uint32_t flags, char id[SERVE_ID_MAX])
{
    struct serve_job job = {.payload = payload, .payload_len = strlen(payload), .flags = flags};
    serve_id_new(job.id);
    strcpy(job.key_name, "k");
    ck_assert_int_eq(serve_queue_enqueue(q, &job, id), SERVE_Q_OK);
    ck_assert_str_eq(id, job.id);
}

static char *result_of(struct serve_queue *q, const char *id, enum serve_q_status *st)
{
    char *res = NULL;
    size_t len;
    ck_assert_int_eq(serve_queue_get(q, id, st, NULL, &res, &len), SERVE_Q_OK);
    return res;
}

START_TEST(url_forms)
{
    struct serve_queue_config cfg;
    serve_queue_config_init(&cfg);
    struct serve_queue *q = NULL;
    char err[256];
    static const char *bad[] = {"http://x:1",     "redis://",          "redis://:1",
                                "redis://h:0",    "redis://h:70000",   "redis://h:1/x",
                                "redis://[::1:1", "redis://u:%zz@h:1", "rediss://h:1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        ck_assert_msg(serve_queue_redis_create(bad[i], "n", &cfg, &q, err, sizeof(err)) ==
                          SERVE_Q_UNAVAILABLE,
                      "%s accepted", bad[i]);
        ck_assert_msg(err[0], "%s: no reason given", bad[i]);
    }
    static const char *good[] = {"redis://h:1", "redis://h", "redis://u:p%40ss@h:1/3",
                                 "redis://[::1]:6379/0", "redis://:secret@10.0.0.1:7000"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        ck_assert_msg(serve_queue_redis_create(good[i], "n", &cfg, &q, err, sizeof(err)) ==
                          SERVE_Q_OK,
                      "%s: %s", good[i], err);
        serve_queue_destroy(q);
    }
}
END_TEST

START_TEST(enqueue_on_one_node_claim_on_another)
{
    start_redis();
    struct serve_queue *api = open_q("api", NULL), *w = open_q("w1", NULL);
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX];
    put(api, "first", 0, a);
    put(api, "second", 0, b);
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
    free(result_of(api, a, &st));
    ck_assert_int_eq(st, SERVE_Q_RUNNING);
    ck_assert_int_eq(serve_queue_heartbeat(w, &c), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_complete(w, &c, "{\"ok\":true}", 11), SERVE_Q_OK);
    res = result_of(api, a, &st);
    ck_assert_int_eq(st, SERVE_Q_DONE);
    ck_assert_str_eq(res, "{\"ok\":true}");
    free(res);
    /* The fence: a claim completed already is stale for everything. */
    ck_assert_int_eq(serve_queue_complete(w, &c, "{}", 2), SERVE_Q_STALE);
    ck_assert_int_eq(serve_queue_heartbeat(w, &c), SERVE_Q_STALE);
    c.flags |= SERVE_JOB_EVENTS;
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
    serve_queue_destroy(api);
    serve_queue_destroy(w);
    test_redis_destroy(&R);
}
END_TEST

static void *late_put(void *arg)
{
    usleep(200 * 1000);
    char id[SERVE_ID_MAX];
    put(arg, "late", 0, id);
    return NULL;
}

static void *close_later(void *arg)
{
    usleep(300 * 1000);
    serve_queue_close(arg);
    return NULL;
}

START_TEST(claim_blocks_until_another_node_enqueues)
{
    start_redis();
    struct serve_queue *api = open_q("api", NULL), *w = open_q("w1", NULL);
    struct serve_claim c;
    double t0 = now_ms();
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 300, NULL, NULL, &c),
                     SERVE_Q_EMPTY);
    ck_assert_double_ge(now_ms() - t0, 290);
    pthread_t t;
    pthread_create(&t, NULL, late_put, api);
    t0 = now_ms();
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 10000, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_double_lt(now_ms() - t0, 5000);
    ck_assert_str_eq(c.payload, "late");
    ck_assert_int_eq(serve_queue_complete(w, &c, "{}", 2), SERVE_Q_OK);
    serve_queue_claim_free(&c);
    pthread_join(t, NULL);
    /* close() wakes a claimer blocked in Redis at once. */
    pthread_create(&t, NULL, close_later, w);
    t0 = now_ms();
    enum serve_q_rc rc = serve_queue_claim(w, "x", SERVE_LANES_ALL, 20000, NULL, NULL, &c);
    pthread_join(t, NULL);
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 20000, NULL, NULL, &c),
                     SERVE_Q_CLOSED);
    ck_assert_msg(rc == SERVE_Q_CLOSED || rc == SERVE_Q_EMPTY, "%s", serve_q_rc_name(rc));
    ck_assert_double_lt(now_ms() - t0, 3000);
    serve_queue_destroy(api);
    serve_queue_destroy(w);
    test_redis_destroy(&R);
}
END_TEST

/* ---- claimants in child processes: their heartbeats stop when they die or freeze ---------- */

struct child {
    pid_t pid;
    int to, from; /* pipes: commands to it, reports from it */
};

static volatile int child_told;
static void child_on_cancel(void *user, const struct serve_claim *c)
{
    (void)user;
    (void)c;
    child_told = 1;
}

/* The child: claims one run, reports "ID ATTEMPT", then on "complete TEXT" waits up to 3 s to
 * be told it is stale or cancelled, completes with TEXT and reports "RC TOLD". */
static void child_main(int in, int out, void (*tune)(struct serve_queue_config *))
{
    struct serve_queue *q = open_q("child", tune);
    struct serve_claim c;
    char line[256];
    int n =
        serve_queue_claim(q, "x", SERVE_LANES_ALL, 10000, child_on_cancel, NULL, &c) == SERVE_Q_OK
            ? snprintf(line, sizeof(line), "%s %u\n", c.id, c.attempt)
            : snprintf(line, sizeof(line), "none 0\n");
    if (write(out, line, (size_t)n) != n)
        _exit(1);
    ssize_t got = read(in, line, sizeof(line) - 1);
    if (got <= 0)
        _exit(0);
    line[got] = '\0';
    for (int i = 0; i < 300 && !child_told; i++)
        usleep(10 * 1000);
    const char *text = line + strlen("complete ");
    enum serve_q_rc rc = serve_queue_complete(q, &c, text, strlen(text));
    n = snprintf(line, sizeof(line), "%s %d\n", serve_q_rc_name(rc), child_told);
    if (write(out, line, (size_t)n) != n)
        _exit(1);
    serve_queue_destroy(q);
    _exit(0);
}

static struct child spawn_claimant(void (*tune)(struct serve_queue_config *))
{
    int to[2], from[2];
    ck_assert(pipe(to) == 0 && pipe(from) == 0);
    struct child ch = {.pid = fork()};
    if (ch.pid == 0) {
        close(to[1]);
        close(from[0]);
        child_main(to[0], from[1], tune);
    }
    close(to[0]);
    close(from[1]);
    ch.to = to[1];
    ch.from = from[0];
    return ch;
}

static void child_read(struct child *ch, char *buf, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t got = read(ch->from, buf + n, 1);
        ck_assert_msg(got == 1, "the child said nothing");
        if (buf[n] == '\n')
            break;
        n++;
    }
    buf[n] = '\0';
}

static void child_end(struct child *ch)
{
    kill(ch->pid, SIGKILL);
    waitpid(ch->pid, NULL, 0);
    close(ch->to);
    close(ch->from);
}

START_TEST(frozen_claimant_is_taken_over_and_fenced)
{
    start_redis();
    struct child ch = spawn_claimant(NULL);
    struct serve_queue *api = open_q("api", NULL), *w = open_q("w2", NULL);
    char id[SERVE_ID_MAX], line[256];
    put(api, "job", 0, id);
    child_read(&ch, line, sizeof(line));
    char expect[64];
    snprintf(expect, sizeof(expect), "%s 1", id);
    ck_assert_str_eq(line, expect);
    /* Alive, it keeps its claim well past the visibility timeout (1 s). */
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 2500, NULL, NULL, &c),
                     SERVE_Q_EMPTY);
    kill(ch.pid, SIGSTOP); /* frozen: its heartbeats stop */
    double t0 = now_ms();
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 10000, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_double_ge(now_ms() - t0, 600); /* not before the visibility timeout */
    ck_assert_str_eq(c.id, id);
    ck_assert_uint_eq(c.attempt, 2);
    ck_assert_str_eq(c.payload, "job"); /* the payload again, for the new attempt */
    kill(ch.pid, SIGCONT);              /* it wakes up and finishes late, while attempt 2 runs */
    ck_assert(write(ch.to, "complete old", 12) == 12);
    child_read(&ch, line, sizeof(line));
    ck_assert_str_eq(line, "stale claim 1"); /* refused, and its heartbeat told it to stop */
    /* Its heartbeat did not take the claim back: the pending entry is still w2's. */
    redisReply *r = test_redis_command(&R, "XPENDING sbx:jobs:jail workers - + 10");
    ck_assert(r && r->type == REDIS_REPLY_ARRAY && r->elements == 1);
    ck_assert_str_eq(r->element[0]->element[1]->str, "w2");
    freeReplyObject(r);
    ck_assert_int_eq(serve_queue_heartbeat(w, &c), SERVE_Q_OK); /* attempt 2 still owns it */
    ck_assert_int_eq(serve_queue_complete(w, &c, "new", 3), SERVE_Q_OK);
    serve_queue_claim_free(&c);
    enum serve_q_status st;
    char *res = result_of(api, id, &st);
    ck_assert_int_eq(st, SERVE_Q_DONE);
    ck_assert_str_eq(res, "new");
    free(res);
    struct serve_q_stats s;
    serve_queue_stats(api, &s);
    ck_assert_uint_eq(s.takeovers, 1);
    ck_assert_uint_eq(s.claims, 2);
    ck_assert_uint_eq(s.retries, 1);
    ck_assert_uint_eq(s.failed, 0);
    ck_assert_uint_eq(s.running, 0);
    child_end(&ch);
    serve_queue_destroy(api);
    serve_queue_destroy(w);
    test_redis_destroy(&R);
}
END_TEST

static void two_attempts(struct serve_queue_config *c)
{
    c->max_attempts = 2;
}

START_TEST(killed_claimants_use_up_the_attempts_then_the_run_fails)
{
    start_redis();
    struct serve_queue *api = open_q("api", two_attempts);
    char id[SERVE_ID_MAX], line[256], expect[64];
    put(api, "job", 0, id);
    for (unsigned attempt = 1; attempt <= 2; attempt++) {
        struct child ch = spawn_claimant(two_attempts);
        child_read(&ch, line, sizeof(line));
        snprintf(expect, sizeof(expect), "%s %u", id, attempt);
        ck_assert_str_eq(line, expect); /* the second child takes it over, attempt 2 */
        child_end(&ch);                 /* kill -9 while it runs */
    }
    struct serve_queue *w = open_q("w3", two_attempts);
    struct serve_claim c;
    /* The next claim finds it idle and out of attempts: it ends, nothing is handed out. */
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 3000, NULL, NULL, &c),
                     SERVE_Q_EMPTY);
    enum serve_q_status st;
    char *res = result_of(api, id, &st);
    ck_assert_int_eq(st, SERVE_Q_DONE);
    ck_assert_msg(strstr(res, "\"code\":\"SANDBOX_RUNNER_DIED\"") &&
                      strstr(res, "claimed 2 time(s) (config maxAttempts)") && strstr(res, id),
                  "%s", res);
    free(res);
    struct serve_q_stats s;
    serve_queue_stats(api, &s);
    ck_assert_uint_eq(s.running, 0);
    ck_assert_uint_eq(s.takeovers, 2);
    ck_assert_uint_eq(s.claims, 2);
    ck_assert_uint_eq(s.failed, 1);
    serve_queue_destroy(api);
    serve_queue_destroy(w);
    test_redis_destroy(&R);
}
END_TEST

static _Atomic int cancels;
static void count_cancel(void *user, const struct serve_claim *c)
{
    ck_assert_str_eq(c->id, user);
    cancels++;
}

START_TEST(cancel_reaches_the_worker_on_another_node)
{
    start_redis();
    struct serve_queue *api = open_q("api", NULL), *w = open_q("w1", NULL);
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX];
    put(api, "a", 0, a);
    put(api, "b", 0, b);
    enum serve_q_status found;
    ck_assert_int_eq(serve_queue_cancel(api, b, "{\"aborted\":1}", &found), SERVE_Q_OK);
    ck_assert_int_eq(found, SERVE_Q_QUEUED);
    enum serve_q_status st;
    char *res = result_of(w, b, &st);
    ck_assert_int_eq(st, SERVE_Q_DONE);
    ck_assert_str_eq(res, "{\"aborted\":1}");
    free(res);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, count_cancel, a, &c),
                     SERVE_Q_OK);
    ck_assert_str_eq(c.id, a); /* b left the queue */
    ck_assert_int_eq(serve_queue_cancel(api, a, "{}", &found), SERVE_Q_OK);
    ck_assert_int_eq(found, SERVE_Q_RUNNING);
    double t0 = now_ms();
    while (cancels == 0 && now_ms() - t0 < 5000)
        usleep(5000);
    ck_assert_int_eq(cancels, 1); /* pub/sub: the worker hears of it at once */
    ck_assert_double_lt(now_ms() - t0, 1000);
    ck_assert_int_eq(serve_queue_heartbeat(w, &c), SERVE_Q_CANCELLED);
    serve_queue_cancel(api, a, "{}", &found); /* a second cancel does not call again */
    usleep(300 * 1000);
    ck_assert_int_eq(cancels, 1);
    ck_assert_int_eq(serve_queue_complete(w, &c, "{\"x\":2}", 7), SERVE_Q_OK);
    res = result_of(api, a, &st);
    ck_assert_str_eq(res, "{\"x\":2}"); /* the claimant's result, not the cancel's */
    free(res);
    serve_queue_cancel(api, a, "{}", &found);
    ck_assert_int_eq(found, SERVE_Q_DONE);
    serve_queue_claim_free(&c);
    ck_assert_int_eq(serve_queue_cancel(api, "0000000000000000000000000Z", "{}", &found),
                     SERVE_Q_NOT_FOUND);
    /* Cancelled while its worker is lost: the takeover ends it with the cancel's result. */
    char d[SERVE_ID_MAX], line[256];
    put(api, "d", 0, d);
    struct child ch = spawn_claimant(NULL);
    child_read(&ch, line, sizeof(line));
    child_end(&ch);
    ck_assert_int_eq(serve_queue_cancel(api, d, "{\"gone\":1}", &found), SERVE_Q_OK);
    ck_assert_int_eq(found, SERVE_Q_RUNNING);
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 3000, NULL, NULL, &c),
                     SERVE_Q_EMPTY);
    res = result_of(api, d, &st);
    ck_assert_int_eq(st, SERVE_Q_DONE);
    ck_assert_str_eq(res, "{\"gone\":1}");
    free(res);
    serve_queue_destroy(api);
    serve_queue_destroy(w);
    test_redis_destroy(&R);
}
END_TEST

struct seen {
    pthread_mutex_t lock;
    char log[1024];
    int count;
    uint64_t last_seq;
    bool is_out_of_order;
};

static void record(void *user, const struct serve_event *ev)
{
    struct seen *s = user;
    static const char *kinds[] = {"", "status", "out", "err", "result"};
    pthread_mutex_lock(&s->lock);
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof(s->log) - n, "%s:%.*s;", kinds[ev->kind], (int)ev->len, ev->data);
    s->is_out_of_order |= ev->seq <= s->last_seq;
    s->last_seq = ev->seq;
    s->count++;
    pthread_mutex_unlock(&s->lock);
}

/* Waits until s's log is want (5 s at most), then checks it. */
static void expect_log(struct seen *s, const char *want)
{
    double t0 = now_ms();
    for (;;) {
        pthread_mutex_lock(&s->lock);
        bool is_there = strcmp(s->log, want) == 0;
        pthread_mutex_unlock(&s->lock);
        if (is_there || now_ms() - t0 > 5000)
            break;
        usleep(2000);
    }
    pthread_mutex_lock(&s->lock);
    ck_assert_str_eq(s->log, want);
    ck_assert(!s->is_out_of_order);
    pthread_mutex_unlock(&s->lock);
}

#define SEEN                                                                                       \
    {                                                                                              \
        .lock = PTHREAD_MUTEX_INITIALIZER                                                          \
    }

START_TEST(events_cross_nodes_replay_live_and_end_with_result)
{
    start_redis();
    struct serve_queue *api = open_q("api", NULL), *api2 = open_q("api2", NULL),
                       *w = open_q("w1", NULL);
    char id[SERVE_ID_MAX];
    put(api, "p", SERVE_JOB_EVENTS, id);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_publish(w, &c, SERVE_EV_STDOUT, "a", 1), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_publish(w, &c, SERVE_EV_STDERR, "b", 1), SERVE_Q_OK);
    struct seen all = SEEN, later = SEEN, waiter = SEEN, after = SEEN;
    struct serve_sub *s1, *s2, *s3, *s4;
    ck_assert_int_eq(serve_queue_subscribe(api, id, 0, false, record, &all, &s1), SERVE_Q_OK);
    expect_log(&all, "status:running;out:a;err:b;"); /* replayed */
    ck_assert_int_eq(serve_queue_subscribe(api2, id, 2, false, record, &later, &s2), SERVE_Q_OK);
    expect_log(&later, "err:b;"); /* only after seq 2 */
    ck_assert_int_eq(serve_queue_subscribe(api2, id, 0, true, record, &waiter, &s3), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_publish(w, &c, SERVE_EV_STDOUT, "c", 1), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_complete(w, &c, "R", 1), SERVE_Q_OK);
    expect_log(&all, "status:running;out:a;err:b;out:c;result:R;"); /* live, on another node */
    expect_log(&later, "err:b;out:c;result:R;");
    expect_log(&waiter, "result:R;");
    /* A run done already gives its result alone. */
    ck_assert_int_eq(serve_queue_subscribe(api2, id, 0, false, record, &after, &s4), SERVE_Q_OK);
    expect_log(&after, "result:R;");
    serve_queue_unsubscribe(api, s1);
    serve_queue_unsubscribe(api2, s2);
    serve_queue_unsubscribe(api2, s3);
    serve_queue_unsubscribe(api2, s4);
    serve_queue_claim_free(&c);
    /* A job without SERVE_JOB_EVENTS keeps none; unsubscribe stops delivery. */
    put(api, "p", 0, id);
    serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c);
    struct seen quiet = SEEN;
    ck_assert_int_eq(serve_queue_subscribe(api, id, 0, false, record, &quiet, &s1), SERVE_Q_OK);
    serve_queue_publish(w, &c, SERVE_EV_STDOUT, "a", 1);
    serve_queue_unsubscribe(api, s1);
    serve_queue_complete(w, &c, "R", 1);
    usleep(200 * 1000);
    ck_assert_int_eq(quiet.count, 0);
    ck_assert_int_eq(
        serve_queue_subscribe(api, "0000000000000000000000000Z", 0, false, record, &quiet, &s1),
        SERVE_Q_NOT_FOUND);
    serve_queue_claim_free(&c);
    serve_queue_destroy(api);
    serve_queue_destroy(api2);
    serve_queue_destroy(w);
    test_redis_destroy(&R);
}
END_TEST

static void tiny_events(struct serve_queue_config *c)
{
    c->events_max_bytes = 4;
}

START_TEST(event_log_is_bounded)
{
    start_redis();
    struct serve_queue *q = open_q("n", tiny_events);
    char id[SERVE_ID_MAX];
    put(q, "p", SERVE_JOB_EVENTS, id);
    struct serve_claim c;
    serve_queue_claim(q, "x", SERVE_LANES_ALL, 0, NULL, NULL,
                      &c); /* "running": 7 bytes, over 4: dropped */
    serve_queue_publish(q, &c, SERVE_EV_STDOUT, "abc", 3);
    serve_queue_publish(q, &c, SERVE_EV_STDOUT, "de", 2); /* would make 5 */
    struct seen s = SEEN;
    struct serve_sub *sub;
    serve_queue_subscribe(q, id, 0, false, record, &s, &sub);
    expect_log(&s, "out:abc;");
    serve_queue_unsubscribe(q, sub);
    redisReply *r = test_redis_command(&R, "XLEN sbx:ev:%s", id);
    ck_assert(r && r->type == REDIS_REPLY_INTEGER && r->integer == 1);
    freeReplyObject(r);
    serve_queue_complete(q, &c, "R", 1);
    r = test_redis_command(&R, "EXISTS sbx:ev:%s", id); /* a done run's events are gone */
    ck_assert(r && r->integer == 0);
    freeReplyObject(r);
    serve_queue_claim_free(&c);
    serve_queue_destroy(q);
    test_redis_destroy(&R);
}
END_TEST

static void short_retention(struct serve_queue_config *c)
{
    c->result_ttl_ms = 300;
    c->results_max = 2;
    c->results_max_bytes = 10;
}

static void run_to_done(struct serve_queue *q, const char *result, char id[SERVE_ID_MAX])
{
    put(q, "p", 0, id);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(q, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_complete(q, &c, result, strlen(result)), SERVE_Q_OK);
    serve_queue_claim_free(&c);
}

START_TEST(retention_by_count_bytes_and_time)
{
    start_redis();
    struct serve_queue *q = open_q("n", short_retention);
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX], c[SERVE_ID_MAX], d[SERVE_ID_MAX];
    enum serve_q_status st;
    char *res;
    size_t len;
    run_to_done(q, "1", a);
    run_to_done(q, "2", b);
    run_to_done(q, "3", c); /* three results, two kept: the oldest goes */
    ck_assert_int_eq(serve_queue_get(q, a, &st, NULL, &res, &len), SERVE_Q_NOT_FOUND);
    free(result_of(q, b, &st));
    run_to_done(q, "123456789", d); /* 1 + 9 = 10 bytes fit, with b's it would be 11 */
    ck_assert_int_eq(serve_queue_get(q, b, &st, NULL, &res, &len), SERVE_Q_NOT_FOUND);
    free(result_of(q, c, &st));
    struct serve_q_stats s;
    serve_queue_stats(q, &s);
    ck_assert_uint_eq(s.results, 2);
    ck_assert_uint_eq(s.result_bytes, 10);
    usleep(400 * 1000); /* the TTL: Redis expires the run itself */
    ck_assert_int_eq(serve_queue_get(q, d, &st, NULL, &res, &len), SERVE_Q_NOT_FOUND);
    char e[SERVE_ID_MAX];
    run_to_done(q, "4", e); /* the next result sweeps the expired ones from the counts */
    serve_queue_stats(q, &s);
    ck_assert_uint_eq(s.results, 1);
    ck_assert_uint_eq(s.result_bytes, 1);
    /* Many results within one millisecond: still the oldest go first (not by their ids). */
    char many[12][SERVE_ID_MAX];
    for (int i = 0; i < 12; i++)
        run_to_done(q, "x", many[i]);
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(serve_queue_get(q, many[i], &st, NULL, &res, &len), SERVE_Q_NOT_FOUND);
    free(result_of(q, many[10], &st));
    free(result_of(q, many[11], &st));
    serve_queue_destroy(q);
    test_redis_destroy(&R);
}
END_TEST

static void small(struct serve_queue_config *c)
{
    c->queue_max = 3;
    c->queue_max_bytes = 100;
}

START_TEST(bounds_refuse_with_full)
{
    start_redis();
    struct serve_queue *q = open_q("n", small);
    char id[SERVE_ID_MAX];
    for (int i = 0; i < 3; i++)
        put(q, "x", 0, id);
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
    serve_queue_destroy(q);
    test_redis_destroy(&R);
}
END_TEST

START_TEST(idempotency_key_returns_the_same_run_on_any_node)
{
    start_redis();
    struct serve_queue *a = open_q("a", short_retention), *b = open_q("b", short_retention);
    struct serve_job job = {.payload = "p", .payload_len = 1, .idempotency_key = "key-1"};
    strcpy(job.key_name, "alice");
    char first[SERVE_ID_MAX], again[SERVE_ID_MAX], other[SERVE_ID_MAX];
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(a, &job, first), SERVE_Q_OK);
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(b, &job, again), SERVE_Q_OK); /* a retry elsewhere */
    ck_assert_str_eq(first, again);
    strcpy(job.key_name, "bob"); /* another API key never gets alice's run */
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(b, &job, other), SERVE_Q_OK);
    ck_assert_str_ne(first, other);
    struct serve_q_stats s;
    serve_queue_stats(a, &s);
    ck_assert_uint_eq(s.queued, 2);
    /* Done, the same key still gives the same run (and its result) until it expires. */
    struct serve_claim c;
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(serve_queue_claim(a, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
        serve_queue_complete(a, &c, "{}", 2);
        serve_queue_claim_free(&c);
    }
    strcpy(job.key_name, "alice");
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(b, &job, again), SERVE_Q_OK);
    ck_assert_str_eq(first, again);
    usleep(400 * 1000);
    serve_id_new(job.id);
    ck_assert_int_eq(serve_queue_enqueue(b, &job, again), SERVE_Q_OK);
    ck_assert_str_eq(again, job.id); /* expired with its run: a new one */
    serve_queue_destroy(a);
    serve_queue_destroy(b);
    test_redis_destroy(&R);
}
END_TEST

/* Redis stops (SIGTERM writes the AOF) and starts again on the same port and dir. */
static void restart_redis(int downtime_ms)
{
    test_redis_stop(&R, SIGTERM);
    usleep((useconds_t)downtime_ms * 1000);
    ck_assert(test_redis_start(&R));
}

START_TEST(redis_away_then_back_nothing_lost)
{
    start_redis();
    struct serve_queue *api = open_q("api", NULL), *w = open_q("w1", NULL);
    char ids[5][SERVE_ID_MAX];
    for (int i = 0; i < 5; i++)
        put(api, "q", 0, ids[i]);
    struct seen waiter = SEEN;
    struct serve_sub *sub;
    ck_assert_int_eq(serve_queue_subscribe(api, ids[0], 0, true, record, &waiter, &sub),
                     SERVE_Q_OK);
    test_redis_stop(&R, SIGTERM);
    /* Down: every call says so quickly; nobody crashes. */
    struct serve_job job = {.payload = "x", .payload_len = 1};
    serve_id_new(job.id);
    char id[SERVE_ID_MAX];
    double t0 = now_ms();
    ck_assert_int_eq(serve_queue_enqueue(api, &job, id), SERVE_Q_UNAVAILABLE);
    ck_assert_int_eq(serve_queue_enqueue(api, &job, id), SERVE_Q_UNAVAILABLE);
    enum serve_q_status st;
    char *res;
    size_t len;
    ck_assert_int_eq(serve_queue_get(api, ids[1], &st, NULL, &res, &len), SERVE_Q_UNAVAILABLE);
    struct serve_q_stats s;
    serve_queue_stats(api, &s);
    ck_assert(!s.is_healthy);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 300, NULL, NULL, &c),
                     SERVE_Q_UNAVAILABLE);
    ck_assert_double_lt(now_ms() - t0, 3000);
    ck_assert(test_redis_start(&R)); /* same port, same dir: the AOF is read back */
    /* Back: the queued runs are there (within the reconnect backoff: a few seconds). */
    t0 = now_ms();
    while (serve_queue_claim(w, "x", SERVE_LANES_ALL, 200, NULL, NULL, &c) != SERVE_Q_OK &&
           now_ms() - t0 < 8000)
        ;
    ck_assert_str_eq(c.id, ids[0]);
    ck_assert_int_eq(serve_queue_complete(w, &c, "R0", 2), SERVE_Q_OK);
    serve_queue_claim_free(&c);
    expect_log(&waiter, "result:R0;"); /* the subscription outlived the restart */
    serve_queue_unsubscribe(api, sub);
    for (int i = 1; i < 5; i++) {
        ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 2000, NULL, NULL, &c),
                         SERVE_Q_OK);
        ck_assert_str_eq(c.id, ids[i]);
        /* Redis away while the result is stored: complete waits for it to come back. */
        if (i == 2)
            restart_redis(300);
        ck_assert_int_eq(serve_queue_complete(w, &c, "R", 1), SERVE_Q_OK);
        serve_queue_claim_free(&c);
    }
    t0 = now_ms();
    while (serve_queue_get(api, ids[4], &st, NULL, &res, &len) != SERVE_Q_OK &&
           now_ms() - t0 < 8000)
        usleep(50 * 1000);
    ck_assert_int_eq(st, SERVE_Q_DONE);
    free(res);
    serve_queue_stats(api, &s);
    ck_assert(s.is_healthy);
    ck_assert_uint_eq(s.queued, 0);
    ck_assert_uint_eq(s.running, 0);
    ck_assert_uint_eq(s.results, 5);
    serve_queue_destroy(api);
    serve_queue_destroy(w);
    test_redis_destroy(&R);
}
END_TEST

struct blocked_claim {
    struct serve_queue *q;
    struct serve_claim c;
    enum serve_q_rc rc;
};

static void *claim_blocking(void *arg)
{
    struct blocked_claim *b = arg;
    b->rc = serve_queue_claim(b->q, "x", SERVE_LANES_ALL, 10000, NULL, NULL, &b->c);
    return NULL;
}

/* Two jobs, one per lane, added in one transaction (as Redis serves a blocked reader after it). */
static void put_two_lanes_at_once(char jail[SERVE_ID_MAX], char js[SERVE_ID_MAX])
{
    struct timeval tv = {.tv_sec = 5};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", R.port, tv);
    ck_assert(c && !c->err);
    serve_id_new(jail);
    serve_id_new(js);
    freeReplyObject(redisCommand(c, "MULTI"));
    for (int i = 0; i < 2; i++) {
        const char *argv[] = {"EVAL",
                              rq_script_text[RQ_ENQUEUE],
                              "0",
                              "sbx:",
                              i ? js : jail,
                              "k",
                              i ? "2" : "0",
                              i ? "js" : "jail",
                              i ? "js" : "jail",
                              "",
                              "100",
                              "100000"};
        freeReplyObject(redisCommandArgv(c, 12, argv, NULL));
    }
    redisReply *r = redisCommand(c, "EXEC");
    ck_assert(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2);
    freeReplyObject(r);
    redisFree(c);
}

START_TEST(lanes_oldest_first_and_only_the_lanes_asked)
{
    start_redis();
    struct serve_queue *api = open_q("api", NULL), *w = open_q("w1", NULL);
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX], c[SERVE_ID_MAX], d[SERVE_ID_MAX];
    put(api, "jail1", 0, a);
    put(api, "js1", SERVE_JOB_JS, b);
    put(api, "jail2", 0, c);
    struct serve_claim cl[4];
    unsigned js = SERVE_LANE_BIT(SERVE_LANE_JS), jail = SERVE_LANE_BIT(SERVE_LANE_JAIL);
    ck_assert_int_eq(serve_queue_claim(w, "x", js, 0, NULL, NULL, &cl[0]), SERVE_Q_OK);
    ck_assert_str_eq(cl[0].id, b); /* only the lane asked for, though a is older */
    ck_assert_int_eq(serve_queue_claim(w, "x", js, 0, NULL, NULL, &cl[1]), SERVE_Q_EMPTY);
    ck_assert_int_eq(serve_queue_claim(w, "x", jail, 0, NULL, NULL, &cl[1]), SERVE_Q_OK);
    ck_assert_str_eq(cl[1].id, a);
    put(api, "js2", SERVE_JOB_JS, d);
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &cl[2]), SERVE_Q_OK);
    ck_assert_str_eq(cl[2].id, c); /* the oldest of both lanes */
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &cl[3]), SERVE_Q_OK);
    ck_assert_str_eq(cl[3].id, d);
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(serve_queue_complete(w, &cl[i], "{}", 2), SERVE_Q_OK);
        serve_queue_claim_free(&cl[i]);
    }
    /* A blocked claimer of both lanes, two entries in one transaction: the older runs first
     * and the other next, once each (Redis 7.0 serves the read with the first lane ready). */
    struct blocked_claim bc = {.q = w};
    pthread_t t;
    pthread_create(&t, NULL, claim_blocking, &bc);
    usleep(300 * 1000);
    char e[SERVE_ID_MAX], f[SERVE_ID_MAX];
    put_two_lanes_at_once(e, f);
    pthread_join(t, NULL);
    ck_assert_int_eq(bc.rc, SERVE_Q_OK);
    ck_assert_str_eq(bc.c.id, e);
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &cl[0]), SERVE_Q_OK);
    ck_assert_str_eq(cl[0].id, f);
    ck_assert_uint_eq(cl[0].attempt, 1);
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &cl[1]),
                     SERVE_Q_EMPTY);
    ck_assert_int_eq(serve_queue_complete(w, &bc.c, "{}", 2), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_complete(w, &cl[0], "{}", 2), SERVE_Q_OK);
    serve_queue_claim_free(&bc.c);
    serve_queue_claim_free(&cl[0]);
    /* An entry a read delivered but nobody started (Redis 7.2 serves a blocked read of two
     * lanes with both): the claim script's requeue gives it back, queued, for anyone. */
    char g[SERVE_ID_MAX];
    put(api, "g", 0, g);
    redisReply *rd = test_redis_command(&R, "XREADGROUP GROUP workers w9 COUNT 1 STREAMS "
                                            "sbx:jobs:jail >");
    ck_assert(rd && rd->type == REDIS_REPLY_ARRAY && rd->elements == 1);
    char entry[64];
    snprintf(entry, sizeof(entry), "%s", rd->element[0]->element[1]->element[0]->element[0]->str);
    freeReplyObject(rd);
    const char *argv[] = {"EVAL", rq_script_text[RQ_CLAIM],
                          "0",    "sbx:",
                          "w9",   "1000",
                          "3",    "3600000",
                          "100",  "100000",
                          "X",    "100000",
                          "100",  "requeue",
                          entry,  "1",
                          "jail"};
    struct timeval tv = {.tv_sec = 5};
    redisContext *rc = redisConnectWithTimeout("127.0.0.1", R.port, tv);
    rd = redisCommandArgv(rc, 17, argv, NULL);
    ck_assert_str_eq(rd->element[0]->str, "again");
    freeReplyObject(rd);
    redisFree(rc);
    rd = test_redis_command(&R, "XPENDING sbx:jobs:jail workers");
    ck_assert_int_eq(rd->element[0]->integer, 0); /* w9 holds nothing now */
    freeReplyObject(rd);
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 0, NULL, NULL, &cl[0]), SERVE_Q_OK);
    ck_assert_str_eq(cl[0].id, g);
    ck_assert_uint_eq(cl[0].attempt, 1);
    ck_assert_int_eq(serve_queue_complete(w, &cl[0], "{}", 2), SERVE_Q_OK);
    serve_queue_claim_free(&cl[0]);
    struct serve_q_stats s;
    serve_queue_stats(api, &s);
    ck_assert_uint_eq(s.queued, 0);
    ck_assert_uint_eq(s.running, 0);
    ck_assert_uint_eq(s.results, 7);
    serve_queue_destroy(api);
    serve_queue_destroy(w);
    test_redis_destroy(&R);
}
END_TEST

static void fast_gc(struct serve_queue_config *c)
{
    c->visibility_ms = 100; /* gc every 100 heartbeat rounds (3.3 s), of consumers idle 1 s */
}

/* The consumer names in the group of lane jail. */
static char *consumers(void)
{
    redisReply *r = test_redis_command(&R, "XINFO CONSUMERS sbx:jobs:jail workers");
    static char names[512];
    names[0] = '\0';
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        size_t n = strlen(names);
        snprintf(names + n, sizeof(names) - n, "%s ", r->element[i]->element[1]->str);
    }
    freeReplyObject(r);
    return names;
}

START_TEST(consumers_of_nodes_gone_are_deleted_unless_they_hold_claims)
{
    start_redis();
    struct serve_queue *old = open_q("gone", NULL), *holder = open_q("holder", NULL);
    char a[SERVE_ID_MAX], b[SERVE_ID_MAX];
    put(old, "a", 0, a);
    put(old, "b", 0, b);
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(old, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_int_eq(serve_queue_complete(old, &c, "{}", 2), SERVE_Q_OK);
    serve_queue_claim_free(&c);
    ck_assert_int_eq(serve_queue_claim(holder, "x", SERVE_LANES_ALL, 0, NULL, NULL, &c),
                     SERVE_Q_OK);
    serve_queue_destroy(old);
    serve_queue_destroy(holder); /* gone too, but its claim of b is pending */
    ck_assert_str_eq(consumers(), "gone holder ");
    struct serve_queue *live = open_q("live", fast_gc);
    double t0 = now_ms();
    while (strcmp(consumers(), "holder ") != 0 && now_ms() - t0 < 15000)
        usleep(100 * 1000);
    ck_assert_str_eq(consumers(), "holder "); /* its pending claim is another's to take over */
    serve_queue_claim_free(&c);
    serve_queue_destroy(live);
    test_redis_destroy(&R);
}
END_TEST

#define STRESS_JOBS 600
struct stress {
    struct serve_queue *api[2], *w[3];
    _Atomic int done[STRESS_JOBS];
    _Atomic int next;
    char ids[STRESS_JOBS][SERVE_ID_MAX];
};

struct producer_arg {
    struct stress *s;
    int api;
};

static void *producer(void *arg)
{
    struct stress *s = ((struct producer_arg *)arg)->s;
    int me = ((struct producer_arg *)arg)->api;
    for (;;) {
        int i = s->next++;
        if (i >= STRESS_JOBS)
            return NULL;
        char payload[32];
        snprintf(payload, sizeof(payload), "%d", i);
        struct serve_job job = {.payload = payload, .payload_len = strlen(payload)};
        serve_id_new(job.id);
        ck_assert_int_eq(serve_queue_enqueue(s->api[me], &job, s->ids[i]), SERVE_Q_OK);
    }
}

struct worker_arg {
    struct stress *s;
    struct serve_queue *q;
};

static void *consumer(void *arg)
{
    struct worker_arg *a = arg;
    struct serve_claim c;
    while (serve_queue_claim(a->q, "x", SERVE_LANES_ALL, 1500, NULL, NULL, &c) == SERVE_Q_OK) {
        a->s->done[atoi(c.payload)]++;
        char result[48];
        int n = snprintf(result, sizeof(result), "{\"n\":%d}", atoi(c.payload) * 2);
        ck_assert_int_eq(serve_queue_complete(a->q, &c, result, (size_t)n), SERVE_Q_OK);
        serve_queue_claim_free(&c);
    }
    return NULL;
}

START_TEST(many_nodes_many_threads_each_job_once)
{
    start_redis();
    static struct stress s;
    s.api[0] = open_q("api1", NULL);
    s.api[1] = open_q("api2", NULL);
    pthread_t p[2], c[6];
    struct worker_arg wa[6];
    for (int i = 0; i < 3; i++)
        s.w[i] = open_q(i == 0 ? "w1" : i == 1 ? "w2" : "w3", NULL);
    for (int i = 0; i < 6; i++) {
        wa[i] = (struct worker_arg){.s = &s, .q = s.w[i % 3]};
        pthread_create(&c[i], NULL, consumer, &wa[i]);
    }
    struct producer_arg pa[2] = {{&s, 0}, {&s, 1}};
    for (int i = 0; i < 2; i++)
        pthread_create(&p[i], NULL, producer, &pa[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(p[i], NULL);
    for (int i = 0; i < 6; i++)
        pthread_join(c[i], NULL);
    for (int i = 0; i < STRESS_JOBS; i++) {
        ck_assert_msg(s.done[i] == 1, "job %d ran %d times", i, s.done[i]);
        enum serve_q_status st;
        char *res = result_of(s.api[i % 2], s.ids[i], &st), want[48];
        snprintf(want, sizeof(want), "{\"n\":%d}", i * 2);
        ck_assert_str_eq(res, want);
        free(res);
    }
    struct serve_q_stats st;
    serve_queue_stats(s.api[0], &st);
    ck_assert_uint_eq(st.queued, 0);
    ck_assert_uint_eq(st.running, 0);
    ck_assert_uint_eq(st.takeovers, 0);
    ck_assert_uint_eq(st.results, STRESS_JOBS);
    /* Per-node counts, from any node: the three workers' sum is every run. */
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    s.api[0]->ops->metrics(s.api[0], f);
    fclose(f);
    long sum = 0;
    for (int i = 1; i <= 3; i++) {
        char want[96];
        snprintf(want, sizeof(want), "sbx_serve_queue_runs_completed_total{node=\"w%d\"} ", i);
        const char *at = strstr(text, want);
        ck_assert_msg(at, "%s", text);
        sum += atol(at + strlen(want));
    }
    ck_assert_int_eq(sum, STRESS_JOBS);
    free(text);
    redisReply *r = test_redis_command(&R, "XLEN sbx:jobs:jail"); /* every entry deleted */
    ck_assert(r && r->type == REDIS_REPLY_INTEGER && r->integer == 0);
    freeReplyObject(r);
    for (int i = 0; i < 2; i++)
        serve_queue_destroy(s.api[i]);
    for (int i = 0; i < 3; i++)
        serve_queue_destroy(s.w[i]);
    test_redis_destroy(&R);
}
END_TEST

static Suite *queue_redis_suite(void)
{
    Suite *s = suite_create("serve_queue_redis");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, url_forms);
    tcase_add_test(tc, enqueue_on_one_node_claim_on_another);
    tcase_add_test(tc, claim_blocks_until_another_node_enqueues);
    tcase_add_test(tc, frozen_claimant_is_taken_over_and_fenced);
    tcase_add_test(tc, killed_claimants_use_up_the_attempts_then_the_run_fails);
    tcase_add_test(tc, cancel_reaches_the_worker_on_another_node);
    tcase_add_test(tc, events_cross_nodes_replay_live_and_end_with_result);
    tcase_add_test(tc, event_log_is_bounded);
    tcase_add_test(tc, retention_by_count_bytes_and_time);
    tcase_add_test(tc, bounds_refuse_with_full);
    tcase_add_test(tc, idempotency_key_returns_the_same_run_on_any_node);
    tcase_add_test(tc, redis_away_then_back_nothing_lost);
    tcase_add_test(tc, lanes_oldest_first_and_only_the_lanes_asked);
    tcase_add_test(tc, consumers_of_nodes_gone_are_deleted_unless_they_hold_claims);
    tcase_add_test(tc, many_nodes_many_threads_each_job_once);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(queue_redis_suite());
}

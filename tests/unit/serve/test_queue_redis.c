/* The Redis Streams queue (#25) against a real redis-server (a free loopback port, a temp dir,
 * AOF on): the contract of serve/queue.h (queue_contract.h, the suite the embedded queue runs
 * too) with several queue handles standing for API and worker nodes, then what only Redis has:
 * claimants that die (SIGKILL) or freeze (SIGSTOP) are child processes, so their heartbeats
 * really stop. Takeovers, the attempt fence across processes, max attempts, a cancel of a lost
 * run, Redis going away and coming back, blocked reads of two lanes, consumer cleanup, many
 * nodes at once. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "queue_contract.h"
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

static void contract_setup(void)
{
    start_redis();
}

static void contract_teardown(void)
{
    test_redis_destroy(&R);
}

static struct serve_queue *redis_open(const char *node, qc_tune *tune)
{
    return open_q(node, tune);
}

/* A run's event stream: its entries, or -1 when Redis has no such key. */
static long redis_event_entries(const char *id)
{
    redisReply *r = test_redis_command(&R, "EXISTS sbx:ev:%s", id);
    ck_assert(r && r->type == REDIS_REPLY_INTEGER);
    long n = r->integer ? 0 : -1;
    freeReplyObject(r);
    if (n == 0) {
        r = test_redis_command(&R, "XLEN sbx:ev:%s", id);
        ck_assert(r && r->type == REDIS_REPLY_INTEGER);
        n = (long)r->integer;
        freeReplyObject(r);
    }
    return n;
}

static const struct qc_backend redis_backend = {
    .open = redis_open,
    .close = serve_queue_destroy,
    .claim_wait_ms = 300,
    .wake_ms = 5000,
    .closed_ms = 2700,
    .result_ttl_ms = 300,
    .event_entries = redis_event_entries,
};

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
    qc_put(api, "job", 0, id);
    child_read(&ch, line, sizeof(line));
    char expect[64];
    snprintf(expect, sizeof(expect), "%s 1", id);
    ck_assert_str_eq(line, expect);
    /* Alive, it keeps its claim well past the visibility timeout (1 s). */
    struct serve_claim c;
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 2500, NULL, NULL, &c),
                     SERVE_Q_EMPTY);
    kill(ch.pid, SIGSTOP); /* frozen: its heartbeats stop */
    double t0 = qc_now_ms();
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 10000, NULL, NULL, &c), SERVE_Q_OK);
    ck_assert_double_ge(qc_now_ms() - t0, 600); /* not before the visibility timeout */
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
    char *res = qc_result_of(api, id, &st);
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
    qc_put(api, "job", 0, id);
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
    char *res = qc_result_of(api, id, &st);
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

/* Cancelled while its claimant is lost (killed): the takeover ends it with the cancel's
 * result (the rest of cancel's contract: queue_contract.h). */
START_TEST(cancel_of_a_lost_claimant_ends_at_its_takeover)
{
    start_redis();
    struct serve_queue *api = open_q("api", NULL), *w = open_q("w1", NULL);
    enum serve_q_status found, st;
    struct serve_claim c;
    char *res;
    /* Cancelled while its worker is lost: the takeover ends it with the cancel's result. */
    char d[SERVE_ID_MAX], line[256];
    qc_put(api, "d", 0, d);
    struct child ch = spawn_claimant(NULL);
    child_read(&ch, line, sizeof(line));
    child_end(&ch);
    ck_assert_int_eq(serve_queue_cancel(api, d, "{\"gone\":1}", &found), SERVE_Q_OK);
    ck_assert_int_eq(found, SERVE_Q_RUNNING);
    ck_assert_int_eq(serve_queue_claim(w, "x", SERVE_LANES_ALL, 3000, NULL, NULL, &c),
                     SERVE_Q_EMPTY);
    res = qc_result_of(api, d, &st);
    ck_assert_int_eq(st, SERVE_Q_DONE);
    ck_assert_str_eq(res, "{\"gone\":1}");
    free(res);
    serve_queue_destroy(api);
    serve_queue_destroy(w);
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
        qc_put(api, "q", 0, ids[i]);
    struct qc_seen waiter = QC_SEEN;
    struct serve_sub *sub;
    ck_assert_int_eq(serve_queue_subscribe(api, ids[0], 0, true, qc_record, &waiter, &sub),
                     SERVE_Q_OK);
    test_redis_stop(&R, SIGTERM);
    /* Down: every call says so quickly; nobody crashes. */
    struct serve_job job = {.payload = "x", .payload_len = 1};
    serve_id_new(job.id);
    char id[SERVE_ID_MAX];
    double t0 = qc_now_ms();
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
    ck_assert_double_lt(qc_now_ms() - t0, 3000);
    ck_assert(test_redis_start(&R)); /* same port, same dir: the AOF is read back */
    /* Back: the queued runs are there (within the reconnect backoff: a few seconds). */
    t0 = qc_now_ms();
    while (serve_queue_claim(w, "x", SERVE_LANES_ALL, 200, NULL, NULL, &c) != SERVE_Q_OK &&
           qc_now_ms() - t0 < 8000)
        ;
    ck_assert_str_eq(c.id, ids[0]);
    ck_assert_int_eq(serve_queue_complete(w, &c, "R0", 2), SERVE_Q_OK);
    serve_queue_claim_free(&c);
    qc_expect_log(&waiter, "result:R0;"); /* the subscription outlived the restart */
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
    t0 = qc_now_ms();
    while (serve_queue_get(api, ids[4], &st, NULL, &res, &len) != SERVE_Q_OK &&
           qc_now_ms() - t0 < 8000)
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

/* Lanes as Redis serves a blocked reader (the rest of the lanes' contract:
 * queue_contract.h). */
START_TEST(lanes_blocked_claimer_and_requeue)
{
    start_redis();
    struct serve_queue *api = open_q("api", NULL), *w = open_q("w1", NULL);
    struct serve_claim cl[2];
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
    qc_put(api, "g", 0, g);
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
    ck_assert_uint_eq(s.results, 3);
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
    qc_put(old, "a", 0, a);
    qc_put(old, "b", 0, b);
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
    double t0 = qc_now_ms();
    while (strcmp(consumers(), "holder ") != 0 && qc_now_ms() - t0 < 15000)
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
        char *res = qc_result_of(s.api[i % 2], s.ids[i], &st), want[48];
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
    tcase_add_test(tc, frozen_claimant_is_taken_over_and_fenced);
    tcase_add_test(tc, killed_claimants_use_up_the_attempts_then_the_run_fails);
    tcase_add_test(tc, cancel_of_a_lost_claimant_ends_at_its_takeover);
    tcase_add_test(tc, redis_away_then_back_nothing_lost);
    tcase_add_test(tc, lanes_blocked_claimer_and_requeue);
    tcase_add_test(tc, consumers_of_nodes_gone_are_deleted_unless_they_hold_claims);
    tcase_add_test(tc, many_nodes_many_threads_each_job_once);
    suite_add_tcase(s, tc);
    TCase *contract = qc_tcase("contract", 60);
    tcase_add_checked_fixture(contract, contract_setup, contract_teardown);
    suite_add_tcase(s, contract);
    return s;
}

int main(void)
{
    QC = &redis_backend;
    return sbx_test_main(queue_redis_suite());
}

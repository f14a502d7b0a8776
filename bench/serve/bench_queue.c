/* bench/serve/bench_queue.c: the queue alone, the embedded one against Redis in the same run
 * (make bench-serve; bench/serve/redis.sh starts the redis-server). Modes:
 *   latency URL N ROUNDS   one run at a time, as the server does it (enqueue, subscribe for the
 *                          result, a worker thread blocked in claim() completes it): p50/p99 per
 *                          queue, rounds interleaved; "added" is Redis's p50 minus memory's.
 *   throughput URL NODES THREADS N   N no-op runs through Redis, NODES worker handles with
 *                          THREADS claimers each and 2 API handles submitting: runs/s, and the
 *                          CPU Redis spent per run (INFO cpu), so runs/s per Redis core.
 * Prints key=value pairs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "serve/queue.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void fail(const char *what)
{
    fprintf(stderr, "bench_queue: %s\n", what);
    exit(1);
}

static struct serve_queue *open_queue(const char *url, const char *node)
{
    struct serve_queue_config cfg;
    serve_queue_config_init(&cfg);
    cfg.queue_max = 1000000;
    cfg.results_max = 1000000;
    cfg.max_attempts = 3;
    struct serve_queue *q = NULL;
    char err[256] = "";
    enum serve_q_rc rc = url ? serve_queue_redis_create(url, node, &cfg, &q, err, sizeof(err))
                             : serve_queue_mem_create(&cfg, &q);
    if (rc != SERVE_Q_OK)
        fail(err[0] ? err : "cannot create the queue");
    return q;
}

/* ---- latency: one run at a time ----------------------------------------------------------- */

struct waiter {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool is_done;
};

static void on_result(void *user, const struct serve_event *ev)
{
    struct waiter *w = user;
    if (ev->kind != SERVE_EV_RESULT)
        return;
    pthread_mutex_lock(&w->lock);
    w->is_done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static void *worker_main(void *arg)
{
    struct serve_queue *q = arg;
    struct serve_claim c;
    for (;;) {
        enum serve_q_rc rc = serve_queue_claim(q, "w", SERVE_LANES_ALL, 1000, NULL, NULL, &c);
        if (rc == SERVE_Q_CLOSED)
            return NULL;
        if (rc != SERVE_Q_OK)
            continue;
        serve_queue_complete(q, &c, "{\"ok\":true,\"value\":42}", 22);
        serve_queue_claim_free(&c);
    }
}

/* One run through the API side of api (and a worker on wq): its latency in ms. */
static double one_run(struct serve_queue *api)
{
    static const char payload[] = "{\"tier\":\"worker\",\"code\":\"return context.a + 1\"}";
    struct waiter w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct serve_job job = {.payload = payload, .payload_len = sizeof(payload) - 1};
    char id[SERVE_ID_MAX];
    struct serve_sub *sub = NULL;
    double t0 = now_s();
    serve_id_new(job.id);
    if (serve_queue_enqueue(api, &job, id) != SERVE_Q_OK ||
        serve_queue_subscribe(api, id, 0, true, on_result, &w, &sub) != SERVE_Q_OK)
        fail("enqueue/subscribe failed");
    pthread_mutex_lock(&w.lock);
    while (!w.is_done)
        pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    double ms = (now_s() - t0) * 1e3;
    serve_queue_unsubscribe(api, sub);
    return ms;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
    qsort(v, n, sizeof(*v), cmp);
    return v[(size_t)(p * (double)(n - 1))];
}

static int latency(const char *url, int n, int rounds)
{
    struct serve_queue *q[2] = {open_queue(NULL, "api"), open_queue(url, "api")};
    struct serve_queue *wq[2] = {q[0], open_queue(url, "worker")}; /* memory: one process */
    pthread_t t[2];
    for (int k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, worker_main, wq[k]);
    double *lat[2] = {calloc((size_t)(n * rounds), sizeof(double)),
                      calloc((size_t)(n * rounds), sizeof(double))};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 50; i++)
            one_run(q[k]); /* warm: connections, scripts */
    }
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < n; i++)
                lat[k][r * n + i] = one_run(q[k]);
        }
    }
    size_t total = (size_t)(n * rounds);
    double p50[2], p99[2];
    for (int k = 0; k < 2; k++) {
        p50[k] = pct(lat[k], total, 0.5);
        p99[k] = pct(lat[k], total, 0.99);
    }
    printf("runs=%zu memory_p50_ms=%.3f memory_p99_ms=%.3f redis_p50_ms=%.3f redis_p99_ms=%.3f "
           "added_p50_ms=%.3f\n",
           total, p50[0], p99[0], p50[1], p99[1], p50[1] - p50[0]);
    for (int k = 0; k < 2; k++) {
        serve_queue_close(wq[k]);
        pthread_join(t[k], NULL);
        free(lat[k]);
    }
    serve_queue_destroy(q[0]);
    serve_queue_destroy(q[1]);
    serve_queue_destroy(wq[1]);
    return 0;
}

/* ---- throughput ---------------------------------------------------------------------------- */

struct submit {
    struct serve_queue *api;
    int count;
};

static void *submit_main(void *arg)
{
    struct submit *s = arg;
    for (int i = 0; i < s->count; i++) {
        struct serve_job job = {.payload = "{}", .payload_len = 2};
        char id[SERVE_ID_MAX];
        serve_id_new(job.id);
        while (serve_queue_enqueue(s->api, &job, id) != SERVE_Q_OK)
            usleep(1000);
    }
    return NULL;
}

static _Atomic long completed;

static void *drain_main(void *arg)
{
    struct serve_queue *q = arg;
    struct serve_claim c;
    for (;;) {
        enum serve_q_rc rc = serve_queue_claim(q, "w", SERVE_LANES_ALL, 200, NULL, NULL, &c);
        if (rc == SERVE_Q_CLOSED)
            return NULL;
        if (rc != SERVE_Q_OK)
            continue;
        if (serve_queue_complete(q, &c, "{\"ok\":true}", 11) == SERVE_Q_OK)
            completed++;
        serve_queue_claim_free(&c);
    }
}

/* Redis's CPU seconds so far (user + sys), from INFO cpu. */
static double redis_cpu(const char *host, int port)
{
    struct timeval tv = {.tv_sec = 2};
    redisContext *c = redisConnectWithTimeout(host, port, tv);
    redisReply *r = c && !c->err ? redisCommand(c, "INFO cpu") : NULL;
    double total = -1;
    if (r && r->type == REDIS_REPLY_STRING) {
        const char *u = strstr(r->str, "used_cpu_user:"), *s = strstr(r->str, "used_cpu_sys:");
        if (u && s)
            total = atof(u + 14) + atof(s + 13);
    }
    freeReplyObject(r);
    redisFree(c);
    return total;
}

static int throughput(const char *url, int nodes, int threads, int n)
{
    char host[128] = "127.0.0.1";
    int port = 6379;
    if (sscanf(url, "redis://%127[^:]:%d", host, &port) < 1)
        fail("url: redis://HOST:PORT");
    struct serve_queue *api[2] = {open_queue(url, "api1"), open_queue(url, "api2")};
    struct serve_queue **w = calloc((size_t)nodes, sizeof(*w));
    pthread_t *t = calloc((size_t)(nodes * threads), sizeof(*t)), sub[2];
    for (int i = 0; i < nodes; i++) {
        char name[32];
        snprintf(name, sizeof(name), "w%d", i + 1);
        w[i] = open_queue(url, name);
        for (int k = 0; k < threads; k++)
            pthread_create(&t[i * threads + k], NULL, drain_main, w[i]);
    }
    double cpu0 = redis_cpu(host, port), t0 = now_s();
    struct submit s[2] = {{api[0], n / 2}, {api[1], n - n / 2}};
    for (int i = 0; i < 2; i++)
        pthread_create(&sub[i], NULL, submit_main, &s[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(sub[i], NULL);
    while (completed < n && now_s() - t0 < 600)
        usleep(1000);
    double secs = now_s() - t0, cpu = redis_cpu(host, port) - cpu0;
    printf("runs=%ld nodes=%d threads=%d seconds=%.3f runs_per_s=%.0f redis_cpu_s=%.3f "
           "redis_cpu_us_per_run=%.1f runs_per_redis_core_s=%.0f\n",
           (long)completed, nodes, threads, secs, (double)completed / secs, cpu,
           cpu * 1e6 / (double)completed, (double)completed / cpu);
    for (int i = 0; i < nodes; i++)
        serve_queue_close(w[i]);
    for (int i = 0; i < nodes * threads; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < nodes; i++)
        serve_queue_destroy(w[i]);
    serve_queue_destroy(api[0]);
    serve_queue_destroy(api[1]);
    free(w);
    free(t);
    return completed == n ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "latency"))
        return latency(argv[2], atoi(argv[3]), atoi(argv[4]));
    if (argc == 6 && !strcmp(argv[1], "throughput"))
        return throughput(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    fprintf(stderr, "usage: bench_queue latency URL N ROUNDS | throughput URL NODES THREADS N\n");
    return 2;
}

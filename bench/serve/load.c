/* bench/serve/load.c: an HTTP/1.1 keep-alive client for `make bench-serve`, where wrk's closed
 * loop cannot answer: latency at a fixed request rate (open loop: each request has a scheduled
 * time and its latency counts from it, so a slow server cannot hide its queueing), and the
 * latency of requests one after another. Modes:
 *   rate HOST PORT PATH BODY RATE SECONDS CONNS   p50/p99 at RATE requests/s
 *   seq HOST PORT PATH BODY N                     median of N requests in a row
 * Every answer must be 2xx (202: accepted, not waited for); prints key=value pairs.
 * rate mode also splits each latency (from the scheduled time to the whole answer read) into
 * where it went, to tell the tail's cause: conn_wait (the previous request on the same
 * connection was still out: the server's slowness, carried over), client_late (this client's
 * own thread started the request late: its own scheduling), wire (sent to the server's
 * handler, and its answer back to this client: loopback, libmicrohttpd's thread wake-ups,
 * this client's read), http (the server's own stages: the body, parsing and queueing the run,
 * the answer: Server-Timing body + submit + respond), hop (Server-Timing wait less the run:
 * the pool, the socketpair, the runner's threads, the result's way back) and run (the result's
 * durationMs: the library's time in the runner). For each part: its p99, and how many of the
 * requests over 5 ms it was the largest part of; then the same for the requests whose own
 * time (without conn_wait) was over 5 ms: the slow ones that make the ones behind them wait,
 * and how many of those the client itself waited for a CPU more than half of (its thread's
 * run-queue time over the request, /proc/thread-self/schedstat: the shared cores' share). */
#include <pthread.h>

#include "http_client.h"

enum { PART_CONN_WAIT, PART_CLIENT_LATE, PART_WIRE, PART_HTTP, PART_HOP, PART_RUN, PARTS };
static const char *const part_names[PARTS] = {"conn_wait", "client_late", "wire",
                                              "http",      "hop",         "run"};

struct conn {
    int index, conns;
    double start, rate, secs;
    double *lat, *part[PARTS], *runq; /* runq: this thread's run-queue ms over the request */
    size_t count, errors;
};

/* This thread's time spent runnable but waiting for a CPU, in ms (0 when not known). */
static double runq_ms(void)
{
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    unsigned long long on_cpu = 0, waited = 0;
    if (f && fscanf(f, "%llu %llu", &on_cpu, &waited) != 2)
        waited = 0;
    if (f)
        fclose(f);
    return (double)waited / 1e6;
}

static void *conn_main(void *arg)
{
    struct conn *c = arg;
    int fd = connect_to();
    size_t total = (size_t)(c->rate * c->secs);
    c->lat = calloc(total / (size_t)c->conns + 2, sizeof(double));
    for (int k = 0; k < PARTS; k++)
        c->part[k] = calloc(total / (size_t)c->conns + 2, sizeof(double));
    c->runq = calloc(total / (size_t)c->conns + 2, sizeof(double));
    double prev_end = 0;
    for (size_t i = (size_t)c->index; i < total; i += (size_t)c->conns) {
        double due = c->start + (double)i / c->rate, runq0 = runq_ms();
        double now = now_s();
        if (due > now)
            usleep((useconds_t)((due - now) * 1e6));
        double sent = now_s();
        struct answer_times at;
        int status = exchange_timed(fd, &at);
        if (status < 200 || status > 299)
            c->errors++;
        double end = now_s(), ready = prev_end > due ? prev_end : due;
        c->runq[c->count] = runq_ms() - runq0;
        prev_end = end;
        double run = at.run > 0 ? at.run : 0, http = 0, wait = 0;
        for (int k = 0; k < 4; k++)
            *(k == 2 ? &wait : &http) += at.stage[k] > 0 ? at.stage[k] : 0;
        double *part[PARTS];
        for (int k = 0; k < PARTS; k++)
            part[k] = &c->part[k][c->count];
        *part[PART_CONN_WAIT] = (ready - due) * 1e3;
        *part[PART_CLIENT_LATE] = (sent - ready) * 1e3;
        *part[PART_WIRE] = (end - sent) * 1e3 - http - (wait > run ? wait : run);
        *part[PART_HTTP] = http;
        *part[PART_HOP] = wait > run ? wait - run : 0;
        *part[PART_RUN] = run;
        c->lat[c->count++] = (end - due) * 1e3; /* from its scheduled time */
    }
    close(fd);
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int rate_mode(double rate, double secs, int conns)
{
    struct conn c[256];
    pthread_t t[256];
    double start = now_s() + 0.1;
    for (int i = 0; i < conns; i++) {
        c[i] =
            (struct conn){.index = i, .conns = conns, .start = start, .rate = rate, .secs = secs};
        pthread_create(&t[i], NULL, conn_main, &c[i]);
    }
    size_t n = 0, errors = 0;
    for (int i = 0; i < conns; i++) {
        pthread_join(t[i], NULL);
        n += c[i].count;
        errors += c[i].errors;
    }
    double took = now_s() - start, *all = calloc(n, sizeof(double));
    double *part[PARTS];
    size_t slow = 0, slow_by[PARTS] = {0}, own = 0, own_by[PARTS] = {0}, own_runq = 0;
    for (int k = 0; k < PARTS; k++)
        part[k] = calloc(n, sizeof(double));
    for (int i = 0, m = 0; i < conns; i++) {
        for (size_t j = 0; j < c[i].count; j++, m++) {
            all[m] = c[i].lat[j];
            int top = 0, own_top = PART_CLIENT_LATE;
            for (int k = 0; k < PARTS; k++) {
                part[k][m] = c[i].part[k][j];
                top = part[k][m] > part[top][m] ? k : top;
                own_top = k != PART_CONN_WAIT && part[k][m] > part[own_top][m] ? k : own_top;
            }
            slow += all[m] > 5.0;
            slow_by[top] += all[m] > 5.0;
            int is_own_slow = all[m] - part[PART_CONN_WAIT][m] > 5.0;
            own += is_own_slow;
            own_by[own_top] += is_own_slow;
            own_runq += is_own_slow && c[i].runq[j] > (all[m] - part[PART_CONN_WAIT][m]) / 2;
        }
    }
    qsort(all, n, sizeof(double), cmp);
    printf("rate=%.0f achieved=%.0f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f requests=%zu errors=%zu\n",
           rate, (double)n / took, all[n / 2], all[n * 99 / 100], all[n - 1], n, errors);
    printf("  parts: p99_ms");
    for (int k = 0; k < PARTS; k++) {
        qsort(part[k], n, sizeof(double), cmp);
        printf(" %s=%.3f", part_names[k], part[k][n * 99 / 100]);
    }
    printf("; over_5ms=%zu, largest part:", slow);
    for (int k = 0; k < PARTS; k++)
        printf(" %s=%zu", part_names[k], slow_by[k]);
    printf("; own time over_5ms=%zu, largest part:", own);
    for (int k = PART_CLIENT_LATE; k < PARTS; k++)
        printf(" %s=%zu", part_names[k], own_by[k]);
    printf(", the client waiting for a CPU over half of it: %zu\n", own_runq);
    return errors ? 1 : 0;
}

static int seq_mode(int n)
{
    int fd = connect_to();
    double *ms = calloc((size_t)n, sizeof(double)), sum = 0;
    for (int i = -3; i < n; i++) {
        double t0 = now_s();
        int status = exchange(fd);
        if (status < 200 || status > 299) {
            fprintf(stderr, "load: a request failed\n");
            return 1;
        }
        if (i >= 0)
            sum += ms[i] = (now_s() - t0) * 1e3;
    }
    qsort(ms, (size_t)n, sizeof(double), cmp);
    printf("median_ms=%.3f mean_ms=%.3f requests=%d\n", ms[n / 2], sum / n, n);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 6) {
        host = argv[2];
        port = atoi(argv[3]);
        path = argv[4];
        body = argv[5];
    }
    if (argc == 9 && strcmp(argv[1], "rate") == 0)
        return rate_mode(atof(argv[6]), atof(argv[7]), atoi(argv[8]));
    if (argc == 7 && strcmp(argv[1], "seq") == 0)
        return seq_mode(atoi(argv[6]));
    fprintf(stderr, "usage: load rate HOST PORT PATH BODY RATE SECONDS CONNS\n"
                    "       load seq HOST PORT PATH BODY N\n");
    return 2;
}

/* bench/serve/load.c: an HTTP/1.1 keep-alive client for `make bench-serve`, where wrk's closed
 * loop cannot answer: latency at a fixed request rate (open loop: each request has a scheduled
 * time and its latency counts from it, so a slow server cannot hide its queueing), and the
 * latency of requests one after another. Modes:
 *   rate HOST PORT PATH BODY RATE SECONDS CONNS   p50/p99 at RATE requests/s
 *   seq HOST PORT PATH BODY N                     median of N requests in a row
 * Every answer must be 2xx (202: accepted, not waited for); prints key=value pairs. */
#include <pthread.h>

#include "http_client.h"

struct conn {
    int index, conns;
    double start, rate, secs;
    double *lat;
    size_t count, errors;
};

static void *conn_main(void *arg)
{
    struct conn *c = arg;
    int fd = connect_to();
    size_t total = (size_t)(c->rate * c->secs);
    c->lat = calloc(total / (size_t)c->conns + 2, sizeof(double));
    for (size_t i = (size_t)c->index; i < total; i += (size_t)c->conns) {
        double due = c->start + (double)i / c->rate;
        double now = now_s();
        if (due > now)
            usleep((useconds_t)((due - now) * 1e6));
        int status = exchange(fd);
        if (status < 200 || status > 299)
            c->errors++;
        c->lat[c->count++] = (now_s() - due) * 1e3; /* from its scheduled time */
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
    for (int i = 0, k = 0; i < conns; i++)
        for (size_t j = 0; j < c[i].count; j++)
            all[k++] = c[i].lat[j];
    qsort(all, n, sizeof(double), cmp);
    printf("rate=%.0f achieved=%.0f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f requests=%zu errors=%zu\n",
           rate, (double)n / took, all[n / 2], all[n * 99 / 100], all[n - 1], n, errors);
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

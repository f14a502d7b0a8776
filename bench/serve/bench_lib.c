/* bench/serve/bench_lib.c: the library's own rates, the peers of `make bench-serve`'s HTTP
 * figures, measured in the same run. Modes:
 *   worker THREADS SECONDS   runs/s of `return context.a + 1`, one sandbox per thread
 *   process RUNS             median and mean ms of /bin/true, one reused sandbox
 *   rate RATE SECONDS THREADS  p50/p99 of `return context.a + 1` at RATE runs/s, open loop
 *                            (as load.c's rate mode, THREADS sandboxes): the library's own
 *                            tail at the rate the HTTP latency is measured at
 *   pair PORT RUNS           /bin/true through the library and through sbx serve on PORT,
 *                            one of each in turn, so the machine's load falls on both alike;
 *                            the median of the per-pair differences is the service's cost
 * Prints one line of key=value pairs. */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <sbx.h>

#include "http_client.h"

static atomic_long total;
static double until;

static sbx_sandbox *sandbox(sbx_backend tier)
{
    sbx_policy *p = NULL;
    sbx_sandbox *sb = NULL;
    if (sbx_policy_parse("{}", 2, &p, NULL, 0) != SBX_OK || sbx_sandbox_create(tier, p, &sb))
        exit(1);
    sbx_policy_destroy(p);
    return sb;
}

static void *worker(void *arg)
{
    (void)arg;
    sbx_sandbox *sb = sandbox(SBX_BACKEND_WORKER);
    const char *code = "return context.a + 1";
    sbx_run_input in = {.code = code, .code_len = strlen(code), .context_json = "{\"a\":41}"};
    long n = 0;
    while (now_s() < until) {
        sbx_result r;
        sbx_sandbox_run(sb, &in, &r);
        if (!r.ok || strcmp(r.value_json, "42") != 0)
            exit(1);
        sbx_result_free(&r);
        n++;
    }
    atomic_fetch_add(&total, n);
    sbx_sandbox_destroy(sb);
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static long status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, key, strlen(key)) == 0)
            kib = atol(line + strlen(key));
    }
    if (f)
        fclose(f);
    return kib;
}

/* rate mode: thread index of threads runs i = index, index + threads, ... each due at
 * start + i / rate; its latency counts from then (a run late to start counts its lateness). */
struct rate_thread {
    int index, threads;
    double start, rate, secs;
    double *lat;
    size_t count;
};

static void *rate_main(void *arg)
{
    struct rate_thread *t = arg;
    sbx_sandbox *sb = sandbox(SBX_BACKEND_WORKER);
    const char *code = "return context.a + 1";
    sbx_run_input in = {.code = code, .code_len = strlen(code), .context_json = "{\"a\":41}"};
    size_t runs = (size_t)(t->rate * t->secs);
    t->lat = calloc(runs / (size_t)t->threads + 2, sizeof(double));
    for (size_t i = (size_t)t->index; i < runs; i += (size_t)t->threads) {
        double due = t->start + (double)i / t->rate, now = now_s();
        if (due > now)
            usleep((useconds_t)((due - now) * 1e6));
        sbx_result r;
        sbx_sandbox_run(sb, &in, &r);
        if (!r.ok || strcmp(r.value_json, "42") != 0)
            exit(1);
        sbx_result_free(&r);
        t->lat[t->count++] = (now_s() - due) * 1e3;
    }
    sbx_sandbox_destroy(sb);
    return NULL;
}

static int rate_mode(double rate, double secs, int threads)
{
    struct rate_thread t[64];
    pthread_t tid[64];
    threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    worker(NULL); /* warm: the engine module and a first heap */
    double start = now_s() + 0.1;
    for (int i = 0; i < threads; i++) {
        t[i] = (struct rate_thread){
            .index = i, .threads = threads, .start = start, .rate = rate, .secs = secs};
        pthread_create(&tid[i], NULL, rate_main, &t[i]);
    }
    size_t n = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        n += t[i].count;
    }
    double took = now_s() - start, *all = calloc(n, sizeof(double));
    for (int i = 0, k = 0; i < threads; i++)
        for (size_t j = 0; j < t[i].count; j++)
            all[k++] = t[i].lat[j];
    qsort(all, n, sizeof(double), cmp);
    printf("rate=%.0f achieved=%.0f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f runs=%zu threads=%d "
           "rss_kib=%ld hwm_kib=%ld\n",
           rate, (double)n / took, all[n / 2], all[n * 99 / 100], all[n - 1], n, threads,
           status_kib("VmRSS:"), status_kib("VmHWM:"));
    return 0;
}

/* CPU seconds (user + system, with reaped children) of one process. */
static double proc_cpu_s(long pid)
{
    char name[64], buf[1024];
    snprintf(name, sizeof(name), "/proc/%ld/stat", pid);
    FILE *f = fopen(name, "r");
    size_t len = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f)
        fclose(f);
    buf[len] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long long v[4] = {0};
    /* after "(comm)": state ppid ... field 14 utime, 15 stime, 16 cutime, 17 cstime */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
                     &v[0], &v[1], &v[2], &v[3]) != 4)
        return 0;
    return (double)(v[0] + v[1] + v[2] + v[3]) / (double)sysconf(_SC_CLK_TCK);
}

/* CPU of the server (pid) and its runners (its children, with their reaped jails). */
static double tree_cpu_s(long pid)
{
    double sum = proc_cpu_s(pid);
    char name[64];
    snprintf(name, sizeof(name), "/proc/%ld/task", pid);
    DIR *d = opendir(name);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        char kids[320];
        snprintf(kids, sizeof(kids), "/proc/%ld/task/%s/children", pid, e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(kids, "r") : NULL;
        for (long kid; f && fscanf(f, "%ld", &kid) == 1;)
            sum += proc_cpu_s(kid);
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return sum;
}

static double self_cpu_s(void)
{
    struct rusage a, b;
    getrusage(RUSAGE_SELF, &a);
    getrusage(RUSAGE_CHILDREN, &b);
    return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) +
           (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec +
                    b.ru_stime.tv_usec) /
               1e6;
}

static int pair(int to_port, int n)
{
    host = "127.0.0.1";
    port = to_port;
    path = "/v1/runs";
    body = "{\"tier\":\"process\",\"command\":[\"/bin/true\"]}";
    int fd = connect_to();
    sbx_sandbox *sb = sandbox(SBX_BACKEND_PROCESS);
    const char *cmd[] = {"/bin/true", NULL};
    sbx_run_input in = {.argv = cmd};
    double *lib = calloc((size_t)n, sizeof(double)), *http = calloc((size_t)n, sizeof(double));
    double *diff = calloc((size_t)n, sizeof(double));
    /* CPU: this process's (its jails reaped) around each library run; the server tree's over
     * all HTTP runs (nothing else runs there meanwhile). */
    long server = getenv("BENCH_SERVER_PID") ? atol(getenv("BENCH_SERVER_PID")) : 0;
    double lib_cpu = 0, srv_cpu = 0;
    for (int i = -5; i < n; i++) { /* 5 warm-up pairs */
        double t0 = now_s(), c0 = self_cpu_s();
        sbx_result r;
        sbx_sandbox_run(sb, &in, &r);
        bool ok = r.ok;
        sbx_result_free(&r);
        double t1 = now_s(), c1 = self_cpu_s(), s0 = server && i >= 0 ? tree_cpu_s(server) : 0;
        if (!ok || exchange(fd) != 200)
            return 1;
        if (server && i >= 0)
            srv_cpu += tree_cpu_s(server) - s0;
        if (i >= 0)
            lib_cpu += c1 - c0;
        if (i >= 0) {
            lib[i] = (t1 - t0) * 1e3;
            http[i] = (now_s() - t1) * 1e3;
            diff[i] = http[i] - lib[i];
        }
    }
    qsort(lib, (size_t)n, sizeof(double), cmp);
    qsort(http, (size_t)n, sizeof(double), cmp);
    qsort(diff, (size_t)n, sizeof(double), cmp);
    printf("library_ms=%.3f http_ms=%.3f added_ms=%.3f added_p25_ms=%.3f added_p75_ms=%.3f "
           "pairs=%d",
           lib[n / 2], http[n / 2], diff[n / 2], diff[n / 4], diff[3 * n / 4], n);
    if (server) /* CPU per run: the library's own against the server's and its runners' */
        printf(" library_cpu_ms=%.3f server_cpu_ms=%.3f added_cpu_ms=%.3f", lib_cpu * 1e3 / n,
               srv_cpu * 1e3 / n, (srv_cpu - lib_cpu) * 1e3 / n);
    printf("\n");
    sbx_sandbox_destroy(sb);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "worker") == 0) {
        int threads = atoi(argv[2]);
        double secs = atof(argv[3]);
        pthread_t t[64];
        worker(NULL); /* warm: the engine module and a first heap (until is 0) */
        double t0 = now_s();
        until = t0 + secs;
        atomic_store(&total, 0);
        for (int i = 0; i < threads && i < 64; i++)
            pthread_create(&t[i], NULL, worker, NULL);
        for (int i = 0; i < threads && i < 64; i++)
            pthread_join(t[i], NULL);
        printf("runs_per_s=%.0f threads=%d\n", (double)atomic_load(&total) / (now_s() - t0),
               threads);
        return 0;
    }
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "process") == 0) {
        int n = atoi(argv[2]);
        if (argc == 4) /* "warm": the JS engine loaded first, as in a runner */
            worker(NULL);
        if (getenv("BENCH_PROM")) {
            sbx_prometheus *prom;
            sbx_prometheus_create(&prom);
            sbx_telemetry_set_hooks(sbx_prometheus_hooks(prom));
        }
        double *ms = calloc((size_t)n, sizeof(double)), sum = 0;
        sbx_sandbox *sb = sandbox(SBX_BACKEND_PROCESS);
        const char *cmd[] = {"/bin/true", NULL};
        sbx_run_input in = {.argv = cmd};
        for (int i = -3; i < n; i++) { /* 3 warm-up runs */
            double t0 = now_s();
            sbx_result r;
            sbx_sandbox_run(sb, &in, &r);
            if (!r.ok)
                return 1;
            sbx_result_free(&r);
            if (i >= 0)
                sum += ms[i] = (now_s() - t0) * 1e3;
        }
        qsort(ms, (size_t)n, sizeof(double), cmp);
        printf("median_ms=%.3f mean_ms=%.3f runs=%d\n", ms[n / 2], sum / n, n);
        sbx_sandbox_destroy(sb);
        return 0;
    }
    if (argc == 5 && strcmp(argv[1], "rate") == 0)
        return rate_mode(atof(argv[2]), atof(argv[3]), atoi(argv[4]));
    if (argc == 4 && strcmp(argv[1], "pair") == 0)
        return pair(atoi(argv[2]), atoi(argv[3]));
    fprintf(stderr, "usage: bench_lib worker THREADS SECONDS | rate RATE SECONDS THREADS | "
                    "process RUNS | pair PORT RUNS\n");
    return 2;
}

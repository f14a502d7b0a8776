/* serve/metrics.c: GET /metrics. The library's instruments live in the runners (guests run
 * there); their texts are merged with a runner label. Then serve's own: requests by route and
 * status, queue depth and bytes, runs in flight, runners alive and restarted, callbacks. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"

#define ROWS_MAX 512

struct row {
    const char *route; /* static storage (the route table's labels) */
    unsigned status;
    uint64_t count;
};

struct counter {
    const char *name; /* static storage */
    uint64_t value;
};

static struct {
    pthread_mutex_t lock;
    struct row rows[ROWS_MAX];
    size_t row_count;
    struct counter counters[32];
    size_t counter_count;
} M = {.lock = PTHREAD_MUTEX_INITIALIZER};

void serve_metrics_request(const char *route, unsigned status)
{
    pthread_mutex_lock(&M.lock);
    size_t i = 0;
    while (i < M.row_count && !(M.rows[i].route == route && M.rows[i].status == status))
        i++;
    if (i == M.row_count && i < ROWS_MAX)
        M.rows[M.row_count++] = (struct row){.route = route, .status = status};
    if (i < ROWS_MAX)
        M.rows[i].count++;
    pthread_mutex_unlock(&M.lock);
}

void serve_metrics_count(const char *name, uint64_t n)
{
    pthread_mutex_lock(&M.lock);
    size_t i = 0;
    while (i < M.counter_count && strcmp(M.counters[i].name, name) != 0)
        i++;
    if (i == M.counter_count && i < sizeof(M.counters) / sizeof(M.counters[0]))
        M.counters[M.counter_count++] = (struct counter){.name = name};
    if (i < M.counter_count)
        M.counters[i].value += n;
    pthread_mutex_unlock(&M.lock);
}

/* ---- merging the runners' texts ---------------------------------------------------------- */

struct family {
    char *name, *help, *type; /* the # HELP and # TYPE lines */
    char *samples;            /* every runner's lines, labelled */
    size_t len;
};

static struct family *family_of(struct family *fams, size_t *n, size_t cap, const char *name,
                                size_t name_len)
{
    for (size_t i = 0; i < *n; i++) {
        if (strlen(fams[i].name) == name_len && memcmp(fams[i].name, name, name_len) == 0)
            return &fams[i];
    }
    if (*n == cap)
        return NULL;
    struct family *f = &fams[(*n)++];
    memset(f, 0, sizeof(*f));
    f->name = strndup(name, name_len);
    return f->name ? f : NULL;
}

static void add_sample(struct family *f, const char *line, size_t len, unsigned runner)
{
    size_t name_len = strcspn(line, "{ ");
    char label[32];
    int ln = snprintf(label, sizeof(label), "runner=\"%u\"", runner);
    bool has_labels = name_len < len && line[name_len] == '{';
    size_t need = len + (size_t)ln + 4;
    char *grown = realloc(f->samples, f->len + need);
    if (!grown)
        return;
    f->samples = grown;
    char *w = f->samples + f->len;
    memcpy(w, line, name_len);
    w += name_len;
    w += snprintf(w, (size_t)ln + 4, has_labels ? "{%s," : "{%s}", label);
    size_t rest = name_len + (has_labels ? 1 : 0);
    memcpy(w, line + rest, len - rest);
    w += len - rest;
    *w++ = '\n';
    f->len = (size_t)(w - f->samples);
}

static void merge_one(struct family *fams, size_t *n, size_t cap, const char *text, unsigned runner)
{
    struct family *cur = NULL;
    for (const char *s = text; *s;) {
        const char *end = strchr(s, '\n');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        bool is_help = len > 7 && strncmp(s, "# HELP ", 7) == 0;
        bool is_type = len > 7 && strncmp(s, "# TYPE ", 7) == 0;
        if (is_help || is_type) {
            const char *name = s + 7;
            size_t name_len = strcspn(name, " \n");
            cur = family_of(fams, n, cap, name, name_len);
            char **slot = cur ? (is_help ? &cur->help : &cur->type) : NULL;
            if (slot && !*slot)
                *slot = strndup(s, len);
        } else if (len > 0 && s[0] != '#' && cur) {
            add_sample(cur, s, len, runner);
        }
        s += len + (end ? 1 : 0);
    }
}

void serve_metrics_merge(char *const *texts, unsigned count, FILE *out)
{
    struct family fams[64];
    size_t n = 0;
    for (unsigned i = 0; i < count; i++) {
        if (texts[i])
            merge_one(fams, &n, 64, texts[i], i);
    }
    for (size_t i = 0; i < n; i++) {
        if (fams[i].help)
            fprintf(out, "%s\n", fams[i].help);
        if (fams[i].type)
            fprintf(out, "%s\n", fams[i].type);
        if (fams[i].samples)
            fwrite(fams[i].samples, 1, fams[i].len, out);
        free(fams[i].name);
        free(fams[i].help);
        free(fams[i].type);
        free(fams[i].samples);
    }
}

/* ---- rendering ----------------------------------------------------------------------------- */

static void gauge(FILE *out, const char *name, const char *help, const char *type, uint64_t v)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s %s\n%s %" PRIu64 "\n", name, help, name, type, name, v);
}

static void own_metrics(FILE *out)
{
    struct serve_server *s = serve_g;
    struct serve_q_stats qs;
    struct serve_pool_stats ps;
    serve_queue_stats(s->queue, &qs);
    serve_pool_stats(s->pool, &ps);
    gauge(out, "sbx_serve_queue_depth", "Runs waiting in the queue.", "gauge", qs.queued);
    gauge(out, "sbx_serve_queue_bytes", "Bytes of the runs waiting in the queue.", "gauge",
          qs.queued_bytes);
    gauge(out, "sbx_serve_runs_in_flight", "Runs claimed by a runner and not done.", "gauge",
          qs.running);
    gauge(out, "sbx_serve_results_stored", "Results kept for GET /v1/runs/{id}.", "gauge",
          qs.results);
    gauge(out, "sbx_serve_runners_alive", "Runner processes up and ready.", "gauge", ps.alive);
    gauge(out, "sbx_serve_runners_restarted_total",
          "Runner processes started again after one died.", "counter", ps.restarted);
    gauge(out, "sbx_serve_draining", "1 while SIGTERM drains the server.", "gauge",
          atomic_load(&s->is_draining) ? 1 : 0);
    gauge(out, "sbx_serve_queue_up", "1 while the queue answers (Redis reachable).", "gauge",
          qs.is_healthy ? 1 : 0);
    gauge(out, "sbx_serve_queue_claims_total", "Claims of runs by workers, every attempt.",
          "counter", qs.claims);
    gauge(out, "sbx_serve_queue_takeovers_total",
          "Claims taken over from a worker that stopped renewing them (died, froze, lost Redis).",
          "counter", qs.takeovers);
    gauge(out, "sbx_serve_queue_retries_total", "Attempts after a run's first.", "counter",
          qs.retries);
    gauge(out, "sbx_serve_queue_failed_total",
          "Runs failed because every attempt's worker was lost (maxAttempts).", "counter",
          qs.failed);
    if (s->queue->ops->metrics)
        s->queue->ops->metrics(s->queue, out);
    pthread_mutex_lock(&M.lock);
    fprintf(out, "# HELP sbx_serve_http_requests_total HTTP requests by route and status.\n"
                 "# TYPE sbx_serve_http_requests_total counter\n");
    for (size_t i = 0; i < M.row_count; i++)
        fprintf(out, "sbx_serve_http_requests_total{route=\"%s\",status=\"%u\"} %" PRIu64 "\n",
                M.rows[i].route, M.rows[i].status, M.rows[i].count);
    for (size_t i = 0; i < M.counter_count; i++)
        fprintf(out, "# HELP %s Count of %s.\n# TYPE %s counter\n%s %" PRIu64 "\n",
                M.counters[i].name, M.counters[i].name, M.counters[i].name, M.counters[i].name,
                M.counters[i].value);
    pthread_mutex_unlock(&M.lock);
}

char *serve_metrics_render(size_t *len)
{
    char *buf = NULL;
    FILE *out = open_memstream(&buf, len);
    if (!out)
        return NULL;
    serve_pool_metrics(serve_g->pool, out);
    own_metrics(out);
    fclose(out);
    return buf;
}

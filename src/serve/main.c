/* serve/main.c: `sbx serve`: options, start-up in order (config, keys, runtimes, queue, runner
 * pool, callbacks, HTTP), then one thread waits for signals: SIGHUP reloads keys and runtimes,
 * SIGTERM (or SIGINT) drains: readyz turns 503 and new runs are refused, runs in flight get
 * --drain-ms to finish, the rest are aborted (SANDBOX_ABORTED recorded), then exit 0. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "serve/clock.h"
#include "serve/http.h"

struct serve_server *serve_g;

static struct serve_server server;

/* Tables replaced by SIGHUP stay allocated until exit: a request may still hold one. */
static struct serve_keys *old_keys[64];
static struct serve_runtimes *old_runtimes[64];
static unsigned old_count;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sbx serve [--config FILE] [--listen HOST:PORT] [--drain-ms N]\n"
            "                 [--queue redis://[USER:PASSWORD@]HOST:PORT[/DB]]\n"
            "                 [--role api|worker|all] [--node NAME]\n"
            "       sbx serve --check-config [--config FILE] | --config-reference | --openapi |\n"
            "                 --print-runtimes\n\n"
            "An HTTP execution service: the native API (/v1), Piston's API (/api/v2),\n"
            "/healthz, /readyz, /metrics. Guests run in runner processes, never in the server.\n"
            "Without API keys it listens on the loopback only. SIGTERM drains, SIGHUP reloads\n"
            "keys and runtimes. With --queue, API nodes (--role api) and worker nodes (--role\n"
            "worker) on any machines share a Redis queue. docs/serve.md is the reference; the\n"
            "config's fields:\n\n");
    serve_config_reference(out);
}

struct options {
    const char *config, *listen, *drain_ms, *queue, *role, *node;
    bool check, reference, openapi, runtimes;
};

static int parse_options(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof(*o));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = !strcmp(a, "--config")     ? &o->config
                            : !strcmp(a, "--listen")   ? &o->listen
                            : !strcmp(a, "--drain-ms") ? &o->drain_ms
                            : !strcmp(a, "--queue")    ? &o->queue
                            : !strcmp(a, "--role")     ? &o->role
                            : !strcmp(a, "--node")     ? &o->node
                                                       : NULL;
        if (slot && i + 1 < argc) {
            *slot = argv[++i];
        } else if (!strcmp(a, "--check-config")) {
            o->check = true;
        } else if (!strcmp(a, "--config-reference")) {
            o->reference = true;
        } else if (!strcmp(a, "--openapi")) {
            o->openapi = true;
        } else if (!strcmp(a, "--print-runtimes")) {
            o->runtimes = true;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "sbx: serve: %s: %s (try 'sbx serve --help')\n", a,
                    slot ? "needs a value" : "unknown option");
            return 2;
        }
    }
    return -1;
}

static bool configure(struct serve_server *s, const struct options *o)
{
    char err[1024];
    if (!serve_config_load(o->config, &s->cfg, err, sizeof(err))) {
        fprintf(stderr, "sbx: serve: %s%s%s\n", o->config ? o->config : "", o->config ? ": " : "",
                err);
        return false;
    }
    if (o->listen) {
        free(s->cfg.listen);
        s->cfg.listen = strdup(o->listen);
    }
    if (o->drain_ms) {
        char *end;
        errno = 0;
        unsigned long long ms = strtoull(o->drain_ms, &end, 10);
        if (errno || *end || !*o->drain_ms || ms > 3600000) {
            fprintf(stderr, "sbx: serve: --drain-ms: must be an integer in 0..3600000\n");
            return false;
        }
        s->cfg.drain_ms = ms;
    }
    if (!serve_cluster_configure(&s->cfg, o->queue, o->role, o->node, err, sizeof(err))) {
        fprintf(stderr, "sbx: serve: %s\n", err);
        return false;
    }
    if (s->cfg.runners == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        s->cfg.runners = n > 0 ? (uint64_t)n : 1;
    }
    s->config_path = o->config ? strdup(o->config) : NULL;
    return true;
}

static bool load_tables(struct serve_server *s, const struct serve_config *cfg,
                        struct serve_keys **keys, struct serve_runtimes **rt)
{
    char err[1024];
    *keys = serve_keys_create(cfg, err, sizeof(err));
    *rt = calloc(1, sizeof(**rt));
    if (*keys && *rt && serve_runtimes_load(cfg->runtimes, *rt, err, sizeof(err)))
        return true;
    fprintf(stderr, "sbx serve: %s\n", *rt ? err : "out of memory");
    serve_keys_destroy(*keys);
    if (*rt)
        serve_runtimes_free(*rt);
    free(*rt);
    (void)s;
    return false;
}

/* SIGHUP: the config file read again; its keys and runtimes replace the current ones (other
 * fields need a restart). A bad file changes nothing. */
static void reload(struct serve_server *s)
{
    struct serve_config cfg;
    char err[1024];
    struct serve_keys *keys;
    struct serve_runtimes *rt;
    if (!serve_config_load(s->config_path, &cfg, err, sizeof(err))) {
        fprintf(stderr, "sbx serve: SIGHUP: %s; keeping the current keys and runtimes\n", err);
        serve_config_free(&cfg);
        return;
    }
    if (old_count >= 64 || !load_tables(s, &cfg, &keys, &rt)) {
        fprintf(stderr, "sbx serve: SIGHUP: not reloaded\n");
        serve_config_free(&cfg);
        return;
    }
    pthread_mutex_lock(&s->reload_lock);
    serve_keys_inherit(keys, s->keys);
    old_keys[old_count] = s->keys;
    old_runtimes[old_count++] = s->runtimes;
    s->keys = keys;
    s->runtimes = rt;
    pthread_mutex_unlock(&s->reload_lock);
    fprintf(stderr, "sbx serve: SIGHUP: reloaded %zu key(s), %zu runtime(s)%s\n", cfg.keys.count,
            rt->count, serve_keys_anonymous(keys) ? " (anonymous mode)" : "");
    serve_config_free(&cfg);
}

static bool wait_runs(struct serve_server *s, uint64_t ms)
{
    struct timespec until = serve_deadline(CLOCK_REALTIME, ms);
    pthread_mutex_lock(&s->done_lock);
    while (atomic_load(&s->in_flight) > 0 &&
           pthread_cond_timedwait(&s->done_cond, &s->done_lock, &until) == 0)
        ;
    pthread_mutex_unlock(&s->done_lock);
    return atomic_load(&s->in_flight) == 0;
}

static void drain(struct serve_server *s)
{
    atomic_store(&s->is_draining, true);
    fprintf(stderr, "sbx serve: draining: %llu run(s) in flight get %llu ms to finish\n",
            (unsigned long long)atomic_load(&s->in_flight), (unsigned long long)s->cfg.drain_ms);
    if (!wait_runs(s, s->cfg.drain_ms)) {
        fprintf(stderr, "sbx serve: drain time is over: aborting %llu run(s)\n",
                (unsigned long long)atomic_load(&s->in_flight));
        api_abort_all();
        if (!wait_runs(s, 10000))
            fprintf(stderr, "sbx serve: %llu run(s) did not end after their abort\n",
                    (unsigned long long)atomic_load(&s->in_flight));
    }
}

static int run_server(struct serve_server *s)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL); /* every thread made from here on inherits it */
    signal(SIGPIPE, SIG_IGN);
    char err[1024] = "";
    struct serve_queue_config qc;
    serve_queue_config_init(&qc);
    qc.queue_max = s->cfg.queue_max;
    qc.queue_max_bytes = s->cfg.queue_max_bytes;
    qc.result_ttl_ms = s->cfg.result_ttl_s * 1000;
    qc.results_max = s->cfg.results_max;
    qc.results_max_bytes = s->cfg.results_max_bytes;
    if (!load_tables(s, &s->cfg, &s->keys, &s->runtimes))
        return 2;
    if (!serve_cluster_open_queue(&s->cfg, &qc, &s->queue, err, sizeof(err)) ||
        (s->cfg.role != SERVE_ROLE_API &&
         !(s->pool =
               serve_pool_create(s->queue, (unsigned)s->cfg.runners, (unsigned)s->cfg.runner_slots,
                                 s->cfg.batch_parallel, err, sizeof(err)))) ||
        !(s->callbacks = serve_callbacks_create(&s->cfg)) ||
        !serve_http_start(s, err, sizeof(err))) {
        fprintf(stderr, "sbx serve: %s\n", err[0] ? err : "out of memory");
        return 1;
    }
    unsigned long long runners = s->pool ? (unsigned long long)s->cfg.runners : 0; /* api */
    fprintf(stderr,
            "sbx serve: %llu runner(s) for JavaScript + %llu for jails, x %llu slot(s), %zu "
            "runtime(s), %s queue (at most %llu runs), role %s, node %s\n",
            runners, runners, (unsigned long long)s->cfg.runner_slots, s->runtimes->count,
            s->queue->ops->name, (unsigned long long)s->cfg.queue_max,
            serve_role_names[s->cfg.role], s->cfg.node);
    for (;;) {
        int sig = 0;
        if (sigwait(&set, &sig) != 0)
            continue;
        if (sig == SIGHUP) {
            reload(s);
            continue;
        }
        break;
    }
    drain(s);
    serve_http_stop(s);
    api_stop_janitor();
    serve_callbacks_destroy(s->callbacks);
    serve_queue_close(s->queue);
    serve_pool_drain(s->pool, s->cfg.drain_ms);
    serve_pool_destroy(s->pool);
    serve_queue_destroy(s->queue);
    fprintf(stderr, "sbx serve: stopped\n");
    return 0;
}

int serve_server_main(int argc, char **argv)
{
    struct options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (o.reference) {
        serve_config_reference(stdout);
        return 0;
    }
    if (o.openapi) {
        fputs(serve_openapi_json, stdout);
        return 0;
    }
    if (o.runtimes) {
        fputs(serve_runtimes_builtin, stdout);
        return 0;
    }
    struct serve_server *s = &server;
    serve_g = s;
    pthread_mutex_init(&s->reload_lock, NULL);
    pthread_mutex_init(&s->done_lock, NULL);
    pthread_cond_init(&s->done_cond, NULL);
    if (!configure(s, &o))
        return 2;
    if (o.check) {
        struct serve_keys *k;
        struct serve_runtimes *rt;
        if (!load_tables(s, &s->cfg, &k, &rt))
            return 2;
        printf("config ok: %zu key(s), %zu runtime(s) on this host\n", s->cfg.keys.count,
               rt->count);
        serve_keys_destroy(k);
        serve_runtimes_free(rt);
        free(rt);
        return 0;
    }
    rc = run_server(s);
    for (unsigned i = 0; i < old_count; i++) {
        serve_keys_destroy(old_keys[i]);
        serve_runtimes_free(old_runtimes[i]);
        free(old_runtimes[i]);
    }
    return rc;
}

/* The module's entry point (src/cli/cmd_serve.c loads it): the only symbol libsbx-serve.so
 * exports. */
__attribute__((visibility("default"))) int sbx_serve_module_entry(int argc, char **argv,
                                                                  bool is_runner);
int sbx_serve_module_entry(int argc, char **argv, bool is_runner)
{
    return is_runner ? serve_runner_run(argc, argv) : serve_server_main(argc, argv);
}

/* serve/runner.c: `sbx __serve-runner`, the process guests run in. The server starts it with a
 * socketpair on fd 3: RUN frames come in, slot threads run them through libsbx (each with its
 * own sandbox cache and /work directory), CHUNK and RESULT frames go back. Leader/followers:
 * one idle slot reads the socket; the one that reads a RUN hands the reading to another and
 * runs it itself, so no thread wakes on a run's way in. slots + 1 threads: one always reads
 * (ABORT, METRICS) while every slot runs. A guest that takes this process down costs only its
 * own runs; the server starts another runner. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/runner.h"

#define RUNNER_FD    3
#define EARLY_ABORTS 64

struct runner {
    int fd;
    pthread_mutex_t write_lock;
    pthread_mutex_t lock; /* guards the active list, has_reader, is_closing */
    pthread_cond_t cond;  /* the reading is free */
    bool has_reader;
    struct runner_job *active[256];
    uint64_t early_aborts[EARLY_ABORTS]; /* ABORTs that came before their RUN */
    unsigned early_next;
    bool is_closing;
    unsigned slots, batch_parallel;
    bool is_js; /* --class js: the worker tier; else process and wasm */
    char *root;
    sbx_prometheus *prom;
};

static struct runner R;

static void send_frame(uint8_t type, uint8_t stream, uint64_t tag, const char *data, size_t len)
{
    pthread_mutex_lock(&R.write_lock);
    if (serve_frame_write(R.fd, type, stream, tag, data, (uint32_t)len) != 0)
        shutdown(R.fd, SHUT_RD); /* the server is gone: the reader sees the end, all leave */
    pthread_mutex_unlock(&R.write_lock);
}

void runner_output(void *user, sbx_stream stream, const char *data, size_t len)
{
    struct runner_job *job = user;
    send_frame(FRAME_CHUNK, (uint8_t)stream, job->tag, data, len);
}

static void send_result(uint64_t tag, char *json)
{
    if (!json)
        json = serve_error_result(SBX_E_NOMEM, "out of memory");
    send_frame(FRAME_RESULT, 0, tag, json ? json : "{}", json ? strlen(json) : 2);
    free(json);
}

/* One plain run: its files in the slot's directory, emptied before and after. */
static char *run_one(struct sandbox_cache *cache, struct runner_job *job, json_t *spec,
                     const char *slot_dir)
{
    json_t *files = json_object_get(spec, "files");
    struct exec_dir dir = {0};
    if (files && json_array_size(files) > 0) {
        if (!exec_clear_dir(slot_dir))
            return serve_error_result(SBX_E_IO, "runner: cannot empty the run's directory");
        int rc = exec_write_files(files, slot_dir);
        if (rc != 0) {
            char msg[256];
            snprintf(msg, sizeof(msg), "cannot write the run's files: %s", strerror(-rc));
            return serve_error_result(SBX_E_IO, msg);
        }
        dir = (struct exec_dir){.host = slot_dir, .is_writable = true};
    }
    char *json = exec_run(cache, job, spec, &dir, NULL);
    if (dir.host)
        exec_clear_dir(slot_dir);
    return json;
}

static char *run_payload(struct sandbox_cache *cache, struct runner_job *job,
                         const struct serve_frame *f, const char *slot_dir)
{
    json_error_t je;
    json_t *payload = json_loadb(f->data, f->len, 0, &je);
    const char *kind = json_string_value(json_object_get(payload, "kind"));
    char *json;
    if (!kind) {
        json = serve_error_result(SBX_E_INVALID_ARGUMENT, "runner: malformed job");
    } else if (strcmp(kind, "batch") == 0) {
        json = batch_run(cache, job, payload, R.root, R.batch_parallel);
    } else {
        job->is_stream = json_is_true(json_object_get(payload, "stream"));
        json = run_one(cache, job, json_object_get(payload, "run"), slot_dir);
    }
    json_decref(payload);
    return json;
}

static bool is_early_aborted(uint64_t tag);

static void set_active(struct runner_job *job, bool on)
{
    pthread_mutex_lock(&R.lock);
    if (on && is_early_aborted(job->tag))
        atomic_store(&job->is_aborted, true); /* exec.c aborts its sandbox at once */
    for (size_t i = 0; i < sizeof(R.active) / sizeof(R.active[0]); i++) {
        if (on ? R.active[i] == NULL : R.active[i] == job) {
            R.active[i] = on ? job : NULL;
            break;
        }
    }
    pthread_mutex_unlock(&R.lock);
}

/* ABORT: the run's sandboxes are aborted (a run the server thinks is here but this runner
 * has not started cannot exist: the RUN frame came first on the same socket). */
static void abort_tag(uint64_t tag)
{
    pthread_mutex_lock(&R.lock);
    bool is_found = false;
    for (size_t i = 0; i < sizeof(R.active) / sizeof(R.active[0]); i++) {
        struct runner_job *job = R.active[i];
        if (job && job->tag == tag) {
            is_found = true;
            pthread_mutex_lock(&job->lock);
            atomic_store(&job->is_aborted, true);
            for (int k = 0; k < 64; k++) {
                if (job->live[k])
                    sbx_sandbox_abort(job->live[k]);
            }
            pthread_mutex_unlock(&job->lock);
        }
    }
    if (!is_found) /* its RUN is still on its way (the server writes it after the ABORT's
                    * decision): remembered, so the run ends at once when it comes */
        R.early_aborts[R.early_next++ % EARLY_ABORTS] = tag;
    pthread_mutex_unlock(&R.lock);
}

static bool is_early_aborted(uint64_t tag) /* R.lock held */
{
    for (int i = 0; i < EARLY_ABORTS; i++) {
        if (R.early_aborts[i] == tag)
            return true;
    }
    return false;
}

static void abort_all(void)
{
    uint64_t tags[256];
    size_t n = 0;
    pthread_mutex_lock(&R.lock);
    for (size_t i = 0; i < sizeof(R.active) / sizeof(R.active[0]); i++) {
        if (R.active[i])
            tags[n++] = R.active[i]->tag;
    }
    pthread_mutex_unlock(&R.lock);
    for (size_t i = 0; i < n; i++)
        abort_tag(tags[i]);
}

static void reply_metrics(uint64_t tag);

/* Reads frames until a RUN (returned) or the end of the socket (false). */
static bool read_run(struct serve_frame *f)
{
    while (serve_frame_read(R.fd, f) == 0) {
        if (f->type == FRAME_RUN)
            return true;
        if (f->type == FRAME_ABORT)
            abort_tag(f->tag);
        else if (f->type == FRAME_METRICS)
            reply_metrics(f->tag);
        serve_frame_free(f);
    }
    return false;
}

/* Becomes the reader, reads a RUN, hands the reading on; false when the runner closes. */
static bool next_run(struct serve_frame *f)
{
    pthread_mutex_lock(&R.lock);
    while (R.has_reader && !R.is_closing)
        pthread_cond_wait(&R.cond, &R.lock);
    bool is_closing = R.is_closing;
    R.has_reader = !is_closing;
    pthread_mutex_unlock(&R.lock);
    bool got = !is_closing && read_run(f);
    pthread_mutex_lock(&R.lock);
    R.has_reader = false;
    if (!got)
        R.is_closing = true; /* the server closed the socket */
    pthread_cond_signal(&R.cond);
    if (!got)
        pthread_cond_broadcast(&R.cond);
    pthread_mutex_unlock(&R.lock);
    if (!got && !is_closing)
        abort_all(); /* no one will take their results */
    return got;
}

static void run_frame(struct sandbox_cache *cache, const char *slot_dir, struct serve_frame *f)
{
    struct runner_job *job = calloc(1, sizeof(*job));
    if (!job) {
        send_result(f->tag, NULL);
        return;
    }
    job->tag = f->tag;
    pthread_mutex_init(&job->lock, NULL);
    set_active(job, true);
    char *json = slot_dir && cache ? run_payload(cache, job, f, slot_dir)
                                   : serve_error_result(SBX_E_IO, "runner: no work directory");
    set_active(job, false);
    send_result(job->tag, json);
    pthread_mutex_destroy(&job->lock);
    free(job);
}

static void *slot_main(void *arg)
{
    char name[32];
    snprintf(name, sizeof(name), "slot%u", (unsigned)(uintptr_t)arg);
    char *slot_dir = exec_make_dir(R.root, name);
    struct sandbox_cache *cache = sandbox_cache_create();
    struct serve_frame f;
    while (next_run(&f)) {
        run_frame(cache, slot_dir, &f);
        serve_frame_free(&f);
    }
    sandbox_cache_destroy(cache);
    exec_remove_dir(slot_dir);
    free(slot_dir);
    return NULL;
}

/* HELLO: the tiers this host runs and what the process tier enforces (its /bin/true probe). */
static void hello(void)
{
    json_t *tiers = json_array(), *enforced = json_array();
    if (!R.is_js)
        json_array_append_new(tiers, json_string("wasm"));
    sbx_policy *p = NULL;
    sbx_policy_parse("{}", 2, &p, NULL, 0);
    sbx_sandbox *sb = NULL;
    /* Only a JavaScript runner loads the engine: it would grow a jail runner for nothing. */
    if (R.is_js && p && sbx_sandbox_create(SBX_BACKEND_WORKER, p, &sb) == SBX_OK)
        json_array_append_new(tiers, json_string("worker"));
    sbx_sandbox_destroy(sb);
    sb = NULL;
    const char *argv[] = {"/bin/true", NULL};
    sbx_run_input in = {.argv = argv};
    sbx_result r = {0};
    if (!R.is_js && p && sbx_sandbox_create(SBX_BACKEND_PROCESS, p, &sb) == SBX_OK &&
        sbx_sandbox_run(sb, &in, &r) == SBX_OK && r.ok) {
        static const struct {
            unsigned bit;
            const char *name;
        } bits[] = {{SBX_ENFORCED_CGROUP_V2, "cgroup-v2"}, {SBX_ENFORCED_CGROUP_V1, "cgroup-v1"},
                    {SBX_ENFORCED_RLIMIT, "rlimit"},       {SBX_ENFORCED_SECCOMP, "seccomp"},
                    {SBX_ENFORCED_LANDLOCK, "landlock"},   {SBX_ENFORCED_NETNS, "netns"}};
        json_array_append_new(tiers, json_string("process"));
        for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
            if (r.enforced & bits[i].bit)
                json_array_append_new(enforced, json_string(bits[i].name));
        }
    }
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    sbx_policy_destroy(p);
    json_t *o =
        json_pack("{s:i,s:o,s:o}", "pid", (int)getpid(), "tiers", tiers, "enforced", enforced);
    char *text = json_dumps(o, JSON_COMPACT);
    send_frame(FRAME_HELLO, 0, 0, text ? text : "{}", text ? strlen(text) : 2);
    free(text);
    json_decref(o);
}

static void reply_metrics(uint64_t tag)
{
    char *text = R.prom ? sbx_prometheus_render(R.prom) : NULL;
    send_frame(FRAME_METRICS, 0, tag, text ? text : "", text ? strlen(text) : 0);
    sbx_free(text);
}

static bool parse_args(int argc, char **argv)
{
    R.slots = 4;
    R.batch_parallel = 2;
    for (int i = 1; i + 1 < argc; i += 2) {
        unsigned long v = strtoul(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--class") == 0)
            R.is_js = strcmp(argv[i + 1], "js") == 0;
        else if (strcmp(argv[i], "--slots") == 0 && v >= 1 && v <= 64)
            R.slots = (unsigned)v;
        else if (strcmp(argv[i], "--batch-parallel") == 0 && v >= 1 && v <= 64)
            R.batch_parallel = (unsigned)v;
        else
            return false;
    }
    return (argc - 1) % 2 == 0;
}

static bool make_root(void)
{
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/sbx-serve-runner-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(path))
        return false;
    R.root = strdup(path);
    return R.root && chmod(path, 0711) == 0;
}

int serve_runner_run(int argc, char **argv)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the server gone: no runner left behind */
    if (!parse_args(argc, argv) || fcntl(RUNNER_FD, F_GETFD) < 0) {
        fprintf(stderr, "sbx: __serve-runner is started by `sbx serve` (fd 3: its socket)\n");
        return 2;
    }
    R.fd = RUNNER_FD; /* frames go with MSG_NOSIGNAL: SIGPIPE stays default for guests */
    pthread_mutex_init(&R.write_lock, NULL);
    pthread_mutex_init(&R.lock, NULL);
    pthread_cond_init(&R.cond, NULL);
    if (!make_root()) {
        fprintf(stderr, "sbx: runner: cannot make its temp directory: %s\n", strerror(errno));
        return 1;
    }
    if (sbx_prometheus_create(&R.prom) == SBX_OK)
        sbx_telemetry_set_hooks(sbx_prometheus_hooks(R.prom));
    pthread_t threads[65];
    hello(); /* before any thread reads: the server's first frames come after it */
    for (unsigned i = 0; i <= R.slots; i++) /* one more than slots: one always reads */
        pthread_create(&threads[i], NULL, slot_main, (void *)(uintptr_t)i);
    for (unsigned i = 0; i <= R.slots; i++)
        pthread_join(threads[i], NULL);
    exec_remove_dir(R.root);
    free(R.root);
    sbx_shutdown();
    sbx_telemetry_set_hooks(NULL);
    sbx_prometheus_destroy(R.prom);
    return 0;
}

/* serve/runner.c: `sbx __serve-runner`, the process guests run in. The server starts it with a
 * socketpair on fd 3: RUN frames come in, slot threads run them through libsbx (each with its
 * own sandbox cache and /work directory), CHUNK and RESULT frames go back. A guest that takes
 * this process down costs only its own runs; the server starts another runner. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/runner.h"

#define RUNNER_FD 3

struct pending {
    struct serve_frame frame;
    struct runner_job *job;
    struct pending *next;
};

struct runner {
    int fd;
    pthread_mutex_t write_lock;
    pthread_mutex_t lock; /* guards the queue, the active list, is_closing */
    pthread_cond_t cond;
    struct pending *head, *tail;
    struct runner_job *active[256];
    bool is_closing;
    unsigned slots, batch_parallel;
    char *root;
    sbx_prometheus *prom;
};

static struct runner R;

static void send_frame(uint8_t type, uint8_t stream, uint64_t tag, const char *data, size_t len)
{
    pthread_mutex_lock(&R.write_lock);
    if (serve_frame_write(R.fd, type, stream, tag, data, (uint32_t)len) != 0) {
        /* The server is gone: nothing left to do but leave (the jail's pid 1s die with us). */
        _exit(0);
    }
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

static void set_active(struct runner_job *job, bool on)
{
    pthread_mutex_lock(&R.lock);
    for (size_t i = 0; i < sizeof(R.active) / sizeof(R.active[0]); i++) {
        if (on ? R.active[i] == NULL : R.active[i] == job) {
            R.active[i] = on ? job : NULL;
            break;
        }
    }
    pthread_mutex_unlock(&R.lock);
}

static void *slot_main(void *arg)
{
    char name[32];
    snprintf(name, sizeof(name), "slot%u", (unsigned)(uintptr_t)arg);
    char *slot_dir = exec_make_dir(R.root, name);
    struct sandbox_cache *cache = sandbox_cache_create();
    for (;;) {
        pthread_mutex_lock(&R.lock);
        while (!R.head && !R.is_closing)
            pthread_cond_wait(&R.cond, &R.lock);
        struct pending *p = R.head;
        if (p) {
            R.head = p->next;
            if (!R.head)
                R.tail = NULL;
        }
        pthread_mutex_unlock(&R.lock);
        if (!p)
            break;
        set_active(p->job, true);
        char *json = slot_dir && cache
                         ? run_payload(cache, p->job, &p->frame, slot_dir)
                         : serve_error_result(SBX_E_IO, "runner: no work directory for this slot");
        set_active(p->job, false);
        send_result(p->job->tag, json);
        pthread_mutex_destroy(&p->job->lock);
        free(p->job);
        serve_frame_free(&p->frame);
        free(p);
    }
    sandbox_cache_destroy(cache);
    exec_remove_dir(slot_dir);
    free(slot_dir);
    return NULL;
}

static void enqueue(struct serve_frame *f)
{
    struct pending *p = calloc(1, sizeof(*p));
    struct runner_job *job = calloc(1, sizeof(*job));
    if (!p || !job) {
        free(p);
        free(job);
        send_result(f->tag, NULL);
        serve_frame_free(f);
        return;
    }
    job->tag = f->tag;
    pthread_mutex_init(&job->lock, NULL);
    p->frame = *f;
    p->job = job;
    pthread_mutex_lock(&R.lock);
    if (R.tail)
        R.tail->next = p;
    else
        R.head = p;
    R.tail = p;
    pthread_cond_signal(&R.cond);
    pthread_mutex_unlock(&R.lock);
}

/* ABORT: a job still waiting here ends at once; a running one has its sandboxes aborted. */
static void abort_tag(uint64_t tag)
{
    struct pending *dropped = NULL;
    pthread_mutex_lock(&R.lock);
    for (struct pending **pp = &R.head; *pp; pp = &(*pp)->next) {
        if ((*pp)->job->tag == tag) {
            dropped = *pp;
            *pp = dropped->next;
            R.tail = NULL;
            for (struct pending *q = R.head; q; q = q->next)
                R.tail = q;
            break;
        }
    }
    for (size_t i = 0; !dropped && i < sizeof(R.active) / sizeof(R.active[0]); i++) {
        struct runner_job *job = R.active[i];
        if (job && job->tag == tag) {
            pthread_mutex_lock(&job->lock);
            atomic_store(&job->is_aborted, true);
            for (int k = 0; k < 64; k++) {
                if (job->live[k])
                    sbx_sandbox_abort(job->live[k]);
            }
            pthread_mutex_unlock(&job->lock);
        }
    }
    pthread_mutex_unlock(&R.lock);
    if (dropped) {
        send_result(tag, serve_error_result(SBX_E_ABORTED, "run was aborted by the host"));
        serve_frame_free(&dropped->frame);
        pthread_mutex_destroy(&dropped->job->lock);
        free(dropped->job);
        free(dropped);
    }
}

/* HELLO: the tiers this host runs and what the process tier enforces (its /bin/true probe). */
static void hello(void)
{
    json_t *tiers = json_array(), *enforced = json_array();
    json_array_append_new(tiers, json_string("wasm"));
    sbx_policy *p = NULL;
    sbx_policy_parse("{}", 2, &p, NULL, 0);
    sbx_sandbox *sb = NULL;
    if (p && sbx_sandbox_create(SBX_BACKEND_WORKER, p, &sb) == SBX_OK)
        json_array_append_new(tiers, json_string("worker"));
    sbx_sandbox_destroy(sb);
    sb = NULL;
    const char *argv[] = {"/bin/true", NULL};
    sbx_run_input in = {.argv = argv};
    sbx_result r = {0};
    if (p && sbx_sandbox_create(SBX_BACKEND_PROCESS, p, &sb) == SBX_OK &&
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
        if (strcmp(argv[i], "--slots") == 0 && v >= 1 && v <= 64)
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
    pthread_t threads[64];
    for (unsigned i = 0; i < R.slots; i++)
        pthread_create(&threads[i], NULL, slot_main, (void *)(uintptr_t)i);
    hello();
    struct serve_frame f;
    while (serve_frame_read(R.fd, &f) == 0) {
        if (f.type == FRAME_RUN) {
            enqueue(&f); /* owns the frame now */
            continue;
        }
        if (f.type == FRAME_ABORT)
            abort_tag(f.tag);
        else if (f.type == FRAME_METRICS)
            reply_metrics(f.tag);
        serve_frame_free(&f);
    }
    /* The server closed the socket: abort what runs, let the slots end, clean up. */
    pthread_mutex_lock(&R.lock);
    R.is_closing = true;
    pthread_cond_broadcast(&R.cond);
    pthread_mutex_unlock(&R.lock);
    for (size_t i = 0; i < sizeof(R.active) / sizeof(R.active[0]); i++) {
        if (R.active[i])
            abort_tag(R.active[i]->tag);
    }
    for (unsigned i = 0; i < R.slots; i++)
        pthread_join(threads[i], NULL);
    exec_remove_dir(R.root);
    sbx_shutdown();
    return 0;
}

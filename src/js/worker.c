/* js/worker.c: the thread pool behind the worker tier. Threads are reused, heaps never are:
 * each job builds and frees its own engine heap. Invariant: a job is freed by whichever of its
 * two holders (caller, worker thread) lets go last, so abandoning a stuck job is always safe. */
#include "js/worker.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/backend.h"
#include "core/exit.h"
#include "util/alloc.h"

/* Deep recursion in the engine's C code (compiler, regexp, nested native calls) needs room;
 * the memory is only reserved, pages are touched on demand. */
#if defined(__SANITIZE_ADDRESS__)
#define WORKER_STACK_BYTES (32u * 1024u * 1024u)
#else
#define WORKER_STACK_BYTES (8u * 1024u * 1024u)
#endif

struct sbx__js_job {
    pthread_mutex_t lock;
    pthread_mutex_t tap_lock; /* in.on_output is called and cleared under it */
    pthread_cond_t cond;      /* signalled on done and on stop; CLOCK_MONOTONIC */
    int refs;                 /* under lock */
    bool is_started;
    bool is_done;
    bool is_abandoned;
    bool has_runner; /* runner is the pool thread running the job (under lock, until done) */
    pthread_t runner;
    _Atomic int stop; /* SBX_OK, SBX_E_TIMEOUT or SBX_E_ABORTED */
    char *code;
    char *context;
    struct sbx__js_script **preloads; /* the job's own references (a sandbox may go first) */
    struct sbx__js_eval_in in;
    struct sbx__js_eval_out out;
};

struct worker {
    struct worker *next; /* in the idle list */
    pthread_cond_t cond; /* with pool.lock: a job was assigned */
    struct sbx__js_job *job;
    /* A fresh engine built while idle, so a run does not wait for heap creation. It has run
     * nothing; each job consumes one and the worker builds the next after the job ends. */
    struct sbx__js_engine *spare;
};

static struct {
    pthread_mutex_t lock;
    struct worker *idle;
    size_t idle_count;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

static atomic_int abandoned_count;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* Coverage builds (issue 15; core/exit.h says which build is one): libgcov writes the counters at
 * exit, and a thread caught between two counter updates leaves a snapshot that breaks gcov's flow
 * equations (negative counts). So exit's step (core/exit.c) first waits until every pool thread
 * is parked (or gone, joined) and then holds pool.lock, so none resumes; the engine's exit
 * handler holds the watchdog's lock likewise. Other builds count nothing and detach threads. */
/* Short: a run still live at exit (a host calling exit mid-run) must not hold exit up long. */
#define QUIESCE_WAIT_MS 2000
static atomic_int busy;       /* pool threads not parked in worker_main's wait */
static pthread_t last_exited; /* under pool.lock: joined by the next one to exit, or at exit */
static bool has_exited;

static void busy_add(int n)
{
    if (sbx__exit_counts_coverage())
        atomic_fetch_add(&busy, n);
}

/* Under pool.lock. The thread is past its last use of the lock. */
static void reap_exited(void)
{
    if (has_exited)
        pthread_join(last_exited, NULL);
    has_exited = false;
}

static void note_exit(void)
{
    if (!sbx__exit_counts_coverage())
        return;
    reap_exited();
    last_exited = pthread_self();
    has_exited = true;
}

/* Abandoned runs are not waited for: they may be stuck for minutes, and while one is inside the
 * engine the engine's exit handler leaves without any dump (js/runtime.cpp). The wasm tier-up
 * stops first (sbx_shutdown): its worker would otherwise start compiling (loading libLLVM) while
 * exit waits here for a busy run, and LLVM's destructors would then run under that compile. */
static void quiesce_at_exit(void)
{
    sbx_shutdown();
    pthread_mutex_lock(&pool.lock);
    for (int ms = 0; ms < QUIESCE_WAIT_MS && atomic_load(&busy) > atomic_load(&abandoned_count);
         ms++) {
        pthread_mutex_unlock(&pool.lock);
        usleep(1000);
        pthread_mutex_lock(&pool.lock);
    }
    reap_exited();
}

static pthread_once_t quiesce_once = PTHREAD_ONCE_INIT;

/* After the engine's own exit handler is registered (it starts here), so this step runs first. */
static void add_quiesce(void)
{
    (void)sbx__js_can_throttle();
    sbx__exit_at(SBX__EXIT_PARK_JS_POOL, quiesce_at_exit);
}

/* Before the first job starts (a caller may exit the moment its run is done), with the JIT
 * mode of that job's policy fixed first, as its run would. */
static void register_quiesce(const struct sbx__js_eval_in *in)
{
    if (!sbx__exit_counts_coverage())
        return;
    sbx__js_claim_jit(in->jit);
    pthread_once(&quiesce_once, add_quiesce);
}

static void forget_quiesce(void)
{
    atomic_store(&busy, 0);
    has_exited = false;
}

/* A forked child has none of the parent's threads: forget them (their structs leak there). */
static void forget_pool_in_child(void)
{
    pthread_mutex_init(&pool.lock, NULL);
    pool.idle = NULL;
    pool.idle_count = 0;
    atomic_store(&abandoned_count, 0);
    forget_quiesce();
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, forget_pool_in_child);
}

static char *copy_text(const char *s, size_t len)
{
    return s ? sbx__strndup(s, len) : NULL;
}

static void job_done(void *arg)
{
    struct sbx__js_job *job = arg;
    pthread_mutex_lock(&job->lock);
    job->is_done = true;
    pthread_cond_broadcast(&job->cond);
    pthread_mutex_unlock(&job->lock);
}

/* The console buffers' tap: the caller's on_output until sbx__js_job_detach_output, so an
 * abandoned engine that still prints never calls into a caller that has returned. */
static void job_tap(void *user, int stream, const char *data, size_t len)
{
    struct sbx__js_job *job = user;
    pthread_mutex_lock(&job->tap_lock);
    if (job->in.on_output)
        job->in.on_output(job->in.on_output_user, (sbx_stream)stream, data, len);
    pthread_mutex_unlock(&job->tap_lock);
}

struct sbx__js_job *sbx__js_job_create(const struct sbx__js_eval_in *in)
{
    struct sbx__js_job *job = sbx__calloc(1, sizeof(*job));
    if (!job)
        return NULL;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    bool ok = pthread_cond_init(&job->cond, &attr) == 0;
    pthread_condattr_destroy(&attr);
    if (!ok || pthread_mutex_init(&job->lock, NULL) != 0) {
        if (ok)
            pthread_cond_destroy(&job->cond);
        sbx__free(job);
        return NULL;
    }
    if (pthread_mutex_init(&job->tap_lock, NULL) != 0) {
        pthread_cond_destroy(&job->cond);
        pthread_mutex_destroy(&job->lock);
        sbx__free(job);
        return NULL;
    }
    job->refs = 1;
    job->in = *in;
    job->code = copy_text(in->code ? in->code : "", in->code ? in->code_len : 0);
    job->context = copy_text(in->context_json, in->context_len);
    job->in.code = job->code;
    job->in.context_json = job->context;
    job->in.preload_count = 0;
    if (in->preload_count) {
        job->preloads = sbx__calloc(in->preload_count, sizeof(*job->preloads));
        for (size_t i = 0; job->preloads && i < in->preload_count; i++) {
            sbx__js_script_ref(in->preloads[i]);
            job->preloads[i] = in->preloads[i];
            job->in.preload_count++;
        }
    }
    job->in.preloads = job->preloads;
    job->in.stop = &job->stop;
    job->in.on_done = job_done;
    job->in.on_done_arg = job;
    sbx__js_eval_out_init(&job->out, in->max_output_bytes);
    if (in->on_output) {
        sbx__buf_set_tap(&job->out.out, job_tap, job, SBX_STREAM_STDOUT);
        sbx__buf_set_tap(&job->out.err, job_tap, job, SBX_STREAM_STDERR);
    }
    if (!job->code || (in->context_json && !job->context) ||
        job->in.preload_count != in->preload_count) {
        sbx__js_job_release(job);
        return NULL;
    }
    return job;
}

static void job_free(struct sbx__js_job *job)
{
    sbx__js_eval_out_free(&job->out);
    sbx__free(job->code);
    sbx__free(job->context);
    for (size_t i = 0; i < job->in.preload_count; i++)
        sbx__js_script_release(job->preloads[i]);
    sbx__free(job->preloads);
    pthread_cond_destroy(&job->cond);
    pthread_mutex_destroy(&job->lock);
    pthread_mutex_destroy(&job->tap_lock);
    sbx__free(job);
}

void sbx__js_job_detach_output(struct sbx__js_job *job)
{
    pthread_mutex_lock(&job->tap_lock);
    job->in.on_output = NULL;
    pthread_mutex_unlock(&job->tap_lock);
}

/* Drops one reference; the last one frees. Returns whether the job had been abandoned. */
static bool job_unref(struct sbx__js_job *job)
{
    pthread_mutex_lock(&job->lock);
    bool was_abandoned = job->is_abandoned;
    bool is_last = --job->refs == 0;
    pthread_mutex_unlock(&job->lock);
    if (is_last)
        job_free(job);
    return was_abandoned;
}

/* Runs job on engine (NULL: build one now, under the job's cap). */
static void set_idle_priority(pthread_t thread, bool is_idle)
{
    struct sched_param sp = {0};
    pthread_setschedparam(thread, is_idle ? SCHED_IDLE : SCHED_OTHER, &sp); /* best effort */
}

/* Returns whether the job was abandoned (the thread then runs at idle priority). */
static bool job_run(struct sbx__js_job *job, struct sbx__js_engine *engine, bool is_pooled)
{
    if (is_pooled) {
        if (sbx__js_test_pause)
            sbx__js_test_pause(SBX__JS_PAUSE_RUN);
        pthread_mutex_lock(&job->lock);
        job->runner = pthread_self();
        job->has_runner = true;
        pthread_mutex_unlock(&job->lock);
    }
    if (engine)
        sbx__js_engine_run(engine, &job->in, &job->out);
    else
        sbx__js_eval(&job->in, &job->out);
    bool was_abandoned = job_unref(job);
    if (was_abandoned)
        atomic_fetch_sub(&abandoned_count, 1);
    return was_abandoned;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        if (!w->job) {
            busy_add(-1);
            while (!w->job)
                pthread_cond_wait(&w->cond, &pool.lock);
            busy_add(1);
        }
        struct sbx__js_job *job = w->job;
        struct sbx__js_engine *engine = w->spare;
        w->spare = NULL;
        pthread_mutex_unlock(&pool.lock);
        if (job_run(job, engine, true) && !sbx__js_can_throttle())
            set_idle_priority(pthread_self(), false);
        pthread_mutex_lock(&pool.lock);
        w->job = NULL;
        if (pool.idle_count >= SBX_JS_IDLE_MAX)
            break;
        pthread_mutex_unlock(&pool.lock);
        /* Idle means ready: the spare engine is built before the worker can be picked. */
        struct sbx__js_engine *spare = sbx__js_engine_create();
        if (sbx__js_test_pause)
            sbx__js_test_pause(SBX__JS_PAUSE_IDLE);
        pthread_mutex_lock(&pool.lock);
        if (pool.idle_count >= SBX_JS_IDLE_MAX) { /* others went idle meanwhile: keep the bound */
            pthread_mutex_unlock(&pool.lock);
            sbx__js_engine_destroy(spare);
            pthread_mutex_lock(&pool.lock);
            break;
        }
        w->spare = spare;
        w->next = pool.idle;
        pool.idle = w;
        pool.idle_count++;
    }
    note_exit();
    busy_add(-1);
    pthread_mutex_unlock(&pool.lock);
    pthread_cond_destroy(&w->cond);
    sbx__free(w);
    return NULL;
}

/* Starts a thread for job; returns false if the system refuses one. Signals stay blocked on
 * pool threads so the host's handlers run on the host's threads. */
static bool spawn(struct sbx__js_job *job)
{
    struct worker *w = sbx__calloc(1, sizeof(*w));
    if (!w)
        return false;
    if (pthread_cond_init(&w->cond, NULL) != 0) {
        sbx__free(w);
        return false;
    }
    w->job = job;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, WORKER_STACK_BYTES);
    pthread_attr_setdetachstate(&attr, sbx__exit_counts_coverage() ? PTHREAD_CREATE_JOINABLE
                                                                   : PTHREAD_CREATE_DETACHED);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t tid;
    busy_add(1); /* before it runs, so an exit from now on waits for it */
    int rc = pthread_create(&tid, &attr, worker_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        busy_add(-1);
        pthread_cond_destroy(&w->cond);
        sbx__free(w);
        return false;
    }
    return true;
}

sbx_err sbx__js_job_start(struct sbx__js_job *job)
{
    pthread_once(&atfork_once, register_atfork);
    register_quiesce(&job->in);
    if (atomic_load(&abandoned_count) >= SBX_JS_MAX_ABANDONED)
        return SBX_E_UNAVAILABLE;
    pthread_mutex_lock(&job->lock);
    job->refs++; /* the worker's */
    job->is_started = true;
    pthread_mutex_unlock(&job->lock);
    pthread_mutex_lock(&pool.lock);
    struct worker *w = pool.idle;
    if (w) {
        pool.idle = w->next;
        pool.idle_count--;
        w->job = job;
        pthread_cond_signal(&w->cond);
    }
    pthread_mutex_unlock(&pool.lock);
    if (!w && !spawn(job))
        job_run(job, NULL, false); /* no thread to be had: run here, bounded by the deadline */
    return SBX_OK;
}

static struct timespec to_timespec(uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
                          .tv_nsec = (long)(ns % 1000000000u)};
    return ts;
}

bool sbx__js_job_wait(struct sbx__js_job *job, uint64_t until_ns, int stop_seen)
{
    struct timespec ts = to_timespec(until_ns);
    pthread_mutex_lock(&job->lock);
    while (!job->is_done && atomic_load(&job->stop) == stop_seen) {
        if (pthread_cond_timedwait(&job->cond, &job->lock, &ts) == ETIMEDOUT)
            break;
    }
    bool done = job->is_done;
    pthread_mutex_unlock(&job->lock);
    return done;
}

void sbx__js_job_stop(struct sbx__js_job *job, int reason)
{
    int expected = SBX_OK;
    atomic_compare_exchange_strong(&job->stop, &expected, reason);
    pthread_mutex_lock(&job->lock);
    pthread_cond_broadcast(&job->cond);
    pthread_mutex_unlock(&job->lock);
}

int sbx__js_job_stop_reason(struct sbx__js_job *job)
{
    return atomic_load(&job->stop);
}

struct sbx__js_eval_out *sbx__js_job_out(struct sbx__js_job *job)
{
    return &job->out;
}

void sbx__js_job_release(struct sbx__js_job *job)
{
    if (!job)
        return;
    pthread_mutex_lock(&job->lock);
    if (job->is_started && !job->is_done && !job->is_abandoned) {
        job->is_abandoned = true;
        atomic_fetch_add(&abandoned_count, 1);
        /* A stuck engine must not slow the host's threads (or the next runs) while it winds
         * down: the engine's watchdog throttles it, or else it drops to SCHED_IDLE (which on a
         * busy host can starve it for long). Its thread is alive: it cannot pass job_done
         * without this lock. */
        if (job->has_runner && !sbx__js_can_throttle())
            set_idle_priority(job->runner, true);
    }
    pthread_mutex_unlock(&job->lock);
    job_unref(job);
}

int sbx__js_abandoned_count(void)
{
    return atomic_load(&abandoned_count);
}

int sbx__js_idle_count(void)
{
    pthread_mutex_lock(&pool.lock);
    int n = (int)pool.idle_count;
    pthread_mutex_unlock(&pool.lock);
    return n;
}

/* serve/pool.c: the runner processes, seen from the server. Each runner is `sbx __serve-runner`
 * on a socketpair, with `slots` runs at once; pump() claims queued runs for free slots and
 * sends them; one reader thread per runner turns CHUNK and RESULT frames into queue events
 * and results. Two classes of runners: JavaScript (the worker tier runs in the runner's own
 * address space, which grows) and jail (process and wasm tiers: a process-tier run forks its
 * runner, and the fork costs with the runner's size: 12 -> 20 ms per /bin/true after 20,000
 * JavaScript runs in the same process, measured). A run claimed while its class is full
 * waits in the pool's backlog for that class (bounded by the class's slots). A runner that dies
 * fails exactly its own runs (SANDBOX_RUNNER_DIED), is logged, and is started again. Frames from a
 * runner are untrusted: sizes bounded, JSON checked. */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "serve/clock.h"
#include "serve/serve.h"

extern char **environ;

enum { CLASS_JS = SERVE_LANE_JS, CLASS_JAIL = SERVE_LANE_JAIL, CLASSES = SERVE_LANES };

struct flight {
    uint64_t tag;
    unsigned gen; /* its runner's generation */
    struct serve_claim claim;
    struct runner_proc *runner;
    atomic_bool is_sent;
    struct flight *next;
};

struct runner_proc {
    struct serve_pool *pool;
    unsigned index;
    int class; /* CLASS_JS or CLASS_JAIL */
    pid_t pid;
    int fd;
    unsigned gen; /* +1 at each start, under write_lock */
    bool is_ready;
    pthread_t reader;
    pthread_mutex_t write_lock;
    struct flight *flights;
    unsigned count;
    char *hello; /* its HELLO JSON */
    /* a metrics request in progress */
    pthread_cond_t metrics_cond;
    char *metrics;
    bool has_metrics;
};

struct serve_pool {
    struct serve_queue *q;
    pthread_mutex_t lock;         /* flights, counts, readiness, metrics replies */
    pthread_mutex_t metrics_lock; /* one metrics collection at a time */
    struct runner_proc *runners;
    unsigned n, slots; /* n = 2 x runners per class */
    uint64_t next_tag, restarted, batch_parallel;
    bool is_closing;
    char exe[PATH_MAX];
    /* a shared queue (#25): nothing local enqueues, so a claimer thread per runner class waits
     * in claim() for its lane (one thread for both would sit in a read of the lane that had
     * room when it began, while the other's slots came free) */
    bool is_remote;
    struct claimer {
        struct serve_pool *pool;
        int class;
        pthread_t thread;
        bool is_started;
    } claimers[CLASSES];
    pthread_cond_t room; /* a slot may have come free, or the pool closes */
};

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "sbx serve: %s\n", msg);
}

/* Writes to runner r as it was at generation gen (0: whichever runs now). */
static int write_frame(struct runner_proc *r, unsigned gen, uint8_t type, uint64_t tag,
                       const char *data, size_t len)
{
    pthread_mutex_lock(&r->write_lock);
    bool is_same = r->fd >= 0 && (gen == 0 || gen == r->gen);
    int rc = is_same ? serve_frame_write(r->fd, type, 0, tag, data, (uint32_t)len) : -1;
    pthread_mutex_unlock(&r->write_lock);
    return rc;
}

static bool spawn(struct runner_proc *r)
{
    struct serve_pool *p = r->pool;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return false;
    char slots[16], par[16];
    snprintf(slots, sizeof(slots), "%u", p->slots);
    snprintf(par, sizeof(par), "%llu", (unsigned long long)p->batch_parallel);
    char *argv[] = {"sbx",
                    "__serve-runner",
                    "--class",
                    r->class == CLASS_JS ? "js" : "jail",
                    "--slots",
                    slots,
                    "--batch-parallel",
                    par,
                    NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 3); /* dup2 clears FD_CLOEXEC on fd 3 */
    /* Not the server's blocked signals (its signal thread's) nor its ignored SIGPIPE. */
    posix_spawnattr_t attr;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int rc = posix_spawn(&pid, p->exe, &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        return false;
    }
    pthread_mutex_lock(&r->write_lock);
    r->fd = sv[0];
    r->gen++; /* never 0: frames for a runner that died go nowhere */
    pthread_mutex_unlock(&r->write_lock);
    r->pid = pid;
    return true;
}

/* The least busy runner of a class with a free slot; the lock is held. */
static struct runner_proc *free_runner(struct serve_pool *p, int class)
{
    struct runner_proc *best = NULL;
    for (unsigned i = 0; i < p->n; i++) {
        struct runner_proc *r = &p->runners[i];
        if (r->class == class && r->is_ready && r->count < p->slots &&
            (!best || r->count < best->count))
            best = r;
    }
    return best;
}

/* The queue calls this under its lock when a running run is cancelled: tell its runner. No
 * pool lock here (pump holds it while it claims); a cancel between the claim and assign()
 * finds is_sent false and the run is aborted by the runner when its RUN comes (runner.c
 * keeps ABORTs that come first). */
static void on_cancel(void *user, const struct serve_claim *c)
{
    (void)c;
    struct flight *f = user;
    if (atomic_load(&f->is_sent))
        write_frame(f->runner, f->gen, FRAME_ABORT, f->tag, NULL, 0);
}

/* A RUN frame to write once the lock is released: everything it needs is its own, since the
 * flight may be completed and freed meanwhile (a runner that answers at once, or dies). */
struct outgoing {
    struct runner_proc *runner;
    unsigned gen;
    uint64_t tag;
    char *payload;
    size_t len;
};

/* Gives f to r (lock held) and queues its frame in out. */
static void assign(struct serve_pool *p, struct flight *f, struct runner_proc *r,
                   struct outgoing *out)
{
    f->tag = ++p->next_tag;
    f->runner = r;
    f->gen = r->gen;
    f->next = r->flights;
    r->flights = f;
    r->count++;
    *out = (struct outgoing){.runner = r,
                             .gen = r->gen,
                             .tag = f->tag,
                             .payload = f->claim.payload,
                             .len = f->claim.payload_len};
    f->claim.payload = NULL; /* completing needs only the id and the attempt */
    atomic_store(&f->is_sent, true);
}

/* Fills out with runs for free slots, each claimed from the lanes that have one. Returns how
 * many. The lock is held. */
static size_t dispatch(struct serve_pool *p, struct outgoing *out, size_t max)
{
    size_t n = 0;
    while (n < max && !p->is_closing) {
        unsigned lanes = 0;
        for (int c = 0; c < CLASSES; c++)
            lanes |= free_runner(p, c) ? SERVE_LANE_BIT(c) : 0;
        struct flight *f = lanes ? calloc(1, sizeof(*f)) : NULL;
        if (!f ||
            serve_queue_claim(p->q, "local", lanes, 0, on_cancel, f, &f->claim) != SERVE_Q_OK) {
            free(f);
            break;
        }
        assign(p, f, free_runner(p, serve_job_lane(f->claim.flags)), &out[n++]);
    }
    return n;
}

/* A shared queue's claimer for one runner class: while that class has a free slot, waits in
 * claim() for its lane (a worker node gets no local wake-up when an API node enqueues) and
 * sends what it gets. A claim whose slot went meanwhile (its runner died) waits for another. */
static void *claimer_main(void *arg)
{
    struct claimer *me = arg;
    struct serve_pool *p = me->pool;
    pthread_mutex_lock(&p->lock);
    while (!p->is_closing) {
        if (!free_runner(p, me->class)) {
            pthread_cond_wait(&p->room, &p->lock);
            continue;
        }
        pthread_mutex_unlock(&p->lock);
        struct flight *f = calloc(1, sizeof(*f));
        enum serve_q_rc rc = f ? serve_queue_claim(p->q, "pool", SERVE_LANE_BIT(me->class), 1000,
                                                   on_cancel, f, &f->claim)
                               : SERVE_Q_NOMEM;
        pthread_mutex_lock(&p->lock);
        if (rc != SERVE_Q_OK) {
            free(f);
            if (rc == SERVE_Q_CLOSED)
                break;
            continue; /* EMPTY, or Redis away: claim() waited out its timeout */
        }
        while (!p->is_closing && !free_runner(p, me->class))
            pthread_cond_wait(&p->room, &p->lock);
        if (p->is_closing) {
            serve_queue_claim_free(&f->claim); /* never sent: its claim expires, another runs it */
            free(f);
            break;
        }
        struct outgoing out;
        assign(p, f, free_runner(p, me->class), &out);
        pthread_mutex_unlock(&p->lock);
        write_frame(out.runner, out.gen, FRAME_RUN, out.tag, out.payload, out.len);
        free(out.payload);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

void serve_pool_pump(struct serve_pool *p)
{
    if (!p)
        return;
    if (p->is_remote) { /* the claimers claim: tell them a slot may be free */
        pthread_mutex_lock(&p->lock);
        pthread_cond_broadcast(&p->room);
        pthread_mutex_unlock(&p->lock);
        return;
    }
    struct outgoing sent[64];
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t n = dispatch(p, sent, 64);
        pthread_mutex_unlock(&p->lock);
        /* Written outside the lock: a big payload must not hold up readers. A runner that
         * died meanwhile has failed these runs from its reader; its successor must not get
         * them (the generation check). */
        for (size_t i = 0; i < n; i++) {
            write_frame(sent[i].runner, sent[i].gen, FRAME_RUN, sent[i].tag, sent[i].payload,
                        sent[i].len);
            free(sent[i].payload);
        }
        if (n < 64)
            return;
    }
}

static struct flight *take_flight(struct runner_proc *r, uint64_t tag, bool is_remove)
{
    pthread_mutex_lock(&r->pool->lock);
    struct flight *found = NULL;
    for (struct flight **pp = &r->flights; *pp; pp = &(*pp)->next) {
        if ((*pp)->tag == tag) {
            found = *pp;
            if (is_remove) {
                *pp = found->next;
                r->count--;
            }
            break;
        }
    }
    pthread_mutex_unlock(&r->pool->lock);
    return found;
}

/* The stored result: the runner's JSON object (checked: it is untrusted) with the id first. */
static char *final_result(const char *id, const char *json, size_t len)
{
    json_error_t je;
    json_t *got = json_loadb(json, len, 0, &je);
    bool is_object = json_is_object(got);
    json_decref(got);
    char quoted[SERVE_ID_MAX + 2];
    snprintf(quoted, sizeof(quoted), "\"%s\"", id);
    char *out = is_object ? serve_json_with(json, len, "id", quoted, true) : NULL;
    if (!out) {
        char *err = serve_error_result(SBX_E_IO, "the runner sent a malformed result");
        out = err ? serve_json_with(err, strlen(err), "id", quoted, true) : NULL;
        free(err);
    }
    return out;
}

static void complete(struct serve_pool *p, struct flight *f, const char *json, size_t len)
{
    char *s = final_result(f->claim.id, json, len);
    if (s)
        serve_queue_complete(p->q, &f->claim, s, strlen(s));
    free(s);
    serve_queue_claim_free(&f->claim);
    free(f);
}

static void on_frame(struct runner_proc *r, struct serve_frame *fr)
{
    struct serve_pool *p = r->pool;
    if (fr->type == FRAME_HELLO) {
        pthread_mutex_lock(&p->lock);
        free(r->hello);
        r->hello = fr->data;
        fr->data = NULL;
        r->is_ready = true;
        pthread_mutex_unlock(&p->lock);
        serve_pool_pump(p);
    } else if (fr->type == FRAME_CHUNK && (fr->stream == 1 || fr->stream == 2)) {
        struct flight *f = take_flight(r, fr->tag, false); /* only this thread frees it */
        if (f)
            serve_queue_publish(p->q, &f->claim,
                                fr->stream == 1 ? SERVE_EV_STDOUT : SERVE_EV_STDERR, fr->data,
                                fr->len);
    } else if (fr->type == FRAME_RESULT) {
        struct flight *f = take_flight(r, fr->tag, true);
        if (f)
            complete(p, f, fr->data, fr->len);
        serve_pool_pump(p);
    } else if (fr->type == FRAME_METRICS) {
        pthread_mutex_lock(&p->lock);
        free(r->metrics);
        r->metrics = fr->data;
        fr->data = NULL;
        r->has_metrics = true;
        pthread_cond_broadcast(&r->metrics_cond);
        pthread_mutex_unlock(&p->lock);
    }
}

/* The runner's socket closed: fail each of its runs, log, reap it. */
static void runner_died(struct runner_proc *r)
{
    struct serve_pool *p = r->pool;
    pthread_mutex_lock(&p->lock);
    struct flight *lost = r->flights;
    r->flights = NULL;
    r->count = 0;
    r->is_ready = false;
    bool is_closing = p->is_closing;
    if (!is_closing)
        p->restarted++;
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_lock(&r->write_lock);
    close(r->fd);
    r->fd = -1;
    pthread_mutex_unlock(&r->write_lock);
    if (!is_closing)
        kill(r->pid, SIGKILL); /* a broken protocol is as dead as a crash */
    int st = 0;
    waitpid(r->pid, &st, 0);
    unsigned failed = 0;
    char how[64], msg[200];
    snprintf(how, sizeof(how), "%s %d", WIFSIGNALED(st) ? "signal" : "exit status",
             WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    snprintf(msg, sizeof(msg), "the runner process running this guest died (%s)", how);
    char *json = serve_error_result(SBX_E_RUNNER_DIED, msg);
    for (struct flight *f = lost, *next; f; f = next, failed++) {
        next = f->next;
        if (is_closing && p->is_remote) { /* left to another worker: its claim expires */
            serve_queue_claim_free(&f->claim);
            free(f);
            continue;
        }
        complete(p, f, json ? json : "{}", json ? strlen(json) : 2);
    }
    free(json);
    if (!is_closing)
        log_line("runner %u (pid %d) died (%s); %u run(s) failed with SANDBOX_RUNNER_DIED; "
                 "starting another",
                 r->index, (int)r->pid, how, failed);
}

static void *reader_main(void *arg)
{
    struct runner_proc *r = arg;
    struct serve_pool *p = r->pool;
    unsigned quick_deaths = 0;
    for (;;) {
        time_t born = time(NULL);
        struct serve_frame fr;
        while (serve_frame_read(r->fd, &fr) == 0) {
            on_frame(r, &fr);
            serve_frame_free(&fr);
        }
        runner_died(r);
        pthread_mutex_lock(&p->lock);
        bool is_closing = p->is_closing;
        pthread_mutex_unlock(&p->lock);
        if (is_closing)
            return NULL;
        quick_deaths = time(NULL) - born < 2 ? quick_deaths + 1 : 0;
        if (quick_deaths > 1) /* back off a runner that cannot stay up: at most 5 s */
            usleep((useconds_t)(quick_deaths < 6 ? 100000u << quick_deaths : 5000000u));
        while (!spawn(r)) {
            log_line("cannot start runner %u: %s; retrying", r->index, strerror(errno));
            sleep(1);
        }
        serve_pool_pump(p); /* others may have room for what waits */
    }
}

struct serve_pool *serve_pool_create(struct serve_queue *q, unsigned runners, unsigned slots,
                                     uint64_t batch_parallel, char *err, size_t errlen)
{
    struct serve_pool *p = calloc(1, sizeof(*p));
    runners *= CLASSES; /* `runners` of each class */
    if (!p || !(p->runners = calloc(runners, sizeof(*p->runners)))) {
        free(p);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ssize_t n = readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1);
    if (n <= 0) {
        snprintf(err, errlen, "cannot find this program (/proc/self/exe): %s", strerror(errno));
        free(p->runners);
        free(p);
        return NULL;
    }
    p->exe[n] = '\0';
    p->q = q;
    p->is_remote = serve_cluster_is_remote(q);
    pthread_cond_init(&p->room, NULL);
    p->n = runners;
    p->slots = slots;
    p->batch_parallel = batch_parallel;
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->metrics_lock, NULL);
    for (unsigned i = 0; i < runners; i++) {
        struct runner_proc *r = &p->runners[i];
        *r = (struct runner_proc){.pool = p,
                                  .index = i,
                                  .fd = -1,
                                  .class = i < runners / CLASSES ? CLASS_JS : CLASS_JAIL};
        pthread_mutex_init(&r->write_lock, NULL);
        pthread_cond_init(&r->metrics_cond, NULL);
        bool is_spawned = spawn(r);
        if (!is_spawned || pthread_create(&r->reader, NULL, reader_main, r) != 0) {
            snprintf(err, errlen, "cannot start runner %u: %s", i, strerror(errno));
            if (is_spawned) {
                close(r->fd);
                kill(r->pid, SIGKILL);
                waitpid(r->pid, NULL, 0);
            }
            p->n = i; /* destroy() stops the ones started */
            serve_pool_destroy(p);
            return NULL;
        }
    }
    for (int c = 0; p->is_remote && c < CLASSES; c++) {
        struct claimer *cl = &p->claimers[c];
        *cl = (struct claimer){.pool = p, .class = c};
        if (!(cl->is_started = pthread_create(&cl->thread, NULL, claimer_main, cl) == 0)) {
            snprintf(err, errlen, "cannot start a claimer thread: %s", strerror(errno));
            serve_pool_destroy(p);
            return NULL;
        }
    }
    return p;
}

void serve_pool_drain(struct serve_pool *p, uint64_t ms)
{
    if (!p || !p->is_remote)
        return;
    struct timespec until = serve_deadline(CLOCK_REALTIME, ms);
    pthread_mutex_lock(&p->lock);
    for (;;) {
        unsigned busy = 0;
        for (unsigned i = 0; i < p->n; i++)
            busy += p->runners[i].count;
        if (busy == 0 || pthread_cond_timedwait(&p->room, &p->lock, &until) != 0) {
            if (busy)
                log_line("drain time is over: %u run(s) left to other workers (their claims "
                         "expire after visibilityMs)",
                         busy);
            break;
        }
    }
    pthread_mutex_unlock(&p->lock);
}

void serve_pool_abort_all(struct serve_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    for (unsigned i = 0; i < p->n; i++) {
        for (struct flight *f = p->runners[i].flights; f; f = f->next)
            write_frame(&p->runners[i], f->gen, FRAME_ABORT, f->tag, NULL, 0);
    }
    pthread_mutex_unlock(&p->lock);
}

/* Appends the names in hello's list key to dst (comma-separated) that it has not yet. */
static void add_names(char *dst, size_t cap, const char *hello, const char *key)
{
    json_t *h = hello ? json_loads(hello, 0, NULL) : NULL;
    json_t *list = json_object_get(h, key);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const char *name = json_string_value(json_array_get(list, i));
        size_t len = strlen(dst);
        if (name && !strstr(dst, name))
            snprintf(dst + len, cap - len, "%s%s", len ? "," : "", name);
    }
    json_decref(h);
}

void serve_pool_stats(struct serve_pool *p, struct serve_pool_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    out->restarted = p->restarted;
    out->runners = p->n;
    out->slots = (uint64_t)p->n * p->slots;
    for (unsigned i = 0; i < p->n; i++) {
        struct runner_proc *r = &p->runners[i];
        out->alive += r->is_ready;
        out->in_flight += r->count;
        add_names(out->tiers, sizeof(out->tiers), r->hello, "tiers");
        if (r->class == CLASS_JAIL && !out->enforced[0])
            add_names(out->enforced, sizeof(out->enforced), r->hello, "enforced");
    }
    pthread_mutex_unlock(&p->lock);
}

void serve_pool_metrics(struct serve_pool *p, FILE *out)
{
    if (!p)
        return;
    char *texts[256] = {0};
    unsigned n = p->n < 256 ? p->n : 256;
    pthread_mutex_lock(&p->metrics_lock);
    pthread_mutex_lock(&p->lock);
    for (unsigned i = 0; i < n; i++) {
        p->runners[i].has_metrics = false;
        if (p->runners[i].is_ready)
            write_frame(&p->runners[i], 0, FRAME_METRICS, 0, NULL, 0);
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1; /* a runner busy or gone is left out, not waited for */
    for (unsigned i = 0; i < n; i++) {
        struct runner_proc *r = &p->runners[i];
        while (r->is_ready && !r->has_metrics &&
               pthread_cond_timedwait(&r->metrics_cond, &p->lock, &until) == 0)
            ;
        if (r->has_metrics) {
            texts[i] = r->metrics;
            r->metrics = NULL;
        }
    }
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->metrics_lock);
    serve_metrics_merge(texts, n, out);
    for (unsigned i = 0; i < n; i++)
        free(texts[i]);
}

void serve_pool_destroy(struct serve_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->is_closing = true;
    pthread_cond_broadcast(&p->room);
    pthread_mutex_unlock(&p->lock);
    for (int c = 0; c < CLASSES; c++) {
        if (p->claimers[c].is_started) /* the queue was closed: their claim() returns */
            pthread_join(p->claimers[c].thread, NULL);
    }
    for (unsigned i = 0; i < p->n; i++) {
        struct runner_proc *r = &p->runners[i];
        pthread_mutex_lock(&r->write_lock);
        if (r->fd >= 0)
            shutdown(r->fd, SHUT_RDWR); /* the runner sees EOF and leaves; the reader too */
        pthread_mutex_unlock(&r->write_lock);
    }
    for (unsigned i = 0; i < p->n; i++) {
        if (p->runners[i].reader)
            pthread_join(p->runners[i].reader, NULL);
        free(p->runners[i].hello);
        free(p->runners[i].metrics);
    }

    free(p->runners);
    free(p);
}

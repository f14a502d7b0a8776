/* wasm/jit/tierup.c: the AUTO tier's background compile. A store starts in the interpreter;
 * once its outermost calls have interpreted for limits.tierup_ms in all, one process-wide
 * worker thread compiles its instances with LLVM and publishes the native code, and calls then
 * switch to it (at host entries, call_guest(), and at wasm calls inside the interpreter). Short
 * runs never reach the threshold, so they never load LLVM. The worker is created by the first
 * AUTO store that enters guest code; it holds no lock while compiling. A store with a large
 * module compiles only its hot functions instead, a batch at a time (lazy.c): it stays armed,
 * and the worker takes its queue once the same time threshold has passed. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "util/alloc.h"
#include "wasm/jit/cache.h"
#include "wasm/jit/emit.h"
#include "wasm/jit/level.h"
#include "wasm/module.h"

#define DEFAULT_TIERUP_MS 200
/* LLVM's memory is host memory, as the interpreter's translated code is: neither is charged to
 * the store's max_bytes (the guest's budget). It is bounded instead, with LLVM's time: compile
 * memory and time grow with the code, and faster than linearly with one function's size, and
 * destroying the store waits for the LLVM phase in flight. So stores whose modules total more
 * than this, or with one function body over SBX__JIT_MAX_BODY_BYTES, stay interpreted. */
#define TIERUP_MAX_MODULE_BYTES (2u << 20)
/* A hot-only batch: at most this much code, or this many functions (lazy.c says why). */
#define BATCH_MAX_BYTES (64u << 10)
#define BATCH_MAX_FUNCS 64u

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;         /* the worker: a store was armed, or shutdown */
static pthread_cond_t done;         /* a compile finished (cancel waits for it) */
static bool is_started, is_exiting; /* worker running; process exiting (no new compile) */
static struct wasm_store *armed;    /* stores waiting for their threshold */
static struct wasm_store *running;  /* the store being compiled, or NULL */

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t threshold_ns(const struct wasm_store *s)
{
    uint32_t ms = s->limits.tierup_ms ? s->limits.tierup_ms : DEFAULT_TIERUP_MS;
    return (uint64_t)ms * 1000000u;
}

/* Interpretation time so far: finished outermost calls plus the one running. */
static uint64_t busy_ns(struct wasm_store *s, uint64_t now)
{
    uint64_t t0 = atomic_load_explicit(&s->tierup.entered_ns, memory_order_relaxed);
    uint64_t busy = atomic_load_explicit(&s->tierup.busy_ns, memory_order_relaxed);
    return busy + (t0 && now > t0 ? now - t0 : 0);
}

static void unlink_armed(struct wasm_store *s)
{
    for (struct wasm_store **p = &armed; *p; p = &(*p)->tierup.next) {
        if (*p == s) {
            *p = s->tierup.next;
            s->tierup.next = NULL;
            return;
        }
    }
}

static bool is_compilable(const struct wasm_store *s)
{
    uint64_t bytes = 0;
    for (const struct wasm_instance *i = s->tierup.insts; i; i = i->next) {
        const struct wasm_module *m = i->module;
        bytes += m->len;
        for (uint32_t f = 0; f < m->func_def_count; f++) {
            if (m->funcs[f].code_len > SBX__JIT_MAX_BODY_BYTES)
                return false;
        }
    }
    return bytes <= TIERUP_MAX_MODULE_BYTES;
}

/* The worker picks no new store; its load or compile in flight is what quiesce stops and
 * waits for (the rest of a compile_store(), a cache link, uses no LLVM). */
void sbx__wasm_tierup_stop(void)
{
    pthread_mutex_lock(&mu);
    is_exiting = true;
    pthread_mutex_unlock(&mu);
    sbx__jit_quiesce();
}

/* Compiles the snapshot's instances (no lock held); true when all have native code. */
static bool compile_store(struct wasm_store *s)
{
    char err[256];
    if (!is_compilable(s))
        return false;
    for (struct wasm_instance *i = s->tierup.insts; i; i = i->next) {
        if (atomic_load(&s->tierup.cancel))
            return false;
        if (sbx__wasm_jit_cache_link(i)) /* a cache hit: LLVM stays unloaded */
            continue;
        if (!sbx__jit_llvm_load(err, sizeof(err)))
            return false;
        if (sbx__wasm_jit_instance_cached(i, NULL, err, sizeof(err)) != SBX_OK)
            return false;
    }
    return true;
}

/* Moves the next batch of s's queue to batch: functions of the first item's instance, in
 * queue order, within the batch limits. */
static uint32_t take_batch(struct wasm_store *s, struct wasm_lazy_item *batch)
{
    struct wasm_tierup *t = &s->tierup;
    uint32_t n = 0, kept = 0;
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < t->queue_len; i++) {
        struct wasm_lazy_item it = t->queue[i];
        uint32_t len = it.inst->module->funcs[it.def].code_len;
        bool is_big = len > SBX__JIT_BATCH_BIG_BYTES; /* alone: it takes the large level */
        bool fits = n == 0 || (it.inst == t->queue[0].inst && n < BATCH_MAX_FUNCS && !is_big &&
                               bytes <= SBX__JIT_BATCH_BIG_BYTES && bytes + len <= BATCH_MAX_BYTES);
        if (fits) {
            batch[n++] = it;
            bytes += len;
        } else {
            t->queue[kept++] = it;
        }
    }
    t->queue_len = kept;
    return n;
}

/* One hot-only batch of s (the store stays armed for the next). */
static void run_batch(struct wasm_store *s)
{
    struct wasm_lazy_item batch[BATCH_MAX_FUNCS];
    uint32_t n = take_batch(s, batch);
    running = s;
    pthread_mutex_unlock(&mu);
    bool ok = sbx__wasm_lazy_compile(s, batch, n);
    pthread_mutex_lock(&mu);
    if (!ok && !atomic_load(&s->tierup.cancel) && !sbx__jit_llvm_is_loaded()) {
        unlink_armed(s); /* no LLVM: the store stays interpreted */
        atomic_store(&s->tierup.state, WASM_TIERUP_FAILED);
    }
    running = NULL;
    pthread_cond_broadcast(&done);
}

/* A hot-only store with nothing queued: its hot set's upgrade (cache_hot.c) once the process has
 * spent enough CPU, else a look again when it could be due (two cores spend CPU at twice the
 * wall clock's rate; at least every UPGRADE_LOOK_NS). */
#define UPGRADE_LOOK_NS 20000000ull
static void upgrade_or_wait(struct wasm_store *s, uint64_t now)
{
    uint64_t in = sbx__wasm_jit_hot_upgrade_in(s);
    if (in > 0) {
        uint64_t wait = in == UINT64_MAX ? UINT64_MAX - now : in / 2;
        s->tierup.deadline_ns = now + (wait > UPGRADE_LOOK_NS ? wait : UPGRADE_LOOK_NS);
        return;
    }
    running = s;
    pthread_mutex_unlock(&mu);
    sbx__wasm_jit_hot_upgrade(s);
    pthread_mutex_lock(&mu);
    running = NULL;
    pthread_cond_broadcast(&done);
}

void sbx__wasm_tierup_queue(struct wasm_store *s, struct wasm_instance *inst, uint32_t def,
                            bool wants_osr, bool is_one_call)
{
    pthread_mutex_lock(&mu);
    struct wasm_tierup *t = &s->tierup;
    if (t->queue_len == t->queue_cap) {
        uint32_t cap = t->queue_cap ? 2 * t->queue_cap : 16;
        struct wasm_lazy_item *q = sbx__reallocn(t->queue, cap, sizeof(*q));
        if (q) {
            t->queue = q;
            t->queue_cap = cap;
        }
    }
    if (t->queue_len < t->queue_cap) { /* else (NOMEM) the function stays interpreted */
        t->queue[t->queue_len++] = (struct wasm_lazy_item){
            .inst = inst, .def = def, .wants_osr = wants_osr, .is_one_call = is_one_call};
        t->deadline_ns = 0; /* not an upgrade's wait: the worker's busy check still gates it */
        pthread_cond_signal(&wake);
    }
    pthread_mutex_unlock(&mu);
}

static void run_one(struct wasm_store *s)
{
    unlink_armed(s);
    running = s;
    atomic_store(&s->tierup.state, WASM_TIERUP_COMPILING);
    pthread_mutex_unlock(&mu);
    bool ok = compile_store(s);
    pthread_mutex_lock(&mu);
    atomic_store_explicit(&s->tierup.state, ok ? WASM_TIERUP_NATIVE : WASM_TIERUP_FAILED,
                          memory_order_release);
    running = NULL;
    pthread_cond_broadcast(&done);
}

/* Drops from s's queue the functions that have native code now (with the OSR entry the item
 * wants): a function got hot and queued before the first look linked it from a kept image.
 * Left queued, it waited for interpretation time that its calls, native, no longer add, and the
 * upgrade (only with nothing queued) never came. */
static void drop_native(struct wasm_store *s)
{
    struct wasm_tierup *t = &s->tierup;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < t->queue_len; i++) {
        struct wasm_lazy_item it = t->queue[i];
        const struct wasm_func *f = it.inst->funcs[it.inst->module->func_import_count + it.def];
        bool is_native =
            __atomic_load_n(&f->jit_entry, __ATOMIC_ACQUIRE) && (!it.wants_osr || f->osr_entry);
        if (!is_native)
            t->queue[kept++] = it;
    }
    t->queue_len = kept;
}

/* A store's first look, as soon as it is armed (a cache hit is native code from the first
 * milliseconds, with no LLVM): whole images in the caches (`sbx compile`'s, a compiled-tier or
 * whole-module run's) give every function of their instances code at once; all hit, the store
 * is NATIVE, as after run_one(). Otherwise a hot-only store links the partial image earlier
 * stores' batches left (cache_hot.c): the functions hot then start native, and batches go on for
 * the rest. Memory and disk are read, nothing is compiled. */
static void look_in_cache(struct wasm_store *s)
{
    s->tierup.has_looked_in_cache = true;
    if (!s->limits.use_cache)
        return;
    running = s;
    bool is_lazy = atomic_load(&s->tierup.state) == WASM_TIERUP_LAZY;
    pthread_mutex_unlock(&mu);
    if (sbx__jit_test_pause)
        sbx__jit_test_pause(3);
    bool is_all = true;
    for (struct wasm_instance *i = s->tierup.insts; i; i = i->next) {
        bool is_whole = !atomic_load(&s->tierup.cancel) && sbx__wasm_jit_cache_link(i);
        if (!is_whole && is_lazy && !atomic_load(&s->tierup.cancel))
            sbx__wasm_jit_hot_link(i);
        is_all &= is_whole;
    }
    pthread_mutex_lock(&mu);
    drop_native(s);
    if (is_all) {
        unlink_armed(s);
        atomic_store_explicit(&s->tierup.state, WASM_TIERUP_NATIVE, memory_order_release);
    }
    running = NULL;
    pthread_cond_broadcast(&done);
}

/* The armed store to look at first (one not yet looked in the caches, else the earliest
 * deadline), or NULL. */
static struct wasm_store *next_armed(void)
{
    struct wasm_store *best = NULL;
    for (struct wasm_store *s = armed; s; s = s->tierup.next) {
        if (!s->tierup.has_looked_in_cache)
            return s;
        if (atomic_load(&s->tierup.state) == WASM_TIERUP_LAZY && s->tierup.queue_len == 0 &&
            sbx__wasm_jit_hot_upgrade_in(s) == UINT64_MAX)
            continue; /* hot-only, nothing hot yet, no upgrade to come */
        if (!best || s->tierup.deadline_ns < best->tierup.deadline_ns)
            best = s;
    }
    return best;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "sbx-tierup"); /* what ps, top and bench/ see of LLVM */
    pthread_mutex_lock(&mu);
    for (;;) {
        struct wasm_store *s = is_exiting ? NULL : next_armed();
        uint64_t now = now_ns();
        if (!s) {
            pthread_cond_wait(&wake, &mu);
        } else if (!s->tierup.has_looked_in_cache) {
            look_in_cache(s);
        } else if (now < s->tierup.deadline_ns) {
            struct timespec ts = {.tv_sec = (time_t)(s->tierup.deadline_ns / 1000000000u),
                                  .tv_nsec = (long)(s->tierup.deadline_ns % 1000000000u)};
            pthread_cond_timedwait(&wake, &mu, &ts);
        } else if (atomic_load(&s->tierup.state) == WASM_TIERUP_LAZY && !s->tierup.queue_len) {
            upgrade_or_wait(s, now);
        } else if (busy_ns(s, now) >= threshold_ns(s)) {
            if (atomic_load(&s->tierup.state) != WASM_TIERUP_LAZY)
                run_one(s);
            else
                run_batch(s);
        } else { /* not hot yet: look again when it could be */
            s->tierup.deadline_ns = now + threshold_ns(s) - busy_ns(s, now);
        }
    }
    return NULL;
}

/* A forked child has no worker: it starts its own when needed. */
static void before_fork(void)
{
    pthread_mutex_lock(&mu);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&mu);
}

static void after_fork_child(void)
{
    pthread_mutex_unlock(&mu);
    is_started = false;
    armed = running = NULL;
}

static bool start_worker(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&done, NULL);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 8u << 20); /* LLVM recurses deeply on large functions */
    pthread_t t;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the host's signals stay with its threads */
    is_started = pthread_create(&t, &a, worker, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&a);
    static bool has_atfork;
    if (is_started && !has_atfork)
        has_atfork = pthread_atfork(before_fork, after_fork_parent, after_fork_child) == 0;
    return is_started;
}

/* First entry: snapshot the instances and hand the store to the worker. */
static void arm(struct wasm_store *s, uint64_t now)
{
    pthread_mutex_lock(&mu);
    if (is_started || start_worker()) {
        s->tierup.insts = s->instances;
        s->tierup.deadline_ns = now + threshold_ns(s);
        s->tierup.next = armed;
        armed = s;
        bool is_lazy = sbx__wasm_lazy_wants(s);
        atomic_store(&s->tierup.state, is_lazy ? WASM_TIERUP_LAZY : WASM_TIERUP_ARMED);
        pthread_cond_signal(&wake);
    } else {
        atomic_store(&s->tierup.state, WASM_TIERUP_FAILED);
    }
    pthread_mutex_unlock(&mu);
}

void sbx__wasm_tierup_enter(struct wasm_store *s)
{
    uint64_t now = now_ns();
    if (atomic_load_explicit(&s->tierup.state, memory_order_relaxed) == WASM_TIERUP_IDLE)
        arm(s, now);
    atomic_store_explicit(&s->tierup.entered_ns, now, memory_order_relaxed);
}

void sbx__wasm_tierup_leave(struct wasm_store *s)
{
    uint64_t t0 = atomic_load_explicit(&s->tierup.entered_ns, memory_order_relaxed);
    uint64_t now = now_ns();
    atomic_store_explicit(&s->tierup.entered_ns, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->tierup.busy_ns, now > t0 ? now - t0 : 0, memory_order_relaxed);
}

void sbx__wasm_tierup_cancel(struct wasm_store *s)
{
    uint8_t st = atomic_load(&s->tierup.state);
    if (st == WASM_TIERUP_IDLE || st == WASM_TIERUP_BASE) /* never armed */
        return;
    pthread_mutex_lock(&mu);
    unlink_armed(s);
    atomic_store(&s->tierup.cancel, true);
    while (running == s)
        pthread_cond_wait(&done, &mu);
    sbx__free(s->tierup.queue);
    s->tierup.queue = NULL;
    s->tierup.queue_len = s->tierup.queue_cap = 0;
    pthread_mutex_unlock(&mu);
}

bool sbx__wasm_tier_native(struct wasm_store *s)
{
    uint8_t st = atomic_load_explicit(&s->tierup.state, memory_order_acquire);
    return s->limits.tier == WASM_TIER_COMPILED ||
           (st >= WASM_TIERUP_NATIVE && st != WASM_TIERUP_BASE);
}

unsigned sbx__wasm_store_tierup_state(struct wasm_store *s)
{
    return atomic_load(&s->tierup.state);
}

uint64_t sbx__wasm_store_native_entries(const struct wasm_store *s)
{
    return s->tierup.native_entries;
}

uint64_t sbx__wasm_store_osr_entries(const struct wasm_store *s)
{
    return s->tierup.osr_entries;
}

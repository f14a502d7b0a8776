/* js/runtime.cpp: SpiderMonkey's process and thread state. JS_Init runs once per process; each
 * thread that runs guests owns one JSContext (contexts are single-threaded) with its own promise
 * job queue, kept until the thread exits. One watchdog thread interrupts runs whose deadline has
 * passed or whose stop flag is set, through JS_RequestInterruptCallback. */
#include "js/sm.h" /* first: see there */

#include "js/module.h"
#include "js/platform/platform.h"

#include <js/ContextOptions.h>
#include <js/GCAPI.h>
#include <js/GCVector.h>
#include <js/Initialization.h>
#include <js/Promise.h>
#include <js/Realm.h>
#include <js/Stack.h>
#include <js/MemoryCallbacks.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/resource.h>
#include <time.h>

/* Room left below the native stack limit for the engine's own unwinding and error objects. */
#if defined(__SANITIZE_ADDRESS__)
#define STACK_MARGIN (2u * 1024u * 1024u)
#else
#define STACK_MARGIN (256u * 1024u)
#endif
/* While a watched run has a stop flag, the watchdog looks at it this often. */
#define STOP_POLL_NS (2u * 1000000u)
/* A run still going this long after it was told to stop is stuck in a native call the engine
 * cannot interrupt (a naive substring search over megabytes): from then on its thread sleeps
 * THROTTLE_NS in a signal handler, then gets RUN_WINDOW_NS of CPU before the next signal, so
 * it uses at most about 0.5% of a core (issue 10, item 4) yet still reaches its next interrupt
 * check eventually and is reaped. */
#define THROTTLE_AFTER_NS (100u * 1000000u)
#define THROTTLE_NS       (500u * 1000000u)
#define RUN_WINDOW_NS     (1u * 1000000u)

namespace
{

/* The promise job queue of one context: jobs are plain function objects run in FIFO order. */
class Jobs : public JS::JobQueue
{
  public:
    explicit Jobs(JSContext *cx) : queue_(cx), cleanups_(cx)
    {
    }

    JSObject *getIncumbentGlobal(JSContext *cx) override
    {
        return JS::CurrentGlobalOrNull(cx);
    }

    bool enqueuePromiseJob(JSContext *cx, JS::HandleObject, JS::HandleObject job, JS::HandleObject,
                           JS::HandleObject) override
    {
        if (!queue_.append(job)) {
            JS_ReportOutOfMemory(cx);
            return false;
        }
        return true;
    }

    void runJobs(JSContext *cx) override
    {
        (void)drain(cx);
    }

    bool empty() const override
    {
        return queue_.empty();
    }

    /* Runs jobs, then FinalizationRegistry cleanups (which may queue jobs), until neither is
     * left; a job that fails with an exception reports nothing (the promise machinery already
     * turned guest throws into rejections), one that fails without (an interrupt) ends the
     * drain. */
    bool drain(JSContext *cx)
    {
        while (!queue_.empty() || !cleanups_.empty()) {
            if (!run_all(cx, queue_) || !run_all(cx, cleanups_))
                return false;
        }
        return true;
    }

    /* Queues a registry's cleanup (from inside a GC: it may not GC, so an append that fails
     * drops the cleanup; the spec lets a host skip cleanups). */
    void add_cleanup(JSObject *fn)
    {
        (void)cleanups_.append(fn);
    }

    bool has_cleanups() const
    {
        return !cleanups_.empty();
    }

    void drop()
    {
        queue_.clear();
        cleanups_.clear();
    }

  private:
    using Queue = JS::PersistentRooted<JS::GCVector<JSObject *, 0, js::SystemAllocPolicy>>;

    static bool run_all(JSContext *cx, Queue &q)
    {
        JS::RootedObject fn(cx);
        JS::RootedValue rval(cx);
        for (size_t i = 0; i < q.length(); i++) {
            fn = q[i];
            q[i].set(nullptr);
            JSAutoRealm ar(cx, fn);
            if (!JS::Call(cx, JS::UndefinedHandleValue, fn, JS::HandleValueArray::empty(), &rval)) {
                if (!JS_IsExceptionPending(cx)) {
                    q.clear();
                    return false;
                }
                JS_ClearPendingException(cx);
            }
        }
        q.clear();
        return true;
    }

    class Saved : public JobQueue::SavedJobQueue
    {
    };

    js::UniquePtr<SavedJobQueue> saveJobQueue(JSContext *) override
    {
        return js::UniquePtr<SavedJobQueue>(js_new<Saved>());
    }

    Queue queue_;
    Queue cleanups_; /* FinalizationRegistry cleanup functions of the current run */
};

} // namespace

struct sm_thread {
    JSContext *cx;
    Jobs *jobs;
    struct sm_run *current;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static bool is_engine_ok;
static bool is_forked; /* this process is a fork of one whose engine had started */
static pthread_key_t thread_key;
static int throttle_signal; /* 0 when the host uses the chosen signal: no throttling */
static thread_local struct sm_thread *self;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* CLOCK_MONOTONIC: a run was added */
    struct sm_run *runs;
    bool is_started;
    int inside;     /* threads inside the engine (sm_enter) */
    bool is_closed; /* the process is exiting and has shut the engine down */
} wd = {PTHREAD_MUTEX_INITIALIZER, {}, nullptr, false, 0, false};

/* Coverage builds (issue 15; the host says which build is one: sbx__js_host_counts_coverage):
 * leaving by _exit skips libgcov's dump, so a process that exits with a run stuck in the engine
 * would write none of its counters (nor the host's: each shared object has its own libgcov).
 * They are written before that _exit, once no thread runs instrumented code: stuck runs sit in
 * the engine's own (uninstrumented) code or in on_throttle, which no new signal enters while
 * process_exit holds wd.lock, so it waits for every signal sent to have been handled. A forked
 * child writes none: its copies of the parent's counters may have been taken mid-update. */
extern "C" void __gcov_dump(void) __attribute__((weak)); /* the module's libgcov, when linked */
static int throttles_sent;                               /* under wd.lock */
static std::atomic<int> throttles_done;

static void cov_throttle_sent(void)
{
    throttles_sent++;
}

static void cov_throttle_done(void)
{
    throttles_done.fetch_add(1);
}

static void cov_dump(void)
{
    if (!sbx__js_host_counts_coverage())
        return;
    for (int ms = 0; ms < 2000 && throttles_done.load() < throttles_sent; ms++)
        usleep(1000);
    usleep(1000); /* the last handler's return */
    if (__gcov_dump)
        __gcov_dump();
    sbx__js_host_dump_counters();
}

bool sm_enter(void)
{
    pthread_mutex_lock(&wd.lock);
    bool ok = !wd.is_closed;
    wd.inside += ok;
    pthread_mutex_unlock(&wd.lock);
    return ok;
}

void sm_leave(void)
{
    pthread_mutex_lock(&wd.lock);
    wd.inside--;
    pthread_mutex_unlock(&wd.lock);
}

static void thread_exit(void *arg)
{
    struct sm_thread *t = static_cast<struct sm_thread *>(arg);
    if (!sm_enter())
        return; /* the engine is gone with the process */
    JS::SetJobQueue(t->cx, nullptr);
    js_delete(t->jobs);
    sm_platform_thread_end(); /* its stencils go before their runtime (platform.cpp) */
    sm_scripts_thread_end();
    JS_DestroyContext(t->cx);
    sbx__js_account_detach();
    free(t);
    sm_leave();
}

/* libmozjs's static destructors abort on a mutex its helper threads still hold; JS_ShutDown
 * stops those threads first. It cannot while a guest is still stuck in the engine (an abandoned
 * run at exit), nor in a forked child (it would wait for helper threads the child does not
 * have): then the process leaves at once with its status, skipping the destructors (and
 * atexit handlers registered before the engine started; stdio is flushed). */
static void process_exit(int status, void *)
{
    pthread_mutex_lock(&wd.lock);
    bool is_idle = !wd.inside && !is_forked;
    wd.is_closed = is_idle;
    if (!sbx__js_host_counts_coverage()) /* else held: the watchdog then stays still while */
        pthread_mutex_unlock(&wd.lock);  /* libgcov writes the counters (issue 15) */
    if (is_idle) {
        JS_ShutDown();
        return;
    }
    fflush(nullptr);
    if (!is_forked)
        cov_dump();
    _exit(status);
}

/* Sleeps until the run's throttle window ends (async-signal-safe: a clock read and nanosleep;
 * a lock the thread holds waits that long). */
static void throttle_sleep(void)
{
    int saved = errno;
    struct sm_run *run = sm_current();
    uint64_t until = run ? __atomic_load_n(&run->throttle_until_ns, __ATOMIC_RELAXED) : 0;
    for (uint64_t now = sbx__now_ns(); now < until; now = sbx__now_ns()) {
        struct timespec ts = {0, static_cast<long>(until - now)};
        nanosleep(&ts, nullptr);
    }
    errno = saved;
}

static void on_throttle(int)
{
    /* never sleep holding a malloc arena lock: the next signal comes soon */
    if (!sbx__js_account_in_alloc())
        throttle_sleep();
    cov_throttle_done();
}

/* Takes a real-time signal for throttling if nobody else handles it. */
static void install_throttle(void)
{
    int sig = SIGRTMAX - 3;
    struct sigaction old, act = {};
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL ||
        (old.sa_flags & SA_SIGINFO))
        return;
    act.sa_handler = on_throttle;
    sigemptyset(&act.sa_mask);
    act.sa_flags = SA_RESTART;
    if (sigaction(sig, &act, nullptr) == 0)
        throttle_signal = sig;
}

/* fork copies wd.lock as it is: taken by the watchdog in mid-scan, it would stay taken in the
 * child, whose first sm_enter would then wait forever (the run ended as SANDBOX_TIMEOUT instead
 * of naming the fork). So fork waits for it, and each side releases its copy. */
static void before_fork(void)
{
    pthread_mutex_lock(&wd.lock);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&wd.lock);
}

/* A forked child has none of the engine's helper threads (a GC would wait for them forever) and
 * none of its pool threads: the engine is off there. */
static void forked_child(void)
{
    is_forked = true;
    pthread_mutex_unlock(&wd.lock);
}

bool sm_is_forked(void)
{
    return is_forked;
}

static void process_init(void)
{
    /* By default no executable memory: the JIT tiers are where most engine CVEs live
     * (docs/worker.md, "The JIT"); policy.js.jit of the process's first run may turn them on. */
    if (!sm_jit_claim(false))
        JS::DisableJitBackend();
    sm_set_build_id();
    (void)sm_oom_install(); /* best effort: without it such a crash ends the process */
    is_engine_ok =
        sbx__js_account_install() && JS_Init() && pthread_key_create(&thread_key, thread_exit) == 0;
    if (is_engine_ok) {
        on_exit(process_exit, nullptr);
        install_throttle();
    }
    pthread_atfork(before_fork, after_fork_parent, forked_child);
}

/* The usable size of this thread's stack, for the engine's native stack limit. */
static size_t stack_bytes(void)
{
    pthread_attr_t attr;
    void *lo;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &lo, &size) != 0)
            size = 0;
        pthread_attr_destroy(&attr);
    }
    struct rlimit rl;
    if (size == 0 && getrlimit(RLIMIT_STACK, &rl) == 0)
        size = rl.rlim_cur == RLIM_INFINITY ? (8u << 20) : (size_t)rl.rlim_cur;
    /* libmozjs is not instrumented, so its frames are the same size under ASan (whose pool
     * threads get 32 MiB for sbx's own frames): the quota stays that of an 8 MiB stack, and
     * recursion depth, with it (JSON.stringify's cycle check is quadratic in the depth). */
    if (size > (8u << 20))
        size = 8u << 20;
    return size > 2 * STACK_MARGIN ? size - STACK_MARGIN : size / 2;
}

static bool on_interrupt(JSContext *)
{
    struct sm_run *run = sm_current();
    return !(run && (sm_should_stop(run) || sbx__js_account_is_over() || !sm_heap_cap_ok(run)));
}

static void on_oom(JSContext *, void *)
{
    struct sm_run *run = sm_current();
    if (run)
        run->is_oom = true;
}

static JSContext *new_context(Jobs **jobs)
{
    if (!sbx__js_account_attach())
        return nullptr; /* an engine whose memory is not counted must not run guests */
    JSContext *cx = JS_NewContext(JS::DefaultHeapMaxBytes);
    if (!cx) {
        sbx__js_account_detach();
        return nullptr;
    }
    JS::ContextOptionsRef(cx).setWasm(false).setAsmJS(false);
    JS_SetNativeStackQuota(cx, stack_bytes());
    js::SetStackFormat(cx, js::StackFormat::V8);
    JS_SetGCParameter(cx, JSGC_INCREMENTAL_GC_ENABLED, 0);
    /* Snippets are short: a nursery that may grow to the default 16 MiB per thread would be RSS
     * that no run needs (bench-worker's RSS flatness). */
    JS_SetGCParameter(cx, JSGC_MAX_NURSERY_BYTES, 2u << 20);
    *jobs = js_new<Jobs>(cx);
    if (!*jobs || !sm_init_self_hosted(cx) || !JS_AddInterruptCallback(cx, on_interrupt)) {
        js_delete(*jobs);
        JS_DestroyContext(cx);
        sbx__js_account_detach();
        return nullptr;
    }
    JS::SetJobQueue(cx, *jobs);
    JS::SetOutOfMemoryCallback(cx, on_oom, nullptr);
    if (throttle_signal) { /* pool threads block every signal but this one */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, throttle_signal);
        pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    }
    return cx;
}

bool sbx__js_can_throttle(void)
{
    pthread_once(&init_once, process_init);
    return throttle_signal != 0;
}

JSContext *sm_thread_cx(void)
{
    if (self)
        return self->cx;
    pthread_once(&init_once, process_init);
    if (!is_engine_ok || is_forked)
        return nullptr;
    struct sm_thread *t = static_cast<struct sm_thread *>(calloc(1, sizeof(*t)));
    if (!t)
        return nullptr;
    t->cx = new_context(&t->jobs);
    if (!t->cx || pthread_setspecific(thread_key, t) != 0) {
        if (t->cx)
            thread_exit(t);
        else
            free(t);
        return nullptr;
    }
    self = t;
    return t->cx;
}

struct sm_run *sm_current(void)
{
    return self ? self->current : nullptr;
}

void sm_set_current(struct sm_run *run)
{
    if (self)
        self->current = run;
}

bool sm_drain_jobs(JSContext *)
{
    return self->jobs->drain(self->cx);
}

/* The engine found dead targets of a live registry during a GC. Only the current run's own
 * registries are queued: a realm's registries die with it, and a cleanup for any other realm
 * (or found by a GC between runs) is dropped, so none can run inside a later run. */
static void on_cleanup(JSFunction *fn, JSObject *, void *)
{
    struct sm_run *run = sm_current();
    JSObject *obj = JS_GetFunctionObject(fn);
    if (run && run->realm && JS::GetObjectRealmOrNull(obj) == run->realm)
        self->jobs->add_cleanup(obj);
}

void sm_cleanups_begin(struct sm_run *run, JS::Realm *realm)
{
    run->realm = realm;
    JS::SetHostCleanupFinalizationRegistryCallback(run->cx, on_cleanup, nullptr);
}

void sm_cleanups_end(struct sm_run *run)
{
    JS::SetHostCleanupFinalizationRegistryCallback(run->cx, nullptr, nullptr);
    run->realm = nullptr;
    self->jobs->drop();
}

bool sm_collect_for_cleanups(JSContext *cx)
{
    JS::PrepareForFullGC(cx);
    JS::NonIncrementalGC(cx, JS::GCOptions::Normal, JS::GCReason::API);
    return self->jobs->has_cleanups();
}

bool sm_should_stop(const struct sm_run *run)
{
    const struct sbx__js_eval_in *in = run->in;
    uint64_t now = 0;
    if (run->deaf_until_ns && (now = sbx__now_ns()) < run->deaf_until_ns)
        return false;
    if (in->stop && in->stop->load(std::memory_order_relaxed) != SBX_OK)
        return true;
    return in->deadline_ns && (now ? now : sbx__now_ns()) >= in->deadline_ns;
}

static uint64_t thread_cpu_ns(pthread_t thread)
{
    clockid_t clock;
    struct timespec ts;
    if (pthread_getcpuclockid(thread, &clock) != 0 || clock_gettime(clock, &ts) != 0)
        return UINT64_MAX; /* unknown: throttle as if it ran */
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sends the next throttle signal once the thread has used RUN_WINDOW_NS of CPU since the last
 * one: a thread the scheduler starves (a loaded host) is not put back to sleep before it had
 * its window, so it still reaches its interrupt check and is reaped. Under wd.lock. */
static void throttle(struct sm_run *r, uint64_t now)
{
    uint64_t cpu = thread_cpu_ns(r->thread);
    if (r->throttle_until_ns && cpu != UINT64_MAX && cpu - r->throttle_cpu_ns < RUN_WINDOW_NS) {
        __atomic_store_n(&r->throttle_until_ns, now, __ATOMIC_RELAXED); /* look again soon */
        return;
    }
    r->throttle_cpu_ns = cpu;
    __atomic_store_n(&r->throttle_until_ns, now + THROTTLE_NS, __ATOMIC_RELAXED);
    if (pthread_kill(r->thread, throttle_signal) == 0)
        cov_throttle_sent();
}

static struct timespec to_timespec(uint64_t ns)
{
    struct timespec ts = {static_cast<time_t>(ns / 1000000000u),
                          static_cast<long>(ns % 1000000000u)};
    return ts;
}

/* Pokes every run that must stop (again each millisecond: a deaf engine, or an interrupt the
 * engine spent on its own GC, must not be missed) and sleeps until the next deadline. */
static void *watchdog_main(void *)
{
    pthread_mutex_lock(&wd.lock);
    for (;;) {
        uint64_t now = sbx__now_ns(), next = UINT64_MAX;
        for (struct sm_run *r = wd.runs; r; r = r->watch_next) {
            uint64_t at = UINT64_MAX;
            if (sm_should_stop(r)) {
                JS_RequestInterruptCallback(r->cx);
                at = now + 1000000u;
                if (!r->stop_seen_ns)
                    r->stop_seen_ns = now;
                if (throttle_signal && now - r->stop_seen_ns >= THROTTLE_AFTER_NS &&
                    now >= r->throttle_until_ns + RUN_WINDOW_NS)
                    throttle(r, now);
                if (r->throttle_until_ns)
                    at = r->throttle_until_ns + RUN_WINDOW_NS;
            } else if (r->in->stop || r->deaf_until_ns) {
                at = now + STOP_POLL_NS;
            }
            if (r->in->deadline_ns && r->in->deadline_ns < at)
                at = r->in->deadline_ns > now ? r->in->deadline_ns : now + 1000000u;
            next = at < next ? at : next;
        }
        if (next == UINT64_MAX) {
            pthread_cond_wait(&wd.cond, &wd.lock);
        } else {
            struct timespec ts = to_timespec(next);
            pthread_cond_timedwait(&wd.cond, &wd.lock, &ts);
        }
    }
    return nullptr;
}

static bool start_watchdog(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    bool ok = pthread_cond_init(&wd.cond, &attr) == 0;
    pthread_condattr_destroy(&attr);
    pthread_attr_t tattr;
    pthread_attr_init(&tattr);
    pthread_attr_setdetachstate(&tattr, PTHREAD_CREATE_DETACHED);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t tid;
    ok = ok && pthread_create(&tid, &tattr, watchdog_main, nullptr) == 0;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    pthread_attr_destroy(&tattr);
    return ok;
}

void sm_watch(struct sm_run *run)
{
    pthread_mutex_lock(&wd.lock);
    if (!wd.is_started)
        wd.is_started = start_watchdog();
    run->thread = pthread_self();
    run->stop_seen_ns = 0;
    run->throttle_until_ns = 0;
    run->throttle_cpu_ns = 0;
    run->watch_next = wd.runs;
    wd.runs = run;
    run->is_watched = true;
    if (run->in->deadline_ns || run->in->stop)
        pthread_cond_signal(&wd.cond);
    pthread_mutex_unlock(&wd.lock);
}

void sm_unwatch(struct sm_run *run)
{
    if (!run->is_watched)
        return;
    pthread_mutex_lock(&wd.lock);
    for (struct sm_run **p = &wd.runs; *p; p = &(*p)->watch_next) {
        if (*p == run) {
            *p = run->watch_next;
            break;
        }
    }
    run->is_watched = false;
    pthread_mutex_unlock(&wd.lock);
}

/* plugin/watchdog.c: one thread per run that enforces timeoutMs and cpuPercent. The throttle
 * measures the guest thread's CPU clock and, when it runs ahead of its share, queues a signal
 * whose handler sleeps on the guest thread until the share is met again (sbx's interpreter
 * cannot be paused and resumed from outside, and a sleeping thread uses no CPU). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/backend.h"
#include "core/exit.h"
#include "plugin/plugin.h"

#define THROTTLE_MAGIC  0x54484c54u
#define TICK_NS         2000000ull  /* watchdog period while throttling */
#define MAX_PAUSE_NS    50000000ull /* one pause; the next tick renews it */
#define PAUSE_SLICE_NS  1000000ull  /* the handler rechecks stop_reason this often */
#define THROTTLE_SIGNAL (SIGRTMAX - 2)

static pthread_once_t throttle_once = PTHREAD_ONCE_INIT;
static sbx_err throttle_status = SBX_E_UNAVAILABLE;

static uint64_t clock_ns(clockid_t clk)
{
    struct timespec ts;
    if (clock_gettime(clk, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Runs on the guest thread. Only async-signal-safe calls: clock_gettime, nanosleep. */
static void on_throttle(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    if (si->si_code != SI_QUEUE || !si->si_value.sival_ptr)
        return;
    struct sbx__throttle *t = si->si_value.sival_ptr;
    if (t->magic != THROTTLE_MAGIC)
        return;
    int saved_errno = errno;
    uint64_t start = clock_ns(CLOCK_MONOTONIC), now = start;
    uint64_t until = atomic_load(&t->is_host_call) ? 0 : atomic_load(&t->pause_until_ns);
    while (now < until && atomic_load(t->stop_reason) == SBX_OK) {
        uint64_t left = until - now;
        if (left > PAUSE_SLICE_NS)
            left = PAUSE_SLICE_NS;
        struct timespec ts = {0, (long)left};
        nanosleep(&ts, NULL);
        now = clock_ns(CLOCK_MONOTONIC);
    }
    atomic_fetch_add(&t->paused_ns, now - start);
    atomic_store(&t->is_pausing, false);
    errno = saved_errno;
}

static void install_throttle(void)
{
    struct sigaction old;
    if (sigaction(THROTTLE_SIGNAL, NULL, &old) != 0)
        return;
    /* Never take a signal the embedder already handles. */
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL)
        return;
    if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction != on_throttle)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_throttle;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(THROTTLE_SIGNAL, &sa, NULL) == 0)
        throttle_status = SBX_OK;
}

sbx_err sbx__plugin_throttle_init(void)
{
    pthread_once(&throttle_once, install_throttle);
    return throttle_status;
}

/* Queues a pause when the guest used more CPU than cpu_percent of the wall time so far. */
static void throttle_tick(struct sbx__watchdog *wd, uint64_t now)
{
    struct sbx__throttle *t = wd->throttle;
    if (atomic_load(&t->is_pausing) || atomic_load(&t->is_host_call))
        return;
    uint64_t used = clock_ns(wd->guest_clock) - atomic_load(&t->host_cpu_ns);
    uint64_t wall = now - wd->start_ns;
    /* The wall time at which `used` is exactly the share; ahead of it means pause. */
    uint64_t due = used / wd->cpu_percent * 100;
    if (due <= wall + PAUSE_SLICE_NS)
        return;
    uint64_t pause = due - wall;
    if (pause > MAX_PAUSE_NS)
        pause = MAX_PAUSE_NS;
    uint64_t until = now + pause;
    if (until > wd->deadline_ns)
        until = wd->deadline_ns;
    atomic_store(&t->pause_until_ns, until);
    atomic_store(&t->is_pausing, true);
    union sigval v = {.sival_ptr = t};
    if (pthread_sigqueue(wd->guest, THROTTLE_SIGNAL, v) != 0)
        atomic_store(&t->is_pausing, false);
}

/* The watchdog thread: idle until armed, then fires at the deadline (under mu, so a disarm
 * that returned can never be followed by a stale timeout) and ticks the throttle. */
static void *watch(void *arg)
{
    struct sbx__watchdog *wd = arg;
    pthread_mutex_lock(&wd->mu);
    while (!wd->is_exiting) {
        if (!wd->is_armed) {
            wd->wait_until_ns = 0;
            pthread_cond_wait(&wd->cond, &wd->mu);
            continue;
        }
        uint64_t now = sbx__now_ns();
        if (now >= wd->deadline_ns) {
            wd->on_timeout(wd->user);
            wd->is_armed = false;
            continue;
        }
        bool is_throttled = wd->cpu_percent < 100;
        if (is_throttled)
            throttle_tick(wd, now);
        uint64_t wake = is_throttled ? now + TICK_NS : wd->deadline_ns;
        if (wake > wd->deadline_ns)
            wake = wd->deadline_ns;
        wd->wait_until_ns = wake;
        /* The condition variable runs on CLOCK_MONOTONIC (see init_sync). */
        struct timespec ts = {(time_t)(wake / 1000000000ull), (long)(wake % 1000000000ull)};
        pthread_cond_timedwait(&wd->cond, &wd->mu, &ts);
    }
    pthread_mutex_unlock(&wd->mu);
    return NULL;
}

static sbx_err init_sync(struct sbx__watchdog *wd)
{
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return SBX_E_NOMEM;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&wd->cond, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0)
        return SBX_E_NOMEM;
    if (pthread_mutex_init(&wd->mu, NULL) != 0) {
        pthread_cond_destroy(&wd->cond);
        return SBX_E_NOMEM;
    }
    return SBX_OK;
}

/* Coverage builds (issue 15): libgcov writes the counters at exit, and a watchdog thread caught
 * between two counter updates (a wait that ends after the call was disarmed) leaves a snapshot
 * that breaks gcov's flow equations. The thread runs only while it holds its mu, so exit (its
 * step in core/exit.c) takes every live watchdog's mu and keeps it. Other builds keep no list. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sbx__watchdog *live;
static pthread_once_t live_once = PTHREAD_ONCE_INIT;

static void hold_all_at_exit(void)
{
    pthread_mutex_lock(&live_lock);
    for (struct sbx__watchdog *wd = live; wd; wd = wd->cov_next)
        pthread_mutex_lock(&wd->mu);
}

static void forget_live_in_child(void)
{
    pthread_mutex_init(&live_lock, NULL);
    live = NULL; /* the child has none of the threads */
}

static void register_live(void)
{
    pthread_atfork(NULL, NULL, forget_live_in_child);
    sbx__exit_at(SBX__EXIT_HOLD_WATCHDOGS, hold_all_at_exit);
}

static void live_add(struct sbx__watchdog *wd)
{
    if (!sbx__exit_counts_coverage())
        return;
    pthread_once(&live_once, register_live);
    pthread_mutex_lock(&live_lock);
    wd->cov_next = live;
    live = wd;
    pthread_mutex_unlock(&live_lock);
}

static void live_remove(struct sbx__watchdog *wd)
{
    if (!sbx__exit_counts_coverage())
        return;
    pthread_mutex_lock(&live_lock);
    for (struct sbx__watchdog **p = &live; *p; p = &(*p)->cov_next) {
        if (*p == wd) {
            *p = wd->cov_next;
            break;
        }
    }
    pthread_mutex_unlock(&live_lock);
}

/* Starts the thread on first use; it lives until sbx__plugin_watchdog_destroy(). */
static sbx_err ensure_thread(struct sbx__watchdog *wd)
{
    if (wd->is_started)
        return SBX_OK;
    sbx_err e = init_sync(wd);
    if (e != SBX_OK)
        return e;
    wd->is_exiting = false;
    wd->is_armed = false;
    if (pthread_create(&wd->thread, NULL, watch, wd) != 0) {
        pthread_cond_destroy(&wd->cond);
        pthread_mutex_destroy(&wd->mu);
        return SBX_E_NOMEM;
    }
    wd->is_started = true;
    live_add(wd);
    return SBX_OK;
}

/* Prepares the calling (guest) thread for throttling: its CPU clock, the signal unblocked. */
static sbx_err prepare_throttle(struct sbx__watchdog *wd, uint64_t *start_ns)
{
    if (sbx__plugin_throttle_init() != SBX_OK ||
        pthread_getcpuclockid(pthread_self(), &wd->guest_clock) != 0)
        return SBX_E_UNAVAILABLE;
    /* Charge only this call's CPU time: shift the wall origin by what was used before. */
    *start_ns -= clock_ns(wd->guest_clock) / wd->cpu_percent * 100;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, THROTTLE_SIGNAL);
    pthread_sigmask(SIG_UNBLOCK, &set, &wd->saved_mask);
    return SBX_OK;
}

sbx_err sbx__plugin_watchdog_arm(struct sbx__watchdog *wd, uint32_t timeout_ms,
                                 uint32_t cpu_percent, struct sbx__throttle *throttle)
{
    sbx_err e = ensure_thread(wd);
    if (e != SBX_OK)
        return e;
    uint64_t start = sbx__now_ns();
    uint32_t pct = cpu_percent == 0 || cpu_percent > 100 ? 100 : cpu_percent;
    throttle->magic = THROTTLE_MAGIC;
    atomic_store(&throttle->is_pausing, false);
    atomic_store(&throttle->host_cpu_ns, 0);
    pthread_mutex_lock(&wd->mu);
    wd->cpu_percent = pct;
    wd->deadline_ns = start + (uint64_t)timeout_ms * 1000000ull;
    if (pct < 100 && (e = prepare_throttle(wd, &start)) != SBX_OK) {
        pthread_mutex_unlock(&wd->mu);
        return e;
    }
    wd->start_ns = start;
    wd->guest = pthread_self();
    wd->throttle = throttle;
    wd->is_armed = true;
    /* A watchdog already waiting until before this deadline will see the new arming when it
     * wakes; waking it for every call would cost two context switches per call. */
    if (wd->wait_until_ns == 0 || wd->wait_until_ns > wd->deadline_ns || pct < 100)
        pthread_cond_signal(&wd->cond);
    pthread_mutex_unlock(&wd->mu);
    return SBX_OK;
}

void sbx__plugin_watchdog_disarm(struct sbx__watchdog *wd)
{
    if (!wd->is_started)
        return;
    pthread_mutex_lock(&wd->mu);
    bool was_throttled = wd->cpu_percent < 100;
    wd->is_armed = false; /* the thread notices when its wait ends; no wakeup needed */
    wd->cpu_percent = 100;
    pthread_mutex_unlock(&wd->mu);
    if (!was_throttled)
        return;
    /* No tick queues a signal once disarmed; one queued just before is delivered on this
     * syscall's return (it is unblocked on this thread), so the handler never runs late. */
    sigset_t pending;
    do
        sigpending(&pending);
    while (atomic_load(&wd->throttle->is_pausing) && sigismember(&pending, THROTTLE_SIGNAL));
    atomic_store(&wd->throttle->is_pausing, false);
    pthread_sigmask(SIG_SETMASK, &wd->saved_mask, NULL);
}

void sbx__plugin_watchdog_destroy(struct sbx__watchdog *wd)
{
    if (!wd->is_started)
        return;
    live_remove(wd);
    pthread_mutex_lock(&wd->mu);
    wd->is_exiting = true;
    pthread_cond_signal(&wd->cond);
    pthread_mutex_unlock(&wd->mu);
    pthread_join(wd->thread, NULL);
    pthread_cond_destroy(&wd->cond);
    pthread_mutex_destroy(&wd->mu);
    wd->is_started = false;
}

/* wasm/jit/quiesce.c: no use of LLVM runs under exit(). exit() runs libLLVM's static
 * destructors, and a load (dlopen runs LLVM's constructors) or a compile still running on
 * another thread then uses destroyed objects (SIGSEGV, heap corruption, "scalar-to-vector
 * conversion failed"). So each use (the load, each compile: the tier-up worker's and the
 * compiled tier's on a host thread) is counted; sbx_shutdown() and the exit hook stop new uses,
 * cancel the compiles in flight at their next function or phase (engine.c) and wait, bounded,
 * for the in-flight ones; sbx_shutdown() a load too (bounded, it cannot be stopped midway),
 * the exit hook never (at_exit). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "core/exit.h"
#include "wasm/jit/jit.h"

/* The longest wait for the uses in flight: a load, or one LLVM phase of a 2 MiB module on a
 * loaded machine under ASan, takes seconds. Past it exit proceeds (never a hang). */
#define QUIESCE_WAIT_MS 20000

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER; /* users reached 0 */
static unsigned users, loads;                          /* uses in flight; loads among them */
static atomic_bool is_stopped;
static atomic_bool has_compiled; /* the first compile ended: the hook was registered again */

/* fork() holds mu, so a child's counts are the parent's at the fork and mu is free. */
static void before_fork(void)
{
    pthread_mutex_lock(&mu);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&mu);
}

/* A child has none of the parent's threads, so none of their uses. A use in flight at the fork
 * may have held LLVM's own locks or left it half loaded or half way through a compile: then
 * the child never uses LLVM (it stays interpreted, and its shutdown and exit wait for nothing).
 * A waiter on idle in the parent is none here: idle starts afresh. */
static void after_fork_child(void)
{
    if (users)
        atomic_store(&is_stopped, true);
    users = loads = 0;
    pthread_cond_init(&idle, NULL);
    pthread_mutex_unlock(&mu);
}

/* Stops new uses; waits (bounded) for those in flight unless a load is among them at exit. */
static bool stop(bool is_exit)
{
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end); /* the condition variable's clock */
    end.tv_sec += QUIESCE_WAIT_MS / 1000;
    pthread_mutex_lock(&mu);
    atomic_store(&is_stopped, true);
    int rc = 0;
    while (users && !(is_exit && loads) && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&idle, &mu, &end);
    bool is_idle = users == 0;
    pthread_mutex_unlock(&mu);
    return is_idle;
}

/* A load in flight when exit() reaches this hook has had the destructors its constructors
 * registered (newer than the hook) run already: waiting would run the rest of it on destroyed
 * objects (measured: 9 of 80 hosts crashed so, 2 of 80 without the hook), so exit goes on. */
static void at_exit(void)
{
    stop(true);
}

void sbx__jit_exit_hook(void)
{
    static atomic_bool has_atfork;
    if (!atomic_exchange(&has_atfork, true))
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    sbx__exit_at(SBX__EXIT_STOP_COMPILES, at_exit); /* core/exit.c: first of the exit steps */
}

bool sbx__jit_use_begin(bool is_load)
{
    pthread_mutex_lock(&mu);
    bool ok = !atomic_load(&is_stopped);
    users += ok;
    loads += ok && is_load;
    pthread_mutex_unlock(&mu);
    return ok;
}

void sbx__jit_use_end(bool is_load)
{
    pthread_mutex_lock(&mu);
    loads -= is_load;
    users--;
    pthread_cond_broadcast(&idle);
    pthread_mutex_unlock(&mu);
    /* LLVM registers some destructors lazily in its first codegen (SDNode's value type set,
     * the print lists): newer than the hook registered at load, so they would run first. */
    if (!is_load && !atomic_exchange(&has_compiled, true))
        sbx__jit_exit_hook();
}

bool sbx__jit_is_stopped(void)
{
    return atomic_load_explicit(&is_stopped, memory_order_relaxed);
}

bool sbx__jit_quiesce(void)
{
    return stop(false);
}

void sbx_shutdown(void)
{
    sbx__wasm_tierup_stop();
}

/* core/abort.h: the abort of a handle, one mechanism for both handle types (sbx_sandbox in
 * core/sandbox.c, sbx_wasm_sandbox in plugin/sandbox.c). An abort reaches the run in progress
 * through its stop function; one that comes while nothing runs is remembered (pending) and the
 * next run takes it, unless clear_abort drops it first. Only request and clear are called from
 * other threads; the rest by the thread that uses the handle. */
#ifndef SBX_CORE_ABORT_H
#define SBX_CORE_ABORT_H

#include <pthread.h>
#include <stdbool.h>

struct sbx__abort {
    pthread_mutex_t mu;      /* guards everything below: request comes from any thread */
    bool is_pending;         /* an abort came while nothing ran */
    void (*stop)(void *arg); /* the run in progress, or NULL */
    void *arg;
};

/* Returns 0 or an errno (pthread_mutex_init's). */
int sbx__abort_init(struct sbx__abort *a);
void sbx__abort_destroy(struct sbx__abort *a);

/* Takes a pending abort: true when there was one (it is dropped). */
bool sbx__abort_take(struct sbx__abort *a);

/* Registers a run: later aborts call stop(arg), under the latch's lock, so a stop meant for
 * this run cannot land on the next. Returns true when an abort was pending (taken; the run is
 * registered all the same, so its caller decides how to end it). */
bool sbx__abort_begin(struct sbx__abort *a, void (*stop)(void *arg), void *arg);

/* Unregisters the run; aborts from now on are pending again. */
void sbx__abort_end(struct sbx__abort *a);

/* sbx_*_abort(): stops the registered run, or leaves the abort pending. Any thread. */
void sbx__abort_request(struct sbx__abort *a);

/* sbx_*_clear_abort(): drops a pending abort. Any thread. */
void sbx__abort_clear(struct sbx__abort *a);

#endif

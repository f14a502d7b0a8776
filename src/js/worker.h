/* js/worker.h: runs engine evaluations on pooled threads with big stacks. A job belongs to
 * the caller and the worker running it (two references); a caller that gives up on a stuck job
 * abandons it, and the worker frees it when the engine finally stops. */
#ifndef SBX_JS_WORKER_H
#define SBX_JS_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "js/engine.h"

/* At most this many abandoned jobs may still be running; beyond it new jobs are refused. Each
 * uses about no CPU once throttled (js/runtime.cpp) but keeps its memory (at most its
 * memoryBytes twice, plus its stack) until its engine stops. */
#define SBX_JS_MAX_ABANDONED 64
/* Idle pool threads kept for the next runs; more exit when their job ends. */
#define SBX_JS_IDLE_MAX 8

struct sbx__js_job;

/* Creates a job holding copies of in's code and context (the caller's buffers may go away
 * before an abandoned job ends). in->stop is ignored: the job has its own. NULL on NOMEM. */
struct sbx__js_job *sbx__js_job_create(const struct sbx__js_eval_in *in);

/* Hands the job to a pool thread. SBX_E_UNAVAILABLE when too many abandoned jobs are still
 * running; when no thread can be created the job runs to completion on the calling thread. */
sbx_err sbx__js_job_start(struct sbx__js_job *job);

/* Waits until the job is done, its stop reason is other than stop_seen (told to stop: the
 * caller passes SBX_OK, or the reason it has already seen, so a stop given before the call
 * is not missed), or until_ns (sbx__now_ns clock) passes. Returns true when done. */
bool sbx__js_job_wait(struct sbx__js_job *job, uint64_t until_ns, int stop_seen);

/* Tells the engine to stop with reason (SBX_E_TIMEOUT or SBX_E_ABORTED; the first reason
 * wins) and wakes a waiter. Safe from any thread while the caller holds its reference. */
void sbx__js_job_stop(struct sbx__js_job *job, int reason);

/* Returns the stop reason given so far, SBX_OK if none. */
int sbx__js_job_stop_reason(struct sbx__js_job *job);

/* The job's result; complete only after sbx__js_job_wait returned true. */
struct sbx__js_eval_out *sbx__js_job_out(struct sbx__js_job *job);

/* Stops the job's calls to in->on_output; once it returns none is in progress or comes. The
 * caller detaches before it returns to its own caller, whether the job is done or not. */
void sbx__js_job_detach_output(struct sbx__js_job *job);

/* Drops the caller's reference. A started job that is not done is abandoned: it keeps its
 * worker until the engine stops, counted against SBX_JS_MAX_ABANDONED. Accepts NULL. */
void sbx__js_job_release(struct sbx__js_job *job);

/* Number of abandoned jobs still running (for tests and diagnostics). */
int sbx__js_abandoned_count(void);

/* Number of idle pool threads, at most SBX_JS_IDLE_MAX (for tests and diagnostics). */
int sbx__js_idle_count(void);

/* Tests only (test_worker.c defines it; NULL in the library): called on a pool thread before
 * it records itself as its job's runner (where SBX__JS_PAUSE_RUN) and once it has built its
 * spare engine, before it goes idle (SBX__JS_PAUSE_IDLE), to hold it there. */
enum { SBX__JS_PAUSE_RUN, SBX__JS_PAUSE_IDLE };
__attribute__((weak, visibility("hidden"))) void sbx__js_test_pause(int where);

#endif

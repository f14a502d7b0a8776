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

struct sbx__js_job;

/* Creates a job holding copies of in's code and context (the caller's buffers may go away
 * before an abandoned job ends). in->stop is ignored: the job has its own. NULL on NOMEM. */
struct sbx__js_job *sbx__js_job_create(const struct sbx__js_eval_in *in);

/* Hands the job to a pool thread. SBX_E_UNAVAILABLE when too many abandoned jobs are still
 * running; when no thread can be created the job runs to completion on the calling thread. */
sbx_err sbx__js_job_start(struct sbx__js_job *job);

/* Waits until the job is done, is told to stop, or until_ns (sbx__now_ns clock) passes.
 * Returns true when done. */
bool sbx__js_job_wait(struct sbx__js_job *job, uint64_t until_ns);

/* Tells the engine to stop with reason (SBX_E_TIMEOUT or SBX_E_ABORTED; the first reason
 * wins) and wakes a waiter. Safe from any thread while the caller holds its reference. */
void sbx__js_job_stop(struct sbx__js_job *job, int reason);

/* Returns the stop reason given so far, SBX_OK if none. */
int sbx__js_job_stop_reason(struct sbx__js_job *job);

/* The job's result; complete only after sbx__js_job_wait returned true. */
struct sbx__js_eval_out *sbx__js_job_out(struct sbx__js_job *job);

/* Drops the caller's reference. A started job that is not done is abandoned: it keeps its
 * worker until the engine stops, counted against SBX_JS_MAX_ABANDONED. Accepts NULL. */
void sbx__js_job_release(struct sbx__js_job *job);

/* Number of abandoned jobs still running (for tests and diagnostics). */
int sbx__js_abandoned_count(void);

#endif

/* tests/unit/js/run_delay.h: a thread's wait for a CPU, for "the caller is back within N ms of
 * a deadline (or an abort)" bounds that a loaded host must not break by itself. The kernel
 * counts, per thread, the time it was ready to run while the host ran others (the run_delay of
 * /proc/self/task/TID/schedstat). A bound subtracts the caller's share of that from the moment
 * the clock starts (the deadline, the abort) to its return, and nothing else: time the caller
 * slept (waiting for an engine that did not stop) still counts. */
#ifndef SBX_TEST_RUN_DELAY_H
#define SBX_TEST_RUN_DELAY_H

#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* Thread tid's run_delay so far (ms); 0 where the kernel does not keep it. */
static inline double sbx_test_run_delay_ms(pid_t tid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
    unsigned long long cpu_ns = 0, wait_ns = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (fscanf(f, "%llu %llu", &cpu_ns, &wait_ns) != 2)
        wait_ns = 0;
    fclose(f);
    return (double)wait_ns / 1e6;
}

/* Reads the calling thread's run_delay at a moment to come (CLOCK_MONOTONIC at_ns), from a
 * thread of its own. Callers pick a moment while they sleep until their deadline, so the value
 * is the one at the deadline (a sleeping thread does not wait for a CPU), with room for the
 * probe's own lateness on a loaded host; a probe later than the deadline reads later still:
 * less is discounted, never more. */
struct sbx_test_wait_probe {
    pthread_t thread;
    pid_t tid;
    uint64_t at_ns;
    double at_ms;
    double late_ms; /* how late the probe read */
};

static inline void *sbx_test_wait_probe_main(void *arg)
{
    struct sbx_test_wait_probe *p = (struct sbx_test_wait_probe *)arg;
    struct timespec at = {(time_t)(p->at_ns / 1000000000u), (long)(p->at_ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0)
        ;
    p->at_ms = sbx_test_run_delay_ms(p->tid);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    p->late_ms = ((double)now.tv_sec * 1e9 + (double)now.tv_nsec - (double)p->at_ns) / 1e6;
    return NULL;
}

static inline void sbx_test_wait_probe_start(struct sbx_test_wait_probe *p, uint64_t at_ns)
{
    p->tid = gettid();
    p->at_ns = at_ns;
    p->at_ms = p->late_ms = 0;
    ck_assert_int_eq(pthread_create(&p->thread, NULL, sbx_test_wait_probe_main, p), 0);
}

/* Joins the probe: the caller's wait for a CPU from the probe's moment until now (ms). */
static inline double sbx_test_wait_probe_end(struct sbx_test_wait_probe *p)
{
    double now_ms = sbx_test_run_delay_ms(gettid());
    pthread_join(p->thread, NULL);
    return now_ms > p->at_ms ? now_ms - p->at_ms : 0;
}

#endif

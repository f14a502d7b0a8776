/* serve/clock.h: the absolute time pthread_cond_timedwait takes, ms from now on the clock its
 * condition waits on (CLOCK_REALTIME by default, CLOCK_MONOTONIC where set). */
#ifndef SBX_SERVE_CLOCK_H
#define SBX_SERVE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline struct timespec serve_deadline(clockid_t clock, uint64_t ms)
{
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

#endif

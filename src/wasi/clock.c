/* wasi/clock.c: clock_res_get / clock_time_get on the host's clocks, nanoseconds as u64.
 * Shared with poll.c: the mapping from WASI clock ids. */
#include <time.h>

#include "wasi/internal.h"

bool sbx__wasi_clock_id(uint32_t id, clockid_t *out)
{
    static const clockid_t ids[] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
                                    CLOCK_THREAD_CPUTIME_ID};
    if (id >= sizeof(ids) / sizeof(ids[0]))
        return false;
    *out = ids[id];
    return true;
}

static uint64_t ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

WASI_FN(clock_res_get)
{
    clockid_t id;
    struct timespec ts;
    if (!sbx__wasi_clock_id(a[0].i32, &id))
        return WASI_EINVAL;
    if (clock_getres(id, &ts) != 0)
        return WASI_EINVAL;
    return g_put_u64(e, a[1].i32, ts_ns(&ts));
}

WASI_FN(clock_time_get)
{
    clockid_t id;
    struct timespec ts;
    if (!sbx__wasi_clock_id(a[0].i32, &id))
        return WASI_EINVAL;
    if (clock_gettime(id, &ts) != 0)
        return WASI_EINVAL;
    return g_put_u64(e, a[2].i32, ts_ns(&ts));
}

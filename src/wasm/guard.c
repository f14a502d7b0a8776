/* wasm/guard.c: the load guard, which puts decoding, validation and translation under a run's
 * deadline and abort. The stages poll it every GUARD_PERIOD units of work (instructions, vector
 * elements), so a stop lands within microseconds while the poll costs nothing measurable. */
#include <stdatomic.h>
#include <time.h>

#include "wasm/decode.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

sbx_err sbx__wasm_guard_check(const struct wasm_load_guard *g)
{
    if (g == NULL)
        return SBX_OK;
    int stop = g->stop ? atomic_load(g->stop) : 0;
    if (stop != 0)
        return (sbx_err)stop;
    if (g->deadline_ns && now_ns() >= g->deadline_ns)
        return SBX_E_TIMEOUT;
    return SBX_OK;
}

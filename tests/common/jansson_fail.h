/* tests/common/jansson_fail.h: jansson's allocator with a switch that fails its nth call, the
 * counterpart of sbx__alloc_fail_at() for the allocations jansson makes itself. */
#ifndef SBX_TEST_JANSSON_FAIL_H
#define SBX_TEST_JANSSON_FAIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>

static unsigned long jansson_calls, jansson_fail_at;

static inline void *jansson_malloc(size_t n)
{
    if (jansson_fail_at && ++jansson_calls == jansson_fail_at)
        return NULL;
    return malloc(n);
}

/* Fails the nth jansson allocation from now on (0 = none). */
static inline void jansson_arm(unsigned long n)
{
    jansson_calls = 0;
    jansson_fail_at = n;
}

/* Routes jansson through the switch (is_on) or back to plain malloc. */
static inline void jansson_fail_install(bool is_on)
{
    jansson_arm(0);
    json_set_alloc_funcs(is_on ? jansson_malloc : malloc, free);
}

#endif

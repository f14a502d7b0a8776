/* util/alloc.c: overflow-checked allocation with an allocation-failure switch for tests. */
#include "util/alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static atomic_ulong fail_countdown;

void sbx__alloc_fail_at(unsigned long nth)
{
    atomic_store(&fail_countdown, nth);
}

static int should_fail(void)
{
    unsigned long n = atomic_load_explicit(&fail_countdown, memory_order_relaxed);
    while (n != 0) {
        if (atomic_compare_exchange_weak(&fail_countdown, &n, n - 1))
            return n == 1;
    }
    return 0;
}

static int mul_overflows(size_t count, size_t size, size_t *total)
{
    return __builtin_mul_overflow(count, size, total);
}

void *sbx__calloc(size_t count, size_t size)
{
    size_t total;
    if (mul_overflows(count, size, &total) || should_fail())
        return NULL;
    return calloc(total ? total : 1, 1);
}

void *sbx__mallocn(size_t count, size_t size)
{
    size_t total;
    if (mul_overflows(count, size, &total) || should_fail())
        return NULL;
    return malloc(total ? total : 1);
}

void *sbx__reallocn(void *ptr, size_t count, size_t size)
{
    size_t total;
    if (mul_overflows(count, size, &total) || should_fail())
        return NULL;
    return realloc(ptr, total ? total : 1);
}

char *sbx__strndup(const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *p = sbx__mallocn(len + 1, 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

char *sbx__strdup(const char *s)
{
    return sbx__strndup(s, strlen(s));
}

void sbx__free(void *ptr)
{
    free(ptr);
}

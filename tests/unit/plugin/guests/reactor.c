/* reactor.c: a WASI reactor for test_guests.c: typed exports, heap growth under memoryBytes,
 * and a capability import (host.twice) the policy allows or denies. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((import_module("host"), import_name("twice"))) int32_t host_twice(int32_t x);

static int counter; /* set by _initialize through a constructor */

__attribute__((constructor)) static void init(void)
{
    counter = 100;
}

__attribute__((export_name("counter"))) int32_t get_counter(void)
{
    return counter++;
}

__attribute__((export_name("fib"))) int64_t fib(int32_t n)
{
    int64_t a = 0, b = 1;
    for (int32_t i = 0; i < n; i++) {
        int64_t t = a + b;
        a = b;
        b = t;
    }
    return a;
}

__attribute__((export_name("hypot2"))) double hypot2(double x, float y)
{
    return x * x + (double)y * (double)y;
}

static char *volatile held; /* keeps the compiler from eliding the malloc/free pair */

/* Allocates and touches mb MiB; 0 on success, -1 when the heap cannot grow. */
__attribute__((export_name("alloc_mb"))) int32_t alloc_mb(int32_t mb)
{
    held = malloc((size_t)mb << 20);
    if (!held)
        return -1;
    memset(held, 1, (size_t)mb << 20);
    free(held);
    held = NULL;
    return 0;
}

__attribute__((export_name("twice"))) int32_t twice(int32_t x)
{
    return host_twice(x);
}

__attribute__((export_name("crash"))) int32_t crash(void)
{
    __builtin_trap();
}

/* Sleeps ms milliseconds through poll_oneoff; returns the milliseconds that really passed. */
__attribute__((export_name("nap"))) int32_t nap(int32_t ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    usleep((useconds_t)ms * 1000);
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (int32_t)((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000);
}

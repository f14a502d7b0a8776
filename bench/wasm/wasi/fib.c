/* bench/wasm/wasi/fib.c: recursive Fibonacci (call-heavy). N sets the size. */
#include "bench.h"

#ifndef N
#define N 42
#endif

static int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

BENCH_MAIN("fib")

int bench(void)
{
    volatile int n = N; /* keeps the compiler from folding the call */
    return fib(n);
}

/* bench/wasm/kernels/fib.c: recursive Fibonacci of N (call-heavy).
 * bench() returns its checksum. Both run-interp.sh and run-wasi.sh (with wasi/main.c) build
 * this file and set its sizes with -D; the defaults are the WASI programs'. */
#ifndef N
#define N 42
#endif

static int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int bench(void)
{
    volatile int n = N; /* keeps the compiler from folding the call */
    return fib(n);
}

/* Recursive Fibonacci: call-heavy. */
#ifndef N
#define N 35
#endif
static int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int bench(void)
{
    return fib(N);
}

/* bench/wasm/native_main.c: runs a kernel's bench() natively and prints "<result> <ns>". */
#include <stdio.h>
#include <time.h>

int bench(void);

int main(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    long long r = bench();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    long long ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
    printf("%lld %lld\n", r, ns);
    return 0;
}

/* bench/wasm/kernels/sieve.c: sieve of Eratosthenes over N bytes, REPS times (memory-bound loops).
 * bench() returns its checksum. Both run-interp.sh and run-wasi.sh (with wasi/main.c) build
 * this file and set its sizes with -D; the defaults are the WASI programs'. */
#include <stdlib.h>
#include <string.h>

#ifndef N
#define N 2000000
#endif
#ifndef REPS
#define REPS 100
#endif

int bench(void)
{
    unsigned char *comp = malloc(N + 1);
    if (!comp)
        return -1;
    long count = 0;
    for (int r = 0; r < REPS; r++) {
        memset(comp, 0, N + 1);
        count = 0;
        for (long i = 2; i <= N; i++) {
            if (comp[i])
                continue;
            count++;
            for (long long j = (long long)i * i; j <= N; j += i) /* wasm's long is 32 bits */
                comp[j] = 1;
        }
    }
    free(comp);
    return (int)count;
}

/* bench/wasm/kernels/matmul.c: N x N double matrix multiply, REPS times (i-k-j order).
 * bench() returns its checksum. Both run-interp.sh and run-wasi.sh (with wasi/main.c) build
 * this file and set its sizes with -D; the defaults are the WASI programs'. */
#include <stdlib.h>

#ifndef N
#define N 200
#endif
#ifndef REPS
#define REPS 300
#endif

int bench(void)
{
    double *a = malloc(sizeof(double) * N * N), *b = malloc(sizeof(double) * N * N);
    double *c = malloc(sizeof(double) * N * N);
    if (!a || !b || !c)
        return -1;
    for (int i = 0; i < N * N; i++) {
        a[i] = (double)(i % 17) * 0.5;
        b[i] = (double)(i % 13) * 0.25;
    }
    double sum = 0;
    for (int r = 0; r < REPS; r++) {
        for (int i = 0; i < N * N; i++)
            c[i] = 0;
        for (int i = 0; i < N; i++)
            for (int k = 0; k < N; k++) {
                double aik = a[i * N + k] + r;
                for (int j = 0; j < N; j++)
                    c[i * N + j] += aik * b[k * N + j];
            }
        sum += c[(r * 7) % (N * N)];
    }
    free(a), free(b), free(c);
    return (int)sum;
}

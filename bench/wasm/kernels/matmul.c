/* Dense double matrix multiply (i-k-j order): loads, stores and multiply-adds. */
#ifndef N
#define N 300
#endif
#ifndef REPS
#define REPS 4
#endif
static double a[N][N], b[N][N], c[N][N];

long long bench(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            a[i][j] = (double)(i + j) / N;
            b[i][j] = (double)(i - j) / N;
        }
    double sum = 0;
    for (int r = 0; r < REPS; r++) {
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                c[i][j] = 0;
        for (int i = 0; i < N; i++)
            for (int k = 0; k < N; k++) {
                double x = a[i][k];
                for (int j = 0; j < N; j++)
                    c[i][j] += x * b[k][j];
            }
        sum += c[N / 2][N / 3];
    }
    return (long long)(sum * 1000);
}

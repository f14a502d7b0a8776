/* Sieve of Eratosthenes, repeated: byte loads and stores in tight loops. */
#ifndef N
#define N 4000000
#endif
#ifndef REPS
#define REPS 10
#endif
static unsigned char composite[N + 1];

int bench(void)
{
    int count = 0;
    for (int r = 0; r < REPS; r++) {
        for (int i = 0; i <= N; i++)
            composite[i] = 0;
        count = 0;
        for (int i = 2; i <= N; i++) {
            if (composite[i])
                continue;
            count++;
            for (int j = i + i; j <= N; j += i)
                composite[j] = 1;
        }
    }
    return count;
}

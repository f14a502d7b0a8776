/* bench/wasm/wasi/big_main.c: a program over the 1 MB module (gen_big.sh 3900) that runs 16 of
 * its 3,900 functions ROUNDS times, as a plugin calls a few functions of a big library. */
#include <stdio.h>
#include <stdlib.h>

int bench(int i);

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20000000;
    unsigned sum = 0;
    for (int r = 0; r < rounds; r++)
        sum += (unsigned)bench((r & 15) * 241 + 7);
    printf("%u\n", sum);
    return 0;
}

/* bench/wasm/wasi/main.c: the WASI program around one workload (a kernels/<k>.c or mixed.c,
 * compiled together with this file by run-wasi.sh with -DBENCH_NAME='"<k>"'): prints
 * "<name> <checksum>". wasm-interp, which lacks WASI, runs the workload alone instead. */
#include <stdio.h>

int bench(void);

int main(void)
{
    printf("%s %d\n", BENCH_NAME, bench());
    return 0;
}

/* bench/wasm/wasi/bench.h: each program's work is bench(), returning a checksum that main()
 * prints. Built with -DBENCH_NO_IO (for Debian's wasm-interp, which lacks WASI) there is no
 * main and no stdio: bench is exported and wasm-interp --run-all-exports prints its result. */
#ifndef BENCH_WASI_BENCH_H
#define BENCH_WASI_BENCH_H

#include <stdio.h>

#ifdef BENCH_NO_IO
#define BENCH_MAIN(name) __attribute__((export_name("bench"))) int bench(void);
#else
#define BENCH_MAIN(name)                                                                           \
    int bench(void);                                                                               \
    int main(void)                                                                                 \
    {                                                                                              \
        printf("%s %d\n", name, bench());                                                          \
        return 0;                                                                                  \
    }
#endif

#endif

/* bench/wasm/wasi/hello.c: the start-up probe: a WASI hello world. With -DBENCH_NO_IO (for
 * wasm-interp, which has no WASI in Debian) it is an empty export instead. */
#include <stdio.h>

#ifdef BENCH_NO_IO
__attribute__((export_name("hello"))) int hello(void);
int hello(void)
{
    return 0;
}
#else
int main(void)
{
    puts("hello, world");
    return 0;
}
#endif

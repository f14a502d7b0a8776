/* plugin.c: the WASI reactor both bindings' tests load: typed exports, capability imports the
 * tests' policies grant or deny, a trap, a spin for timeouts, and stdout. */
#include <stdint.h>
#include <stdio.h>

#define IMPORT(mod, fn) __attribute__((import_module(mod), import_name(fn)))
#define EXPORT(fn)      __attribute__((export_name(fn)))

IMPORT("host", "log") void host_log(int32_t x);
IMPORT("host", "twice") int32_t host_twice(int32_t x);
IMPORT("host", "mix") int64_t host_mix(int64_t a, double b);
IMPORT("host", "secret") int32_t host_secret(void);

EXPORT("add") int32_t add(int32_t a, int32_t b)
{
    return a + b;
}

EXPORT("add64") int64_t add64(int64_t a, int64_t b)
{
    return a + b;
}

EXPORT("hyp") double hyp(double x, float y)
{
    return x * x + (double)y * (double)y;
}

EXPORT("say") int32_t say(int32_t x)
{
    host_log(x);
    return x;
}

EXPORT("twice") int32_t twice(int32_t x)
{
    return host_twice(x);
}

EXPORT("mix") int64_t mix(int64_t a, double b)
{
    return host_mix(a, b);
}

EXPORT("secret") int32_t secret(void)
{
    return host_secret();
}

EXPORT("crash") int32_t crash(void)
{
    __builtin_trap();
}

EXPORT("spin") int32_t spin(void)
{
    volatile int32_t n = 0;
    for (;;)
        n++;
}

EXPORT("hello") int32_t hello(void)
{
    printf("hello from wasm\n");
    fflush(stdout);
    return 0;
}

/* bench/wasm/host.c: file loading and the empty import resolver of the benchmark hosts. */
#include <stdio.h>
#include <stdlib.h>

#include "host.h"

bool bench_no_imports(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    (void)user, (void)imp, (void)out;
    return false;
}

unsigned char *bench_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = n > 0 ? malloc((size_t)n) : NULL;
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *len = p ? (size_t)n : 0;
    return p;
}

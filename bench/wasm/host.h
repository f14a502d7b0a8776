/* bench/wasm/host.h: what the in-process benchmark hosts (bench_interp.c, wasi/instantiate.c)
 * share; host.c is compiled with each. */
#ifndef BENCH_WASM_HOST_H
#define BENCH_WASM_HOST_H

#include <stddef.h>

#include "wasm/wasm.h"

/* The whole file, malloc'ed (the caller frees it), its size in *len; NULL if unreadable or empty.
 */
unsigned char *bench_slurp(const char *path, size_t *len);

/* An import resolver that resolves nothing: the benchmark modules import nothing. */
bool bench_no_imports(void *user, const struct wasm_import *imp, struct wasm_extern *out);

#endif

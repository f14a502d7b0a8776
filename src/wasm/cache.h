/* wasm/cache.h: the compiled tier's on-disk cache as the rest of libsbx sees it (the plugin
 * host's sbx_wasm_compile and sbx_wasm_cache_check). What is inside stays in src/wasm/jit/. */
#ifndef SBX_WASM_CACHE_H
#define SBX_WASM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sbx/error.h>

struct wasm_module;

/* Compiles m into the cache unless its image is there already (*was_cached says which) and
 * writes the image's path to path. Errors as sbx_wasm_compile(). */
sbx_err sbx__wasm_cache_fill(const struct wasm_module *m, char *path, size_t pathlen,
                             bool *was_cached, char *err, size_t errlen);

/* Opens the cache directory as a run would, writes its path to path (when path is not NULL),
 * and closes it. Errors as sbx_wasm_cache_check(). */
sbx_err sbx__wasm_cache_check(char *path, size_t pathlen, char *err, size_t errlen);

/* sbx_wasm_compile_hot and sbx_wasm_hot_due (wasm/jit/cache.h). */
sbx_err sbx__wasm_cache_upgrade(const struct wasm_module *m, bool *did, char *path, size_t pathlen,
                                char *err, size_t errlen);
bool sbx__wasm_cache_hot_due(const uint8_t *bytes, size_t len);

#endif

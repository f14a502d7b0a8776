/* wasm/cache.c: the wasm-level face of the compiled-code cache (wasm/cache.h), so that no code
 * outside src/wasm/ reaches into src/wasm/jit/. */
#include <stdio.h>

#include "wasm/cache.h"
#include "wasm/jit/cache.h"

sbx_err sbx__wasm_cache_fill(const struct wasm_module *m, char *path, size_t pathlen,
                             bool *was_cached, char *err, size_t errlen)
{
    return sbx__jit_cache_fill(m, path, pathlen, was_cached, err, errlen);
}

sbx_err sbx__wasm_cache_check(char *path, size_t pathlen, char *err, size_t errlen)
{
    struct sbx__jit_cache c;
    sbx_err rc = sbx__jit_cache_open(&c, NULL, 0, err, errlen);
    if (path && pathlen)
        snprintf(path, pathlen, "%s", c.path);
    sbx__jit_cache_close(&c);
    return rc;
}

sbx_err sbx__wasm_cache_upgrade(const struct wasm_module *m, bool *did, char *path, size_t pathlen,
                                char *err, size_t errlen)
{
    return sbx__jit_hot_upgrade_module(m, did, path, pathlen, err, errlen);
}

bool sbx__wasm_cache_hot_due(const uint8_t *bytes, size_t len)
{
    return sbx__jit_hot_due(bytes, len);
}

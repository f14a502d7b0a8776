/* plugin/compile.c: sbx_wasm_compile(), sbx_wasm_compile_hot(), sbx_wasm_hot_due() and
 * sbx_wasm_cache_check(), the public face of the
 * compiled tier's cache (wasm/cache.h): `sbx compile` fills it ahead of time. */
#include <stdio.h>

#include <sbx.h>

#include "wasm/cache.h"
#include "wasm/module.h"
#include "wasm/wasm.h"

static void clear(char *s, size_t len)
{
    if (s && len)
        s[0] = '\0';
}

/* sbx_wasm_compile (is_hot false: *flag is was_cached) and sbx_wasm_compile_hot (*flag is did):
 * one argument check, one module load. */
static sbx_err compile_into_cache(const uint8_t *bytes, size_t len, bool is_hot, char *path,
                                  size_t pathlen, bool *flag, char *err, size_t errlen)
{
    clear(err, errlen);
    clear(path, pathlen);
    if (!bytes || !path || !pathlen || !flag)
        return SBX_E_INVALID_ARGUMENT;
    *flag = false;
    struct wasm_module *m = NULL;
    sbx_err rc = sbx__wasm_module_load(bytes, len, &m, err, errlen);
    if (rc != SBX_OK)
        return rc;
    rc = is_hot ? sbx__wasm_cache_upgrade(m, flag, path, pathlen, err, errlen)
                : sbx__wasm_cache_fill(m, path, pathlen, flag, err, errlen);
    sbx__wasm_module_destroy(m);
    return rc;
}

sbx_err sbx_wasm_compile(const uint8_t *bytes, size_t len, char *path, size_t pathlen,
                         bool *was_cached, char *err, size_t errlen)
{
    return compile_into_cache(bytes, len, false, path, pathlen, was_cached, err, errlen);
}

sbx_err sbx_wasm_compile_hot(const uint8_t *bytes, size_t len, char *path, size_t pathlen,
                             bool *did, char *err, size_t errlen)
{
    return compile_into_cache(bytes, len, true, path, pathlen, did, err, errlen);
}

bool sbx_wasm_hot_due(const uint8_t *bytes, size_t len)
{
    return bytes && sbx__wasm_cache_hot_due(bytes, len);
}

sbx_err sbx_wasm_cache_check(char *path, size_t pathlen, char *err, size_t errlen)
{
    clear(path, pathlen);
    return sbx__wasm_cache_check(path, pathlen, err, errlen);
}

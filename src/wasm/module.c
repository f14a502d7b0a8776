/* wasm/module.c: a module's life: copy the bytes, decode, validate, translate; and free it.
 * A module is immutable once loaded, so instances on many threads may share it. */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/compile.h"
#include "wasm/decode.h"
#include "wasm/wasm.h"

void sbx__wasm_module_destroy(struct wasm_module *m)
{
    if (m == NULL)
        return;
    sbx__wasm_compile_free(m);
    sbx__wasm_module_clear(m);
    sbx__free(m->bytes);
    sbx__free(m);
}

sbx_err sbx__wasm_module_load(const uint8_t *bytes, size_t len, struct wasm_module **out, char *err,
                              size_t errlen)
{
    return sbx__wasm_module_load_guarded(bytes, len, NULL, out, err, errlen);
}

/* A stage that failed while the guard says stop was stopped by it (or failed at the same
 * moment); the stop is what the caller needs to hear. */
static sbx_err stopped(const struct wasm_load_guard *guard, sbx_err rc, char *err, size_t errlen)
{
    sbx_err why = sbx__wasm_guard_check(guard);
    if (why == SBX_OK)
        return rc;
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "%s while loading the module",
                 why == SBX_E_TIMEOUT ? "time limit reached" : sbx_err_message(why));
    return why;
}

sbx_err sbx__wasm_module_load_guarded(const uint8_t *bytes, size_t len,
                                      const struct wasm_load_guard *guard, struct wasm_module **out,
                                      char *err, size_t errlen)
{
    *out = NULL;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (bytes == NULL && len > 0)
        return SBX_E_INVALID_ARGUMENT;
    if (len > UINT32_MAX) {
        /* Offsets and sizes inside a module are u32 (spec 5.1.3). */
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "malformed: module larger than 4 GiB");
        return SBX_E_WASM_INVALID_MODULE;
    }
    struct wasm_module *m = sbx__calloc(1, sizeof *m);
    if (m == NULL)
        return SBX_E_NOMEM;
    m->bytes = sbx__mallocn(len, 1);
    if (m->bytes == NULL) {
        sbx__free(m);
        return SBX_E_NOMEM;
    }
    if (len > 0)
        memcpy(m->bytes, bytes, len);
    m->len = len;
    m->guard = guard;
    sbx_err rc = sbx__wasm_decode(m, err, errlen);
    if (rc == SBX_OK)
        rc = sbx__wasm_validate(m, err, errlen);
    if (rc == SBX_OK)
        rc = sbx__wasm_compile(m, err, errlen);
    m->guard = NULL;
    if (rc != SBX_OK) {
        sbx__wasm_module_destroy(m);
        return stopped(guard, rc, err, errlen);
    }
    *out = m;
    return SBX_OK;
}

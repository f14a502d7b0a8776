/* plugin/grants.c: the public face of the wasm tier's preopens (<sbx/plugin.h>), built and
 * matched by the very functions src/wasi/ enforces with, so an embedder or a binding sees
 * exactly what the guest will get. (The outbound allowlist is core's: core/outbound.c.) */
#include <string.h>

#include <sbx/plugin.h>

#include "core/policy.h"
#include "util/alloc.h"
#include "wasi/wasi.h"

void sbx_preopens_free(sbx_preopen *list, size_t count)
{
    if (!list)
        return;
    for (size_t i = 0; i < count; i++) {
        sbx__free(list[i].host_path);
        sbx__free(list[i].guest_path);
    }
    sbx__free(list);
}

sbx_err sbx_preopens_build(const sbx_policy *policy, sbx_preopen **out, size_t *count)
{
    if (!out || !count)
        return SBX_E_INVALID_ARGUMENT;
    *out = NULL;
    *count = 0;
    struct sbx__wasi_preopen *in;
    size_t n;
    sbx_err rc = sbx__wasi_preopens_build(policy, &in, &n);
    if (rc != SBX_OK || n == 0)
        return rc;
    sbx_preopen *list = sbx__calloc(n, sizeof(*list));
    if (!list) {
        sbx__wasi_preopens_free(in, n);
        return SBX_E_NOMEM;
    }
    /* The strings move over: the internal list gives them up. */
    for (size_t i = 0; i < n; i++) {
        list[i] = (sbx_preopen){in[i].host_path, in[i].guest_path, in[i].is_writable};
        in[i].host_path = in[i].guest_path = NULL;
    }
    sbx__wasi_preopens_free(in, n);
    *out = list;
    *count = n;
    return SBX_OK;
}

long sbx_preopen_match(const sbx_preopen *list, size_t count, const char *guest_path,
                       const char **rest)
{
    if (!guest_path || (!list && count))
        return -1;
    struct sbx__wasi_preopen *in = sbx__calloc(count ? count : 1, sizeof(*in));
    if (!in)
        return -1;
    for (size_t i = 0; i < count; i++)
        in[i] =
            (struct sbx__wasi_preopen){list[i].host_path, list[i].guest_path, list[i].is_writable};
    for (size_t i = 0; i < count; i++)
        if (!in[i].guest_path) /* a hole in a caller-built list: "" is nobody's prefix */
            in[i].guest_path = (char *)"";
    long idx = sbx__wasi_preopen_match(in, count, guest_path, rest);
    sbx__free(in);
    return idx;
}

/* plugin/grants.c: the public face of the wasm tier's preopens (<sbx/plugin.h>), built and
 * matched by the very functions src/wasi/ enforces with, so an embedder or a binding sees
 * exactly what the guest will get. (The outbound allowlist is core's: core/outbound.c.) */
#include <string.h>

#include <sbx/plugin.h>

#include "core/policy.h"
#include "wasi/wasi.h"

void sbx_preopens_free(sbx_preopen *list, size_t count)
{
    sbx__wasi_preopens_free(list, count);
}

sbx_err sbx_preopens_build(const sbx_policy *policy, sbx_preopen **out, size_t *count)
{
    if (!out || !count)
        return SBX_E_INVALID_ARGUMENT;
    *out = NULL;
    *count = 0;
    return sbx__wasi_preopens_build(policy, out, count);
}

long sbx_preopen_match(const sbx_preopen *list, size_t count, const char *guest_path,
                       const char **rest)
{
    if (!guest_path || (!list && count))
        return -1;
    return sbx__wasi_preopen_match(list, count, guest_path, rest);
}

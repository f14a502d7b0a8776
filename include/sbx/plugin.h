/* sbx/plugin.h: pieces of the wasm plugin host usable on their own, for embedders and the
 * language bindings: the preopens and the outbound allowlist a policy yields, and the
 * capability imports a module asks for. Each is what the wasm tier itself enforces. */
#ifndef SBX_PLUGIN_H
#define SBX_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "policy.h"
#include "wasm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One preopened directory the guest sees. */
typedef struct sbx_preopen {
    char *host_path;  /* as the policy granted it */
    char *guest_path; /* normalised: no trailing '/', no "." or empty components */
    bool is_writable; /* only when some grant for this guest path said "rw:" */
} sbx_preopen;

/* Builds the preopens of policy.fs in policy order, one per guest path (duplicates merge; the
 * first grant's host path wins). *out owns *count entries (NULL when none); free them with
 * sbx_preopens_free(). Returns SBX_OK, SBX_E_INVALID_ARGUMENT (NULL out or count), SBX_E_NOMEM.
 */
SBX_API sbx_err sbx_preopens_build(const sbx_policy *policy, sbx_preopen **out, size_t *count);

/* Frees a list from sbx_preopens_build(). Accepts NULL. */
SBX_API void sbx_preopens_free(sbx_preopen *list, size_t count);

/* Returns the index of the preopen whose guest path is the longest component-wise prefix of
 * guest_path, or -1 (also for NULL arguments). *rest (if rest is not NULL) points into
 * guest_path at the remainder without a leading '/', or is "." for the preopen itself. */
SBX_API long sbx_preopen_match(const sbx_preopen *list, size_t count, const char *guest_path,
                               const char **rest);

/* One function import of a module outside wasi_snapshot_preview1: a capability. */
typedef struct sbx_wasm_import {
    char *name;      /* "module.name", the policy's key and sbx_wasm_host_func.name */
    char *signature; /* "(i32, i64) -> (i32)", ready for sbx_wasm_host_func.signature; NULL
                        when a type is outside i32/i64/f32/f64 (no host function can serve it) */
    sbx_wasm_valtype params[16], results[16]; /* the first 16 of each when signature is set */
    size_t param_count, result_count;
} sbx_wasm_import;

/* Lists the capability imports of a module (len bytes) in import order, after decoding and
 * validating it as sbx_wasm_sandbox_create() does. *out owns *count entries (NULL when none);
 * free them with sbx_wasm_imports_free(). Returns SBX_OK, SBX_E_WASM_INVALID_MODULE (the
 * reason in err), SBX_E_INVALID_ARGUMENT, SBX_E_NOMEM. */
SBX_API sbx_err sbx_wasm_module_imports(const uint8_t *bytes, size_t len, sbx_wasm_import **out,
                                        size_t *count, char *err, size_t errlen);

/* Frees a list from sbx_wasm_module_imports(). Accepts NULL. */
SBX_API void sbx_wasm_imports_free(sbx_wasm_import *list, size_t count);

#ifdef __cplusplus
}
#endif
#endif

/* sbx/policy.h: the permission policy every tier enforces (docs/policy.md).
 * A policy is parsed and validated once, then immutable and safe to share between threads. */
#ifndef SBX_POLICY_H
#define SBX_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbx_policy sbx_policy;

/* Parses and validates a policy from JSON text (len bytes, need not be NUL-terminated).
 * On failure returns SBX_E_INVALID_OPTIONS and writes one line to err (if errlen > 0): a syntax
 * error names line and column, a bad field its JSON path and the reason
 * ("policy.cpuPercent: must be an integer in 1..100, got 150"). Unknown and duplicate keys are
 * rejected. On success *out owns a new policy; free it with sbx_policy_destroy(). */
SBX_API sbx_err sbx_policy_parse(const char *json, size_t len, sbx_policy **out, char *err,
                                 size_t errlen);

/* Reads the file at path and parses it as sbx_policy_parse() does; I/O errors give
 * SBX_E_INVALID_OPTIONS with the file name and the reason in err. */
SBX_API sbx_err sbx_policy_parse_file(const char *path, sbx_policy **out, char *err, size_t errlen);

/* Returns a new policy equal to base with one field changed, validated as parse would.
 * key is a dotted path ("timeoutMs", "net.loopback", "net.outbound", "fs", "env",
 * "capabilities"); json_value is JSON text. Arrays are appended to, objects merged key by key,
 * scalars replaced. base is not modified. */
SBX_API sbx_err sbx_policy_with(const sbx_policy *base, const char *key, const char *json_value,
                                sbx_policy **out, char *err, size_t errlen);

/* Returns the resolved policy (every default filled in) as JSON text, or NULL on allocation
 * failure. The caller frees it with sbx_free(). */
SBX_API char *sbx_policy_to_json(const sbx_policy *policy);

/* Frees a policy. Accepts NULL. */
SBX_API void sbx_policy_destroy(sbx_policy *policy);

/* Read-only accessors for embedders and the CLI. */
SBX_API uint32_t sbx_policy_timeout_ms(const sbx_policy *policy);
SBX_API uint64_t sbx_policy_memory_bytes(const sbx_policy *policy);
SBX_API uint64_t sbx_policy_fuel(const sbx_policy *policy);
SBX_API bool sbx_policy_wasm_cache(const sbx_policy *policy); /* policy.wasm.cache */

/* Frees memory the library returned to the caller (JSON text, result buffers). Accepts NULL. */
SBX_API void sbx_free(void *ptr);

#ifdef __cplusplus
}
#endif
#endif

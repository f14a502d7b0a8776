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

/* One policy.net.outbound pattern, parsed. */
typedef struct sbx_outbound_rule {
    char *host;       /* lower-case; "*.example.org" for a wildcard; IPv6 without brackets */
    uint16_t port;    /* 0 when is_any_port */
    bool is_wildcard; /* matches strictly deeper subdomains only */
    bool is_any_port; /* the pattern's port was "*" */
} sbx_outbound_rule;

/* Builds the outbound allowlist of policy.net.outbound in policy order. *out owns *count rules
 * (NULL when none); free them with sbx_outbound_allowlist_free(). Returns SBX_OK,
 * SBX_E_INVALID_ARGUMENT, SBX_E_NOMEM. */
SBX_API sbx_err sbx_outbound_allowlist_build(const sbx_policy *policy, sbx_outbound_rule **out,
                                             size_t *count);

/* Frees a list from sbx_outbound_allowlist_build(). Accepts NULL. */
SBX_API void sbx_outbound_allowlist_free(sbx_outbound_rule *list, size_t count);

/* Returns true when a rule allows connecting to host:port: the gate the wasm tier's
 * sock_connect applies. host is a DNS name (case-insensitive), an IPv4 literal or an IPv6
 * literal with or without brackets; IP literals compare as addresses. false for NULL. */
SBX_API bool sbx_outbound_allowed(const sbx_outbound_rule *list, size_t count, const char *host,
                                  uint16_t port);

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

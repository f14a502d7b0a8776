/* core/policy.h: the resolved policy as the tiers read it. Immutable after parse (but for its
 * reference count and the JSON text it caches); every field holds its default when the JSON left
 * it out. Handles and runs share one policy by reference (sbx__policy_ref); nothing copies it. */
#ifndef SBX_CORE_POLICY_H
#define SBX_CORE_POLICY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sbx/policy.h>

/* One policy.fs entry: "[rw:]HOST[::GUEST]". */
struct sbx__fs_grant {
    char *host_path;  /* as written (not canonicalised): the tiers open it themselves */
    char *guest_path; /* = host_path when no "::GUEST" was given */
    bool is_writable; /* only with an explicit "rw:" prefix */
};

struct sbx__env_var {
    char *name;
    char *value;
};

enum sbx__cap_mode { SBX_CAP_DENY = 0, SBX_CAP_ALLOW = 1 };

/* policy.wasm.tier: which engine runs wasm code (docs/wasm.md, "The compiled tier"). */
enum sbx__wasm_tier { SBX_WASM_TIER_AUTO = 0, SBX_WASM_TIER_INTERP, SBX_WASM_TIER_COMPILED };

struct sbx__capability {
    char *name; /* "module.name" */
    enum sbx__cap_mode mode;
};

struct sbx_policy {
    uint32_t timeout_ms;       /* 1..3600000, default 5000 */
    uint64_t memory_bytes;     /* >= 262144, default 64 MiB */
    uint32_t cpu_percent;      /* 1..100, default 100 */
    uint64_t max_output_bytes; /* per stream, default 1 MiB */
    uint32_t pids;             /* default 64 */
    uint64_t fuel;             /* 0 = unmetered */
    struct sbx__env_var *env;  /* the guest's whole environment */
    size_t env_count;
    struct sbx__fs_grant *fs;
    size_t fs_count;
    bool net_loopback;
    sbx_outbound_rule *outbound; /* policy.net.outbound, matched by core/outbound.h */
    size_t outbound_count;
    struct sbx__capability *caps;
    size_t cap_count;
    enum sbx__wasm_tier wasm_tier; /* default auto */
    bool wasm_cache;               /* policy.wasm.cache: the compiled-code cache; default true */
    bool js_jit;                   /* policy.js.jit: the engine's JIT tiers; default false */
    _Atomic size_t refs;           /* the caller's and each handle's; freed when it drops to 0 */
    char *_Atomic json;            /* sbx__policy_json()'s text, made once, or NULL */
};

/* Returns "auto", "interp" or "compiled". Static storage. */
const char *sbx__policy_wasm_tier_name(enum sbx__wasm_tier tier);

/* Takes a reference to p for a handle (any thread); sbx_policy_destroy() drops it. Returns p. */
struct sbx_policy *sbx__policy_ref(const struct sbx_policy *p);

/* Returns a new policy (one reference) with p's contents, for a caller that changes its copy
 * before anyone shares it (the conformance harness); NULL on allocation failure. */
struct sbx_policy *sbx__policy_copy(const struct sbx_policy *p);

/* Returns p as sbx_policy_to_json() writes it, made on the first call and kept with p (the JS
 * guest's copy, where the policy crosses a process boundary); NULL on allocation failure.
 * Valid while p is. Any thread. */
const char *sbx__policy_json(const struct sbx_policy *p);

/* Returns the capability mode for "module.name"; absent names are denied. */
enum sbx__cap_mode sbx__policy_capability(const struct sbx_policy *p, const char *name);

#endif

/* core/policy.c: the permission policy, validated at the boundary. Every check names the
 * field's JSON path and the reason; a resolved policy is immutable and every field finite. */
#include "core/policy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "core/json.h"
#include "core/policy_json.h"
#include "util/alloc.h"

#define TIMEOUT_MAX_MS 3600000u
#define MEMORY_MIN     262144u
#define MEMORY_MAX     (1ull << 40)
#define OUTPUT_MAX     (1ull << 30)
#define PIDS_MAX       32768u
#define HOST_MAX       253u /* the longest DNS name (RFC 1035) */

struct diag {
    char *buf;
    size_t len;
};

/* Messages quote what the user wrote; control characters are escaped so a message stays one
 * line whatever the input holds. */
static void vmessage(char *buf, size_t len, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void vmessage(char *buf, size_t len, const char *fmt, va_list ap)
{
    if (len == 0)
        return;
    char raw[1024];
    vsnprintf(raw, sizeof(raw), fmt, ap);
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)raw; *p && o + 5 < len; p++) {
        if (*p < 0x20 || *p == 0x7f)
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", *p);
        else
            buf[o++] = (char)*p;
    }
    buf[o] = '\0';
}

void sbx__policy_message(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(buf, len, fmt, ap);
    va_end(ap);
}

sbx_err sbx__policy_nomem(char *err, size_t errlen)
{
    sbx__policy_message(err, errlen, "policy: out of memory");
    return SBX_E_NOMEM;
}

static sbx_err fail(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static sbx_err fail(struct diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(d->buf, d->len, fmt, ap);
    va_end(ap);
    return SBX_E_INVALID_OPTIONS;
}

/* Describes a JSON value for "got ..." in messages. */
static void describe(const json_t *v, char *out, size_t len)
{
    switch (json_typeof(v)) {
    case JSON_INTEGER:
        snprintf(out, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        snprintf(out, len, "%g", json_real_value(v));
        break;
    case JSON_STRING:
        snprintf(out, len, "a string");
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        snprintf(out, len, "a boolean");
        break;
    case JSON_NULL:
        snprintf(out, len, "null");
        break;
    case JSON_ARRAY:
        snprintf(out, len, "an array");
        break;
    default:
        snprintf(out, len, "an object");
        break;
    }
}

static sbx_err get_uint(const json_t *v, const char *path, uint64_t lo, uint64_t hi, uint64_t *out,
                        struct diag *d)
{
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x >= 0 && (uint64_t)x >= lo && (uint64_t)x <= hi) {
            *out = (uint64_t)x;
            return SBX_OK;
        }
    }
    char got[64];
    describe(v, got, sizeof(got));
    return fail(d, "policy.%s: must be an integer in %" PRIu64 "..%" PRIu64 ", got %s", path, lo,
                hi, got);
}

static sbx_err get_string(const json_t *v, const char *path, const char **out, struct diag *d)
{
    if (!json_is_string(v)) {
        char got[64];
        describe(v, got, sizeof(got));
        return fail(d, "policy.%s: must be a string, got %s", path, got);
    }
    *out = json_string_value(v);
    return SBX_OK;
}

static sbx_err parse_env(const json_t *v, struct sbx_policy *p, struct diag *d)
{
    if (!json_is_object(v))
        return fail(d, "policy.env: must be an object of strings");
    p->env = sbx__calloc(json_object_size(v), sizeof(*p->env));
    if (!p->env && json_object_size(v))
        return SBX_E_NOMEM;
    const char *name;
    json_t *val;
    json_object_foreach((json_t *)v, name, val)
    {
        char path[160];
        snprintf(path, sizeof(path), "env.%.120s", name);
        const char *s = NULL;
        sbx_err e = get_string(val, path, &s, d);
        if (e)
            return e;
        if (name[0] == '\0' || strchr(name, '='))
            return fail(d, "policy.%s: variable name must be non-empty and without '='", path);
        struct sbx__env_var *ev = &p->env[p->env_count];
        ev->name = sbx__strdup(name);
        ev->value = sbx__strdup(s);
        p->env_count++;
        if (!ev->name || !ev->value)
            return SBX_E_NOMEM;
    }
    return SBX_OK;
}

static sbx_err parse_fs_entry(const char *spec, const char *path, struct sbx__fs_grant *g,
                              struct diag *d)
{
    const char *host = spec;
    if (strncmp(spec, "rw:", 3) == 0) {
        g->is_writable = true;
        host = spec + 3;
    }
    const char *sep = strstr(host, "::");
    size_t host_len = sep ? (size_t)(sep - host) : strlen(host);
    const char *guest = sep ? sep + 2 : host;
    if (host_len == 0)
        return fail(d, "policy.%s: host path is empty in \"%.200s\"", path, spec);
    if (guest[0] == '\0')
        return fail(d, "policy.%s: guest path is empty in \"%.200s\"", path, spec);
    g->host_path = sbx__strndup(host, host_len);
    g->guest_path = sbx__strdup(guest);
    return (g->host_path && g->guest_path) ? SBX_OK : SBX_E_NOMEM;
}

static sbx_err parse_fs(const json_t *v, struct sbx_policy *p, struct diag *d)
{
    if (!json_is_array(v))
        return fail(d, "policy.fs: must be an array of strings");
    p->fs = sbx__calloc(json_array_size(v), sizeof(*p->fs));
    if (!p->fs && json_array_size(v))
        return SBX_E_NOMEM;
    size_t i;
    json_t *item;
    json_array_foreach(v, i, item)
    {
        char path[32];
        snprintf(path, sizeof(path), "fs[%zu]", i);
        const char *s = NULL;
        sbx_err e = get_string(item, path, &s, d);
        if (e)
            return e;
        e = parse_fs_entry(s, path, &p->fs[p->fs_count++], d);
        if (e)
            return e;
    }
    return SBX_OK;
}

static bool is_host_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

/* Parses "host:port", "*.suffix:port", "host:*", "[v6]:port". */
static sbx_err parse_pattern(const char *spec, const char *path, sbx_outbound_rule *n,
                             struct diag *d)
{
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec)
        return fail(d, "policy.%s: expected \"host:port\", got \"%.200s\"", path, spec);
    const char *port = colon + 1;
    if (strcmp(port, "*") == 0) {
        n->is_any_port = true;
    } else {
        char *end;
        errno = 0;
        unsigned long x = strtoul(port, &end, 10);
        if (port[0] < '0' || port[0] > '9' || *end || errno || x < 1 || x > 65535)
            return fail(d, "policy.%s: port must be 1..65535 or *, got \"%.200s\"", path, port);
        n->port = (uint16_t)x;
    }
    const char *host = spec;
    size_t host_len = (size_t)(colon - spec);
    bool is_v6 = host[0] == '[';
    if (is_v6) {
        if (host_len < 3 || host[host_len - 1] != ']')
            return fail(d, "policy.%s: malformed IPv6 literal in \"%.200s\"", path, spec);
        host++;
        host_len -= 2;
    } else if (host_len > 2 && host[0] == '*' && host[1] == '.') {
        n->is_wildcard = true;
    }
    if (host_len > HOST_MAX)
        return fail(d, "policy.%s: host is longer than %u bytes", path, HOST_MAX);
    n->host = sbx__strndup(host, host_len);
    if (!n->host)
        return SBX_E_NOMEM;
    for (size_t i = n->is_wildcard ? 2 : 0; i < host_len; i++) {
        char c = n->host[i];
        if (c >= 'A' && c <= 'Z')
            c = n->host[i] = (char)(c - 'A' + 'a');
        bool ok = is_v6 ? ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == ':' || c == '.')
                        : is_host_char(c);
        if (!ok)
            return fail(d, "policy.%s: invalid host \"%.200s\"", path, spec);
    }
    return SBX_OK;
}

static sbx_err parse_net(const json_t *v, struct sbx_policy *p, struct diag *d)
{
    if (!json_is_object(v))
        return fail(d, "policy.net: must be an object");
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)v, key, val)
    {
        if (strcmp(key, "loopback") == 0) {
            if (!json_is_boolean(val))
                return fail(d, "policy.net.loopback: must be a boolean");
            p->net_loopback = json_is_true(val);
        } else if (strcmp(key, "outbound") == 0) {
            if (!json_is_array(val))
                return fail(d, "policy.net.outbound: must be an array of \"host:port\" strings");
            p->outbound = sbx__calloc(json_array_size(val), sizeof(*p->outbound));
            if (!p->outbound && json_array_size(val))
                return SBX_E_NOMEM;
            size_t i;
            json_t *item;
            json_array_foreach(val, i, item)
            {
                char path[48];
                snprintf(path, sizeof(path), "net.outbound[%zu]", i);
                const char *s = NULL;
                sbx_err e = get_string(item, path, &s, d);
                if (!e)
                    e = parse_pattern(s, path, &p->outbound[p->outbound_count++], d);
                if (e)
                    return e;
            }
        } else {
            return fail(d, "policy.net.%.100s: unknown key", key);
        }
    }
    return SBX_OK;
}

static sbx_err parse_caps(const json_t *v, struct sbx_policy *p, struct diag *d)
{
    if (!json_is_object(v))
        return fail(d, "policy.capabilities: must be an object of \"allow\" | \"deny\"");
    p->caps = sbx__calloc(json_object_size(v), sizeof(*p->caps));
    if (!p->caps && json_object_size(v))
        return SBX_E_NOMEM;
    const char *name;
    json_t *val;
    json_object_foreach((json_t *)v, name, val)
    {
        const char *dot = strchr(name, '.');
        if (!dot || dot == name || dot[1] == '\0')
            return fail(d, "policy.capabilities.%.100s: name must be \"module.name\"", name);
        const char *s = json_is_string(val) ? json_string_value(val) : "";
        enum sbx__cap_mode mode;
        if (strcmp(s, "allow") == 0)
            mode = SBX_CAP_ALLOW;
        else if (strcmp(s, "deny") == 0)
            mode = SBX_CAP_DENY;
        else
            return fail(d, "policy.capabilities.%.100s: must be \"allow\" or \"deny\"", name);
        struct sbx__capability *c = &p->caps[p->cap_count++];
        c->mode = mode;
        c->name = sbx__strdup(name);
        if (!c->name)
            return SBX_E_NOMEM;
    }
    return SBX_OK;
}

static const char *const wasm_tiers[] = {
    [SBX_WASM_TIER_AUTO] = "auto",
    [SBX_WASM_TIER_INTERP] = "interp",
    [SBX_WASM_TIER_COMPILED] = "compiled",
};

const char *sbx__policy_wasm_tier_name(enum sbx__wasm_tier tier)
{
    return (size_t)tier < sizeof(wasm_tiers) / sizeof(wasm_tiers[0]) ? wasm_tiers[tier] : "auto";
}

static sbx_err parse_wasm_tier(const json_t *v, struct sbx_policy *p, struct diag *d)
{
    const char *s = NULL;
    sbx_err e = get_string(v, "wasm.tier", &s, d);
    if (e)
        return e;
    for (size_t i = 0; i < sizeof(wasm_tiers) / sizeof(wasm_tiers[0]); i++) {
        if (strcmp(s, wasm_tiers[i]) == 0) {
            p->wasm_tier = (enum sbx__wasm_tier)i;
            return SBX_OK;
        }
    }
    return fail(d, "policy.wasm.tier: must be \"auto\", \"interp\" or \"compiled\", got \"%.100s\"",
                s);
}

/* policy.wasm.cache: whether compiled code goes through the on-disk cache (docs/wasm.md,
 * "Cache"). */
static sbx_err parse_wasm_cache(const json_t *v, struct sbx_policy *p, struct diag *d)
{
    if (!json_is_boolean(v)) {
        char got[64];
        describe(v, got, sizeof(got));
        return fail(d, "policy.wasm.cache: must be a boolean, got %s", got);
    }
    p->wasm_cache = json_is_true(v);
    return SBX_OK;
}

static sbx_err parse_wasm(const json_t *v, struct sbx_policy *p, struct diag *d)
{
    if (!json_is_object(v))
        return fail(d, "policy.wasm: must be an object");
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)v, key, val)
    {
        sbx_err e;
        if (strcmp(key, "tier") == 0)
            e = parse_wasm_tier(val, p, d);
        else if (strcmp(key, "cache") == 0)
            e = parse_wasm_cache(val, p, d);
        else
            return fail(d, "policy.wasm.%.100s: unknown key", key);
        if (e)
            return e;
    }
    return SBX_OK;
}

/* policy.js: the JavaScript engine's options (docs/worker.md, "The JIT"). */
static sbx_err parse_js(const json_t *v, struct sbx_policy *p, struct diag *d)
{
    if (!json_is_object(v))
        return fail(d, "policy.js: must be an object");
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)v, key, val)
    {
        if (strcmp(key, "jit") != 0)
            return fail(d, "policy.js.%.100s: unknown key", key);
        if (!json_is_boolean(val)) {
            char got[64];
            describe(val, got, sizeof(got));
            return fail(d, "policy.js.jit: must be a boolean, got %s", got);
        }
        p->js_jit = json_is_true(val);
    }
    return SBX_OK;
}

struct scalar_field {
    const char *key;
    uint64_t lo, hi;
    size_t offset;
    size_t width;
};

#define FIELD(k, lo, hi, member)                                                                   \
    {                                                                                              \
        k, lo, hi, offsetof(struct sbx_policy, member), sizeof(((struct sbx_policy *)0)->member)   \
    }

static const struct scalar_field scalars[] = {
    FIELD("timeoutMs", 1, TIMEOUT_MAX_MS, timeout_ms),
    FIELD("memoryBytes", MEMORY_MIN, MEMORY_MAX, memory_bytes),
    FIELD("cpuPercent", 1, 100, cpu_percent),
    FIELD("maxOutputBytes", 0, OUTPUT_MAX, max_output_bytes),
    FIELD("pids", 1, PIDS_MAX, pids),
    FIELD("fuel", 0, INT64_MAX, fuel),
};

static sbx_err parse_scalar(const struct scalar_field *f, const json_t *v, struct sbx_policy *p,
                            struct diag *d)
{
    uint64_t x = 0;
    sbx_err e = get_uint(v, f->key, f->lo, f->hi, &x, d);
    if (e)
        return e;
    char *dst = (char *)p + f->offset;
    if (f->width == sizeof(uint32_t)) {
        uint32_t y = (uint32_t)x;
        memcpy(dst, &y, sizeof(y));
    } else {
        memcpy(dst, &x, sizeof(x));
    }
    return SBX_OK;
}

static sbx_err parse_key(const char *key, const json_t *val, struct sbx_policy *p, struct diag *d)
{
    for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
        if (strcmp(key, scalars[i].key) == 0)
            return parse_scalar(&scalars[i], val, p, d);
    }
    if (strcmp(key, "env") == 0)
        return parse_env(val, p, d);
    if (strcmp(key, "fs") == 0)
        return parse_fs(val, p, d);
    if (strcmp(key, "net") == 0)
        return parse_net(val, p, d);
    if (strcmp(key, "capabilities") == 0)
        return parse_caps(val, p, d);
    if (strcmp(key, "wasm") == 0)
        return parse_wasm(val, p, d);
    if (strcmp(key, "js") == 0)
        return parse_js(val, p, d);
    return fail(d, "policy.%.100s: unknown key", key);
}

static void set_defaults(struct sbx_policy *p)
{
    memset(p, 0, sizeof(*p));
    p->timeout_ms = 5000;
    p->memory_bytes = 64ull << 20;
    p->cpu_percent = 100;
    p->max_output_bytes = 1ull << 20;
    p->pids = 64;
    p->wasm_cache = true;
}

sbx_err sbx__policy_from_json(const json_t *root, struct sbx_policy **out, char *err, size_t errlen)
{
    struct diag d = {err, errlen};
    *out = NULL;
    if (!json_is_object(root))
        return fail(&d, "policy: must be a JSON object");
    struct sbx_policy *p = sbx__calloc(1, sizeof(*p));
    if (!p)
        return SBX_E_NOMEM;
    set_defaults(p);
    atomic_init(&p->refs, 1);
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)root, key, val)
    {
        sbx_err e = parse_key(key, val, p, &d);
        if (e) {
            if (e == SBX_E_NOMEM)
                fail(&d, "policy: out of memory");
            sbx_policy_destroy(p);
            return e;
        }
    }
    *out = p;
    return SBX_OK;
}

sbx_err sbx_policy_parse(const char *json, size_t len, sbx_policy **out, char *err, size_t errlen)
{
    struct diag d = {err, errlen};
    if (!out || (!json && len))
        return fail(&d, "policy: invalid argument");
    *out = NULL;
    json_error_t je;
    json_t *root = json_loadb(json ? json : "", len, JSON_REJECT_DUPLICATES, &je);
    if (!root && sbx__json_out_of_memory(&je))
        return sbx__policy_nomem(err, errlen);
    if (!root)
        return fail(&d, "policy: syntax error at line %d, column %d: %s", je.line, je.column,
                    je.text);
    sbx_err e = sbx__policy_from_json(root, out, err, errlen);
    json_decref(root);
    return e;
}

sbx_err sbx_policy_parse_file(const char *path, sbx_policy **out, char *err, size_t errlen)
{
    struct diag d = {err, errlen};
    if (!path || !out)
        return fail(&d, "policy: invalid argument");
    *out = NULL;
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root && sbx__json_out_of_memory(&je))
        return sbx__policy_nomem(err, errlen);
    if (!root) {
        if (je.line < 0 || je.position == 0)
            return fail(&d, "%s: %s", path, je.text);
        return fail(&d, "%s: syntax error at line %d, column %d: %s", path, je.line, je.column,
                    je.text);
    }
    sbx_err e = sbx__policy_from_json(root, out, err, errlen);
    json_decref(root);
    return e;
}

static void free_contents(struct sbx_policy *p)
{
    for (size_t i = 0; i < p->env_count; i++) {
        sbx__free(p->env[i].name);
        sbx__free(p->env[i].value);
    }
    for (size_t i = 0; i < p->fs_count; i++) {
        sbx__free(p->fs[i].host_path);
        sbx__free(p->fs[i].guest_path);
    }
    for (size_t i = 0; i < p->outbound_count; i++)
        sbx__free(p->outbound[i].host);
    for (size_t i = 0; i < p->cap_count; i++)
        sbx__free(p->caps[i].name);
    sbx__free(p->env);
    sbx__free(p->fs);
    sbx__free(p->outbound);
    sbx__free(p->caps);
}

void sbx_policy_destroy(sbx_policy *policy)
{
    if (!policy || atomic_fetch_sub(&policy->refs, 1) != 1)
        return;
    free_contents(policy);
    sbx__free(atomic_load(&policy->json));
    sbx__free(policy);
}

struct sbx_policy *sbx__policy_ref(const struct sbx_policy *p)
{
    struct sbx_policy *q = (struct sbx_policy *)p; /* only the count changes */
    atomic_fetch_add(&q->refs, 1);
    return q;
}

static char *dup_or_null(const char *s, bool *is_nomem)
{
    char *d = s ? sbx__strdup(s) : NULL;
    *is_nomem |= s && !d;
    return d;
}

/* Each array copied with its strings; false when memory ran out (what was copied is freed by
 * free_contents through the counts). */
static bool copy_arrays(struct sbx_policy *q, const struct sbx_policy *p)
{
    bool nomem = false;
    q->env = p->env_count ? sbx__calloc(p->env_count, sizeof(*q->env)) : NULL;
    q->fs = p->fs_count ? sbx__calloc(p->fs_count, sizeof(*q->fs)) : NULL;
    q->outbound = p->outbound_count ? sbx__calloc(p->outbound_count, sizeof(*q->outbound)) : NULL;
    q->caps = p->cap_count ? sbx__calloc(p->cap_count, sizeof(*q->caps)) : NULL;
    if ((p->env_count && !q->env) || (p->fs_count && !q->fs) ||
        (p->outbound_count && !q->outbound) || (p->cap_count && !q->caps))
        return false;
    for (size_t i = 0; i < p->env_count; i++, q->env_count++)
        q->env[i] = (struct sbx__env_var){dup_or_null(p->env[i].name, &nomem),
                                          dup_or_null(p->env[i].value, &nomem)};
    for (size_t i = 0; i < p->fs_count; i++, q->fs_count++)
        q->fs[i] =
            (struct sbx__fs_grant){dup_or_null(p->fs[i].host_path, &nomem),
                                   dup_or_null(p->fs[i].guest_path, &nomem), p->fs[i].is_writable};
    for (size_t i = 0; i < p->outbound_count; i++, q->outbound_count++) {
        q->outbound[i] = p->outbound[i];
        q->outbound[i].host = dup_or_null(p->outbound[i].host, &nomem);
    }
    for (size_t i = 0; i < p->cap_count; i++, q->cap_count++)
        q->caps[i] =
            (struct sbx__capability){dup_or_null(p->caps[i].name, &nomem), p->caps[i].mode};
    return !nomem;
}

struct sbx_policy *sbx__policy_copy(const struct sbx_policy *p)
{
    struct sbx_policy *q = sbx__calloc(1, sizeof(*q));
    if (!q)
        return NULL;
    *q = (struct sbx_policy){
        .timeout_ms = p->timeout_ms,
        .memory_bytes = p->memory_bytes,
        .cpu_percent = p->cpu_percent,
        .max_output_bytes = p->max_output_bytes,
        .pids = p->pids,
        .fuel = p->fuel,
        .net_loopback = p->net_loopback,
        .wasm_tier = p->wasm_tier,
        .wasm_cache = p->wasm_cache,
        .js_jit = p->js_jit,
    };
    atomic_init(&q->refs, 1);
    if (!copy_arrays(q, p)) {
        sbx_policy_destroy(q);
        return NULL;
    }
    return q;
}

enum sbx__cap_mode sbx__policy_capability(const struct sbx_policy *p, const char *name)
{
    for (size_t i = 0; i < p->cap_count; i++) {
        if (strcmp(p->caps[i].name, name) == 0)
            return p->caps[i].mode;
    }
    return SBX_CAP_DENY;
}

uint32_t sbx_policy_timeout_ms(const sbx_policy *policy)
{
    return policy ? policy->timeout_ms : 0;
}

uint64_t sbx_policy_memory_bytes(const sbx_policy *policy)
{
    return policy ? policy->memory_bytes : 0;
}

uint64_t sbx_policy_fuel(const sbx_policy *policy)
{
    return policy ? policy->fuel : 0;
}

bool sbx_policy_wasm_cache(const sbx_policy *policy)
{
    return policy && policy->wasm_cache;
}

void sbx_free(void *ptr)
{
    sbx__free(ptr);
}

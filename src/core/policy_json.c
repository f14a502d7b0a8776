/* core/policy_json.c: the resolved policy as JSON, and sbx_policy_with(), which edits the JSON
 * form and validates the result through the same path as parsing. */
#include "core/policy_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "util/alloc.h"

static json_t *fs_entry(const struct sbx__fs_grant *g)
{
    bool has_guest = strcmp(g->host_path, g->guest_path) != 0;
    size_t len = strlen(g->host_path) + strlen(g->guest_path) + 8;
    char *s = sbx__mallocn(len, 1);
    if (!s)
        return NULL;
    snprintf(s, len, "%s%s%s%s", g->is_writable ? "rw:" : "", g->host_path, has_guest ? "::" : "",
             has_guest ? g->guest_path : "");
    json_t *j = json_string(s);
    sbx__free(s);
    return j;
}

static json_t *net_entry(const sbx_outbound_rule *n)
{
    char buf[320];
    bool is_v6 = strchr(n->host, ':') != NULL;
    char port[8];
    if (n->is_any_port)
        snprintf(port, sizeof(port), "*");
    else
        snprintf(port, sizeof(port), "%u", (unsigned)n->port);
    snprintf(buf, sizeof(buf), "%s%s%s:%s", is_v6 ? "[" : "", n->host, is_v6 ? "]" : "", port);
    return json_string(buf);
}

static int add_lists(json_t *o, const struct sbx_policy *p)
{
    json_t *env = json_object(), *fs = json_array(), *caps = json_object();
    json_t *net = json_object(), *out = json_array();
    int rc = 0;
    for (size_t i = 0; i < p->env_count; i++)
        rc |= json_object_set_new(env, p->env[i].name, json_string(p->env[i].value));
    for (size_t i = 0; i < p->fs_count; i++)
        rc |= json_array_append_new(fs, fs_entry(&p->fs[i]));
    for (size_t i = 0; i < p->outbound_count; i++)
        rc |= json_array_append_new(out, net_entry(&p->outbound[i]));
    for (size_t i = 0; i < p->cap_count; i++)
        rc |= json_object_set_new(caps, p->caps[i].name,
                                  json_string(p->caps[i].mode == SBX_CAP_ALLOW ? "allow" : "deny"));
    rc |= json_object_set_new(net, "loopback", json_boolean(p->net_loopback));
    rc |= json_object_set_new(net, "outbound", out);
    rc |= json_object_set_new(o, "env", env);
    rc |= json_object_set_new(o, "fs", fs);
    rc |= json_object_set_new(o, "net", net);
    rc |= json_object_set_new(o, "capabilities", caps);
    json_t *wasm = json_object();
    rc |= json_object_set_new(wasm, "tier", json_string(sbx__policy_wasm_tier_name(p->wasm_tier)));
    rc |= json_object_set_new(wasm, "cache", json_boolean(p->wasm_cache));
    rc |= json_object_set_new(o, "wasm", wasm);
    json_t *js = json_object();
    rc |= json_object_set_new(js, "jit", json_boolean(p->js_jit));
    rc |= json_object_set_new(o, "js", js);
    return rc;
}

json_t *sbx__policy_to_jobj(const struct sbx_policy *p)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    int rc = 0;
    rc |= json_object_set_new(o, "timeoutMs", json_integer(p->timeout_ms));
    rc |= json_object_set_new(o, "memoryBytes", json_integer((json_int_t)p->memory_bytes));
    rc |= json_object_set_new(o, "cpuPercent", json_integer(p->cpu_percent));
    rc |= json_object_set_new(o, "maxOutputBytes", json_integer((json_int_t)p->max_output_bytes));
    rc |= json_object_set_new(o, "pids", json_integer(p->pids));
    rc |= json_object_set_new(o, "fuel", json_integer((json_int_t)p->fuel));
    rc |= add_lists(o, p);
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

char *sbx_policy_to_json(const sbx_policy *policy)
{
    if (!policy)
        return NULL;
    json_t *o = sbx__policy_to_jobj(policy);
    if (!o)
        return NULL;
    char *text = sbx__json_dump(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(o);
    return text;
}

/* Arrays are appended to, objects merged key by key, scalars replaced. */
static int merge_into(json_t *parent, const char *key, json_t *value)
{
    json_t *cur = json_object_get(parent, key);
    if (json_is_array(cur)) {
        if (json_is_array(value))
            return json_array_extend(cur, value);
        return json_array_append(cur, value);
    }
    if (json_is_object(cur) && json_is_object(value))
        return json_object_update(cur, value);
    /* nocheck: a key that is not UTF-8 is then rejected as unknown, not taken for NOMEM. */
    return json_object_set_nocheck(parent, key, value);
}

sbx_err sbx_policy_with(const sbx_policy *base, const char *key, const char *json_value,
                        sbx_policy **out, char *err, size_t errlen)
{
    if (!base || !key || !json_value || !out) {
        sbx__policy_message(err, errlen, "policy: invalid argument");
        return SBX_E_INVALID_ARGUMENT;
    }
    *out = NULL;
    json_error_t je;
    json_t *value = json_loads(json_value, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (!value && sbx__json_out_of_memory(&je))
        return sbx__policy_nomem(err, errlen);
    if (!value) {
        sbx__policy_message(err, errlen, "policy.%s: syntax error at column %d: %s", key, je.column,
                            je.text);
        return SBX_E_INVALID_OPTIONS;
    }
    json_t *root = sbx__policy_to_jobj(base);
    sbx_err e = SBX_E_NOMEM;
    if (root) {
        const char *dot = strchr(key, '.');
        json_t *parent = root;
        const char *leaf = key;
        char head[64];
        if (dot && (size_t)(dot - key) < sizeof(head)) {
            memcpy(head, key, (size_t)(dot - key));
            head[dot - key] = '\0';
            parent = json_object_get(root, head);
            leaf = dot + 1;
        }
        if (!json_is_object(parent)) {
            sbx__policy_message(err, errlen, "policy.%s: unknown key", key);
            e = SBX_E_INVALID_OPTIONS;
        } else if (merge_into(parent, leaf, value) == 0) {
            e = sbx__policy_from_json(root, out, err, errlen);
        }
        json_decref(root);
    }
    json_decref(value);
    return e == SBX_E_NOMEM ? sbx__policy_nomem(err, errlen) : e;
}

const char *sbx__policy_json(const struct sbx_policy *p)
{
    struct sbx_policy *q = (struct sbx_policy *)p; /* only the cache is written */
    char *text = atomic_load(&q->json);
    if (text)
        return text;
    char *mine = sbx_policy_to_json(p), *none = NULL;
    if (!mine || atomic_compare_exchange_strong(&q->json, &none, mine))
        return mine;
    sbx__free(mine); /* another thread made it first */
    return none;
}

/* core/result.c: the one result shape, and its JSON form (what `sbx eval` prints). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <jansson.h>
#include <sbx/sandbox.h>

#include "core/denials.h"
#include "core/json.h"
#include "util/alloc.h"
#include "util/json_text.h"
#include "util/utf8.h"

/* Stands for the value in the dump when jansson cannot hold it; replaced by the raw text. */
#define RAW_MARK "sbx:raw-value"

void sbx_result_free(sbx_result *result)
{
    if (!result)
        return;
    sbx__free(result->error_message);
    sbx__free(result->value_json);
    sbx__free(result->stdout_data);
    sbx__free(result->stderr_data);
    sbx__free(result->denials);
    sbx__free(result->error_stack);
    memset(result, 0, sizeof(*result));
    result->exit_code = -1;
}

/* Guest bytes become a JSON string; ill-formed UTF-8 is replaced, never dropped. */
static json_t *text(const char *data, size_t len)
{
    if (!data)
        return json_string("");
    if (sbx__utf8_is_valid(data, len))
        return json_stringn(data, len);
    size_t fixed_len;
    char *fixed = sbx__utf8_sanitize(data, len, &fixed_len);
    if (!fixed)
        return NULL;
    json_t *j = json_stringn(fixed, fixed_len);
    sbx__free(fixed);
    return j;
}

static const char *limit_name(sbx_limit limit)
{
    static const char *const names[] = {
        [SBX_LIMIT_NONE] = NULL,   [SBX_LIMIT_TIMEOUT] = "timeout", [SBX_LIMIT_MEMORY] = "memory",
        [SBX_LIMIT_PIDS] = "pids", [SBX_LIMIT_OUTPUT] = "output",   [SBX_LIMIT_FUEL] = "fuel",
        [SBX_LIMIT_CPU] = "cpu",
    };
    return (unsigned)limit < sizeof(names) / sizeof(names[0]) ? names[limit] : NULL;
}

/* Whether v holds a real anywhere (jansson nests at most 2048 levels: the recursion is bounded). */
static bool has_real(const json_t *v)
{
    if (json_is_real(v))
        return true;
    size_t i;
    const char *key;
    json_t *item;
    if (json_is_array(v))
        json_array_foreach(v, i, item) if (has_real(item)) return true;
    if (json_is_object(v))
        json_object_foreach((json_t *)v, key, item) if (has_real(item)) return true;
    return false;
}

/* The value as jansson holds it. Lone surrogate escapes (\ud800, which jansson refuses) become
 * \ufffd; a value jansson cannot hold (nested deeper than its 2048 levels) or would print
 * otherwise (a real: jansson's output keeps 10 significant digits, where the guest's JSON has the
 * shortest text that reads back as the same double) is RAW_MARK here and its text goes to *raw,
 * for the caller to splice in. Text that is not JSON (a forged record) is null: the type of a
 * value is never changed into a string. */
static json_t *value_of(const sbx_result *r, char **raw)
{
    *raw = NULL;
    if (!r->value_json)
        return json_null();
    size_t len = strlen(r->value_json);
    json_error_t je;
    json_t *v = json_loadb(r->value_json, len, JSON_DECODE_ANY, &je);
    if (v && !has_real(v))
        return v;
    if (!v && sbx__json_out_of_memory(&je))
        return NULL;
    bool is_parsed = v != NULL;
    json_decref(v);
    if (!is_parsed && !sbx__json_text_is_valid(r->value_json, len))
        return json_null();
    char *fixed = sbx__strndup(r->value_json, len);
    if (!fixed)
        return NULL;
    sbx__json_text_replace_lone_surrogates(fixed, len);
    v = is_parsed ? NULL : json_loadb(fixed, len, JSON_DECODE_ANY, &je);
    if ((v && !has_real(v)) || (!v && !is_parsed && sbx__json_out_of_memory(&je))) {
        sbx__free(fixed);
        return v;
    }
    json_decref(v);
    *raw = fixed;
    return json_string(RAW_MARK);
}

/* Puts raw in place of the first "value":RAW_MARK of the dump s ("ok" comes first, so it is the
 * value's); frees s and raw. */
static char *splice(char *s, char *raw)
{
    if (!s || !raw) {
        sbx__free(raw);
        return s;
    }
    char *at = strstr(s, "\"value\":\"" RAW_MARK "\"");
    size_t skip = strlen("\"value\":\"" RAW_MARK "\""), head = at ? (size_t)(at - s) : 0;
    size_t raw_len = strlen(raw), tail = at ? strlen(at + skip) : 0;
    char *out = at ? sbx__mallocn(head + 8 + raw_len + tail + 1, 1) : NULL;
    if (out) {
        memcpy(out, s, head);
        memcpy(out + head, "\"value\":", 8);
        memcpy(out + head + 8, raw, raw_len);
        memcpy(out + head + 8 + raw_len, at + skip, tail + 1);
    }
    sbx__free(s);
    sbx__free(raw);
    return out;
}

static json_t *error_of(const sbx_result *r)
{
    if (r->ok)
        return json_null();
    json_t *e = json_object();
    const char *msg = r->error_message ? r->error_message : sbx_err_message(r->error);
    int rc = json_object_set_new(e, "code", json_string(sbx_err_name(r->error)));
    rc |= json_object_set_new(e, "message", text(msg, strlen(msg)));
    if (r->error_stack)
        rc |= json_object_set_new(e, "stack", text(r->error_stack, strlen(r->error_stack)));
    if (rc) {
        json_decref(e);
        return NULL;
    }
    return e;
}

static json_t *enforced_of(unsigned bits)
{
    static const char *const names[] = {"cgroup-v2", "cgroup-v1", "rlimit",
                                        "seccomp",   "landlock",  "netns"};
    json_t *a = json_array();
    int rc = a ? 0 : -1;
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]) && !rc; i++) {
        if (bits & (1u << i))
            rc = json_array_append_new(a, json_string(names[i]));
    }
    if (rc) {
        json_decref(a);
        return NULL;
    }
    return a;
}

static json_t *family_of(int family)
{
    static const struct {
        int family;
        const char *name;
    } names[] = {{AF_INET, "ipv4"},       {AF_INET6, "ipv6"},    {AF_UNIX, "unix"},
                 {AF_NETLINK, "netlink"}, {AF_PACKET, "packet"}, {AF_UNSPEC, "unspec"}};
    char other[32];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].family == family)
            return json_string(names[i].name);
    snprintf(other, sizeof(other), "af-%d", family);
    return json_string(other);
}

static json_t *denial_of(const sbx_denial *d)
{
    bool is_dns = d->kind == SBX_DENIAL_DNS;
    bool has_port = !is_dns && (d->family == AF_INET || d->family == AF_INET6);
    char dest[SBX_DENIAL_HOST_MAX + 16];
    sbx_denial_destination(d, dest, sizeof(dest));
    json_t *o = json_object();
    int rc = json_object_set_new(o, "kind", json_string(is_dns ? "dns" : "connect"));
    rc |= json_object_set_new(o, "family", is_dns ? json_null() : family_of(d->family));
    rc |= json_object_set_new(o, "host", json_string(d->host));
    rc |= json_object_set_new(o, "port", has_port ? json_integer(d->port) : json_null());
    rc |= json_object_set_new(o, "destination", json_string(dest));
    rc |= json_object_set_new(o, "count", json_integer((json_int_t)d->count));
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* {"total":..,"truncated":..,"destinations":[..]}: what net.outbound denied, never more
 * destinations than the result holds and never a total short of what was counted. */
static json_t *denied_of(const sbx_result *r)
{
    json_t *list = json_array();
    int rc = list ? 0 : -1;
    for (size_t i = 0; i < r->denial_count && !rc; i++)
        rc = json_array_append_new(list, denial_of(&r->denials[i]));
    json_t *o = rc ? NULL : json_object();
    if (!o) {
        json_decref(list);
        return NULL;
    }
    rc = json_object_set_new(o, "total", json_integer((json_int_t)r->denied_total));
    rc |= json_object_set_new(o, "truncated", json_boolean(r->denials_truncated));
    rc |= json_object_set_new(o, "destinations", list);
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

char *sbx_result_to_json(const sbx_result *r)
{
    if (!r)
        return NULL;
    json_t *o = json_object();
    if (!o)
        return NULL;
    char *raw = NULL;
    int rc = json_object_set_new(o, "ok", json_boolean(r->ok));
    rc |= json_object_set_new(o, "value", value_of(r, &raw));
    rc |= json_object_set_new(o, "stdout", text(r->stdout_data, r->stdout_len));
    rc |= json_object_set_new(o, "stderr", text(r->stderr_data, r->stderr_len));
    rc |= json_object_set_new(o, "stdoutTruncated", json_boolean(r->stdout_truncated));
    rc |= json_object_set_new(o, "stderrTruncated", json_boolean(r->stderr_truncated));
    rc |= json_object_set_new(o, "error", error_of(r));
    rc |= json_object_set_new(o, "durationMs",
                              json_real((double)(long long)(r->duration_ms * 1000) / 1000));
    rc |= json_object_set_new(o, "backend", json_string(sbx_backend_name(r->backend)));
    if (r->backend != SBX_BACKEND_WORKER) {
        rc |= json_object_set_new(o, "exitCode",
                                  r->exit_code >= 0 ? json_integer(r->exit_code) : json_null());
        rc |= json_object_set_new(o, "signal", r->signal ? json_integer(r->signal) : json_null());
        const char *lim = limit_name(r->limit);
        rc |= json_object_set_new(o, "limit", lim ? json_string(lim) : json_null());
        rc |= json_object_set_new(o, "denied", denied_of(r));
        if (r->backend == SBX_BACKEND_PROCESS)
            rc |= json_object_set_new(o, "enforced", enforced_of(r->enforced));
    }
    char *s = rc ? NULL
                 : sbx__json_dump(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY |
                                         JSON_REAL_PRECISION(10));
    json_decref(o);
    return splice(s, raw);
}

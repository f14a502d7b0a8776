/* bindings/node/src/grants.c: buildWasiPreopens / matchPreopen, buildWasiOutboundAllowlist /
 * gateOutboundConnect and runWasmConformance, each one call into <sbx/plugin.h> or
 * <sbx/wasm.h>; JS arrays are converted to the C lists and back, nothing is decided here. */
#include <stdlib.h>
#include <string.h>

#include "addon.h"

static napi_value boolean(napi_env env, bool b)
{
    napi_value v;
    napi_get_boolean(env, b, &v);
    return v;
}

static napi_value number(napi_env env, double d)
{
    napi_value v;
    napi_create_double(env, d, &v);
    return v;
}

/* Converts one element of a C list to a JS value. */
typedef napi_value (*to_js_fn)(napi_env env, const void *item);
/* Fills one element of a C list from a JS value. */
typedef void (*from_js_fn)(napi_env env, napi_value v, void *item);

/* Returns the JS array of count items of size bytes each, element by element. */
static napi_value array_of(napi_env env, const void *items, size_t count, size_t size,
                           to_js_fn to_js)
{
    napi_value list;
    napi_create_array(env, &list);
    for (size_t i = 0; i < count; i++)
        napi_set_element(env, list, (uint32_t)i, to_js(env, (const char *)items + i * size));
    return list;
}

/* Returns a calloc'd C list (one spare zeroed element) filled from the JS array v, and its
 * length in *count; NULL with a SandboxError thrown when v is not an array or on NOMEM. */
static void *list_of(napi_env env, napi_value v, size_t size, from_js_fn from_js, size_t *count,
                     const char *what)
{
    uint32_t n;
    if (napi_get_array_length(env, v, &n) != napi_ok) {
        sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, what);
        return NULL;
    }
    char *items = calloc((size_t)n + 1, size);
    if (!items) {
        sbx_node_throw(env, SBX_E_NOMEM, "out of memory");
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        napi_value e;
        napi_get_element(env, v, i, &e);
        from_js(env, e, items + (size_t)i * size);
    }
    *count = n;
    return items;
}

/* Reads the one argument of a call as a policy's JSON; NULL with an exception pending. */
static sbx_policy *policy_arg(napi_env env, napi_callback_info info)
{
    napi_value argv[1];
    return sbx_node_args(env, info, 1, argv, NULL) ? sbx_node_policy(env, argv[0]) : NULL;
}

/* Reads obj[key] as a string into a malloc'd copy; NULL when absent or not a string. */
static char *prop_string(napi_env env, napi_value obj, const char *key)
{
    napi_value v;
    napi_valuetype t;
    size_t len;
    if (napi_get_named_property(env, obj, key, &v) != napi_ok || napi_typeof(env, v, &t) ||
        t != napi_string || napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok)
        return NULL;
    char *s = malloc(len + 1);
    if (s)
        napi_get_value_string_utf8(env, v, s, len + 1, &len);
    return s;
}

static bool prop_bool(napi_env env, napi_value obj, const char *key)
{
    napi_value v;
    bool b = false;
    if (napi_get_named_property(env, obj, key, &v) == napi_ok)
        napi_get_value_bool(env, v, &b);
    return b;
}

/* ---- preopens ------------------------------------------------------------------------------ */

static napi_value preopen_to_js(napi_env env, const void *item)
{
    const sbx_preopen *po = item;
    napi_value o;
    napi_create_object(env, &o);
    napi_set_named_property(env, o, "hostPath", sbx_node_str(env, po->host_path));
    napi_set_named_property(env, o, "guestPath", sbx_node_str(env, po->guest_path));
    napi_set_named_property(env, o, "writable", boolean(env, po->is_writable));
    return o;
}

static void preopen_from_js(napi_env env, napi_value v, void *item)
{
    sbx_preopen *po = item;
    po->host_path = prop_string(env, v, "hostPath");
    po->guest_path = prop_string(env, v, "guestPath");
    po->is_writable = prop_bool(env, v, "writable");
}

/* preopensBuild(policyJson) -> [{hostPath, guestPath, writable}] */
static napi_value preopens_build(napi_env env, napi_callback_info info)
{
    sbx_policy *p = policy_arg(env, info);
    if (!p)
        return NULL;
    sbx_preopen *po;
    size_t n;
    sbx_err rc = sbx_preopens_build(p, &po, &n);
    sbx_policy_destroy(p);
    if (rc != SBX_OK)
        return sbx_node_throw(env, rc, sbx_err_message(rc));
    napi_value list = array_of(env, po, n, sizeof(*po), preopen_to_js);
    sbx_preopens_free(po, n);
    return list;
}

/* preopenMatch(preopens, guestPath) -> {index, rest} | null */
static napi_value preopen_match(napi_env env, napi_callback_info info)
{
    napi_value argv[2], out;
    size_t n = 0;
    if (!sbx_node_args(env, info, 2, argv, NULL))
        return NULL;
    sbx_preopen *list =
        list_of(env, argv[0], sizeof(*list), preopen_from_js, &n, "preopens must be an array");
    char *path = list ? sbx_node_string(env, argv[1], "guestPath") : NULL;
    const char *rest = NULL;
    long idx = path ? sbx_preopen_match(list, n, path, &rest) : -1;
    if (idx >= 0) {
        napi_create_object(env, &out);
        napi_set_named_property(env, out, "index", number(env, (double)idx));
        napi_set_named_property(env, out, "rest", sbx_node_str(env, rest));
    } else {
        napi_get_null(env, &out);
    }
    sbx_preopens_free(list, n);
    bool is_thrown = !path;
    free(path);
    return is_thrown ? NULL : out;
}

/* ---- outbound ------------------------------------------------------------------------------ */

static napi_value rule_to_js(napi_env env, const void *item)
{
    const sbx_outbound_rule *r = item;
    napi_value o, port;
    napi_create_object(env, &o);
    napi_set_named_property(env, o, "host", sbx_node_str(env, r->host));
    if (r->is_any_port)
        napi_get_null(env, &port);
    else
        port = number(env, r->port);
    napi_set_named_property(env, o, "port", port);
    napi_set_named_property(env, o, "wildcard", boolean(env, r->is_wildcard));
    napi_set_named_property(env, o, "anyPort", boolean(env, r->is_any_port));
    return o;
}

static void rule_from_js(napi_env env, napi_value v, void *item)
{
    sbx_outbound_rule *r = item;
    napi_value pv;
    double pn = 0;
    r->host = prop_string(env, v, "host");
    r->is_wildcard = prop_bool(env, v, "wildcard");
    r->is_any_port = prop_bool(env, v, "anyPort");
    if (napi_get_named_property(env, v, "port", &pv) == napi_ok &&
        napi_get_value_double(env, pv, &pn) == napi_ok && pn >= 0 && pn <= 65535)
        r->port = (uint16_t)pn;
}

/* outboundBuild(policyJson) -> [{host, port, wildcard, anyPort}] */
static napi_value outbound_build(napi_env env, napi_callback_info info)
{
    sbx_policy *p = policy_arg(env, info);
    if (!p)
        return NULL;
    sbx_outbound_rule *r;
    size_t n;
    sbx_err rc = sbx_outbound_allowlist_build(p, &r, &n);
    sbx_policy_destroy(p);
    if (rc != SBX_OK)
        return sbx_node_throw(env, rc, sbx_err_message(rc));
    napi_value list = array_of(env, r, n, sizeof(*r), rule_to_js);
    sbx_outbound_allowlist_free(r, n);
    return list;
}

/* outboundAllowed(rules, host, port) -> boolean */
static napi_value outbound_allowed(napi_env env, napi_callback_info info)
{
    napi_value argv[3];
    double port;
    size_t n = 0;
    if (!sbx_node_args(env, info, 3, argv, NULL))
        return NULL;
    sbx_outbound_rule *list =
        list_of(env, argv[0], sizeof(*list), rule_from_js, &n, "allowlist must be an array");
    if (!list)
        return NULL;
    char *host = NULL;
    if (napi_get_value_double(env, argv[2], &port) != napi_ok || port < 0 || port > 65535 ||
        port != (double)(uint16_t)port)
        sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, "port must be an integer in 0..65535");
    else
        host = sbx_node_string(env, argv[1], "host");
    bool is_allowed = host && sbx_outbound_allowed(list, n, host, (uint16_t)port);
    sbx_outbound_allowlist_free(list, n);
    bool is_thrown = !host;
    free(host);
    return is_thrown ? NULL : boolean(env, is_allowed);
}

/* ---- conformance ------------------------------------------------------------------------- */

struct conf_job {
    struct job base;
    sbx_policy *policy;
    sbx_wasm_conformance_report report;
    sbx_err rc;
};

static void conf_execute(struct job *base)
{
    struct conf_job *j = (struct conf_job *)base;
    j->rc = sbx_wasm_run_conformance(j->policy, &j->report);
}

static napi_value case_to_js(napi_env env, const void *item)
{
    const sbx_wasm_conformance_case *c = item;
    napi_value e;
    napi_create_object(env, &e);
    napi_set_named_property(env, e, "name", sbx_node_str(env, c->name));
    napi_set_named_property(env, e, "expectAllowed", boolean(env, c->expect_allowed));
    napi_set_named_property(env, e, "wasAllowed", boolean(env, c->was_allowed));
    napi_set_named_property(env, e, "passed", boolean(env, c->passed));
    napi_set_named_property(env, e, "detail", sbx_node_str(env, c->detail));
    return e;
}

static napi_value conf_complete(napi_env env, struct job *base, napi_value *error)
{
    struct conf_job *j = (struct conf_job *)base;
    if (j->rc != SBX_OK) {
        *error = sbx_node_error(env, sbx_err_name(j->rc), sbx_err_message(j->rc));
        return NULL;
    }
    napi_value o;
    napi_create_object(env, &o);
    napi_set_named_property(
        env, o, "cases",
        array_of(env, j->report.cases, j->report.case_count, sizeof(*j->report.cases), case_to_js));
    napi_set_named_property(env, o, "passed", number(env, (double)j->report.passed_count));
    napi_set_named_property(env, o, "total", number(env, (double)j->report.case_count));
    return o;
}

static void conf_destroy(struct job *base)
{
    struct conf_job *j = (struct conf_job *)base;
    sbx_wasm_conformance_free(&j->report);
    sbx_policy_destroy(j->policy);
    free(j);
}

/* conformance(policyJson) -> Promise<{cases, passed, total}> */
static napi_value conformance(napi_env env, napi_callback_info info)
{
    sbx_policy *p = policy_arg(env, info);
    if (!p)
        return NULL;
    struct conf_job *j = calloc(1, sizeof(*j));
    if (!j) {
        sbx_policy_destroy(p);
        return sbx_node_throw(env, SBX_E_NOMEM, "out of memory");
    }
    j->base =
        (struct job){.execute = conf_execute, .complete = conf_complete, .destroy = conf_destroy};
    j->policy = p;
    return sbx_node_job_start(env, &j->base, NULL);
}

void sbx_node_init_grants(napi_env env, napi_value exports)
{
    static const struct sbx_node_fn fns[] = {
        {"preopensBuild", preopens_build}, {"preopenMatch", preopen_match},
        {"outboundBuild", outbound_build}, {"outboundAllowed", outbound_allowed},
        {"conformance", conformance},
    };
    sbx_node_define(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}

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

/* preopensBuild(policyJson) -> [{hostPath, guestPath, writable}] */
static napi_value preopens_build(napi_env env, napi_callback_info info)
{
    napi_value argv[1], list;
    if (!sbx_node_args(env, info, 1, argv, NULL))
        return NULL;
    sbx_policy *p = sbx_node_policy(env, argv[0]);
    if (!p)
        return NULL;
    sbx_preopen *po;
    size_t n;
    sbx_err rc = sbx_preopens_build(p, &po, &n);
    sbx_policy_destroy(p);
    if (rc != SBX_OK)
        return sbx_node_throw(env, rc, sbx_err_message(rc));
    napi_create_array(env, &list);
    for (size_t i = 0; i < n; i++) {
        napi_value o;
        napi_create_object(env, &o);
        napi_set_named_property(env, o, "hostPath", sbx_node_str(env, po[i].host_path));
        napi_set_named_property(env, o, "guestPath", sbx_node_str(env, po[i].guest_path));
        napi_set_named_property(env, o, "writable", boolean(env, po[i].is_writable));
        napi_set_element(env, list, (uint32_t)i, o);
    }
    sbx_preopens_free(po, n);
    return list;
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

/* Returns the length of a JS array argument, or -1 with a SandboxError thrown. */
static long array_len(napi_env env, napi_value v, const char *what)
{
    uint32_t n;
    if (napi_get_array_length(env, v, &n) != napi_ok) {
        sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, what);
        return -1;
    }
    return n;
}

/* preopenMatch(preopens, guestPath) -> {index, rest} | null */
static napi_value preopen_match(napi_env env, napi_callback_info info)
{
    napi_value argv[2], out;
    if (!sbx_node_args(env, info, 2, argv, NULL))
        return NULL;
    long n = array_len(env, argv[0], "preopens must be an array");
    char *path = n < 0 ? NULL : sbx_node_string(env, argv[1], "guestPath");
    if (!path)
        return NULL;
    sbx_preopen *list = calloc((size_t)n + 1, sizeof(*list));
    for (long i = 0; list && i < n; i++) {
        napi_value e;
        napi_get_element(env, argv[0], (uint32_t)i, &e);
        list[i].host_path = prop_string(env, e, "hostPath");
        list[i].guest_path = prop_string(env, e, "guestPath");
        list[i].is_writable = prop_bool(env, e, "writable");
    }
    const char *rest = NULL;
    long idx = list ? sbx_preopen_match(list, (size_t)n, path, &rest) : -1;
    if (idx >= 0) {
        napi_create_object(env, &out);
        napi_set_named_property(env, out, "index", number(env, (double)idx));
        napi_set_named_property(env, out, "rest", sbx_node_str(env, rest));
    } else {
        napi_get_null(env, &out);
    }
    if (list)
        sbx_preopens_free(list, (size_t)n);
    free(path);
    return out;
}

/* outboundBuild(policyJson) -> [{host, port, wildcard, anyPort}] */
static napi_value outbound_build(napi_env env, napi_callback_info info)
{
    napi_value argv[1], list;
    if (!sbx_node_args(env, info, 1, argv, NULL))
        return NULL;
    sbx_policy *p = sbx_node_policy(env, argv[0]);
    if (!p)
        return NULL;
    sbx_outbound_rule *r;
    size_t n;
    sbx_err rc = sbx_outbound_allowlist_build(p, &r, &n);
    sbx_policy_destroy(p);
    if (rc != SBX_OK)
        return sbx_node_throw(env, rc, sbx_err_message(rc));
    napi_create_array(env, &list);
    for (size_t i = 0; i < n; i++) {
        napi_value o, port;
        napi_create_object(env, &o);
        napi_set_named_property(env, o, "host", sbx_node_str(env, r[i].host));
        if (r[i].is_any_port)
            napi_get_null(env, &port);
        else
            port = number(env, r[i].port);
        napi_set_named_property(env, o, "port", port);
        napi_set_named_property(env, o, "wildcard", boolean(env, r[i].is_wildcard));
        napi_set_named_property(env, o, "anyPort", boolean(env, r[i].is_any_port));
        napi_set_element(env, list, (uint32_t)i, o);
    }
    sbx_outbound_allowlist_free(r, n);
    return list;
}

/* outboundAllowed(rules, host, port) -> boolean */
static napi_value outbound_allowed(napi_env env, napi_callback_info info)
{
    napi_value argv[3];
    if (!sbx_node_args(env, info, 3, argv, NULL))
        return NULL;
    double port;
    long n = array_len(env, argv[0], "allowlist must be an array");
    if (n < 0)
        return NULL;
    if (napi_get_value_double(env, argv[2], &port) != napi_ok || port < 0 || port > 65535 ||
        port != (double)(uint16_t)port)
        return sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, "port must be an integer in 0..65535");
    char *host = sbx_node_string(env, argv[1], "host");
    if (!host)
        return NULL;
    sbx_outbound_rule *list = calloc((size_t)n + 1, sizeof(*list));
    for (long i = 0; list && i < n; i++) {
        napi_value e, pv;
        double pn = 0;
        napi_get_element(env, argv[0], (uint32_t)i, &e);
        list[i].host = prop_string(env, e, "host");
        list[i].is_wildcard = prop_bool(env, e, "wildcard");
        list[i].is_any_port = prop_bool(env, e, "anyPort");
        if (napi_get_named_property(env, e, "port", &pv) == napi_ok &&
            napi_get_value_double(env, pv, &pn) == napi_ok && pn >= 0 && pn <= 65535)
            list[i].port = (uint16_t)pn;
    }
    bool is_allowed = list && sbx_outbound_allowed(list, (size_t)n, host, (uint16_t)port);
    if (list)
        sbx_outbound_allowlist_free(list, (size_t)n);
    free(host);
    return boolean(env, is_allowed);
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

static napi_value conf_complete(napi_env env, struct job *base, napi_value *error)
{
    struct conf_job *j = (struct conf_job *)base;
    if (j->rc != SBX_OK) {
        *error = sbx_node_error(env, sbx_err_name(j->rc), sbx_err_message(j->rc));
        return NULL;
    }
    napi_value o, cases;
    napi_create_object(env, &o);
    napi_create_array(env, &cases);
    for (size_t i = 0; i < j->report.case_count; i++) {
        const sbx_wasm_conformance_case *c = &j->report.cases[i];
        napi_value e;
        napi_create_object(env, &e);
        napi_set_named_property(env, e, "name", sbx_node_str(env, c->name));
        napi_set_named_property(env, e, "expectAllowed", boolean(env, c->expect_allowed));
        napi_set_named_property(env, e, "wasAllowed", boolean(env, c->was_allowed));
        napi_set_named_property(env, e, "passed", boolean(env, c->passed));
        napi_set_named_property(env, e, "detail", sbx_node_str(env, c->detail));
        napi_set_element(env, cases, (uint32_t)i, e);
    }
    napi_set_named_property(env, o, "cases", cases);
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
    napi_value argv[1];
    if (!sbx_node_args(env, info, 1, argv, NULL))
        return NULL;
    sbx_policy *p = sbx_node_policy(env, argv[0]);
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

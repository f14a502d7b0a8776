/* bindings/node/src/wasm.c: createWasmSandbox over sbx_wasm_sandbox. Capability imports are JS
 * functions registered with the signature the module imports them with
 * (sbx_wasm_module_imports); a guest call reaches the JS thread through a threadsafe function
 * and its promise finishes the sbx_wasm_completion when it settles. Whether a call is allowed
 * at all is libsbx's decision (a denied one never reaches JS and is counted). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

#define MAX_VALUES 16

struct plugin;

struct import {
    struct plugin *owner;
    char *name, *signature;
    sbx_wasm_valtype results[MAX_VALUES];
    size_t result_count;
    napi_ref fn;
};

struct plugin {
    sbx_wasm_sandbox *sb;
    napi_threadsafe_function tsfn; /* guest thread -> JS thread for host calls */
    struct import *imports;
    size_t import_count;
    bool is_busy, is_dispose_pending, is_disposed; /* JS thread only */
    /* p is freed once both are done with it: the JS object (is_finalized) and the host-call
     * threadsafe function, whose queue may still hold calls that point at p. */
    bool is_finalized, is_tsfn_live;
    pthread_mutex_t mu;   /* guards abort_requested and is_in_call */
    bool abort_requested; /* abort came for the call in flight */
    bool is_in_call;      /* the call's thread is in libsbx, or about to be */
};

/* A guest's call of one import, on its way to the JS thread. */
struct host_call {
    struct import *imp;
    sbx_wasm_completion *c;
    size_t arg_count;
    sbx_wasm_value args[MAX_VALUES];
};

/* ---- values -------------------------------------------------------------------------------- */

static napi_value to_js(napi_env env, const sbx_wasm_value *v)
{
    napi_value out;
    switch (v->type) {
    case SBX_WASM_I32:
        napi_create_int32(env, v->of.i32, &out);
        break;
    case SBX_WASM_I64:
        napi_create_bigint_int64(env, v->of.i64, &out);
        break;
    case SBX_WASM_F32:
        napi_create_double(env, (double)v->of.f32, &out);
        break;
    default:
        napi_create_double(env, v->of.f64, &out);
        break;
    }
    return out;
}

/* Converts a JS value to type t; false when it is not a number (or a BigInt for i64). */
static bool from_js(napi_env env, napi_value v, sbx_wasm_valtype t, sbx_wasm_value *out)
{
    napi_valuetype jt;
    napi_typeof(env, v, &jt);
    out->type = t;
    if (t == SBX_WASM_I64 && jt == napi_bigint) {
        bool lossless;
        return napi_get_value_bigint_int64(env, v, &out->of.i64, &lossless) == napi_ok;
    }
    if (jt != napi_number)
        return false;
    switch (t) {
    case SBX_WASM_I32:
        return napi_get_value_int32(env, v, &out->of.i32) == napi_ok;
    case SBX_WASM_I64:
        return napi_get_value_int64(env, v, &out->of.i64) == napi_ok;
    case SBX_WASM_F32: {
        double d;
        napi_get_value_double(env, v, &d);
        out->of.f32 = (float)d;
        return true;
    }
    default:
        return napi_get_value_double(env, v, &out->of.f64) == napi_ok;
    }
}

/* ---- host calls ------------------------------------------------------------------------------ */

static napi_value settled(napi_env env, napi_callback_info info, bool is_fulfilled)
{
    napi_value argv[1];
    struct host_call *hc;
    size_t n = 1;
    napi_get_cb_info(env, info, &n, argv, NULL, (void **)&hc);
    if (n < 1)
        napi_get_undefined(env, &argv[0]);
    struct import *imp = hc->imp;
    char msg[512];
    if (!is_fulfilled) {
        napi_value s;
        size_t len = 0;
        msg[0] = '\0';
        if (napi_coerce_to_string(env, argv[0], &s) == napi_ok)
            napi_get_value_string_utf8(env, s, msg, sizeof(msg), &len);
        else
            napi_get_and_clear_last_exception(env, &s);
        sbx_wasm_completion_fail(hc->c, msg);
        free(hc);
        return NULL;
    }
    sbx_wasm_value results[MAX_VALUES];
    bool is_ok = true;
    bool is_array = false;
    napi_is_array(env, argv[0], &is_array);
    for (size_t i = 0; i < imp->result_count && is_ok; i++) {
        napi_value e = argv[0];
        if (imp->result_count > 1 &&
            (!is_array || napi_get_element(env, argv[0], (uint32_t)i, &e) != napi_ok))
            is_ok = false;
        is_ok = is_ok && from_js(env, e, imp->results[i], &results[i]);
    }
    if (is_ok) {
        sbx_wasm_completion_finish(hc->c, results, imp->result_count);
    } else {
        snprintf(msg, sizeof(msg), "%s returned a value that is not %s", imp->name, imp->signature);
        sbx_wasm_completion_fail(hc->c, msg);
    }
    free(hc);
    return NULL;
}

static napi_value on_fulfilled(napi_env env, napi_callback_info info)
{
    return settled(env, info, true);
}

static napi_value on_rejected(napi_env env, napi_callback_info info)
{
    return settled(env, info, false);
}

/* JS thread: calls the import's function (index.js wraps it to always return a promise). */
static void host_call_js(napi_env env, napi_value cb, void *context, void *data)
{
    (void)cb;
    (void)context;
    struct host_call *hc = data;
    if (!env || hc->imp->owner->is_disposed) {
        sbx_wasm_completion_fail(hc->c, env ? "the plugin was disposed"
                                            : "the Node.js environment is shutting down");
        free(hc);
        return;
    }
    napi_value fn, recv, argv[MAX_VALUES], promise, then, handlers[2];
    for (size_t i = 0; i < hc->arg_count; i++)
        argv[i] = to_js(env, &hc->args[i]);
    napi_get_undefined(env, &recv);
    napi_get_reference_value(env, hc->imp->fn, &fn);
    if (napi_call_function(env, recv, fn, hc->arg_count, argv, &promise) != napi_ok ||
        napi_get_named_property(env, promise, "then", &then) != napi_ok) {
        napi_value exc;
        napi_get_and_clear_last_exception(env, &exc);
        sbx_wasm_completion_fail(hc->c, "capability import threw");
        free(hc);
        return;
    }
    napi_create_function(env, "fulfilled", NAPI_AUTO_LENGTH, on_fulfilled, hc, &handlers[0]);
    napi_create_function(env, "rejected", NAPI_AUTO_LENGTH, on_rejected, hc, &handlers[1]);
    napi_call_function(env, promise, then, 2, handlers, NULL);
}

/* Guest thread: hands the call to the JS thread; the guest waits for the completion. */
static void host_fn(void *user, const sbx_wasm_value *args, size_t arg_count,
                    sbx_wasm_completion *c)
{
    struct import *imp = user;
    struct host_call *hc = calloc(1, sizeof(*hc));
    if (!hc || arg_count > MAX_VALUES) {
        free(hc);
        sbx_wasm_completion_fail(c, "out of memory");
        return;
    }
    hc->imp = imp;
    hc->c = c;
    hc->arg_count = arg_count;
    memcpy(hc->args, args, arg_count * sizeof(*args));
    if (napi_call_threadsafe_function(imp->owner->tsfn, hc, napi_tsfn_blocking) != napi_ok) {
        free(hc);
        sbx_wasm_completion_fail(c, "the plugin was disposed");
    }
}

/* ---- the handle ------------------------------------------------------------------------------ */

static void plugin_free_memory(struct plugin *p)
{
    pthread_mutex_destroy(&p->mu);
    for (size_t i = 0; i < p->import_count; i++) {
        free(p->imports[i].name);
        free(p->imports[i].signature);
    }
    free(p->imports);
    free(p);
}

/* The host-call queue is drained and gone: nothing reaches p through it any more. */
static void tsfn_finalized(napi_env env, void *data, void *hint)
{
    (void)env;
    (void)hint;
    struct plugin *p = data;
    p->is_tsfn_live = false;
    if (p->is_finalized)
        plugin_free_memory(p);
}

/* Lets the host-call queue drain and end; queued calls then fail (is_disposed). */
static void plugin_release(struct plugin *p)
{
    if (p->tsfn) {
        napi_release_threadsafe_function(p->tsfn, napi_tsfn_release);
        p->tsfn = NULL;
    }
}

/* The JS side is done with p (its object was collected, or create failed). */
static void plugin_free(napi_env env, struct plugin *p)
{
    if (p->is_busy) { /* only at environment teardown: the call's thread still uses p */
        sbx_wasm_sandbox_abort(p->sb);
        return;
    }
    p->is_disposed = true;
    sbx_wasm_sandbox_destroy(p->sb);
    p->sb = NULL;
    for (size_t i = 0; env && i < p->import_count; i++)
        if (p->imports[i].fn)
            napi_delete_reference(env, p->imports[i].fn);
    plugin_release(p);
    p->is_finalized = true;
    if (!p->is_tsfn_live)
        plugin_free_memory(p);
}

static void plugin_finalize(napi_env env, void *data, void *hint)
{
    (void)hint;
    plugin_free(env, data);
}

static struct plugin *get_plugin(napi_env env, napi_value v)
{
    struct plugin *p = NULL;
    if (napi_get_value_external(env, v, (void **)&p) != napi_ok || !p)
        sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, "not a wasm sandbox handle");
    return p;
}

/* Disposes the instance; host calls still queued fail from now on. */
static void plugin_dispose(napi_env env, struct plugin *p)
{
    (void)env;
    sbx_wasm_sandbox_dispose(p->sb);
    p->is_disposed = true;
    plugin_release(p);
}

/* ---- create ---------------------------------------------------------------------------------- */

struct create_job {
    struct job base;
    struct plugin *p;
    uint8_t *bytes;
    size_t len;
    sbx_policy *policy;
    char **argv;
    size_t argc;
    uint8_t *stdin_data;
    size_t stdin_len;
    sbx_err rc;
    char err[512];
};

static void create_execute(struct job *base)
{
    struct create_job *j = (struct create_job *)base;
    struct plugin *p = j->p;
    sbx_wasm_host_func *hf = calloc(p->import_count ? p->import_count : 1, sizeof(*hf));
    if (!hf) {
        j->rc = SBX_E_NOMEM;
        snprintf(j->err, sizeof(j->err), "out of memory");
        return;
    }
    for (size_t i = 0; i < p->import_count; i++)
        hf[i] = (sbx_wasm_host_func){p->imports[i].name, p->imports[i].signature, host_fn,
                                     &p->imports[i]};
    sbx_wasm_options opt = {
        .size = sizeof(opt),
        .argv = (const char *const *)j->argv,
        .stdin_data = j->stdin_data,
        .stdin_len = j->stdin_len,
        .host_funcs = hf,
        .host_func_count = p->import_count,
    };
    j->rc =
        sbx_wasm_sandbox_create(j->bytes, j->len, j->policy, &opt, &p->sb, j->err, sizeof(j->err));
    free(hf);
}

static napi_value create_complete(napi_env env, struct job *base, napi_value *error)
{
    struct create_job *j = (struct create_job *)base;
    if (j->rc != SBX_OK) {
        *error = sbx_node_error(env, sbx_err_name(j->rc), j->err);
        plugin_free(env, j->p);
        j->p = NULL;
        return NULL;
    }
    napi_value ext;
    if (napi_create_external(env, j->p, plugin_finalize, NULL, &ext) != napi_ok) {
        *error = sbx_node_error(env, "SANDBOX_HOST_NOMEM", "out of memory");
        return NULL;
    }
    j->p = NULL; /* the external owns it now */
    return ext;
}

static void create_destroy(struct job *base)
{
    struct create_job *j = (struct create_job *)base;
    if (j->p) /* failed: no JS object ever held it */
        plugin_free(NULL, j->p);
    free(j->bytes);
    sbx_policy_destroy(j->policy);
    for (size_t i = 0; i < j->argc; i++)
        free(j->argv[i]);
    free(j->argv);
    free(j->stdin_data);
    free(j);
}

/* Copies a Buffer / Uint8Array's bytes; false with an exception pending. */
static bool read_bytes(napi_env env, napi_value v, uint8_t **out, size_t *len, const char *what)
{
    bool is_ta = false;
    void *data = NULL;
    napi_typedarray_type t = napi_uint8_array;
    napi_is_typedarray(env, v, &is_ta);
    if (is_ta)
        napi_get_typedarray_info(env, v, &t, len, &data, NULL, NULL);
    if (!is_ta || (t != napi_uint8_array && t != napi_int8_array)) {
        char msg[128];
        snprintf(msg, sizeof(msg), "%s must be a Uint8Array or Buffer", what);
        sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, msg);
        return false;
    }
    *out = malloc(*len ? *len : 1);
    if (!*out) {
        sbx_node_throw(env, SBX_E_NOMEM, "out of memory");
        return false;
    }
    if (*len)
        memcpy(*out, data, *len);
    return true;
}

static bool is_nullish(napi_env env, napi_value v)
{
    napi_valuetype t;
    napi_typeof(env, v, &t);
    return t == napi_undefined || t == napi_null;
}

/* Keeps each import the module asks for and imports[] offers as a function. */
static bool add_imports(napi_env env, struct create_job *j, napi_value imports)
{
    sbx_wasm_import *list;
    size_t n;
    sbx_err rc = sbx_wasm_module_imports(j->bytes, j->len, &list, &n, j->err, sizeof(j->err));
    if (rc != SBX_OK) {
        sbx_node_throw(env, rc, j->err);
        return false;
    }
    struct plugin *p = j->p;
    p->imports = calloc(n ? n : 1, sizeof(*p->imports));
    for (size_t i = 0; p->imports && i < n; i++) {
        napi_value fn;
        napi_valuetype t = napi_undefined;
        if (is_nullish(env, imports) || !list[i].signature ||
            napi_get_named_property(env, imports, list[i].name, &fn) != napi_ok ||
            napi_typeof(env, fn, &t) != napi_ok || t != napi_function)
            continue;
        struct import *imp = &p->imports[p->import_count++];
        imp->owner = p;
        imp->name = strdup(list[i].name);
        imp->signature = strdup(list[i].signature);
        imp->result_count = list[i].result_count;
        memcpy(imp->results, list[i].results, sizeof(imp->results));
        napi_create_reference(env, fn, 1, &imp->fn);
    }
    sbx_wasm_imports_free(list, n);
    if (!p->imports)
        sbx_node_throw(env, SBX_E_NOMEM, "out of memory");
    return p->imports != NULL;
}

static bool read_argv(napi_env env, napi_value v, struct create_job *j)
{
    uint32_t n;
    if (is_nullish(env, v))
        return true;
    if (napi_get_array_length(env, v, &n) != napi_ok) {
        sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, "argv must be an array of strings");
        return false;
    }
    j->argv = calloc((size_t)n + 1, sizeof(char *));
    for (uint32_t i = 0; j->argv && i < n; i++) {
        napi_value e;
        napi_get_element(env, v, i, &e);
        if (!(j->argv[i] = sbx_node_string(env, e, "argv[i]")))
            return false;
        j->argc++;
    }
    return j->argv != NULL || (sbx_node_throw(env, SBX_E_NOMEM, "out of memory"), false);
}

/* wasmCreate(bytes, policyJson, imports, argv, stdin) -> Promise<handle> */
static napi_value wasm_create(napi_env env, napi_callback_info info)
{
    napi_value argv[5], name = sbx_node_str(env, "sbx.host_call");
    if (!sbx_node_args(env, info, 5, argv, NULL))
        return NULL;
    struct create_job *j = calloc(1, sizeof(*j));
    if (!j || !(j->p = calloc(1, sizeof(*j->p)))) {
        free(j);
        return sbx_node_throw(env, SBX_E_NOMEM, "out of memory");
    }
    pthread_mutex_init(&j->p->mu, NULL);
    j->base = (struct job){
        .execute = create_execute, .complete = create_complete, .destroy = create_destroy};
    bool is_ok = read_bytes(env, argv[0], &j->bytes, &j->len, "module bytes") &&
                 (j->policy = sbx_node_policy(env, argv[1])) && add_imports(env, j, argv[2]) &&
                 read_argv(env, argv[3], j) &&
                 (is_nullish(env, argv[4]) ||
                  read_bytes(env, argv[4], &j->stdin_data, &j->stdin_len, "stdin"));
    if (is_ok && napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, j->p, tsfn_finalized,
                                                 NULL, host_call_js, &j->p->tsfn) != napi_ok) {
        sbx_node_throw(env, SBX_E_NOMEM, "cannot create a threadsafe function");
        is_ok = false;
    }
    if (is_ok)
        j->p->is_tsfn_live = true;
    if (!is_ok) {
        plugin_free(env, j->p);
        j->p = NULL;
        create_destroy(&j->base);
        return NULL;
    }
    /* An idle plugin must not keep the process alive; a job in flight does. */
    napi_unref_threadsafe_function(env, j->p->tsfn);
    return sbx_node_job_start(env, &j->base, NULL);
}

/* ---- call and run ------------------------------------------------------------------------------
 */

struct call_job {
    struct job base;
    struct plugin *p;
    char *name; /* NULL: run _start */
    sbx_wasm_value args[MAX_VALUES], results[MAX_VALUES];
    size_t arg_count, result_count;
    sbx_result result;
};

static void call_execute(struct job *base)
{
    struct call_job *j = (struct call_job *)base;
    struct plugin *p = j->p;
    pthread_mutex_lock(&p->mu);
    p->is_in_call = true;
    if (p->abort_requested) /* libsbx remembers it: the call ends at once, SANDBOX_ABORTED */
        sbx_wasm_sandbox_abort(p->sb);
    pthread_mutex_unlock(&p->mu);
    if (j->name)
        sbx_wasm_sandbox_call(p->sb, j->name, j->args, j->arg_count, j->results, j->result_count,
                              &j->result);
    else
        sbx_wasm_sandbox_run(p->sb, &j->result);
    pthread_mutex_lock(&p->mu);
    p->is_in_call = false;
    sbx_wasm_sandbox_clear_abort(p->sb); /* one that came after the call must not end the next */
    pthread_mutex_unlock(&p->mu);
}

static napi_value call_complete(napi_env env, struct job *base, napi_value *error)
{
    struct call_job *j = (struct call_job *)base;
    struct plugin *p = j->p;
    p->is_busy = false;
    if (p->is_dispose_pending)
        plugin_dispose(env, p);
    char *json = sbx_result_to_json(&j->result);
    if (!json) {
        *error = sbx_node_error(env, "SANDBOX_HOST_NOMEM", "out of memory");
        return NULL;
    }
    napi_value o, values;
    napi_create_object(env, &o);
    napi_set_named_property(env, o, "json", sbx_node_str(env, json));
    sbx_free(json);
    napi_create_array(env, &values);
    for (size_t i = 0; j->result.ok && i < j->result_count; i++)
        napi_set_element(env, values, (uint32_t)i, to_js(env, &j->results[i]));
    napi_set_named_property(env, o, "values", values);
    return o;
}

static void call_destroy(struct job *base)
{
    struct call_job *j = (struct call_job *)base;
    sbx_result_free(&j->result);
    free(j->name);
    free(j);
}

/* Ends the call in flight, including one whose thread has not started yet (JS thread). */
static void plugin_abort(struct plugin *p)
{
    pthread_mutex_lock(&p->mu);
    p->abort_requested = true;
    if (p->is_in_call)
        sbx_wasm_sandbox_abort(p->sb);
    pthread_mutex_unlock(&p->mu);
}

static struct call_job *call_job_new(napi_env env, struct plugin *p, napi_value is_aborted)
{
    if (p->is_busy) {
        sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, "a call is already in progress");
        return NULL;
    }
    struct call_job *j = calloc(1, sizeof(*j));
    if (!j) {
        sbx_node_throw(env, SBX_E_NOMEM, "out of memory");
        return NULL;
    }
    j->base =
        (struct job){.execute = call_execute, .complete = call_complete, .destroy = call_destroy};
    j->p = p;
    bool was_aborted = false; /* the signal fired already: the call ends at once */
    napi_get_value_bool(env, is_aborted, &was_aborted);
    p->abort_requested = was_aborted;
    return j;
}

/* Converts args[] by the export's parameter types; an unknown export passes none, so that
 * libsbx reports SAND_WASM_EXPORT_NOT_FOUND (or DISPOSED) in the result itself. */
static bool read_call_args(napi_env env, struct call_job *j, napi_value args)
{
    sbx_wasm_valtype params[MAX_VALUES], results[MAX_VALUES];
    size_t np = 0, nr = 0;
    uint32_t n = 0;
    if (!is_nullish(env, args) && napi_get_array_length(env, args, &n) != napi_ok) {
        sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, "args must be an array");
        return false;
    }
    if (sbx_wasm_sandbox_export_type(j->p->sb, j->name, params, &np, results, &nr, MAX_VALUES) !=
        SBX_OK)
        return true;
    if (np > MAX_VALUES || nr > MAX_VALUES || n > MAX_VALUES) {
        sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, "more than 16 parameters or results");
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        napi_value e;
        napi_get_element(env, args, i, &e);
        if (!from_js(env, e, i < np ? params[i] : SBX_WASM_I32, &j->args[i])) {
            char msg[300];
            snprintf(msg, sizeof(msg), "argument %u of %s is not a number%s", i, j->name,
                     i < np && params[i] == SBX_WASM_I64 ? " or a BigInt" : "");
            sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, msg);
            return false;
        }
    }
    j->arg_count = n;
    j->result_count = nr;
    return true;
}

/* wasmCall(handle, name, args, isAborted) -> Promise<{json, values}> */
static napi_value wasm_call(napi_env env, napi_callback_info info)
{
    napi_value argv[4];
    if (!sbx_node_args(env, info, 4, argv, NULL))
        return NULL;
    struct plugin *p = get_plugin(env, argv[0]);
    struct call_job *j = p ? call_job_new(env, p, argv[3]) : NULL;
    if (!j)
        return NULL;
    if (!(j->name = sbx_node_string(env, argv[1], "name")) || !read_call_args(env, j, argv[2])) {
        call_destroy(&j->base);
        return NULL;
    }
    p->is_busy = true;
    return sbx_node_job_start(env, &j->base, argv[0]);
}

/* wasmRun(handle, isAborted) -> Promise<{json, values}>: the command's _start */
static napi_value wasm_run(napi_env env, napi_callback_info info)
{
    napi_value argv[2];
    if (!sbx_node_args(env, info, 2, argv, NULL))
        return NULL;
    struct plugin *p = get_plugin(env, argv[0]);
    struct call_job *j = p ? call_job_new(env, p, argv[1]) : NULL;
    if (!j)
        return NULL;
    p->is_busy = true;
    return sbx_node_job_start(env, &j->base, argv[0]);
}

static napi_value wasm_abort(napi_env env, napi_callback_info info)
{
    napi_value argv[1];
    if (!sbx_node_args(env, info, 1, argv, NULL))
        return NULL;
    struct plugin *p = get_plugin(env, argv[0]);
    if (p && p->is_busy)
        plugin_abort(p);
    return NULL;
}

/* wasmDispose(handle): idempotent; a call in flight is aborted and disposal follows it. */
static napi_value wasm_dispose(napi_env env, napi_callback_info info)
{
    napi_value argv[1];
    if (!sbx_node_args(env, info, 1, argv, NULL))
        return NULL;
    struct plugin *p = get_plugin(env, argv[0]);
    if (!p)
        return NULL;
    if (p->is_busy) {
        p->is_dispose_pending = true;
        plugin_abort(p);
    } else {
        plugin_dispose(env, p);
    }
    return NULL;
}

static napi_value wasm_denied_count(napi_env env, napi_callback_info info)
{
    napi_value argv[1], v;
    if (!sbx_node_args(env, info, 1, argv, NULL))
        return NULL;
    struct plugin *p = get_plugin(env, argv[0]);
    if (!p)
        return NULL;
    napi_create_double(env, (double)sbx_wasm_sandbox_denied_count(p->sb), &v);
    return v;
}

void sbx_node_init_wasm(napi_env env, napi_value exports)
{
    static const struct sbx_node_fn fns[] = {
        {"wasmCreate", wasm_create},   {"wasmCall", wasm_call},
        {"wasmRun", wasm_run},         {"wasmAbort", wasm_abort},
        {"wasmDispose", wasm_dispose}, {"wasmDeniedCount", wasm_denied_count},
    };
    sbx_node_define(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}

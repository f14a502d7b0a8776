/* bindings/node/src/sandbox.c: WorkerSandbox / ProcessSandbox over sbx_sandbox. One run at a
 * time per handle (index.js queues); a run with its own timeout gets a handle of its own made
 * with sbx_policy_with(). Abort calls sbx_sandbox_abort() on the handle the run uses. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

struct sandbox {
    sbx_backend backend;
    sbx_policy *policy;
    sbx_sandbox *sb;
    pthread_mutex_t mu;      /* guards running and abort_requested */
    sbx_sandbox *running;    /* the handle the run in flight uses, or NULL */
    bool abort_requested;    /* abort came before the run had a handle */
    bool is_busy;            /* a job is in flight (JS thread only) */
    bool is_dispose_pending; /* dispose() came during a run (JS thread only) */
    bool is_disposed;        /* JS thread only */
    bool has_preloads;       /* a per-run handle takes them too (sbx_sandbox_preload_from) */
};

struct run_job {
    struct job base;
    struct sandbox *s;
    sbx_policy *own_policy; /* per-run timeout: its own policy and handle */
    char *code, *context, *interpreter;
    char **argv;
    size_t argc;
    napi_ref on_output; /* options.onOutput, or NULL */
    sbx_result result;
    sbx_err rc;
};

static void sandbox_finalize(napi_env env, void *data, void *hint)
{
    (void)env;
    (void)hint;
    struct sandbox *s = data;
    if (s->is_busy) { /* only at environment teardown: the run's thread still uses s */
        pthread_mutex_lock(&s->mu);
        if (s->running)
            sbx_sandbox_abort(s->running);
        pthread_mutex_unlock(&s->mu);
        return;
    }
    sbx_sandbox_destroy(s->sb);
    sbx_policy_destroy(s->policy);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

static struct sandbox *get_sandbox(napi_env env, napi_value v)
{
    struct sandbox *s = NULL;
    if (napi_get_value_external(env, v, (void **)&s) != napi_ok || !s)
        sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, "not a sandbox handle");
    return s;
}

/* Sets *out to a copy of base whose timeoutMs is the JS number v, or NULL when v is nullish;
 * false with a SandboxError thrown when libsbx rejects the value. */
static bool with_timeout(napi_env env, napi_value v, const sbx_policy *base, sbx_policy **out)
{
    napi_valuetype t;
    double ms;
    *out = NULL;
    napi_typeof(env, v, &t);
    if (t == napi_undefined || t == napi_null)
        return true;
    if (napi_get_value_double(env, v, &ms) != napi_ok) {
        sbx_node_throw(env, SBX_E_INVALID_OPTIONS, "timeout must be a number of milliseconds");
        return false;
    }
    char num[64], err[512];
    snprintf(num, sizeof(num), "%.17g", ms);
    sbx_err rc = sbx_policy_with(base, "timeoutMs", num, out, err, sizeof(err));
    if (rc != SBX_OK)
        sbx_node_throw(env, rc, err);
    return rc == SBX_OK;
}

/* sandboxCreate(backendName, policyJson, timeoutMs) -> handle */
static napi_value sandbox_create(napi_env env, napi_callback_info info)
{
    napi_value argv[3], ext;
    if (!sbx_node_args(env, info, 3, argv, NULL))
        return NULL;
    char *name = sbx_node_string(env, argv[0], "backend");
    if (!name)
        return NULL;
    sbx_backend backend;
    int bad = sbx_backend_from_name(name, &backend);
    free(name);
    if (bad)
        return sbx_node_throw(env, SBX_E_INVALID_OPTIONS, "unknown backend");
    sbx_policy *p = sbx_node_policy(env, argv[1]);
    if (!p)
        return NULL;
    sbx_policy *timed;
    bool is_ok = with_timeout(env, argv[2], p, &timed);
    if (timed) {
        sbx_policy_destroy(p);
        p = timed;
    }
    if (!is_ok) {
        sbx_policy_destroy(p);
        return NULL;
    }
    struct sandbox *s = calloc(1, sizeof(*s));
    sbx_err rc = s ? sbx_sandbox_create(backend, p, &s->sb) : SBX_E_NOMEM;
    if (rc != SBX_OK) {
        free(s);
        sbx_policy_destroy(p);
        return sbx_node_throw(env, rc, sbx_err_message(rc));
    }
    s->backend = backend;
    s->policy = p;
    pthread_mutex_init(&s->mu, NULL);
    napi_create_external(env, s, sandbox_finalize, NULL, &ext);
    return ext;
}

/* sbx_output_fn, on the thread running the guest: the chunk goes to the JS thread. */
static void post_output(void *user, sbx_stream stream, const char *data, size_t len)
{
    sbx_node_job_post(user, (int)stream, data, len);
}

/* On the JS thread: onOutput('stdout' | 'stderr', Buffer). What it throws is uncaught, as
 * from an event listener. */
static void run_message(napi_env env, struct job *base, const struct job_msg *m)
{
    struct run_job *j = (struct run_job *)base;
    napi_value fn, args[2], global, ignored;
    if (!j->on_output || napi_get_reference_value(env, j->on_output, &fn) != napi_ok)
        return;
    args[0] = sbx_node_str(env, m->kind == SBX_STREAM_STDERR ? "stderr" : "stdout");
    napi_create_buffer_copy(env, m->len, m->data, NULL, &args[1]);
    napi_get_global(env, &global);
    if (napi_call_function(env, global, fn, 2, args, &ignored) == napi_pending_exception) {
        napi_value err;
        napi_get_and_clear_last_exception(env, &err);
        napi_fatal_exception(env, err);
    }
}

static void run_execute(struct job *base)
{
    struct run_job *j = (struct run_job *)base;
    struct sandbox *s = j->s;
    sbx_sandbox *own = NULL;
    sbx_sandbox *sb = s->sb;
    if (j->own_policy) {
        j->rc = sbx_sandbox_create(s->backend, j->own_policy, &own);
        if (j->rc == SBX_OK && s->has_preloads)
            j->rc = sbx_sandbox_preload_from(own, s->sb);
        if (j->rc != SBX_OK) {
            sbx_sandbox_destroy(own);
            j->result.error = j->rc;
            j->result.backend = s->backend;
            return;
        }
        sb = own;
    }
    pthread_mutex_lock(&s->mu);
    s->running = sb;
    if (s->abort_requested) /* libsbx remembers it: the run ends at once, SANDBOX_ABORTED */
        sbx_sandbox_abort(sb);
    pthread_mutex_unlock(&s->mu);
    sbx_run_input in = {
        .code = j->code,
        .code_len = j->code ? strlen(j->code) : 0,
        .context_json = j->context,
        .interpreter = j->interpreter,
        .argv = (const char *const *)j->argv,
        .on_output = j->on_output ? post_output : NULL,
        .on_output_user = j,
    };
    j->rc = sbx_sandbox_run(sb, &in, &j->result);
    pthread_mutex_lock(&s->mu);
    s->running = NULL;
    sbx_sandbox_clear_abort(sb); /* one that came after the run returned must not end the next */
    pthread_mutex_unlock(&s->mu);
    sbx_sandbox_destroy(own);
}

static napi_value run_complete(napi_env env, struct job *base, napi_value *error)
{
    struct run_job *j = (struct run_job *)base;
    struct sandbox *s = j->s;
    if (j->on_output)
        napi_delete_reference(env, j->on_output);
    j->on_output = NULL;
    s->is_busy = false;
    s->abort_requested = false;
    if (s->is_dispose_pending) {
        sbx_sandbox_dispose(s->sb);
        s->is_disposed = true;
    }
    char *json = sbx_result_to_json(&j->result);
    if (!json) {
        *error = sbx_node_error(env, "SANDBOX_HOST_NOMEM", "out of memory");
        return NULL;
    }
    napi_value v = sbx_node_str(env, json);
    sbx_free(json);
    return v;
}

static void run_destroy(struct job *base)
{
    struct run_job *j = (struct run_job *)base;
    sbx_result_free(&j->result);
    sbx_policy_destroy(j->own_policy);
    free(j->code);
    free(j->context);
    free(j->interpreter);
    for (size_t i = 0; i < j->argc; i++)
        free(j->argv[i]);
    free(j->argv);
    free(j);
}

static bool is_nullish(napi_env env, napi_value v)
{
    napi_valuetype t;
    napi_typeof(env, v, &t);
    return t == napi_undefined || t == napi_null;
}

/* Reads an optional string; false with an exception pending. */
static bool opt_string(napi_env env, napi_value v, const char *what, char **out)
{
    *out = NULL;
    if (is_nullish(env, v))
        return true;
    *out = sbx_node_string(env, v, what);
    return *out != NULL;
}

static bool read_argv(napi_env env, napi_value v, struct run_job *j)
{
    if (is_nullish(env, v))
        return true;
    uint32_t n;
    if (napi_get_array_length(env, v, &n) != napi_ok || n == 0) {
        sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, "argv must be a non-empty array of strings");
        return false;
    }
    j->argv = calloc((size_t)n + 1, sizeof(char *));
    if (!j->argv) {
        sbx_node_throw(env, SBX_E_NOMEM, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        napi_value e;
        napi_get_element(env, v, i, &e);
        if (!(j->argv[i] = sbx_node_string(env, e, "argv[i]")))
            return false;
        j->argc++;
    }
    return true;
}

/* Derives the run's own policy when it asks for its own timeout. */
static bool read_timeout(napi_env env, napi_value v, struct run_job *j)
{
    return with_timeout(env, v, j->s->policy, &j->own_policy);
}

/* sandboxRun(handle, code, contextJson, argv, interpreter, timeoutMs, isAborted, onOutput)
 * -> Promise<result JSON>. isAborted: the signal fired already, so the run never starts.
 * onOutput: a function or null. */
static napi_value sandbox_run(napi_env env, napi_callback_info info)
{
    napi_value argv[8];
    bool is_aborted = false;
    if (!sbx_node_args(env, info, 8, argv, NULL))
        return NULL;
    napi_get_value_bool(env, argv[6], &is_aborted);
    struct sandbox *s = get_sandbox(env, argv[0]);
    if (!s)
        return NULL;
    if (s->is_busy)
        return sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, "a run is already in progress");
    struct run_job *j = calloc(1, sizeof(*j));
    if (!j)
        return sbx_node_throw(env, SBX_E_NOMEM, "out of memory");
    j->base = (struct job){.execute = run_execute,
                           .complete = run_complete,
                           .destroy = run_destroy,
                           .message = run_message};
    j->s = s;
    if (!opt_string(env, argv[1], "code", &j->code) ||
        !opt_string(env, argv[2], "context", &j->context) || !read_argv(env, argv[3], j) ||
        !opt_string(env, argv[4], "interpreter", &j->interpreter) ||
        !read_timeout(env, argv[5], j)) {
        run_destroy(&j->base);
        return NULL;
    }
    if (s->is_disposed) { /* no fresh handle for a disposed sandbox: libsbx says DISPOSED */
        sbx_policy_destroy(j->own_policy);
        j->own_policy = NULL;
    }
    napi_valuetype t;
    napi_typeof(env, argv[7], &t);
    if (t == napi_function)
        napi_create_reference(env, argv[7], 1, &j->on_output);
    s->is_busy = true;
    s->abort_requested = is_aborted;
    napi_value p = sbx_node_job_start(env, &j->base, argv[0]);
    return p;
}

/* sandboxPreload(handle, name, source): sbx_sandbox_preload, before the first run. */
static napi_value sandbox_preload(napi_env env, napi_callback_info info)
{
    napi_value argv[3];
    if (!sbx_node_args(env, info, 3, argv, NULL))
        return NULL;
    struct sandbox *s = get_sandbox(env, argv[0]);
    if (!s)
        return NULL;
    char *name = sbx_node_string(env, argv[1], "preload name");
    char *source = name ? sbx_node_string(env, argv[2], "preload source") : NULL;
    size_t len = 0; /* the string's own length: a NUL may be in it */
    if (source)
        napi_get_value_string_utf8(env, argv[2], NULL, 0, &len);
    sbx_err rc = source ? sbx_sandbox_preload(s->sb, name, source, len) : SBX_OK;
    free(name);
    free(source);
    if (!source)
        return NULL; /* sbx_node_string threw */
    if (rc != SBX_OK)
        return sbx_node_throw(env, rc, sbx_err_message(rc));
    s->has_preloads = true;
    return NULL;
}

/* sandboxAbort(handle): ends the run in flight with SANDBOX_ABORTED. */
static napi_value sandbox_abort(napi_env env, napi_callback_info info)
{
    napi_value argv[1];
    if (!sbx_node_args(env, info, 1, argv, NULL))
        return NULL;
    struct sandbox *s = get_sandbox(env, argv[0]);
    if (!s || !s->is_busy)
        return NULL;
    pthread_mutex_lock(&s->mu);
    s->abort_requested = true;
    if (s->running)
        sbx_sandbox_abort(s->running);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* sandboxDispose(handle): idempotent; a run in flight is aborted and disposal follows it. */
static napi_value sandbox_dispose(napi_env env, napi_callback_info info)
{
    napi_value argv[1];
    if (!sbx_node_args(env, info, 1, argv, NULL))
        return NULL;
    struct sandbox *s = get_sandbox(env, argv[0]);
    if (!s)
        return NULL;
    if (!s->is_busy) {
        sbx_sandbox_dispose(s->sb);
        s->is_disposed = true;
        return NULL;
    }
    s->is_dispose_pending = true;
    return sandbox_abort(env, info);
}

void sbx_node_init_sandbox(napi_env env, napi_value exports)
{
    static const struct sbx_node_fn fns[] = {
        {"sandboxCreate", sandbox_create},   {"sandboxRun", sandbox_run},
        {"sandboxAbort", sandbox_abort},     {"sandboxPreload", sandbox_preload},
        {"sandboxDispose", sandbox_dispose},
    };
    sbx_node_define(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}

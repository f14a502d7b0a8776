/* bindings/node/src/addon.c: module set-up, the job runner (own thread + threadsafe function)
 * and the helpers every file shares: strings, policies, SandboxError. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* Job threads -> one environment's JS thread: one threadsafe function for all its jobs (one per
 * job cost a libuv handle's set-up and close per run), referenced only while jobs are in flight
 * so that an idle addon does not keep the event loop alive. It outlives the environment while
 * jobs hold it: Node deletes the threadsafe function when the environment goes (a Worker
 * terminated during a run), and a job that ends after that finds the channel closed and frees
 * itself instead of calling into freed memory. */
struct channel {
    pthread_mutex_t mu;
    napi_threadsafe_function tsfn; /* usable while !is_closed */
    bool is_closed;                /* under mu */
    int refs;                      /* under mu: the environment's and one per job in flight */
    size_t jobs_in_flight;         /* JS thread only */
};

struct instance {
    napi_ref error_ctor;     /* index.js's SandboxError, set by init() */
    struct channel *channel; /* made on the first job */
};

static void channel_put(struct channel *ch)
{
    pthread_mutex_lock(&ch->mu);
    bool is_last = --ch->refs == 0;
    pthread_mutex_unlock(&ch->mu);
    if (is_last) {
        pthread_mutex_destroy(&ch->mu);
        free(ch);
    }
}

/* Queues data for job_call_js; false when the environment is gone (data stays the caller's). */
static bool channel_send(struct channel *ch, void *data)
{
    pthread_mutex_lock(&ch->mu);
    bool is_sent = !ch->is_closed &&
                   napi_call_threadsafe_function(ch->tsfn, data, napi_tsfn_blocking) == napi_ok;
    pthread_mutex_unlock(&ch->mu);
    return is_sent;
}

/* The threadsafe function's finalizer: the environment is going, or gone. */
static void channel_closed(napi_env env, void *data, void *hint)
{
    (void)env;
    (void)hint;
    struct channel *ch = data;
    pthread_mutex_lock(&ch->mu);
    ch->is_closed = true;
    pthread_mutex_unlock(&ch->mu);
    channel_put(ch);
}

napi_value sbx_node_str(napi_env env, const char *s)
{
    napi_value v;
    napi_create_string_utf8(env, s ? s : "", NAPI_AUTO_LENGTH, &v);
    return v;
}

napi_value sbx_node_error(napi_env env, const char *code, const char *message)
{
    struct instance *inst = NULL;
    napi_get_instance_data(env, (void **)&inst);
    napi_value ctor = NULL, err, argv[2] = {sbx_node_str(env, code), sbx_node_str(env, message)};
    if (inst && inst->error_ctor)
        napi_get_reference_value(env, inst->error_ctor, &ctor);
    if (!ctor || napi_new_instance(env, ctor, 2, argv, &err) != napi_ok) {
        napi_create_error(env, argv[0], argv[1], &err);
    }
    return err;
}

napi_value sbx_node_throw(napi_env env, sbx_err code, const char *message)
{
    napi_throw(env, sbx_node_error(env, sbx_err_name(code), message));
    return NULL;
}

bool sbx_node_args(napi_env env, napi_callback_info info, size_t argc, napi_value *argv,
                   void **data)
{
    size_t n = argc;
    if (napi_get_cb_info(env, info, &n, argv, NULL, data) != napi_ok)
        return false;
    if (n < argc) {
        napi_throw_type_error(env, NULL, "too few arguments");
        return false;
    }
    return true;
}

char *sbx_node_string(napi_env env, napi_value v, const char *what)
{
    size_t len;
    if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) {
        char msg[128];
        snprintf(msg, sizeof(msg), "%s must be a string", what);
        sbx_node_throw(env, SBX_E_INVALID_ARGUMENT, msg);
        return NULL;
    }
    char *s = malloc(len + 1);
    if (!s) {
        sbx_node_throw(env, SBX_E_NOMEM, "out of memory");
        return NULL;
    }
    napi_get_value_string_utf8(env, v, s, len + 1, &len);
    return s;
}

sbx_policy *sbx_node_policy(napi_env env, napi_value json)
{
    char *text = sbx_node_string(env, json, "policy");
    if (!text)
        return NULL;
    sbx_policy *p = NULL;
    char err[512];
    sbx_err rc = sbx_policy_parse(text, strlen(text), &p, err, sizeof(err));
    free(text);
    if (rc != SBX_OK)
        sbx_node_throw(env, rc, err);
    return rc == SBX_OK ? p : NULL;
}

void sbx_node_define(napi_env env, napi_value obj, const struct sbx_node_fn *fns, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        napi_value f;
        napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f);
        napi_set_named_property(env, obj, fns[i].name, f);
    }
}

/* ---- jobs -------------------------------------------------------------------------------- */

#define JOB_TAG 0x6a6f6221u /* "job!" */
#define MSG_TAG 0x6d736721u /* "msg!" */

bool sbx_node_job_post(struct job *j, int kind, const void *data, size_t len)
{
    struct job_msg *m = malloc(sizeof(*m) + len);
    if (!m)
        return false;
    *m = (struct job_msg){.tag = MSG_TAG, .job = j, .kind = kind, .len = len};
    memcpy(m->data, data, len);
    if (!channel_send(j->channel, m)) {
        free(m);
        return false;
    }
    return true;
}

static void job_call_js(napi_env env, napi_value cb, void *context, void *data)
{
    (void)cb;
    struct channel *ch = context;
    if (*(const uint32_t *)data == MSG_TAG) { /* both structs start with their tag */
        struct job_msg *m = data;
        if (env && m->job->message)
            m->job->message(env, m->job, m);
        free(m);
        return;
    }
    struct job *j = data;
    if (env) { /* NULL when the environment is torn down: just free */
        napi_value error = NULL, value = j->complete(env, j, &error);
        if (value)
            napi_resolve_deferred(env, j->deferred, value);
        else
            napi_reject_deferred(env, j->deferred,
                                 error ? error : sbx_node_error(env, "SANDBOX_HOST_NOMEM", ""));
        if (j->keep)
            napi_delete_reference(env, j->keep);
        if (--ch->jobs_in_flight == 0)
            napi_unref_threadsafe_function(env, ch->tsfn);
    }
    j->destroy(j);
}

/* Job threads are kept for the next job (a thread start per run was ~1/4 of a trivial run's
 * cost through the binding): an idle one takes the job, else a new one starts. Every job still
 * has a thread of its own while it runs (a wasm guest's host call blocks its thread on the JS
 * thread). At most IDLE_MAX wait; more end after their job. */
#define IDLE_MAX 8

struct job_thread {
    struct job_thread *next; /* in the idle list */
    pthread_cond_t cond;     /* with threads.lock: a job was assigned */
    struct job *job;         /* under threads.lock */
};

static struct {
    pthread_mutex_t lock;
    struct job_thread *idle;
    size_t idle_count;
} threads = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* A forked child has none of the parent's threads: it must not hand jobs to them. */
static void threads_after_fork(void)
{
    pthread_mutex_init(&threads.lock, NULL);
    threads.idle = NULL;
    threads.idle_count = 0;
}

static void job_run(struct job *j)
{
    struct channel *ch = j->channel; /* once sent, j is the JS thread's */
    j->execute(j);
    if (!channel_send(ch, j))
        j->destroy(j); /* its environment is gone, and its promise with it */
    channel_put(ch);
}

static void *job_thread(void *arg)
{
    struct job_thread *t = arg;
    struct job *j = t->job;
    for (;;) {
        job_run(j);
        pthread_mutex_lock(&threads.lock);
        if (threads.idle_count >= IDLE_MAX) {
            pthread_mutex_unlock(&threads.lock);
            break;
        }
        t->job = NULL;
        t->next = threads.idle;
        threads.idle = t;
        threads.idle_count++;
        while (!t->job)
            pthread_cond_wait(&t->cond, &threads.lock);
        j = t->job;
        pthread_mutex_unlock(&threads.lock);
    }
    pthread_cond_destroy(&t->cond);
    free(t);
    return NULL;
}

static void threads_init(void)
{
    pthread_atfork(NULL, NULL, threads_after_fork);
}

/* Gives j to an idle job thread or a new one; false when no thread could start. */
static bool job_thread_start(struct job *j)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, threads_init);
    pthread_mutex_lock(&threads.lock);
    struct job_thread *t = threads.idle;
    if (t) {
        threads.idle = t->next;
        threads.idle_count--;
        t->job = j;
        pthread_cond_signal(&t->cond);
    }
    pthread_mutex_unlock(&threads.lock);
    if (t)
        return true;
    if (!(t = calloc(1, sizeof(*t))))
        return false;
    t->job = j;
    pthread_cond_init(&t->cond, NULL);
    pthread_attr_t attr;
    pthread_t id;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&id, &attr, job_thread, t);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        return true;
    pthread_cond_destroy(&t->cond);
    free(t);
    return false;
}

/* The environment's job channel, made on the first job; NULL if it cannot be. */
static struct channel *job_channel(napi_env env)
{
    struct instance *inst = NULL;
    if (napi_get_instance_data(env, (void **)&inst) != napi_ok || !inst)
        return NULL;
    if (inst->channel)
        return inst->channel;
    struct channel *ch = calloc(1, sizeof(*ch));
    if (!ch)
        return NULL;
    pthread_mutex_init(&ch->mu, NULL);
    ch->refs = 1;
    if (napi_create_threadsafe_function(env, NULL, NULL, sbx_node_str(env, "sbx.job"), 0, 1, ch,
                                        channel_closed, ch, job_call_js, &ch->tsfn) != napi_ok) {
        pthread_mutex_destroy(&ch->mu);
        free(ch);
        return NULL;
    }
    napi_unref_threadsafe_function(env, ch->tsfn);
    return inst->channel = ch;
}

napi_value sbx_node_job_start(napi_env env, struct job *j, napi_value keep)
{
    napi_value promise;
    j->tag = JOB_TAG;
    if (napi_create_promise(env, &j->deferred, &promise) != napi_ok)
        goto fail;
    struct channel *ch = job_channel(env);
    if (!ch)
        goto fail_promise;
    if (keep)
        napi_create_reference(env, keep, 1, &j->keep);
    pthread_mutex_lock(&ch->mu);
    ch->refs++;
    pthread_mutex_unlock(&ch->mu);
    j->channel = ch;
    if (ch->jobs_in_flight++ == 0)
        napi_ref_threadsafe_function(env, ch->tsfn);
    if (job_thread_start(j))
        return promise;
    if (--ch->jobs_in_flight == 0)
        napi_unref_threadsafe_function(env, ch->tsfn);
    channel_put(ch);
    if (j->keep)
        napi_delete_reference(env, j->keep);
fail_promise:
    napi_reject_deferred(env, j->deferred, sbx_node_error(env, "SANDBOX_HOST_IO", "no thread"));
    j->destroy(j);
    return promise;
fail:
    j->destroy(j);
    return sbx_node_throw(env, SBX_E_NOMEM, "cannot create a promise");
}

/* ---- module -------------------------------------------------------------------------------- */

static void instance_free(napi_env env, void *data, void *hint)
{
    (void)hint;
    struct instance *inst = data;
    if (inst->error_ctor)
        napi_delete_reference(env, inst->error_ctor);
    free(inst);
}

/* init(SandboxError): the class errors are made of. */
static napi_value init_errors(napi_env env, napi_callback_info info)
{
    napi_value argv[1];
    struct instance *inst = NULL;
    if (!sbx_node_args(env, info, 1, argv, NULL))
        return NULL;
    napi_get_instance_data(env, (void **)&inst);
    if (inst->error_ctor)
        napi_delete_reference(env, inst->error_ctor);
    napi_create_reference(env, argv[0], 1, &inst->error_ctor);
    return NULL;
}

/* errorCodes(): [{name, value, message}] for every code the registry names. */
static napi_value error_codes(napi_env env, napi_callback_info info)
{
    (void)info;
    napi_value list;
    napi_create_array(env, &list);
    uint32_t n = 0;
    for (int v = 0; v < 1000; v++) {
        const char *name = sbx_err_name((sbx_err)v);
        sbx_err back;
        if (sbx_err_from_name(name, &back) != 0 || (int)back != v)
            continue; /* not a registered value */
        napi_value o, num;
        napi_create_object(env, &o);
        napi_create_int32(env, v, &num);
        napi_set_named_property(env, o, "name", sbx_node_str(env, name));
        napi_set_named_property(env, o, "value", num);
        napi_set_named_property(env, o, "message", sbx_node_str(env, sbx_err_message((sbx_err)v)));
        napi_set_element(env, list, n++, o);
    }
    return list;
}

static napi_value version(napi_env env, napi_callback_info info)
{
    (void)info;
    return sbx_node_str(env, sbx_version());
}

/* shutdown(): sbx_shutdown(), from the main thread's process 'exit' event (lib/native.js). */
static napi_value shutdown(napi_env env, napi_callback_info info)
{
    (void)info;
    sbx_shutdown();
    napi_value v;
    napi_get_undefined(env, &v);
    return v;
}

/* policyResolve(json): the resolved policy's JSON text (every default filled in). */
static napi_value policy_resolve(napi_env env, napi_callback_info info)
{
    napi_value argv[1];
    if (!sbx_node_args(env, info, 1, argv, NULL))
        return NULL;
    sbx_policy *p = sbx_node_policy(env, argv[0]);
    if (!p)
        return NULL;
    char *json = sbx_policy_to_json(p);
    sbx_policy_destroy(p);
    if (!json)
        return sbx_node_throw(env, SBX_E_NOMEM, "out of memory");
    napi_value v = sbx_node_str(env, json);
    sbx_free(json);
    return v;
}

/* The macro defines exported entry points without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
NAPI_MODULE_INIT()
{
    struct instance *inst = calloc(1, sizeof(*inst));
    if (!inst || napi_set_instance_data(env, inst, instance_free, NULL) != napi_ok) {
        free(inst);
        napi_throw_error(env, NULL, "sbx: out of memory");
        return NULL;
    }
    static const struct sbx_node_fn fns[] = {
        {"init", init_errors},  {"errorCodes", error_codes},       {"version", version},
        {"shutdown", shutdown}, {"policyResolve", policy_resolve},
    };
    sbx_node_define(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
    sbx_node_init_sandbox(env, exports);
    sbx_node_init_wasm(env, exports);
    sbx_node_init_grants(env, exports);
    sbx_node_init_telemetry(env, exports);
    return exports;
}

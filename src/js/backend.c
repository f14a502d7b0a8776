/* js/backend.c: the worker tier's vtable. exec hands the run to a pool thread and waits for it
 * until the deadline; then it tells the engine to stop and waits at most STOP_GRACE_NS more, so
 * the caller is back within timeout + 50 ms even if the engine is stuck inside a native call. */
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "js/module.h"
#include "js/worker.h"
#include "util/alloc.h"

/* How long a stopped engine gets to unwind before its worker is abandoned: most of the
 * 50 ms bound, so a busy host abandons (and later reaps) as few engines as it can. */
#define STOP_GRACE_NS (30u * 1000000u)

/* The value of the policy's env variable name, or NULL. */
static const char *env_of(const struct sbx_policy *p, const char *name)
{
    for (size_t i = 0; i < p->env_count; i++)
        if (strcmp(p->env[i].name, name) == 0)
            return p->env[i].value;
    return NULL;
}

/* The locale the process tier's engine would take from the guest's environment (LC_ALL, then
 * LC_MESSAGES, then LANG, as ICU reads them), as a BCP 47 tag: "de_DE.UTF-8@euro" is "de-DE";
 * "" (en-US) for C, POSIX, none, or a name with other characters. */
static void locale_of(const struct sbx_policy *p, char *out, size_t cap)
{
    static const char *const names[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    const char *v = NULL;
    for (size_t i = 0; i < 3 && !(v && v[0]); i++)
        v = env_of(p, names[i]);
    size_t n = v ? strcspn(v, ".@") : 0;
    out[0] = '\0';
    if (n == 0 || n >= cap || (n == 1 && v[0] == 'C') || (n == 5 && !strncmp(v, "POSIX", 5)))
        return;
    for (size_t i = 0; i < n; i++) {
        char c = v[i] == '_' ? '-' : v[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-')) {
            out[0] = '\0';
            return;
        }
        out[i] = c;
    }
    out[n] = '\0';
}

/* The sandbox's state: its preloads, in the order added. */
struct worker_handle {
    struct sbx__js_script **preloads;
    size_t preload_count;
};

static sbx_err worker_create(const struct sbx_policy *policy, void **tier_handle)
{
    (void)policy;
    *tier_handle = sbx__calloc(1, sizeof(struct worker_handle));
    return *tier_handle ? SBX_OK : SBX_E_NOMEM;
}

static void worker_dispose(void *tier_handle)
{
    struct worker_handle *h = tier_handle;
    if (!h)
        return;
    for (size_t i = 0; i < h->preload_count; i++)
        sbx__js_script_release(h->preloads[i]);
    sbx__free(h->preloads);
    sbx__free(h);
}

/* Makes room for n more preloads. */
static bool preloads_room(struct worker_handle *h, size_t n)
{
    struct sbx__js_script **grown =
        sbx__reallocn(h->preloads, h->preload_count + n, sizeof(*grown));
    if (grown)
        h->preloads = grown;
    return grown != NULL;
}

static sbx_err worker_preload(void *tier_handle, const char *name, const char *source, size_t len)
{
    struct worker_handle *h = tier_handle;
    if (!sbx__js_module_load(NULL, 0))
        return SBX_E_UNAVAILABLE;
    if (!preloads_room(h, 1))
        return SBX_E_NOMEM;
    struct sbx__js_script *s = sbx__js_script_new(name, source, len);
    if (!s)
        return SBX_E_NOMEM;
    h->preloads[h->preload_count++] = s;
    return SBX_OK;
}

static sbx_err worker_preload_from(void *tier_handle, const void *from_handle)
{
    struct worker_handle *h = tier_handle;
    const struct worker_handle *from = from_handle;
    if (!from->preload_count)
        return SBX_OK;
    if (h == from || !preloads_room(h, from->preload_count))
        return h == from ? SBX_E_INVALID_ARGUMENT : SBX_E_NOMEM;
    for (size_t i = 0; i < from->preload_count; i++) {
        sbx__js_script_ref(from->preloads[i]);
        h->preloads[h->preload_count++] = from->preloads[i];
    }
    return SBX_OK;
}

static sbx_err worker_open(struct sbx__run *run)
{
    const sbx_run_input *input = run->input;
    if (!input->code || input->argv || input->module || input->inherit_stdio || input->cwd)
        return SBX_E_INVALID_ARGUMENT;
    struct sbx__js_eval_in in = {
        .code = input->code,
        .code_len = input->code_len,
        .context_json = input->context_json,
        .context_len = input->context_json ? strlen(input->context_json) : 0,
        .memory_bytes = run->policy->memory_bytes,
        .max_output_bytes = run->policy->max_output_bytes,
        .deadline_ns = run->deadline_ns,
        .jit = run->policy->js_jit,
        .on_output = input->on_output,
        .on_output_user = input->on_output_user,
    };
    /* UTC and en-US unless the policy's env says otherwise, as the process tier's guest sees. */
    const char *tz = env_of(run->policy, "TZ");
    snprintf(in.tz, sizeof(in.tz), "%s", tz && strlen(tz) < sizeof(in.tz) ? tz : "");
    locale_of(run->policy, in.locale, sizeof(in.locale));
    const struct worker_handle *h = run->tier_handle;
    if (h) {
        in.preloads = h->preloads;
        in.preload_count = h->preload_count;
    }
    run->state = sbx__js_job_create(&in);
    return run->state ? SBX_OK : SBX_E_NOMEM;
}

/* Moves a finished job's outcome into the caller's result. */
static void take_result(struct sbx__js_eval_out *jo, sbx_result *out)
{
    if (jo->error == SBX_OK) {
        out->ok = true;
        out->error = SBX_OK;
        out->value_json = jo->value_json;
        jo->value_json = NULL;
    } else {
        sbx__result_fail(out, jo->error, "%s", jo->message ? jo->message : "run failed");
        out->limit = jo->limit;
        out->error_stack = jo->stack;
        jo->stack = NULL;
    }
    out->stdout_truncated = jo->out.is_truncated;
    out->stderr_truncated = jo->err.is_truncated;
    out->stdout_data = sbx__buf_take(&jo->out, &out->stdout_len);
    out->stderr_data = sbx__buf_take(&jo->err, &out->stderr_len);
}

static void fail_stopped(int reason, sbx_result *out)
{
    if (reason == SBX_E_ABORTED)
        sbx__result_fail(out, SBX_E_ABORTED,
                         "run was aborted by the host; its engine did not stop at once (a long "
                         "native call?) and is being stopped in the background");
    else
        sbx__result_fail(out, SBX_E_TIMEOUT,
                         "run exceeded its time limit; its engine did not stop at once (a long "
                         "native call?) and is being stopped in the background");
    out->limit = reason == SBX_E_ABORTED ? SBX_LIMIT_NONE : SBX_LIMIT_TIMEOUT;
}

static sbx_err worker_exec(struct sbx__run *run, sbx_result *out)
{
    struct sbx__js_job *job = run->state;
    if (atomic_load(&run->interrupt_reason) == SBX_E_ABORTED)
        sbx__js_job_stop(job, SBX_E_ABORTED);
    sbx_err rc = sbx__js_job_start(job);
    if (rc != SBX_OK) {
        sbx__result_fail(out, rc,
                         "%d abandoned JavaScript runs are still stopping; try again later",
                         sbx__js_abandoned_count());
        return rc;
    }
    bool done = sbx__js_job_wait(job, run->deadline_ns, SBX_OK);
    if (!done) {
        /* Deadline or abort: the engine sees the flag (or the clock) at its next poll and
         * unwinds. The grace runs from the deadline itself, so a late wakeup on a busy host
         * is not paid twice. */
        bool is_abort = sbx__js_job_stop_reason(job) == SBX_E_ABORTED;
        sbx__js_job_stop(job, SBX_E_TIMEOUT);
        uint64_t now = sbx__now_ns();
        uint64_t until = is_abort ? now + STOP_GRACE_NS : run->deadline_ns + STOP_GRACE_NS;
        done = sbx__js_job_wait(job, until > now ? until : now, sbx__js_job_stop_reason(job));
    }
    if (done) {
        take_result(sbx__js_job_out(job), out);
    } else {
        /* close() abandons the job: the worker frees it when the engine stops. */
        fail_stopped(sbx__js_job_stop_reason(job), out);
    }
    return SBX_OK;
}

static void worker_interrupt(struct sbx__run *run)
{
    if (run->state)
        sbx__js_job_stop(run->state, SBX_E_ABORTED);
}

static void worker_close(struct sbx__run *run)
{
    if (run->state)
        sbx__js_job_detach_output(run->state);
    sbx__js_job_release(run->state);
    run->state = NULL;
}

const struct sbx__backend sbx__backend_worker = {
    .name = "worker",
    .create = worker_create,
    .dispose = worker_dispose,
    .preload = worker_preload,
    .preload_from = worker_preload_from,
    .open = worker_open,
    .exec = worker_exec,
    .interrupt = worker_interrupt,
    .close = worker_close,
};

/* plugin/completion.c: host calls that may finish on another thread. A completion is shared by
 * the waiting guest and the completer, reference-counted, so either side may go first: a
 * completer that finishes after the guest gave up (timeout, abort) only releases it. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/backend.h"
#include "plugin/plugin.h"
#include "util/alloc.h"

#define WAIT_SLICE_NS 1000000ull

enum completion_state { WAITING = 0, DONE, FAILED, ABANDONED };

struct sbx_wasm_completion {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    int refs;
    enum completion_state state;
    const wasm_vtype *result_types; /* the function type's, valid while WAITING */
    uint32_t result_count;
    wasm_value results[16];
    struct wasm_memory *mem; /* the caller's memory 0, valid while WAITING */
    char message[200];
};

void sbx__plugin_to_public(wasm_vtype type, wasm_value v, sbx_wasm_value *out)
{
    memset(out, 0, sizeof(*out));
    switch (type) {
    case WASM_I64:
        out->type = SBX_WASM_I64;
        out->of.i64 = (int64_t)v.i64;
        break;
    case WASM_F32:
        out->type = SBX_WASM_F32;
        memcpy(&out->of.f32, &v.f32, sizeof(float));
        break;
    case WASM_F64:
        out->type = SBX_WASM_F64;
        memcpy(&out->of.f64, &v.f64, sizeof(double));
        break;
    default:
        out->type = SBX_WASM_I32;
        out->of.i32 = (int32_t)v.i32;
        break;
    }
}

bool sbx__plugin_from_public(wasm_vtype type, const sbx_wasm_value *v, wasm_value *out)
{
    memset(out, 0, sizeof(*out));
    switch (type) {
    case WASM_I32:
        out->i32 = (uint32_t)v->of.i32;
        return v->type == SBX_WASM_I32;
    case WASM_I64:
        out->i64 = (uint64_t)v->of.i64;
        return v->type == SBX_WASM_I64;
    case WASM_F32:
        memcpy(&out->f32, &v->of.f32, sizeof(float));
        return v->type == SBX_WASM_F32;
    case WASM_F64:
        memcpy(&out->f64, &v->of.f64, sizeof(double));
        return v->type == SBX_WASM_F64;
    default:
        return false;
    }
}

static struct sbx_wasm_completion *completion_new(const struct wasm_functype *t,
                                                  struct wasm_memory *mem)
{
    if (t->result_count > 16)
        return NULL;
    struct sbx_wasm_completion *c = sbx__calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        sbx__free(c);
        return NULL;
    }
    if (pthread_cond_init(&c->cond, NULL) != 0) {
        pthread_mutex_destroy(&c->mu);
        sbx__free(c);
        return NULL;
    }
    c->refs = 2; /* the waiting guest and the completer */
    c->result_types = t->types + t->param_count;
    c->result_count = t->result_count;
    c->mem = mem;
    return c;
}

/* Drops one reference; call with c->mu held. Frees c on the last one. */
static void release_locked(struct sbx_wasm_completion *c)
{
    bool is_last = --c->refs == 0;
    pthread_mutex_unlock(&c->mu);
    if (is_last) {
        pthread_cond_destroy(&c->cond);
        pthread_mutex_destroy(&c->mu);
        sbx__free(c);
    }
}

sbx_err sbx_wasm_completion_finish(sbx_wasm_completion *c, const sbx_wasm_value *results,
                                   size_t result_count)
{
    if (!c)
        return SBX_E_INVALID_ARGUMENT;
    pthread_mutex_lock(&c->mu);
    sbx_err rc = SBX_OK;
    if (c->state != WAITING) {
        rc = SBX_E_ABORTED;
    } else if (result_count != c->result_count || (result_count && !results)) {
        rc = SBX_E_INVALID_ARGUMENT;
    } else {
        for (size_t i = 0; i < result_count && rc == SBX_OK; i++)
            if (!sbx__plugin_from_public(c->result_types[i], &results[i], &c->results[i]))
                rc = SBX_E_INVALID_ARGUMENT;
    }
    if (c->state == WAITING) {
        c->state = rc == SBX_OK ? DONE : FAILED;
        if (rc != SBX_OK)
            snprintf(c->message, sizeof(c->message),
                     "host function completed with results that do not match its signature");
        pthread_cond_broadcast(&c->cond);
    }
    release_locked(c);
    return rc;
}

sbx_err sbx_wasm_completion_fail(sbx_wasm_completion *c, const char *message)
{
    if (!c)
        return SBX_E_INVALID_ARGUMENT;
    pthread_mutex_lock(&c->mu);
    sbx_err rc = SBX_E_ABORTED;
    if (c->state == WAITING) {
        c->state = FAILED;
        snprintf(c->message, sizeof(c->message), "%s", message ? message : "host function failed");
        pthread_cond_broadcast(&c->cond);
        rc = SBX_OK;
    }
    release_locked(c);
    return rc;
}

static sbx_err copy_memory(sbx_wasm_completion *c, uint32_t gaddr, void *host, size_t len,
                           bool is_write)
{
    if (!c || (len && !host))
        return SBX_E_INVALID_ARGUMENT;
    pthread_mutex_lock(&c->mu);
    sbx_err rc = SBX_OK;
    uint8_t *span = NULL;
    if (c->state != WAITING)
        rc = SBX_E_ABORTED;
    else if (!c->mem || len > UINT32_MAX ||
             !(span = sbx__wasm_memory_span(c->mem, gaddr, (uint32_t)len)))
        rc = SBX_E_INVALID_ARGUMENT;
    else if (is_write)
        memcpy(span, host, len);
    else
        memcpy(host, span, len);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

sbx_err sbx_wasm_completion_read(sbx_wasm_completion *c, uint32_t gaddr, void *buf, size_t len)
{
    return copy_memory(c, gaddr, buf, len, false);
}

sbx_err sbx_wasm_completion_write(sbx_wasm_completion *c, uint32_t gaddr, const void *buf,
                                  size_t len)
{
    return copy_memory(c, gaddr, (void *)buf, len, true);
}

void sbx__plugin_wake_pending(struct sbx_wasm_sandbox *sb)
{
    pthread_mutex_lock(&sb->pending_mu);
    struct sbx_wasm_completion *c = sb->pending;
    if (c) {
        pthread_mutex_lock(&c->mu);
        pthread_cond_broadcast(&c->cond);
        pthread_mutex_unlock(&c->mu);
    }
    pthread_mutex_unlock(&sb->pending_mu);
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Waits for the completer; on stop or deadline marks c abandoned. Call with c->mu held. */
static void wait_locked(struct sbx_wasm_sandbox *sb, struct sbx_wasm_completion *c)
{
    while (c->state == WAITING && atomic_load(&sb->stop_reason) == SBX_OK) {
        uint64_t now = sbx__now_ns();
        if (now >= sb->deadline_ns)
            break; /* the watchdog is about to stop the run: do not depend on its timing */
        uint64_t wake = now + WAIT_SLICE_NS * 50;
        if (wake > sb->deadline_ns)
            wake = sb->deadline_ns;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t rel = wake - now;
        ts.tv_nsec += (long)(rel % 1000000000ull);
        ts.tv_sec += (time_t)(rel / 1000000000ull) + ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&c->cond, &c->mu, &ts);
    }
    if (c->state == WAITING)
        c->state = ABANDONED;
}

static void set_pending(struct sbx_wasm_sandbox *sb, struct sbx_wasm_completion *c)
{
    pthread_mutex_lock(&sb->pending_mu);
    sb->pending = c;
    pthread_mutex_unlock(&sb->pending_mu);
}

/* Maps the finished completion to the guest: results, a trap, or an interruption. */
static int deliver(struct sbx_wasm_sandbox *sb, struct sbx__cap_func *f,
                   struct sbx_wasm_completion *c, struct wasm_call *call, wasm_value *results)
{
    switch (c->state) {
    case DONE:
        memcpy(results, c->results, c->result_count * sizeof(wasm_value));
        return 0;
    case FAILED:
        sbx__wasm_call_trap(call, WASM_TRAP_HOST, "%s: %s", f->name, c->message);
        return -1;
    default:
        if (atomic_load(&sb->stop_reason) == SBX_OK)
            atomic_store(&sb->stop_reason, SBX_E_TIMEOUT);
        sbx__wasm_call_trap(call, WASM_TRAP_INTERRUPTED, "interrupted in %s", f->name);
        return -1;
    }
}

int sbx__plugin_call_host(struct sbx__cap_func *f, struct wasm_call *call, const wasm_value *args,
                          wasm_value *results)
{
    struct sbx_wasm_sandbox *sb = f->sb;
    sbx_wasm_value pub[32];
    if (f->type.param_count > 32 || f->type.result_count > 16) {
        sbx__wasm_call_trap(call, WASM_TRAP_HOST, "%s: too many values", f->name);
        return -1;
    }
    for (uint32_t i = 0; i < f->type.param_count; i++)
        sbx__plugin_to_public(f->type.types[i], args[i], &pub[i]);
    struct sbx_wasm_completion *c = completion_new(&f->type, sbx__wasm_call_memory(call));
    if (!c) {
        sbx__wasm_call_trap(call, WASM_TRAP_HOST, "%s: out of memory", f->name);
        return -1;
    }
    set_pending(sb, c);
    bool is_throttled = sb->policy->cpu_percent < 100;
    uint64_t cpu0 = is_throttled ? thread_cpu_ns() : 0;
    atomic_store(&sb->throttle.is_host_call, true);
    f->fn(f->user, pub, f->type.param_count, c);
    pthread_mutex_lock(&c->mu);
    wait_locked(sb, c);
    pthread_mutex_unlock(&c->mu);
    if (is_throttled)
        atomic_fetch_add(&sb->throttle.host_cpu_ns, thread_cpu_ns() - cpu0);
    atomic_store(&sb->throttle.is_host_call, false);
    /* Lock order is pending_mu, then c->mu (see sbx__plugin_wake_pending). */
    set_pending(sb, NULL);
    pthread_mutex_lock(&c->mu);
    int rc = deliver(sb, f, c, call, results);
    release_locked(c);
    return rc;
}

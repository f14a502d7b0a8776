/* serve/api.c: the native API (/v1) and the service endpoints. Every accepted run is tracked
 * until its result: that releases its key's concurrency slot, posts its callback, wakes a
 * waiting request and counts it out of the drain. The queue calls the tracker under its lock,
 * so the work is done by a janitor thread (callbacks must not call back into the queue). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/clock.h"
#include "serve/http.h"

struct tracked {
    char id[SERVE_ID_MAX];
    char key_name[SERVE_KEY_NAME_MAX];
    char *callback_url;
    struct serve_sub *sub;
    int refs;
    bool is_done, is_subscribed, is_queued_for_janitor;
    bool has_waiter; /* a request waits: it finishes the run itself, no janitor needed */
    char *result;
    size_t len;
    pthread_cond_t cond;
    struct tracked *prev, *next; /* the active list */
    struct tracked *done_next;   /* the janitor's list */
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t janitor_cond;
    struct tracked *active, *done;
    pthread_t janitor;
    bool is_started, is_stopping;
} T = {.lock = PTHREAD_MUTEX_INITIALIZER, .janitor_cond = PTHREAD_COND_INITIALIZER};

static void unref(struct tracked *t) /* T.lock held */
{
    if (--t->refs > 0)
        return;
    pthread_cond_destroy(&t->cond);
    free(t->callback_url);
    free(t->result);
    free(t);
}

static void to_janitor(struct tracked *t) /* T.lock held */
{
    if (t->is_queued_for_janitor)
        return;
    t->is_queued_for_janitor = true;
    t->done_next = T.done;
    T.done = t;
    pthread_cond_signal(&T.janitor_cond);
}

/* The queue's RESULT event, under the queue's lock: keep a copy, wake the waiter. */
static void on_result(void *user, const struct serve_event *ev)
{
    struct tracked *t = user;
    if (ev->kind != SERVE_EV_RESULT)
        return;
    char *copy = malloc(ev->len + 1);
    if (copy) {
        memcpy(copy, ev->data, ev->len);
        copy[ev->len] = '\0';
    }
    pthread_mutex_lock(&T.lock);
    t->result = copy;
    t->len = copy ? ev->len : 0;
    t->is_done = true;
    pthread_cond_broadcast(&t->cond);
    if (t->is_subscribed && !t->has_waiter)
        to_janitor(t);
    pthread_mutex_unlock(&T.lock);
}

/* Outside the queue's lock: unsubscribe, release the key's slot, post the callback. */
static void finish(struct serve_server *s, struct tracked *t)
{
    serve_queue_unsubscribe(s->queue, t->sub);
    pthread_mutex_lock(&s->reload_lock);
    serve_keys_release(s->keys, t->key_name);
    pthread_mutex_unlock(&s->reload_lock);
    if (t->callback_url && t->result)
        serve_callbacks_post(s->callbacks, t->callback_url, t->id, t->result, t->len);
    pthread_mutex_lock(&T.lock);
    if (t->prev)
        t->prev->next = t->next;
    else
        T.active = t->next;
    if (t->next)
        t->next->prev = t->prev;
    unref(t);
    pthread_mutex_unlock(&T.lock);
    atomic_fetch_sub(&s->in_flight, 1);
    pthread_mutex_lock(&s->done_lock);
    pthread_cond_broadcast(&s->done_cond);
    pthread_mutex_unlock(&s->done_lock);
}

static void *janitor_main(void *arg)
{
    struct serve_server *s = arg;
    pthread_mutex_lock(&T.lock);
    for (;;) {
        while (!T.done && !T.is_stopping)
            pthread_cond_wait(&T.janitor_cond, &T.lock);
        if (!T.done)
            break;
        struct tracked *t = T.done;
        T.done = t->done_next;
        pthread_mutex_unlock(&T.lock);
        finish(s, t);
        pthread_mutex_lock(&T.lock);
    }
    pthread_mutex_unlock(&T.lock);
    return NULL;
}

static void start_janitor(struct serve_server *s)
{
    pthread_mutex_lock(&T.lock);
    if (!T.is_started)
        T.is_started = pthread_create(&T.janitor, NULL, janitor_main, s) == 0;
    pthread_mutex_unlock(&T.lock);
}

/* The admission phase: drain, the key's rate and concurrency, the queue's bound. */
bool api_submit(struct http_req *req, struct serve_req *sr, char id[SERVE_ID_MAX],
                struct tracked **waiter)
{
    struct serve_server *s = serve_g;
    *waiter = NULL;
    if (atomic_load(&s->is_draining)) {
        http_error(req, 503, 5, "the server is shutting down (draining); retry elsewhere");
        return false;
    }
    const char *idem = http_header(req, "Idempotency-Key");
    size_t idem_len = idem ? strlen(idem) : 0;
    for (size_t i = 0; i < idem_len && idem_len <= 255; i++)
        idem_len = idem[i] < 0x21 || idem[i] > 0x7e ? 256 : idem_len;
    if (idem && (idem_len == 0 || idem_len > 255)) {
        http_error(req, 400, 0, "Idempotency-Key: 1 to 255 printable ASCII characters");
        return false;
    }
    unsigned retry = 1;
    pthread_mutex_lock(&s->reload_lock);
    int limited = serve_keys_admit(s->keys, req->key.name, &retry);
    pthread_mutex_unlock(&s->reload_lock);
    if (limited) {
        http_error(req, 429, retry, "key \"%s\": %s", req->key.name,
                   limited == 1 ? "over its ratePerSecond" : "over its concurrency (runs at once)");
        return false;
    }
    start_janitor(s);
    struct tracked *t = calloc(1, sizeof(*t));
    struct serve_job job = {.payload = sr->payload,
                            .payload_len = sr->payload_len,
                            .flags =
                                (sr->wait ? 0 : SERVE_JOB_EVENTS) | (sr->is_js ? SERVE_JOB_JS : 0),
                            .idempotency_key = idem};
    serve_id_new(job.id);
    snprintf(job.key_name, sizeof(job.key_name), "%s", req->key.name);
    enum serve_q_rc rc = t ? serve_queue_enqueue(s->queue, &job, id) : SERVE_Q_NOMEM;
    if (rc != SERVE_Q_OK) {
        pthread_mutex_lock(&s->reload_lock);
        serve_keys_release(s->keys, req->key.name);
        pthread_mutex_unlock(&s->reload_lock);
        free(t);
        http_error(req, 503, rc == SERVE_Q_FULL ? 1 : 5, "the queue is %s; retry later",
                   rc == SERVE_Q_FULL ? "full (config queueMax, queueMaxBytes)"
                                      : serve_q_rc_name(rc));
        return false;
    }
    atomic_fetch_add(&s->in_flight, 1);
    memcpy(t->id, id, SERVE_ID_MAX);
    memcpy(t->key_name, job.key_name, sizeof(t->key_name));
    t->callback_url = sr->callback_url;
    sr->callback_url = NULL;
    t->refs = sr->wait ? 2 : 1;
    pthread_cond_init(&t->cond, NULL);
    pthread_mutex_lock(&T.lock);
    t->next = T.active;
    if (T.active)
        T.active->prev = t;
    T.active = t;
    pthread_mutex_unlock(&T.lock);
    struct serve_sub *sub = NULL;
    serve_queue_subscribe(s->queue, id, 0, true, on_result, t, &sub);
    pthread_mutex_lock(&T.lock);
    t->sub = sub;
    t->is_subscribed = true;
    t->has_waiter = sr->wait;
    if (t->is_done && !t->has_waiter)
        to_janitor(t);
    pthread_mutex_unlock(&T.lock);
    serve_pool_pump(s->pool);
    *waiter = sr->wait ? t : NULL;
    return true;
}

char *api_wait(struct tracked *t, size_t *len)
{
    struct timespec until = serve_deadline(CLOCK_REALTIME, serve_g->cfg.wait_max_ms);
    pthread_mutex_lock(&T.lock);
    while (!t->is_done && pthread_cond_timedwait(&t->cond, &T.lock, &until) == 0)
        ;
    bool is_done = t->is_done;
    char *copy = is_done && t->result ? strndup(t->result, t->len) : NULL;
    *len = copy ? t->len : 0;
    t->has_waiter = false; /* gone: a result that comes later goes to the janitor */
    pthread_mutex_unlock(&T.lock);
    if (is_done)
        finish(serve_g, t); /* here, saving the janitor's wake-up */
    return copy;
}

void api_tracked_release(struct tracked *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&T.lock);
    unref(t);
    pthread_mutex_unlock(&T.lock);
}

/* Cancels every run still tracked (the drain's end): queued ones end at once, running ones are
 * aborted by their runners; each records SANDBOX_ABORTED. */
void api_abort_all(void)
{
    char(*ids)[SERVE_ID_MAX] = NULL;
    size_t n = 0, cap = 0;
    pthread_mutex_lock(&T.lock);
    for (struct tracked *t = T.active; t; t = t->next) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            void *grown = realloc(ids, cap * SERVE_ID_MAX);
            if (!grown)
                break;
            ids = grown;
        }
        memcpy(ids[n++], t->id, SERVE_ID_MAX);
    }
    pthread_mutex_unlock(&T.lock);
    for (size_t i = 0; i < n; i++) {
        char *json = serve_error_result(SBX_E_ABORTED, "the server shut down (SIGTERM) before "
                                                       "this run started");
        json_t *o = json ? json_loads(json, 0, NULL) : NULL;
        json_t *with_id = json_pack("{s:s}", "id", ids[i]);
        json_object_update(with_id, o);
        char *text = json_dumps(with_id, JSON_COMPACT | JSON_PRESERVE_ORDER);
        enum serve_q_status found;
        serve_queue_cancel(serve_g->queue, ids[i], text ? text : "{}", &found);
        free(text);
        free(json);
        json_decref(o);
        json_decref(with_id);
    }
    free(ids);
}

void api_stop_janitor(void)
{
    pthread_mutex_lock(&T.lock);
    T.is_stopping = true;
    bool was = T.is_started;
    pthread_cond_broadcast(&T.janitor_cond);
    pthread_mutex_unlock(&T.lock);
    if (was)
        pthread_join(T.janitor, NULL);
}

/* ---- handlers ------------------------------------------------------------------------------ */

static void answer_submitted(struct http_req *req, struct serve_req *sr)
{
    char id[SERVE_ID_MAX];
    struct tracked *t;
    if (!api_submit(req, sr, id, &t))
        return;
    req->queued_ns = http_now_ns();
    if (t) {
        size_t len;
        char *result = api_wait(t, &len);
        req->result_ns = http_now_ns();
        api_tracked_release(t);
        if (result) {
            http_respond(req, 200, "application/json", result, len, 0);
            return;
        }
    }
    /* Accepted: "queued" (wait=false), or where a run waited past waitMaxMs is now. */
    enum serve_q_status st = SERVE_Q_QUEUED;
    char *ignored = NULL;
    size_t n;
    if (t)
        serve_queue_get(serve_g->queue, id, &st, NULL, &ignored, &n);
    free(ignored);
    http_json(req, 202, json_pack("{s:s,s:s}", "id", id, "status", serve_q_status_name(st)));
}

static void post(struct http_req *req, bool is_batch)
{
    json_t *body = http_body_json(req);
    if (!body)
        return;
    struct serve_req sr;
    char err[1024];
    int status =
        is_batch ? serve_request_batch(&serve_g->cfg, &req->key, body, false, &sr, err, sizeof(err))
                 : serve_request_run(&serve_g->cfg, &req->key, body, false, &sr, err, sizeof(err));
    json_decref(body);
    if (status)
        http_error(req, (unsigned)status, 0, "%s", err);
    else
        answer_submitted(req, &sr);
    serve_req_free(&sr);
}

void api_post_run(struct http_req *req)
{
    post(req, false);
}

void api_post_batch(struct http_req *req)
{
    post(req, true);
}

/* Looks the {id} up for req's key: 404 for a bad id, an unknown run or another key's run. */
static bool find_run(struct http_req *req, enum serve_q_status *st, char **result, size_t *len)
{
    char owner[SERVE_KEY_NAME_MAX] = "";
    *result = NULL;
    enum serve_q_rc rc = serve_id_valid(req->id)
                             ? serve_queue_get(serve_g->queue, req->id, st, owner, result, len)
                             : SERVE_Q_NOT_FOUND;
    if (rc == SERVE_Q_UNAVAILABLE || rc == SERVE_Q_NOMEM) {
        http_error(req, 503, 5, "the queue is %s; retry later", serve_q_rc_name(rc));
        return false;
    }
    if (rc != SERVE_Q_OK || strcmp(owner, req->key.name) != 0) {
        free(*result);
        *result = NULL;
        http_error(req, 404, 0, "no run %s (ids are kept for config resultTtlSeconds)", req->id);
        return false;
    }
    return true;
}

void api_get_run(struct http_req *req)
{
    enum serve_q_status st;
    char *result;
    size_t len;
    if (!find_run(req, &st, &result, &len))
        return;
    size_t cap = len + 128;
    char *body = malloc(cap);
    if (!body) {
        free(result);
        http_error(req, 503, 1, "out of memory");
        return;
    }
    int n = snprintf(body, cap, "{\"id\":\"%s\",\"status\":\"%s\"%s", req->id,
                     serve_q_status_name(st), result ? ",\"result\":" : "}");
    if (result) {
        memcpy(body + n, result, len);
        body[n + (int)len] = '}';
        n += (int)len + 1;
    }
    free(result);
    http_respond(req, 200, "application/json", body, (size_t)n, 0);
}

void api_delete_run(struct http_req *req)
{
    enum serve_q_status st;
    char *result;
    size_t len;
    if (!find_run(req, &st, &result, &len))
        return;
    free(result);
    char *json = serve_error_result(SBX_E_ABORTED, "run was cancelled (DELETE) before it started");
    json_t *o = json ? json_loads(json, 0, NULL) : NULL, *r = json_pack("{s:s}", "id", req->id);
    json_object_update(r, o);
    char *text = json_dumps(r, JSON_COMPACT | JSON_PRESERVE_ORDER);
    enum serve_q_status found = st;
    enum serve_q_rc rc = serve_queue_cancel(serve_g->queue, req->id, text ? text : "{}", &found);
    free(text);
    free(json);
    json_decref(o);
    json_decref(r);
    if (rc == SERVE_Q_UNAVAILABLE) {
        http_error(req, 503, 5, "the queue is unavailable; retry later");
        return;
    }
    http_json(req, 200,
              json_pack("{s:s,s:s,s:b}", "id", req->id, "status", serve_q_status_name(found),
                        "cancelled", found != SERVE_Q_DONE));
}

void api_healthz(struct http_req *req)
{
    http_json(req, 200, json_pack("{s:s}", "status", "ok"));
}

void api_readyz(struct http_req *req)
{
    struct serve_pool_stats ps;
    struct serve_q_stats qs;
    serve_pool_stats(serve_g->pool, &ps);
    serve_queue_stats(serve_g->queue, &qs);
    const char *why = atomic_load(&serve_g->is_draining) ? "draining"
                      : !qs.is_healthy                   ? "the queue is unreachable"
                      : ps.alive < ps.runners            ? "runners are starting"
                                                         : NULL;
    json_t *v = json_pack("{s:s,s:I,s:I}", "status", why ? "unavailable" : "ready", "runnersAlive",
                          (json_int_t)ps.alive, "queueDepth", (json_int_t)qs.queued);
    if (why)
        json_object_set_new(v, "reason", json_string(why));
    http_json(req, why ? 503 : 200, v);
}

void api_metrics(struct http_req *req)
{
    size_t len = 0;
    char *text = serve_metrics_render(&len);
    if (!text) {
        http_error(req, 503, 1, "out of memory");
        return;
    }
    http_respond(req, 200, "text/plain; version=0.0.4; charset=utf-8", text, len, 0);
}

static json_t *csv_array(const char *csv)
{
    json_t *a = json_array();
    for (const char *s = csv; *s;) {
        size_t n = strcspn(s, ",");
        json_array_append_new(a, json_stringn(s, n));
        s += n + (s[n] == ',');
    }
    return a;
}

void api_info(struct http_req *req)
{
    struct serve_pool_stats ps;
    serve_pool_stats(serve_g->pool, &ps);
    http_json(req, 200,
              json_pack("{s:s,s:o,s:o,s:s,s:I,s:I}", "version", sbx_version(), "tiers",
                        csv_array(ps.tiers), "enforced", csv_array(ps.enforced), "queue",
                        serve_g->queue->ops->name, "runners", (json_int_t)serve_g->cfg.runners,
                        "runnerSlots", (json_int_t)serve_g->cfg.runner_slots));
}

void api_openapi(struct http_req *req)
{
    char *doc = strdup(serve_openapi_json);
    http_respond(req, 200, "application/json", doc, doc ? strlen(doc) : 0, 0);
}

/* serve/sse.c: GET /v1/runs/{id}/events, Server-Sent Events: `stdout` and `stderr` chunks as
 * the guest writes them (data: a JSON string; invalid UTF-8 becomes U+FFFD, a sequence split
 * between two chunks is joined), then one `result` event, then the stream ends. Each event has
 * an id (its sequence number): a client that reconnects with Last-Event-ID resumes after it.
 * A run whose chunks were not kept (it waited, or is done) gives its output from the result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/http.h"

#define KEEPALIVE_S 15

struct sse {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    char *buf; /* SSE text not yet sent: bounded by the run's event log (its output caps) */
    size_t len, off, cap;
    bool is_done, has_chunks;
    uint64_t after_seq;
    char tail[2][4]; /* an incomplete UTF-8 sequence per stream, joined to the next chunk */
    size_t tail_len[2];
    struct serve_sub *sub;
};

static void append(struct sse *e, const char *s, size_t n)
{
    if (e->len + n > e->cap) {
        size_t cap = e->cap ? e->cap : 4096;
        while (cap < e->len + n)
            cap *= 2;
        char *grown = realloc(e->buf, cap);
        if (!grown)
            return; /* the client loses this event; the result event says what the run did */
        e->buf = grown;
        e->cap = cap;
    }
    memcpy(e->buf + e->len, s, n);
    e->len += n;
}

/* Length of a valid UTF-8 sequence starting at s (n bytes left): 1-4, 0 if invalid, -1 if it
 * is valid so far but cut off. */
static int utf8_seq(const unsigned char *s, size_t n)
{
    int len = s[0] < 0x80             ? 1
              : (s[0] & 0xe0) == 0xc0 ? 2
              : (s[0] & 0xf0) == 0xe0 ? 3
              : (s[0] & 0xf8) == 0xf0 ? 4
                                      : 0;
    if (len == 0 || (len == 2 && s[0] < 0xc2) || (len == 4 && s[0] > 0xf4))
        return 0;
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= n)
            return -1;
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    }
    if (len == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
        return 0; /* overlong, surrogate */
    if (len == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
        return 0;
    return len;
}

/* Appends `event: kind` with data as a JSON string of valid UTF-8. */
static void chunk_event(struct sse *e, int stream, uint64_t seq, const char *data, size_t len)
{
    size_t total = e->tail_len[stream] + len;
    unsigned char *in = malloc(total + 1), *clean = malloc(total * 3 + 1);
    if (!in || !clean) {
        free(in);
        free(clean);
        return;
    }
    memcpy(in, e->tail[stream], e->tail_len[stream]);
    memcpy(in + e->tail_len[stream], data, len);
    size_t o = 0, i = 0;
    e->tail_len[stream] = 0;
    while (i < total) {
        int k = utf8_seq(in + i, total - i);
        if (k < 0 && total - i <= 3) { /* cut off at the end: wait for the rest */
            memcpy(e->tail[stream], in + i, total - i);
            e->tail_len[stream] = total - i;
            break;
        }
        if (k <= 0) {
            memcpy(clean + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
            continue;
        }
        memcpy(clean + o, in + i, (size_t)k);
        o += (size_t)k;
        i += (size_t)k;
    }
    json_t *str = json_stringn((const char *)clean, o);
    char *text = str ? json_dumps(str, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    if (text) {
        char head[96];
        int n = snprintf(head, sizeof(head), "id: %llu\nevent: %s\ndata: ", (unsigned long long)seq,
                         stream ? "stderr" : "stdout");
        append(e, head, (size_t)n);
        append(e, text, strlen(text));
        append(e, "\n\n", 2);
    }
    free(text);
    json_decref(str);
    free(in);
    free(clean);
}

/* A run whose chunks this stream never saw: its output, from the result, first. */
static void output_from_result(struct sse *e, const char *json, size_t len, uint64_t seq)
{
    json_t *r = json_loadb(json, len, 0, NULL);
    for (int s = 0; s < 2; s++) {
        json_t *out = json_object_get(r, s ? "stderr" : "stdout");
        if (json_string_length(out) > 0)
            chunk_event(e, s, seq, json_string_value(out), json_string_length(out));
    }
    json_decref(r);
}

static void on_event(void *user, const struct serve_event *ev)
{
    struct sse *e = user;
    pthread_mutex_lock(&e->lock);
    if (ev->kind == SERVE_EV_STDOUT || ev->kind == SERVE_EV_STDERR) {
        e->has_chunks = true;
        chunk_event(e, ev->kind == SERVE_EV_STDERR, ev->seq, ev->data, ev->len);
    } else if (ev->kind == SERVE_EV_RESULT) {
        if (!e->has_chunks && e->after_seq == 0)
            output_from_result(e, ev->data, ev->len, ev->seq);
        char head[64];
        int n = snprintf(head, sizeof(head),
                         "id: %llu\nevent: result\ndata: ", (unsigned long long)ev->seq);
        append(e, head, (size_t)n);
        append(e, ev->data, ev->len); /* compact JSON: one line */
        append(e, "\n\n", 2);
        e->is_done = true;
    }
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct sse *e = cls;
    pthread_mutex_lock(&e->lock);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += KEEPALIVE_S;
    while (e->off == e->len && !e->is_done) {
        if (pthread_cond_timedwait(&e->cond, &e->lock, &until) != 0) {
            append(e, ": keep-alive\n\n", 14); /* also finds a client that has gone */
            break;
        }
    }
    ssize_t n = MHD_CONTENT_READER_END_OF_STREAM;
    if (e->off < e->len) {
        size_t k = e->len - e->off < max ? e->len - e->off : max;
        memcpy(buf, e->buf + e->off, k);
        e->off += k;
        if (e->off == e->len)
            e->off = e->len = 0;
        n = (ssize_t)k;
    }
    pthread_mutex_unlock(&e->lock);
    return n;
}

static void release(void *cls)
{
    struct sse *e = cls;
    serve_queue_unsubscribe(serve_g->queue, e->sub);
    pthread_cond_destroy(&e->cond);
    pthread_mutex_destroy(&e->lock);
    free(e->buf);
    free(e);
}

void api_events(struct http_req *req)
{
    enum serve_q_status st;
    char owner[SERVE_KEY_NAME_MAX] = "", *result = NULL;
    size_t len;
    enum serve_q_rc rc = serve_id_valid(req->id)
                             ? serve_queue_get(serve_g->queue, req->id, &st, owner, &result, &len)
                             : SERVE_Q_NOT_FOUND;
    if (rc == SERVE_Q_UNAVAILABLE || rc == SERVE_Q_NOMEM) {
        http_error(req, 503, 5, "the queue is %s; retry later", serve_q_rc_name(rc));
        return;
    }
    if (rc != SERVE_Q_OK || strcmp(owner, req->key.name) != 0) {
        free(result);
        http_error(req, 404, 0, "no run %s", req->id);
        return;
    }
    free(result);
    struct sse *e = calloc(1, sizeof(*e));
    if (!e) {
        http_error(req, 503, 1, "out of memory");
        return;
    }
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cond, NULL);
    const char *last = http_header(req, "Last-Event-ID");
    e->after_seq = last ? strtoull(last, NULL, 10) : 0;
    rc = serve_queue_subscribe(serve_g->queue, req->id, e->after_seq, false, on_event, e, &e->sub);
    if (rc != SERVE_Q_OK) {
        release(e);
        if (rc == SERVE_Q_NOT_FOUND)
            http_error(req, 404, 0, "no run %s", req->id);
        else
            http_error(req, 503, 5, "the queue is %s; retry later", serve_q_rc_name(rc));
        return;
    }
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, reader, e, release);
    if (!r) {
        release(e);
        http_error(req, 503, 1, "out of memory");
        return;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    http_respond_raw(req, 200, r);
}

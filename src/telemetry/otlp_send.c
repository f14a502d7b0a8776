/* telemetry/otlp_send.c: the export's HTTP side. The signals' POSTs run at once on one curl
 * multi handle, each bounded by its signal's timeout, retries included, whatever the collector
 * does (never answers, drips its reply). Retried, per the OTLP/HTTP specification: 429, 502, 503,
 * 504 and a connection dropped without a reply, after Retry-After when the collector gives one,
 * else an exponential backoff with jitter; never another status. */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "telemetry/curl.h"
#include "telemetry/otlp.h"
#include "util/alloc.h"

#define REPLY_LIMIT      (64u << 10)
#define BACKOFF_FIRST_MS 500
#define BACKOFF_MAX_MS   8000
#define MAX_ATTEMPTS     8
#define POLL_SLICE_MS    50 /* curl's own timers run from multi_perform */
#define USER_AGENT       "OTel-OTLP-Exporter-C/" SBX_VERSION " sbx/" SBX_VERSION

enum state { WAITING, RUNNING, DONE };

struct attempt {
    struct sbx__otlp_request *req;
    CURL *curl;
    struct curl_slist *hdrs;
    struct sbx__buf reply;
    uint64_t deadline_ns, next_ns;
    enum state state;
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static size_t keep_reply(char *ptr, size_t size, size_t nmemb, void *user)
{
    sbx__buf_append(user, ptr, size * nmemb); /* past the limit: dropped, not an error */
    return size * nmemb;
}

static bool setup(const struct sbx__curl *cu, struct attempt *a)
{
    const struct sbx__otlp_signal *sig = a->req->sig;
    a->hdrs = cu->slist_append(NULL, sig->protocol == SBX__OTLP_JSON
                                         ? "Content-Type: application/json"
                                         : "Content-Type: application/x-protobuf");
    struct curl_slist *more = a->hdrs ? cu->slist_append(a->hdrs, "Expect:") : NULL;
    for (size_t i = 0; more && i < sig->header_count; i++)
        more = cu->slist_append(a->hdrs, sig->headers[i]);
    a->curl = more ? cu->easy_init() : NULL;
    if (!a->curl)
        return false;
    cu->easy_setopt(a->curl, CURLOPT_URL, sig->url);
    cu->easy_setopt(a->curl, CURLOPT_PROTOCOLS_STR, "http,https");
    cu->easy_setopt(a->curl, CURLOPT_NOSIGNAL, 1L); /* hooks' threads must not see SIGALRM */
    cu->easy_setopt(a->curl, CURLOPT_USERAGENT, USER_AGENT);
    cu->easy_setopt(a->curl, CURLOPT_HTTPHEADER, a->hdrs);
    cu->easy_setopt(a->curl, CURLOPT_POSTFIELDS, a->req->body);
    cu->easy_setopt(a->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)a->req->len);
    cu->easy_setopt(a->curl, CURLOPT_WRITEFUNCTION, keep_reply);
    cu->easy_setopt(a->curl, CURLOPT_WRITEDATA, &a->reply);
    cu->easy_setopt(a->curl, CURLOPT_PRIVATE, a);
    return true;
}

/* The next wait: Retry-After if given, else BACKOFF_FIRST_MS doubling per attempt up to
 * BACKOFF_MAX_MS, of which a random half is taken off (jitter, so clients spread out). */
static uint64_t retry_delay_ms(int attempts, long retry_after_s)
{
    if (retry_after_s > 0)
        return (uint64_t)retry_after_s * 1000u;
    uint64_t ms = BACKOFF_FIRST_MS;
    for (int i = 1; i < attempts && ms < BACKOFF_MAX_MS; i++)
        ms *= 2;
    ms = ms < BACKOFF_MAX_MS ? ms : BACKOFF_MAX_MS;
    uint32_t r = 0;
    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
        r = (uint32_t)mono_ns();
    return ms / 2 + r % (ms / 2 + 1);
}

static bool is_retryable(CURLcode rc, long status)
{
    if (rc == CURLE_OK)
        return status == 429 || status == 502 || status == 503 || status == 504;
    return rc == CURLE_GOT_NOTHING || rc == CURLE_SEND_ERROR || rc == CURLE_RECV_ERROR;
}

static void describe(const struct sbx__curl *cu, struct attempt *a, CURLcode rc, long status)
{
    struct sbx__otlp_request *q = a->req;
    int n = snprintf(q->message, sizeof(q->message), "POST %s: ", q->sig->url);
    size_t at = n > 0 && (size_t)n < sizeof(q->message) ? (size_t)n : sizeof(q->message) - 1;
    char *m = q->message + at;
    size_t cap = sizeof(q->message) - at;
    if (rc == CURLE_OPERATION_TIMEDOUT)
        snprintf(m, cap, "no complete reply within the %ld ms timeout", q->sig->timeout_ms);
    else if (rc != CURLE_OK)
        snprintf(m, cap, "%s", cu->easy_strerror(rc));
    else
        snprintf(m, cap, "HTTP %ld", status);
    if (q->attempts > 1) {
        size_t len = strlen(q->message);
        snprintf(q->message + len, sizeof(q->message) - len, " (attempt %d)", q->attempts);
    }
}

/* Control characters of a collector's message become '?': it is printed on one line. */
static void partial_success(struct attempt *a)
{
    struct sbx__otlp_request *q = a->req;
    char text[160];
    const char *body = a->reply.data ? a->reply.data : "";
    bool has = q->sig->protocol == SBX__OTLP_JSON
                   ? sbx__otlp_json_partial(body, a->reply.len, &q->rejected, text, sizeof(text))
                   : sbx__otlp_proto_partial((const uint8_t *)body, a->reply.len, &q->rejected,
                                             text, sizeof(text));
    if (!has)
        return;
    for (char *p = text; *p; p++)
        *p = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
    snprintf(q->message, sizeof(q->message), "collector rejected %llu %s%s%s",
             (unsigned long long)q->rejected, q->sig->name[0] == 't' ? "spans" : "data points",
             text[0] ? ": " : "", text);
}

static void finish(const struct sbx__curl *cu, struct attempt *a, CURLcode rc, uint64_t now)
{
    long status = 0;
    curl_off_t retry_after = 0;
    cu->easy_getinfo(a->curl, CURLINFO_RESPONSE_CODE, &status);
    cu->easy_getinfo(a->curl, CURLINFO_RETRY_AFTER, &retry_after);
    struct sbx__otlp_request *q = a->req;
    a->state = DONE;
    if (rc == CURLE_OK && status >= 200 && status <= 299) {
        q->result = SBX_OK;
        q->message[0] = '\0';
        partial_success(a);
        return;
    }
    describe(cu, a, rc, status);
    q->result = a->reply.is_oom ? SBX_E_NOMEM : SBX_E_IO;
    q->is_permanent = rc == CURLE_OK && !is_retryable(rc, status);
    if (!is_retryable(rc, status) || q->attempts >= MAX_ATTEMPTS)
        return;
    uint64_t delay_ns = retry_delay_ms(q->attempts, (long)retry_after) * 1000000u;
    if (now + delay_ns >= a->deadline_ns) {
        size_t len = strlen(q->message);
        snprintf(q->message + len, sizeof(q->message) - len, "; no time left to retry%s",
                 retry_after > 0 ? " after Retry-After" : "");
        return;
    }
    a->state = WAITING;
    a->next_ns = now + delay_ns;
}

static void start_due(const struct sbx__curl *cu, CURLM *multi, struct attempt *a, size_t n,
                      uint64_t now)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i].state != WAITING || a[i].next_ns > now)
            continue;
        sbx__buf_free(&a[i].reply);
        sbx__buf_init(&a[i].reply, REPLY_LIMIT);
        long left_ms = (long)((a[i].deadline_ns - now) / 1000000u);
        cu->easy_setopt(a[i].curl, CURLOPT_TIMEOUT_MS, left_ms > 0 ? left_ms : 1L);
        a[i].req->attempts++;
        a[i].state = RUNNING;
        if (cu->multi_add_handle(multi, a[i].curl) != CURLM_OK) {
            a[i].state = DONE;
            a[i].req->result = SBX_E_NOMEM;
        }
    }
}

/* Milliseconds to wait for: the next retry that is due, or a slice while a POST runs. */
static int poll_ms(const struct attempt *a, size_t n, uint64_t now, bool *all_done)
{
    uint64_t wait = 1000;
    *all_done = true;
    for (size_t i = 0; i < n; i++) {
        if (a[i].state == RUNNING && wait > POLL_SLICE_MS)
            wait = POLL_SLICE_MS;
        if (a[i].state == WAITING) {
            uint64_t ms = a[i].next_ns > now ? (a[i].next_ns - now) / 1000000u + 1 : 0;
            wait = ms < wait ? ms : wait;
        }
        *all_done = *all_done && a[i].state == DONE;
    }
    return (int)wait;
}

static void run(const struct sbx__curl *cu, CURLM *multi, struct attempt *a, size_t n)
{
    for (;;) {
        uint64_t now = mono_ns();
        start_due(cu, multi, a, n, now);
        int running, queued;
        cu->multi_perform(multi, &running);
        CURLMsg *msg;
        while ((msg = cu->multi_info_read(multi, &queued)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            struct attempt *at = NULL;
            cu->easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&at);
            CURLcode rc = msg->data.result;
            cu->multi_remove_handle(multi, msg->easy_handle);
            finish(cu, at, rc, mono_ns());
        }
        bool all_done;
        int wait = poll_ms(a, n, mono_ns(), &all_done);
        if (all_done)
            return;
        cu->multi_poll(multi, NULL, 0, wait, NULL);
    }
}

sbx_err sbx__otlp_send(struct sbx__otlp_request *reqs, size_t n)
{
    const struct sbx__curl *cu = sbx__curl_get(); /* loaded by create */
    struct attempt a[2] = {0};
    if (n == 0 || n > 2)
        return n == 0 ? SBX_OK : SBX_E_INVALID_ARGUMENT;
    CURLM *multi = cu->multi_init();
    uint64_t now = mono_ns();
    for (size_t i = 0; i < n; i++) {
        a[i].req = &reqs[i];
        sbx__buf_init(&a[i].reply, REPLY_LIMIT);
        a[i].deadline_ns = now + (uint64_t)reqs[i].sig->timeout_ms * 1000000u;
        a[i].state = multi && setup(cu, &a[i]) ? WAITING : DONE;
        reqs[i].result = a[i].state == DONE ? SBX_E_NOMEM : SBX_E_IO;
    }
    if (multi)
        run(cu, multi, a, n);
    sbx_err e = SBX_OK;
    for (size_t i = 0; i < n; i++) {
        if (a[i].curl)
            cu->easy_cleanup(a[i].curl);
        cu->slist_free_all(a[i].hdrs);
        sbx__buf_free(&a[i].reply);
        e = e != SBX_OK ? e : reqs[i].result;
    }
    if (multi)
        cu->multi_cleanup(multi);
    return e;
}

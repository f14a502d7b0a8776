/* serve/callback.c: callbackUrl delivery. A run's final result is POSTed there, up to 3 tries
 * with backoff (0.5 s, then 1 s), each bounded by callbackTimeoutMs. The name is resolved once
 * and every address checked (ssrf.c), and curl is made to connect to that checked address
 * (CURLOPT_CONNECT_TO): no second lookup, no DNS rebinding, no redirect, no proxy. */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "serve/serve.h"

#define CALLBACK_THREADS 4
#define CALLBACK_TRIES   3

struct delivery {
    char *url, *id, *body;
    size_t len;
    struct delivery *next;
};

struct serve_callbacks {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct delivery *head, *tail;
    uint64_t queued, max;
    bool is_closing;
    bool allow_private;
    long timeout_ms;
    pthread_t threads[CALLBACK_THREADS];
    unsigned started;
};

static size_t discard(char *p, size_t size, size_t n, void *user)
{
    (void)p;
    (void)user;
    return size * n;
}

/* One POST to the checked address; the HTTP status, or 0 with why set. */
static long post_once(struct serve_callbacks *cb, const struct delivery *d, const char **why)
{
    char to[400];
    bool is_refused;
    if ((*why = serve_callback_resolve(d->url, cb->allow_private, to, sizeof(to), &is_refused)) !=
        NULL)
        return is_refused ? -1 : 0; /* refused: no retry */
    CURL *c = curl_easy_init();
    struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
    char idh[64];
    snprintf(idh, sizeof(idh), "X-Sbx-Run-Id: %s", d->id);
    hdr = curl_slist_append(hdr, idh);
    struct curl_slist *connect_to = curl_slist_append(NULL, to);
    long status = 0;
    if (c && hdr && connect_to) {
        curl_easy_setopt(c, CURLOPT_URL, d->url);
        curl_easy_setopt(c, CURLOPT_CONNECT_TO, connect_to);
        curl_easy_setopt(c, CURLOPT_PROXY, ""); /* never through an environment's proxy */
        curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, cb->timeout_ms);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
        curl_easy_setopt(c, CURLOPT_USERAGENT, "sbx-serve/" SBX_VERSION);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, d->body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)d->len);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
        CURLcode rc = curl_easy_perform(c);
        if (rc == CURLE_OK)
            curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        else
            *why = curl_easy_strerror(rc);
    }
    curl_slist_free_all(hdr);
    curl_slist_free_all(connect_to);
    curl_easy_cleanup(c);
    return status;
}

static void deliver(struct serve_callbacks *cb, const struct delivery *d)
{
    const char *why = NULL;
    long status = 0;
    for (int i = 0; i < CALLBACK_TRIES; i++) {
        if (i > 0)
            usleep(500000u << (i - 1)); /* 0.5 s, 1 s */
        status = post_once(cb, d, &why);
        if ((status >= 200 && status < 300) || status < 0)
            break;
    }
    if (status >= 200 && status < 300) {
        serve_metrics_count("sbx_serve_callbacks_sent_total", 1);
        return;
    }
    serve_metrics_count(
        status < 0 ? "sbx_serve_callbacks_refused_total" : "sbx_serve_callbacks_failed_total", 1);
    fprintf(stderr, "sbx serve: callback of run %s to %s %s: %s\n", d->id, d->url,
            status < 0 ? "refused" : "failed after 3 tries",
            why ? why : (status ? "an HTTP status other than 2xx" : "no answer"));
}

static void *worker(void *arg)
{
    struct serve_callbacks *cb = arg;
    for (;;) {
        pthread_mutex_lock(&cb->lock);
        while (!cb->head && !cb->is_closing)
            pthread_cond_wait(&cb->cond, &cb->lock);
        struct delivery *d = cb->head;
        if (d) {
            cb->head = d->next;
            if (!cb->head)
                cb->tail = NULL;
            cb->queued--;
        }
        pthread_mutex_unlock(&cb->lock);
        if (!d)
            return NULL;
        deliver(cb, d);
        free(d->url);
        free(d->id);
        free(d->body);
        free(d);
    }
}

struct serve_callbacks *serve_callbacks_create(const struct serve_config *cfg)
{
    struct serve_callbacks *cb = calloc(1, sizeof(*cb));
    if (!cb)
        return NULL;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    pthread_mutex_init(&cb->lock, NULL);
    pthread_cond_init(&cb->cond, NULL);
    cb->max = cfg->callback_queue_max;
    cb->allow_private = cfg->callback_allow_private;
    cb->timeout_ms = (long)cfg->callback_timeout_ms;
    for (unsigned i = 0; i < CALLBACK_THREADS; i++)
        cb->started += pthread_create(&cb->threads[cb->started], NULL, worker, cb) == 0;
    return cb;
}

bool serve_callbacks_post(struct serve_callbacks *cb, const char *url, const char *id,
                          const char *result, size_t len)
{
    struct delivery *d = calloc(1, sizeof(*d));
    if (d) {
        d->url = strdup(url);
        d->id = strdup(id);
        d->body = malloc(len + 1);
    }
    if (!d || !d->url || !d->id || !d->body) {
        if (d) {
            free(d->url);
            free(d->id);
            free(d->body);
        }
        free(d);
        return false;
    }
    memcpy(d->body, result, len);
    d->body[len] = '\0';
    d->len = len;
    pthread_mutex_lock(&cb->lock);
    bool ok = cb->queued < cb->max && !cb->is_closing;
    if (ok) {
        if (cb->tail)
            cb->tail->next = d;
        else
            cb->head = d;
        cb->tail = d;
        cb->queued++;
        pthread_cond_signal(&cb->cond);
    }
    pthread_mutex_unlock(&cb->lock);
    if (!ok) {
        serve_metrics_count("sbx_serve_callbacks_dropped_total", 1);
        free(d->url);
        free(d->id);
        free(d->body);
        free(d);
    }
    return ok;
}

void serve_callbacks_destroy(struct serve_callbacks *cb)
{
    if (!cb)
        return;
    pthread_mutex_lock(&cb->lock);
    cb->is_closing = true; /* what is queued is still sent */
    pthread_cond_broadcast(&cb->cond);
    pthread_mutex_unlock(&cb->lock);
    for (unsigned i = 0; i < cb->started; i++)
        pthread_join(cb->threads[i], NULL);
    pthread_cond_destroy(&cb->cond);
    pthread_mutex_destroy(&cb->lock);
    free(cb);
    curl_global_cleanup();
}

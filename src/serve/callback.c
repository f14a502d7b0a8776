/* serve/callback.c: callbackUrl delivery. A run's final result is POSTed there, up to 3 tries
 * with backoff (0.5 s, then 1 s), each bounded by callbackTimeoutMs. It is an SSRF vector, so
 * the name is resolved once, every address it gives is checked (loopback, private, link-local,
 * CGNAT, metadata, multicast and unspecified refused unless callbackAllowPrivate), and curl is
 * made to connect to that checked address (CURLOPT_CONNECT_TO): no second lookup, no DNS
 * rebinding, no redirect, no proxy. */
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

static bool v4_allowed(uint32_t a, bool allow_private)
{
    uint8_t b0 = (uint8_t)(a >> 24), b1 = (uint8_t)(a >> 16);
    if (b0 >= 224) /* multicast, reserved, broadcast: never a callback */
        return false;
    if (allow_private)
        return true;
    return !(b0 == 0 || b0 == 10 || b0 == 127 || (b0 == 169 && b1 == 254) ||
             (b0 == 172 && (b1 & 0xf0) == 16) || (b0 == 192 && b1 == 168) ||
             (b0 == 100 && (b1 & 0xc0) == 64) ||              /* CGNAT 100.64/10 */
             (b0 == 192 && b1 == 0 && (uint8_t)(a >> 8) == 0) || /* 192.0.0/24 */
             (b0 == 198 && (b1 & 0xfe) == 18));               /* benchmarking 198.18/15 */
}

bool serve_addr_allowed(const struct sockaddr *sa, bool allow_private)
{
    if (sa->sa_family == AF_INET)
        return v4_allowed(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr), allow_private);
    if (sa->sa_family != AF_INET6)
        return false;
    const uint8_t *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};
    static const uint8_t zero[12] = {0};
    if (memcmp(b, mapped, 12) == 0 || memcmp(b, nat64, 12) == 0 || memcmp(b, zero, 12) == 0) {
        /* IPv4 inside IPv6 (mapped, NAT64, the old compatible form, and :: and ::1 with it) */
        uint32_t v4 = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15];
        if (memcmp(b, zero, 12) == 0 && (v4 == 0 || v4 == 1))
            return allow_private && v4 == 1; /* :: never; ::1 is loopback */
        return v4_allowed(v4, allow_private);
    }
    if (b[0] == 0xff) /* multicast */
        return false;
    if (allow_private)
        return true;
    return !((b[0] & 0xfe) == 0xfc ||                      /* unique local fc00::/7 */
             (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) ||    /* link-local fe80::/10 */
             (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0));     /* site-local fec0::/10 */
}

/* Splits url into host and port with libcurl's parser; false if it is not http(s). */
static bool url_host(const char *url, char *host, size_t hcap, char *port, size_t pcap,
                     const char **why)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *h = NULL, *p = NULL;
    bool ok = u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_HOST, &h, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_PORT, &p, CURLU_DEFAULT_PORT) == CURLUE_OK;
    *why = ok ? NULL : "not a valid URL";
    if (ok && strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) {
        ok = false;
        *why = "must be an http or https URL";
    }
    if (ok) {
        size_t n = strlen(h);
        if (n >= 2 && h[0] == '[') /* an IPv6 literal without its brackets */
            snprintf(host, hcap, "%.*s", (int)(n - 2), h + 1);
        else
            snprintf(host, hcap, "%s", h);
        snprintf(port, pcap, "%s", p);
    }
    curl_free(scheme);
    curl_free(h);
    curl_free(p);
    curl_url_cleanup(u);
    return ok;
}

const char *serve_callback_check_url(const char *url, bool allow_private)
{
    char host[300], port[16];
    const char *why;
    if (!url_host(url, host, sizeof(host), port, sizeof(port), &why))
        return why;
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, NULL, &hints, &res) != 0)
        return NULL; /* a name: checked when it is resolved, at delivery */
    bool ok = serve_addr_allowed(res->ai_addr, allow_private);
    freeaddrinfo(res);
    return ok ? NULL : "refused: a loopback, private, link-local or metadata address";
}

/* Resolves once and checks every address; the first one goes to to (for CONNECT_TO). */
static const char *resolve_checked(const char *host, const char *port, bool allow_private,
                                   char *to, size_t cap)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, port, &hints, &res) != 0)
        return "the host name does not resolve";
    const char *why = NULL;
    for (struct addrinfo *a = res; a && !why; a = a->ai_next) {
        if (!serve_addr_allowed(a->ai_addr, allow_private))
            why = "refused: the name resolves to a loopback, private, link-local or metadata "
                  "address";
    }
    char ip[INET6_ADDRSTRLEN] = "";
    bool is_v6 = res->ai_family == AF_INET6;
    const void *addr = is_v6 ? (const void *)&((struct sockaddr_in6 *)res->ai_addr)->sin6_addr
                             : (const void *)&((struct sockaddr_in *)res->ai_addr)->sin_addr;
    inet_ntop(res->ai_family, addr, ip, sizeof(ip));
    snprintf(to, cap, is_v6 ? "::[%s]:%s" : "::%s:%s", ip, port);
    freeaddrinfo(res);
    return why;
}

static size_t discard(char *p, size_t size, size_t n, void *user)
{
    (void)p;
    (void)user;
    return size * n;
}

/* One POST to the checked address; the HTTP status, or 0 with why set. */
static long post_once(struct serve_callbacks *cb, const struct delivery *d, const char **why)
{
    char host[300], port[16], to[400];
    if (!url_host(d->url, host, sizeof(host), port, sizeof(port), why))
        return 0;
    if ((*why = resolve_checked(host, port, cb->allow_private, to, sizeof(to))) != NULL)
        return -1; /* refused: no retry */
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
    serve_metrics_count(status < 0 ? "sbx_serve_callbacks_refused_total"
                                   : "sbx_serve_callbacks_failed_total",
                        1);
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

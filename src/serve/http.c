/* serve/http.c: libmicrohttpd, one thread per connection (a handler may wait for its run).
 * A request passes named phases: read (the body counted as it comes: 413 past bodyLimitBytes,
 * 408 past bodyTimeoutMs), authenticate (401 before any body is read), route, handle; its
 * memory is freed once, when MHD says it completed. A reaper thread closes connections whose
 * headers or body stall past their deadline (slow clients hold no thread forever). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "serve/clock.h"
#include "serve/http.h"

static const struct http_route routes[] = {
    {"POST", "/v1/runs", api_post_run, true, false, true},
    {"GET", "/v1/runs/{id}", api_get_run, true, false, false},
    {"DELETE", "/v1/runs/{id}", api_delete_run, true, false, false},
    {"GET", "/v1/runs/{id}/events", api_events, true, false, false},
    {"POST", "/v1/batches", api_post_batch, true, false, true},
    {"GET", "/v1/info", api_info, false, false, false},
    {"GET", "/v1/openapi.json", api_openapi, false, false, false},
    {"GET", "/healthz", api_healthz, false, false, false},
    {"GET", "/readyz", api_readyz, false, false, false},
    {"GET", "/metrics", api_metrics, false, false, false},
    {"GET", "/api/v2/runtimes", piston_runtimes, true, true, false},
    {"POST", "/api/v2/execute", piston_execute, true, true, true},
};
static const struct http_route not_found = {"", "other", NULL, false, false, false};

/* ---- the slow-client reaper ---------------------------------------------------------------- */

enum phase { PH_HEADERS, PH_BODY, PH_HANDLING };

struct conn_entry {
    struct MHD_Connection *conn;
    int fd;
    enum phase phase;
    uint64_t deadline_ns;
    struct conn_entry *next;
};

static struct {
    pthread_mutex_t lock;
    struct conn_entry *list;
    pthread_t thread;
    bool is_running, is_stopping;
    pthread_cond_t cond;
    uint64_t header_ns, body_ns;
} reaper = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

uint64_t http_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void set_phase(struct MHD_Connection *conn, enum phase ph)
{
    uint64_t deadline = ph == PH_HEADERS ? http_now_ns() + reaper.header_ns
                        : ph == PH_BODY  ? http_now_ns() + reaper.body_ns
                                         : 0;
    pthread_mutex_lock(&reaper.lock);
    for (struct conn_entry *e = reaper.list; e; e = e->next) {
        if (e->conn == conn) {
            e->phase = ph;
            e->deadline_ns = deadline;
            break;
        }
    }
    pthread_mutex_unlock(&reaper.lock);
}

/* MHD calls this when a connection opens and when it closes (before its socket is closed, so
 * the reaper never shuts a reused descriptor down: both hold the lock). */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    (void)cls;
    (void)socket_context;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct conn_entry *e = calloc(1, sizeof(*e));
        if (!e || !ci) {
            free(e);
            return;
        }
        *e = (struct conn_entry){.conn = conn,
                                 .fd = ci->connect_fd,
                                 .phase = PH_HEADERS,
                                 .deadline_ns = http_now_ns() + reaper.header_ns};
        pthread_mutex_lock(&reaper.lock);
        e->next = reaper.list;
        reaper.list = e;
        pthread_mutex_unlock(&reaper.lock);
        return;
    }
    pthread_mutex_lock(&reaper.lock);
    for (struct conn_entry **pp = &reaper.list; *pp; pp = &(*pp)->next) {
        if ((*pp)->conn == conn) {
            struct conn_entry *dead = *pp;
            *pp = dead->next;
            free(dead);
            break;
        }
    }
    pthread_mutex_unlock(&reaper.lock);
}

static void *reaper_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&reaper.lock);
    while (!reaper.is_stopping) {
        uint64_t now = http_now_ns();
        for (struct conn_entry *e = reaper.list; e; e = e->next) {
            if (e->deadline_ns && now > e->deadline_ns) {
                shutdown(e->fd, SHUT_RDWR); /* its thread sees EOF and closes it */
                e->deadline_ns = 0;
                serve_metrics_count(e->phase == PH_HEADERS ? "sbx_serve_header_timeouts_total"
                                                           : "sbx_serve_body_timeouts_total",
                                    1);
            }
        }
        struct timespec t = serve_deadline(CLOCK_REALTIME, 200);
        pthread_cond_timedwait(&reaper.cond, &reaper.lock, &t);
    }
    pthread_mutex_unlock(&reaper.lock);
    return NULL;
}

/* ---- answering ----------------------------------------------------------------------------- */

/* Server-Timing (W3C): where a request's time went in this server, in ms: body (headers in to
 * body in), submit (parse, check, enqueue, hand to a runner), wait (to the result: the runner
 * hop and the run, whose own time is the result's durationMs; a run may start before submit's
 * clock read, so it lies within submit + wait), respond (to this answer). Only the stages the
 * request reached. Always on: four clock reads a request. */
static void add_server_timing(const struct http_req *req, struct MHD_Response *r)
{
    static const char *const names[] = {"body", "submit", "wait", "respond"};
    uint64_t t[] = {req->start_ns, req->body_ns, req->queued_ns, req->result_ns, http_now_ns()};
    char text[160];
    size_t len = 0;
    for (size_t i = 0; i < 4 && t[i] && t[i + 1]; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s;dur=%.3f", len ? ", " : "",
                                names[i], (double)(t[i + 1] - t[i]) / 1e6);
    if (len)
        MHD_add_response_header(r, "Server-Timing", text);
}

void http_respond(struct http_req *req, unsigned status, const char *ctype, char *body, size_t len,
                  unsigned retry_after)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, body ? body : (char *)"", body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(body);
        return;
    }
    MHD_add_response_header(r, "Content-Type", ctype);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    add_server_timing(req, r);
    if (retry_after) {
        char s[16];
        snprintf(s, sizeof(s), "%u", retry_after);
        MHD_add_response_header(r, "Retry-After", s);
    }
    http_respond_raw(req, status, r);
}

void http_respond_raw(struct http_req *req, unsigned status, struct MHD_Response *resp)
{
    if (req->is_answered) {
        MHD_destroy_response(resp);
        return;
    }
    req->is_answered = true;
    MHD_queue_response(req->conn, status, resp);
    MHD_destroy_response(resp);
    serve_metrics_request(req->route->pattern, status);
}

void http_json(struct http_req *req, unsigned status, json_t *v)
{
    char *s = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(v);
    if (!s) {
        http_respond(req, 500, "application/json", strdup("{\"error\":{\"status\":500}}"), 24, 0);
        return;
    }
    http_respond(req, status, "application/json", s, strlen(s), 0);
}

void http_error(struct http_req *req, unsigned status, unsigned retry_after, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    json_t *v = req->route->is_piston
                    ? json_pack("{s:s}", "message", msg)
                    : json_pack("{s:{s:i,s:s}}", "error", "status", (int)status, "message", msg);
    char *s = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(v);
    http_respond(req, status, "application/json", s, s ? strlen(s) : 0, retry_after);
}

const char *http_header(struct http_req *req, const char *name)
{
    return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

json_t *http_body_json(struct http_req *req)
{
    char err[300];
    json_t *v = schema_load(req->body ? req->body : "", req->body_len, err, sizeof(err));
    if (!v)
        http_error(req, 400, 0, "request: %s", err);
    return v;
}

/* ---- phases -------------------------------------------------------------------------------- */

static bool match(const char *pattern, const char *url, char id[64])
{
    for (;;) {
        if (strncmp(pattern, "{id}", 4) == 0) {
            size_t n = strcspn(url, "/");
            if (n == 0 || n >= 64)
                return false;
            memcpy(id, url, n);
            id[n] = '\0';
            pattern += 4;
            url += n;
            continue;
        }
        if (*pattern != *url)
            return false;
        if (!*pattern)
            return true;
        pattern++;
        url++;
    }
}

/* Routes req; 404 or 405 when nothing matches (the latter with the path known). */
static unsigned route(struct http_req *req, const char *method, const char *url)
{
    bool path_known = false;
    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
        if (match(routes[i].pattern, url, req->id)) {
            path_known = true;
            if (strcmp(routes[i].method, method) == 0) {
                req->route = &routes[i];
                return 0;
            }
        }
    }
    req->route = &not_found;
    return path_known ? 405 : 404;
}

/* The key of the request's token (Authorization: Bearer, or X-Api-Key); 401 without one. */
static bool authenticate(struct serve_server *s, struct http_req *req)
{
    const char *token = http_header(req, "X-Api-Key");
    const char *auth = http_header(req, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!token && auth && strncasecmp(auth, "Bearer ", 7) == 0)
        token = auth + 7;
    pthread_mutex_lock(&s->reload_lock);
    bool ok = serve_keys_find(s->keys, token, &req->key);
    pthread_mutex_unlock(&s->reload_lock);
    if (!ok)
        http_error(req, 401, 0, "%s",
                   token ? "unknown API key"
                         : "an API key is required "
                           "(Authorization: Bearer TOKEN or X-Api-Key)");
    return ok;
}

/* The first call: headers are in. Routing and authentication happen before any body. */
static enum MHD_Result begin(struct serve_server *s, struct MHD_Connection *conn,
                             const char *method, const char *url, void **con_cls)
{
    struct http_req *req = calloc(1, sizeof(*req));
    if (!req)
        return MHD_NO;
    req->conn = conn;
    req->start_ns = http_now_ns();
    *con_cls = req;
    atomic_fetch_add(&s->requests, 1); /* until MHD says it completed (answer sent) */
    set_phase(conn, PH_BODY);
    unsigned status = route(req, method, url);
    if (status) {
        http_error(req, status, 0, "%s %s: %s", method, url,
                   status == 404 ? "no such endpoint" : "method not allowed here");
        return MHD_YES;
    }
    if (req->route->needs_key && s->cfg.role == SERVE_ROLE_WORKER) {
        http_error(req, 404, 0,
                   "%s %s: this node only runs jobs (role worker); send requests "
                   "to an API node",
                   method, url);
        return MHD_YES;
    }
    if (req->route->needs_key && !authenticate(s, req))
        return MHD_YES;
    const char *cl = http_header(req, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl && strtoull(cl, NULL, 10) > s->cfg.body_limit_bytes)
        http_error(req, 413, 0,
                   "request body of %s bytes is over the limit of %llu "
                   "(config bodyLimitBytes)",
                   cl, (unsigned long long)s->cfg.body_limit_bytes);
    return MHD_YES;
}

/* A piece of the body: kept up to the limit, then counted and dropped. MHD sends nothing while
 * a body is still arriving, so an oversized or late body is answered once it has ended (413,
 * 408); one that never ends is cut by the reaper at bodyTimeoutMs. */
static void take_body(struct serve_server *s, struct http_req *req, const char *data, size_t n)
{
    if (req->is_answered || req->is_too_large || req->is_late)
        return;
    if (http_now_ns() - req->start_ns > reaper.body_ns) {
        req->is_late = true;
        return;
    }
    if (req->body_len + n > s->cfg.body_limit_bytes) {
        req->is_too_large = true;
        return;
    }
    if (req->body_len + n + 1 > req->body_cap) {
        size_t cap = req->body_cap ? req->body_cap : 4096;
        while (cap < req->body_len + n + 1)
            cap *= 2;
        char *grown = realloc(req->body, cap);
        if (!grown) {
            req->is_too_large = true;
            return;
        }
        req->body = grown;
        req->body_cap = cap;
    }
    memcpy(req->body + req->body_len, data, n);
    req->body_len += n;
    req->body[req->body_len] = '\0';
}

/* The body has ended: the phase answers for its limits, else the handler runs. */
static void handle(struct serve_server *s, struct http_req *req)
{
    if (req->is_late)
        http_error(req, 408, 0,
                   "the request body did not arrive within %llu ms "
                   "(config bodyTimeoutMs)",
                   (unsigned long long)(reaper.body_ns / 1000000));
    else if (req->is_too_large)
        http_error(req, 413, 0,
                   "request body is over the limit of %llu bytes "
                   "(config bodyLimitBytes)",
                   (unsigned long long)s->cfg.body_limit_bytes);
    else
        req->route->handler(req);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    (void)version;
    struct serve_server *s = cls;
    struct http_req *req = *con_cls;
    if (!req)
        return begin(s, conn, method, url, con_cls);
    if (*upload_data_size) {
        take_body(s, req, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (!req->is_answered) {
        set_phase(conn, PH_HANDLING);
        req->body_ns = http_now_ns();
        handle(s, req);
    }
    if (!req->is_answered)
        http_error(req, 500, 0, "the handler gave no answer");
    return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    struct serve_server *s = cls;
    struct http_req *req = *con_cls;
    if (req) {
        free(req->body);
        free(req);
        atomic_fetch_sub(&s->requests, 1);
    }
    *con_cls = NULL;
    set_phase(conn, PH_HEADERS); /* keep-alive: the next request's headers are due */
}

/* ---- start and stop ----------------------------------------------------------------------- */

static bool is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    return sa->sa_family == AF_INET6 &&
           IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/* Resolves HOST:PORT ([v6]:PORT); without keys a non-loopback host becomes the loopback. */
static bool listen_addr(struct serve_server *s, struct sockaddr_storage *ss, char *err,
                        size_t errlen)
{
    char host[256], port[16];
    const char *l = s->cfg.listen, *colon = strrchr(l, ':');
    bool is_v6 = l[0] == '[';
    if (!colon || (is_v6 && colon[-1] != ']') || !colon[1]) {
        snprintf(err, errlen, "listen: \"%s\" is not HOST:PORT", l);
        return false;
    }
    snprintf(host, sizeof(host), "%.*s", (int)(colon - l) - (is_v6 ? 2 : 0), l + (is_v6 ? 1 : 0));
    snprintf(port, sizeof(port), "%s", colon + 1);
    struct addrinfo hints = {.ai_flags = AI_PASSIVE | AI_NUMERICSERV, .ai_socktype = SOCK_STREAM},
                    *res;
    int rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "listen: %s: %s", l, gai_strerror(rc));
        return false;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    if (serve_keys_anonymous(s->keys) && !is_loopback((struct sockaddr *)ss)) {
        if (ss->ss_family == AF_INET6)
            ((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_loopback;
        else
            ((struct sockaddr_in *)ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        fprintf(stderr,
                "sbx serve: no API key is configured: listening on the loopback only, "
                "not %s\n",
                l);
    }
    return true;
}

bool serve_http_start(struct serve_server *s, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    if (!listen_addr(s, &ss, err, errlen))
        return false;
    reaper.header_ns = s->cfg.header_timeout_ms * 1000000ull;
    reaper.body_ns = s->cfg.body_timeout_ms * 1000000ull;
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    s->httpd = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)s->cfg.max_connections,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)((s->cfg.header_timeout_ms + 999) / 1000),
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024, MHD_OPTION_THREAD_STACK_SIZE,
        (size_t)512 * 1024, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, s, MHD_OPTION_LISTENING_ADDRESS_REUSE, 1,
        MHD_OPTION_END);
    if (!s->httpd) {
        snprintf(err, errlen, "cannot listen on %s: %s", s->cfg.listen, strerror(errno));
        return false;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->httpd, MHD_DAEMON_INFO_BIND_PORT);
    char ip[INET6_ADDRSTRLEN] = "";
    const void *a = ss.ss_family == AF_INET6
                        ? (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
                        : (const void *)&((struct sockaddr_in *)&ss)->sin_addr;
    inet_ntop(ss.ss_family, a, ip, sizeof(ip));
    fprintf(stderr, "sbx serve: listening on %s%s%s:%u\n", ss.ss_family == AF_INET6 ? "[" : "", ip,
            ss.ss_family == AF_INET6 ? "]" : "", di ? di->port : 0);
    reaper.is_stopping = false;
    reaper.is_running = pthread_create(&reaper.thread, NULL, reaper_main, NULL) == 0;
    return true;
}

void serve_http_stop(struct serve_server *s)
{
    if (s->httpd) {
        /* No new connection; the requests under way (a waiting client whose run has just
         * ended, an events stream's last event) get up to 5 s to send their answers. */
        MHD_quiesce_daemon(s->httpd);
        for (int i = 0; i < 500 && atomic_load(&s->requests) > 0; i++)
            usleep(10000);
        MHD_stop_daemon(s->httpd);
    }
    s->httpd = NULL;
    if (reaper.is_running) {
        pthread_mutex_lock(&reaper.lock);
        reaper.is_stopping = true;
        pthread_cond_broadcast(&reaper.cond);
        pthread_mutex_unlock(&reaper.lock);
        pthread_join(reaper.thread, NULL);
        reaper.is_running = false;
    }
}

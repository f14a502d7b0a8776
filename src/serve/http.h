/* serve/http.h: a request as the handlers see it, and how they answer. http.c runs the phases
 * (read, authenticate, route) and frees a request's memory in one place when it ends. */
#ifndef SBX_SERVE_HTTP_H
#define SBX_SERVE_HTTP_H

#include <microhttpd.h>

#include "serve/serve.h"

struct http_req;
typedef void (*http_handler)(struct http_req *req);

struct http_route {
    const char *method;
    const char *pattern; /* "/v1/runs/{id}": {id} is one path segment */
    http_handler handler;
    bool needs_key; /* every key-protected route, anonymous mode included */
    bool is_piston; /* errors as Piston's {"message"} */
    bool takes_body;
};

struct http_req {
    struct MHD_Connection *conn;
    const struct http_route *route;
    char id[64]; /* the {id} segment */
    struct serve_key key;
    char *body;
    size_t body_len, body_cap;
    bool is_too_large, is_late, is_answered;
    /* Stage times (CLOCK_MONOTONIC), 0 = not reached; the answer's Server-Timing header gives
     * them (bench-serve's load.c splits its latencies with it): headers in, body in, run
     * queued (and sent to a runner when one had a free slot), result in. */
    uint64_t start_ns, body_ns, queued_ns, result_ns;
};

/* Answers with body (taken: freed by the response) and its content type. */
void http_respond(struct http_req *req, unsigned status, const char *ctype, char *body, size_t len,
                  unsigned retry_after);
/* Answers {"error": {"status", "message"}} (or Piston's {"message"} on its routes). */
void http_error(struct http_req *req, unsigned status, unsigned retry_after, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Answers a JSON value (taken). */
void http_json(struct http_req *req, unsigned status, json_t *v);
/* Answers with a response the handler built (SSE); the status is recorded for metrics. */
void http_respond_raw(struct http_req *req, unsigned status, struct MHD_Response *resp);
/* Parses the body as JSON; answers 400 with line and column and returns NULL when it is not. */
json_t *http_body_json(struct http_req *req);
const char *http_header(struct http_req *req, const char *name);
/* CLOCK_MONOTONIC in ns: the clock of http_req's stage times. */
uint64_t http_now_ns(void);

/* api.c, sse.c, piston.c */
void api_post_run(struct http_req *req);
void api_post_batch(struct http_req *req);
void api_get_run(struct http_req *req);
void api_delete_run(struct http_req *req);
void api_events(struct http_req *req);
void api_healthz(struct http_req *req);
void api_readyz(struct http_req *req);
void api_metrics(struct http_req *req);
void api_info(struct http_req *req);
void api_openapi(struct http_req *req);
void piston_runtimes(struct http_req *req);
void piston_execute(struct http_req *req);

/* api.c: accepts a validated request for req's key: limits, queue, tracking; answers 429/503
 * itself and returns false then. On success *id gets the run id. */
struct tracked;
bool api_submit(struct http_req *req, struct serve_req *sr, char id[SERVE_ID_MAX],
                struct tracked **waiter);
/* Waits for a submitted run's result up to wait_max_ms: the result JSON (malloc'd) or NULL. */
char *api_wait(struct tracked *t, size_t *len);
void api_tracked_release(struct tracked *t);
/* Cancels every run accepted and not done (the drain's end); each records SANDBOX_ABORTED. */
void api_abort_all(void);
/* Stops the tracker's thread once nothing is in flight (shutdown). */
void api_stop_janitor(void);
/* The OpenAPI document (openapi.c). */
extern const char serve_openapi_json[];

#endif

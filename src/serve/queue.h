/* serve/queue.h: the one interface between sbx serve's API side (enqueue, cancel, get, subscribe)
 * and its worker side (claim, heartbeat, publish, complete). The embedded queue (queue_mem.c)
 * and the Redis Streams queue (#25) implement it; nothing else in serve knows which is in use.
 * Invariants: a claim is fenced by its attempt number (a stale claimant's publish and complete
 * are refused); every bound is finite (jobs, bytes, results, events per run). */
#ifndef SBX_SERVE_QUEUE_H
#define SBX_SERVE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Run ids: 26 characters of Crockford base32 (128 random bits), plus NUL. */
#define SERVE_ID_LEN       26
#define SERVE_ID_MAX       (SERVE_ID_LEN + 1)
#define SERVE_KEY_NAME_MAX 64 /* an API key's name, NUL included */

/* What every call returns. */
enum serve_q_rc {
    SERVE_Q_OK = 0,
    SERVE_Q_FULL,        /* enqueue: queueMax or queueMaxBytes reached (HTTP 503 + Retry-After) */
    SERVE_Q_UNAVAILABLE, /* the backend is unreachable (Redis down); nothing was changed */
    SERVE_Q_NOT_FOUND,   /* no such run, or its result expired */
    SERVE_Q_STALE,       /* the claim is no longer current: taken over, expired or completed */
    SERVE_Q_CANCELLED,   /* heartbeat: the run was cancelled; abort it, then complete */
    SERVE_Q_EMPTY,       /* claim: nothing to claim within the timeout */
    SERVE_Q_NOMEM,
    SERVE_Q_CLOSED, /* the queue is shutting down: claim returns it at once */
};

enum serve_q_status {
    SERVE_Q_QUEUED = 1,
    SERVE_Q_RUNNING = 2,
    SERVE_Q_DONE = 3,
};

/* Flags of a job. */
#define SERVE_JOB_EVENTS (1u << 0) /* keep the run's events for subscribers (an async run) */
#define SERVE_JOB_JS     (1u << 1) /* lane SERVE_LANE_JS, else SERVE_LANE_JAIL (below) */

/* Lanes: a worker claims only jobs of the lanes it has room for, oldest first among them, so a
 * job waits queued (and says so) until a runner of its kind is free. JavaScript (the worker
 * tier) runs in its runner's address space, which grows; jail runs (process, wasm) fork their
 * runner, at a cost that grows with it: they get runners of their own. */
enum serve_lane { SERVE_LANE_JAIL = 0, SERVE_LANE_JS = 1, SERVE_LANES = 2 };
#define SERVE_LANE_BIT(lane) (1u << (lane))
#define SERVE_LANES_ALL      (SERVE_LANE_BIT(SERVE_LANE_JAIL) | SERVE_LANE_BIT(SERVE_LANE_JS))
static inline enum serve_lane serve_job_lane(uint32_t flags)
{
    return flags & SERVE_JOB_JS ? SERVE_LANE_JS : SERVE_LANE_JAIL;
}

/* What enqueue stores. The payload is opaque to the queue (the runner's request JSON). */
struct serve_job {
    char id[SERVE_ID_MAX];             /* proposed by the caller (serve_id_new) */
    char key_name[SERVE_KEY_NAME_MAX]; /* the API key that submitted it ("" = anonymous) */
    const char *idempotency_key;       /* NULL, or a client's Idempotency-Key (#25) */
    const char *payload;
    size_t payload_len;
    uint32_t flags; /* SERVE_JOB_* */
};

/* A claimed job. Owned by the claimant; release with serve_queue_claim_free(). */
struct serve_claim {
    char id[SERVE_ID_MAX];
    char key_name[SERVE_KEY_NAME_MAX];
    uint32_t attempt; /* 1 for the first claim; +1 at each takeover. The fence. */
    uint32_t flags;
    char *payload; /* NUL-terminated; owned by the claim */
    size_t payload_len;
    char ref[64]; /* the backend's reference to the claim (Redis: the stream entry id) */
};

/* Event kinds of a run, in the order a run produces them. */
enum serve_ev_kind {
    SERVE_EV_STATUS = 1, /* data: "running" (attempt says which) */
    SERVE_EV_STDOUT = 2, /* data: the chunk's bytes */
    SERVE_EV_STDERR = 3,
    SERVE_EV_RESULT = 4, /* data: the final result JSON; always the last event */
};

struct serve_event {
    uint64_t seq; /* 1, 2, ... per run; the result event's seq is the last */
    uint32_t attempt;
    enum serve_ev_kind kind;
    const char *data; /* valid only during the callback */
    size_t len;
};

/* Called for each event of a subscription, on a thread of the queue's (possibly with its lock
 * held): copy what you need and signal; never call back into the queue. A subscription
 * receives nothing after the result event, and nothing once unsubscribe returned. */
typedef void (*serve_event_fn)(void *user, const struct serve_event *ev);

/* Called once when a running claim is cancelled (DELETE /v1/runs/{id}, drain), or when it went
 * stale (another worker took it over past the visibility timeout: stop, nothing it stores will
 * count); same rules. */
typedef void (*serve_cancel_fn)(void *user, const struct serve_claim *claim);

struct serve_q_stats {
    uint64_t queued;       /* jobs waiting, every lane */
    uint64_t queued_bytes; /* their payloads */
    uint64_t running;      /* claimed, not completed */
    uint64_t results;      /* done runs still retained */
    uint64_t result_bytes;
    uint64_t takeovers; /* claims taken over from an expired claimant (#25) */
    uint64_t claims;    /* claims made (every attempt) */
    uint64_t retries;   /* attempts after the first (a takeover that ran the job again) */
    uint64_t failed;    /* runs failed with every attempt lost (maxAttempts) */
    bool is_healthy;    /* the backend answers (readyz) */
};

/* Bounds and timings of a queue; every field has a finite default (serve_queue_config_init). */
struct serve_queue_config {
    uint64_t queue_max;         /* jobs waiting (config "queueMax", 10000) */
    uint64_t queue_max_bytes;   /* their payload bytes ("queueMaxBytes", 256 MiB) */
    uint64_t result_ttl_ms;     /* how long a done run's result is kept ("resultTtlSeconds") */
    uint64_t results_max;       /* retained results; the oldest goes first ("resultsMax") */
    uint64_t results_max_bytes; /* their bytes ("resultsMaxBytes") */
    uint64_t events_max_bytes;  /* event bytes kept per running run, beyond: dropped */
    uint64_t visibility_ms;     /* a claim not heartbeated for this long may be taken over */
    uint32_t max_attempts;      /* claims per job before it fails (embedded: 1) */
};

struct serve_queue;
struct serve_sub;

/* The contract each backend implements. Every function is thread-safe. */
struct serve_queue_ops {
    const char *name; /* "memory", "redis" */
    /* Stores job as queued. The id actually used (job->id, or the run an identical
     * idempotency key made earlier) goes to id_out. FULL, UNAVAILABLE, NOMEM. */
    enum serve_q_rc (*enqueue)(struct serve_queue *q, const struct serve_job *job,
                               char id_out[SERVE_ID_MAX]);
    /* Takes the oldest queued job of the lanes in lanes (SERVE_LANE_BIT()s), or one whose
     * claim expired (a takeover, attempt + 1), for consumer, waiting up to timeout_ms (0: do
     * not wait). on_cancel (may be NULL) is called if the run is cancelled while claimed. OK,
     * EMPTY, CLOSED, UNAVAILABLE, NOMEM. */
    enum serve_q_rc (*claim)(struct serve_queue *q, const char *consumer, unsigned lanes,
                             int timeout_ms, serve_cancel_fn on_cancel, void *cancel_user,
                             struct serve_claim *out);
    /* Keeps the claim alive for another visibility period. OK, STALE (stop: another consumer
     * owns the run now), CANCELLED (abort the run, then complete it), UNAVAILABLE. The Redis
     * queue also renews every claim it handed out by itself (a thread, each visibility/3)
     * until complete(): a claimant that lives keeps its claims, one that dies or freezes loses
     * them. Every claim must end with complete(). */
    enum serve_q_rc (*heartbeat)(struct serve_queue *q, const struct serve_claim *c);
    /* Appends an event (STATUS, STDOUT, STDERR) to the run's log for subscribers; dropped
     * without error when the job has no SERVE_JOB_EVENTS or its log is full. OK, STALE. */
    enum serve_q_rc (*publish)(struct serve_queue *q, const struct serve_claim *c,
                               enum serve_ev_kind kind, const void *data, size_t len);
    /* Stores the final result (JSON text), marks the run done, emits the RESULT event and ends
     * the claim. STALE: a newer attempt owns the run, nothing was stored (fencing). */
    enum serve_q_rc (*complete)(struct serve_queue *q, const struct serve_claim *c,
                                const char *result_json, size_t len);
    /* Cancels a run. Queued: removed and done at once with aborted_json as its result.
     * Running: its claimant's on_cancel is called and its heartbeat answers CANCELLED; the
     * claimant completes it. *found gets the status the run had. OK, NOT_FOUND. */
    enum serve_q_rc (*cancel)(struct serve_queue *q, const char *id, const char *aborted_json,
                              enum serve_q_status *found);
    /* Reads a run's status, the key that submitted it (key_name may be NULL) and, when done,
     * a malloc'd copy of its result (free()); NULL otherwise. OK, NOT_FOUND, UNAVAILABLE,
     * NOMEM. */
    enum serve_q_rc (*get)(struct serve_queue *q, const char *id, enum serve_q_status *status,
                           char key_name[SERVE_KEY_NAME_MAX], char **result_json, size_t *len);
    /* Delivers the run's retained events with seq > after_seq, then new ones as they come,
     * until the result event. A run done already gives its result event alone (its output is
     * in the result). result_only: only the result event (a waiting request). OK, NOT_FOUND. */
    enum serve_q_rc (*subscribe)(struct serve_queue *q, const char *id, uint64_t after_seq,
                                 bool result_only, serve_event_fn fn, void *user,
                                 struct serve_sub **out);
    /* Ends a subscription (any time, also after its result event) and frees it. */
    void (*unsubscribe)(struct serve_queue *q, struct serve_sub *sub);
    /* Wakes every claim() waiting and makes later ones return CLOSED (shutdown). */
    void (*close)(struct serve_queue *q);
    void (*stats)(struct serve_queue *q, struct serve_q_stats *out);
    /* Optional (NULL: none): appends the backend's own Prometheus lines to out (Redis: per-node
     * counts, this node's claims). */
    void (*metrics)(struct serve_queue *q, FILE *out);
    /* Frees the queue; no call may be in progress. */
    void (*destroy)(struct serve_queue *q);
};

/* Every backend's handle starts with this. */
struct serve_queue {
    const struct serve_queue_ops *ops;
    struct serve_queue_config cfg;
};

void serve_queue_config_init(struct serve_queue_config *cfg);

/* The embedded in-memory queue (queue_mem.c): one process, bounded, max_attempts 1 (a runner
 * that dies fails its runs: a guest that killed one runner must not get to kill another). */
enum serve_q_rc serve_queue_mem_create(const struct serve_queue_config *cfg,
                                       struct serve_queue **out);

/* The Redis Streams queue (queue_redis*.c, #25): url is redis://[USER:PASSWORD@]HOST:PORT[/DB],
 * node this process's name among the consumers (unique per process: per-node counts, the
 * claims it holds). Connects lazily: Redis may be down at start (stats' is_healthy says so).
 * Idempotency keys are scoped by the job's key_name. UNAVAILABLE (err: why) for a bad url. */
enum serve_q_rc serve_queue_redis_create(const char *url, const char *node,
                                         const struct serve_queue_config *cfg,
                                         struct serve_queue **out, char *err, size_t errlen);

/* Frees what a claim owns (its payload) and zeroes it. Accepts a zeroed one. */
void serve_queue_claim_free(struct serve_claim *c);

/* A fresh random run id (getrandom, Crockford base32). */
void serve_id_new(char id[SERVE_ID_MAX]);
/* Whether s is shaped as a run id (length and alphabet), before any lookup. */
bool serve_id_valid(const char *s);

const char *serve_q_rc_name(enum serve_q_rc rc);
const char *serve_q_status_name(enum serve_q_status st);

/* Thin calls through the vtable, so callers read as plain functions. */
static inline enum serve_q_rc
serve_queue_enqueue(struct serve_queue *q, const struct serve_job *job, char id_out[SERVE_ID_MAX])
{
    return q->ops->enqueue(q, job, id_out);
}
static inline enum serve_q_rc serve_queue_claim(struct serve_queue *q, const char *consumer,
                                                unsigned lanes, int timeout_ms,
                                                serve_cancel_fn on_cancel, void *cancel_user,
                                                struct serve_claim *out)
{
    return q->ops->claim(q, consumer, lanes, timeout_ms, on_cancel, cancel_user, out);
}
static inline enum serve_q_rc serve_queue_heartbeat(struct serve_queue *q,
                                                    const struct serve_claim *c)
{
    return q->ops->heartbeat(q, c);
}
static inline enum serve_q_rc serve_queue_publish(struct serve_queue *q,
                                                  const struct serve_claim *c,
                                                  enum serve_ev_kind kind, const void *data,
                                                  size_t len)
{
    return q->ops->publish(q, c, kind, data, len);
}
static inline enum serve_q_rc serve_queue_complete(struct serve_queue *q,
                                                   const struct serve_claim *c,
                                                   const char *result_json, size_t len)
{
    return q->ops->complete(q, c, result_json, len);
}
static inline enum serve_q_rc serve_queue_cancel(struct serve_queue *q, const char *id,
                                                 const char *aborted_json,
                                                 enum serve_q_status *found)
{
    return q->ops->cancel(q, id, aborted_json, found);
}
static inline enum serve_q_rc serve_queue_get(struct serve_queue *q, const char *id,
                                              enum serve_q_status *status,
                                              char key_name[SERVE_KEY_NAME_MAX], char **result_json,
                                              size_t *len)
{
    return q->ops->get(q, id, status, key_name, result_json, len);
}
static inline enum serve_q_rc serve_queue_subscribe(struct serve_queue *q, const char *id,
                                                    uint64_t after_seq, bool result_only,
                                                    serve_event_fn fn, void *user,
                                                    struct serve_sub **out)
{
    return q->ops->subscribe(q, id, after_seq, result_only, fn, user, out);
}
static inline void serve_queue_unsubscribe(struct serve_queue *q, struct serve_sub *sub)
{
    q->ops->unsubscribe(q, sub);
}
static inline void serve_queue_close(struct serve_queue *q)
{
    q->ops->close(q);
}
static inline void serve_queue_stats(struct serve_queue *q, struct serve_q_stats *out)
{
    q->ops->stats(q, out);
}
static inline void serve_queue_destroy(struct serve_queue *q)
{
    if (q)
        q->ops->destroy(q);
}

#endif

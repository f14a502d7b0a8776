/* serve/serve.h: what the files of `sbx serve` share. The API side (http, api, piston, sse,
 * auth, request) talks to the queue (queue.h) only; the worker side (pool, runner) claims from
 * it. Guests never run in this process: runner processes (runner.c) do, over framed sockets. */
#ifndef SBX_SERVE_H
#define SBX_SERVE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <sbx.h>

#include "serve/queue.h"
#include "serve/schema.h"

/* ---- config (config.c) ---------------------------------------------------------------- */

#define SERVE_TIER_WORKER  (1u << SBX_BACKEND_WORKER)
#define SERVE_TIER_PROCESS (1u << SBX_BACKEND_PROCESS)
#define SERVE_TIER_WASM    (1u << SBX_BACKEND_WASM)

/* The most a key's runs may ask for; beyond it a request gets 403 naming the field. */
struct serve_ceiling {
    uint64_t timeout_ms, memory_bytes, pids, max_output_bytes;
    bool fs, net; /* policy.fs grants / policy.net at all */
};

struct serve_key_cfg {
    char *name;
    char *sha256; /* hex of SHA-256(token) */
    struct schema_strv tiers;
    struct serve_ceiling ceiling;
    uint64_t concurrency;     /* runs queued or running at once */
    uint64_t rate_per_second; /* accepted requests per second (burst: the same number) */
};

struct serve_config {
    char *listen;
    uint64_t runners, runner_slots;
    uint64_t queue_max, queue_max_bytes;
    uint64_t body_limit_bytes;
    uint64_t result_ttl_s, results_max, results_max_bytes;
    char *runtimes;
    struct schema_array keys; /* struct serve_key_cfg */
    struct serve_key_cfg anonymous;
    uint64_t header_timeout_ms, body_timeout_ms, max_connections;
    uint64_t files_max, file_max_bytes;
    uint64_t batch_max, batch_parallel;
    uint64_t wait_max_ms, drain_ms;
    bool callback_allow_private;
    uint64_t callback_timeout_ms, callback_queue_max;
    /* across machines (#25): the queue, this node's role and name, claims' timings */
    char *queue; /* "" = the embedded queue; redis://[USER:PASSWORD@]HOST:PORT[/DB] */
    int role;    /* SERVE_ROLE_* */
    char *node;  /* "" = HOSTNAME-PID */
    uint64_t visibility_ms, max_attempts;
};

/* What a node does: accept requests (api), run them (worker), or both (all, the default). */
enum serve_role { SERVE_ROLE_ALL = 0, SERVE_ROLE_API = 1, SERVE_ROLE_WORKER = 2 };
extern const char *const serve_role_names[];

extern const struct schema serve_config_schema;
extern const struct schema serve_key_schema;

/* Loads and validates the config file (NULL: the defaults). err: "config.x: reason". */
bool serve_config_load(const char *path, struct serve_config *cfg, char *err, size_t errlen);
/* The same from JSON text (the fuzz target's entry). */
bool serve_config_parse(const char *text, size_t len, struct serve_config *cfg, char *err,
                        size_t errlen);
void serve_config_free(struct serve_config *cfg);
/* The reference of every field as Markdown (docs/serve.md, `sbx serve --config-reference`). */
void serve_config_reference(FILE *out);

/* ---- across machines (cluster.c, #25) ----------------------------------------------------- */

/* Applies --queue, --role, --node (each may be NULL) over the config and checks the result: api
 * and worker roles need a shared queue; an empty node name becomes HOSTNAME-PID. */
bool serve_cluster_configure(struct serve_config *cfg, const char *queue, const char *role,
                             const char *node, char *err, size_t errlen);
/* The config's queue: Redis when cfg->queue is set, else the embedded one. */
bool serve_cluster_open_queue(const struct serve_config *cfg, struct serve_queue_config *qc,
                              struct serve_queue **out, char *err, size_t errlen);
/* Whether q is shared with other processes (nothing local calls pump on an enqueue). */
bool serve_cluster_is_remote(const struct serve_queue *q);

/* ---- keys, limits (auth.c) --------------------------------------------------------------- */

struct serve_key {
    char name[SERVE_KEY_NAME_MAX];
    unsigned char digest[32];
    unsigned tiers; /* SERVE_TIER_* */
    struct serve_ceiling ceiling;
    uint64_t concurrency, rate_per_second;
    /* state, under the table's lock */
    uint64_t in_flight;
    double tokens;
    uint64_t refill_ns;
};

struct serve_keys; /* the table: replaced whole on SIGHUP, keys' counters carried over */

struct serve_keys *serve_keys_create(const struct serve_config *cfg, char *err, size_t errlen);
void serve_keys_destroy(struct serve_keys *k);
bool serve_keys_anonymous(const struct serve_keys *k); /* no key configured */
/* Carries in-flight counts from old to new (same key names) so limits hold across a reload. */
void serve_keys_inherit(struct serve_keys *fresh, const struct serve_keys *old);
/* Finds the key of an Authorization: Bearer / X-Api-Key token (NULL header: anonymous mode's
 * key if keys are off). Returns a copy of its settings in *out, or false. */
bool serve_keys_find(struct serve_keys *k, const char *token, struct serve_key *out);
/* Takes one request token and one concurrency slot of key; on refusal *retry_s says when to
 * retry and the return says which limit: 0 ok, 1 rate, 2 concurrency. */
int serve_keys_admit(struct serve_keys *k, const char *name, unsigned *retry_s);
void serve_keys_release(struct serve_keys *k, const char *name);
/* hex SHA-256 of text (65 bytes with NUL). */
void serve_sha256_hex(const char *text, size_t len, char out[65]);

/* ---- runtimes (runtimes.c) --------------------------------------------------------------- */

struct serve_runtime {
    char *language, *version;
    struct schema_strv aliases;
    int tier;                   /* sbx_backend */
    struct schema_strv compile; /* argv, "{files}" = every file name; empty: no compile */
    struct schema_strv run;     /* argv, "{file}" = the first file, then args */
    char *file;                 /* the default name of a file sent without one */
    struct schema_strv version_command;
};

struct serve_runtimes {
    struct serve_runtime *list; /* the ones present on this host */
    size_t count;
    struct schema_array all; /* as configured */
};

/* The built-in runtimes file (deploy/runtimes.json is the same text). */
extern const char serve_runtimes_builtin[];

bool serve_runtimes_load(const char *path, struct serve_runtimes *rt, char *err, size_t errlen);
void serve_runtimes_free(struct serve_runtimes *rt);
/* The runtime for a language name or alias and a version selector ("", "*", "3", "3.11"). */
const struct serve_runtime *serve_runtimes_find(const struct serve_runtimes *rt,
                                                const char *language, const char *version);

/* ---- the runner protocol (frame.c) ------------------------------------------------------- */

enum serve_frame_type {
    FRAME_HELLO = 1,   /* runner -> server: {"pid", "tiers", "enforced"} */
    FRAME_RUN = 2,     /* server -> runner: a job payload; tag names it */
    FRAME_ABORT = 3,   /* server -> runner: abort tag */
    FRAME_CHUNK = 4,   /* runner -> server: output of tag; stream 1 stdout, 2 stderr */
    FRAME_RESULT = 5,  /* runner -> server: the final result JSON of tag */
    FRAME_METRICS = 6, /* server -> runner: asks; runner -> server: Prometheus text */
};

#define SERVE_FRAME_MAX (96u << 20) /* a frame's payload; more is a broken peer */

struct serve_frame {
    uint8_t type, stream;
    uint64_t tag;
    char *data; /* malloc'd, NUL-terminated; len bytes */
    uint32_t len;
};

/* Writes one frame (header + data) whole; -1 with errno on failure. */
int serve_frame_write(int fd, uint8_t type, uint8_t stream, uint64_t tag, const void *data,
                      uint32_t len);
/* Reads one frame; 0 ok, -1 on EOF or error or a frame over SERVE_FRAME_MAX. */
int serve_frame_read(int fd, struct serve_frame *f);
void serve_frame_free(struct serve_frame *f);

/* A result JSON (sbx_result_to_json's shape) for a run that never ran or whose runner died:
 * {"ok":false,...,"error":{"code","message"}}. malloc'd, NULL on NOMEM. (exec.c) */
char *serve_error_result(sbx_err err, const char *message);

/* JSON object text with "key": value_json added first (after its '{') or last (before its
 * '}'), the rest byte for byte (re-encoding would change numbers' text). malloc'd; NULL if
 * json is not an object's text or on NOMEM. (exec.c) */
char *serve_json_with(const char *json, size_t len, const char *key, const char *value_json,
                      bool is_first);

/* The runner process: `sbx __serve-runner` with the socket on fd 3. */
int serve_runner_run(int argc, char **argv);

/* ---- the runner pool (pool.c) ------------------------------------------------------------ */

struct serve_pool;

struct serve_pool_stats {
    uint64_t runners, alive, restarted, in_flight, slots;
    char enforced[256]; /* the first runner's probe: "cgroup-v2", "seccomp", ... */
    char tiers[64];
};

struct serve_pool *serve_pool_create(struct serve_queue *q, unsigned runners, unsigned slots,
                                     uint64_t batch_parallel, char *err, size_t errlen);
/* Claims queued runs for free runner slots until either runs out. Any thread. */
void serve_pool_pump(struct serve_pool *p);
/* Aborts every run in flight (drain's end). */
void serve_pool_abort_all(struct serve_pool *p);
/* A shared queue's worker, shutting down (the queue closed: no new claims): waits up to ms for
 * the runs in flight; those left are not completed here, their claims expire and another worker
 * runs them. Nothing for the embedded queue. */
void serve_pool_drain(struct serve_pool *p, uint64_t ms);
void serve_pool_stats(struct serve_pool *p, struct serve_pool_stats *out);
/* Every runner's Prometheus text, merged (a runner label on each sample), appended to out. */
void serve_pool_metrics(struct serve_pool *p, FILE *out);
void serve_pool_destroy(struct serve_pool *p);

/* ---- requests (request.c) ---------------------------------------------------------------- */

/* A validated request, ready for the queue. */
struct serve_req {
    char *payload; /* the runner's job JSON */
    size_t payload_len;
    bool wait;
    char *callback_url;
    bool is_batch;
    bool is_js; /* the worker tier: SERVE_JOB_JS */
};

/* Validates a POST /v1/runs body (already parsed) for key: shape, sizes, the key's tiers and
 * ceiling, and builds the payload. On failure returns the HTTP status (400, 403 or 413) with
 * the message in err; 0 on success. combined_output: each run's result gets "output", its
 * stdout and stderr in the order written (Piston's). */
int serve_request_run(const struct serve_config *cfg, const struct serve_key *key, json_t *body,
                      bool combined_output, struct serve_req *out, char *err, size_t errlen);
/* The same for POST /v1/batches. */
int serve_request_batch(const struct serve_config *cfg, const struct serve_key *key, json_t *body,
                        bool combined_output, struct serve_req *out, char *err, size_t errlen);
void serve_req_free(struct serve_req *r);
/* Checks a callbackUrl's shape (http/https, host, port) and, for an address literal, that it
 * is allowed; NULL when fine, else the reason. */
const char *serve_callback_check_url(const char *url, bool allow_private);

/* ---- callbacks (callback.c) -------------------------------------------------------------- */

struct serve_callbacks;
struct serve_callbacks *serve_callbacks_create(const struct serve_config *cfg);
/* Queues a POST of result to url (copied); false when the queue is full. */
bool serve_callbacks_post(struct serve_callbacks *cb, const char *url, const char *id,
                          const char *result, size_t len);
void serve_callbacks_destroy(struct serve_callbacks *cb); /* waits up to its timeout */
/* ssrf.c: whether addr (a resolved address) may be called back: not loopback, private,
 * link-local, multicast, unspecified or metadata unless allow_private. */
struct sockaddr;
bool serve_addr_allowed(const struct sockaddr *sa, bool allow_private);
/* Resolves url's host once and checks every address; NULL when all are allowed, with the first
 * in to as curl's CONNECT_TO ("::ADDR:PORT"), else the reason, and *is_refused false when it
 * may pass later (the name did not resolve). */
const char *serve_callback_resolve(const char *url, bool allow_private, char *to, size_t cap,
                                   bool *is_refused);

/* ---- metrics (metrics.c) ----------------------------------------------------------------- */

/* Merges Prometheus texts (one per runner) into out: each family's HELP and TYPE once, every
 * sample with a runner="i" label added. */
void serve_metrics_merge(char *const *texts, unsigned count, FILE *out);

void serve_metrics_request(const char *route, unsigned status);
void serve_metrics_count(const char *name, uint64_t n); /* serve_callbacks_failed_total, ... */
/* The Prometheus text: library instruments from the runners, then serve's own. */
char *serve_metrics_render(size_t *len);

/* ---- the server (main.c, http.c, api.c, sse.c, piston.c) -------------------------------- */

struct serve_server {
    struct serve_config cfg;
    char *config_path;
    struct serve_keys *keys;         /* replaced on SIGHUP under reload_lock */
    struct serve_runtimes *runtimes; /* likewise */
    pthread_mutex_t reload_lock;     /* held while keys/runtimes are replaced or read */
    struct serve_queue *queue;
    struct serve_pool *pool;
    struct serve_callbacks *callbacks;
    struct MHD_Daemon *httpd;
    atomic_bool is_draining;
    atomic_uint_fast64_t in_flight; /* runs accepted, not yet done */
    atomic_uint_fast64_t requests;  /* HTTP requests begun, not completed (drain waits) */
    pthread_mutex_t done_lock;
    pthread_cond_t done_cond; /* in_flight went down */
};

extern struct serve_server *serve_g; /* the one server of this process */

/* `sbx serve` (main.c), through the module's entry (src/cli/cmd_serve.c loads it). */
int serve_server_main(int argc, char **argv);
/* Starts the HTTP daemon on cfg.listen; false with err. */
bool serve_http_start(struct serve_server *s, char *err, size_t errlen);
void serve_http_stop(struct serve_server *s);

#endif

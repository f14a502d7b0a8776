/* serve/queue_redis.h: what the files of the Redis Streams queue share. queue_redis.c holds the
 * ops, queue_redis_conn.c the connections (a pool of blocking hiredis contexts: one per call in
 * progress, never shared), queue_redis_lua.c the scripts (every change that touches more than
 * one key is one script: atomic, nothing half-written), queue_redis_sub.c the two threads (pub/sub
 * for run events and cancels; heartbeats of this process's claims). */
#ifndef SBX_SERVE_QUEUE_REDIS_H
#define SBX_SERVE_QUEUE_REDIS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <hiredis/hiredis.h>

#include "serve/queue.h"

#define RQ_LANES    2 /* a stream per lane: "jail", "js" */
#define RQ_GROUP    "workers"
#define RQ_HOST_MAX 256

enum rq_script {
    RQ_ENQUEUE,
    RQ_CLAIM,
    RQ_HEARTBEAT,
    RQ_PUBLISH,
    RQ_COMPLETE,
    RQ_CANCEL,
    RQ_GC,
    RQ_SCRIPTS,
};

extern const char *const rq_script_text[RQ_SCRIPTS];

/* Where Redis is and how to log in (redis://[USER:PASSWORD@]HOST:PORT[/DB]). */
struct rq_addr {
    char host[RQ_HOST_MAX];
    int port, db;
    char user[128], password[256];
};

/* Parses url; false with the reason in err. */
bool rq_addr_parse(const char *url, struct rq_addr *a, char *err, size_t errlen);

struct rq_conn {
    redisContext *c;
    uint64_t epoch; /* the pool's epoch when it connected: an I/O error ends every older one */
    struct rq_conn *next;
};

/* The connections of one queue: idle ones kept, new ones made on demand; after a failure no
 * new connection is tried before down_until (backoff 100 ms doubling to 5 s). */
struct rq_pool {
    struct rq_addr addr;
    pthread_mutex_t lock;
    struct rq_conn *idle;
    unsigned idle_count;
    uint64_t epoch, down_until_ms;
    unsigned backoff_ms;
    bool is_up; /* the last attempt to talk to Redis worked */
    char sha[RQ_SCRIPTS][41];
    int timeout_ms; /* per command (connect too) */
};

void rq_pool_init(struct rq_pool *p, const struct rq_addr *a);
void rq_pool_destroy(struct rq_pool *p);
/* A connected context, or NULL while Redis is down (the backoff's window included). */
struct rq_conn *rq_get(struct rq_pool *p);
/* Returns a connection: kept when healthy, else freed and the pool marked down. */
void rq_put(struct rq_pool *p, struct rq_conn *c);
/* A context of its own (the pub/sub thread's): connected, logged in, or NULL. */
redisContext *rq_connect(struct rq_pool *p);
/* Runs script with args (argv[0..argc), each of lens[i] bytes) on c; NULL on an I/O error
 * (c->c->err set). A NOSCRIPT reply loads the script and runs it again. */
redisReply *rq_eval(struct rq_pool *p, struct rq_conn *c, enum rq_script s, int argc,
                    const char **argv, const size_t *lens);
/* SCRIPT LOAD of s on c (its sha kept); false on failure. */
bool rq_load(struct rq_pool *p, struct rq_conn *c, enum rq_script s);
/* Appends an EVALSHA of s to c's output (pipelining); read with redisGetReply. */
void rq_eval_append(struct rq_pool *p, struct rq_conn *c, enum rq_script s, int argc,
                    const char **argv, const size_t *lens);
/* Marks the pool down after an error on a connection (closing every idle one). */
void rq_pool_failed(struct rq_pool *p);
uint64_t rq_now_ms(void);

/* A claim this process handed out: heartbeated until complete(), told of its cancel. */
struct rq_local {
    char id[SERVE_ID_MAX];
    uint32_t attempt;
    int lane;
    char entry[64];
    serve_cancel_fn on_cancel;
    void *cancel_user;
    bool is_told; /* on_cancel was called */
    bool is_stale;
    struct rq_local *next;
};

struct rq_chan; /* a run's pub/sub channel this process listens to (queue_redis_sub.c) */

struct rq {
    struct serve_queue base;
    struct rq_pool pool;
    char node[128];
    char prefix[32];
    const char *lane_name[RQ_LANES];
    char failed_code[64]; /* sbx_err_name(SBX_E_RUNNER_DIED) */
    /* local claims (heartbeats, cancels) */
    pthread_mutex_t claims_lock;
    struct rq_local *claims;
    /* pub/sub + heartbeat threads */
    pthread_mutex_t sub_lock;
    pthread_cond_t sub_cond; /* a channel became active, or the pub/sub connection changed */
    struct rq_chan *chans;
    int wake_fd;    /* eventfd: the pub/sub thread has channels to (un)subscribe */
    uint64_t links; /* +1 each time the pub/sub connection is (re)established */
    pthread_t sub_thread, beat_thread;
    bool is_sub_started, is_beat_started;
    pthread_mutex_t beat_lock;
    pthread_cond_t beat_cond;
    /* claim() blocked in XREAD: their sockets, so close() can wake them */
    pthread_mutex_t block_lock;
    int blocked_fds[16];
    bool is_closed, is_stopping;
    /* this node's own counters */
    uint64_t claims_n, completes_n, stale_n, published_n;
};

/* Threads (queue_redis_sub.c). */
bool rq_threads_start(struct rq *q);
void rq_threads_stop(struct rq *q);
/* Registers a claim for heartbeats and cancels / forgets it (complete). */
void rq_local_add(struct rq *q, struct rq_local *l);
void rq_local_remove(struct rq *q, const char *id, uint32_t attempt);

enum serve_q_rc rq_subscribe(struct serve_queue *base, const char *id, uint64_t after_seq,
                             bool result_only, serve_event_fn fn, void *user,
                             struct serve_sub **out);
void rq_unsubscribe(struct serve_queue *base, struct serve_sub *sub);

/* The reply's i-th element as a string ("" if absent or not a string). */
const char *rq_str(const redisReply *r, size_t i);

#endif

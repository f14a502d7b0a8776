/* serve/runner.h: the runner process's parts (runner.c: the protocol and slots; exec.c: one run
 * spec through libsbx; batch.c: compile once, run many). */
#ifndef SBX_SERVE_RUNNER_H
#define SBX_SERVE_RUNNER_H

#include "serve/serve.h"

struct runner;

/* A run in this runner: what abort reaches. The sandboxes it uses register here. */
struct runner_job {
    uint64_t tag;
    bool is_stream;
    atomic_bool is_aborted;
    pthread_mutex_t lock;  /* guards live[] */
    sbx_sandbox *live[64]; /* sandboxes running for the job now (a batch: several) */
    struct runner *owner;
};

/* Where a run's files go and what the guest sees of them. */
struct exec_dir {
    const char *host; /* a directory of ours, or NULL: no files, no cwd */
    bool is_writable; /* rw:host::/work, else host::/work read-only */
};

/* A small cache of sandboxes by (tier, policy text): handles are single-threaded, so each
 * thread that runs guests owns one. */
struct sandbox_cache;
struct sandbox_cache *sandbox_cache_create(void);
void sandbox_cache_destroy(struct sandbox_cache *c);

/* Runs one run spec (request.c's normalized "run" object) and returns its result JSON
 * (malloc'd; sbx_result_to_json's shape, or an error result for a spec that cannot start).
 * dir: the run's /work. verdict_out (may be NULL) gets the raw sbx_result's fields the batch
 * verdict needs before it is freed. */
struct exec_outcome {
    bool ok;
    sbx_limit limit;
    sbx_err error;
    char *stdout_data; /* malloc'd copy, NUL-terminated */
    size_t stdout_len;
};
char *exec_run(struct sandbox_cache *cache, struct runner_job *job, json_t *spec,
               const struct exec_dir *dir, struct exec_outcome *outcome);

/* Writes the spec's files into dir (relative names, no symlink followed). 0, or -errno. */
int exec_write_files(json_t *files, const char *dir);
/* Empties dir (never following a symlink; opening up what a guest made unreadable) and keeps
 * its path: what cannot be removed is set aside and a fresh directory made. False when no
 * empty directory could be had. */
bool exec_clear_dir(const char *dir);
/* A fresh private directory under the runner's temp root; malloc'd path or NULL. */
char *exec_make_dir(const char *root, const char *name);
void exec_remove_dir(const char *dir);

/* Runs a batch job; returns {"prepare": ..., "runs": [...]} (malloc'd). */
char *batch_run(struct sandbox_cache *cache, struct runner_job *job, json_t *payload,
                const char *root, unsigned parallel);

/* Output from a running guest: sent as CHUNK frames when the job streams. */
void runner_output(void *user, sbx_stream stream, const char *data, size_t len);

#endif

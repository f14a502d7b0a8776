/* bindings/node/src/addon.h: the Node-API addon over libsbx. Mapping only: JS values to the C
 * API's arguments, its results and errors back. Runs go to threads of the addon's own and
 * finish on the JS thread through a threadsafe function, so the event loop never blocks. */
#ifndef SBX_NODE_ADDON_H
#define SBX_NODE_ADDON_H

#define NAPI_VERSION 8
#include <node_api.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sbx.h>

struct job_msg;
struct channel;

/* One piece of work: execute on an own thread, then complete on the JS thread. */
struct job {
    uint32_t tag; /* set by sbx_node_job_start: tells a job from a message in the queue */
    void (*execute)(struct job *j);
    /* Returns the value to resolve with, or NULL after setting *error to reject with. */
    napi_value (*complete)(napi_env env, struct job *j, napi_value *error);
    void (*destroy)(struct job *j);
    /* Optional: handles a message execute() posted (JS thread); the caller frees msg. */
    void (*message)(napi_env env, struct job *j, const struct job_msg *msg);
    napi_deferred deferred;
    struct channel *channel; /* to the JS thread of its environment (addon.c) */
    napi_ref keep;           /* the JS object the job works on, kept alive until completion */
};

/* Starts j and returns its promise, or NULL with an exception pending. */
napi_value sbx_node_job_start(napi_env env, struct job *j, napi_value keep);

/* A message execute() sends to the JS thread (sbx_node_job_post): bytes for j->message. */
struct job_msg {
    uint32_t tag;
    struct job *job;
    int kind; /* the job's own meaning (a stream) */
    size_t len;
    char data[];
};
/* From execute(): queues a copy of data for j->message(env, j, msg) on the JS thread, in order
 * and before completion. Returns false when out of memory (the message is lost). */
bool sbx_node_job_post(struct job *j, int kind, const void *data, size_t len);

/* A SandboxError (index.js's class) with the registry's code name and message. */
napi_value sbx_node_error(napi_env env, const char *code, const char *message);
/* Throws it; returns NULL for `return sbx_node_throw(...)`. */
napi_value sbx_node_throw(napi_env env, sbx_err code, const char *message);
/* Returns a malloc'd UTF-8 copy of a JS string, or NULL with a SandboxError thrown. */
char *sbx_node_string(napi_env env, napi_value v, const char *what);
/* Parses a policy from its JSON text (a JS string); NULL with a SandboxError thrown. */
sbx_policy *sbx_node_policy(napi_env env, napi_value json);
/* Reads argc arguments into argv; false with a TypeError thrown when fewer were passed. */
bool sbx_node_args(napi_env env, napi_callback_info info, size_t argc, napi_value *argv,
                   void **data);
napi_value sbx_node_str(napi_env env, const char *s);
/* Sets obj[name] = fn for each entry. */
struct sbx_node_fn {
    const char *name;
    napi_callback fn;
};
void sbx_node_define(napi_env env, napi_value obj, const struct sbx_node_fn *fns, size_t count);

void sbx_node_init_sandbox(napi_env env, napi_value exports);
void sbx_node_init_wasm(napi_env env, napi_value exports);
void sbx_node_init_grants(napi_env env, napi_value exports);
void sbx_node_init_telemetry(napi_env env, napi_value exports);

#endif

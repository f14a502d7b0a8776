/* serve/request.c: the validate phase. A request body (parsed JSON) is checked against its
 * table (unknown fields and wrong types: 400 with the JSON path), the tier's rules, the size
 * bounds of the config, and the key's tiers and ceiling (403 naming the field, never clamped),
 * and becomes the runner's job payload. Everything a runner receives was checked here. */
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/base64.h"
#include "serve/serve.h"

struct file_req {
    char *name, *content;
    int encoding; /* index in encodings */
};

struct run_req {
    char *tier, *code, *module, *stdin_text, *interpreter, *callback_url, *expected;
    struct schema_strv command, args;
    struct schema_array files;
    json_t *context, *policy;
    bool wait;
};

static const char *const encodings[] = {"utf8", "base64", NULL};

#define FOFF(f) offsetof(struct file_req, f)
static const struct schema_field file_fields[] = {
    {"name", SCH_STRING, FOFF(name), 0, 1024, NULL, NULL, NULL, true, false,
     "a path relative to the run's /work"},
    {"content", SCH_STRING, FOFF(content), 0, 0, NULL, NULL, NULL, false, false,
     "the file's bytes as text, or base64"},
    {"encoding", SCH_ENUM, FOFF(encoding), 0, 0, "\"utf8\"", NULL, encodings, false, false,
     "how content is written"},
};
static const struct schema file_schema = {file_fields, sizeof(file_fields) / sizeof(file_fields[0]),
                                          sizeof(struct file_req)};

#define ROFF(f) offsetof(struct run_req, f)
#define RUN_FIELDS                                                                                 \
    {"tier",                                                                                       \
     SCH_STRING,                                                                                   \
     ROFF(tier),                                                                                   \
     0,                                                                                            \
     16,                                                                                           \
     NULL,                                                                                         \
     NULL,                                                                                         \
     NULL,                                                                                         \
     false,                                                                                        \
     false,                                                                                        \
     "worker, process or wasm"},                                                                   \
        {"code",                                                                                   \
         SCH_STRING,                                                                               \
         ROFF(code),                                                                               \
         0,                                                                                        \
         0,                                                                                        \
         NULL,                                                                                     \
         NULL,                                                                                     \
         NULL,                                                                                     \
         false,                                                                                    \
         false,                                                                                    \
         "worker: a function body; process: a script for interpreter"},                            \
        {"command", SCH_STRINGS, ROFF(command), 0,     4096,           NULL,                       \
         NULL,      NULL,        false,         false, "process: argv"},                           \
        {"module",                                                                                 \
         SCH_STRING,                                                                               \
         ROFF(module),                                                                             \
         0,                                                                                        \
         0,                                                                                        \
         NULL,                                                                                     \
         NULL,                                                                                     \
         NULL,                                                                                     \
         false,                                                                                    \
         false,                                                                                    \
         "wasm: the module, base64"},                                                              \
        {"files",                                                                                  \
         SCH_ARRAY,                                                                                \
         ROFF(files),                                                                              \
         0,                                                                                        \
         0,                                                                                        \
         NULL,                                                                                     \
         &file_schema,                                                                             \
         NULL,                                                                                     \
         false,                                                                                    \
         false,                                                                                    \
         "files of the run's /work"},                                                              \
        {"stdin",                                                                                  \
         SCH_STRING,                                                                               \
         ROFF(stdin_text),                                                                         \
         0,                                                                                        \
         0,                                                                                        \
         NULL,                                                                                     \
         NULL,                                                                                     \
         NULL,                                                                                     \
         false,                                                                                    \
         false,                                                                                    \
         "process, wasm: standard input"},                                                         \
        {"args",                                                                                   \
         SCH_STRINGS,                                                                              \
         ROFF(args),                                                                               \
         0,                                                                                        \
         4096,                                                                                     \
         NULL,                                                                                     \
         NULL,                                                                                     \
         NULL,                                                                                     \
         false,                                                                                    \
         false,                                                                                    \
         "process command, wasm: arguments after argv[0]"},                                        \
        {"context",                                                                                \
         SCH_ANY,                                                                                  \
         ROFF(context),                                                                            \
         0,                                                                                        \
         0,                                                                                        \
         NULL,                                                                                     \
         NULL,                                                                                     \
         NULL,                                                                                     \
         false,                                                                                    \
         false,                                                                                    \
         "worker, process script: `context`"},                                                     \
        {"policy",                                                                                 \
         SCH_ANY,                                                                                  \
         ROFF(policy),                                                                             \
         0,                                                                                        \
         0,                                                                                        \
         NULL,                                                                                     \
         NULL,                                                                                     \
         NULL,                                                                                     \
         false,                                                                                    \
         false,                                                                                    \
         "the run's policy (docs/policy.md)"},                                                     \
        {"interpreter",                                                                            \
         SCH_STRING,                                                                               \
         ROFF(interpreter),                                                                        \
         0,                                                                                        \
         255,                                                                                      \
         NULL,                                                                                     \
         NULL,                                                                                     \
         NULL,                                                                                     \
         false,                                                                                    \
         false,                                                                                    \
         "process script: python3, node, sh, ... (sbx-js by default)"},
static const struct schema_field run_fields[] = {
    RUN_FIELDS{"wait", SCH_BOOL, ROFF(wait), 0, 0, "true", NULL, NULL, false, false,
               "answer with the result (200) or at once (202)"},
    {"callbackUrl", SCH_STRING, ROFF(callback_url), 0, 2048, NULL, NULL, NULL, false, false,
     "the result is POSTed there"},
};
static const struct schema run_schema = {run_fields, sizeof(run_fields) / sizeof(run_fields[0]),
                                         sizeof(struct run_req)};
static const struct schema_field prepare_fields[] = {RUN_FIELDS};
static const struct schema prepare_schema = {
    prepare_fields, sizeof(prepare_fields) / sizeof(prepare_fields[0]), sizeof(struct run_req)};
static const struct schema_field case_fields[] = {
    RUN_FIELDS{"expectedStdout", SCH_STRING, ROFF(expected), 0, 0, NULL, NULL, NULL, false, false,
               "gives the run a verdict"},
};
static const struct schema case_schema = {case_fields, sizeof(case_fields) / sizeof(case_fields[0]),
                                          sizeof(struct run_req)};

struct batch_req {
    struct run_req prepare;
    struct schema_array runs;
    bool wait;
    char *callback_url;
};
#define BOFF(f) offsetof(struct batch_req, f)
static const struct schema_field batch_fields[] = {
    {"prepare", SCH_OBJECT, BOFF(prepare), 0, 0, NULL, &prepare_schema, NULL, true, false,
     "the run that prepares /work (compile)"},
    {"runs", SCH_ARRAY, BOFF(runs), 0, 0, NULL, &case_schema, NULL, true, false,
     "the runs, each seeing /work read-only"},
    {"wait", SCH_BOOL, BOFF(wait), 0, 0, "true", NULL, NULL, false, false, "as for runs"},
    {"callbackUrl", SCH_STRING, BOFF(callback_url), 0, 2048, NULL, NULL, NULL, false, false,
     "as for runs"},
};
static const struct schema batch_schema = {
    batch_fields, sizeof(batch_fields) / sizeof(batch_fields[0]), sizeof(struct batch_req)};

/* A failure: its HTTP status, with the message in err. */
static int fail(int status, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(int status, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return status;
}

/* A file name: relative, components of 1..255 bytes, none "." or "..", no empty one. */
static const char *bad_name(const char *name)
{
    if (!*name)
        return "is empty";
    if (name[0] == '/')
        return "must be relative to /work";
    for (const char *c = name; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 0)
            return "has an empty path component";
        if (n > 255)
            return "has a component over 255 bytes";
        if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return "must not have a \".\" or \"..\" component";
        c += n;
        if (*c == '/' && !*++c)
            return "must not end with /";
    }
    return NULL;
}

static int check_files(const struct serve_config *cfg, const struct schema_array *files,
                       const char *path, char *err, size_t errlen)
{
    const struct file_req *f = files->items;
    if (files->count > cfg->files_max)
        return fail(400, err, errlen, "%s: %zu files, more than %llu (config filesMax)", path,
                    files->count, (unsigned long long)cfg->files_max);
    for (size_t i = 0; i < files->count; i++) {
        const char *why = bad_name(f[i].name);
        if (why)
            return fail(400, err, errlen, "%s[%zu].name: \"%s\" %s", path, i, f[i].name, why);
        for (size_t j = 0; j < i; j++) {
            if (strcmp(f[i].name, f[j].name) == 0)
                return fail(400, err, errlen, "%s[%zu].name: \"%s\" is also %s[%zu]'s name", path,
                            i, f[i].name, path, j);
        }
        size_t clen = f[i].content ? strlen(f[i].content) : 0;
        if (f[i].encoding == 1) {
            uint8_t *bytes;
            if (serve_base64_decode(f[i].content ? f[i].content : "", clen, &bytes, &clen) != 0)
                return fail(400, err, errlen, "%s[%zu].content: not base64 (RFC 4648, padded)",
                            path, i);
            free(bytes);
        }
        if (clen > cfg->file_max_bytes)
            return fail(413, err, errlen,
                        "%s[%zu].content: %zu bytes, more than %llu (config fileMaxBytes)", path, i,
                        clen, (unsigned long long)cfg->file_max_bytes);
    }
    return 0;
}

/* ---- the policy against the key's ceiling ----------------------------------------------- */

struct limit_field {
    const char *name;
    size_t off; /* in struct serve_ceiling */
};
static const struct limit_field limits[] = {
    {"timeoutMs", offsetof(struct serve_ceiling, timeout_ms)},
    {"memoryBytes", offsetof(struct serve_ceiling, memory_bytes)},
    {"pids", offsetof(struct serve_ceiling, pids)},
    {"maxOutputBytes", offsetof(struct serve_ceiling, max_output_bytes)},
};

static bool is_set(json_t *policy, const char *key)
{
    json_t *v = json_object_get(policy, key);
    return v && !json_is_null(v) && !(json_is_array(v) && json_array_size(v) == 0);
}

/* Checks policy (a JSON object, or NULL) for key and returns the policy the run gets: the
 * request's own, with each limit it leaves out set to min(library default, ceiling). */
static json_t *check_policy(const struct serve_key *key, json_t *policy, const char *path,
                            int *status, char *err, size_t errlen)
{
    if (policy && !json_is_object(policy)) {
        *status = fail(400, err, errlen, "%s: must be an object", path);
        return NULL;
    }
    json_t *p = policy ? json_deep_copy(policy) : json_object();
    char *text = p ? json_dumps(p, JSON_COMPACT) : NULL;
    sbx_policy *parsed = NULL;
    char perr[512] = "out of memory";
    if (!text || sbx_policy_parse(text, strlen(text), &parsed, perr, sizeof(perr)) != SBX_OK) {
        *status = fail(400, err, errlen, "%s", perr);
        free(text);
        json_decref(p);
        return NULL;
    }
    free(text);
    char *resolved_text = sbx_policy_to_json(parsed);
    sbx_policy_destroy(parsed);
    json_error_t je;
    json_t *resolved = resolved_text ? json_loads(resolved_text, 0, &je) : NULL;
    sbx_free(resolved_text);
    *status = 0;
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]) && !*status; i++) {
        uint64_t cap = *(const uint64_t *)((const char *)&key->ceiling + limits[i].off);
        json_int_t got = json_integer_value(json_object_get(resolved, limits[i].name));
        if (is_set(p, limits[i].name) && (uint64_t)got > cap)
            *status = fail(403, err, errlen, "policy.%s: %lld exceeds this key's ceiling %llu",
                           limits[i].name, (long long)got, (unsigned long long)cap);
        else if (!is_set(p, limits[i].name) && (uint64_t)got > cap)
            json_object_set_new(p, limits[i].name, json_integer((json_int_t)cap));
    }
    json_t *net = json_object_get(p, "net");
    bool wants_net = json_is_true(json_object_get(net, "loopback")) ||
                     json_array_size(json_object_get(net, "outbound")) > 0;
    if (!*status && is_set(p, "fs") && !key->ceiling.fs)
        *status = fail(403, err, errlen,
                       "policy.fs: this key may not grant host paths (its ceiling.fs is false)");
    if (!*status && wants_net && !key->ceiling.net)
        *status = fail(403, err, errlen,
                       "policy.net: this key may not use the network (its ceiling.net is false)");
    json_decref(resolved);
    if (*status) {
        json_decref(p);
        return NULL;
    }
    return p;
}

/* A run without a policy gets the same one for every request of a ceiling: kept, not
 * recomputed (parsing and resolving a policy is most of a small request's cost). */
static struct {
    pthread_mutex_t lock;
    struct serve_ceiling ceiling[16];
    json_t *policy[16];
    size_t count;
} defaults = {.lock = PTHREAD_MUTEX_INITIALIZER};

static json_t *ceiling_policy(const struct serve_key *key, json_t *policy, const char *path,
                              int *status, char *err, size_t errlen)
{
    if (policy)
        return check_policy(key, policy, path, status, err, errlen);
    json_t *found = NULL;
    pthread_mutex_lock(&defaults.lock);
    for (size_t i = 0; i < defaults.count && !found; i++) {
        if (memcmp(&defaults.ceiling[i], &key->ceiling, sizeof(key->ceiling)) == 0)
            found = json_deep_copy(defaults.policy[i]);
    }
    pthread_mutex_unlock(&defaults.lock);
    if (found) {
        *status = 0;
        return found;
    }
    json_t *p = check_policy(key, NULL, path, status, err, errlen);
    pthread_mutex_lock(&defaults.lock);
    if (p && defaults.count < 16) {
        defaults.ceiling[defaults.count] = key->ceiling;
        defaults.policy[defaults.count++] = json_deep_copy(p);
    }
    pthread_mutex_unlock(&defaults.lock);
    return p;
}

/* ---- one run ------------------------------------------------------------------------------ */

static json_t *files_json(const struct schema_array *files)
{
    json_t *a = json_array();
    const struct file_req *f = files->items;
    for (size_t i = 0; a && i < files->count; i++)
        json_array_append_new(a, json_pack("{s:s,s:s,s:s}", "name", f[i].name, "content",
                                           f[i].content ? f[i].content : "", "encoding",
                                           encodings[f[i].encoding]));
    return a;
}

static json_t *strv_json(const struct schema_strv *v, size_t from)
{
    json_t *a = json_array();
    for (size_t i = from; a && i < v->count; i++)
        json_array_append_new(a, json_string(v->v[i]));
    return a;
}

/* The tier's rules: which fields it takes. */
static int check_tier(const struct run_req *r, sbx_backend tier, const char *path, char *err,
                      size_t errlen)
{
    const char *name = sbx_backend_name(tier);
    bool has_stdin = r->stdin_text && r->stdin_text[0];
    if (tier == SBX_BACKEND_WORKER) {
        const char *extra = r->command.v     ? "command"
                            : r->module      ? "module"
                            : r->files.count ? "files"
                            : r->interpreter ? "interpreter"
                            : r->args.v      ? "args"
                            : has_stdin      ? "stdin"
                                             : NULL;
        if (extra)
            return fail(400, err, errlen,
                        "%s.%s: the worker tier runs code (a function body) "
                        "with context; %s is for the process or wasm tier",
                        path, extra, extra);
        if (!r->code)
            return fail(400, err, errlen, "%s.code: the worker tier needs code", path);
    } else if (tier == SBX_BACKEND_PROCESS) {
        if (!r->code == !r->command.v)
            return fail(400, err, errlen, "%s: the process tier needs code or command, not both",
                        path);
        if (r->module)
            return fail(400, err, errlen, "%s.module: modules are for the wasm tier", path);
        if (r->command.v && r->command.count == 0)
            return fail(400, err, errlen, "%s.command: must not be empty", path);
        if (r->code && r->args.v)
            return fail(400, err, errlen, "%s.args: arguments go with command", path);
        if (r->command.v && r->interpreter)
            return fail(400, err, errlen, "%s.interpreter: goes with code", path);
        if (r->stdin_text && r->context)
            return fail(400, err, errlen,
                        "%s.context: the %s tier writes stdin or context to "
                        "the guest's stdin, not both",
                        path, name);
    } else {
        if (!r->module)
            return fail(400, err, errlen, "%s.module: the wasm tier needs a module (base64)", path);
        const char *extra = r->code          ? "code"
                            : r->command.v   ? "command"
                            : r->interpreter ? "interpreter"
                            : r->context     ? "context"
                                             : NULL;
        if (extra)
            return fail(400, err, errlen, "%s.%s: not for the wasm tier", path, extra);
    }
    return 0;
}

/* Validates one run (tier given or inherited) for key and returns its normalized spec. */
static json_t *run_spec(const struct serve_config *cfg, const struct serve_key *key,
                        const struct run_req *r, const char *tier_name, const char *path,
                        bool combined, int *status, char *err, size_t errlen)
{
    sbx_backend tier;
    char sub[128];
    *status = 0;
    if (!tier_name || sbx_backend_from_name(tier_name, &tier) != 0) {
        *status =
            fail(400, err, errlen, "%s.tier: %s", path,
                 tier_name ? "must be one of \"worker\", \"process\", \"wasm\"" : "is required");
        return NULL;
    }
    if (!(key->tiers & (1u << tier))) {
        *status =
            fail(403, err, errlen, "%s.tier: this key may not use the %s tier", path, tier_name);
        return NULL;
    }
    snprintf(sub, sizeof(sub), "%s.files", path);
    if ((*status = check_tier(r, tier, path, err, errlen)) != 0 ||
        (*status = check_files(cfg, &r->files, sub, err, errlen)) != 0)
        return NULL;
    if (r->module) {
        size_t n = strlen(r->module), bytes = serve_base64_decoded_len(r->module, n);
        uint8_t *buf = NULL;
        if (serve_base64_decode(r->module, n, &buf, &bytes) != 0 || bytes == 0) {
            *status = fail(400, err, errlen, "%s.module: not base64 (RFC 4648, padded)", path);
            return NULL;
        }
        free(buf);
    }
    json_t *policy = ceiling_policy(key, r->policy, "policy", status, err, errlen);
    if (!policy)
        return NULL;
    json_t *spec = json_pack("{s:s,s:o}", "tier", tier_name, "policy", policy);
    if (r->code)
        json_object_set_new(spec, "code", json_string(r->code));
    if (r->interpreter)
        json_object_set_new(spec, "interpreter", json_string(r->interpreter));
    if (r->command.v) {
        json_t *argv = strv_json(&r->command, 0), *args = strv_json(&r->args, 0);
        json_array_extend(argv, args);
        json_decref(args);
        json_object_set_new(spec, "command", argv);
    } else if (r->args.v) {
        json_object_set_new(spec, "args", strv_json(&r->args, 0));
    }
    if (r->module)
        json_object_set_new(spec, "module", json_string(r->module));
    if (r->files.count)
        json_object_set_new(spec, "files", files_json(&r->files));
    if (r->stdin_text)
        json_object_set_new(spec, "stdin", json_string(r->stdin_text));
    if (r->context) {
        char *ctx = json_dumps(r->context, JSON_COMPACT | JSON_ENCODE_ANY);
        json_object_set_new(spec, "context", json_string(ctx ? ctx : "null"));
        free(ctx);
    }
    if (r->expected)
        json_object_set_new(spec, "expectedStdout", json_string(r->expected));
    if (combined)
        json_object_set_new(spec, "combinedOutput", json_true());
    return spec;
}

static int finish_req(json_t *payload, bool wait, const char *callback_url, bool is_batch,
                      struct serve_req *out, const struct serve_config *cfg, char *err,
                      size_t errlen)
{
    json_t *spec = is_batch ? json_object_get(payload, "prepare") : json_object_get(payload, "run");
    const char *tier = json_string_value(json_object_get(spec, "tier"));
    out->is_js = tier && strcmp(tier, "worker") == 0;
    if (callback_url) {
        const char *why = serve_callback_check_url(callback_url, cfg->callback_allow_private);
        if (why) {
            json_decref(payload);
            return fail(400, err, errlen, "request.callbackUrl: %s", why);
        }
    }
    out->payload = json_dumps(payload, JSON_COMPACT);
    json_decref(payload);
    if (!out->payload)
        return fail(500, err, errlen, "out of memory");
    out->payload_len = strlen(out->payload);
    out->wait = wait;
    out->is_batch = is_batch;
    out->callback_url = callback_url ? strdup(callback_url) : NULL;
    return 0;
}

/* What a parsed body builds: the payload (NULL: out of memory) and its request's options. */
struct built {
    json_t *payload;
    bool wait;
    const char *callback_url;
};

typedef int build_fn(const struct serve_config *cfg, const struct serve_key *key, const void *req,
                     bool combined, struct built *out, char *err, size_t errlen);

/* The framing both endpoints share: body parsed by schema (400 with the path), built by build,
 * finished into out; the parse freed whatever happened. */
static int request(const struct schema *schema, build_fn *build, bool is_batch,
                   const struct serve_config *cfg, const struct serve_key *key, json_t *body,
                   bool combined, struct serve_req *out, char *err, size_t errlen)
{
    union {
        struct run_req run;
        struct batch_req batch;
    } req;
    memset(&req, 0, sizeof(req));
    memset(out, 0, sizeof(*out));
    int status = 400;
    if (schema_parse(schema, body, "request", &req, err, errlen)) {
        struct built b = {0};
        status = build(cfg, key, &req, combined, &b, err, errlen);
        if (!status)
            status = finish_req(b.payload, b.wait, b.callback_url, is_batch, out, cfg, err, errlen);
    }
    schema_free(schema, &req);
    return status;
}

static int build_run(const struct serve_config *cfg, const struct serve_key *key, const void *req,
                     bool combined, struct built *out, char *err, size_t errlen)
{
    const struct run_req *r = req;
    int status = 0;
    json_t *spec = run_spec(cfg, key, r, r->tier, "request", combined, &status, err, errlen);
    if (!spec)
        return status;
    out->payload = json_pack("{s:s,s:b,s:o}", "kind", "run", "stream", !r->wait, "run", spec);
    out->wait = r->wait;
    out->callback_url = r->callback_url;
    return 0;
}

static int build_batch(const struct serve_config *cfg, const struct serve_key *key, const void *req,
                       bool combined, struct built *out, char *err, size_t errlen)
{
    const struct batch_req *b = req;
    if (b->runs.count > cfg->batch_max)
        return fail(400, err, errlen, "request.runs: %zu runs, more than %llu (config batchMax)",
                    b->runs.count, (unsigned long long)cfg->batch_max);
    int status = 0;
    json_t *prepare = run_spec(cfg, key, &b->prepare, b->prepare.tier, "request.prepare", combined,
                               &status, err, errlen);
    json_t *runs = json_array();
    const struct run_req *cases = b->runs.items;
    for (size_t i = 0; prepare && !status && i < b->runs.count; i++) {
        char path[64];
        snprintf(path, sizeof(path), "request.runs[%zu]", i);
        if (cases[i].files.count) {
            status =
                fail(400, err, errlen,
                     "%s.files: a batch's runs see the prepare's /work; give input as stdin", path);
            break;
        }
        json_t *spec =
            run_spec(cfg, key, &cases[i], cases[i].tier ? cases[i].tier : b->prepare.tier, path,
                     combined, &status, err, errlen);
        if (spec)
            json_array_append_new(runs, spec);
    }
    if (!status && prepare) {
        out->payload =
            json_pack("{s:s,s:o,s:o}", "kind", "batch", "prepare", prepare, "runs", runs);
        out->wait = b->wait;
        out->callback_url = b->callback_url;
        return 0;
    }
    json_decref(prepare);
    json_decref(runs);
    return status;
}

int serve_request_run(const struct serve_config *cfg, const struct serve_key *key, json_t *body,
                      bool combined_output, struct serve_req *out, char *err, size_t errlen)
{
    return request(&run_schema, build_run, false, cfg, key, body, combined_output, out, err,
                   errlen);
}

int serve_request_batch(const struct serve_config *cfg, const struct serve_key *key, json_t *body,
                        bool combined_output, struct serve_req *out, char *err, size_t errlen)
{
    return request(&batch_schema, build_batch, true, cfg, key, body, combined_output, out, err,
                   errlen);
}

void serve_req_free(struct serve_req *r)
{
    free(r->payload);
    free(r->callback_url);
    memset(r, 0, sizeof(*r));
}

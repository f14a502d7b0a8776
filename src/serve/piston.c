/* serve/piston.c: Piston's API v2 (engineer-man/piston docs/api-v2.md), so its clients work
 * unchanged. GET /api/v2/runtimes lists the runtimes this host has; POST /api/v2/execute turns
 * a Piston request into a native run (or a batch: compile, then run), validated and limited
 * exactly like one, and answers in Piston's shape: {language, version, run, compile?} with
 * stdout, stderr, output (both, in the order written), code, signal, message, status,
 * cpu_time, wall_time, memory. Errors are Piston's {"message"}. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/base64.h"
#include "serve/http.h"

#define COMPILE_MEMORY_DEFAULT  (512ull << 20) /* compilers need more than a run */
#define RUN_MEMORY_DEFAULT      (256ull << 20)
#define COMPILE_TIMEOUT_DEFAULT 10000 /* Piston's defaults */
#define RUN_TIMEOUT_DEFAULT     3000

void piston_runtimes(struct http_req *req)
{
    pthread_mutex_lock(&serve_g->reload_lock);
    const struct serve_runtimes *rt = serve_g->runtimes;
    json_t *list = json_array();
    for (size_t i = 0; i < rt->count; i++) {
        json_t *aliases = json_array();
        for (size_t j = 0; j < rt->list[i].aliases.count; j++)
            json_array_append_new(aliases, json_string(rt->list[i].aliases.v[j]));
        json_array_append_new(list, json_pack("{s:s,s:s,s:o}", "language", rt->list[i].language,
                                              "version", rt->list[i].version, "aliases", aliases));
    }
    pthread_mutex_unlock(&serve_g->reload_lock);
    http_json(req, 200, list);
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Piston's files as native ones: hex becomes base64; a missing name gets the runtime's. */
static json_t *native_files(json_t *files, const struct serve_runtime *r, char *err, size_t errlen)
{
    json_t *out = json_array();
    for (size_t i = 0; i < json_array_size(files); i++) {
        json_t *f = json_array_get(files, i);
        const char *content = json_string_value(json_object_get(f, "content"));
        const char *enc = json_string_value(json_object_get(f, "encoding"));
        const char *name = json_string_value(json_object_get(f, "name"));
        char fallback[300];
        const char *ext = strrchr(r->file, '.');
        if (i == 0)
            snprintf(fallback, sizeof(fallback), "%s", r->file);
        else
            snprintf(fallback, sizeof(fallback), "file%zu%s", i, ext ? ext : "");
        if (!content ||
            (enc && strcmp(enc, "utf8") && strcmp(enc, "base64") && strcmp(enc, "hex"))) {
            snprintf(err, errlen,
                     content ? "files[%zu].encoding must be base64, hex or utf8"
                             : "files[%zu].content is required as a string",
                     i);
            json_decref(out);
            return NULL;
        }
        json_t *nf =
            json_pack("{s:s,s:s,s:s}", "name", name && *name ? name : fallback, "content", content,
                      "encoding", enc && !strcmp(enc, "base64") ? "base64" : "utf8");
        if (enc && strcmp(enc, "hex") == 0) { /* decode, then send as base64 */
            size_t n = strlen(content) / 2;
            unsigned char *raw = malloc(n + 1);
            for (size_t k = 0; raw && k < n; k++) {
                int hi = hexval(content[2 * k]), lo = hexval(content[2 * k + 1]);
                if (hi < 0 || lo < 0 || strlen(content) % 2) {
                    free(raw);
                    raw = NULL;
                }
                if (raw)
                    raw[k] = (unsigned char)(hi << 4 | lo);
            }
            char *b64 = raw ? serve_base64_encode(raw, n) : NULL;
            free(raw);
            if (!b64) {
                snprintf(err, errlen, "files[%zu].content is not hex", i);
                json_decref(nf);
                json_decref(out);
                return NULL;
            }
            json_object_set_new(nf, "content", json_string(b64));
            json_object_set_new(nf, "encoding", json_string("base64"));
            free(b64);
        }
        json_array_append_new(out, nf);
    }
    return out;
}

/* argv with {file} (the first file) and {files} (those with its extension) expanded. */
static json_t *expand(const struct schema_strv *argv, json_t *files)
{
    json_t *out = json_array();
    const char *first = json_string_value(json_object_get(json_array_get(files, 0), "name"));
    const char *ext = first ? strrchr(first, '.') : NULL;
    for (size_t i = 0; i < argv->count; i++) {
        if (strcmp(argv->v[i], "{file}") == 0) {
            json_array_append_new(out, json_string(first ? first : ""));
        } else if (strcmp(argv->v[i], "{files}") == 0) {
            for (size_t k = 0; k < json_array_size(files); k++) {
                const char *n =
                    json_string_value(json_object_get(json_array_get(files, k), "name"));
                const char *e = strrchr(n, '.');
                if (k == 0 || (ext && e && strcmp(e, ext) == 0))
                    json_array_append_new(out, json_string(n));
            }
        } else {
            json_array_append_new(out, json_string(argv->v[i]));
        }
    }
    return out;
}

/* A stage's policy: Piston's timeout (and cpu_time: the tighter one) and memory limit, or the
 * defaults (-1 = "the maximum": the default here), never above the key's ceiling silently:
 * an explicit value over it is refused by the ceiling check. */
static json_t *stage_policy(json_t *body, const char *stage, uint64_t timeout_default,
                            uint64_t memory_default, const struct serve_key *key)
{
    char name[64];
    snprintf(name, sizeof(name), "%s_timeout", stage);
    json_int_t t = json_integer_value(json_object_get(body, name));
    snprintf(name, sizeof(name), "%s_cpu_time", stage);
    json_int_t cpu = json_integer_value(json_object_get(body, name));
    snprintf(name, sizeof(name), "%s_memory_limit", stage);
    json_int_t mem = json_integer_value(json_object_get(body, name));
    uint64_t timeout = t > 0 ? (uint64_t)t : timeout_default;
    if (cpu > 0 && (uint64_t)cpu < timeout)
        timeout = (uint64_t)cpu;
    if (t <= 0 && timeout > key->ceiling.timeout_ms)
        timeout = key->ceiling.timeout_ms; /* a default, not a request: bounded */
    uint64_t memory = mem > 0 ? (uint64_t)mem : memory_default;
    if (mem <= 0 && memory > key->ceiling.memory_bytes)
        memory = key->ceiling.memory_bytes;
    /* Compilers find their parts (collect2: ld) on PATH; the jail's environment is only what
     * the policy gives. */
    return json_pack("{s:I,s:I,s:{s:s,s:s,s:s}}", "timeoutMs", (json_int_t)timeout, "memoryBytes",
                     (json_int_t)memory, "env", "PATH", "/usr/local/bin:/usr/bin:/bin", "HOME",
                     "/tmp", "LANG", "C.UTF-8");
}

/* The native request for a Piston one; NULL with err set (Piston's wording). */
static json_t *native_request(json_t *body, const struct serve_runtime *r,
                              const struct serve_key *key, char *err, size_t errlen)
{
    json_t *files = native_files(json_object_get(body, "files"), r, err, errlen);
    if (!files)
        return NULL;
    json_t *stdin_v = json_object_get(body, "stdin"), *args = json_object_get(body, "args");
    json_t *run_policy = stage_policy(body, "run", RUN_TIMEOUT_DEFAULT, RUN_MEMORY_DEFAULT, key);
    json_t *run;
    if (r->tier == SBX_BACKEND_WORKER) { /* the file is a function body; stdin, args: context */
        json_t *f0 = json_array_get(files, 0);
        run = json_pack("{s:s,s:O,s:{s:o,s:o},s:o}", "tier", "worker", "code",
                        json_object_get(f0, "content"), "context", "args",
                        args ? json_incref(args) : json_array(), "stdin",
                        stdin_v ? json_incref(stdin_v) : json_string(""), "policy", run_policy);
        json_decref(files);
        return run;
    }
    json_t *command = expand(&r->run, files);
    if (json_is_array(args))
        json_array_extend(command, args);
    run = json_pack("{s:s,s:o,s:o}", "tier", "process", "command", command, "policy", run_policy);
    if (json_is_string(stdin_v))
        json_object_set(run, "stdin", stdin_v);
    if (r->compile.count == 0) {
        json_object_set_new(run, "files", files);
        return run;
    }
    json_t *compile = json_pack(
        "{s:s,s:o,s:o,s:o}", "tier", "process", "command", expand(&r->compile, files), "files",
        files, "policy",
        stage_policy(body, "compile", COMPILE_TIMEOUT_DEFAULT, COMPILE_MEMORY_DEFAULT, key));
    json_object_del(run, "tier");
    return json_pack("{s:o,s:[o]}", "prepare", compile, "runs", run);
}

static const char *signal_name(int sig, char *buf, size_t cap)
{
    const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;
    if (!abbrev)
        return NULL;
    snprintf(buf, cap, "SIG%s", abbrev);
    return buf;
}

/* One stage in Piston's shape, from a native result object. */
static json_t *stage(json_t *r, int tier)
{
    json_t *err = json_object_get(r, "error");
    const char *code = json_string_value(json_object_get(err, "code"));
    const char *limit = json_string_value(json_object_get(r, "limit"));
    json_int_t sig = json_integer_value(json_object_get(r, "signal"));
    json_t *exit = json_object_get(r, "exitCode");
    bool ok = json_is_true(json_object_get(r, "ok"));
    char sigbuf[32];
    const char *signame = sig > 0 ? signal_name((int)sig, sigbuf, sizeof(sigbuf)) : NULL;
    const char *status = ok                                   ? NULL
                         : limit && !strcmp(limit, "timeout") ? "TO"
                         : limit && !strcmp(limit, "output")
                             ? (json_is_true(json_object_get(r, "stdoutTruncated")) ? "OL" : "EL")
                         : signame                                           ? "SG"
                         : code && !strcmp(code, "SANDBOX_EXECUTION_FAILED") ? "RE"
                                                                             : "XX";
    if (status && (!strcmp(status, "TO") || !strcmp(status, "OL") || !strcmp(status, "EL")))
        signame = "SIGKILL"; /* as Piston reports its kills */
    json_t *output = json_object_get(r, "output");
    char *both = NULL;
    if (!output) {
        const char *o = json_string_value(json_object_get(r, "stdout"));
        const char *e = json_string_value(json_object_get(r, "stderr"));
        if (asprintf(&both, "%s%s", o ? o : "", e ? e : "") < 0)
            both = NULL;
    }
    json_int_t exit_code = tier == SBX_BACKEND_WORKER ? (ok ? 0 : 1) : json_integer_value(exit);
    const char *out = json_string_value(json_object_get(r, "stdout"));
    const char *errs = json_string_value(json_object_get(r, "stderr"));
    const char *message = json_string_value(json_object_get(err, "message"));
    json_t *st = json_pack(
        "{s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:n,s:I,s:n}", "stdout", out ? out : "", "stderr",
        errs ? errs : "", "output", output ? json_incref(output) : json_string(both ? both : ""),
        "code", signame ? json_null() : json_integer(exit_code), "signal",
        signame ? json_string(signame) : json_null(), "message",
        ok || !message ? json_null() : json_string(message), "status",
        status ? json_string(status) : json_null(), "cpu_time", "wall_time",
        (json_int_t)json_number_value(json_object_get(r, "durationMs")), "memory");
    free(both);
    return st;
}

static json_t *answer(const char *result, size_t len, const struct serve_runtime *r)
{
    json_t *res = json_loadb(result, len, 0, NULL);
    json_t *out = json_pack("{s:s,s:s}", "language", r->language, "version", r->version);
    json_t *prepare = json_object_get(res, "prepare");
    if (prepare) {
        json_object_set_new(out, "compile", stage(prepare, SBX_BACKEND_PROCESS));
        json_t *run = json_array_get(json_object_get(res, "runs"), 0);
        if (run) /* a failed compile has no run stage, as in Piston */
            json_object_set_new(out, "run", stage(run, SBX_BACKEND_PROCESS));
    } else {
        json_object_set_new(out, "run", stage(res, r->tier));
    }
    json_decref(res);
    return out;
}

/* Piston's own checks and messages, before the native ones. */
static const char *piston_check(json_t *body)
{
    if (!json_is_object(body))
        return "the request must be a JSON object";
    if (!json_is_string(json_object_get(body, "language")))
        return "language is required as a string";
    json_t *v = json_object_get(body, "version");
    if (v && !json_is_string(v))
        return "version is required as a string";
    if (!json_is_array(json_object_get(body, "files")) ||
        json_array_size(json_object_get(body, "files")) == 0)
        return "files is required as an array";
    static const char *const numbers[] = {"compile_timeout",      "run_timeout",
                                          "compile_cpu_time",     "run_cpu_time",
                                          "compile_memory_limit", "run_memory_limit"};
    for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
        json_t *n = json_object_get(body, numbers[i]);
        if (n && !json_is_null(n) && !json_is_integer(n))
            return "compile_timeout, run_timeout, *_cpu_time and *_memory_limit must be numbers";
    }
    json_t *args = json_object_get(body, "args"), *in = json_object_get(body, "stdin");
    if ((args && !json_is_array(args)) || (in && !json_is_string(in)))
        return "args must be an array of strings, stdin a string";
    return NULL;
}

void piston_execute(struct http_req *req)
{
    json_t *body = http_body_json(req);
    if (!body)
        return;
    const char *why = piston_check(body);
    if (why) {
        http_error(req, 400, 0, "%s", why);
        json_decref(body);
        return;
    }
    const char *language = json_string_value(json_object_get(body, "language"));
    const char *version = json_string_value(json_object_get(body, "version"));
    pthread_mutex_lock(&serve_g->reload_lock);
    const struct serve_runtime *found = serve_runtimes_find(serve_g->runtimes, language, version);
    struct serve_runtime r = found ? *found : (struct serve_runtime){0};
    char lang[80] = "", ver[80] = ""; /* copied: a reload may free the table meanwhile */
    if (found) {
        snprintf(lang, sizeof(lang), "%s", found->language);
        snprintf(ver, sizeof(ver), "%s", found->version);
    }
    char err[1024] = "";
    json_t *native = found ? native_request(body, &r, &req->key, err, sizeof(err)) : NULL;
    pthread_mutex_unlock(&serve_g->reload_lock);
    if (!found)
        http_error(req, 400, 0, "%s-%s runtime is unknown", language, version ? version : "*");
    json_decref(body); /* language and version point into it */
    if (!found)
        return;
    if (!native) {
        http_error(req, 400, 0, "%s", err);
        return;
    }
    struct serve_req sr;
    bool is_batch = json_object_get(native, "prepare") != NULL;
    int status =
        is_batch
            ? serve_request_batch(&serve_g->cfg, &req->key, native, true, &sr, err, sizeof(err))
            : serve_request_run(&serve_g->cfg, &req->key, native, true, &sr, err, sizeof(err));
    json_decref(native);
    if (status) {
        http_error(req, (unsigned)status, 0, "%s", err);
        return;
    }
    char id[SERVE_ID_MAX];
    struct tracked *t;
    sr.wait = true;
    if (api_submit(req, &sr, id, &t)) {
        req->queued_ns = http_now_ns();
        size_t len;
        char *result = api_wait(t, &len);
        req->result_ns = http_now_ns();
        api_tracked_release(t);
        r.language = lang;
        r.version = ver;
        if (result)
            http_json(req, 200, answer(result, len, &r));
        else
            http_error(req, 504, 0, "run %s did not finish within config waitMaxMs", id);
        free(result);
    }
    serve_req_free(&sr);
}

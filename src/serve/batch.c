/* serve/batch.c: compile once, run many. The prepare run gets a writable directory at /work;
 * every run then sees that directory read-only as /work, its cwd, so ["./main"] runs what the
 * prepare built. Runs go `parallel` at a time. With expectedStdout a run gets a judge's verdict;
 * output is compared line by line with trailing whitespace of each line, and empty lines at the
 * end, ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/runner.h"

/* Length of s without its trailing blank lines and each line's trailing spaces, written into
 * out (same size or larger). */
static size_t normalize(const char *s, size_t len, char *out)
{
    size_t n = 0, line_start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '\n') {
            size_t end = i;
            while (end > line_start && strchr(" \t\r\v\f", s[end - 1]))
                end--;
            memcpy(out + n, s + line_start, end - line_start);
            n += end - line_start;
            if (i < len)
                out[n++] = '\n';
            line_start = i + 1;
        }
    }
    while (n > 0 && out[n - 1] == '\n')
        n--;
    return n;
}

static bool same_output(const char *got, size_t got_len, const char *want, size_t want_len)
{
    char *a = malloc(got_len + 1), *b = malloc(want_len + 1);
    bool same = false;
    if (a && b) {
        size_t na = normalize(got, got_len, a), nb = normalize(want, want_len, b);
        same = na == nb && memcmp(a, b, na) == 0;
    }
    free(a);
    free(b);
    return same;
}

static const char *verdict(const struct exec_outcome *o, json_t *expected)
{
    if (o->limit == SBX_LIMIT_TIMEOUT || o->limit == SBX_LIMIT_CPU)
        return "time_limit";
    if (o->limit == SBX_LIMIT_MEMORY)
        return "memory_limit";
    if (o->limit == SBX_LIMIT_OUTPUT)
        return "output_limit";
    if (!o->ok)
        return "runtime_error";
    return same_output(o->stdout_data ? o->stdout_data : "", o->stdout_len,
                       json_string_value(expected), json_string_length(expected))
               ? "accepted"
               : "wrong_answer";
}

/* The result JSON text with "verdict" added (when v is not NULL), its numbers kept as libsbx
 * wrote them. Takes result_json. */
static char *with_verdict(char *result_json, const char *v)
{
    if (!result_json || !v)
        return result_json;
    char quoted[32];
    snprintf(quoted, sizeof(quoted), "\"%s\"", v);
    char *text = serve_json_with(result_json, strlen(result_json), "verdict", quoted, false);
    if (!text)
        return result_json;
    free(result_json);
    return text;
}

struct batch {
    struct runner_job *job;
    json_t *runs;
    char **out; /* each run's result text */
    const char *dir;
    pthread_mutex_t lock;
    size_t next;
};

static void *batch_worker(void *arg)
{
    struct batch *b = arg;
    struct sandbox_cache *cache = sandbox_cache_create();
    struct exec_dir dir = {.host = b->dir, .is_writable = false};
    for (;;) {
        pthread_mutex_lock(&b->lock);
        size_t i = b->next++;
        pthread_mutex_unlock(&b->lock);
        if (i >= json_array_size(b->runs))
            break;
        json_t *spec = json_array_get(b->runs, i);
        json_t *expected = json_object_get(spec, "expectedStdout");
        struct exec_outcome o = {0};
        char *json = cache ? exec_run(cache, b->job, spec, &dir, &o)
                           : serve_error_result(SBX_E_NOMEM, "out of memory");
        b->out[i] = with_verdict(json, expected ? verdict(&o, expected) : NULL);
        free(o.stdout_data);
    }
    sandbox_cache_destroy(cache);
    return NULL;
}

/* {"prepare": ..., "runs": [...]} from the texts (a missing one: an out-of-memory result). */
static char *finish(char *prepare, char **runs, size_t n)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    const char *nomem = "{\"ok\":false,\"error\":{\"code\":\"SANDBOX_HOST_NOMEM\","
                        "\"message\":\"out of memory\"}}";
    if (f) {
        fprintf(f, "{\"prepare\":%s,\"runs\":[", prepare ? prepare : nomem);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s%s", i ? "," : "", runs[i] ? runs[i] : nomem);
        fputs("]}", f);
        fclose(f);
    }
    free(prepare);
    for (size_t i = 0; i < n; i++)
        free(runs[i]);
    free(runs);
    return out;
}

char *batch_run(struct sandbox_cache *cache, struct runner_job *job, json_t *payload,
                const char *root, unsigned parallel)
{
    json_t *prepare = json_object_get(payload, "prepare");
    json_t *runs = json_object_get(payload, "runs");
    char name[48];
    snprintf(name, sizeof(name), "batch%llu", (unsigned long long)job->tag);
    char *dir = exec_make_dir(root, name);
    if (!dir)
        return serve_error_result(SBX_E_IO, "runner: cannot make the batch's directory");
    int rc = exec_write_files(json_object_get(prepare, "files"), dir);
    struct exec_outcome po = {0};
    struct exec_dir pdir = {.host = dir, .is_writable = true};
    char *pjson = rc == 0 ? exec_run(cache, job, prepare, &pdir, &po)
                          : serve_error_result(SBX_E_IO, "cannot write the prepare's files");
    free(po.stdout_data);
    char *pres = with_verdict(pjson, po.ok ? NULL : "compile_error");
    size_t n = po.ok ? json_array_size(runs) : 0;
    char **out = calloc(n ? n : 1, sizeof(char *));
    if (n && out) {
        struct batch b = {.job = job, .runs = runs, .out = out, .dir = dir};
        pthread_mutex_init(&b.lock, NULL);
        pthread_t t[64];
        unsigned k = parallel < n ? parallel : (unsigned)n, started = 0;
        for (unsigned i = 0; i < k && i < 64; i++)
            started += pthread_create(&t[started], NULL, batch_worker, &b) == 0;
        if (started == 0)
            batch_worker(&b);
        for (unsigned i = 0; i < started; i++)
            pthread_join(t[i], NULL);
        pthread_mutex_destroy(&b.lock);
    }
    exec_remove_dir(dir);
    free(dir);
    return finish(pres, out, out ? n : 0);
}

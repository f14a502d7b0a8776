/* serve/exec.c: one run spec through libsbx, in a runner process. Sandboxes are cached by tier
 * and policy text (creating a process-tier handle sets up its cgroup; a run then costs only
 * itself). A run's files land in its directory, which the guest sees at /work, its cwd. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serve/base64.h"
#include "serve/runner.h"

#define CACHE_SLOTS 8
#define WORK_DIR    "/work" /* where the guest sees its files, and its cwd */

struct cache_entry {
    char *key; /* "tier\npolicy text" */
    sbx_sandbox *sb;
    uint64_t used;
};

struct sandbox_cache {
    struct cache_entry e[CACHE_SLOTS];
    uint64_t clock;
};

struct sandbox_cache *sandbox_cache_create(void)
{
    return calloc(1, sizeof(struct sandbox_cache));
}

void sandbox_cache_destroy(struct sandbox_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        sbx_sandbox_destroy(c->e[i].sb);
        free(c->e[i].key);
    }
    free(c);
}

/* The sandbox for key, made from policy text on a miss (the least recently used goes). */
static sbx_sandbox *cache_get(struct sandbox_cache *c, sbx_backend tier, const char *policy,
                              char *err, size_t errlen)
{
    size_t klen = strlen(policy) + 16;
    char *key = malloc(klen);
    if (!key)
        return NULL;
    snprintf(key, klen, "%d\n%s", (int)tier, policy);
    int victim = 0;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (c->e[i].key && strcmp(c->e[i].key, key) == 0) {
            c->e[i].used = ++c->clock;
            free(key);
            return c->e[i].sb;
        }
        if (c->e[i].used < c->e[victim].used)
            victim = i;
    }
    sbx_policy *p = NULL;
    sbx_sandbox *sb = NULL;
    sbx_err e = sbx_policy_parse(policy, strlen(policy), &p, err, errlen);
    if (e == SBX_OK && (e = sbx_sandbox_create(tier, p, &sb)) != SBX_OK)
        snprintf(err, errlen, "%s tier: %s", sbx_backend_name(tier), sbx_err_message(e));
    sbx_policy_destroy(p);
    if (!sb) {
        free(key);
        return NULL;
    }
    sbx_sandbox_destroy(c->e[victim].sb);
    free(c->e[victim].key);
    c->e[victim] = (struct cache_entry){.key = key, .sb = sb, .used = ++c->clock};
    return sb;
}

char *serve_error_result(sbx_err err, const char *message)
{
    json_t *o = json_pack("{s:b,s:n,s:s,s:s,s:b,s:b,s:{s:s,s:s},s:f}", "ok", 0, "value", "stdout",
                          "", "stderr", "", "stdoutTruncated", 0, "stderrTruncated", 0, "error",
                          "code", sbx_err_name(err), "message", message, "durationMs", 0.0);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return s;
}

char *serve_json_with(const char *json, size_t len, const char *key, const char *value_json,
                      bool is_first)
{
    size_t open = 0, close = len;
    while (open < len && strchr(" \t\r\n", json[open]))
        open++;
    while (close > open && strchr(" \t\r\n", json[close - 1]))
        close--;
    if (open >= close || json[open] != '{' || json[close - 1] != '}')
        return NULL;
    size_t inner = open + 1;
    while (inner < close - 1 && strchr(" \t\r\n", json[inner]))
        inner++;
    bool is_empty = inner == close - 1;
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    if (!f)
        return NULL;
    if (is_first)
        fprintf(f, "{\"%s\":%s%s%.*s", key, value_json, is_empty ? "" : ",",
                (int)(close - open - 1), json + open + 1);
    else
        fprintf(f, "%.*s%s\"%s\":%s}", (int)(close - open - 1), json + open, is_empty ? "" : ",",
                key, value_json);
    fclose(f);
    return out;
}

/* The policy text a run gets: the request's policy, plus its /work grant. */
static char *policy_text(json_t *spec, const struct exec_dir *dir)
{
    json_t *policy = json_object_get(spec, "policy");
    json_t *p = policy ? json_deep_copy(policy) : json_object();
    if (p && dir->host) {
        char grant[4200];
        snprintf(grant, sizeof(grant), "%s%s::" WORK_DIR, dir->is_writable ? "rw:" : "", dir->host);
        json_t *fs = json_object_get(p, "fs");
        if (!fs) {
            fs = json_array();
            json_object_set_new(p, "fs", fs);
        }
        json_array_append_new(fs, json_string(grant));
    }
    char *text = p ? json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(p);
    return text;
}

static const char **string_list(json_t *arr, const char *first)
{
    size_t n = json_array_size(arr), k = first ? 1 : 0;
    const char **v = calloc(n + k + 1, sizeof(char *));
    if (!v)
        return NULL;
    if (first)
        v[0] = first;
    for (size_t i = 0; i < n; i++)
        v[k + i] = json_string_value(json_array_get(arr, i));
    return v;
}

/* Registers sb as one of the job's live sandboxes (abort reaches it); false if full. */
static int job_attach(struct runner_job *job, sbx_sandbox *sb)
{
    pthread_mutex_lock(&job->lock);
    int slot = -1;
    for (int i = 0; i < 64 && slot < 0; i++) {
        if (!job->live[i])
            slot = i;
    }
    if (slot >= 0)
        job->live[slot] = sb;
    if (atomic_load(&job->is_aborted)) /* libsbx remembers it: the run ends at once */
        sbx_sandbox_abort(sb);
    pthread_mutex_unlock(&job->lock);
    return slot;
}

static void job_detach(struct runner_job *job, int slot, sbx_sandbox *sb)
{
    pthread_mutex_lock(&job->lock);
    if (slot >= 0)
        job->live[slot] = NULL;
    sbx_sandbox_clear_abort(sb); /* a late abort must not end the cached handle's next run */
    pthread_mutex_unlock(&job->lock);
}

static void keep_outcome(const sbx_result *r, struct exec_outcome *o)
{
    o->ok = r->ok;
    o->limit = r->limit;
    o->error = r->error;
    o->stdout_len = r->stdout_len;
    o->stdout_data = malloc(r->stdout_len + 1);
    if (o->stdout_data) {
        if (r->stdout_len)
            memcpy(o->stdout_data, r->stdout_data, r->stdout_len);
        o->stdout_data[r->stdout_len] = '\0';
    }
}

/* Piston's `output`: stdout and stderr as the guest wrote them, interleaved, within the caps
 * (each chunk is one the result keeps too), forwarded to the stream when the job has one. */
struct combined {
    struct runner_job *job;
    char *buf;
    size_t len, cap;
};

static void combine_output(void *user, sbx_stream stream, const char *data, size_t len)
{
    struct combined *c = user;
    if (c->job->is_stream)
        runner_output(c->job, stream, data, len);
    if (c->len + len + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 4096;
        while (cap < c->len + len + 1)
            cap *= 2;
        char *grown = realloc(c->buf, cap);
        if (!grown)
            return;
        c->buf = grown;
        c->cap = cap;
    }
    memcpy(c->buf + c->len, data, len);
    c->len += len;
    c->buf[c->len] = '\0';
}

/* The result JSON with "output" added. */
static char *with_output(char *json, const struct combined *c)
{
    json_t *v = json_stringn(c->buf ? c->buf : "", c->len);
    char *text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    char *out =
        json ? serve_json_with(json, strlen(json), "output", text ? text : "\"\"", false) : NULL;
    free(text);
    json_decref(v);
    if (!out)
        return json;
    free(json);
    return out;
}

char *exec_run(struct sandbox_cache *cache, struct runner_job *job, json_t *spec,
               const struct exec_dir *dir, struct exec_outcome *outcome)
{
    sbx_backend tier;
    if (sbx_backend_from_name(json_string_value(json_object_get(spec, "tier")), &tier) != 0)
        return serve_error_result(SBX_E_INVALID_ARGUMENT, "tier: unknown");
    char *policy = policy_text(spec, dir);
    char err[512] = "";
    sbx_sandbox *sb = policy ? cache_get(cache, tier, policy, err, sizeof(err)) : NULL;
    free(policy);
    if (!sb)
        return serve_error_result(SBX_E_UNAVAILABLE, err[0] ? err : "out of memory");
    json_t *code = json_object_get(spec, "code"), *module = json_object_get(spec, "module");
    json_t *stdin_v = json_object_get(spec, "stdin"), *ctx = json_object_get(spec, "context");
    uint8_t *wasm = NULL;
    size_t wasm_len = 0;
    if (module && serve_base64_decode(json_string_value(module), json_string_length(module), &wasm,
                                      &wasm_len) != 0)
        return serve_error_result(SBX_E_INVALID_ARGUMENT, "module: not base64");
    const char **argv = NULL;
    if (json_object_get(spec, "command"))
        argv = string_list(json_object_get(spec, "command"), NULL);
    else if (module)
        argv = string_list(json_object_get(spec, "args"), "main.wasm");
    sbx_run_input in = {
        .code = json_string_value(code),
        .code_len = code ? json_string_length(code) : 0,
        .context_json = stdin_v ? json_string_value(stdin_v) : json_string_value(ctx),
        .interpreter = json_string_value(json_object_get(spec, "interpreter")),
        .argv = argv,
        .module = wasm,
        .module_len = wasm_len,
        .on_output = job->is_stream ? runner_output : NULL,
        .on_output_user = job,
        .cwd = dir->host && tier == SBX_BACKEND_PROCESS ? WORK_DIR : NULL,
    };
    struct combined comb = {.job = job};
    bool is_combined = json_is_true(json_object_get(spec, "combinedOutput"));
    if (is_combined) {
        in.on_output = combine_output;
        in.on_output_user = &comb;
    }
    sbx_result r;
    int slot = job_attach(job, sb);
    sbx_sandbox_run(sb, &in, &r);
    job_detach(job, slot, sb);
    char *json = sbx_result_to_json(&r);
    if (is_combined)
        json = with_output(json, &comb);
    free(comb.buf);
    if (outcome)
        keep_outcome(&r, outcome);
    sbx_result_free(&r);
    free(argv);
    free(wasm);
    return json ? json : serve_error_result(SBX_E_NOMEM, "out of memory");
}

/* Files are written in a child of this thread (clone: shared memory, its own copy of the fd
 * table), never here. A write fd in the runner's table would be copied into the jail child of
 * every run that forks meanwhile, which holds it until its own exec; a guest then exec'ing the
 * file it was written to gets ETXTBSY ("Text file busy"). The child makes only system calls on
 * what the parent prepared (no malloc: other threads may hold its locks), with every signal
 * blocked (a handler must not run on the shared memory), as posix_spawn does. */
struct out_file {
    char *name; /* relative, checked by request.c; cut at each '/' while walking */
    const char *data;
    size_t len;
};

struct writer {
    int dirfd;
    bool is_root;
    const struct out_file *files;
    size_t n;
    int rc;       /* 0, or the first failure's -errno */
    bool is_done; /* set last: a child killed midway leaves it false */
};

#define WRITER_STACK (64 * 1024)

/* Opens (creating) each directory of a relative path under dirfd, never following a link. */
__attribute__((no_sanitize_address)) static int open_parent(int dirfd, char *path, bool is_root,
                                                            const char **leaf)
{
    int fd = dup(dirfd);
    char *s = path;
    for (char *c = path; fd >= 0 && *c; c++) {
        if (*c != '/')
            continue;
        *c = '\0';
        bool is_new = mkdirat(fd, s, 0755) == 0;
        if ((!is_new && errno != EEXIST) ||
            (is_new && is_root && fchownat(fd, s, 65534, 65534, AT_SYMLINK_NOFOLLOW))) {
            close(fd);
            return -1;
        }
        int next = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = next;
        s = c + 1;
    }
    *leaf = s;
    return fd;
}

__attribute__((no_sanitize_address)) static int write_one(const struct writer *w,
                                                          const struct out_file *f)
{
    const char *leaf = NULL;
    int parent = open_parent(w->dirfd, f->name, w->is_root, &leaf);
    int fd = parent >= 0
                 ? openat(parent, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755)
                 : -1;
    int rc = fd < 0 ? -errno : 0;
    for (size_t off = 0; fd >= 0 && off < f->len;) {
        ssize_t n = write(fd, f->data + off, f->len - off);
        if (n <= 0) {
            rc = -EIO;
            break;
        }
        off += (size_t)n;
    }
    if (fd >= 0 && w->is_root && fchown(fd, 65534, 65534) != 0)
        rc = -errno; /* as root, the jail's guest is nobody: its files must be its own */
    if (fd >= 0)
        close(fd);
    if (parent >= 0)
        close(parent);
    return rc;
}

__attribute__((no_sanitize_address)) static int writer_main(void *arg)
{
    struct writer *w = arg;
    for (size_t i = 0; w->rc == 0 && i < w->n; i++)
        w->rc = write_one(w, &w->files[i]);
    w->is_done = true;
    return 0;
}

/* Runs writer_main in a child sharing this memory; returns once it has exited. */
static int run_writer(struct writer *w)
{
    char *stack = malloc(WRITER_STACK);
    if (!stack)
        return -ENOMEM;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = clone(writer_main, stack + WRITER_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, w);
    int err = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (pid > 0)
        waitpid(pid, NULL, 0); /* CLONE_VFORK: it has exited already; this reaps it */
    free(stack);
    if (pid < 0)
        return -err;
    return w->is_done ? w->rc : -EIO;
}

/* Decodes each file's content here (the writer child must not allocate). */
static int prepare_files(json_t *files, struct out_file *out, uint8_t **decoded)
{
    for (size_t i = 0; i < json_array_size(files); i++) {
        json_t *file = json_array_get(files, i);
        json_t *content = json_object_get(file, "content");
        const char *enc = json_string_value(json_object_get(file, "encoding"));
        out[i].name = strdup(json_string_value(json_object_get(file, "name")));
        out[i].data = json_string_value(content);
        out[i].len = json_string_length(content);
        if (!out[i].name || !out[i].data)
            return -ENOMEM;
        if (enc && strcmp(enc, "base64") == 0) {
            if (serve_base64_decode(out[i].data, out[i].len, &decoded[i], &out[i].len))
                return -EINVAL;
            out[i].data = (const char *)decoded[i];
        }
    }
    return 0;
}

int exec_write_files(json_t *files, const char *dir)
{
    size_t n = json_array_size(files);
    if (n == 0)
        return 0;
    struct out_file *out = calloc(n, sizeof(*out));
    uint8_t **decoded = calloc(n, sizeof(*decoded));
    int rc = out && decoded ? prepare_files(files, out, decoded) : -ENOMEM;
    struct writer w = {.dirfd = -1, .is_root = geteuid() == 0, .files = out, .n = n};
    if (rc == 0) {
        w.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        rc = w.dirfd < 0 ? -errno : run_writer(&w);
    }
    if (w.dirfd >= 0)
        close(w.dirfd);
    for (size_t i = 0; out && decoded && i < n; i++) {
        free(out[i].name);
        free(decoded[i]);
    }
    free(out);
    free(decoded);
    return rc;
}

/* nftw has no user pointer: one walk at a time (the lock), its mode in this flag. */
static bool is_keeping_top;
static pthread_mutex_t nftw_lock = PTHREAD_MUTEX_INITIALIZER;

/* Pre-order: a directory the guest made unreadable (chmod 000) is opened up before the walk
 * enters it. No guest runs while this does: its jail's pid namespace is gone. */
static int open_up(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    if (flag == FTW_D || flag == FTW_DNR)
        chmod(path, (st->st_mode & 07777) | S_IRWXU);
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (ftw->level == 0 && is_keeping_top)
        return 0;
    remove(path);
    return 0;
}

static bool is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool empty = d != NULL;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
            empty = false;
    }
    if (d)
        closedir(d);
    return empty;
}

static void walk_remove(const char *dir, bool keep_top)
{
    pthread_mutex_lock(&nftw_lock);
    is_keeping_top = keep_top;
    nftw(dir, open_up, 16, FTW_PHYS | FTW_MOUNT);
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
    pthread_mutex_unlock(&nftw_lock);
}

bool exec_clear_dir(const char *dir)
{
    walk_remove(dir, true);
    if (is_empty(dir))
        return true;
    /* What could not be removed must not reach the next run (another key's, perhaps): the
     * directory is set aside and a fresh one takes its path. */
    char aside[4200];
    static _Atomic unsigned n;
    snprintf(aside, sizeof(aside), "%s.stale-%u", dir, atomic_fetch_add(&n, 1));
    if (rename(dir, aside) != 0 || mkdir(dir, 0755) != 0 ||
        (geteuid() == 0 && chown(dir, 65534, 65534) != 0))
        return false;
    fprintf(stderr, "sbx serve: runner: %s could not be emptied; set aside as %s\n", dir, aside);
    return true;
}

void exec_remove_dir(const char *dir)
{
    if (dir)
        walk_remove(dir, false);
}

char *exec_make_dir(const char *root, const char *name)
{
    size_t n = strlen(root) + strlen(name) + 2;
    char *path = malloc(n);
    if (!path)
        return NULL;
    snprintf(path, n, "%s/%s", root, name);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        free(path);
        return NULL;
    }
    /* The jail's guest is uid 1000 mapped to ours, or nobody when we are root. */
    if (geteuid() == 0 && chown(path, 65534, 65534) != 0) {
        free(path);
        return NULL;
    }
    return path;
}

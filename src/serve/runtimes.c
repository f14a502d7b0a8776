/* serve/runtimes.c: the languages of Piston's API, from a JSON file (config "runtimes") or the
 * built-in list (the same as deploy/runtimes.json). Each maps a language and its aliases to the
 * process tier's commands (compile, then run) or to the worker tier; only those whose programs
 * this host has are offered. A version comes from the file, else from its versionCommand. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "serve/serve.h"

extern char **environ;

/* The built-in list: deploy/runtimes.json holds the same text (a test compares them). */
const char serve_runtimes_builtin[] =
    "{\n"
    "  \"runtimes\": [\n"
    "    {\"language\": \"python\", \"aliases\": [\"py\", \"python3\"], \"tier\": \"process\",\n"
    "     \"run\": [\"python3\", \"{file}\"], \"file\": \"main.py\",\n"
    "     \"versionCommand\": [\"python3\", \"--version\"]},\n"
    "    {\"language\": \"javascript\", \"aliases\": [\"js\"], \"tier\": \"worker\",\n"
    "     \"file\": \"main.js\"},\n"
    "    {\"language\": \"node\", \"aliases\": [\"node-js\", \"node-javascript\"], \"tier\": "
    "\"process\",\n"
    "     \"run\": [\"node\", \"{file}\"], \"file\": \"main.js\",\n"
    "     \"versionCommand\": [\"node\", \"--version\"]},\n"
    "    {\"language\": \"bash\", \"aliases\": [\"sh\"], \"tier\": \"process\",\n"
    "     \"run\": [\"bash\", \"{file}\"], \"file\": \"main.sh\",\n"
    "     \"versionCommand\": [\"bash\", \"--version\"]},\n"
    "    {\"language\": \"c\", \"aliases\": [\"gcc\"], \"tier\": \"process\",\n"
    "     \"compile\": [\"gcc\", \"-O2\", \"-o\", \"main\", \"{files}\", \"-lm\"], \"run\": "
    "[\"./main\"],\n"
    "     \"file\": \"main.c\", \"versionCommand\": [\"gcc\", \"-dumpfullversion\"]},\n"
    "    {\"language\": \"c++\", \"aliases\": [\"cpp\", \"g++\"], \"tier\": \"process\",\n"
    "     \"compile\": [\"g++\", \"-O2\", \"-o\", \"main\", \"{files}\"], \"run\": [\"./main\"],\n"
    "     \"file\": \"main.cpp\", \"versionCommand\": [\"g++\", \"-dumpfullversion\"]}\n"
    "  ]\n"
    "}\n";

static const char *const tier_names[] = {"worker", "process", "wasm", NULL};

#define OFF(f) offsetof(struct serve_runtime, f)
static const struct schema_field runtime_fields[] = {
    {"language", SCH_STRING, OFF(language), 0, 64, NULL, NULL, NULL, true, true,
     "the name clients ask for"},
    {"version", SCH_STRING, OFF(version), 0, 64, NULL, NULL, NULL, false, true,
     "its version; none: read from versionCommand's output"},
    {"aliases", SCH_STRINGS, OFF(aliases), 0, 32, "[]", NULL, NULL, false, true, "other names"},
    {"tier", SCH_ENUM, OFF(tier), 0, 0, "\"process\"", NULL, tier_names, false, true,
     "worker (the file is a function body) or process"},
    {"compile", SCH_STRINGS, OFF(compile), 0, 256, "[]", NULL, NULL, false, true,
     "argv of the compile stage; {files} = the files with the main file's extension"},
    {"run", SCH_STRINGS, OFF(run), 0, 256, "[]", NULL, NULL, false, true,
     "argv of the run stage; {file} = the main file; args follow"},
    {"file", SCH_STRING, OFF(file), 0, 255, "\"main\"", NULL, NULL, false, true,
     "the name of a file sent without one"},
    {"versionCommand", SCH_STRINGS, OFF(version_command), 0, 16, "[]", NULL, NULL, false, true,
     "prints the version (first N.N[.N] of its output)"},
};
static const struct schema runtime_schema = {runtime_fields,
                                             sizeof(runtime_fields) / sizeof(runtime_fields[0]),
                                             sizeof(struct serve_runtime)};

struct runtimes_doc {
    struct schema_array runtimes;
};
static const struct schema_field doc_fields[] = {
    {"runtimes", SCH_ARRAY, offsetof(struct runtimes_doc, runtimes), 0, 1000, "[]", &runtime_schema,
     NULL, true, true, "the languages"},
};
static const struct schema doc_schema = {doc_fields, 1, sizeof(struct runtimes_doc)};

/* Whether argv0 names a program on this host ("./x" is the compile's output: present). */
static bool on_host(const char *argv0)
{
    if (!argv0 || strncmp(argv0, "./", 2) == 0)
        return argv0 != NULL;
    if (strchr(argv0, '/'))
        return access(argv0, X_OK) == 0;
    const char *path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *s = path; *s;) {
        size_t n = strcspn(s, ":");
        char full[512];
        snprintf(full, sizeof(full), "%.*s/%s", (int)n, s, argv0);
        if (access(full, X_OK) == 0)
            return true;
        s += n + (s[n] == ':');
    }
    return false;
}

/* Runs argv with a 5 s bound and returns the first N.N[.N] of its output, or NULL. */
static char *probe_version(const struct schema_strv *argv)
{
    int p[2];
    if (argv->count == 0 || pipe2(p, O_CLOEXEC) != 0)
        return NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv->v[0], &fa, NULL, argv->v, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    char out[512] = "";
    size_t n = 0;
    struct pollfd pf = {.fd = p[0], .events = POLLIN};
    while (rc == 0 && n < sizeof(out) - 1 && poll(&pf, 1, 5000) > 0) {
        ssize_t k = read(p[0], out + n, sizeof(out) - 1 - n);
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(p[0]);
    if (rc == 0) {
        kill(pid, SIGKILL); /* done, or over its bound */
        waitpid(pid, NULL, 0);
    }
    out[n] = '\0';
    for (char *s = out; *s; s++) {
        size_t d = strspn(s, "0123456789");
        if (d > 0 && s[d] == '.' && s[d + 1] >= '0' && s[d + 1] <= '9' &&
            (s == out || s[-1] != '.')) {
            size_t len = strspn(s, "0123456789.");
            while (len > 0 && s[len - 1] == '.')
                len--;
            return strndup(s, len);
        }
        if (d > 0)
            s += d - 1;
    }
    return NULL;
}

bool serve_runtimes_load(const char *path, struct serve_runtimes *rt, char *err, size_t errlen)
{
    memset(rt, 0, sizeof(*rt));
    char *text = NULL;
    size_t len = 0;
    if (path) {
        FILE *f = fopen(path, "re");
        if (!f) {
            snprintf(err, errlen, "runtimes: %s: %s", path, strerror(errno));
            return false;
        }
        FILE *mem = open_memstream(&text, &len);
        char buf[4096];
        size_t k;
        while (mem && (k = fread(buf, 1, sizeof(buf), f)) > 0 && len < (1u << 20))
            fwrite(buf, 1, k, mem);
        if (mem)
            fclose(mem);
        fclose(f);
    }
    char jerr[256];
    json_t *v = schema_load(text ? text : serve_runtimes_builtin,
                            text ? len : strlen(serve_runtimes_builtin), jerr, sizeof(jerr));
    free(text);
    if (!v) {
        snprintf(err, errlen, "runtimes: %s", jerr);
        return false;
    }
    struct runtimes_doc doc = {0};
    bool ok = schema_parse(&doc_schema, v, "runtimes", &doc, err, errlen);
    json_decref(v);
    rt->all = doc.runtimes;
    if (!ok)
        return false;
    struct serve_runtime *all = rt->all.items;
    rt->list = calloc(rt->all.count ? rt->all.count : 1, sizeof(*rt->list));
    for (size_t i = 0; rt->list && i < rt->all.count; i++) {
        struct serve_runtime *r = &all[i];
        bool is_worker = r->tier == SBX_BACKEND_WORKER;
        if (!is_worker && (r->run.count == 0 || !on_host(r->run.v[0]) ||
                           (r->compile.count && !on_host(r->compile.v[0]))))
            continue; /* not on this host: not offered */
        if (!r->version)
            r->version = is_worker ? strdup(sbx_version()) : probe_version(&r->version_command);
        if (r->version)
            rt->list[rt->count++] = *r;
    }
    return true;
}

void serve_runtimes_free(struct serve_runtimes *rt)
{
    struct runtimes_doc doc = {.runtimes = rt->all};
    schema_free(&doc_schema, &doc);
    free(rt->list);
    memset(rt, 0, sizeof(*rt));
}

/* A version selector: "", "*", "x", or a prefix of dotted components ("3", "3.11", "3.11.2",
 * "3.x"). */
static bool version_matches(const char *have, const char *want)
{
    if (!want || !*want || strcmp(want, "*") == 0)
        return true;
    for (;;) {
        size_t a = strcspn(have, "."), b = strcspn(want, ".");
        bool is_any = (b == 1 && (want[0] == 'x' || want[0] == 'X' || want[0] == '*'));
        if (!is_any && (a != b || strncmp(have, want, a) != 0))
            return false;
        if (!want[b])
            return true;
        if (!have[a])
            return false;
        have += a + 1;
        want += b + 1;
    }
}

const struct serve_runtime *serve_runtimes_find(const struct serve_runtimes *rt,
                                                const char *language, const char *version)
{
    for (size_t i = 0; language && i < rt->count; i++) {
        const struct serve_runtime *r = &rt->list[i];
        bool named = strcmp(r->language, language) == 0;
        for (size_t j = 0; !named && j < r->aliases.count; j++)
            named = strcmp(r->aliases.v[j], language) == 0;
        if (named && version_matches(r->version, version))
            return r;
    }
    return NULL;
}

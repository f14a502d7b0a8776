/* serve/config.c: the one table of sbx serve's config fields (type, bounds, default, reload,
 * meaning). It drives --config parsing and validation with JSON paths, the defaults, --help's
 * `sbx serve --config-reference` and the table in docs/serve.md (a test compares the two). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"

#define MiB     (1ull << 20)
#define OFF(f)  offsetof(struct serve_config, f)
#define KOFF(f) offsetof(struct serve_key_cfg, f)
#define COFF(f) offsetof(struct serve_ceiling, f)

static const char *const tier_names[] = {"worker", "process", "wasm", NULL};

static const struct schema_field ceiling_fields[] = {
    {"timeoutMs", SCH_UINT, COFF(timeout_ms), 1, 3600000, "60000", NULL, NULL, false, true,
     "most policy.timeoutMs a run may ask for"},
    {"memoryBytes", SCH_UINT, COFF(memory_bytes), 262144, 1ull << 40, "1073741824", NULL, NULL,
     false, true, "most policy.memoryBytes"},
    {"pids", SCH_UINT, COFF(pids), 1, 32768, "256", NULL, NULL, false, true, "most policy.pids"},
    {"maxOutputBytes", SCH_UINT, COFF(max_output_bytes), 0, 1ull << 30, "16777216", NULL, NULL,
     false, true, "most policy.maxOutputBytes"},
    {"fs", SCH_BOOL, COFF(fs), 0, 0, "false", NULL, NULL, false, true,
     "whether policy.fs may grant host paths at all"},
    {"net", SCH_BOOL, COFF(net), 0, 0, "false", NULL, NULL, false, true,
     "whether policy.net (loopback, outbound) may be set at all"},
};
static const struct schema ceiling_schema = {ceiling_fields,
                                             sizeof(ceiling_fields) / sizeof(ceiling_fields[0]),
                                             sizeof(struct serve_ceiling)};

#define KEY_LIMIT_FIELDS                                                                           \
    {"tiers",                                                                                      \
     SCH_STRINGS,                                                                                  \
     KOFF(tiers),                                                                                  \
     0,                                                                                            \
     3,                                                                                            \
     "[\"worker\",\"process\",\"wasm\"]",                                                          \
     NULL,                                                                                         \
     tier_names,                                                                                   \
     false,                                                                                        \
     true,                                                                                         \
     "tiers the key may use"},                                                                     \
        {"ceiling",                                                                                \
         SCH_OBJECT,                                                                               \
         KOFF(ceiling),                                                                            \
         0,                                                                                        \
         0,                                                                                        \
         NULL,                                                                                     \
         &ceiling_schema,                                                                          \
         NULL,                                                                                     \
         false,                                                                                    \
         true,                                                                                     \
         "the most its runs may ask for (403 beyond)"},                                            \
        {"concurrency",                                                                            \
         SCH_UINT,                                                                                 \
         KOFF(concurrency),                                                                        \
         1,                                                                                        \
         100000,                                                                                   \
         "64",                                                                                     \
         NULL,                                                                                     \
         NULL,                                                                                     \
         false,                                                                                    \
         true,                                                                                     \
         "runs queued or running at once (429 beyond)"},                                           \
        {"ratePerSecond",                                                                          \
         SCH_UINT,                                                                                 \
         KOFF(rate_per_second),                                                                    \
         1,                                                                                        \
         1000000,                                                                                  \
         "1000",                                                                                   \
         NULL,                                                                                     \
         NULL,                                                                                     \
         false,                                                                                    \
         true,                                                                                     \
         "requests per second, bursts of as many (429 beyond)"},

static const struct schema_field key_fields[] = {
    {"name", SCH_STRING, KOFF(name), 0, SERVE_KEY_NAME_MAX - 1, NULL, NULL, NULL, true, true,
     "the key's name (logs, metrics, 429 messages)"},
    {"sha256", SCH_STRING, KOFF(sha256), 0, 64, NULL, NULL, NULL, true, true,
     "hex SHA-256 of the token clients send (sha256sum of it, without a newline)"},
    KEY_LIMIT_FIELDS};
const struct schema serve_key_schema = {key_fields, sizeof(key_fields) / sizeof(key_fields[0]),
                                        sizeof(struct serve_key_cfg)};
static const struct schema_field anon_fields[] = {KEY_LIMIT_FIELDS};
static const struct schema anon_schema = {anon_fields, sizeof(anon_fields) / sizeof(anon_fields[0]),
                                          sizeof(struct serve_key_cfg)};

static const struct schema_field config_fields[] = {
    {"listen", SCH_STRING, OFF(listen), 0, 255, "\"127.0.0.1:8080\"", NULL, NULL, false, false,
     "HOST:PORT to listen on (`--listen` overrides); [::1]:PORT for IPv6"},
    {"runners", SCH_UINT, OFF(runners), 0, 256, "0", NULL, NULL, false, false,
     "runner processes; 0 = one per core"},
    {"runnerSlots", SCH_UINT, OFF(runner_slots), 1, 64, "4", NULL, NULL, false, false,
     "runs one runner executes at once"},
    {"queueMax", SCH_UINT, OFF(queue_max), 1, 10000000, "10000", NULL, NULL, false, false,
     "queued runs at most (503 + Retry-After beyond)"},
    {"queueMaxBytes", SCH_UINT, OFF(queue_max_bytes), MiB, 1ull << 40, "268435456", NULL, NULL,
     false, false, "bytes of queued requests at most (503 beyond)"},
    {"bodyLimitBytes", SCH_UINT, OFF(body_limit_bytes), 1024, 1ull << 30, "8388608", NULL, NULL,
     false, false, "request body size limit (413 beyond)"},
    {"resultTtlSeconds", SCH_UINT, OFF(result_ttl_s), 1, 30ull * 86400, "3600", NULL, NULL, false,
     false, "how long a result is kept for GET /v1/runs/{id}"},
    {"resultsMax", SCH_UINT, OFF(results_max), 1, 10000000, "10000", NULL, NULL, false, false,
     "results kept at most (the oldest go first)"},
    {"resultsMaxBytes", SCH_UINT, OFF(results_max_bytes), MiB, 1ull << 40, "268435456", NULL, NULL,
     false, false, "bytes of results kept at most (the oldest go first)"},
    {"runtimes", SCH_STRING, OFF(runtimes), 0, 4095, NULL, NULL, NULL, false, true,
     "Piston runtimes file (JSON); none: the built-in list (deploy/runtimes.json)"},
    {"keys", SCH_ARRAY, OFF(keys), 0, 10000, "[]", &serve_key_schema, NULL, false, true,
     "API keys; none: the server listens on loopback only, with the anonymous key"},
    {"anonymous", SCH_OBJECT, OFF(anonymous), 0, 0, NULL, &anon_schema, NULL, false, true,
     "tiers, ceiling and limits of requests without a key, when no key is configured"},
    {"headerTimeoutMs", SCH_UINT, OFF(header_timeout_ms), 100, 600000, "10000", NULL, NULL, false,
     false, "a request's headers must arrive within this (else the connection is closed)"},
    {"bodyTimeoutMs", SCH_UINT, OFF(body_timeout_ms), 100, 3600000, "30000", NULL, NULL, false,
     false, "a request's body must arrive within this (408)"},
    {"maxConnections", SCH_UINT, OFF(max_connections), 1, 100000, "1024", NULL, NULL, false, false,
     "HTTP connections at once (one thread each)"},
    {"filesMax", SCH_UINT, OFF(files_max), 0, 10000, "64", NULL, NULL, false, false,
     "files of one run at most"},
    {"fileMaxBytes", SCH_UINT, OFF(file_max_bytes), 0, 1ull << 30, "4194304", NULL, NULL, false,
     false, "bytes of one file at most (decoded)"},
    {"batchMax", SCH_UINT, OFF(batch_max), 1, 100000, "256", NULL, NULL, false, false,
     "runs of one batch at most"},
    {"batchParallel", SCH_UINT, OFF(batch_parallel), 1, 64, "2", NULL, NULL, false, false,
     "runs of one batch executed at once"},
    {"waitMaxMs", SCH_UINT, OFF(wait_max_ms), 1, 3600000, "120000", NULL, NULL, false, false,
     "how long a wait=true request waits before answering 202 {id, status}"},
    {"drainMs", SCH_UINT, OFF(drain_ms), 0, 3600000, "30000", NULL, NULL, false, false,
     "SIGTERM: how long runs in flight may finish (`--drain-ms` overrides)"},
    {"callbackAllowPrivate", SCH_BOOL, OFF(callback_allow_private), 0, 0, "false", NULL, NULL,
     false, false,
     "allow callbackUrl to loopback, private, link-local and metadata addresses (tests only)"},
    {"callbackTimeoutMs", SCH_UINT, OFF(callback_timeout_ms), 100, 600000, "10000", NULL, NULL,
     false, false, "one callback POST's bound (connect included)"},
    {"callbackQueueMax", SCH_UINT, OFF(callback_queue_max), 1, 1000000, "10000", NULL, NULL, false,
     false, "callbacks waiting to be sent at most (beyond: dropped, counted)"},
    {"queue", SCH_STRING, OFF(queue), 0, 1023, "\"\"", NULL, NULL, false, false,
     "where runs wait: \"\" = in this process; redis://[USER:PASSWORD@]HOST:PORT[/DB] = a Redis "
     "shared by API and worker nodes on any machines (`--queue` overrides)"},
    {"role", SCH_ENUM, OFF(role), 0, 0, "\"all\"", NULL, serve_role_names, false, false,
     "api: accept requests and queue them; worker: claim and run them; all: both "
     "(`--role` overrides; api and worker need a Redis queue)"},
    {"node", SCH_STRING, OFF(node), 0, 100, "\"\"", NULL, NULL, false, false,
     "this node's name among the queue's consumers and in metrics; \"\" = HOSTNAME-PID "
     "(`--node` overrides; unique per process)"},
    {"visibilityMs", SCH_UINT, OFF(visibility_ms), 100, 3600000, "30000", NULL, NULL, false, false,
     "Redis queue: a claim not renewed for this long (its worker died, froze or lost Redis) "
     "is taken over by another worker"},
    {"maxAttempts", SCH_UINT, OFF(max_attempts), 1, 100, "3", NULL, NULL, false, false,
     "Redis queue: claims of a run before it fails with SANDBOX_RUNNER_DIED (its workers were "
     "lost each time); the embedded queue makes one"},
};

const char *const serve_role_names[] = {"all", "api", "worker", NULL};
const struct schema serve_config_schema = {
    config_fields, sizeof(config_fields) / sizeof(config_fields[0]), sizeof(struct serve_config)};

static char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap && cap < (64u << 20)) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
            }
            buf = grown;
            cap *= 2;
        } else if (n == cap) {
            snprintf(err, errlen, "%s: larger than 64 MiB", path);
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    if (!buf && !*err)
        snprintf(err, errlen, "%s: out of memory", path);
    *len = n;
    return buf;
}

static bool check_hex(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++) {
        if (!isxdigit((unsigned char)s[n]))
            return false;
    }
    return n == 64;
}

/* What the table cannot say: each key's digest is 64 hex digits, names are unique. */
static bool check_keys(const struct serve_config *cfg, char *err, size_t errlen)
{
    const struct serve_key_cfg *keys = cfg->keys.items;
    for (size_t i = 0; i < cfg->keys.count; i++) {
        if (!check_hex(keys[i].sha256)) {
            snprintf(err, errlen, "config.keys[%zu].sha256: must be 64 hex digits", i);
            return false;
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(keys[i].name, keys[j].name) == 0) {
                snprintf(err, errlen, "config.keys[%zu].name: \"%s\" is also keys[%zu]'s name", i,
                         keys[i].name, j);
                return false;
            }
        }
    }
    return true;
}

bool serve_config_load(const char *path, struct serve_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof(*cfg));
    err[0] = '\0';
    if (!path)
        return schema_defaults(&serve_config_schema, cfg, err, errlen);
    size_t len = 0;
    char *text = read_file(path, &len, err, errlen);
    if (!text)
        return false;
    bool ok = serve_config_parse(text, len, cfg, err, errlen);
    free(text);
    return ok;
}

bool serve_config_parse(const char *text, size_t len, struct serve_config *cfg, char *err,
                        size_t errlen)
{
    memset(cfg, 0, sizeof(*cfg));
    char jerr[256];
    json_t *v = schema_load(text, len, jerr, sizeof(jerr));
    if (!v) {
        snprintf(err, errlen, "config: %s", jerr);
        return false;
    }
    bool ok = schema_parse(&serve_config_schema, v, "config", cfg, err, errlen) &&
              check_keys(cfg, err, errlen);
    json_decref(v);
    return ok;
}

void serve_config_free(struct serve_config *cfg)
{
    schema_free(&serve_config_schema, cfg);
}

void serve_config_reference(FILE *out)
{
    fprintf(out, "| field | type | range | default | SIGHUP reloads | meaning |\n"
                 "|---|---|---|---|---|---|\n");
    schema_reference(&serve_config_schema, "", out);
}

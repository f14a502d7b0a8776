/* telemetry/otlp_env.c: the exporter's configuration from the standard OTEL_* variables
 * (opentelemetry-specification, "OTLP Exporter Configuration" and "Resource SDK"). A per-signal
 * variable (OTEL_EXPORTER_OTLP_TRACES_*) replaces the generic one. Header keys must be HTTP
 * tokens and values may not carry CR, LF or NUL, so a variable cannot inject extra headers. A
 * rejected variable is named in this thread's create error. */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/otlp.h"
#include "util/alloc.h"

#define DEFAULT_ENDPOINT   "http://localhost:4318"
#define DEFAULT_TIMEOUT_MS 10000
#define DEFAULT_QUEUE_SIZE 2048
#define MAX_QUEUE_SIZE     1000000
#define MAX_TIMEOUT_MS     3600000
#define MAX_ITEMS          64 /* headers, resource attributes */

static _Thread_local char create_error[256];

char *sbx__otlp_create_error(void)
{
    return create_error;
}

__attribute__((format(printf, 2, 3))) static sbx_err reject(const char *var, const char *fmt, ...)
{
    int n = snprintf(create_error, sizeof(create_error), "%s: ", var);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof(create_error))
        vsnprintf(create_error + n, sizeof(create_error) - (size_t)n, fmt, ap);
    va_end(ap);
    return SBX_E_INVALID_OPTIONS;
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
}

/* The per-signal form of a generic variable if set, else the generic one; *used names it. */
static const char *env2(const char *specific, const char *generic, const char **used)
{
    const char *v = env(specific);
    *used = v ? specific : generic;
    return v ? v : env(generic);
}

static bool is_http_url(const char *url)
{
    return strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0;
}

/* Returns the signal URL: the signal-specific variable as is, else base + path. */
static sbx_err signal_url(const char *specific_var, const char *path, char **out)
{
    const char *specific = env(specific_var);
    if (specific) {
        if (!is_http_url(specific))
            return reject(specific_var, "'%s' is not an http:// or https:// URL", specific);
        *out = sbx__strdup(specific);
        return *out ? SBX_OK : SBX_E_NOMEM;
    }
    const char *base = env("OTEL_EXPORTER_OTLP_ENDPOINT");
    base = base ? base : DEFAULT_ENDPOINT;
    if (!is_http_url(base))
        return reject("OTEL_EXPORTER_OTLP_ENDPOINT", "'%s' is not an http:// or https:// URL",
                      base);
    size_t len = strlen(base);
    while (len > 0 && base[len - 1] == '/')
        len--;
    size_t plen = strlen(path);
    char *url = sbx__mallocn(len + plen + 1, 1);
    if (!url)
        return SBX_E_NOMEM;
    memcpy(url, base, len);
    memcpy(url + len, path, plen + 1);
    *out = url;
    return SBX_OK;
}

static sbx_err parse_ulong(const char *var, const char *v, unsigned long hi, unsigned long *out)
{
    if (!v)
        return SBX_OK;
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (errno || *end || v[0] == '-' || v[0] == '+' || n < 1 || n > hi)
        return reject(var, "'%s' is not a whole number in 1..%lu", v, hi);
    *out = n;
    return SBX_OK;
}

static int hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static const char *trim(const char *s, const char *end, const char **out_end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    *out_end = end;
    return s;
}

/* Percent-decodes [s, end) into out (room for end - s bytes); a '%' not followed by two hex
 * digits stays as it is. Returns the decoded length. */
static size_t percent_decode(const char *s, const char *end, char *out)
{
    size_t n = 0;
    for (const char *p = s; p < end; p++) {
        if (*p == '%' && end - p >= 3 && hex(p[1]) >= 0 && hex(p[2]) >= 0) {
            out[n++] = (char)(hex(p[1]) * 16 + hex(p[2]));
            p += 2;
        } else {
            out[n++] = *p;
        }
    }
    return n;
}

/* One decoded "key=value" item of a list variable. */
struct item {
    char *key, *value; /* one allocation, key first */
};

static sbx_err split_item(const char *var, const char *s, const char *end, struct item *it)
{
    const char *eq = memchr(s, '=', (size_t)(end - s));
    if (!eq)
        return reject(var, "'%.*s' has no '='", (int)(end - s), s);
    const char *kend, *vend;
    const char *k = trim(s, eq, &kend), *v = trim(eq + 1, end, &vend);
    char *mem = sbx__mallocn((size_t)(end - s) + 2, 1);
    if (!mem)
        return SBX_E_NOMEM;
    size_t kn = percent_decode(k, kend, mem);
    mem[kn] = '\0';
    size_t vn = percent_decode(v, vend, mem + kn + 1);
    mem[kn + 1 + vn] = '\0';
    if (kn == 0 || memchr(mem, '\0', kn) || memchr(mem + kn + 1, '\0', vn) ||
        strpbrk(mem, "\r\n") || strpbrk(mem + kn + 1, "\r\n")) {
        sbx__free(mem);
        return reject(var, "'%.*s': empty key, or CR, LF or NUL in it", (int)(end - s), s);
    }
    it->key = mem;
    it->value = mem + kn + 1;
    return SBX_OK;
}

/* Calls add(ctx, item) for each non-empty comma-separated item of v; add takes the item. */
static sbx_err each_item(const char *var, const char *v, sbx_err (*add)(void *, struct item *),
                         void *ctx)
{
    size_t count = 0;
    while (v && *v) {
        const char *comma = strchr(v, ',');
        const char *end = comma ? comma : v + strlen(v);
        const char *tend, *t = trim(v, end, &tend);
        if (t != tend) {
            if (count++ == MAX_ITEMS)
                return reject(var, "more than %d items", MAX_ITEMS);
            struct item it;
            sbx_err e = split_item(var, t, tend, &it);
            if (e == SBX_OK)
                e = add(ctx, &it);
            if (e != SBX_OK)
                return e;
        }
        v = comma ? comma + 1 : end;
    }
    return SBX_OK;
}

static bool is_token(const char *s)
{
    static const char extra[] = "!#$%&'*+-.^_`|~";
    for (; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr(extra, *s)))
            return false;
    }
    return true;
}

struct header_ctx {
    struct sbx__otlp_signal *sig;
    const char *var;
};

/* "Key: value", or curl's "Key;" which sends the header with an empty value ("Key:" would
 * remove it). */
static sbx_err add_header(void *arg, struct item *it)
{
    struct header_ctx *c = arg;
    sbx_err e = SBX_OK;
    if (!is_token(it->key))
        e = reject(c->var, "header name '%s' is not an HTTP token", it->key);
    char *line = NULL;
    if (e == SBX_OK) {
        size_t n = strlen(it->key) + strlen(it->value) + 3;
        line = sbx__mallocn(n, 1);
        if (!line)
            e = SBX_E_NOMEM;
        else if (it->value[0])
            snprintf(line, n, "%s: %s", it->key, it->value);
        else
            snprintf(line, n, "%s;", it->key);
    }
    sbx__free(it->key);
    if (e == SBX_OK)
        c->sig->headers[c->sig->header_count++] = line;
    return e;
}

static sbx_err parse_headers(struct sbx__otlp_signal *sig, const char *specific)
{
    const char *var;
    const char *v = env2(specific, "OTEL_EXPORTER_OTLP_HEADERS", &var);
    if (!v)
        return SBX_OK;
    sig->headers = sbx__calloc(MAX_ITEMS, sizeof(char *));
    if (!sig->headers)
        return SBX_E_NOMEM;
    struct header_ctx c = {sig, var};
    return each_item(var, v, add_header, &c);
}

/* http/protobuf is the specification's default; grpc is not spoken: sent as http/protobuf to the
 * same URL, and said in this thread's create note (sbx_otlp_last_error(NULL) after a successful
 * create): the library never writes to the host's stderr; the CLI prints the note. */
static sbx_err parse_protocol(struct sbx__otlp_signal *sig, const char *specific)
{
    const char *var;
    const char *v = env2(specific, "OTEL_EXPORTER_OTLP_PROTOCOL", &var);
    sig->protocol = SBX__OTLP_PROTOBUF;
    if (!v || strcmp(v, "http/protobuf") == 0)
        return SBX_OK;
    if (strcmp(v, "http/json") == 0) {
        sig->protocol = SBX__OTLP_JSON;
        return SBX_OK;
    }
    if (strcmp(v, "grpc") != 0)
        return reject(var, "'%s' is not http/protobuf, http/json or grpc", v);
    if (!create_error[0])
        snprintf(create_error, sizeof(create_error),
                 "%s=grpc is not supported; sending http/protobuf over HTTP instead", var);
    return SBX_OK;
}

/* OTEL_{TRACES,METRICS}_EXPORTER: "otlp" (the default) or "none"; this exporter speaks no other
 * protocol, so any other value is rejected rather than ignored. */
static sbx_err exporter_off(const char *var, bool *is_off)
{
    const char *v = env(var);
    *is_off = v && strcmp(v, "none") == 0;
    if (!v || *is_off || strcmp(v, "otlp") == 0)
        return SBX_OK;
    return reject(var, "'%s' is not otlp or none", v);
}

static sbx_err signal_config(struct sbx__otlp_signal *sig, const char *name, const char *upper,
                             const char *path)
{
    char var[4][64];
    static const char *const suffix[] = {"ENDPOINT", "TIMEOUT", "HEADERS", "PROTOCOL"};
    for (size_t i = 0; i < 4; i++)
        snprintf(var[i], sizeof(var[i]), "OTEL_EXPORTER_OTLP_%s_%s", upper, suffix[i]);
    char off_var[32];
    snprintf(off_var, sizeof(off_var), "OTEL_%s_EXPORTER", upper);
    sig->name = name;
    const char *tvar;
    const char *tv = env2(var[1], "OTEL_EXPORTER_OTLP_TIMEOUT", &tvar);
    unsigned long timeout = DEFAULT_TIMEOUT_MS;
    sbx_err e = signal_url(var[0], path, &sig->url);
    if (e == SBX_OK)
        e = parse_ulong(tvar, tv, MAX_TIMEOUT_MS, &timeout);
    if (e == SBX_OK)
        e = parse_headers(sig, var[2]);
    if (e == SBX_OK)
        e = parse_protocol(sig, var[3]);
    if (e == SBX_OK)
        e = exporter_off(off_var, &sig->is_off);
    sig->timeout_ms = (long)timeout;
    return e;
}

/* Takes the item; a repeated key keeps its last value. The service name is held back: it is
 * the resource's, unless OTEL_SERVICE_NAME says otherwise. */
static sbx_err add_resource(void *arg, struct item *it)
{
    struct sbx__otlp_config *cfg = arg;
    for (size_t i = 0; i < cfg->resource_count; i++) {
        if (strcmp(cfg->resource[i].key, it->key) == 0) {
            sbx__free((char *)cfg->resource[i].key);
            cfg->resource[i] = (sbx_attr){it->key, it->value, SBX_ATTR_STRING};
            return SBX_OK;
        }
    }
    cfg->resource[cfg->resource_count++] = (sbx_attr){it->key, it->value, SBX_ATTR_STRING};
    return SBX_OK;
}

static sbx_err add_own(struct sbx__otlp_config *cfg, const char *key, const char *value)
{
    size_t kn = strlen(key), vn = strlen(value);
    char *mem = sbx__mallocn(kn + vn + 2, 1);
    if (!mem)
        return SBX_E_NOMEM;
    memcpy(mem, key, kn + 1);
    memcpy(mem + kn + 1, value, vn + 1);
    struct item it = {mem, mem + kn + 1};
    return add_resource(cfg, &it);
}

/* OTEL_RESOURCE_ATTRIBUTES ("k=v,k2=v%20x", percent-decoded), then service.name (from
 * OTEL_SERVICE_NAME, else the one given there, else "unknown_service:<program>") and the SDK's
 * own telemetry.sdk.name and .version, which the variable cannot override. */
static sbx_err resource(struct sbx__otlp_config *cfg)
{
    cfg->resource = sbx__calloc(MAX_ITEMS + 3, sizeof(sbx_attr));
    if (!cfg->resource)
        return SBX_E_NOMEM;
    sbx_err e =
        each_item("OTEL_RESOURCE_ATTRIBUTES", env("OTEL_RESOURCE_ATTRIBUTES"), add_resource, cfg);
    if (e != SBX_OK)
        return e;
    const char *name = env("OTEL_SERVICE_NAME");
    char dflt[128];
    for (size_t i = 0; !name && i < cfg->resource_count; i++) {
        if (strcmp(cfg->resource[i].key, "service.name") == 0)
            name = cfg->resource[i].value;
    }
    if (!name) {
        snprintf(dflt, sizeof(dflt), "unknown_service:%s", program_invocation_short_name);
        name = dflt;
    }
    char *keep = sbx__strdup(name); /* name may point into the entry it replaces */
    if (!keep)
        return SBX_E_NOMEM;
    e = add_own(cfg, "service.name", keep);
    sbx__free(keep);
    if (e == SBX_OK)
        e = add_own(cfg, "telemetry.sdk.name", "sbx");
    if (e == SBX_OK)
        e = add_own(cfg, "telemetry.sdk.version", SBX_VERSION);
    return e;
}

sbx_err sbx__otlp_config_from_env(struct sbx__otlp_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    create_error[0] = '\0';
    unsigned long queue = DEFAULT_QUEUE_SIZE;
    sbx_err e = signal_config(&cfg->traces, "traces", "TRACES", "/v1/traces");
    if (e == SBX_OK)
        e = signal_config(&cfg->metrics, "metrics", "METRICS", "/v1/metrics");
    if (e == SBX_OK)
        e = parse_ulong("OTEL_BSP_MAX_QUEUE_SIZE", env("OTEL_BSP_MAX_QUEUE_SIZE"), MAX_QUEUE_SIZE,
                        &queue);
    if (e == SBX_OK)
        e = resource(cfg);
    if (e != SBX_OK) {
        sbx__otlp_config_free(cfg);
        return e;
    }
    cfg->max_queued_spans = queue;
    return SBX_OK;
}

static void signal_free(struct sbx__otlp_signal *sig)
{
    sbx__free(sig->url);
    for (size_t i = 0; i < sig->header_count; i++)
        sbx__free(sig->headers[i]);
    sbx__free(sig->headers);
}

void sbx__otlp_config_free(struct sbx__otlp_config *cfg)
{
    signal_free(&cfg->traces);
    signal_free(&cfg->metrics);
    for (size_t i = 0; i < cfg->resource_count; i++)
        sbx__free((char *)cfg->resource[i].key);
    sbx__free(cfg->resource);
    memset(cfg, 0, sizeof(*cfg));
}

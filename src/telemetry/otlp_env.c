/* telemetry/otlp_env.c: the exporter's configuration from the standard OTEL_* variables
 * (opentelemetry-specification, "OTLP Exporter Configuration"). A header value may not carry CR
 * or LF, so a variable cannot inject extra HTTP headers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/otlp.h"
#include "util/alloc.h"

#define DEFAULT_ENDPOINT   "http://localhost:4318"
#define DEFAULT_TIMEOUT_MS 10000
#define DEFAULT_QUEUE_SIZE 2048
#define MAX_QUEUE_SIZE     1000000
#define MAX_HEADERS        64

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
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
            return SBX_E_INVALID_OPTIONS;
        *out = sbx__strdup(specific);
        return *out ? SBX_OK : SBX_E_NOMEM;
    }
    const char *base = env("OTEL_EXPORTER_OTLP_ENDPOINT");
    base = base ? base : DEFAULT_ENDPOINT;
    if (!is_http_url(base))
        return SBX_E_INVALID_OPTIONS;
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

static sbx_err parse_ulong(const char *var, unsigned long lo, unsigned long hi, unsigned long dflt,
                           unsigned long *out)
{
    const char *v = env(var);
    *out = dflt;
    if (!v)
        return SBX_OK;
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (errno || *end || v[0] == '-' || n < lo || n > hi)
        return SBX_E_INVALID_OPTIONS;
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

/* Builds "key: value" from one "key=value" item, percent-decoding the value. */
static sbx_err header_line(const char *item, const char *item_end, char **out)
{
    const char *eq = memchr(item, '=', (size_t)(item_end - item));
    if (!eq)
        return SBX_E_INVALID_OPTIONS;
    const char *kend, *vend;
    const char *k = trim(item, eq, &kend), *v = trim(eq + 1, item_end, &vend);
    if (k == kend)
        return SBX_E_INVALID_OPTIONS;
    char *line = sbx__mallocn((size_t)(kend - k) + (size_t)(vend - v) + 3, 1);
    if (!line)
        return SBX_E_NOMEM;
    size_t n = 0;
    for (const char *p = k; p < kend; p++)
        line[n++] = *p;
    line[n++] = ':';
    line[n++] = ' ';
    for (const char *p = v; p < vend; p++) {
        if (*p == '%' && vend - p >= 3 && hex(p[1]) >= 0 && hex(p[2]) >= 0) {
            line[n++] = (char)(hex(p[1]) * 16 + hex(p[2]));
            p += 2;
        } else {
            line[n++] = *p;
        }
    }
    line[n] = '\0';
    if (strpbrk(line, "\r\n") || memchr(line, '\0', n)) {
        sbx__free(line);
        return SBX_E_INVALID_OPTIONS;
    }
    *out = line;
    return SBX_OK;
}

static sbx_err parse_headers(struct sbx__otlp_config *cfg)
{
    const char *s = env("OTEL_EXPORTER_OTLP_HEADERS");
    if (!s)
        return SBX_OK;
    cfg->headers = sbx__calloc(MAX_HEADERS, sizeof(char *));
    if (!cfg->headers)
        return SBX_E_NOMEM;
    while (*s) {
        const char *comma = strchr(s, ',');
        const char *end = comma ? comma : s + strlen(s);
        const char *tend, *t = trim(s, end, &tend);
        if (t != tend) {
            if (cfg->header_count == MAX_HEADERS)
                return SBX_E_INVALID_OPTIONS;
            sbx_err e = header_line(t, tend, &cfg->headers[cfg->header_count]);
            if (e != SBX_OK)
                return e;
            cfg->header_count++;
        }
        s = comma ? comma + 1 : end;
    }
    return SBX_OK;
}

static sbx_err service_name(struct sbx__otlp_config *cfg)
{
    const char *name = env("OTEL_SERVICE_NAME");
    char dflt[128];
    if (!name) {
        /* The specification's default: "unknown_service:" + the executable's name. */
        snprintf(dflt, sizeof(dflt), "unknown_service:%s", program_invocation_short_name);
        name = dflt;
    }
    cfg->service_name = sbx__strdup(name);
    return cfg->service_name ? SBX_OK : SBX_E_NOMEM;
}

/* OTEL_{TRACES,METRICS}_EXPORTER: "otlp" (the default) or "none"; this exporter speaks no other
 * protocol, so any other value is rejected rather than ignored. */
static sbx_err exporter_off(const char *var, bool *is_off)
{
    const char *v = env(var);
    *is_off = v && strcmp(v, "none") == 0;
    return !v || *is_off || strcmp(v, "otlp") == 0 ? SBX_OK : SBX_E_INVALID_OPTIONS;
}

sbx_err sbx__otlp_config_from_env(struct sbx__otlp_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    unsigned long timeout_ms, queue;
    sbx_err e = signal_url("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "/v1/traces", &cfg->traces_url);
    if (e == SBX_OK)
        e = signal_url("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "/v1/metrics", &cfg->metrics_url);
    if (e == SBX_OK)
        e = parse_ulong("OTEL_EXPORTER_OTLP_TIMEOUT", 1, 3600000, DEFAULT_TIMEOUT_MS, &timeout_ms);
    if (e == SBX_OK)
        e = parse_ulong("OTEL_BSP_MAX_QUEUE_SIZE", 1, MAX_QUEUE_SIZE, DEFAULT_QUEUE_SIZE, &queue);
    if (e == SBX_OK)
        e = parse_headers(cfg);
    if (e == SBX_OK)
        e = service_name(cfg);
    if (e == SBX_OK)
        e = exporter_off("OTEL_TRACES_EXPORTER", &cfg->is_traces_off);
    if (e == SBX_OK)
        e = exporter_off("OTEL_METRICS_EXPORTER", &cfg->is_metrics_off);
    if (e != SBX_OK) {
        sbx__otlp_config_free(cfg);
        return e;
    }
    cfg->timeout_ms = (long)timeout_ms;
    cfg->max_queued_spans = queue;
    return SBX_OK;
}

void sbx__otlp_config_free(struct sbx__otlp_config *cfg)
{
    sbx__free(cfg->traces_url);
    sbx__free(cfg->metrics_url);
    sbx__free(cfg->service_name);
    for (size_t i = 0; i < cfg->header_count; i++)
        sbx__free(cfg->headers[i]);
    sbx__free(cfg->headers);
    memset(cfg, 0, sizeof(*cfg));
}

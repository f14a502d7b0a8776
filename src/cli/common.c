/* cli/common.c: helpers every subcommand shares: files, policy flags, errors. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "sbx: %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

char *cli_read_file(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "sbx: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        cap *= 2;
        char *grown = realloc(buf, cap);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
    }
    int failed = ferror(f), read_errno = errno;
    const char *name = f == stdin ? "stdin" : path;
    if (f != stdin)
        fclose(f);
    if (!buf || failed) {
        fprintf(stderr, "sbx: %s: %s\n", name, buf ? strerror(read_errno) : "out of memory");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

char *cli_text_arg(const char *arg, size_t *len)
{
    if (arg[0] == '@')
        return cli_read_file(arg + 1, len);
    char *s = strdup(arg);
    if (s && len)
        *len = strlen(s);
    return s;
}

sbx_policy *cli_policy_load(const char *path)
{
    char err[512];
    sbx_policy *p = NULL;
    sbx_err e = path ? sbx_policy_parse_file(path, &p, err, sizeof(err))
                     : sbx_policy_parse("{}", 2, &p, err, sizeof(err));
    if (e) {
        fprintf(stderr, "sbx: %s\n", err);
        return NULL;
    }
    return p;
}

int cli_policy_set(sbx_policy **policy, const char *key, const char *json_value)
{
    char err[512];
    sbx_policy *next = NULL;
    if (sbx_policy_with(*policy, key, json_value, &next, err, sizeof(err))) {
        fprintf(stderr, "sbx: %s\n", err);
        return -1;
    }
    sbx_policy_destroy(*policy);
    *policy = next;
    return 0;
}

char *cli_json_string(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(n * 6 + 3);
    if (!out)
        return NULL;
    size_t o = 0;
    out[o++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            out[o++] = '\\';
            out[o++] = (char)*p;
        } else if (*p < 0x20) {
            o += (size_t)snprintf(out + o, 7, "\\u%04x", *p);
        } else {
            out[o++] = (char)*p;
        }
    }
    out[o++] = '"';
    out[o] = '\0';
    return out;
}

int cli_parse_u64(const char *opt, const char *value, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!value || value[0] < '0' || value[0] > '9')
        goto bad;
    *out = strtoull(value, &end, 10);
    if (errno || *end)
        goto bad;
    return 0;
bad:
    fprintf(stderr, "sbx: %s: expected a non-negative integer, got '%s'\n", opt,
            value ? value : "");
    return -1;
}

int cli_policy_set_number(sbx_policy **policy, const char *key, const char *opt, const char *value)
{
    unsigned long long n;
    if (!value)
        return 0;
    if (cli_parse_u64(opt, value, &n) != 0)
        return -2;
    char text[32];
    snprintf(text, sizeof(text), "%llu", n);
    return cli_policy_set(policy, key, text);
}

/* Returns the integer after "key": in JSON text (the library's own sbx_policy_to_json), else 0. */
static unsigned long long json_field(const char *json, const char *key)
{
    char needle[64];
    snprintf(needle, sizeof(needle), "\"%s\":", key);
    const char *at = strstr(json, needle);
    return at ? strtoull(at + strlen(needle), NULL, 10) : 0;
}

static void print_size(FILE *out, unsigned long long bytes)
{
    static const struct {
        unsigned long long unit;
        const char *name;
    } units[] = {{1ull << 30, "GiB"}, {1ull << 20, "MiB"}, {1ull << 10, "KiB"}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (bytes >= units[i].unit && bytes % units[i].unit == 0) {
            fprintf(out, "%llu %s", bytes / units[i].unit, units[i].name);
            return;
        }
    }
    fprintf(out, "%llu bytes", bytes);
}

void cli_print_defaults(FILE *out)
{
    char err[128];
    sbx_policy *p = NULL;
    char *json =
        sbx_policy_parse("{}", 2, &p, err, sizeof(err)) == SBX_OK ? sbx_policy_to_json(p) : NULL;
    if (json) {
        /* The default policy itself, so the text cannot drift from what applies. */
        fprintf(out,
                "\nDefaults (what neither an option nor the policy sets): timeout %u ms,\nmemory ",
                (unsigned)sbx_policy_timeout_ms(p));
        print_size(out, (unsigned long long)sbx_policy_memory_bytes(p));
        fputs(", output ", out);
        print_size(out, json_field(json, "maxOutputBytes"));
        fprintf(out, " per stream, %llu processes, cpu %llu%%; no files, network or env.\n",
                json_field(json, "pids"), json_field(json, "cpuPercent"));
    }
    sbx_free(json);
    sbx_policy_destroy(p);
}

void cli_print_denials(const sbx_result *r)
{
    for (size_t i = 0; i < r->denial_count; i++) {
        const sbx_denial *d = &r->denials[i];
        char dest[SBX_DENIAL_HOST_MAX + 16];
        sbx_denial_destination(d, dest, sizeof(dest));
        fprintf(stderr, "sbx: denied outbound %s %s (%llu time%s)\n",
                d->kind == SBX_DENIAL_DNS ? "dns lookup of" : "connect to", dest,
                (unsigned long long)d->count, d->count == 1 ? "" : "s");
    }
    if (r->denials_truncated)
        fprintf(stderr,
                "sbx: denied more outbound destinations than the %d listed (%llu denials in all)\n",
                SBX_DENIALS_MAX, (unsigned long long)r->denied_total);
}

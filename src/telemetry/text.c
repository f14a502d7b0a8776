/* telemetry/text.c: JSON and Prometheus text escaping with UTF-8 repair. */
#include "telemetry/text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char REPLACEMENT[] = "\xef\xbf\xbd"; /* U+FFFD */

/* Returns the length of the well-formed UTF-8 sequence at s (Unicode 15, table 3-7), or 0. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xc2 && c <= 0xdf   ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
    if (n == 0)
        return 0;
    unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */
    if (c == 0xe0)
        lo = 0xa0; /* overlong */
    else if (c == 0xed)
        hi = 0x9f; /* surrogates */
    else if (c == 0xf0)
        lo = 0x90; /* overlong */
    else if (c == 0xf4)
        hi = 0x8f; /* above U+10FFFF */
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    }
    return n;
}

/* Appends s, passing each byte below 0x80 through esc (which appends it, escaped or not) and
 * copying valid multi-byte sequences verbatim. */
static bool append_escaped(struct sbx__buf *b, const char *s,
                           bool (*esc)(struct sbx__buf *b, char c))
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t n = utf8_len(p);
        bool ok;
        if (n == 1)
            ok = esc(b, (char)*p);
        else if (n == 0)
            ok = sbx__buf_append(b, REPLACEMENT, 3);
        else
            ok = sbx__buf_append(b, p, n);
        if (!ok)
            return false;
        p += n ? n : 1;
    }
    return true;
}

static bool json_char(struct sbx__buf *b, char c)
{
    switch (c) {
    case '"':
        return SBX__LIT(b, "\\\"");
    case '\\':
        return SBX__LIT(b, "\\\\");
    case '\n':
        return SBX__LIT(b, "\\n");
    case '\r':
        return SBX__LIT(b, "\\r");
    case '\t':
        return SBX__LIT(b, "\\t");
    default:
        if ((unsigned char)c < 0x20 || c == 0x7f)
            return sbx__buf_appendf(b, "\\u%04x", (unsigned)c);
        return sbx__buf_append(b, &c, 1);
    }
}

bool sbx__telemetry_json_string(struct sbx__buf *b, const char *s)
{
    return SBX__LIT(b, "\"") && append_escaped(b, s, json_char) && SBX__LIT(b, "\"");
}

static bool raw_char(struct sbx__buf *b, char c)
{
    return sbx__buf_append(b, &c, 1);
}

bool sbx__telemetry_utf8(struct sbx__buf *b, const char *s)
{
    return append_escaped(b, s, raw_char);
}

bool sbx__telemetry_json_u64(struct sbx__buf *b, uint64_t v)
{
    return sbx__buf_appendf(b, "\"%" PRIu64 "\"", v);
}

bool sbx__telemetry_json_double(struct sbx__buf *b, double v)
{
    char tmp[32];
    snprintf(tmp, sizeof(tmp), "%.15g", v);
    if (strtod(tmp, NULL) != v)
        snprintf(tmp, sizeof(tmp), "%.17g", v);
    return sbx__buf_append(b, tmp, strlen(tmp));
}

static bool label_char(struct sbx__buf *b, char c)
{
    if (c == '\\' || c == '"')
        return SBX__LIT(b, "\\") && sbx__buf_append(b, &c, 1);
    if (c == '\n')
        return SBX__LIT(b, "\\n");
    return sbx__buf_append(b, &c, 1);
}

static bool help_char(struct sbx__buf *b, char c)
{
    if (c == '\\')
        return SBX__LIT(b, "\\\\");
    if (c == '\n')
        return SBX__LIT(b, "\\n");
    return sbx__buf_append(b, &c, 1);
}

bool sbx__telemetry_prom_label_value(struct sbx__buf *b, const char *s)
{
    return append_escaped(b, s, label_char);
}

bool sbx__telemetry_prom_help(struct sbx__buf *b, const char *s)
{
    return append_escaped(b, s, help_char);
}

static bool is_name_char(char c, bool is_label)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (c == ':' && !is_label);
}

bool sbx__telemetry_prom_name(struct sbx__buf *b, const char *s, bool is_label)
{
    bool ok = true, last_underscore = false;
    if (s[0] >= '0' && s[0] <= '9') {
        ok = SBX__LIT(b, "_");
        last_underscore = true;
    }
    for (const char *p = s; ok && *p; p++) {
        char c = is_name_char(*p, is_label) ? *p : '_';
        if (c == '_' && last_underscore)
            continue;
        last_underscore = c == '_';
        ok = sbx__buf_append(b, &c, 1);
    }
    return ok;
}

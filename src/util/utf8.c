/* util/utf8.c: UTF-8 validation (RFC 3629 well-formed sequences) and repair. */
#include "util/utf8.h"

#include <stdint.h>
#include <string.h>

#include "util/alloc.h"

/* Returns the length of the well-formed sequence at s, or 0 if ill-formed. */
static size_t seq_len(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F; /* surrogates are not scalar values */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (avail < n)
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    }
    return n;
}

bool sbx__utf8_is_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        size_t n = seq_len(p + i, len - i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

char *sbx__utf8_sanitize(const char *s, size_t len, size_t *out_len)
{
    /* Each bad byte becomes 3 bytes of U+FFFD at most. */
    char *out = sbx__mallocn(len, 3);
    if (!out)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, o = 0;
    while (i < len) {
        size_t n = seq_len(p + i, len - i);
        if (n == 0) {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        } else {
            memcpy(out + o, p + i, n);
            o += n;
            i += n;
        }
    }
    char *fit = sbx__reallocn(out, o + 1, 1);
    if (fit)
        out = fit;
    else if (o + 1 > len * 3) {
        sbx__free(out);
        return NULL;
    }
    out[o] = '\0';
    if (out_len)
        *out_len = o;
    return out;
}

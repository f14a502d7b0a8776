/* js/text.c: UTF-8 <-> CESU-8 at the engine boundary. Both directions are total: ill-formed
 * input becomes U+FFFD, so nothing a guest prints can make the host emit invalid UTF-8. */
#include "js/text.h"

#include <stdint.h>
#include <string.h>

#include "util/alloc.h"

#define REPLACEMENT 0xFFFDu

/* Decodes one 1-4 byte sequence at s (surrogates allowed, overlongs not). Returns its length,
 * or 0 if s does not start a well-formed sequence. */
static size_t decode(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n > len)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF)
        return 0;
    *cp = v;
    return n;
}

static size_t encode(uint32_t cp, char *dst)
{
    unsigned char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (unsigned char)cp, n = 1;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xC0 | (cp >> 6)), b[1] = (unsigned char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | (cp >> 12));
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | (cp >> 18));
        b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    if (dst)
        memcpy(dst, b, n);
    return n;
}

static bool is_high(uint32_t cp)
{
    return cp >= 0xD800 && cp <= 0xDBFF;
}

static bool is_low(uint32_t cp)
{
    return cp >= 0xDC00 && cp <= 0xDFFF;
}

/* One pass of the UTF-8 -> CESU-8 conversion; writes only when dst is non-NULL. */
static size_t to_cesu(const unsigned char *s, size_t len, char *dst)
{
    size_t out = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = decode(s + i, len - i, &cp);
        if (n == 0 || is_high(cp) || is_low(cp)) {
            out += encode(REPLACEMENT, dst ? dst + out : NULL);
            i += n ? n : 1;
        } else if (cp >= 0x10000) {
            cp -= 0x10000;
            out += encode(0xD800 | (cp >> 10), dst ? dst + out : NULL);
            out += encode(0xDC00 | (cp & 0x3FF), dst ? dst + out : NULL);
            i += n;
        } else {
            if (dst)
                memcpy(dst + out, s + i, n);
            out += n;
            i += n;
        }
    }
    return out;
}

char *sbx__js_to_cesu(const char *s, size_t len, size_t *out_len)
{
    size_t n = to_cesu((const unsigned char *)s, len, NULL);
    char *dst = sbx__mallocn(n + 1, 1);
    if (!dst)
        return NULL;
    to_cesu((const unsigned char *)s, len, dst);
    dst[n] = '\0';
    if (out_len)
        *out_len = n;
    return dst;
}

static size_t lone(uint32_t cp, enum sbx__js_lone mode, char *dst)
{
    static const char hex[] = "0123456789abcdef";
    if (mode == SBX_JS_LONE_REPLACE)
        return encode(REPLACEMENT, dst);
    if (dst) {
        char esc[6] = {
            '\\',        'u', hex[(cp >> 12) & 15], hex[(cp >> 8) & 15], hex[(cp >> 4) & 15],
            hex[cp & 15]};
        memcpy(dst, esc, sizeof(esc));
    }
    return 6;
}

size_t sbx__js_from_cesu(const char *str, size_t len, enum sbx__js_lone mode, char *dst)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t out = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp, lo;
        size_t n = decode(s + i, len - i, &cp);
        char *at = dst ? dst + out : NULL;
        if (n == 0) {
            out += encode(REPLACEMENT, at);
            i++;
        } else if (is_high(cp) && i + n < len && decode(s + i + n, len - i - n, &lo) == 3 &&
                   is_low(lo)) {
            out += encode(0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00), at);
            i += n + 3;
        } else if (is_high(cp) || is_low(cp)) {
            out += lone(cp, mode, at);
            i += n;
        } else {
            if (at)
                memcpy(at, s + i, n);
            out += n;
            i += n;
        }
    }
    return out;
}

size_t sbx__js_utf8_cut(const char *str, size_t len, size_t max)
{
    const unsigned char *s = (const unsigned char *)str;
    if (len <= max)
        return len;
    size_t cut = max;
    /* Back up over continuation bytes to the start of the sequence that straddles max. */
    while (cut > 0 && (s[cut] & 0xC0) == 0x80 && max - cut < 3)
        cut--;
    return cut;
}

/* js/text.c: UTF-8 <-> UTF-16 at the engine boundary. Both directions are total: ill-formed
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

/* One pass of UTF-8 -> UTF-16; writes only when dst is non-NULL. Surrogates encoded in UTF-8
 * are ill-formed there and become U+FFFD, like any other bad byte. */
static size_t to_utf16(const unsigned char *s, size_t len, uint16_t *dst)
{
    size_t i = 0, n = 0;
    while (i < len) {
        uint32_t cp;
        size_t k = decode(s + i, len - i, &cp);
        if (k == 0 || is_high(cp) || is_low(cp)) {
            cp = REPLACEMENT;
            k = k ? k : 1;
        }
        i += k;
        if (cp >= 0x10000) {
            if (dst) {
                dst[n] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
                dst[n + 1] = (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF));
            }
            n += 2;
        } else {
            if (dst)
                dst[n] = (uint16_t)cp;
            n++;
        }
    }
    return n;
}

uint16_t *sbx__js_utf8_to_utf16(const char *s, size_t len, size_t *out_count)
{
    size_t n = to_utf16((const unsigned char *)s, len, NULL);
    uint16_t *dst = sbx__mallocn(n + 1, sizeof(*dst));
    if (!dst)
        return NULL;
    to_utf16((const unsigned char *)s, len, dst);
    dst[n] = 0;
    *out_count = n;
    return dst;
}

size_t sbx__js_utf16_to_utf8(const uint16_t *s, size_t count, char *dst)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t cp = s[i];
        char *at = dst ? dst + n : NULL;
        if (is_high(cp) && i + 1 < count && is_low(s[i + 1])) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (s[i + 1] - 0xDC00u);
            i++;
        } else if (is_high(cp) || is_low(cp)) {
            cp = REPLACEMENT;
        }
        n += encode(cp, at);
    }
    return n;
}

size_t sbx__js_latin1_to_utf8(const uint8_t *s, size_t count, char *dst)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        n += encode(s[i], dst ? dst + n : NULL);
    return n;
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

/* serve/base64.c: strict base64 decoding (RFC 4648 section 4): whitespace, missing padding or
 * characters after it are errors, so one text has one meaning. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "serve/base64.h"

static int value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

size_t serve_base64_decoded_len(const char *text, size_t len)
{
    if (len % 4 != 0)
        return 0;
    size_t pad = len >= 1 && text[len - 1] == '=' ? (len >= 2 && text[len - 2] == '=' ? 2 : 1) : 0;
    return len / 4 * 3 >= pad ? len / 4 * 3 - pad : 0;
}

int serve_base64_decode(const char *text, size_t len, uint8_t **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    if (len % 4 != 0)
        return -1;
    size_t n = serve_base64_decoded_len(text, len);
    uint8_t *buf = n < SIZE_MAX / 2 ? malloc(n + 1) : NULL;
    if (!buf)
        return -1;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++) {
            unsigned char c = (unsigned char)text[i + k];
            bool is_pad = c == '=' && i + 4 == len && (k == 3 || (k == 2 && text[i + 3] == '='));
            v[k] = is_pad ? 0 : value(c);
            if (v[k] < 0 || (c == '=' && !is_pad)) {
                free(buf);
                return -1;
            }
        }
        uint32_t w =
            (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        uint8_t b[3] = {(uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w};
        for (int k = 0; k < 3 && o < n; k++)
            buf[o++] = b[k];
    }
    *out = buf;
    *out_len = n;
    return 0;
}

char *serve_base64_encode(const uint8_t *data, size_t len)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((len + 2) / 3 * 4 + 1), *w = out;
    for (size_t i = 0; out && i < len; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < len ? (uint32_t)data[i + 1] << 8 : 0) |
                     (i + 2 < len ? data[i + 2] : 0);
        *w++ = digits[v >> 18 & 63];
        *w++ = digits[v >> 12 & 63];
        *w++ = i + 1 < len ? digits[v >> 6 & 63] : '=';
        *w++ = i + 2 < len ? digits[v & 63] : '=';
    }
    if (out)
        *w = '\0';
    return out;
}

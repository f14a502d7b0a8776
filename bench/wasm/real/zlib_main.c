/* bench/wasm/real/zlib_main.c: minigzip -9's work, linked with Debian's zlib sources: deflates a
 * generated, deterministic input of MB megabytes (the words of bzip2_main.c in LCG order) at
 * level 9, inflates it, checks the round trip and prints the sizes and a checksum of the
 * compressed bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifndef MB
#define MB 20
#endif

static const char *const words[] = {
    "the",   "sandbox", "policy", "grants", "nothing", "by",    "default", "memory", "pages",
    "of",    "a",       "module", "run",    "under",   "wasi",  "with",    "fuel",   "limits",
    "and",   "time",    "out",    "file",   "system",  "paths", "are",     "read",   "only",
    "0x1f2", "1234",    "\n",     "\t",     "(",       ")",     "{",       "}",      ";",
};

static uint32_t next(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

static void generate(unsigned char *buf, size_t len)
{
    uint32_t s = 42;
    size_t n = sizeof(words) / sizeof(words[0]);
    size_t at = 0;
    while (at < len) {
        const char *w = words[next(&s) % n];
        size_t wl = strlen(w);
        for (size_t i = 0; i < wl && at < len; i++)
            buf[at++] = (unsigned char)w[i];
        if (at < len && next(&s) % 4)
            buf[at++] = ' ';
    }
}

static uint32_t checksum(const unsigned char *p, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

int main(void)
{
    uLong len = MB * 1000000ul;
    uLongf clen = compressBound(len), dlen = len;
    unsigned char *in = malloc(len), *comp = malloc(clen), *out = malloc(len);
    if (!in || !comp || !out) {
        printf("zlib: out of memory\n");
        return 1;
    }
    generate(in, len);
    int rc = compress2(comp, &clen, in, len, 9);
    if (rc != Z_OK) {
        printf("zlib: compress failed: %d\n", rc);
        return 1;
    }
    rc = uncompress(out, &dlen, comp, clen);
    if (rc != Z_OK || dlen != len || memcmp(in, out, len) != 0) {
        printf("zlib: round trip failed: %d, %lu bytes\n", rc, (unsigned long)dlen);
        return 1;
    }
    printf("zlib -9 in %lu compressed %lu fnv %08x round trip ok\n", (unsigned long)len,
           (unsigned long)clen, checksum(comp, clen));
    return 0;
}

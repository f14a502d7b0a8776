/* bench/wasm/real/bzip2_main.c: the bzip2 workload, linked with Debian's libbz2 sources (built by
 * run.sh with -DBZ_NO_STDIO): compresses a generated, deterministic input of MB megabytes
 * (words from a fixed list in LCG order, so it compresses about as text does), decompresses it,
 * checks the round trip and prints the sizes and a checksum of the compressed bytes. */
#include <bzlib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void generate(char *buf, size_t len)
{
    uint32_t s = 42;
    size_t n = sizeof(words) / sizeof(words[0]);
    size_t at = 0;
    while (at < len) {
        const char *w = words[next(&s) % n];
        size_t wl = strlen(w);
        for (size_t i = 0; i < wl && at < len; i++)
            buf[at++] = w[i];
        if (at < len && next(&s) % 4)
            buf[at++] = ' ';
    }
}

/* With BZ_NO_STDIO the library reports an internal inconsistency here. */
void bz_internal_error(int errcode)
{
    printf("bzip2 internal error %d\n", errcode);
    exit(2);
}

static uint32_t checksum(const char *p, unsigned len)
{
    uint32_t h = 2166136261u;
    for (unsigned i = 0; i < len; i++)
        h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

int main(void)
{
    unsigned len = MB * 1000000u;
    unsigned clen = len + len / 100 + 600; /* the bound libbz2's manual gives */
    unsigned dlen = len;
    char *in = malloc(len), *comp = malloc(clen), *out = malloc(len);
    if (!in || !comp || !out) {
        printf("bzip2: out of memory\n");
        return 1;
    }
    generate(in, len);
    int rc = BZ2_bzBuffToBuffCompress(comp, &clen, in, len, 9, 0, 0);
    if (rc != BZ_OK) {
        printf("bzip2: compress failed: %d\n", rc);
        return 1;
    }
    rc = BZ2_bzBuffToBuffDecompress(out, &dlen, comp, clen, 0, 0);
    if (rc != BZ_OK || dlen != len || memcmp(in, out, len) != 0) {
        printf("bzip2: round trip failed: %d, %u bytes\n", rc, dlen);
        return 1;
    }
    printf("bzip2 in %u compressed %u fnv %08x round trip ok\n", len, clen, checksum(comp, clen));
    return 0;
}

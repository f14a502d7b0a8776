/* util/sha256.h: SHA-256 (FIPS 180-4), one-shot and incremental. Used for the compiled tier's
 * cache keys and entry checksums (src/wasm/jit/cache.c), where only collision resistance
 * matters; not a MAC. */
#ifndef SBX_UTIL_SHA256_H
#define SBX_UTIL_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBX__SHA256_LEN 32

struct sbx__sha256 {
    uint32_t h[8];
    uint64_t total_len; /* bytes hashed so far */
    uint8_t block[64];  /* pending bytes: total_len % 64 of them */
};

void sbx__sha256_init(struct sbx__sha256 *c);
void sbx__sha256_update(struct sbx__sha256 *c, const void *data, size_t len);
/* Writes the digest; c must be initialised again before reuse. */
void sbx__sha256_final(struct sbx__sha256 *c, uint8_t out[SBX__SHA256_LEN]);
void sbx__sha256(const void *data, size_t len, uint8_t out[SBX__SHA256_LEN]);
/* The CPU's SHA extensions when on and present, else the portable rounds (the default is the
 * former); returns whether they are used. For tests, which compare the two. */
bool sbx__sha256_use_accel(bool on);
/* Writes the 64 lowercase hex digits of a digest and a NUL into hex. */
void sbx__sha256_hex(const uint8_t digest[SBX__SHA256_LEN], char hex[2 * SBX__SHA256_LEN + 1]);

#endif

/* util/sha256.c: SHA-256 as FIPS 180-4 specifies it: section 4.1.2 (functions), 4.2.2
 * (constants), 5.1.1 (padding), 5.3.3 (initial value), 6.2.2 (the compression). On x86-64 CPUs
 * with the SHA extensions the compression runs on them: a cache hit hashes the module and the
 * entry (several MB for a 1 MB module), about ten times faster than the portable rounds. */
#include "util/sha256.h"

#include <stdatomic.h>
#include <string.h>

/* 4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* 6.2.2: the message schedule W and the 64 rounds over one 512-bit block. */
static void compress_one(uint32_t h[8], const uint8_t *block)
{
    uint32_t w[64];
    for (unsigned t = 0; t < 16; t++)
        w[t] = load_be32(block + 4 * t);
    for (unsigned t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = s1 + w[t - 7] + s0 + w[t - 16];
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (unsigned t = 0; t < 64; t++) {
        uint32_t t1 =
            hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

static void compress_portable(uint32_t h[8], const uint8_t *blocks, size_t n)
{
    for (size_t i = 0; i < n; i++)
        compress_one(h, blocks + 64 * i);
}

typedef void compress_fn(uint32_t h[8], const uint8_t *blocks, size_t n);

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

/* SHA256RNDS2 keeps the state as (A,B,E,F) and (C,D,G,H), A and C in the top lanes. */
__attribute__((target("sha,sse4.1"))) static void to_lanes(const uint32_t h[8], __m128i *abef,
                                                           __m128i *cdgh)
{
    __m128i dcba = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)h), 0xb1);
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(h + 4)), 0x1b);
    *abef = _mm_alignr_epi8(dcba, efgh, 8);
    *cdgh = _mm_blend_epi16(efgh, dcba, 0xf0);
}

__attribute__((target("sha,sse4.1"))) static void from_lanes(uint32_t h[8], __m128i abef,
                                                             __m128i cdgh)
{
    __m128i feba = _mm_shuffle_epi32(abef, 0x1b);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
    _mm_storeu_si128((__m128i *)h, _mm_blend_epi16(feba, dchg, 0xf0));
    _mm_storeu_si128((__m128i *)(h + 4), _mm_alignr_epi8(dchg, feba, 8));
}

/* Four rounds from w = W[t..t+3]: two SHA256RNDS2, each taking two W + K sums. */
__attribute__((target("sha,sse4.1"))) static void rounds4(__m128i *abef, __m128i *cdgh, __m128i w,
                                                          const uint32_t *k)
{
    __m128i wk = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)k));
    *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, wk);
    *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, _mm_shuffle_epi32(wk, 0x0e));
}

/* W[t..t+3] from the four vectors before it (m0 = W[t-16..t-13], m3 = W[t-4..t-1]). */
__attribute__((target("sha,sse4.1"))) static __m128i schedule(__m128i m0, __m128i m1, __m128i m2,
                                                              __m128i m3)
{
    __m128i t = _mm_add_epi32(_mm_sha256msg1_epu32(m0, m1), _mm_alignr_epi8(m3, m2, 4));
    return _mm_sha256msg2_epu32(t, m3);
}

__attribute__((target("sha,sse4.1"))) static void compress_sha_ni(uint32_t h[8],
                                                                  const uint8_t *blocks, size_t n)
{
    const __m128i be = _mm_set_epi64x(0x0c0d0e0f08090a0bull, 0x0405060700010203ull);
    __m128i abef, cdgh;
    to_lanes(h, &abef, &cdgh);
    for (size_t b = 0; b < n; b++) {
        __m128i abef0 = abef, cdgh0 = cdgh, m[4];
        for (unsigned i = 0; i < 16; i++) {
            if (i < 4)
                m[i] = _mm_shuffle_epi8(
                    _mm_loadu_si128((const __m128i *)(blocks + 64 * b + 16 * i)), be);
            else
                m[i % 4] = schedule(m[i % 4], m[(i + 1) % 4], m[(i + 2) % 4], m[(i + 3) % 4]);
            rounds4(&abef, &cdgh, m[i % 4], K + 4 * i);
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }
    from_lanes(h, abef, cdgh);
}

/* SHA (CPUID.7.0:EBX bit 29), SSSE3 and SSE4.1 (CPUID.1:ECX bits 9 and 19). */
static compress_fn *accelerated(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19)))
        return NULL;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 29)))
        return NULL;
    return compress_sha_ni;
}
#else
static compress_fn *accelerated(void)
{
    return NULL;
}
#endif

/* Chosen once (CPUID traps to the hypervisor in a VM); racing first calls choose alike. */
static _Atomic(compress_fn *) chosen;

static compress_fn *compress_impl(void)
{
    compress_fn *f = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (!f) {
        f = accelerated();
        f = f ? f : compress_portable;
        atomic_store_explicit(&chosen, f, memory_order_relaxed);
    }
    return f;
}

static void compress(uint32_t h[8], const uint8_t *blocks, size_t n)
{
    compress_impl()(h, blocks, n);
}

bool sbx__sha256_use_accel(bool on)
{
    compress_fn *f = on ? accelerated() : NULL;
    atomic_store_explicit(&chosen, f ? f : compress_portable, memory_order_relaxed);
    return f != NULL;
}

void sbx__sha256_init(struct sbx__sha256 *c)
{
    /* 5.3.3: the first 32 bits of the fractional parts of the square roots of the first 8
     * primes. */
    static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, H0, sizeof(H0));
    c->total_len = 0;
}

void sbx__sha256_update(struct sbx__sha256 *c, const void *data, size_t len)
{
    const uint8_t *p = data;
    size_t used = (size_t)(c->total_len % 64);
    c->total_len += len;
    if (used) {
        size_t take = 64 - used < len ? 64 - used : len;
        memcpy(c->block + used, p, take);
        p += take;
        len -= take;
        if (used + take < 64)
            return;
        compress(c->h, c->block, 1);
    }
    compress(c->h, p, len / 64);
    p += len / 64 * 64;
    len %= 64;
    if (len)
        memcpy(c->block, p, len);
}

void sbx__sha256_final(struct sbx__sha256 *c, uint8_t out[SBX__SHA256_LEN])
{
    /* 5.1.1: a 1 bit, zeros up to 56 bytes mod 64, then the message length in bits (64-bit
     * big-endian). */
    uint64_t bits = c->total_len * 8;
    size_t used = (size_t)(c->total_len % 64);
    c->block[used++] = 0x80;
    if (used > 56) {
        memset(c->block + used, 0, 64 - used);
        compress(c->h, c->block, 1);
        used = 0;
    }
    memset(c->block + used, 0, 56 - used);
    store_be32(c->block + 56, (uint32_t)(bits >> 32));
    store_be32(c->block + 60, (uint32_t)bits);
    compress(c->h, c->block, 1);
    for (unsigned i = 0; i < 8; i++)
        store_be32(out + 4 * i, c->h[i]);
}

void sbx__sha256(const void *data, size_t len, uint8_t out[SBX__SHA256_LEN])
{
    struct sbx__sha256 c;
    sbx__sha256_init(&c);
    sbx__sha256_update(&c, data, len);
    sbx__sha256_final(&c, out);
}

void sbx__sha256_hex(const uint8_t digest[SBX__SHA256_LEN], char hex[2 * SBX__SHA256_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < SBX__SHA256_LEN; i++) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[2 * SBX__SHA256_LEN] = '\0';
}

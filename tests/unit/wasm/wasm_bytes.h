/* tests/unit/wasm/wasm_bytes.h: a tiny byte-level module writer for the decoder and validator
 * tests, which need malformed and invalid binaries no real toolchain would produce. */
#ifndef SBX_TESTS_WASM_BYTES_H
#define SBX_TESTS_WASM_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WASM_HDR "\x00\x61\x73\x6d\x01\x00\x00\x00"

struct tb {
    uint8_t data[8192];
    size_t len;
};

static inline void tb_put(struct tb *b, const void *p, size_t n)
{
    if (b->len + n <= sizeof b->data) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
    }
}

static inline void tb_byte(struct tb *b, uint8_t v)
{
    tb_put(b, &v, 1);
}

static inline void tb_uleb(struct tb *b, uint32_t v)
{
    do {
        uint8_t byte = v & 0x7F;
        v >>= 7;
        tb_byte(b, (uint8_t)(byte | (v ? 0x80 : 0)));
    } while (v);
}

static inline void tb_section(struct tb *b, uint8_t id, const struct tb *content)
{
    tb_byte(b, id);
    tb_uleb(b, (uint32_t)content->len);
    tb_put(b, content->data, content->len);
}

/* Maps a type letter to its byte: i I f F v (v128) r (funcref) x (externref). */
static inline uint8_t tb_valtype(char c)
{
    switch (c) {
    case 'i':
        return 0x7F;
    case 'I':
        return 0x7E;
    case 'f':
        return 0x7D;
    case 'F':
        return 0x7C;
    case 'v':
        return 0x7B;
    case 'r':
        return 0x70;
    default:
        return 0x6F;
    }
}

static inline void tb_functype(struct tb *b, const char *params, const char *results)
{
    tb_byte(b, 0x60);
    tb_uleb(b, (uint32_t)strlen(params));
    for (const char *p = params; *p; p++)
        tb_byte(b, tb_valtype(*p));
    tb_uleb(b, (uint32_t)strlen(results));
    for (const char *p = results; *p; p++)
        tb_byte(b, tb_valtype(*p));
}

#endif

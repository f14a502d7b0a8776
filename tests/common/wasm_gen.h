/* tests/common/wasm_gen.h: a growable byte buffer for tests that write wasm binaries by hand,
 * and the skeleton the JIT level tests share: n functions (i32) -> i32 with three exports, each
 * body written by the test. Allocation failures fail the test. */
#ifndef SBX_TESTS_WASM_GEN_H
#define SBX_TESTS_WASM_GEN_H

#include <stddef.h>
#include <stdint.h>

struct wasm_module;
struct wasm_store;
struct wasm_instance;

struct wbytes {
    uint8_t *p;
    size_t len, cap;
};

void wbytes_put(struct wbytes *b, const void *src, size_t n);
void wbytes_u8(struct wbytes *b, uint8_t v);
void wbytes_leb(struct wbytes *b, uint32_t v); /* unsigned LEB128 */
/* Appends section id with s as its contents. */
void wbytes_section(struct wbytes *m, uint8_t id, const struct wbytes *s);

/* Writes function k's body (its size first) to code. */
typedef void wbytes_body_fn(struct wbytes *code, uint32_t k, uint32_t n, void *user);

/* A module of n functions (i32) -> i32, bodies by body(), exporting functions idx[0..2] as
 * names[0..2]. The caller frees .p. */
struct wbytes wbytes_i32_module(uint32_t n, const char *const names[3], const uint32_t idx[3],
                                wbytes_body_fn *body, void *user);

/* Instantiates m in an interpreted and a compiled store and checks that each of the three
 * exports names[] gives the interpreter's result for six inputs, in native code (18 native
 * entries). */
void wbytes_compiled_matches_interp(const struct wasm_module *m, const char *const names[3]);

#endif

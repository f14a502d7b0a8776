/* tests/common/wasm_gen.h: for tests that write wasm binaries by hand on wasm_builder.h's byte
 * vector: sections, and the skeleton the JIT level tests share (n functions (i32) -> i32 with
 * three exports, each body written by the test), and their check against the interpreter. */
#ifndef SBX_TESTS_WASM_GEN_H
#define SBX_TESTS_WASM_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "wasm_builder.h" /* struct wb_bytes */

struct wasm_module;
struct wasm_store;
struct wasm_instance;

/* Appends section id with s as its contents. */
void wbytes_section(struct wb_bytes *m, uint8_t id, const struct wb_bytes *s);

/* Writes function k's body (its size first) to code. */
typedef void wbytes_body_fn(struct wb_bytes *code, uint32_t k, uint32_t n, void *user);

/* A module of n functions (i32) -> i32, bodies by body(), exporting functions idx[0..2] as
 * names[0..2]. The caller frees it (wb_bytes_free); running out of memory fails the test. */
struct wb_bytes wbytes_i32_module(uint32_t n, const char *const names[3], const uint32_t idx[3],
                                  wbytes_body_fn *body, void *user);

/* Instantiates m in an interpreted and a compiled store and checks that each of the three
 * exports names[] gives the interpreter's result for six inputs, in native code (18 native
 * entries). */
void wbytes_compiled_matches_interp(const struct wasm_module *m, const char *const names[3]);

#endif

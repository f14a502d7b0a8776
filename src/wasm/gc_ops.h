/* wasm/gc_ops.h: the GC instructions shared by both tiers (gc_ops.c): each returns
 * WASM_TRAP_NONE or the trap kind, and writes a new reference to *out. vals/init point at
 * 64-bit slots (two for a v128); NULL vals is struct.new_default. */
#ifndef SBX_WASM_GC_OPS_H
#define SBX_WASM_GC_OPS_H

#include "wasm/gc.h"

struct wasm_instance;

/* Stores the value in slot (a field's storage type st: packed types take the low bits). */
void sbx__wasm_gc_put(uint8_t *p, wasm_vtype st, const uint64_t *slot);

enum wasm_trap_kind sbx__wasm_gc_struct_new(struct wasm_store *s, const struct wasm_rtt *rtt,
                                            const uint64_t *vals, uint64_t *out);
enum wasm_trap_kind sbx__wasm_gc_array_new(struct wasm_store *s, const struct wasm_rtt *rtt,
                                           const uint64_t *init, uint32_t len, uint64_t *out);
enum wasm_trap_kind sbx__wasm_gc_array_new_fixed(struct wasm_store *s, const struct wasm_rtt *rtt,
                                                 const uint64_t *vals, uint32_t n, uint64_t *out);
enum wasm_trap_kind sbx__wasm_gc_array_new_data(struct wasm_store *s, const struct wasm_rtt *rtt,
                                                const struct wasm_instance *inst, uint32_t idx,
                                                uint32_t off, uint32_t n, uint64_t *out);
enum wasm_trap_kind sbx__wasm_gc_array_new_elem(struct wasm_store *s, const struct wasm_rtt *rtt,
                                                const struct wasm_instance *inst, uint32_t idx,
                                                uint32_t off, uint32_t n, uint64_t *out);
enum wasm_trap_kind sbx__wasm_gc_array_fill(uint64_t ref, uint32_t d, const uint64_t *val,
                                            uint32_t n);
enum wasm_trap_kind sbx__wasm_gc_array_copy(uint64_t dref, uint32_t d, uint64_t sref, uint32_t s,
                                            uint32_t n);
enum wasm_trap_kind sbx__wasm_gc_array_init_data(uint64_t ref, const struct wasm_instance *inst,
                                                 uint32_t idx, uint32_t d, uint32_t s, uint32_t n);
enum wasm_trap_kind sbx__wasm_gc_array_init_elem(uint64_t ref, const struct wasm_instance *inst,
                                                 uint32_t idx, uint32_t d, uint32_t s, uint32_t n);

#endif

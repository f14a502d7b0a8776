/* wasm/gc.h: the store's garbage-collected heap (3.0 GC: structs, arrays; exception packages;
 * boxes of host references under anyref).
 *
 * Design (docs/wasm.md "Garbage collection"): one contiguous reservation per store, made on the
 * first allocation, in 64 KiB blocks; small objects in segregated size classes (a block holds
 * objects of one size, free slots on a per-class free list), large ones in runs of whole blocks.
 * Every block in use is charged to the store's max_bytes (memoryBytes). Collection is a
 * non-moving mark-sweep: the heap is traced precisely (each object's rtt gives its reference
 * fields), the roots are the store's tables, globals and element segments of reference types
 * that can hold GC objects, the exception in flight, and the stacks, scanned conservatively:
 * the interpreter's value stack and the native stack of the running call (compiled frames,
 * registers spilled at the collection point), any word pointing into an object, or just past its
 * end, keeping it. Non-moving, a conservative root can only keep garbage alive, never break a
 * live object. A collection runs when an allocation needs a new block and enough was allocated
 * since the last one, or when the block does not fit in max_bytes; it polls the store's interrupt
 * flag (deadline, abort) and stops when it is set.
 *
 * Reference values: null is 0; an i31ref is (value << 1) | 1 (odd, never a pointer); any other
 * reference of the any, extern or exn hierarchies is a pointer to an object's header, or (extern
 * only) a host value outside the heap. any.convert_extern boxes a host value (WASM_GC_EXTERN) and
 * extern.convert_any an i31 (WASM_GC_I31): an externref is then a host value or a heap object,
 * and the round trips give back what went in. */
#ifndef SBX_WASM_GC_H
#define SBX_WASM_GC_H

#include <stdbool.h>
#include <stdint.h>

#include "wasm/types.h"
#include "wasm/wasm.h"

enum wasm_gc_kind {
    WASM_GC_FREE = 0,
    WASM_GC_STRUCT, /* type: its rtt */
    WASM_GC_ARRAY,  /* type: its rtt; len elements */
    WASM_GC_EXTERN, /* a host reference under anyref: the value at +16 */
    WASM_GC_I31,    /* an i31 under externref: its tagged value at +16 */
    WASM_GC_EXN,    /* an exception package: type the tag (struct wasm_tag); values at +16 */
};

/* Every object starts with this header (WASM_GC_HEADER bytes); fields follow at the rtt's
 * offsets, array elements at +16. */
struct wasm_gc_obj {
    const void *type;
    uint32_t len;
    uint8_t kind;  /* enum wasm_gc_kind */
    uint8_t epoch; /* marked in the collection whose epoch it holds */
    uint16_t aux;  /* EXN: how many value slots follow */
};

/* A root that is not on a stack: a global's value (struct wasm_global), a table's elements
 * (struct wasm_table), an instance's element segment idx (struct wasm_instance). */
enum wasm_gc_root_kind { WASM_GC_ROOT_GLOBAL, WASM_GC_ROOT_TABLE, WASM_GC_ROOT_ELEMS };

/* Registers a root with the store (idx: the segment of ELEMS); false on NOMEM. Kept until the
 * store is destroyed. */
bool sbx__wasm_gc_add_root(struct wasm_store *s, enum wasm_gc_root_kind kind, void *obj,
                           uint32_t idx);

/* Allocates a struct (rtt of struct kind) or an array of len elements, fields zero. NULL with
 * *tk set: WASM_TRAP_HEAP_EXHAUSTED when max_bytes (or the reservation) cannot hold it after a
 * collection, WASM_TRAP_INTERRUPTED when the collection was stopped. */
struct wasm_gc_obj *sbx__wasm_gc_new(struct wasm_store *s, const struct wasm_rtt *rtt, uint32_t len,
                                     enum wasm_trap_kind *tk);
/* An object of kind (EXTERN, I31, EXN) with payload bytes after the header, zeroed. */
struct wasm_gc_obj *sbx__wasm_gc_new_raw(struct wasm_store *s, uint8_t kind, const void *type,
                                         uint32_t payload, enum wasm_trap_kind *tk);

/* Collects now (the store's test hook and the allocator's); the trap kind the collection ended
 * with: NONE, or INTERRUPTED. */
enum wasm_trap_kind sbx__wasm_gc_collect(struct wasm_store *s);

/* any.convert_extern and extern.convert_any (see above); the first allocates a box for a host
 * value (NULL with *tk on failure). */
uint64_t sbx__wasm_gc_internalize(struct wasm_store *s, uint64_t ext, enum wasm_trap_kind *tk);
uint64_t sbx__wasm_gc_externalize(struct wasm_store *s, uint64_t any, enum wasm_trap_kind *tk);

/* ref.test: whether reference value v is of type (ref null? ht), ht a concrete type (rtt) or,
 * when rtt is NULL, the abstract heap type abs; null matches when is_nullable. v is of ht's
 * hierarchy (validated): a struct wasm_func * for func, else a value as described above. */
bool sbx__wasm_gc_test(uint64_t v, uint32_t abs, const struct wasm_rtt *rtt, bool is_nullable);

/* Frees the heap (store destroy). */
void sbx__wasm_gc_destroy(struct wasm_store *s);

/* The heap's numbers, for tests and docs: blocks in use, collections run, objects alive after
 * the last one. */
struct wasm_gc_stats {
    uint64_t blocks, collections, live_objects, live_bytes;
};
void sbx__wasm_gc_stats(const struct wasm_store *s, struct wasm_gc_stats *out);

#endif

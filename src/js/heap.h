/* js/heap.h: the capped allocator behind one engine heap. While the heap is being built its
 * blocks come from one bump arena (the builtins: ~1500 small blocks, most of which live for the
 * whole run); after sbx__js_heap_seal every block is a malloc block linked into the heap's list.
 * So a heap whose engine died mid-call is still freed completely, and the cap counts real bytes
 * (the whole arena, payloads and headers). One heap is used by one thread at a time. */
#ifndef SBX_JS_HEAP_H
#define SBX_JS_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sbx__js_block;

struct sbx__js_heap {
    size_t limit_bytes; /* allocations that would pass this fail */
    size_t used_bytes;
    size_t peak_bytes;
    bool has_hit_limit; /* an allocation was refused because of the cap */
    bool is_sealed;     /* the arena takes no more blocks */
    char *arena;        /* NULL if none */
    size_t arena_bytes;
    size_t arena_used;
    struct sbx__js_block *blocks;
};

/* Sets the cap; with arena_bytes > 0 (and room under the cap) reserves a build arena of that
 * size, counted as used. */
void sbx__js_heap_init(struct sbx__js_heap *h, uint64_t limit_bytes, size_t arena_bytes);

/* Ends the build phase: later allocations are malloc blocks, freed one by one. */
void sbx__js_heap_seal(struct sbx__js_heap *h);

/* The engine's allocator triple; udata must point to a struct sbx__js_heap (or to a struct
 * whose first member is one). Sizes of 0 are treated as 1. */
void *sbx__js_heap_alloc(void *udata, size_t size);
void *sbx__js_heap_realloc(void *udata, void *ptr, size_t size);
void sbx__js_heap_free(void *udata, void *ptr);

/* Frees the arena and every block still allocated and resets the counters (the heap is the
 * source of truth, the engine's own teardown is not needed). */
void sbx__js_heap_release(struct sbx__js_heap *h);

#endif

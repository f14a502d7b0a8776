/* js/heap.h: the capped allocator behind one engine heap. Every block is linked into the heap's
 * list, so a heap whose engine died mid-call (fatal error) is still freed completely, and the
 * cap counts real bytes (payload + header). One heap is used by one thread at a time. */
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
    struct sbx__js_block *blocks;
};

void sbx__js_heap_init(struct sbx__js_heap *h, uint64_t limit_bytes);

/* The engine's allocator triple; udata must point to a struct sbx__js_heap (or to a struct
 * whose first member is one). Sizes of 0 are treated as 1. */
void *sbx__js_heap_alloc(void *udata, size_t size);
void *sbx__js_heap_realloc(void *udata, void *ptr, size_t size);
void sbx__js_heap_free(void *udata, void *ptr);

/* Frees every block still allocated and resets the counters (the list is the source of truth,
 * the engine's own teardown is not needed). */
void sbx__js_heap_release(struct sbx__js_heap *h);

#endif

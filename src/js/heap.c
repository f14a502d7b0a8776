/* js/heap.c: capped, tracked allocator for engine heaps (see heap.h). */
#include "js/heap.h"

#include <string.h>

#include "util/alloc.h"

/* Under ASan the arena is poisoned except for live blocks, so overflows and use after free
 * inside it are caught as they are for malloc blocks. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* 32 bytes keep the payload 16-byte aligned, as malloc's is. */
struct sbx__js_block {
    struct sbx__js_block *prev;
    struct sbx__js_block *next;
    size_t size;
    size_t pad;
};

/* An arena block: its payload size, padded so the payload stays 16-byte aligned. */
struct arena_hdr {
    size_t size;
    size_t pad;
};

void sbx__js_heap_init(struct sbx__js_heap *h, uint64_t limit_bytes, size_t arena_bytes)
{
    memset(h, 0, sizeof(*h));
    h->limit_bytes = limit_bytes > SIZE_MAX ? SIZE_MAX : (size_t)limit_bytes;
    if (arena_bytes > 0 && arena_bytes <= h->limit_bytes) {
        h->arena = sbx__mallocn(arena_bytes, 1);
        h->arena_bytes = h->arena ? arena_bytes : 0;
        if (h->arena)
            POISON(h->arena, arena_bytes);
        h->used_bytes = h->peak_bytes = h->arena_bytes;
    }
}

void sbx__js_heap_seal(struct sbx__js_heap *h)
{
    h->is_sealed = true;
}

static bool in_arena(const struct sbx__js_heap *h, const void *p)
{
    return h->arena && (const char *)p >= h->arena && (const char *)p < h->arena + h->arena_bytes;
}

static size_t arena_span(size_t size)
{
    return sizeof(struct arena_hdr) + ((size + 15) & ~(size_t)15);
}

/* Bump-allocates from the arena while the heap is being built; NULL when it does not fit. */
static void *arena_alloc(struct sbx__js_heap *h, size_t size)
{
    if (h->is_sealed || size > h->arena_bytes)
        return NULL;
    size_t need = arena_span(size);
    if (need > h->arena_bytes - h->arena_used)
        return NULL;
    struct arena_hdr *a = (struct arena_hdr *)(h->arena + h->arena_used);
    UNPOISON(a, sizeof(*a) + size);
    a->size = size;
    h->arena_used += need;
    return a + 1;
}

/* Resizes the arena's most recent block in place (the builtins grow their property tables
 * right after allocating them); false if ptr is not the last block or the arena is too small. */
static bool arena_resize_last(struct sbx__js_heap *h, void *ptr, size_t size)
{
    struct arena_hdr *a = (struct arena_hdr *)ptr - 1;
    size_t start = (size_t)((char *)a - h->arena);
    if (h->is_sealed || start + arena_span(a->size) != h->arena_used ||
        size > h->arena_bytes - start - sizeof(struct arena_hdr) - 15)
        return false;
    POISON(a + 1, arena_span(a->size) - sizeof(*a));
    UNPOISON(a + 1, size);
    a->size = size;
    h->arena_used = start + arena_span(size);
    return true;
}

/* Returns true if growing a block from old_total to new_total bytes stays under the cap. */
static bool admit(struct sbx__js_heap *h, size_t old_total, size_t new_total)
{
    if (new_total <= old_total)
        return true;
    size_t grow = new_total - old_total;
    if (grow > h->limit_bytes - h->used_bytes) {
        h->has_hit_limit = true;
        return false;
    }
    return true;
}

static void account(struct sbx__js_heap *h, size_t old_total, size_t new_total)
{
    h->used_bytes = h->used_bytes - old_total + new_total;
    if (h->used_bytes > h->peak_bytes)
        h->peak_bytes = h->used_bytes;
}

static void link_block(struct sbx__js_heap *h, struct sbx__js_block *b)
{
    b->prev = NULL;
    b->next = h->blocks;
    if (h->blocks)
        h->blocks->prev = b;
    h->blocks = b;
}

static void unlink_block(struct sbx__js_heap *h, struct sbx__js_block *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        h->blocks = b->next;
    if (b->next)
        b->next->prev = b->prev;
}

void *sbx__js_heap_alloc(void *udata, size_t size)
{
    struct sbx__js_heap *h = udata;
    void *p = h->arena ? arena_alloc(h, size ? size : 1) : NULL;
    if (p)
        return p;
    size_t total = (size ? size : 1) + sizeof(struct sbx__js_block);
    if (total < size || !admit(h, 0, total))
        return NULL;
    struct sbx__js_block *b = sbx__mallocn(total, 1);
    if (!b)
        return NULL;
    b->size = total;
    link_block(h, b);
    account(h, 0, total);
    return b + 1;
}

void *sbx__js_heap_realloc(void *udata, void *ptr, size_t size)
{
    struct sbx__js_heap *h = udata;
    if (!ptr)
        return sbx__js_heap_alloc(udata, size);
    if (size == 0) {
        sbx__js_heap_free(udata, ptr);
        return NULL;
    }
    if (in_arena(h, ptr)) {
        if (arena_resize_last(h, ptr, size))
            return ptr;
        /* Other arena blocks never move or grow: copy into a new block; the old space stays. */
        size_t old = ((struct arena_hdr *)ptr - 1)->size;
        void *np = sbx__js_heap_alloc(udata, size);
        if (np) {
            memcpy(np, ptr, old < size ? old : size);
            POISON(ptr, old);
        }
        return np;
    }
    struct sbx__js_block *b = (struct sbx__js_block *)ptr - 1;
    size_t old_total = b->size;
    size_t total = size + sizeof(struct sbx__js_block);
    if (total < size || !admit(h, old_total, total))
        return NULL;
    unlink_block(h, b);
    struct sbx__js_block *nb = sbx__reallocn(b, total, 1);
    if (!nb) {
        link_block(h, b); /* realloc failure leaves the old block valid */
        return NULL;
    }
    nb->size = total;
    link_block(h, nb);
    account(h, old_total, total);
    return nb + 1;
}

void sbx__js_heap_free(void *udata, void *ptr)
{
    struct sbx__js_heap *h = udata;
    if (!ptr)
        return;
    if (in_arena(h, ptr)) { /* arena space is reclaimed with the heap */
        POISON(ptr, ((struct arena_hdr *)ptr - 1)->size);
        return;
    }
    struct sbx__js_block *b = (struct sbx__js_block *)ptr - 1;
    unlink_block(h, b);
    account(h, b->size, 0);
    sbx__free(b);
}

void sbx__js_heap_release(struct sbx__js_heap *h)
{
    struct sbx__js_block *b = h->blocks;
    while (b) {
        struct sbx__js_block *next = b->next;
        sbx__free(b);
        b = next;
    }
    h->blocks = NULL;
    if (h->arena)
        UNPOISON(h->arena, h->arena_bytes);
    sbx__free(h->arena);
    h->arena = NULL;
    h->arena_bytes = h->arena_used = 0;
    h->used_bytes = 0;
}

/* js/heap.c: capped, tracked allocator for engine heaps (see heap.h). */
#include "js/heap.h"

#include "util/alloc.h"

/* 32 bytes keep the payload 16-byte aligned, as malloc's is. */
struct sbx__js_block {
    struct sbx__js_block *prev;
    struct sbx__js_block *next;
    size_t size;
    size_t pad;
};

void sbx__js_heap_init(struct sbx__js_heap *h, uint64_t limit_bytes)
{
    h->limit_bytes = limit_bytes > SIZE_MAX ? SIZE_MAX : (size_t)limit_bytes;
    h->used_bytes = 0;
    h->peak_bytes = 0;
    h->has_hit_limit = false;
    h->blocks = NULL;
}

/* Returns the block's total size if growing used_bytes by delta stays under the cap. */
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
    h->used_bytes = 0;
}

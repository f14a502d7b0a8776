/* wasm/memory.c: linear memory. The whole effective maximum is reserved as PROT_NONE address
 * space at creation and made accessible page range by page range on grow, so `data` never moves
 * and no byte past `size` is ever readable or writable, even through an engine bug. A memory of
 * a store that may run compiled code reserves WASM_GUARD_RESERVE instead (the compiled code's
 * guard region, docs/wasm.md "Memory safety"); where that much address space is refused
 * (RLIMIT_AS), the memory falls back to the plain reservation and compiled code checks it. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "util/alloc.h"
#include "wasm/jit/jit.h"
#include "wasm/limits.h"
#include "wasm/runtime.h"

/* What 32-bit addresses reach; also sbx's bound for a 64-bit memory (memory64), so that an
 * address past 4 GiB is out of bounds in every memory (docs/wasm.md, "memory64"). */
#define WASM_MAX_PAGES 65536u

/* Returns the ceiling a memory of type t may grow to in this store. */
static uint32_t effective_max(const struct wasm_store *store, const struct wasm_memtype *t)
{
    uint32_t cap = store->limits.max_memory_pages;
    if (cap > WASM_MAX_PAGES)
        cap = WASM_MAX_PAGES;
    if (t->limits.has_max && t->limits.max < cap)
        return (uint32_t)t->limits.max;
    return cap;
}

static void memory_free(void *ptr)
{
    struct wasm_memory *mem = ptr;
    if (mem->data)
        munmap(mem->data, (size_t)mem->reserved);
    if (mem->store)
        sbx__wasm_store_refund(mem->store, mem->size);
    sbx__free(mem);
}

static void *map_none(uint64_t bytes)
{
    void *p =
        mmap(NULL, (size_t)bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Reserves the guard region when is_guard is asked and granted, else address space for
 * max_pages (at least one page, so data is never NULL), and opens the first `pages` of it. */
static bool reserve(struct wasm_memory *mem, uint32_t pages, uint32_t max_pages, bool is_guard)
{
    uint64_t reserved = (uint64_t)(max_pages ? max_pages : 1) * WASM_PAGE_SIZE;
    void *p = is_guard ? map_none(WASM_GUARD_RESERVE) : NULL;
    mem->is_guarded = p != NULL;
    if (p)
        reserved = WASM_GUARD_RESERVE;
    else
        p = map_none(reserved);
    if (!p)
        return false;
    mem->data = p;
    mem->reserved = reserved;
    uint64_t size = (uint64_t)pages * WASM_PAGE_SIZE;
    if (size && mprotect(p, (size_t)size, PROT_READ | PROT_WRITE) != 0)
        return false;
    mem->pages = pages;
    mem->size = size;
    return true;
}

/* Creates a memory of type t, owned by store and charged to it. Returns NULL when t's minimum
 * exceeds the store's page or byte limit, or address space is short. */
struct wasm_memory *sbx__wasm_memory_new(struct wasm_store *store, const struct wasm_memtype *t)
{
    uint32_t max_pages = effective_max(store, t);
    if (t->limits.min > max_pages)
        return NULL;
    struct wasm_memory *mem = sbx__calloc(1, sizeof(*mem));
    if (!mem)
        return NULL;
    mem->type = *t;
    mem->max_pages = max_pages;
    /* The guard region covers 32-bit addresses only: a 64-bit memory is always checked. */
    bool is_guard = store->limits.tier != WASM_TIER_INTERP && !t->is64;
    if (!reserve(mem, (uint32_t)t->limits.min, max_pages, is_guard) ||
        !sbx__wasm_store_charge(store, mem->size)) {
        memory_free(mem);
        return NULL;
    }
    mem->store = store;
    if (mem->is_guarded)
        sbx__jit_fault_install(); /* before compiled code can run on this memory */
    if (!sbx__wasm_store_own(store, mem, memory_free)) {
        memory_free(mem);
        return NULL;
    }
    return mem;
}

bool sbx__wasm_memory_can_guard(void)
{
    void *p = map_none(WASM_GUARD_RESERVE);
    if (p)
        munmap(p, (size_t)WASM_GUARD_RESERVE);
    return p != NULL;
}

uint8_t *sbx__wasm_memory_span(struct wasm_memory *mem, uint32_t gaddr, uint32_t glen)
{
    if ((uint64_t)gaddr + glen > mem->size) /* the 64-bit sum of two u32 cannot wrap */
        return NULL;
    return mem->data + gaddr;
}

uint64_t sbx__wasm_memory_size(const struct wasm_memory *mem)
{
    return mem->size;
}

int64_t sbx__wasm_memory_grow(struct wasm_memory *mem, uint32_t delta)
{
    uint32_t old = mem->pages;
    uint64_t pages = (uint64_t)old + delta;
    if (pages > mem->max_pages) {
        /* Past the type's own maximum or 4 GiB is the guest's business; past the store's cap,
         * the embedder's policy said no, and it wants to know. */
        uint64_t spec_max = mem->type.is64 ? WASM_MAX_MEMORY64_PAGES : WASM_MAX_PAGES;
        bool is_own_max =
            pages > spec_max || (mem->type.limits.has_max && pages > mem->type.limits.max);
        mem->store->was_refused |= !is_own_max;
        return -1;
    }
    if (delta == 0)
        return old;
    uint64_t size = pages * WASM_PAGE_SIZE;
    if (!sbx__wasm_store_charge(mem->store, size - mem->size)) {
        mem->store->was_refused = true;
        return -1;
    }
    /* Fresh anonymous pages read as zero, as the spec requires of grown memory. */
    if (mprotect(mem->data + mem->size, (size_t)(size - mem->size), PROT_READ | PROT_WRITE) != 0) {
        sbx__wasm_store_refund(mem->store, size - mem->size);
        return -1;
    }
    mem->pages = (uint32_t)pages;
    mem->size = size;
    /* The memory's type is its current limits (spec 4.5.3.3): imports match against it. */
    mem->type.limits.min = mem->pages;
    return old;
}

uint64_t sbx__wasm_memory_grow64(struct wasm_memory *mem, uint64_t delta)
{
    /* No memory exceeds 65536 pages: a larger delta fails as the type's or store's limit. */
    uint32_t d = delta > WASM_MAX_PAGES ? WASM_MAX_PAGES + 1u : (uint32_t)delta;
    int64_t r = sbx__wasm_memory_grow(mem, d);
    return r < 0 ? UINT64_MAX : (uint64_t)r;
}

/* [a, a + n) within size, for any u64 a and n. */
static bool in_range(uint64_t a, uint64_t n, uint64_t size)
{
    return a <= size && n <= size - a;
}

enum wasm_trap_kind sbx__wasm_memory_fill(struct wasm_memory *mem, uint64_t d, uint8_t val,
                                          uint64_t n)
{
    if (!in_range(d, n, mem->size))
        return WASM_TRAP_MEMORY_OOB;
    memset(mem->data + d, val, (size_t)n);
    return WASM_TRAP_NONE;
}

enum wasm_trap_kind sbx__wasm_memory_copy(struct wasm_memory *dm, struct wasm_memory *sm,
                                          uint64_t d, uint64_t s, uint64_t n)
{
    if (!in_range(d, n, dm->size) || !in_range(s, n, sm->size))
        return WASM_TRAP_MEMORY_OOB;
    memmove(dm->data + d, sm->data + s, (size_t)n);
    return WASM_TRAP_NONE;
}

enum wasm_trap_kind sbx__wasm_memory_init(struct wasm_memory *mem, const uint8_t *bytes,
                                          uint32_t len, uint64_t d, uint64_t s, uint64_t n)
{
    if (!in_range(s, n, len) || !in_range(d, n, mem->size))
        return WASM_TRAP_MEMORY_OOB;
    if (n)
        memcpy(mem->data + d, bytes + s, (size_t)n);
    return WASM_TRAP_NONE;
}

const struct wasm_memtype *sbx__wasm_memory_type(const struct wasm_memory *mem)
{
    return &mem->type;
}

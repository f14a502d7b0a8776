/* wasm/table.c: tables of references. elems holds exactly `size` slots and may move on grow;
 * the store's max_table_elems caps every table, whatever its type allows. */
#include <stdint.h>

#include "util/alloc.h"
#include "wasm/gc.h"
#include "wasm/runtime.h"

static void table_free(void *ptr)
{
    struct wasm_table *t = ptr;
    if (t->store)
        sbx__wasm_store_refund(t->store, (uint64_t)t->size * sizeof(void *));
    sbx__free(t->elems);
    sbx__free(t);
}

/* Creates a table of type tt with every slot set to init.ref, owned by store and charged to it.
 * Returns NULL when the minimum exceeds the store's element or byte limit, or on NOMEM. */
struct wasm_table *sbx__wasm_table_new(struct wasm_store *store, const struct wasm_tabletype *tt,
                                       wasm_value init)
{
    /* Below 2^32 - 1 elements: a 64-bit index saturated to UINT32_MAX is out of bounds. */
    uint32_t max =
        store->limits.max_table_elems < UINT32_MAX ? store->limits.max_table_elems : UINT32_MAX - 1;
    if (tt->limits.has_max && tt->limits.max < max)
        max = (uint32_t)tt->limits.max;
    if (tt->limits.min > max ||
        !sbx__wasm_store_charge(store, (uint64_t)tt->limits.min * sizeof(void *)))
        return NULL;
    struct wasm_table *t = sbx__calloc(1, sizeof(*t));
    if (!t) {
        sbx__wasm_store_refund(store, (uint64_t)tt->limits.min * sizeof(void *));
        return NULL;
    }
    t->store = store;
    uint32_t min = (uint32_t)tt->limits.min; /* <= max, a uint32_t */
    t->size = min;                           /* charged: table_free refunds it */
    t->elems = sbx__mallocn(min ? min : 1, sizeof(void *));
    if (!t->elems || !sbx__wasm_store_own(store, t, table_free)) {
        table_free(t);
        return NULL;
    }
    for (uint32_t i = 0; i < min; i++)
        t->elems[i] = init.ref;
    t->size = min;
    t->max = max;
    t->type = *tt;
    /* a table that may hold GC objects is a root (gc.h) */
    if (sbx__wasm_ctype_is_gc(tt->elem_type) &&
        !sbx__wasm_gc_add_root(store, WASM_GC_ROOT_TABLE, t, 0))
        return NULL;
    return t;
}

uint32_t sbx__wasm_table_size(const struct wasm_table *t)
{
    return t->size;
}

bool sbx__wasm_table_get(const struct wasm_table *t, uint32_t idx, wasm_value *out)
{
    if (idx >= t->size)
        return false;
    out->ref = t->elems[idx];
    return true;
}

bool sbx__wasm_table_set(struct wasm_table *t, uint32_t idx, wasm_value v)
{
    if (idx >= t->size)
        return false;
    t->elems[idx] = v.ref;
    return true;
}

int64_t sbx__wasm_table_grow(struct wasm_table *t, uint32_t delta, wasm_value init)
{
    uint32_t old = t->size;
    uint64_t size = (uint64_t)old + delta;
    if (size > t->max) {
        /* As for memory: only the store's limits, not the type's maximum, are news. */
        t->store->was_refused |= !(t->type.limits.has_max && size > t->type.limits.max);
        return -1;
    }
    if (delta == 0)
        return old;
    if (!sbx__wasm_store_charge(t->store, (uint64_t)delta * sizeof(void *))) {
        t->store->was_refused = true;
        return -1;
    }
    void **elems = sbx__reallocn(t->elems, (size_t)size, sizeof(void *));
    if (!elems) {
        sbx__wasm_store_refund(t->store, (uint64_t)delta * sizeof(void *));
        return -1;
    }
    for (uint64_t i = old; i < size; i++)
        elems[i] = init.ref;
    t->elems = elems;
    t->size = (uint32_t)size;
    /* A table's type is its current limits (spec 4.5.3.2): imports match against it. */
    t->type.limits.min = t->size;
    return old;
}

const struct wasm_tabletype *sbx__wasm_table_type(const struct wasm_table *t)
{
    return &t->type;
}

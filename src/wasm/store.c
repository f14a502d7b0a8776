/* wasm/store.c: the store, owner of every runtime object created in it. Objects are kept on one
 * list and freed together at destroy; nothing is freed earlier, because a table may keep a
 * function of a failed instantiation alive (spec 4.5.4) until the store goes. */
#include <stdatomic.h>
#include <stdint.h>

#include "util/alloc.h"
#include "wasm/base/base.h"
#include "wasm/jit/jit.h"
#include "wasm/gc.h"
#include "wasm/runtime.h"

#define DEFAULT_MAX_MEMORY_PAGES 65536u
#define DEFAULT_MAX_TABLE_ELEMS  10000000u
#define DEFAULT_MAX_CALL_DEPTH   10000u
#define DEFAULT_MAX_STACK_BYTES  ((size_t)8 << 20)

struct wasm_store_object {
    void *ptr;
    void (*free_fn)(void *);
    struct wasm_store_object *next;
};

/* Fills zero fields with defaults and clamps pages to what a 32-bit memory can address. */
static void resolve_limits(struct wasm_store_limits *l)
{
    if (l->max_memory_pages == 0 || l->max_memory_pages > DEFAULT_MAX_MEMORY_PAGES)
        l->max_memory_pages = DEFAULT_MAX_MEMORY_PAGES;
    if (l->max_table_elems == 0)
        l->max_table_elems = DEFAULT_MAX_TABLE_ELEMS;
    if (l->max_call_depth == 0)
        l->max_call_depth = DEFAULT_MAX_CALL_DEPTH;
    if (l->max_stack_bytes == 0)
        l->max_stack_bytes = DEFAULT_MAX_STACK_BYTES;
}

sbx_err sbx__wasm_store_create(const struct wasm_store_limits *limits, struct wasm_store **out)
{
    *out = NULL;
    struct wasm_store *s = sbx__calloc(1, sizeof(*s));
    if (!s)
        return SBX_E_NOMEM;
    if (limits)
        s->limits = *limits;
    resolve_limits(&s->limits);
    /* The stacks are allocated on the first call but reserved now, so that memories and
     * tables can never leave the guest too little to be called at all. */
    if (!sbx__wasm_store_charge(s, sbx__wasm_exec_bytes(&s->limits))) {
        sbx__free(s);
        return SBX_E_MEMORY_LIMIT;
    }
    atomic_init(&s->is_interrupted, false);
    s->is_metered = s->limits.fuel != 0;
    s->fuel = s->limits.fuel;
    sbx__base_store_init(s);
    *out = s;
    return SBX_OK;
}

bool sbx__wasm_store_charge(struct wasm_store *store, uint64_t bytes)
{
    if (!sbx__wasm_store_fits(store, bytes))
        return false;
    store->bytes_used += bytes;
    return true;
}

bool sbx__wasm_store_fits(const struct wasm_store *store, uint64_t bytes)
{
    uint64_t cap = store->limits.max_bytes;
    return !cap || (bytes <= cap && store->bytes_used <= cap - bytes);
}

void sbx__wasm_store_refund(struct wasm_store *store, uint64_t bytes)
{
    store->bytes_used -= bytes < store->bytes_used ? bytes : store->bytes_used;
}

uint64_t sbx__wasm_store_bytes_used(const struct wasm_store *store)
{
    return store->bytes_used;
}

bool sbx__wasm_store_was_refused(const struct wasm_store *store)
{
    return store->was_refused;
}

void sbx__wasm_store_clear_refused(struct wasm_store *store)
{
    store->was_refused = false;
}

bool sbx__wasm_store_own(struct wasm_store *store, void *ptr, void (*free_fn)(void *))
{
    struct wasm_store_object *o = sbx__calloc(1, sizeof(*o));
    if (!o)
        return false;
    o->ptr = ptr;
    o->free_fn = free_fn;
    o->next = store->objects;
    store->objects = o;
    return true;
}

/* Frees one instance's own arrays; its tables, memories, globals and functions are objects of
 * the store and are freed with the object list. */
static void instance_free(struct wasm_instance *inst)
{
    if (inst->elem_refs) {
        for (uint32_t i = 0; i < inst->module->elem_count; i++)
            sbx__free(inst->elem_refs[i]);
    }
    sbx__free(inst->elem_refs);
    sbx__free(inst->elem_sizes);
    sbx__free(inst->data_dropped);
    sbx__free(inst->funcs);
    sbx__free(inst->tables);
    sbx__free(inst->mems);
    sbx__free(inst->globals);
    sbx__free(inst->tags);
    sbx__free(inst);
}

void sbx__wasm_store_destroy(struct wasm_store *store)
{
    if (!store)
        return;
    sbx__wasm_tierup_cancel(store); /* before anything a compile in flight reads */
    if (store->exec)
        sbx__wasm_exec_destroy(store->exec);
    store->exec = NULL;
    sbx__wasm_jit_store_free(store->jit); /* after the objects' users, before their memory */
    store->jit = NULL;
    sbx__wasm_gc_destroy(store);
    while (store->instances) {
        struct wasm_instance *next = store->instances->next;
        instance_free(store->instances);
        store->instances = next;
    }
    while (store->objects) {
        struct wasm_store_object *next = store->objects->next;
        store->objects->free_fn(store->objects->ptr);
        sbx__free(store->objects);
        store->objects = next;
    }
    sbx__free(store);
}

void sbx__wasm_store_interrupt(struct wasm_store *store)
{
    atomic_store_explicit(&store->is_interrupted, true, memory_order_release);
}

void sbx__wasm_store_clear_interrupt(struct wasm_store *store)
{
    atomic_store_explicit(&store->is_interrupted, false, memory_order_release);
}

void sbx__wasm_store_set_fuel(struct wasm_store *store, uint64_t fuel)
{
    store->is_metered = fuel != 0;
    store->fuel = fuel;
}

/* Returns the fuel left; UINT64_MAX when the store is unmetered. */
uint64_t sbx__wasm_store_fuel(const struct wasm_store *store)
{
    return store->is_metered ? store->fuel : UINT64_MAX;
}

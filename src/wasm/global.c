/* wasm/global.c: global variables. The engine checks mutability when it validates code and
 * links imports; sbx__wasm_global_set() is the host's door and writes whatever it is given. */
#include "util/alloc.h"
#include "wasm/gc.h"
#include "wasm/runtime.h"

/* Creates a global of type t holding v, owned by store. NULL on NOMEM. */
struct wasm_global *sbx__wasm_global_new(struct wasm_store *store, const struct wasm_globaltype *t,
                                         wasm_value v)
{
    struct wasm_global *g = sbx__calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    if (!sbx__wasm_store_own(store, g, sbx__free)) {
        sbx__free(g);
        return NULL;
    }
    g->type = *t;
    g->value = v;
    /* a global that may hold a GC object is a root (gc.h) */
    if (sbx__wasm_ctype_is_gc(t->type) && !sbx__wasm_gc_add_root(store, WASM_GC_ROOT_GLOBAL, g, 0))
        return NULL;
    return g;
}

wasm_value sbx__wasm_global_get(const struct wasm_global *g)
{
    return g->value;
}

void sbx__wasm_global_set(struct wasm_global *g, wasm_value v)
{
    g->value = v;
}

const struct wasm_globaltype *sbx__wasm_global_type(const struct wasm_global *g)
{
    return &g->type;
}

/* wasm/jit/cache_hot.c: what hot-only tier-up compiles is kept (issue 28). The batches a store
 * compiles for a module (lazy.c) go into the module's partial image, one object per batch
 * (image.h), under its own key (the module, the build, the CPU, the levels): in memory at once,
 * and in the cache directory (use_cache) at most every HOT_WRITE_NS and at the store's end. A
 * later store of the same module, in this process or another, links it at its first look
 * (tierup.c, when it is armed): every function hot before starts native, and the batches it
 * compiles itself are added. The store's thread never waits for any of it but at its end (the
 * last write). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "wasm/jit/cache.h"
#include "wasm/jit/image.h"
#include "wasm/jit/jit.h"
#include "wasm/jit/link.h"
#include "wasm/module.h"

#define HOT_WRITE_NS 1000000000ull /* a batch written at most this late, or at the end */

/* A store's partial image of one module and variant. */
struct sbx__jit_hot {
    const struct wasm_module *m;
    bool is_guarded, is_dirty;
    uint8_t key[SBX__SHA256_LEN];
    struct sbx__jit_image *im; /* one reference; NULL before the first batch */
    uint8_t *has;              /* per defined function: its code is in im */
    uint64_t written_ns;
    struct sbx__jit_hot *next;
};

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static const char *hot_opts(bool is_guarded)
{
    return is_guarded ? SBX__JIT_CACHE_OPTS_HOT " guarded" : SBX__JIT_CACHE_OPTS_HOT " checked";
}

/* The store's record of inst's module, made on first use; NULL on NOMEM. */
static struct sbx__jit_hot *hot_of(struct wasm_instance *inst)
{
    struct wasm_jit_store *js;
    bool is_guarded = sbx__jit_wants_guard(inst);
    if (sbx__jit_store(inst->store, &js) != SBX_OK)
        return NULL;
    for (struct sbx__jit_hot *h = js->hot; h; h = h->next) {
        if (h->m == inst->module && h->is_guarded == is_guarded)
            return h;
    }
    struct sbx__jit_hot *h = sbx__calloc(1, sizeof(*h));
    const struct wasm_module *m = inst->module;
    size_t n = m->func_def_count ? m->func_def_count : 1;
    if (h)
        h->has = sbx__calloc(n, 1);
    if (!h || !h->has) {
        sbx__free(h);
        return NULL;
    }
    h->m = m;
    h->is_guarded = is_guarded;
    sbx__jit_cache_key(m->bytes, m->len, hot_opts(is_guarded), h->key);
    h->next = js->hot;
    js->hot = h;
    return h;
}

/* The functions a linked image gave entries to, in has. */
static void mark_linked(struct sbx__jit_hot *h, struct wasm_instance *inst)
{
    for (uint32_t i = 0; i < h->m->func_def_count; i++) {
        struct wasm_func *f = inst->funcs[h->m->func_import_count + i];
        h->has[i] = __atomic_load_n(&f->jit_entry, __ATOMIC_ACQUIRE) != NULL;
    }
}

bool sbx__wasm_jit_hot_link(struct wasm_instance *inst)
{
    struct sbx__jit_hot *h = inst->store->limits.use_cache ? hot_of(inst) : NULL;
    if (!h || h->im)
        return false;
    struct sbx__jit_cache c;
    char why[512];
    sbx__jit_cache_open(&c, NULL, 0, why, sizeof(why)); /* refused: memory only */
    struct sbx__jit_image *im = sbx__jit_cache_find(&c, h->key);
    bool is_linked = im && sbx__jit_image_is_partial(im) &&
                     sbx__jit_image_link(im, inst, why, sizeof(why)) == SBX_OK;
    if (im && !is_linked)
        sbx__jit_cache_forget(&c, h->key);
    sbx__jit_cache_close(&c);
    if (is_linked) {
        h->im = im;
        mark_linked(h, inst);
    } else {
        sbx__jit_image_free(im);
    }
    return is_linked;
}

/* Writes h's image to the cache directory (replacing the entry: two writers leave one of their
 * images whole, cache.c's rename). */
static void write_hot(struct sbx__jit_hot *h)
{
    struct sbx__jit_cache c;
    char why[512];
    uint8_t *buf = NULL;
    size_t len = 0;
    h->is_dirty = false;
    h->written_ns = now_ns();
    if (sbx__jit_cache_open(&c, NULL, 0, why, sizeof(why)) != SBX_OK)
        return;
    if (sbx__jit_image_encode(h->im, &buf, &len) == SBX_OK)
        sbx__jit_cache_store(&c, h->key, buf, len, NULL, 0);
    sbx__free(buf);
    sbx__jit_cache_close(&c);
}

void sbx__wasm_jit_hot_add(struct wasm_instance *inst, const struct wasm_lazy_item *items,
                           uint32_t n, const struct sbx__jit_obj *objs, uint32_t nobjs)
{
    struct sbx__jit_hot *h = inst->store->limits.use_cache ? hot_of(inst) : NULL;
    if (!h)
        return;
    for (uint32_t i = 0; i < n; i++) {
        if (h->has[items[i].def])
            return; /* in the image already (another instance's batch): never twice */
    }
    struct sbx__jit_image *im = NULL;
    if (sbx__jit_image_partial(h->im, h->m, h->is_guarded, objs, nobjs, &im) != SBX_OK)
        return; /* full, or NOMEM: the batch stays this store's */
    sbx__jit_image_free(h->im);
    h->im = im;
    for (uint32_t i = 0; i < n; i++)
        h->has[items[i].def] = 1;
    sbx__jit_mem_put(h->key, im);
    h->is_dirty = true;
    if (now_ns() - h->written_ns >= HOT_WRITE_NS)
        write_hot(h);
}

void sbx__jit_hot_free(struct wasm_jit_store *js)
{
    for (struct sbx__jit_hot *h = js->hot, *next; h; h = next) {
        next = h->next;
        if (h->im && h->is_dirty) /* the store's end: what the last batches added */
            write_hot(h);
        sbx__jit_image_free(h->im);
        sbx__free(h->has);
        sbx__free(h);
    }
}

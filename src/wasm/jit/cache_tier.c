/* wasm/jit/cache_tier.c: the compiled tier's instantiate path through the caches: the image in
 * memory (cache_mem.c), else an entry of the directory, verified, decoded and kept in memory, is
 * linked (no LLVM); on a miss or any failure of those, the image is built, stored in both and
 * linked. Nothing read from disk is used before every check passed. */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/jit/cache.h"
#include "wasm/jit/image.h"
#include "wasm/jit/jit.h"
#include "wasm/runtime.h"

/* The verified entry of key, decoded; NULL on a miss. A refused or undecodable entry is
 * removed, so the caller rebuilds and replaces it. */
static struct sbx__jit_image *lookup(struct sbx__jit_cache *c, const uint8_t *key)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    char why[256];
    if (sbx__jit_cache_load(c, key, &buf, &len, why, sizeof(why)) != SBX_OK)
        return NULL;
    struct sbx__jit_image *im = NULL;
    if (sbx__jit_image_decode(buf, len, &im, why, sizeof(why)) != SBX_OK) {
        sbx__jit_cache_remove(c, key);
        im = NULL;
    }
    sbx__free(buf);
    return im;
}

/* Builds m's image into *out and stores it under key; *stored is the store's outcome (a
 * failed store only loses the cache). */
static sbx_err build_and_store(struct sbx__jit_cache *c, const uint8_t *key,
                               const struct wasm_module *m, bool is_guarded,
                               const struct sbx__jit_stop *stop, struct sbx__jit_image **out,
                               sbx_err *stored, char *path, size_t pathlen, char *err,
                               size_t errlen)
{
    sbx_err rc = sbx__jit_image_build(m, is_guarded, stop, out, err, errlen);
    *stored = SBX_E_UNAVAILABLE;
    if (rc != SBX_OK)
        return rc;
    *stored = sbx__jit_cache_put(c, key, *out, path, pathlen);
    return SBX_OK;
}

sbx_err sbx__jit_cache_put(struct sbx__jit_cache *c, const uint8_t *key,
                           const struct sbx__jit_image *im, char *path, size_t pathlen)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    sbx_err rc = c->dirfd >= 0 ? sbx__jit_image_encode(im, &buf, &len) : SBX_E_UNAVAILABLE;
    if (rc == SBX_OK)
        rc = sbx__jit_cache_store(c, key, buf, len, path, pathlen);
    sbx__free(buf);
    return rc;
}

struct sbx__jit_image *sbx__jit_cache_find(struct sbx__jit_cache *c, const uint8_t *key)
{
    struct sbx__jit_image *im = sbx__jit_mem_get(key);
    if (!im && c->dirfd >= 0 && (im = lookup(c, key)) != NULL)
        sbx__jit_mem_put(key, im);
    return im;
}

void sbx__jit_cache_forget(struct sbx__jit_cache *c, const uint8_t *key)
{
    sbx__jit_mem_put(key, NULL);
    if (c->dirfd >= 0)
        sbx__jit_cache_remove(c, key);
}

/* A hit: the image of key linked into inst. An image that does not link is removed from both
 * caches, never tried again. */
static bool link_hit(struct sbx__jit_cache *c, const uint8_t *key, struct wasm_instance *inst)
{
    char why[256];
    struct sbx__jit_image *im = sbx__jit_cache_find(c, key);
    bool is_linked = im && sbx__jit_image_link(im, inst, why, sizeof(why)) == SBX_OK;
    if (im && !is_linked)
        sbx__jit_cache_forget(c, key);
    sbx__jit_image_free(im);
    return is_linked;
}

static const char *opts(bool is_guarded)
{
    return is_guarded ? SBX__JIT_CACHE_OPTS_GUARDED : SBX__JIT_CACHE_OPTS_CHECKED;
}

static void open_for(const struct wasm_instance *inst, struct sbx__jit_cache *c, uint8_t *key)
{
    char why[512];
    const struct wasm_module *m = inst->module;
    sbx__jit_cache_key(m->bytes, m->len, opts(sbx__jit_wants_guard(inst)), key);
    sbx__jit_cache_open(c, NULL, 0, why, sizeof(why)); /* refused: compile uncached */
}

bool sbx__wasm_jit_cache_link(struct wasm_instance *inst)
{
    if (!inst->store->limits.use_cache)
        return false;
    uint8_t key[SBX__SHA256_LEN];
    struct sbx__jit_cache c;
    open_for(inst, &c, key);
    bool is_hit = link_hit(&c, key, inst);
    sbx__jit_cache_close(&c);
    return is_hit;
}

sbx_err sbx__wasm_jit_instance_cached(struct wasm_instance *inst,
                                      const struct wasm_load_guard *guard, char *err, size_t errlen)
{
    if (!inst->store->limits.use_cache)
        return sbx__wasm_jit_instance(inst, guard, err, errlen);
    uint8_t key[SBX__SHA256_LEN];
    struct sbx__jit_cache c;
    open_for(inst, &c, key);
    if (link_hit(&c, key, inst)) {
        sbx__jit_cache_close(&c);
        return SBX_OK;
    }
    struct sbx__jit_image *im = NULL;
    struct sbx__jit_stop stop;
    sbx__jit_stop_for(inst->store, guard, &stop);
    sbx_err stored, rc = build_and_store(&c, key, inst->module, sbx__jit_wants_guard(inst), &stop,
                                         &im, &stored, NULL, 0, err, errlen);
    if (rc == SBX_OK)
        sbx__jit_mem_put(key, im);
    sbx__jit_cache_close(&c);
    if (rc == SBX_OK)
        rc = sbx__jit_image_link(im, inst, err, errlen);
    sbx__jit_image_free(im);
    return rc;
}

sbx_err sbx__jit_cache_fill(const struct wasm_module *m, char *path, size_t pathlen,
                            bool *was_cached, char *err, size_t errlen)
{
    /* The variant a run would use now: its memory gets a guard region if this one can. */
    bool is_guarded = m->mem_count == 0 || sbx__wasm_memory_can_guard();
    uint8_t key[SBX__SHA256_LEN];
    sbx__jit_cache_key(m->bytes, m->len, opts(is_guarded), key);
    struct sbx__jit_cache c;
    *was_cached = false;
    sbx_err rc = sbx__jit_cache_open(&c, NULL, 0, err, errlen);
    if (rc != SBX_OK)
        return rc;
    struct sbx__jit_image *im = lookup(&c, key);
    sbx_err stored = SBX_OK;
    *was_cached = im != NULL;
    sbx__jit_cache_entry_path(&c, key, path, pathlen);
    if (!im)
        rc =
            build_and_store(&c, key, m, is_guarded, NULL, &im, &stored, path, pathlen, err, errlen);
    if (rc == SBX_OK && stored != SBX_OK) {
        snprintf(err, errlen, "cannot write the cache entry %s", path);
        rc = SBX_E_IO;
    }
    sbx__jit_image_free(im);
    sbx__jit_cache_close(&c);
    return rc;
}

/* wasm/jit/image.c: the compiled code of a module (image.h) and its encoding:
 *   "SBXJITIM" | u32 version | u32 object count | u64 module length | u64 module hash |
 *   u32 defined functions | u32 flags | u64 credit | per object: u64 length | the objects' bytes
 * little-endian; flags bit 0: guarded code (no bounds checks), which links only to an instance
 * whose memory has the guard region; bit 1: partial (hot-only batches, cache_hot.c: linked as
 * batches are, giving entries to their functions only); bit 2: a partial image whose objects are
 * one hot set recompiled at the hot-set level (the upgrade). credit: the CPU the processes that
 * used a partial image spent since its last upgrade (the upgrade's budget). The module's length
 * and hash tie an image to its module; link refuses another module's (a cache keys entries by
 * SHA-256, this is the loader's own check). Images are immutable once made (credit is metadata,
 * set before an encode) and shared by reference (cache_mem.c, a store's list of its images). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/jit/image.h"
#include "wasm/jit/link.h"

#define MAGIC       "SBXJITIM"
#define VERSION     4u
#define F_GUARDED   1u
#define F_PARTIAL   2u
#define F_UPGRADED  4u
#define HEADER_SIZE 48u

struct sbx__jit_image {
    atomic_uint refs;
    uint64_t module_len, module_hash;
    uint32_t func_def_count;
    uint32_t flags;
    _Atomic uint64_t credit_ns; /* set when written (cache_hot.c), read by encode */
    uint32_t nobjs;
    struct sbx__jit_obj objs[SBX__JIT_MAX_PARTS];
};

static struct sbx__jit_image *image_new(void)
{
    struct sbx__jit_image *im = sbx__calloc(1, sizeof(*im));
    if (im)
        atomic_init(&im->refs, 1);
    return im;
}

static sbx_err fail(char *err, size_t errlen, const char *what)
{
    if (err && errlen)
        snprintf(err, errlen, "compiled tier: bad image: %s", what);
    return SBX_E_UNAVAILABLE;
}

/* A fast 64-bit hash of the module's bytes (8 at a time); not cryptographic. */
static uint64_t module_hash(const struct wasm_module *m)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ m->len;
    size_t i = 0;
    for (; i + 8 <= m->len; i += 8) {
        uint64_t w;
        memcpy(&w, m->bytes + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < m->len; i++)
        h = (h ^ m->bytes[i]) * 0x100000001b3ull;
    return h;
}

bool sbx__jit_wants_guard(const struct wasm_instance *inst)
{
    return !inst->mem0 || inst->mem0->is_guarded;
}

sbx_err sbx__jit_image_build(const struct wasm_module *m, bool is_guarded,
                             const struct sbx__jit_stop *stop, struct sbx__jit_image **out,
                             char *err, size_t errlen)
{
    *out = NULL;
    struct sbx__jit_image *im = image_new();
    if (!im)
        return SBX_E_NOMEM;
    sbx_err rc = sbx__jit_compile(m, is_guarded, stop, im->objs, &im->nobjs, err, errlen);
    if (rc != SBX_OK) {
        sbx__free(im);
        return rc;
    }
    im->module_len = m->len;
    im->module_hash = module_hash(m);
    im->func_def_count = m->func_def_count;
    im->flags = is_guarded ? F_GUARDED : 0;
    *out = im;
    return SBX_OK;
}

static uint8_t *put(uint8_t *p, const void *v, size_t n)
{
    memcpy(p, v, n);
    return p + n;
}

sbx_err sbx__jit_image_encode(const struct sbx__jit_image *im, uint8_t **buf, size_t *len)
{
    size_t total = HEADER_SIZE;
    for (uint32_t i = 0; i < im->nobjs; i++)
        total += 8 + im->objs[i].len;
    uint8_t *b = sbx__mallocn(total, 1), *p = b;
    if (!b)
        return SBX_E_NOMEM;
    uint32_t version = VERSION;
    p = put(p, MAGIC, 8);
    p = put(p, &version, 4);
    p = put(p, &im->nobjs, 4);
    p = put(p, &im->module_len, 8);
    p = put(p, &im->module_hash, 8);
    p = put(p, &im->func_def_count, 4);
    p = put(p, &im->flags, 4);
    uint64_t credit = atomic_load(&im->credit_ns);
    p = put(p, &credit, 8);
    for (uint32_t i = 0; i < im->nobjs; i++) {
        uint64_t n = im->objs[i].len;
        p = put(p, &n, 8);
    }
    for (uint32_t i = 0; i < im->nobjs; i++)
        p = put(p, im->objs[i].bytes, im->objs[i].len);
    *buf = b;
    *len = total;
    return SBX_OK;
}

/* The header's fields; the object lengths follow it. */
static sbx_err decode_header(const uint8_t *buf, size_t len, struct sbx__jit_image *im, char *err,
                             size_t errlen)
{
    uint32_t version, nobjs;
    if (len < HEADER_SIZE || memcmp(buf, MAGIC, 8) != 0)
        return fail(err, errlen, "not an image");
    memcpy(&version, buf + 8, 4);
    memcpy(&nobjs, buf + 12, 4);
    memcpy(&im->module_len, buf + 16, 8);
    memcpy(&im->module_hash, buf + 24, 8);
    memcpy(&im->func_def_count, buf + 32, 4);
    memcpy(&im->flags, buf + 36, 4);
    uint64_t credit;
    memcpy(&credit, buf + 40, 8);
    atomic_store(&im->credit_ns, credit);
    if (version != VERSION)
        return fail(err, errlen, "another version");
    if (nobjs == 0 || nobjs > SBX__JIT_MAX_PARTS ||
        (im->flags & ~(F_GUARDED | F_PARTIAL | F_UPGRADED)) != 0)
        return fail(err, errlen, "bad header");
    im->nobjs = nobjs;
    return SBX_OK;
}

sbx_err sbx__jit_image_decode(const uint8_t *buf, size_t len, struct sbx__jit_image **out,
                              char *err, size_t errlen)
{
    *out = NULL;
    struct sbx__jit_image *im = image_new();
    if (!im)
        return SBX_E_NOMEM;
    sbx_err rc = decode_header(buf, len, im, err, errlen);
    uint64_t lens[SBX__JIT_MAX_PARTS] = {0}, at = HEADER_SIZE + 8ull * im->nobjs;
    if (rc == SBX_OK && len < at)
        rc = fail(err, errlen, "truncated");
    for (uint32_t i = 0; rc == SBX_OK && i < im->nobjs; i++) {
        memcpy(&lens[i], buf + HEADER_SIZE + 8 * i, 8);
        if (lens[i] > len - at)
            rc = fail(err, errlen, "truncated");
        else
            at += lens[i];
    }
    if (rc == SBX_OK && at != len)
        rc = fail(err, errlen, "trailing bytes");
    at = HEADER_SIZE + 8ull * im->nobjs;
    for (uint32_t i = 0; rc == SBX_OK && i < im->nobjs; i++) {
        im->objs[i].bytes = sbx__mallocn(lens[i] ? lens[i] : 1, 1);
        if (!im->objs[i].bytes)
            rc = SBX_E_NOMEM;
        else
            memcpy(im->objs[i].bytes, buf + at, lens[i]);
        im->objs[i].len = lens[i];
        at += lens[i];
    }
    if (rc != SBX_OK) {
        sbx__jit_image_free(im);
        return rc;
    }
    *out = im;
    return SBX_OK;
}

sbx_err sbx__jit_image_link(const struct sbx__jit_image *im, struct wasm_instance *inst, char *err,
                            size_t errlen)
{
    const struct wasm_module *m = inst->module;
    if (im->module_len != m->len || im->func_def_count != m->func_def_count ||
        im->module_hash != module_hash(m))
        return fail(err, errlen, "compiled from another module");
    if ((im->flags & F_GUARDED) && !sbx__jit_wants_guard(inst))
        return fail(err, errlen, "guarded code for a memory without a guard region");
    if (im->flags & F_PARTIAL)
        return sbx__jit_link_some(im->objs, im->nobjs, inst, err, errlen);
    return sbx__jit_link(im->objs, im->nobjs, inst, err, errlen);
}

sbx_err sbx__jit_image_partial(const struct sbx__jit_image *prev, const struct wasm_module *m,
                               bool is_guarded, const struct sbx__jit_obj *objs, uint32_t n,
                               struct sbx__jit_image **out)
{
    return sbx__jit_image_hot(prev, m, is_guarded, false, 0, objs, n, out);
}

sbx_err sbx__jit_image_hot(const struct sbx__jit_image *prev, const struct wasm_module *m,
                           bool is_guarded, bool is_upgraded, uint64_t credit_ns,
                           const struct sbx__jit_obj *objs, uint32_t n, struct sbx__jit_image **out)
{
    uint32_t old = prev ? prev->nobjs : 0;
    *out = NULL;
    if (old + n > SBX__JIT_MAX_PARTS)
        return SBX_E_UNAVAILABLE; /* full: the batches stay this process's */
    struct sbx__jit_image *im = image_new();
    if (!im)
        return SBX_E_NOMEM;
    im->module_len = m->len;
    im->module_hash = module_hash(m);
    im->func_def_count = m->func_def_count;
    im->flags = F_PARTIAL | (is_guarded ? F_GUARDED : 0) | (is_upgraded ? F_UPGRADED : 0);
    atomic_store(&im->credit_ns, credit_ns);
    for (uint32_t i = 0; i < old + n; i++) {
        const struct sbx__jit_obj *o = i < old ? &prev->objs[i] : &objs[i - old];
        im->objs[i].bytes = sbx__mallocn(o->len ? o->len : 1, 1);
        if (!im->objs[i].bytes) {
            sbx__jit_image_free(im);
            return SBX_E_NOMEM;
        }
        memcpy(im->objs[i].bytes, o->bytes, o->len);
        im->objs[i].len = o->len;
        im->nobjs = i + 1;
    }
    *out = im;
    return SBX_OK;
}

sbx_err sbx__jit_image_defs(const struct sbx__jit_image *im, const struct wasm_module *m,
                            uint8_t *only, char *err, size_t errlen)
{
    if (im->module_len != m->len || im->func_def_count != m->func_def_count ||
        im->module_hash != module_hash(m))
        return fail(err, errlen, "compiled from another module");
    return sbx__jit_objs_defs(im->objs, im->nobjs, m->func_def_count, only, err, errlen);
}

bool sbx__jit_image_is_partial(const struct sbx__jit_image *im)
{
    return (im->flags & F_PARTIAL) != 0;
}

bool sbx__jit_image_is_upgraded(const struct sbx__jit_image *im)
{
    return (im->flags & F_UPGRADED) != 0;
}

uint64_t sbx__jit_image_credit(const struct sbx__jit_image *im)
{
    return atomic_load(&((struct sbx__jit_image *)im)->credit_ns);
}

void sbx__jit_image_set_credit(struct sbx__jit_image *im, uint64_t credit_ns)
{
    atomic_store(&im->credit_ns, credit_ns);
}

size_t sbx__jit_image_bytes(const struct sbx__jit_image *im)
{
    size_t n = sizeof(*im);
    for (uint32_t i = 0; i < im->nobjs; i++)
        n += im->objs[i].len;
    return n;
}

struct sbx__jit_image *sbx__jit_image_ref(struct sbx__jit_image *im)
{
    if (im)
        atomic_fetch_add(&im->refs, 1);
    return im;
}

void sbx__jit_image_free(struct sbx__jit_image *im)
{
    if (!im || atomic_fetch_sub(&im->refs, 1) != 1)
        return;
    sbx__jit_objs_free(im->objs, im->nobjs);
    sbx__free(im);
}

/* A store keeps the image of each module it compiled: its other instances link it again. */
struct sbx__jit_image_entry {
    const struct wasm_module *m;
    bool is_guarded;
    struct sbx__jit_image *im;
    struct sbx__jit_image_entry *next;
};

void sbx__jit_images_free(struct sbx__jit_image_entry *e)
{
    for (struct sbx__jit_image_entry *next; e; e = next) {
        next = e->next;
        sbx__jit_image_free(e->im);
        sbx__free(e);
    }
}

void sbx__jit_stop_for(const struct wasm_store *s, const struct wasm_load_guard *guard,
                       struct sbx__jit_stop *out)
{
    bool is_compiled = s->limits.tier == WASM_TIER_COMPILED; /* else the worker's tier-up */
    *out = (struct sbx__jit_stop){.cancel = &s->tierup.cancel,
                                  .interrupt = is_compiled ? &s->is_interrupted : NULL,
                                  .guard = guard};
}

/* The store's image of m in the variant is_guarded, built on first use. */
static sbx_err store_image(struct wasm_store *s, const struct wasm_module *m, bool is_guarded,
                           const struct wasm_load_guard *guard, const struct sbx__jit_image **out,
                           char *err, size_t errlen)
{
    struct wasm_jit_store *js;
    sbx_err rc = sbx__jit_store(s, &js);
    for (const struct sbx__jit_image_entry *e = rc == SBX_OK ? js->images : NULL; e; e = e->next) {
        if (e->m == m && e->is_guarded == is_guarded) {
            *out = e->im;
            return SBX_OK;
        }
    }
    struct sbx__jit_image_entry *e = rc == SBX_OK ? sbx__calloc(1, sizeof(*e)) : NULL;
    if (!e)
        return rc == SBX_OK ? SBX_E_NOMEM : rc;
    struct sbx__jit_stop stop;
    sbx__jit_stop_for(s, guard, &stop);
    rc = sbx__jit_image_build(m, is_guarded, &stop, &e->im, err, errlen);
    if (rc != SBX_OK) {
        sbx__free(e);
        return rc;
    }
    e->m = m;
    e->is_guarded = is_guarded;
    e->next = js->images;
    js->images = e;
    *out = e->im;
    return SBX_OK;
}

sbx_err sbx__wasm_jit_instance(struct wasm_instance *inst, const struct wasm_load_guard *guard,
                               char *err, size_t errlen)
{
    const struct sbx__jit_image *im = NULL;
    sbx_err rc =
        store_image(inst->store, inst->module, sbx__jit_wants_guard(inst), guard, &im, err, errlen);
    return rc == SBX_OK ? sbx__jit_image_link(im, inst, err, errlen) : rc;
}

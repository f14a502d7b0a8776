/* wasm/jit/cache_hot.c: what hot-only tier-up compiles is kept (issue 28). The batches a store
 * compiles for a module (lazy.c) go into the module's partial image, one object per batch
 * (image.h), under its own key (the module, the build, the CPU, the levels): in memory at once,
 * and in the cache directory (use_cache) at most every HOT_WRITE_NS and at the store's end. A
 * later store of the same module, in this process or another, links it at its first look
 * (tierup.c, when it is armed): every function hot before starts native, and the batches it
 * compiles itself are added. The upgrade: batches are compiled cheaply (the large level), and
 * call each other through the runtime; once the process has spent enough CPU with the module's
 * stores that recompiling its whole hot set costs at most 1/UPGRADE_SHARE of it (earlier
 * processes' CPU counts too: the image carries it as credit), the worker recompiles the set as
 * one unit at the hot-set level (level.h: code near default<O2>'s, direct calls inside the set)
 * and that replaces the image. Never in the store that made the image's first batches: a long
 * first run (bzip2) would pay the upgrade in the run the user waits for first; the next store
 * (the next run, or a binding's next sandbox) pays it, from its first look, with the credit. The
 * store's thread never waits for any of it but at its end. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "wasm/jit/cache.h"
#include "wasm/jit/image.h"
#include "wasm/jit/jit.h"
#include "wasm/jit/link.h"
#include "wasm/jit/level.h"
#include "wasm/module.h"
#include "wasm/runtime.h"

#define HOT_WRITE_NS 1000000000ull /* a batch written at most this late, or at the end */
/* The upgrade's budget: its estimated CPU at most 1/UPGRADE_SHARE of the busy time. The estimate
 * is SET_NS_PER_BYTE per byte translated: a function's code, twice with its OSR entry (a second
 * translation of the whole function). Measured on the real programs (2026-12-03, `sbx compile
 * --hot` after a first run, CPU with the process's start and LLVM's load): SQLite 2.87 s for
 * 173,408 bytes translated, bzip2 2.50 s for 108,547, Lua 1.57 s for 111,506, minigzip 0.53 s for
 * 41,668: 13-23 us a byte. */
#define SET_NS_PER_BYTE 20000ull
#define UPGRADE_SHARE   2u
#define BG_SHARE        2u /* the background upgrade's, at most BG_SHARE times what runs spent */
#define CREDIT_WRITE_NS 100000000ull /* at the store's end, credit worth a rewrite */
#define DUE_MAX         16u          /* keys remembered as due for a background upgrade */

/* A store's partial image of one module and variant. */
struct sbx__jit_hot {
    const struct wasm_module *m;
    bool is_guarded, is_dirty;
    uint8_t key[SBX__SHA256_LEN];
    struct sbx__jit_image *im;  /* one reference; NULL before the first batch */
    uint8_t *has;               /* per defined function: its code is in im */
    uint8_t *osr;               /* per defined function in im: with an OSR entry */
    struct wasm_instance *inst; /* the instance its batches and upgrade are linked into */
    uint64_t set_bytes;         /* bytes translated for im's functions (set_weight) */
    bool needs_upgrade;         /* im holds batches (not one hot set at the hot-set level) */
    bool was_kept;              /* im came from an earlier store (hot_link): not a first run */
    uint64_t credit_ns;         /* CPU of the processes before this one (the image's) */
    uint64_t start_cpu_ns;      /* the process's CPU clock when this record was made */
    uint64_t written_ns, written_cpu_ns;
    struct sbx__jit_hot *next;
};

/* What recompiling defined function def costs the upgrade, in bytes translated (above). */
static uint64_t set_weight(const struct wasm_module *m, uint32_t def, bool has_osr)
{
    return (uint64_t)m->funcs[def].code_len * (has_osr ? 2 : 1);
}

static uint64_t clock_ns(clockid_t clk)
{
    struct timespec t;
    clock_gettime(clk, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

/* The CPU the process spent (all its threads) since h was made: what the upgrade is weighed
 * against, as the targets count a run's CPU. */
static uint64_t spent_ns(const struct sbx__jit_hot *h)
{
    uint64_t now = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    return now > h->start_cpu_ns ? now - h->start_cpu_ns : 0;
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
    if (h) {
        h->has = sbx__calloc(n, 1);
        h->osr = sbx__calloc(n, 1);
    }
    if (!h || !h->has || !h->osr) {
        if (h) {
            sbx__free(h->has);
            sbx__free(h->osr);
        }
        sbx__free(h);
        return NULL;
    }
    h->m = m;
    h->inst = inst;
    h->start_cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    h->is_guarded = is_guarded;
    sbx__jit_cache_key(m->bytes, m->len, hot_opts(is_guarded), h->key);
    h->next = js->hot;
    js->hot = h;
    return h;
}

/* The functions a linked image gave entries to, in has and osr; their code bytes. */
static void mark_linked(struct sbx__jit_hot *h, struct wasm_instance *inst)
{
    for (uint32_t i = 0; i < h->m->func_def_count; i++) {
        struct wasm_func *f = inst->funcs[h->m->func_import_count + i];
        if (!__atomic_load_n(&f->jit_entry, __ATOMIC_ACQUIRE))
            continue;
        h->has[i] = 1;
        h->osr[i] = f->osr_entry != NULL;
        h->set_bytes += set_weight(h->m, i, h->osr[i]);
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
        h->needs_upgrade = !sbx__jit_image_is_upgraded(im);
        h->was_kept = true;
        h->credit_ns = sbx__jit_image_credit(im);
        mark_linked(h, inst);
    } else {
        sbx__jit_image_free(im);
    }
    return is_linked;
}

/* Writes h's image to the cache directory (replacing the entry: two writers leave one of their
 * images whole, cache.c's rename), crediting it with this process's CPU so far. */
static void write_hot(struct sbx__jit_hot *h)
{
    struct sbx__jit_cache c;
    char why[512];
    h->is_dirty = false;
    h->written_ns = now_ns();
    h->written_cpu_ns = spent_ns(h);
    sbx__jit_image_set_credit(h->im, h->credit_ns + h->written_cpu_ns);
    if (sbx__jit_cache_open(&c, NULL, 0, why, sizeof(why)) != SBX_OK)
        return;
    sbx__jit_cache_put(&c, h->key, h->im, NULL, 0);
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
    if (sbx__jit_image_hot(h->im, h->m, h->is_guarded, false, h->credit_ns, objs, nobjs, &im) !=
        SBX_OK)
        return; /* full, or NOMEM: the batch stays this store's */
    sbx__jit_image_free(h->im);
    h->im = im;
    h->needs_upgrade = true;
    for (uint32_t i = 0; i < n; i++) {
        h->has[items[i].def] = 1;
        h->osr[items[i].def] = items[i].wants_osr;
        h->set_bytes += set_weight(h->m, items[i].def, items[i].wants_osr);
    }
    sbx__jit_mem_put(h->key, im);
    h->is_dirty = true;
    if (now_ns() - h->written_ns >= HOT_WRITE_NS)
        write_hot(h);
}

/* The CPU still to be spent before h's upgrade is within its budget (0: due), or UINT64_MAX. */
static uint64_t due_in(const struct sbx__jit_hot *h)
{
    if (!h->needs_upgrade || !h->im || !h->was_kept)
        return UINT64_MAX; /* never in a module's first run: it has its own target (issue 28) */
    uint64_t budget = UPGRADE_SHARE * SET_NS_PER_BYTE * h->set_bytes;
    uint64_t paid = h->credit_ns + spent_ns(h);
    return budget > paid ? budget - paid : 0;
}

uint64_t sbx__wasm_jit_hot_upgrade_in(struct wasm_store *s)
{
    uint64_t in = UINT64_MAX;
    for (const struct sbx__jit_hot *h = s->jit ? s->jit->hot : NULL; h; h = h->next) {
        uint64_t d = due_in(h);
        in = d < in ? d : in;
    }
    return in;
}

/* Compiles the set only names (sbx__jit_compile_set's) as one unit at the hot-set level into an
 * upgraded image, linked into inst first when inst is not NULL. */
static sbx_err compile_upgraded(const struct wasm_module *m, bool is_guarded, const uint8_t *only,
                                const struct sbx__jit_stop *stop, struct wasm_instance *inst,
                                struct sbx__jit_image **out, char *err, size_t errlen)
{
    struct sbx__jit_obj objs[SBX__JIT_MAX_PARTS] = {0};
    uint32_t nobjs = 0;
    sbx_err rc = sbx__jit_compile_set(m, is_guarded, only, sbx__jit_level_of_hot_set(), stop, objs,
                                      &nobjs, err, errlen);
    if (rc == SBX_OK && inst)
        rc = sbx__jit_link_some(objs, nobjs, inst, err, errlen);
    if (rc == SBX_OK)
        rc = sbx__jit_image_hot(NULL, m, is_guarded, true, 0, objs, nobjs, out);
    sbx__jit_objs_free(objs, nobjs);
    return rc;
}

/* Recompiles h's hot set as one unit at the hot-set level and makes it h's image. */
static bool upgrade(struct wasm_store *s, struct sbx__jit_hot *h)
{
    const struct wasm_module *m = h->m;
    uint8_t *only = sbx__calloc(m->func_def_count ? m->func_def_count : 1, 1);
    if (!only)
        return false;
    for (uint32_t i = 0; i < m->func_def_count; i++)
        only[i] = !h->has[i] ? 0 : h->osr[i] ? SBX__JIT_ONLY_OSR : SBX__JIT_ONLY_FUNC;
    char err[256];
    struct sbx__jit_stop stop = {.cancel = &s->tierup.cancel};
    struct sbx__jit_image *im = NULL;
    sbx_err rc = compile_upgraded(m, h->is_guarded, only, &stop, h->inst, &im, err, sizeof(err));
    sbx__free(only);
    h->needs_upgrade = false; /* once per store, whatever happens */
    if (rc != SBX_OK)
        return false;
    sbx__jit_image_free(h->im);
    h->im = im;
    h->credit_ns =
        0; /* the CPU so far paid for this upgrade: a later one (new batches) pays anew */
    h->start_cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    sbx__jit_mem_put(h->key, im);
    write_hot(h);
    return true;
}

bool sbx__wasm_jit_hot_upgrade(struct wasm_store *s)
{
    for (struct sbx__jit_hot *h = s->jit ? s->jit->hot : NULL; h; h = h->next) {
        if (due_in(h) == 0)
            return upgrade(s, h);
    }
    return false;
}

/* The background upgrade (sbx__jit_hot_upgrade_module), off every run's clock, is due once
 * the runs that used the kept batches have spent at least 1/BG_SHARE of its estimated CPU: a
 * module that ran long enough to compile batches is one that runs long, and again (what the
 * cache is for), and the upgraded code runs it 2-4x faster than the batches' (docs/wasm.md,
 * "The upgrade"). The upgrade in a store waits for UPGRADE_SHARE times its estimate instead:
 * there it is paid in a run someone waits for. */
static bool bg_due(uint64_t set_bytes, uint64_t credit_ns)
{
    return set_bytes && SET_NS_PER_BYTE * set_bytes <= BG_SHARE * credit_ns;
}

/* Keys of the images this process's stores left due for a background upgrade. */
static pthread_mutex_t due_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t due_keys[DUE_MAX][SBX__SHA256_LEN];
static uint32_t due_count;

static void note_due(const uint8_t key[SBX__SHA256_LEN])
{
    pthread_mutex_lock(&due_lock);
    uint32_t i = 0;
    while (i < due_count && memcmp(due_keys[i], key, SBX__SHA256_LEN) != 0)
        i++;
    if (i == due_count && due_count < DUE_MAX)
        memcpy(due_keys[due_count++], key, SBX__SHA256_LEN);
    pthread_mutex_unlock(&due_lock);
}

/* The variant a store of m uses on this host, as sbx__jit_cache_fill chooses it. */
static bool host_guards(const struct wasm_module *m)
{
    return m->mem_count == 0 || sbx__wasm_memory_can_guard();
}

bool sbx__jit_hot_due(const uint8_t *bytes, size_t len)
{
    pthread_mutex_lock(&due_lock);
    bool is_due = false;
    for (int guarded = 0; guarded < 2 && due_count && !is_due; guarded++) {
        uint8_t key[SBX__SHA256_LEN];
        sbx__jit_cache_key(bytes, len, hot_opts(guarded), key);
        for (uint32_t i = 0; i < due_count && !is_due; i++)
            is_due = memcmp(due_keys[i], key, SBX__SHA256_LEN) == 0;
    }
    pthread_mutex_unlock(&due_lock);
    return is_due;
}

/* Says why in err (one line); returns SBX_OK. */
static sbx_err not_done(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static sbx_err not_done(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return SBX_OK;
}

/* Compiles the set only names at the hot-set level and stores it as the upgraded image of key. */
static sbx_err upgrade_entry(struct sbx__jit_cache *c, const uint8_t *key,
                             const struct wasm_module *m, bool is_guarded, const uint8_t *only,
                             char *path, size_t pathlen, char *err, size_t errlen)
{
    struct sbx__jit_image *im = NULL;
    sbx_err rc = compile_upgraded(m, is_guarded, only, NULL, NULL, &im, err, errlen);
    if (rc == SBX_OK && (rc = sbx__jit_cache_put(c, key, im, path, pathlen)) != SBX_OK &&
        rc != SBX_E_NOMEM) {
        snprintf(err, errlen, "cannot write the cache entry %s", path);
        rc = SBX_E_IO;
    }
    if (rc == SBX_OK)
        sbx__jit_mem_put(key, im);
    sbx__jit_image_free(im);
    return rc;
}

sbx_err sbx__jit_hot_upgrade_module(const struct wasm_module *m, bool *did, char *path,
                                    size_t pathlen, char *err, size_t errlen)
{
    bool is_guarded = host_guards(m);
    uint8_t key[SBX__SHA256_LEN];
    struct sbx__jit_cache c;
    *did = false;
    sbx__jit_cache_key(m->bytes, m->len, hot_opts(is_guarded), key);
    sbx_err rc = sbx__jit_cache_open(&c, NULL, 0, err, errlen);
    if (rc != SBX_OK)
        return rc;
    sbx__jit_cache_entry_path(&c, key, path, pathlen);
    int lock = sbx__jit_cache_lock(&c);
    struct sbx__jit_image *im = lock >= 0 ? sbx__jit_cache_find(&c, key) : NULL;
    uint8_t *only = im ? sbx__calloc(m->func_def_count ? m->func_def_count : 1, 1) : NULL;
    if (lock == -2) {
        snprintf(err, errlen, "cannot open %s/upgrade.lock: %s", c.path, strerror(errno));
        rc = SBX_E_IO;
    } else if (lock < 0) {
        rc = not_done(err, errlen, "another upgrade is running in this cache directory");
    } else if (!im || !sbx__jit_image_is_partial(im)) {
        rc = not_done(err, errlen, "no hot code kept for this module");
    } else if (sbx__jit_image_is_upgraded(im)) {
        rc = not_done(err, errlen, "its kept hot code is upgraded already");
    } else if (!only) {
        rc = SBX_E_NOMEM;
    } else if ((rc = sbx__jit_image_defs(im, m, only, err, errlen)) == SBX_OK) {
        uint64_t code_bytes = 0, set_bytes = 0, credit = sbx__jit_image_credit(im);
        uint32_t nfuncs = 0;
        for (uint32_t i = 0; i < m->func_def_count; i++) {
            if (only[i]) {
                code_bytes += m->funcs[i].code_len;
                set_bytes += set_weight(m, i, only[i] == SBX__JIT_ONLY_OSR);
                nfuncs++;
            }
        }
        char set[192];
        snprintf(set, sizeof(set),
                 "%u functions, %llu bytes of code, %llu translated with their OSR entries "
                 "(estimate %.2f s of CPU); earlier runs spent %.2f s",
                 nfuncs, (unsigned long long)code_bytes, (unsigned long long)set_bytes,
                 (double)(SET_NS_PER_BYTE * set_bytes) / 1e9, (double)credit / 1e9);
        if (!bg_due(set_bytes, credit)) {
            rc = not_done(err, errlen, "not due: %s", set);
        } else if ((rc = upgrade_entry(&c, key, m, is_guarded, only, path, pathlen, err, errlen)) ==
                   SBX_OK) {
            *did = true;
            not_done(err, errlen, "%s", set);
        }
    } else {
        sbx__jit_cache_forget(&c, key); /* malformed: the next run compiles afresh */
    }
    sbx__free(only);
    sbx__jit_image_free(im);
    if (lock >= 0)
        close(lock);
    sbx__jit_cache_close(&c);
    return rc;
}

void sbx__jit_hot_free(struct wasm_jit_store *js)
{
    for (struct sbx__jit_hot *h = js->hot, *next; h; h = next) {
        next = h->next;
        /* The store's end: what the last batches added, and the CPU spent since (credit). */
        if (h->im && (h->is_dirty || spent_ns(h) - h->written_cpu_ns >= CREDIT_WRITE_NS))
            write_hot(h);
        if (h->im && h->needs_upgrade && bg_due(h->set_bytes, h->credit_ns + spent_ns(h)))
            note_due(h->key);
        sbx__jit_image_free(h->im);
        sbx__free(h->has);
        sbx__free(h->osr);
        sbx__free(h);
    }
}

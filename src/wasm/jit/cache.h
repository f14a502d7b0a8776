/* wasm/jit/cache.h: the compiled tier's on-disk cache of encoded images (docs/wasm.md,
 * "Cache"). An entry is only ever a file the effective user alone can write, in a directory
 * only they can write, whose header names its key and the SHA-256 of its payload; anything
 * else is removed and recompiled, never loaded. Computing a key never loads libLLVM. */
#ifndef SBX_WASM_JIT_CACHE_H
#define SBX_WASM_JIT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sbx/error.h>

#include "util/sha256.h"
#include "wasm/jit/level.h" /* SBX__JIT_CACHE_OPTS: the tier options in every key */

#define SBX__JIT_CACHE_MAX_BYTES (512ull << 20) /* default size bound of the directory */
#define SBX__JIT_CACHE_ENTRY_MAX (256ull << 20) /* an entry larger than this is refused */

struct sbx__jit_cache {
    int dirfd; /* the checked directory, O_PATH-free: openat() and renameat() go through it */
    uint64_t max_bytes;
    char path[4096];
};

/* Opens (creating it 0700, and a missing parent ~/.cache too) the cache directory: dir, else
 * $SBX_CACHE_DIR, else $XDG_CACHE_HOME/sbx (when absolute), else $HOME/.cache/sbx; max_bytes
 * 0 means $SBX_CACHE_MAX_BYTES, else SBX__JIT_CACHE_MAX_BYTES. Refuses a symlink, a directory
 * not owned by the effective uid, or one writable by group or others: SBX_E_UNAVAILABLE with
 * one line in err saying why (the caller then compiles uncached). */
sbx_err sbx__jit_cache_open(struct sbx__jit_cache *c, const char *dir, uint64_t max_bytes,
                            char *err, size_t errlen);
void sbx__jit_cache_close(struct sbx__jit_cache *c);

/* The key of module bytes for this build of sbx on this CPU under the tier options opts
 * (cache_key.c): SHA-256 over all of them, plus the image format version. Never loads LLVM. */
void sbx__jit_cache_key(const uint8_t *bytes, size_t len, const char *opts,
                        uint8_t key[SBX__SHA256_LEN]);

/* Reads the entry of key into *payload (sbx__free() it), verified: a regular file owned by
 * the effective uid without group/other write, at most SBX__JIT_CACHE_ENTRY_MAX bytes, opened
 * without following a symlink, with the right magic, format version, key, length and payload
 * SHA-256. On a hit touches its mtime (the LRU order). Returns SBX_OK; SBX_E_UNAVAILABLE on a
 * miss (err empty) or a refused entry (removed; err says why); SBX_E_NOMEM. */
sbx_err sbx__jit_cache_load(struct sbx__jit_cache *c, const uint8_t key[SBX__SHA256_LEN],
                            uint8_t **payload, size_t *len, char *err, size_t errlen);

/* Writes the entry of key through a temporary file (O_EXCL, 0600) renamed into place, so a
 * reader never sees half of one; then evicts least-recently-used entries until the directory
 * is under max_bytes. The entry's path goes to path (may be NULL). SBX_E_IO on failure. */
sbx_err sbx__jit_cache_store(struct sbx__jit_cache *c, const uint8_t key[SBX__SHA256_LEN],
                             const uint8_t *payload, size_t len, char *path, size_t pathlen);

/* Removes the entry of key (one that failed to decode or link). */
void sbx__jit_cache_remove(struct sbx__jit_cache *c, const uint8_t key[SBX__SHA256_LEN]);

/* Writes the path the entry of key has (or would have) to path. */
void sbx__jit_cache_entry_path(const struct sbx__jit_cache *c, const uint8_t key[SBX__SHA256_LEN],
                               char *path, size_t pathlen);

/* Evicts least-recently-used entries (and temporary files left by a crashed writer) until the
 * entries total at most max_bytes; keep (may be NULL) is never evicted. */
void sbx__jit_cache_evict(struct sbx__jit_cache *c, const uint8_t *keep);

/* Takes the directory's upgrade lock ("upgrade.lock", flock: released when the process ends,
 * however it ends) without waiting: its fd (close it to release), -1 when another process
 * holds it, -2 (errno set) when it cannot be opened. One background upgrade at a time per
 * directory (cache_hot.c). */
int sbx__jit_cache_lock(struct sbx__jit_cache *c);

/* The tier options an image depends on, part of every key: the levels (level.h) and the
 * variant of memory accesses (image.h: guarded, or checked for a memory whose guard region
 * could not be reserved). */
#define SBX__JIT_CACHE_OPTS_GUARDED SBX__JIT_CACHE_OPTS " guarded"
#define SBX__JIT_CACHE_OPTS_CHECKED SBX__JIT_CACHE_OPTS " checked"
/* The partial images of hot-only batches (cache_hot.c): the batch and hot-set levels and the
 * bounds. */
#define SBX__JIT_HOT_LEVELS                                                                        \
    "hot batches " SBX__JIT_LARGE_PIPELINE " codegen " SBX__JIT_STR(SBX__JIT_LARGE_CODEGEN)
#define SBX__JIT_HOT_SETS                                                                          \
    ", sets codegen " SBX__JIT_STR(SBX__JIT_HOT_CODEGEN) ", loops " SBX__JIT_STR(                  \
        SBX__JIT_LOOP_BYTES) " callees " SBX__JIT_STR(SBX__JIT_LOOP_CALLEE_BYTES)
#define SBX__JIT_HOT_BOUNDS                                                                        \
    "; bounds " SBX__JIT_STR(SBX__JIT_MAX_BODY_BYTES) " bytes, " SBX__JIT_STR(                     \
        SBX__JIT_MAX_FRAME_SLOTS) " slots"
#define SBX__JIT_CACHE_OPTS_HOT SBX__JIT_HOT_LEVELS SBX__JIT_HOT_SETS SBX__JIT_HOT_BOUNDS

struct wasm_instance;
struct wasm_load_guard;
struct wasm_module;
struct sbx__jit_image;

/* cache_mem.c: the process's images in memory under the same keys, at most
 * $SBX_CACHE_MEM_BYTES (default SBX__JIT_CACHE_MEM_BYTES) of them, least recently used out
 * first. get returns the image of key with a reference of the caller's (sbx__jit_image_free
 * it), or NULL; put keeps a reference of im under key (replacing any; NULL: drops key's).
 * Thread-safe. */
#define SBX__JIT_CACHE_MEM_BYTES (256u << 20)
struct sbx__jit_image *sbx__jit_mem_get(const uint8_t key[SBX__SHA256_LEN]);
void sbx__jit_mem_put(const uint8_t key[SBX__SHA256_LEN], struct sbx__jit_image *im);
/* Forgets every image (tests). */
void sbx__jit_mem_clear(void);

/* cache_tier.c: the image of key from memory, else from c's directory (verified, decoded, then
 * kept in memory), with a reference of the caller's; NULL on a miss. forget drops key from
 * both (an image that did not link). */
struct sbx__jit_image *sbx__jit_cache_find(struct sbx__jit_cache *c, const uint8_t *key);
/* Encodes im and writes it as key's entry (path as sbx__jit_cache_store); SBX_E_UNAVAILABLE
 * when c's directory was refused, SBX_E_IO, SBX_E_NOMEM. */
sbx_err sbx__jit_cache_put(struct sbx__jit_cache *c, const uint8_t *key,
                           const struct sbx__jit_image *im, char *path, size_t pathlen);
void sbx__jit_cache_forget(struct sbx__jit_cache *c, const uint8_t *key);

/* cache_tier.c: gives inst native code. With the store's use_cache, an entry that verifies,
 * decodes and links is used without loading LLVM; otherwise the module is compiled, its image
 * stored (a bad entry replaced) and linked. Without use_cache, sbx__wasm_jit_instance(). A
 * cache that cannot be used only costs the compile. Returns as sbx__wasm_jit_instance(). */
sbx_err sbx__wasm_jit_instance_cached(struct wasm_instance *inst,
                                      const struct wasm_load_guard *guard, char *err,
                                      size_t errlen);
/* The hit half alone: true when the store's use_cache and inst's module has an entry that
 * verifies, decodes and links (inst then has native code). Never loads LLVM. */
bool sbx__wasm_jit_cache_link(struct wasm_instance *inst);

/* cache_hot.c: hot-only batches kept between stores and runs (use_cache). hot_link, at a store's
 * first look, links the partial image of inst's module (memory, else the directory): true when
 * some functions got native code. hot_add, after a batch (items, n) of inst was linked from
 * objs, adds the batch to that image (never a function twice) and writes it (at most once a
 * second: the rest at the store's end, sbx__jit_hot_free). upgrade_in is the CPU the process
 * must still spend before recompiling a module's hot set of s fits its budget (0: now;
 * UINT64_MAX: none to come); upgrade, when due, recompiles it as one unit and makes that the
 * module's image. The worker's only. */
struct sbx__jit_obj;
struct wasm_lazy_item;
struct wasm_store;
struct wasm_jit_store;
bool sbx__wasm_jit_hot_link(struct wasm_instance *inst);
void sbx__wasm_jit_hot_add(struct wasm_instance *inst, const struct wasm_lazy_item *items,
                           uint32_t n, const struct sbx__jit_obj *objs, uint32_t nobjs);
uint64_t sbx__wasm_jit_hot_upgrade_in(struct wasm_store *s);
bool sbx__wasm_jit_hot_upgrade(struct wasm_store *s);
/* The background upgrade (sbx_wasm_compile_hot): recompiles m's kept hot set (this host's
 * variant) as one unit at the hot-set level and stores it as the module's image, when the runs
 * that kept it have paid for it; *did says whether it did, and err then (or why not) gets one
 * line. Holds the directory's upgrade lock meanwhile (another holder: nothing done). The entry's
 * path goes to path. SBX_E_UNAVAILABLE (no cache directory, no LLVM), SBX_E_IO, SBX_E_NOMEM.
 * hot_due: whether a store of this process left the module (its bytes) due for one. */
sbx_err sbx__jit_hot_upgrade_module(const struct wasm_module *m, bool *did, char *path,
                                    size_t pathlen, char *err, size_t errlen);
bool sbx__jit_hot_due(const uint8_t *bytes, size_t len);
/* Writes what is not written yet and frees js's records (sbx__wasm_jit_store_free). */
void sbx__jit_hot_free(struct wasm_jit_store *js);

/* Fills the cache with m's image (for `sbx compile`): *was_cached when a valid entry was
 * already there. The entry's path goes to path. SBX_E_UNAVAILABLE with err when the cache
 * directory is refused or the module cannot be compiled; SBX_E_IO; SBX_E_NOMEM. */
sbx_err sbx__jit_cache_fill(const struct wasm_module *m, char *path, size_t pathlen,
                            bool *was_cached, char *err, size_t errlen);

#endif

/* wasm/jit/cache_mem.c: the process's images in memory, keyed as the disk cache is (cache_key.c:
 * the module's bytes, the build, the CPU, the tier options), so that sandboxes made from the
 * same module bytes in one process (the bindings, sbx serve's runners) link native code with no
 * LLVM and no file. Bounded by the images' bytes, least recently used out first; an image a store
 * still holds lives on by its reference. Thread-safe; a forked child starts with the parent's. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/jit/cache.h"
#include "wasm/jit/image.h"

struct mem_entry {
    uint8_t key[SBX__SHA256_LEN];
    struct sbx__jit_image *im; /* one reference */
    size_t bytes;
    uint64_t used; /* the tick of its last get or put */
    struct mem_entry *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct mem_entry *entries;
static size_t total, max_bytes;
static uint64_t tick;

static void lock_for_fork(void)
{
    pthread_mutex_lock(&mu);
}

static void unlock_after_fork(void)
{
    pthread_mutex_unlock(&mu);
}

/* The bound: $SBX_CACHE_MEM_BYTES (0: nothing kept), else SBX__JIT_CACHE_MEM_BYTES. */
static void init(void)
{
    const char *e = getenv("SBX_CACHE_MEM_BYTES");
    char *end = NULL;
    unsigned long long v = e && *e ? strtoull(e, &end, 10) : 0;
    max_bytes = e && *e && end && !*end ? (size_t)v : SBX__JIT_CACHE_MEM_BYTES;
    pthread_atfork(lock_for_fork, unlock_after_fork, unlock_after_fork);
}

static struct mem_entry **find(const uint8_t *key)
{
    struct mem_entry **p = &entries;
    while (*p && memcmp((*p)->key, key, SBX__SHA256_LEN) != 0)
        p = &(*p)->next;
    return p;
}

static void drop(struct mem_entry **p)
{
    struct mem_entry *e = *p;
    *p = e->next;
    total -= e->bytes;
    sbx__jit_image_free(e->im);
    sbx__free(e);
}

/* Drops least recently used entries until the rest fit in max_bytes. */
static void evict(void)
{
    while (total > max_bytes && entries) {
        struct mem_entry **oldest = &entries;
        for (struct mem_entry **p = &entries; *p; p = &(*p)->next) {
            if ((*p)->used < (*oldest)->used)
                oldest = p;
        }
        drop(oldest);
    }
}

struct sbx__jit_image *sbx__jit_mem_get(const uint8_t key[SBX__SHA256_LEN])
{
    pthread_once(&once, init);
    pthread_mutex_lock(&mu);
    struct mem_entry *e = *find(key);
    struct sbx__jit_image *im = e ? sbx__jit_image_ref(e->im) : NULL;
    if (e)
        e->used = ++tick;
    pthread_mutex_unlock(&mu);
    return im;
}

void sbx__jit_mem_put(const uint8_t key[SBX__SHA256_LEN], struct sbx__jit_image *im)
{
    pthread_once(&once, init);
    struct mem_entry *e = im ? sbx__calloc(1, sizeof(*e)) : NULL;
    if (!e) { /* none (or no memory: the cache is an optimisation): key's entry goes */
        pthread_mutex_lock(&mu);
        struct mem_entry **old = find(key);
        if (*old)
            drop(old);
        pthread_mutex_unlock(&mu);
        return;
    }
    memcpy(e->key, key, SBX__SHA256_LEN);
    e->im = sbx__jit_image_ref(im);
    e->bytes = sbx__jit_image_bytes(im);
    pthread_mutex_lock(&mu);
    struct mem_entry **old = find(key);
    if (*old)
        drop(old);
    e->used = ++tick;
    e->next = entries;
    entries = e;
    total += e->bytes;
    evict();
    pthread_mutex_unlock(&mu);
}

void sbx__jit_mem_clear(void)
{
    pthread_once(&once, init);
    pthread_mutex_lock(&mu);
    while (entries)
        drop(&entries);
    pthread_mutex_unlock(&mu);
}

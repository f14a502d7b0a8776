/* wasm/jit/cache_evict.c: the cache's size bound. Entries are ranked by mtime (a hit touches
 * it), the oldest removed until the rest fit; a temporary file older than an hour is a
 * crashed writer's and goes too. Only regular files of our own naming are ever removed. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "wasm/jit/cache.h"

#define MAX_SCANNED  100000 /* entries ranked per eviction; more are left for the next one */
#define TEMP_STALE_S 3600

struct ranked {
    struct timespec mtime;
    uint64_t bytes;
    char name[80];
};

static int by_age(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

static bool is_entry_name(const char *name)
{
    size_t n = strlen(name);
    return n == 2 * SBX__SHA256_LEN + 5 && strcmp(name + 2 * SBX__SHA256_LEN, ".sbxc") == 0;
}

/* Collects the entries into *out (count in *n), removing stale temporary files. */
static uint64_t scan(int dirfd, struct ranked **out, size_t *n)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    size_t cap = 0;
    uint64_t total = 0;
    *out = NULL;
    *n = 0;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    struct dirent *de;
    time_t now = time(NULL);
    while ((de = readdir(d)) != NULL && *n < MAX_SCANNED) {
        struct stat st;
        if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (strncmp(de->d_name, "tmp.", 4) == 0 && now - st.st_mtime > TEMP_STALE_S)
            unlinkat(dirfd, de->d_name, 0);
        if (!is_entry_name(de->d_name))
            continue;
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            struct ranked *grown = sbx__reallocn(*out, ncap, sizeof(**out));
            if (!grown)
                break;
            *out = grown;
            cap = ncap;
        }
        struct ranked *r = &(*out)[(*n)++];
        r->mtime = st.st_mtim;
        r->bytes = (uint64_t)st.st_size;
        memcpy(r->name, de->d_name, strlen(de->d_name) + 1);
        total += r->bytes;
    }
    closedir(d);
    return total;
}

void sbx__jit_cache_evict(struct sbx__jit_cache *c, const uint8_t *keep)
{
    struct ranked *all;
    size_t n;
    uint64_t total = scan(c->dirfd, &all, &n);
    char kept[2 * SBX__SHA256_LEN + 1] = "";
    if (keep)
        sbx__sha256_hex(keep, kept);
    if (n)
        qsort(all, n, sizeof(*all), by_age);
    for (size_t i = 0; i < n && total > c->max_bytes; i++) {
        if (keep && strncmp(all[i].name, kept, 2 * SBX__SHA256_LEN) == 0)
            continue;
        if (unlinkat(c->dirfd, all[i].name, 0) == 0)
            total -= all[i].bytes;
    }
    sbx__free(all);
}

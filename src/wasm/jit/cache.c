/* wasm/jit/cache.c: the cache directory and its entries: opening and checking the directory,
 * verified reads, atomic writes (temporary file + rename) and LRU eviction by mtime. Every
 * file is reached through the checked directory's fd, never by a path a symlink could bend. */
#include "wasm/jit/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"

#define ENTRY_MAGIC   "SBXJITC1"
#define ENTRY_VERSION 1u
#define ENTRY_SUFFIX  ".sbxc"
#define HEADER_LEN    (8 + 4 + 4 + SBX__SHA256_LEN + 8 + SBX__SHA256_LEN)

/* The header, little-endian on disk: magic, version, reserved 0, key, payload length, payload
 * SHA-256. */
struct header {
    char magic[8];
    uint32_t version;
    uint8_t key[SBX__SHA256_LEN];
    uint64_t payload_len;
    uint8_t payload_sha[SBX__SHA256_LEN];
};

/* One line: "cache <what> <name>: <why>". */
static void set_err(char *err, size_t errlen, const char *what, const char *name, const char *why)
{
    if (err && errlen)
        snprintf(err, errlen, "cache %s %s: %s", what, name, why);
}

/* The directory path: dir, $SBX_CACHE_DIR, $XDG_CACHE_HOME/sbx or $HOME/.cache/sbx; parent
 * gets the XDG base directory to create first (empty when there is none to create). */
static bool resolve_dir(const char *dir, char *path, size_t len, char *parent, size_t plen)
{
    const char *env = getenv("SBX_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    parent[0] = '\0';
    if (dir && *dir)
        n = snprintf(path, len, "%s", dir);
    else if (env && *env)
        n = snprintf(path, len, "%s", env);
    else if (xdg && xdg[0] == '/') /* XDG: a relative value is invalid and ignored */
        n = snprintf(path, len, "%s/sbx", xdg), snprintf(parent, plen, "%s", xdg);
    else if (home && home[0] == '/')
        n = snprintf(path, len, "%s/.cache/sbx", home), snprintf(parent, plen, "%s/.cache", home);
    else
        return false;
    return n > 0 && (size_t)n < len;
}

/* Refuses a directory another user could write: their files in it would be loaded as our
 * native code. */
static bool dir_is_private(int fd, const char *path, char *err, size_t errlen)
{
    struct stat st;
    char why[96];
    if (fstat(fd, &st) != 0)
        snprintf(why, sizeof(why), "%s", strerror(errno));
    else if (st.st_uid != geteuid())
        snprintf(why, sizeof(why), "owned by uid %u, not by this user (uid %u)",
                 (unsigned)st.st_uid, (unsigned)geteuid());
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        snprintf(why, sizeof(why), "writable by group or others (mode %04o)",
                 (unsigned)(st.st_mode & 07777));
    else
        return true;
    set_err(err, errlen, "directory", path, why);
    return false;
}

sbx_err sbx__jit_cache_open(struct sbx__jit_cache *c, const char *dir, uint64_t max_bytes,
                            char *err, size_t errlen)
{
    char parent[4096];
    c->dirfd = -1;
    if (err && errlen)
        err[0] = '\0';
    if (!resolve_dir(dir, c->path, sizeof(c->path), parent, sizeof(parent))) {
        set_err(err, errlen, "directory", "unknown", "set SBX_CACHE_DIR, XDG_CACHE_HOME or HOME");
        return SBX_E_UNAVAILABLE;
    }
    const char *env_max = getenv("SBX_CACHE_MAX_BYTES");
    c->max_bytes = max_bytes ? max_bytes : env_max ? strtoull(env_max, NULL, 10) : 0;
    if (!c->max_bytes) /* unset, 0 or not a number */
        c->max_bytes = SBX__JIT_CACHE_MAX_BYTES;
    if (parent[0] && mkdir(parent, 0700) != 0 && errno != EEXIST) {
        set_err(err, errlen, "directory", parent, strerror(errno));
        return SBX_E_UNAVAILABLE;
    }
    if (mkdir(c->path, 0700) != 0 && errno != EEXIST) {
        set_err(err, errlen, "directory", c->path, strerror(errno));
        return SBX_E_UNAVAILABLE;
    }
    int fd = open(c->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        set_err(err, errlen, "directory", c->path,
                errno == ELOOP || errno == ENOTDIR ? "is a symlink or not a directory"
                                                   : strerror(errno));
        return SBX_E_UNAVAILABLE;
    }
    if (!dir_is_private(fd, c->path, err, errlen)) {
        close(fd);
        return SBX_E_UNAVAILABLE;
    }
    c->dirfd = fd;
    return SBX_OK;
}

void sbx__jit_cache_close(struct sbx__jit_cache *c)
{
    if (c->dirfd >= 0)
        close(c->dirfd);
    c->dirfd = -1;
}

static void entry_name(const uint8_t key[SBX__SHA256_LEN], char name[80])
{
    char hex[2 * SBX__SHA256_LEN + 1];
    sbx__sha256_hex(key, hex);
    snprintf(name, 80, "%s" ENTRY_SUFFIX, hex);
}

void sbx__jit_cache_entry_path(const struct sbx__jit_cache *c, const uint8_t key[SBX__SHA256_LEN],
                               char *path, size_t pathlen)
{
    char name[80];
    entry_name(key, name);
    snprintf(path, pathlen, "%s/%s", c->path, name);
}

void sbx__jit_cache_remove(struct sbx__jit_cache *c, const uint8_t key[SBX__SHA256_LEN])
{
    char name[80];
    entry_name(key, name);
    unlinkat(c->dirfd, name, 0);
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void encode_header(const struct header *h, uint8_t out[HEADER_LEN])
{
    memcpy(out, h->magic, 8);
    put_le(out + 8, h->version, 4);
    put_le(out + 12, 0, 4);
    memcpy(out + 16, h->key, SBX__SHA256_LEN);
    put_le(out + 48, h->payload_len, 8);
    memcpy(out + 56, h->payload_sha, SBX__SHA256_LEN);
}

/* Why the entry buf (len bytes) is not the entry of key, or NULL when it is. */
static const char *verify(const uint8_t *buf, size_t len, const uint8_t key[SBX__SHA256_LEN])
{
    if (len < HEADER_LEN)
        return "truncated header";
    if (memcmp(buf, ENTRY_MAGIC, 8) != 0)
        return "bad magic";
    if (get_le(buf + 8, 4) != ENTRY_VERSION || get_le(buf + 12, 4) != 0)
        return "other format version";
    if (memcmp(buf + 16, key, SBX__SHA256_LEN) != 0)
        return "the header names another key";
    if (get_le(buf + 48, 8) != len - HEADER_LEN)
        return "payload length differs from the header's (truncated?)";
    uint8_t sha[SBX__SHA256_LEN];
    sbx__sha256(buf + HEADER_LEN, len - HEADER_LEN, sha);
    if (memcmp(buf + 56, sha, SBX__SHA256_LEN) != 0)
        return "payload SHA-256 mismatch";
    return NULL;
}

/* Why the open entry fd may not be trusted, or NULL: only a regular file this user alone can
 * write, of a bounded size, is read at all. */
static const char *check_file(int fd, const struct sbx__jit_cache *c, size_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return "cannot stat";
    if (!S_ISREG(st.st_mode))
        return "not a regular file";
    if (st.st_uid != geteuid())
        return "not owned by this user";
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return "writable by group or others";
    uint64_t max =
        c->max_bytes < SBX__JIT_CACHE_ENTRY_MAX ? c->max_bytes : SBX__JIT_CACHE_ENTRY_MAX;
    if ((uint64_t)st.st_size > max)
        return "larger than the cache allows";
    *size = (size_t)st.st_size;
    return NULL;
}

static bool read_all(int fd, uint8_t *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    return true;
}

/* A refused entry: removed (a symlink itself, never its target), so the next run rebuilds. */
static sbx_err refuse(struct sbx__jit_cache *c, const char *name, const char *why, char *err,
                      size_t errlen)
{
    unlinkat(c->dirfd, name, 0);
    set_err(err, errlen, "entry", name, why);
    return SBX_E_UNAVAILABLE;
}

sbx_err sbx__jit_cache_load(struct sbx__jit_cache *c, const uint8_t key[SBX__SHA256_LEN],
                            uint8_t **payload, size_t *len, char *err, size_t errlen)
{
    char name[80];
    entry_name(key, name);
    *payload = NULL;
    if (err && errlen)
        err[0] = '\0';
    /* O_NONBLOCK: a FIFO planted here must not hang the open. */
    int fd = openat(c->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return errno == ELOOP ? refuse(c, name, "a symlink", err, errlen) : SBX_E_UNAVAILABLE;
    size_t size = 0;
    const char *why = check_file(fd, c, &size);
    uint8_t *buf = why ? NULL : sbx__mallocn(size ? size : 1, 1);
    if (!why && !buf) {
        close(fd);
        return SBX_E_NOMEM;
    }
    if (!why && !read_all(fd, buf, size))
        why = "short read";
    why = why ? why : verify(buf, size, key);
    if (!why)
        futimens(fd, NULL); /* a hit is the most recently used entry */
    close(fd);
    if (why) {
        sbx__free(buf);
        return refuse(c, name, why, err, errlen);
    }
    memmove(buf, buf + HEADER_LEN, size - HEADER_LEN);
    *payload = buf;
    *len = size - HEADER_LEN;
    return SBX_OK;
}

static bool write_all(int fd, const uint8_t *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        buf += n;
        len -= (size_t)n;
    }
    return true;
}

/* A temporary file only this process names: pid, a counter, and the clock. */
static int open_temp(int dirfd, char name[96])
{
    static _Atomic unsigned counter;
    for (int tries = 0; tries < 16; tries++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(name, 96, "tmp.%d.%u.%ld", (int)getpid(), atomic_fetch_add(&counter, 1),
                 (long)ts.tv_nsec);
        int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

sbx_err sbx__jit_cache_store(struct sbx__jit_cache *c, const uint8_t key[SBX__SHA256_LEN],
                             const uint8_t *payload, size_t len, char *path, size_t pathlen)
{
    struct header h = {.magic = ENTRY_MAGIC, .version = ENTRY_VERSION, .payload_len = len};
    memcpy(h.key, key, SBX__SHA256_LEN);
    sbx__sha256(payload, len, h.payload_sha);
    uint8_t head[HEADER_LEN];
    encode_header(&h, head);
    if (len > SBX__JIT_CACHE_ENTRY_MAX - HEADER_LEN || len + HEADER_LEN > c->max_bytes)
        return SBX_E_IO; /* would be refused on load */
    char tmp[96], name[80];
    entry_name(key, name);
    int fd = open_temp(c->dirfd, tmp);
    if (fd < 0)
        return SBX_E_IO;
    bool is_ok = write_all(fd, head, sizeof(head)) && write_all(fd, payload, len);
    is_ok = close(fd) == 0 && is_ok;
    /* rename(2) replaces atomically: readers see the old entry or the new one, never a mix. */
    if (!is_ok || renameat(c->dirfd, tmp, c->dirfd, name) != 0) {
        unlinkat(c->dirfd, tmp, 0);
        return SBX_E_IO;
    }
    if (path)
        sbx__jit_cache_entry_path(c, key, path, pathlen);
    sbx__jit_cache_evict(c, key);
    return SBX_OK;
}

int sbx__jit_cache_lock(struct sbx__jit_cache *c)
{
    int fd = openat(c->dirfd, "upgrade.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -2;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

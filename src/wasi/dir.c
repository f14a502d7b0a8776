/* wasi/dir.c: fd_readdir. A listing is taken when the guest starts over (cookie 0) and served
 * from that snapshot by cookie = index + 1, so cookies stay stable while the guest changes
 * the directory. "." and ".." come first, as wasmtime lists them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "wasi/internal.h"

#define MAX_ENTRIES (1u << 20)

struct dirent_rec {
    uint64_t ino;
    uint8_t type;
    char *name;
};

struct wasi_dirent_cache {
    struct dirent_rec *recs;
    uint32_t count, cap;
};

void sbx__wasi_dircache_free(struct wasi_dirent_cache *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->count; i++)
        sbx__free(c->recs[i].name);
    sbx__free(c->recs);
    sbx__free(c);
}

static uint8_t type_of(DIR *d, const struct dirent *de)
{
    static const uint8_t map[] = {
        [DT_REG] = FT_REG,  [DT_DIR] = FT_DIR,   [DT_LNK] = FT_SYMLINK,
        [DT_CHR] = FT_CHAR, [DT_BLK] = FT_BLOCK, [DT_SOCK] = FT_SOCK_STREAM};
    if (de->d_type != DT_UNKNOWN && de->d_type < sizeof(map))
        return map[de->d_type];
    struct stat st;
    if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return FT_UNKNOWN;
    return sbx__wasi_filetype_of_mode(st.st_mode);
}

static bool add(struct wasi_dirent_cache *c, uint64_t ino, uint8_t type, const char *name)
{
    if (c->count == c->cap) {
        if (c->cap >= MAX_ENTRIES)
            return false;
        uint32_t cap = c->cap ? c->cap * 2 : 32;
        struct dirent_rec *r = sbx__reallocn(c->recs, cap, sizeof(*r));
        if (!r)
            return false;
        c->recs = r;
        c->cap = cap;
    }
    char *n = sbx__strdup(name);
    if (!n)
        return false;
    c->recs[c->count++] = (struct dirent_rec){ino, type, n};
    return true;
}

/* Lists the directory fd refers to ("." and ".." first). */
static uint32_t list_dir(int fd, struct wasi_dirent_cache **out)
{
    int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return sbx__wasi_errno(errno);
    DIR *d = fdopendir(dfd);
    struct wasi_dirent_cache *c = sbx__calloc(1, sizeof(*c));
    struct stat st;
    if (!d || !c) {
        if (d)
            closedir(d);
        else
            close(dfd);
        sbx__free(c);
        return WASI_ENOMEM;
    }
    bool is_ok = fstat(dfd, &st) == 0 && add(c, st.st_ino, FT_DIR, ".") &&
                 add(c, 0, FT_DIR, ".."); /* wasmtime reports 0 for "..": it may be outside */
    struct dirent *de;
    errno = 0;
    while (is_ok && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        is_ok = add(c, de->d_ino, type_of(d, de), de->d_name);
    }
    int e = errno;
    closedir(d);
    if (!is_ok || e) {
        sbx__wasi_dircache_free(c);
        return e ? sbx__wasi_errno(e) : WASI_ENOMEM;
    }
    *out = c;
    return WASI_ESUCCESS;
}

/* Serialises entries from index `from` into buf (24-byte dirent + name each); the last one
 * may be cut short, which tells the guest to come back with a bigger buffer. */
static uint32_t serialise(const struct wasi_dirent_cache *c, uint64_t from, uint8_t *buf,
                          uint32_t len)
{
    uint32_t used = 0;
    for (uint64_t i = from; i < c->count && used < len; i++) {
        const struct dirent_rec *r = &c->recs[i];
        uint8_t hdr[24] = {0};
        uint32_t nlen = (uint32_t)strlen(r->name);
        put_u64(hdr, i + 1);
        put_u64(hdr + 8, r->ino);
        put_u32(hdr + 16, nlen);
        hdr[20] = r->type;
        uint32_t k = len - used < 24 ? len - used : 24;
        memcpy(buf + used, hdr, k);
        used += k;
        k = len - used < nlen ? len - used : nlen;
        memcpy(buf + used, r->name, k);
        used += k;
    }
    return used;
}

WASI_FN(fd_readdir)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_fd_get(e->w, a[0].i32, &err);
    if (!f)
        return err;
    err = sbx__wasi_rights_check(e->w, f, R_FD_READDIR);
    if (err)
        return err;
    if (f->kind != FDK_HOST || f->filetype != FT_DIR)
        return WASI_ENOTDIR;
    uint8_t *buf = g_span(e, a[1].i32, a[2].i32);
    if (!buf || !g_span(e, a[4].i32, 4))
        return WASI_EFAULT;
    if (a[3].i64 == 0 || !f->dir) {
        struct wasi_dirent_cache *c;
        err = list_dir(f->host_fd, &c);
        if (err)
            return err;
        sbx__wasi_dircache_free(f->dir);
        f->dir = c;
    }
    return g_put_u32(e, a[4].i32, serialise(f->dir, a[3].i64, buf, a[2].i32));
}

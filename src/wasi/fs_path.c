/* wasi/fs_path.c: the path_* calls. Each resolves beneath its directory fd with path.c (the
 * whole path, or the parent plus one final name for calls that act on a directory entry)
 * and only then touches the host, with *at syscalls on that single name. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "wasi/internal.h"

/* A directory fd with the given rights, plus the guest path copied out of memory. */
static uint32_t dir_and_path(struct wasi_env *e, uint32_t num, uint64_t need, uint32_t gaddr,
                             uint32_t glen, struct wasi_fd **dir, char **path)
{
    uint32_t err = WASI_EBADF;
    *path = NULL;
    *dir = sbx__wasi_fd_get(e->w, num, &err);
    if (!*dir)
        return err;
    if ((*dir)->kind != FDK_HOST || (*dir)->filetype != FT_DIR)
        return WASI_ENOTDIR;
    err = sbx__wasi_rights_check(e->w, *dir, need);
    if (err)
        return err;
    return sbx__wasi_path_copy(e, gaddr, glen, path);
}

/* The parent of a path and its last name; on success *parent must be closed. */
struct entry {
    int parent;
    const char *name;
    bool has_slash;
    char *path;
};

static uint32_t entry_get(struct wasi_env *e, uint32_t num, uint64_t need, uint32_t gaddr,
                          uint32_t glen, struct entry *en)
{
    struct wasi_fd *dir;
    en->parent = -1;
    uint32_t err = dir_and_path(e, num, need, gaddr, glen, &dir, &en->path);
    if (err)
        return err;
    return sbx__wasi_path_parent(e->w, dir->host_fd, en->path, &en->parent, &en->name,
                                 &en->has_slash);
}

static void entry_free(struct entry *en)
{
    if (en->parent >= 0)
        close(en->parent);
    sbx__free(en->path);
}

static uint32_t host_rc(int rc)
{
    return rc == 0 ? WASI_ESUCCESS : sbx__wasi_errno(errno);
}

/* A name given with a trailing slash must be a directory (if it exists). */
static uint32_t check_slash(const struct entry *en)
{
    struct stat st;
    if (!en->has_slash || fstatat(en->parent, en->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return WASI_ESUCCESS;
    return S_ISDIR(st.st_mode) ? WASI_ESUCCESS : WASI_ENOTDIR;
}

WASI_FN(path_create_directory)
{
    struct entry en;
    uint32_t err = entry_get(e, a[0].i32, R_PATH_CREATE_DIRECTORY, a[1].i32, a[2].i32, &en);
    if (!err)
        err = host_rc(mkdirat(en.parent, en.name, 0777));
    entry_free(&en);
    return err;
}

WASI_FN(path_remove_directory)
{
    struct entry en;
    uint32_t err = entry_get(e, a[0].i32, R_PATH_REMOVE_DIRECTORY, a[1].i32, a[2].i32, &en);
    if (!err)
        err = host_rc(unlinkat(en.parent, en.name, AT_REMOVEDIR));
    entry_free(&en);
    return err;
}

WASI_FN(path_unlink_file)
{
    struct entry en;
    uint32_t err = entry_get(e, a[0].i32, R_PATH_UNLINK_FILE, a[1].i32, a[2].i32, &en);
    struct stat st;
    if (!err && en.has_slash && fstatat(en.parent, en.name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        err = S_ISDIR(st.st_mode) ? WASI_EISDIR : WASI_ENOTDIR;
    if (!err)
        err = host_rc(unlinkat(en.parent, en.name, 0));
    entry_free(&en);
    return err;
}

WASI_FN(path_readlink)
{
    struct entry en;
    uint32_t err = entry_get(e, a[0].i32, R_PATH_READLINK, a[1].i32, a[2].i32, &en);
    uint8_t *buf = err ? NULL : g_span(e, a[3].i32, a[4].i32);
    if (!err && (!buf || !g_span(e, a[5].i32, 4)))
        err = WASI_EFAULT;
    if (!err) {
        char tmp[4096];
        ssize_t n = readlinkat(en.parent, en.name, tmp, sizeof(tmp));
        if (n < 0) {
            err = sbx__wasi_errno(errno);
        } else {
            uint32_t k = (uint32_t)n < a[4].i32 ? (uint32_t)n : a[4].i32; /* truncated */
            memcpy(buf, tmp, k);
            err = g_put_u32(e, a[5].i32, k);
        }
    }
    entry_free(&en);
    return err;
}

WASI_FN(path_filestat_get)
{
    struct wasi_fd *dir;
    char *path;
    uint32_t err = dir_and_path(e, a[0].i32, R_PATH_FILESTAT_GET, a[2].i32, a[3].i32, &dir, &path);
    uint8_t *p = err ? NULL : g_span(e, a[4].i32, 64);
    if (!err && !p)
        err = WASI_EFAULT;
    int fd = -1;
    if (!err)
        err = sbx__wasi_path_resolve(e->w, dir->host_fd, path, a[1].i32 & LOOKUP_SYMLINK_FOLLOW,
                                     O_PATH, 0, &fd);
    struct stat st;
    if (!err)
        err = host_rc(fstat(fd, &st));
    if (!err)
        sbx__wasi_put_filestat(p, &st);
    if (fd >= 0)
        close(fd);
    sbx__free(path);
    return err;
}

WASI_FN(path_filestat_set_times)
{
    struct wasi_fd *dir;
    char *path;
    struct timespec ts[2];
    uint32_t err = sbx__wasi_times(a[4].i64, a[5].i64, a[6].i32, ts);
    if (err)
        return err;
    err = dir_and_path(e, a[0].i32, R_PATH_FILESTAT_SET_TIMES, a[2].i32, a[3].i32, &dir, &path);
    int fd = -1;
    if (!err)
        err = sbx__wasi_path_resolve(e->w, dir->host_fd, path, a[1].i32 & LOOKUP_SYMLINK_FOLLOW,
                                     O_PATH, 0, &fd);
    if (!err)
        err = sbx__wasi_fd_set_times(fd, ts);
    if (fd >= 0)
        close(fd);
    sbx__free(path);
    return err;
}

WASI_FN(path_link)
{
    if (a[1].i32 & LOOKUP_SYMLINK_FOLLOW) /* wasmtime does not follow here either */
        return WASI_EINVAL;
    struct entry from, to = {.parent = -1};
    uint32_t err = entry_get(e, a[0].i32, R_PATH_LINK_SOURCE, a[2].i32, a[3].i32, &from);
    if (!err)
        err = entry_get(e, a[4].i32, R_PATH_LINK_TARGET, a[5].i32, a[6].i32, &to);
    if (!err && (from.has_slash || to.has_slash))
        err = check_slash(&from) ? WASI_ENOTDIR : WASI_ENOENT;
    if (!err)
        err = host_rc(linkat(from.parent, from.name, to.parent, to.name, 0));
    entry_free(&from);
    entry_free(&to);
    return err;
}

WASI_FN(path_rename)
{
    struct entry from, to = {.parent = -1};
    uint32_t err = entry_get(e, a[0].i32, R_PATH_RENAME_SOURCE, a[1].i32, a[2].i32, &from);
    if (!err)
        err = entry_get(e, a[3].i32, R_PATH_RENAME_TARGET, a[4].i32, a[5].i32, &to);
    if (!err && to.has_slash)
        from.has_slash = true;
    if (!err)
        err = check_slash(&from);
    if (!err)
        err = host_rc(renameat(from.parent, from.name, to.parent, to.name));
    entry_free(&from);
    entry_free(&to);
    return err;
}

/* How many levels above the link's own directory a relative target climbs, counted
 * lexically ("a/../.." climbs 1). */
static size_t target_climb(const char *target)
{
    long depth = 0, lowest = 0;
    for (const char *p = target; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            lowest = --depth < lowest ? depth : lowest;
        else if (n > 0 && !(n == 1 && p[0] == '.'))
            depth++;
        p += n + (p[n] == '/');
    }
    return (size_t)-lowest;
}

static bool same_dir(int a, int b)
{
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Returns how far dir lies below root, walking up with "..", which is never a symlink; -1 when
 * it is not below root at all (moved away meanwhile) or deeper than any path can name. */
static long depth_below(int root, int dir)
{
    enum { MAX_DEPTH = 4096 }; /* PATH_MAX / 2 components at most */
    int cur = fcntl(dir, F_DUPFD_CLOEXEC, 0);
    long depth = 0;
    while (cur >= 0 && !same_dir(cur, root)) {
        int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
        bool is_top = up < 0 || same_dir(up, cur); /* "/" is its own parent */
        close(cur);
        cur = up;
        if (is_top || ++depth > MAX_DEPTH) {
            if (up >= 0)
                close(up);
            return -1;
        }
    }
    if (cur < 0)
        return -1;
    close(cur);
    return depth;
}

/* As wasmtime (cap-std) does, an absolute target is refused (path_symlink does that first); so
 * is a relative one that climbs above the directory fd the call names, counted from the link's
 * real directory. Such a link can only point outside, and a later grant through it (this tier's
 * preopen, the process tier's bind) would reach the host there; grants refuse symlinks too. */
static uint32_t check_symlink_target(struct wasi_env *e, uint32_t dirnum, const char *target,
                                     int parent)
{
    size_t climb = target_climb(target);
    if (climb == 0)
        return WASI_ESUCCESS;
    uint32_t err = WASI_EBADF;
    struct wasi_fd *dir = sbx__wasi_fd_get(e->w, dirnum, &err);
    long depth = dir ? depth_below(dir->host_fd, parent) : -1;
    if (depth >= 0 && (size_t)depth >= climb)
        return WASI_ESUCCESS;
    sbx__wasi_deny(e->w, "fs.escape");
    return WASI_ENOTCAPABLE;
}

WASI_FN(path_symlink)
{
    char *target = NULL;
    struct entry en = {.parent = -1};
    uint32_t err = sbx__wasi_path_copy(e, a[0].i32, a[1].i32, &target);
    if (!err && target[0] == '/') { /* before resolving the link: as wasmtime orders it */
        sbx__wasi_deny(e->w, "fs.escape");
        err = WASI_ENOTCAPABLE;
    }
    if (!err)
        err = entry_get(e, a[2].i32, R_PATH_SYMLINK, a[3].i32, a[4].i32, &en);
    if (!err)
        err = check_symlink_target(e, a[2].i32, target, en.parent);
    struct stat st;
    if (!err && en.has_slash)
        err =
            fstatat(en.parent, en.name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? WASI_EEXIST : WASI_ENOENT;
    if (!err)
        err = host_rc(symlinkat(target, en.parent, en.name));
    entry_free(&en);
    sbx__free(target);
    return err;
}

/* Host open(2) flags for a path_open: the access mode follows the rights asked for, as
 * wasi-libc derives those from O_RDONLY / O_WRONLY / O_RDWR. */
static int open_flags(uint32_t oflags, uint64_t base, uint32_t fdflags)
{
    bool is_read = base & (R_FD_READ | R_FD_READDIR);
    bool is_write = base & (R_FD_WRITE | R_FD_ALLOCATE | R_FD_FILESTAT_SET_SIZE);
    int fl = is_write ? (is_read ? O_RDWR : O_WRONLY) : O_RDONLY;
    if (oflags & OF_DIRECTORY)
        fl = O_RDONLY | O_DIRECTORY;
    fl |= (oflags & OF_CREAT) ? O_CREAT : 0;
    fl |= (oflags & OF_EXCL) ? O_EXCL : 0;
    fl |= (oflags & OF_TRUNC) ? O_TRUNC : 0;
    fl |= (fdflags & FDF_APPEND) ? O_APPEND : 0;
    fl |= (fdflags & FDF_NONBLOCK) ? O_NONBLOCK : 0;
    fl |= (fdflags & FDF_DSYNC) ? O_DSYNC : 0;
    fl |= (fdflags & FDF_SYNC) ? O_SYNC : 0;
    fl |= (fdflags & FDF_RSYNC) ? O_RSYNC : 0;
    return fl;
}

static uint32_t path_open_rights(struct sbx__wasi *w, struct wasi_fd *dir, uint32_t oflags)
{
    uint64_t need = R_PATH_OPEN | ((oflags & OF_CREAT) ? R_PATH_CREATE_FILE : 0) |
                    ((oflags & OF_TRUNC) ? R_PATH_FILESTAT_SET_SIZE : 0);
    return sbx__wasi_rights_check(w, dir, need);
}

/* a: dirfd, dirflags, path, path_len, oflags, base, inheriting, fdflags, result fd */
WASI_FN(path_open)
{
    struct wasi_fd *dir;
    char *path;
    uint32_t oflags = a[4].i32, fdflags = a[7].i32;
    uint32_t err = dir_and_path(e, a[0].i32, 0, a[2].i32, a[3].i32, &dir, &path);
    if (!err)
        err = path_open_rights(e->w, dir, oflags);
    /* A new fd gets at most what the directory passes down. Asking for more is not an error
     * (Go and others ask for every right): the rest is masked off, and the host open mode
     * follows what remains, so a write on it later is ENOTCAPABLE (and, read-only by policy,
     * a denial). */
    uint64_t base = err ? 0 : a[5].i64 & dir->inheriting;
    uint64_t inh = err ? 0 : a[6].i64 & dir->inheriting;
    if (!err && !g_span(e, a[8].i32, 4))
        err = WASI_EFAULT;
    int fd = -1;
    if (!err)
        err = sbx__wasi_path_resolve(e->w, dir->host_fd, path, a[1].i32 & LOOKUP_SYMLINK_FOLLOW,
                                     open_flags(oflags, base, fdflags), 0666, &fd);
    sbx__free(path);
    struct stat st;
    if (!err)
        err = host_rc(fstat(fd, &st));
    /* A directory is never open for writing: asking for fd_write with O_DIRECTORY is EISDIR
     * (wasi-testsuite, and open(2) with O_WRONLY), not a read-only fd with the right dropped. */
    if (!err && (oflags & OF_DIRECTORY) && (a[5].i64 & R_FD_WRITE) && S_ISDIR(st.st_mode))
        err = WASI_EISDIR;
    uint32_t num;
    struct wasi_fd *f = err ? NULL : sbx__wasi_fd_alloc(e->w, &num, &err);
    if (!f) {
        if (fd >= 0)
            close(fd);
        return err;
    }
    dir = &e->w->fds[a[0].i32]; /* the table may have moved */
    f->kind = FDK_HOST;
    f->host_fd = fd;
    f->filetype = sbx__wasi_filetype_of_mode(st.st_mode);
    f->is_read_only = dir->is_read_only;
    f->fdflags = (uint16_t)fdflags;
    uint64_t tb, ti;
    sbx__wasi_rights_for(f->filetype, f->is_read_only, &tb, &ti);
    f->base = base & tb;
    f->inheriting = inh & ti;
    return g_put_u32(e, a[8].i32, num);
}

/* wasi/fs.c: the fd_* calls on files, pipes and captured stdio. Every call checks the fd's
 * rights first, then every guest range it will touch, and only then acts on the host. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/alloc.h"
#include "wasi/internal.h"

#define MAX_IOVS 1024 /* IOV_MAX */

uint32_t sbx__wasi_iovecs(const struct wasi_env *e, uint32_t gaddr, uint32_t count,
                          struct iovec **out)
{
    *out = NULL;
    if (count > MAX_IOVS)
        return WASI_EINVAL;
    const uint8_t *raw = g_span(e, gaddr, count * 8);
    if (!raw)
        return WASI_EFAULT;
    struct iovec *iov = sbx__mallocn(count ? count : 1, sizeof(*iov));
    if (!iov)
        return WASI_ENOMEM;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t len = get_u32(raw + 8 * i + 4);
        uint8_t *p = g_span(e, get_u32(raw + 8 * i), len);
        if (!p) {
            sbx__free(iov);
            return WASI_EFAULT;
        }
        iov[i].iov_base = p;
        iov[i].iov_len = len;
    }
    *out = iov;
    return WASI_ESUCCESS;
}

void sbx__wasi_put_filestat(uint8_t *p, const struct stat *st)
{
    memset(p, 0, 64);
    put_u64(p, (uint64_t)st->st_dev);
    put_u64(p + 8, (uint64_t)st->st_ino);
    p[16] = sbx__wasi_filetype_of_mode(st->st_mode);
    put_u64(p + 24, (uint64_t)st->st_nlink);
    put_u64(p + 32, (uint64_t)st->st_size);
    put_u64(p + 40, (uint64_t)st->st_atim.tv_sec * 1000000000u + (uint64_t)st->st_atim.tv_nsec);
    put_u64(p + 48, (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec);
    put_u64(p + 56, (uint64_t)st->st_ctim.tv_sec * 1000000000u + (uint64_t)st->st_ctim.tv_nsec);
}

/* Looks fd up and checks its rights: the common first step. */
static struct wasi_fd *fd_with(const struct wasi_env *e, uint32_t num, uint64_t need, uint32_t *err)
{
    struct wasi_fd *f = sbx__wasi_fd_get(e->w, num, err);
    if (!f)
        return NULL;
    *err = sbx__wasi_rights_check(e->w, f, need);
    return *err ? NULL : f;
}

static size_t read_stdin_buf(struct sbx__wasi *w, const struct iovec *iov, uint32_t n)
{
    size_t total = 0;
    for (uint32_t i = 0; i < n && w->stdin_pos < w->stdin_len; i++) {
        size_t k = w->stdin_len - w->stdin_pos;
        if (k > iov[i].iov_len)
            k = iov[i].iov_len;
        memcpy(iov[i].iov_base, w->stdin_data + w->stdin_pos, k);
        w->stdin_pos += k;
        total += k;
    }
    return total;
}

/* Reads or writes through the fd; offset < 0 = at the file position. */
static uint32_t do_io(struct wasi_env *e, struct wasi_fd *f, const struct iovec *iov, uint32_t n,
                      bool is_write, int64_t offset, size_t *done)
{
    *done = 0;
    if (f->kind == FDK_STDIN_BUF || f->kind == FDK_OUT_BUF) {
        if (offset >= 0)
            return WASI_ESPIPE;
        if (!is_write) {
            *done = read_stdin_buf(e->w, iov, n);
            return WASI_ESUCCESS;
        }
        for (uint32_t i = 0; i < n; i++) {
            /* a full buffer drops the bytes but the guest sees them written: it must not spin */
            if (f->out)
                sbx__buf_append(f->out, iov[i].iov_base, iov[i].iov_len);
            *done += iov[i].iov_len;
        }
        if (f->out)
            sbx__buf_flush_tap(f->out); /* streaming: one chunk per fd_write */
        return WASI_ESUCCESS;
    }
    if (f->filetype != FT_REG && f->filetype != FT_DIR && !(f->fdflags & FDF_NONBLOCK)) {
        uint32_t r = sbx__wasi_wait(e->w, f->host_fd, is_write);
        if (r)
            return r;
    }
    ssize_t k;
    if (offset >= 0)
        k = is_write ? pwritev(f->host_fd, iov, (int)n, offset)
                     : preadv(f->host_fd, iov, (int)n, offset);
    else
        k = is_write ? writev(f->host_fd, iov, (int)n) : readv(f->host_fd, iov, (int)n);
    if (k < 0)
        return sbx__wasi_errno(errno);
    *done = (size_t)k;
    return WASI_ESUCCESS;
}

/* fd_read / fd_write / fd_pread / fd_pwrite: a[0] fd, a[1] iovs, a[2] count, then either
 * a[3] = result pointer, or a[3] = offset and a[4] = result pointer. */
static uint32_t rw(struct wasi_env *e, const wasm_value *a, bool is_write, bool has_offset)
{
    uint64_t need = (is_write ? R_FD_WRITE : R_FD_READ) | (has_offset ? R_FD_SEEK : 0);
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = fd_with(e, a[0].i32, need, &err);
    if (!f)
        return err;
    if (has_offset && a[3].i64 > INT64_MAX)
        return WASI_EINVAL;
    uint32_t res_gaddr = has_offset ? a[4].i32 : a[3].i32;
    if (!g_span(e, res_gaddr, 4))
        return WASI_EFAULT;
    struct iovec *iov;
    err = sbx__wasi_iovecs(e, a[1].i32, a[2].i32, &iov);
    if (err)
        return err;
    size_t done;
    err = do_io(e, f, iov, a[2].i32, is_write, has_offset ? (int64_t)a[3].i64 : -1, &done);
    sbx__free(iov);
    if (err)
        return err;
    return g_put_u32(e, res_gaddr, (uint32_t)done);
}

WASI_FN(fd_read)
{
    return rw(e, a, false, false);
}
WASI_FN(fd_write)
{
    return rw(e, a, true, false);
}
WASI_FN(fd_pread)
{
    return rw(e, a, false, true);
}
WASI_FN(fd_pwrite)
{
    return rw(e, a, true, true);
}

WASI_FN(fd_seek)
{
    static const int whences[] = {SEEK_SET, SEEK_CUR, SEEK_END};
    /* a pure "where am I" needs only FD_TELL, as wasmtime allows */
    bool is_tell = a[1].i64 == 0 && a[2].i32 == 1;
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = fd_with(e, a[0].i32, is_tell ? R_FD_TELL : R_FD_SEEK, &err);
    if (!f)
        return err;
    if (a[2].i32 > 2)
        return WASI_EINVAL;
    if (!g_span(e, a[3].i32, 8))
        return WASI_EFAULT;
    if (f->kind != FDK_HOST || f->filetype == FT_DIR)
        return f->kind != FDK_HOST ? WASI_ESPIPE : WASI_EBADF;
    off_t pos = lseek(f->host_fd, (off_t)a[1].i64, whences[a[2].i32]);
    if (pos < 0)
        return sbx__wasi_errno(errno);
    return g_put_u64(e, a[3].i32, (uint64_t)pos);
}

WASI_FN(fd_tell)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = fd_with(e, a[0].i32, R_FD_TELL, &err);
    if (!f)
        return err;
    if (!g_span(e, a[1].i32, 8))
        return WASI_EFAULT;
    if (f->kind != FDK_HOST)
        return WASI_ESPIPE;
    off_t pos = lseek(f->host_fd, 0, SEEK_CUR);
    if (pos < 0)
        return sbx__wasi_errno(errno);
    return g_put_u64(e, a[1].i32, (uint64_t)pos);
}

static uint16_t host_fdflags(const struct wasi_fd *f)
{
    if (f->kind != FDK_HOST)
        return f->fdflags;
    int fl = fcntl(f->host_fd, F_GETFL);
    if (fl < 0 || (fl & O_PATH))
        return f->fdflags;
    uint16_t r = 0;
    r |= (fl & O_APPEND) ? FDF_APPEND : 0;
    r |= (fl & O_NONBLOCK) ? FDF_NONBLOCK : 0;
    r |= (fl & O_DSYNC) ? FDF_DSYNC : 0;
    r |= ((fl & O_SYNC) == O_SYNC) ? (FDF_SYNC | FDF_RSYNC) : 0;
    return f->is_borrowed ? (uint16_t)(r | (f->fdflags & FDF_APPEND)) : r;
}

WASI_FN(fd_fdstat_get)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_fd_get(e->w, a[0].i32, &err);
    if (!f)
        return err;
    uint8_t *p = g_span(e, a[1].i32, 24);
    if (!p)
        return WASI_EFAULT;
    memset(p, 0, 24);
    p[0] = f->filetype;
    put_u16(p + 2, host_fdflags(f));
    put_u64(p + 8, f->base);
    put_u64(p + 16, f->inheriting);
    return WASI_ESUCCESS;
}

WASI_FN(fd_fdstat_set_flags)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = fd_with(e, a[0].i32, R_FD_FDSTAT_SET_FLAGS, &err);
    if (!f)
        return err;
    uint32_t fl = a[1].i32;
    if (fl & ~(uint32_t)(FDF_APPEND | FDF_NONBLOCK | FDF_DSYNC | FDF_SYNC | FDF_RSYNC))
        return WASI_EINVAL;
    if (fl & (FDF_DSYNC | FDF_SYNC | FDF_RSYNC)) /* Linux cannot change these after open */
        return WASI_ENOTSUP;
    if (f->kind != FDK_HOST) {
        f->fdflags = (uint16_t)fl;
        return WASI_ESUCCESS;
    }
    int cur = fcntl(f->host_fd, F_GETFL);
    if (cur < 0)
        return sbx__wasi_errno(errno);
    cur &= ~(O_APPEND | O_NONBLOCK);
    cur |= ((fl & FDF_APPEND) ? O_APPEND : 0) | ((fl & FDF_NONBLOCK) ? O_NONBLOCK : 0);
    if (!f->is_borrowed && fcntl(f->host_fd, F_SETFL, cur) != 0)
        return sbx__wasi_errno(errno);
    f->fdflags = (uint16_t)fl;
    return WASI_ESUCCESS;
}

WASI_FN(fd_fdstat_set_rights)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_fd_get(e->w, a[0].i32, &err);
    if (!f)
        return err;
    /* rights only narrow */
    if ((a[1].i64 & ~f->base) || (a[2].i64 & ~f->inheriting))
        return WASI_ENOTCAPABLE;
    f->base = a[1].i64;
    f->inheriting = a[2].i64;
    return WASI_ESUCCESS;
}

WASI_FN(fd_filestat_get)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = fd_with(e, a[0].i32, R_FD_FILESTAT_GET, &err);
    if (!f)
        return err;
    uint8_t *p = g_span(e, a[1].i32, 64);
    if (!p)
        return WASI_EFAULT;
    struct stat st;
    memset(&st, 0, sizeof(st));
    if (f->kind == FDK_HOST && fstat(f->host_fd, &st) != 0)
        return sbx__wasi_errno(errno);
    sbx__wasi_put_filestat(p, &st);
    if (f->kind != FDK_HOST)
        p[16] = f->filetype;
    return WASI_ESUCCESS;
}

WASI_FN(fd_filestat_set_size)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = fd_with(e, a[0].i32, R_FD_FILESTAT_SET_SIZE, &err);
    if (!f)
        return err;
    if (a[1].i64 > INT64_MAX)
        return WASI_EINVAL;
    if (f->kind != FDK_HOST)
        return WASI_EINVAL;
    return ftruncate(f->host_fd, (off_t)a[1].i64) == 0 ? WASI_ESUCCESS : sbx__wasi_errno(errno);
}

uint32_t sbx__wasi_times(uint64_t atim, uint64_t mtim, uint32_t fst, struct timespec ts[2])
{
    if ((fst & ~(uint32_t)15) || ((fst & FST_ATIM) && (fst & FST_ATIM_NOW)) ||
        ((fst & FST_MTIM) && (fst & FST_MTIM_NOW)))
        return WASI_EINVAL;
    uint64_t v[2] = {atim, mtim};
    for (int i = 0; i < 2; i++) {
        uint32_t set = i ? FST_MTIM : FST_ATIM, now = i ? FST_MTIM_NOW : FST_ATIM_NOW;
        ts[i].tv_sec = (time_t)(v[i] / 1000000000u);
        ts[i].tv_nsec = (fst & now)   ? UTIME_NOW
                        : (fst & set) ? (long)(v[i] % 1000000000u)
                                      : UTIME_OMIT;
    }
    return WASI_ESUCCESS;
}

/* Sets times on what an fd (possibly O_PATH) refers to. */
uint32_t sbx__wasi_fd_set_times(int fd, const struct timespec ts[2])
{
    if (utimensat(fd, "", ts, AT_EMPTY_PATH) == 0)
        return WASI_ESUCCESS;
    return sbx__wasi_errno(errno);
}

WASI_FN(fd_filestat_set_times)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = fd_with(e, a[0].i32, R_FD_FILESTAT_SET_TIMES, &err);
    if (!f)
        return err;
    struct timespec ts[2];
    err = sbx__wasi_times(a[1].i64, a[2].i64, a[3].i32, ts);
    if (err)
        return err;
    if (f->kind != FDK_HOST)
        return WASI_EBADF;
    return sbx__wasi_fd_set_times(f->host_fd, ts);
}

WASI_FN(fd_advise)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = fd_with(e, a[0].i32, R_FD_ADVISE, &err);
    if (!f)
        return err;
    static const int advice[] = {POSIX_FADV_NORMAL,   POSIX_FADV_SEQUENTIAL, POSIX_FADV_RANDOM,
                                 POSIX_FADV_WILLNEED, POSIX_FADV_DONTNEED,   POSIX_FADV_NOREUSE};
    if (a[3].i32 > 5 || a[1].i64 > INT64_MAX || a[2].i64 > INT64_MAX)
        return WASI_EINVAL;
    if (f->kind != FDK_HOST || f->filetype != FT_REG)
        return f->filetype == FT_DIR ? WASI_EBADF : WASI_ESPIPE;
    int rc = posix_fadvise(f->host_fd, (off_t)a[1].i64, (off_t)a[2].i64, advice[a[3].i32]);
    return rc ? sbx__wasi_errno(rc) : WASI_ESUCCESS;
}

WASI_FN(fd_allocate)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = fd_with(e, a[0].i32, R_FD_ALLOCATE, &err);
    if (!f)
        return err;
    if (a[1].i64 > INT64_MAX || a[2].i64 > INT64_MAX || a[2].i64 == 0)
        return WASI_EINVAL;
    if (f->kind != FDK_HOST || f->filetype != FT_REG)
        return f->filetype == FT_DIR ? WASI_EBADF : WASI_ESPIPE;
    int rc = posix_fallocate(f->host_fd, (off_t)a[1].i64, (off_t)a[2].i64);
    return rc ? sbx__wasi_errno(rc) : WASI_ESUCCESS;
}

static uint32_t sync_fd(struct wasi_env *e, uint32_t num, uint64_t right, bool is_data)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = fd_with(e, num, right, &err);
    if (!f)
        return err;
    if (f->kind != FDK_HOST)
        return WASI_ESUCCESS;
    int rc = is_data ? fdatasync(f->host_fd) : fsync(f->host_fd);
    return rc == 0 ? WASI_ESUCCESS : sbx__wasi_errno(errno);
}

WASI_FN(fd_sync)
{
    return sync_fd(e, a[0].i32, R_FD_SYNC, false);
}
WASI_FN(fd_datasync)
{
    return sync_fd(e, a[0].i32, R_FD_DATASYNC, true);
}

WASI_FN(fd_prestat_get)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_fd_get(e->w, a[0].i32, &err);
    if (!f)
        return err;
    if (!f->preopen_name)
        return WASI_EBADF;
    uint8_t *p = g_span(e, a[1].i32, 8);
    if (!p)
        return WASI_EFAULT;
    memset(p, 0, 8); /* tag 0 = dir */
    put_u32(p + 4, (uint32_t)strlen(f->preopen_name));
    return WASI_ESUCCESS;
}

WASI_FN(fd_prestat_dir_name)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_fd_get(e->w, a[0].i32, &err);
    if (!f)
        return err;
    if (!f->preopen_name)
        return WASI_EBADF;
    uint32_t len = (uint32_t)strlen(f->preopen_name);
    if (a[2].i32 < len)
        return WASI_ENAMETOOLONG;
    uint8_t *p = g_span(e, a[1].i32, len);
    if (!p)
        return WASI_EFAULT;
    memcpy(p, f->preopen_name, len);
    return WASI_ESUCCESS;
}

/* wasi/fd_table.c: the guest's fd numbers. Slots 0-2 are stdio, preopens follow; a closed
 * slot is reused lowest-first, as POSIX and wasmtime do. The table is capped (EMFILE) so a
 * guest cannot grow the host without bound. */
#include <unistd.h>

#include "util/alloc.h"
#include "wasi/internal.h"

#define WASI_MAX_FDS 4096u

struct wasi_fd *sbx__wasi_fd_get(struct sbx__wasi *w, uint32_t fd, uint32_t *err)
{
    if (fd >= w->fd_cap || w->fds[fd].kind == FDK_FREE) {
        *err = WASI_EBADF;
        return NULL;
    }
    return &w->fds[fd];
}

struct wasi_fd *sbx__wasi_fd_alloc(struct sbx__wasi *w, uint32_t *num, uint32_t *err)
{
    uint32_t i = 3;
    while (i < w->fd_cap && w->fds[i].kind != FDK_FREE)
        i++;
    if (i == w->fd_cap) {
        if (w->fd_cap >= WASI_MAX_FDS) {
            *err = WASI_EMFILE;
            return NULL;
        }
        uint32_t cap = w->fd_cap ? w->fd_cap * 2 : 16;
        if (cap > WASI_MAX_FDS)
            cap = WASI_MAX_FDS;
        struct wasi_fd *fds = sbx__reallocn(w->fds, cap, sizeof(*fds));
        if (!fds) {
            *err = WASI_ENOMEM;
            return NULL;
        }
        memset(fds + w->fd_cap, 0, (cap - w->fd_cap) * sizeof(*fds));
        for (uint32_t k = w->fd_cap; k < cap; k++)
            fds[k].host_fd = -1;
        w->fds = fds;
        w->fd_cap = cap;
    }
    struct wasi_fd *f = &w->fds[i];
    memset(f, 0, sizeof(*f));
    f->host_fd = -1;
    *num = i;
    return f;
}

void sbx__wasi_fd_release(struct wasi_fd *fd)
{
    if (fd->kind == FDK_HOST && fd->host_fd >= 0 && !fd->is_borrowed)
        close(fd->host_fd);
    sbx__free(fd->preopen_name);
    sbx__wasi_dircache_free(fd->dir);
    memset(fd, 0, sizeof(*fd));
    fd->host_fd = -1;
}

uint32_t sbx__wasi_fd_move(struct sbx__wasi *w, uint32_t from, uint32_t to)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *src = sbx__wasi_fd_get(w, from, &err);
    struct wasi_fd *dst = src ? sbx__wasi_fd_get(w, to, &err) : NULL;
    if (!dst)
        return err;
    if (from == to)
        return WASI_ESUCCESS;
    sbx__wasi_fd_release(dst);
    *dst = *src;
    memset(src, 0, sizeof(*src));
    src->host_fd = -1;
    return WASI_ESUCCESS;
}

void sbx__wasi_fd_table_free(struct sbx__wasi *w)
{
    for (uint32_t i = 0; i < w->fd_cap; i++)
        if (w->fds[i].kind != FDK_FREE)
            sbx__wasi_fd_release(&w->fds[i]);
    sbx__free(w->fds);
    w->fds = NULL;
    w->fd_cap = 0;
}

WASI_FN(fd_close)
{
    uint32_t err = WASI_EBADF;
    struct wasi_fd *f = sbx__wasi_fd_get(e->w, a[0].i32, &err);
    if (!f)
        return err;
    sbx__wasi_fd_release(f);
    return WASI_ESUCCESS;
}

WASI_FN(fd_renumber)
{
    return sbx__wasi_fd_move(e->w, a[0].i32, a[1].i32);
}

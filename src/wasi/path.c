/* wasi/path.c: guest path -> host fd, never leaving the directory fd it starts from.
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) where the kernel has it; otherwise a walk
 * that opens one component at a time with O_NOFOLLOW, expands symlinks itself and answers
 * ".." from its own stack of fds, so a directory swapped for a symlink (or renamed away)
 * mid-walk cannot take it outside. Absolute paths and symlinks are escapes: ENOTCAPABLE. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/alloc.h"
#include "wasi/internal.h"

#define MAX_SYMLINKS 40 /* Linux's limit (path_resolution(7)) */
#define MAX_PATH     4096

bool sbx__wasi_have_openat2(void)
{
    static atomic_int probed; /* 0 unknown, 1 yes, 2 no */
    int v = atomic_load(&probed);
    if (v == 0) {
        struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_BENEATH};
        long fd = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof(how));
        v = fd >= 0 ? 1 : 2;
        if (fd >= 0)
            close((int)fd);
        atomic_store(&probed, v);
    }
    return v == 1;
}

static uint32_t escape(struct sbx__wasi *w)
{
    sbx__wasi_deny(w, "fs.escape");
    return WASI_ENOTCAPABLE;
}

static uint32_t open_beneath(struct sbx__wasi *w, int dirfd, const char *path, bool follow,
                             int flags, unsigned mode, int *out)
{
    struct open_how how = {
        .flags = (uint64_t)(unsigned)(flags | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)),
        .mode = (flags & O_CREAT) ? mode : 0,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    long fd;
    int tries = 0;
    do /* EAGAIN: a rename raced with the lookup; the kernel asks us to retry */
        fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
    while (fd < 0 && (errno == EAGAIN || errno == EINTR) && ++tries < 16);
    if (fd >= 0) {
        *out = (int)fd;
        return WASI_ESUCCESS;
    }
    if (errno == EXDEV) /* the path (or a symlink in it) pointed outside */
        return escape(w);
    return sbx__wasi_errno(errno);
}

/* The walk's state: a stack of directory fds (stack[0] is the borrowed start) and the path
 * still to resolve, rebuilt whenever a symlink is spliced in. */
struct walk {
    int stack[MAX_PATH / 2 + 2];
    int depth;
    char *rest; /* owned */
    size_t pos;
    int links;
};

static void walk_free(struct walk *wk)
{
    for (int i = 1; i <= wk->depth; i++)
        close(wk->stack[i]);
    sbx__free(wk->rest);
}

/* Replaces the unresolved path with target + "/" + what followed the link. */
static uint32_t splice_link(struct walk *wk, const char *target, size_t tlen)
{
    if (++wk->links > MAX_SYMLINKS)
        return WASI_ELOOP;
    const char *tail = wk->rest + wk->pos;
    size_t tail_len = strlen(tail);
    if (tlen + tail_len + 2 > MAX_PATH)
        return WASI_ENAMETOOLONG;
    char *next = sbx__mallocn(tlen + tail_len + 2, 1);
    if (!next)
        return WASI_ENOMEM;
    memcpy(next, target, tlen);
    next[tlen] = '/';
    memcpy(next + tlen + 1, tail, tail_len + 1);
    if (tail_len == 0) /* the link was last: keep its target's own trailing slash, if any */
        next[tlen] = '\0';
    sbx__free(wk->rest);
    wk->rest = next;
    wk->pos = 0;
    return WASI_ESUCCESS;
}

/* Reads the symlink fd (opened O_PATH | O_NOFOLLOW) and splices it in; absolute -> escape. */
static uint32_t follow_link(struct sbx__wasi *w, struct walk *wk, int linkfd)
{
    char target[MAX_PATH]; /* Linux keeps at most PATH_MAX - 1 bytes in a symlink */
    ssize_t n = readlinkat(linkfd, "", target, sizeof(target));
    close(linkfd);
    /* the fd pins the link itself, so it cannot vanish; an empty read is treated as ENOENT */
    if (n <= 0 || target[0] == '/')
        return n <= 0 ? WASI_ENOENT : escape(w);
    return splice_link(wk, target, (size_t)n);
}

/* Takes the next component into name (NUL-terminated); *is_last when nothing but slashes
 * follows it. There always is one: the path and every spliced target are non-empty and
 * relative, and a trailing slash ("dir/") is rewritten to a final "." component. */
static void next_component(struct walk *wk, char *name, bool *is_last)
{
    const char *p = wk->rest + wk->pos;
    size_t n = strcspn(p, "/");
    memcpy(name, p, n);
    name[n] = '\0';
    const char *q = p + n + strspn(p + n, "/");
    wk->pos = (size_t)(q - wk->rest);
    *is_last = !*q;
    if (*is_last && q > p + n && !(n == 1 && name[0] == '.')) {
        wk->rest[--wk->pos] = '.';
        *is_last = false;
    }
}

/* One intermediate component: push it if a directory, splice it if a symlink. */
static uint32_t walk_step(struct sbx__wasi *w, struct walk *wk, const char *name)
{
    if (strcmp(name, ".") == 0)
        return WASI_ESUCCESS;
    if (strcmp(name, "..") == 0) {
        if (wk->depth == 0)
            return escape(w);
        close(wk->stack[wk->depth--]);
        return WASI_ESUCCESS;
    }
    int fd = openat(wk->stack[wk->depth], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return sbx__wasi_errno(errno);
    struct stat st = {.st_mode = 0}; /* fstat of an fd we hold cannot fail; 0 = not a dir */
    fstat(fd, &st);
    if (S_ISLNK(st.st_mode))
        return follow_link(w, wk, fd);
    bool is_full = wk->depth + 1 >= (int)(sizeof(wk->stack) / sizeof(wk->stack[0]));
    if (!S_ISDIR(st.st_mode) || is_full) {
        close(fd);
        return is_full ? WASI_ENAMETOOLONG : WASI_ENOTDIR;
    }
    wk->stack[++wk->depth] = fd;
    return WASI_ESUCCESS;
}

/* The last component: open it with the caller's flags, expanding a symlink when following. */
static uint32_t walk_final(struct sbx__wasi *w, struct walk *wk, const char *name, bool follow,
                           int flags, unsigned mode, int *out, bool *again)
{
    *again = false;
    if (strcmp(name, "..") == 0) {
        uint32_t r = walk_step(w, wk, name);
        if (r)
            return r;
        name = ".";
    }
    int cur = wk->stack[wk->depth];
    if (follow && strcmp(name, ".") != 0) {
        int lfd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (lfd >= 0 && fstat(lfd, &st) == 0 && S_ISLNK(st.st_mode)) {
            *again = true;
            return follow_link(w, wk, lfd);
        }
        if (lfd >= 0)
            close(lfd);
    }
    int fd = openat(cur, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return sbx__wasi_errno(errno);
    *out = fd;
    return WASI_ESUCCESS;
}

static uint32_t walk_open(struct sbx__wasi *w, int dirfd, const char *path, bool follow, int flags,
                          unsigned mode, int *out)
{
    static _Thread_local char name[MAX_PATH];
    struct walk wk = {.depth = 0, .pos = 0, .links = 0};
    wk.stack[0] = dirfd;
    wk.rest = sbx__strdup(path);
    if (!wk.rest)
        return WASI_ENOMEM;
    uint32_t r;
    for (;;) {
        bool is_last, again = true;
        next_component(&wk, name, &is_last);
        if (is_last)
            r = walk_final(w, &wk, name, follow, flags, mode, out, &again);
        else
            r = walk_step(w, &wk, name);
        if (r || !again)
            break;
    }
    walk_free(&wk);
    return r;
}

uint32_t sbx__wasi_path_resolve(struct sbx__wasi *w, int dirfd, const char *path, bool follow,
                                int flags, unsigned mode, int *out)
{
    *out = -1;
    if (!path[0])
        return WASI_ENOENT;
    if (path[0] == '/')
        return escape(w);
    if (strlen(path) >= MAX_PATH)
        return WASI_ENAMETOOLONG;
    bool use_openat2 = w->resolver == SBX_WASI_RESOLVE_OPENAT2 ||
                       (w->resolver == SBX_WASI_RESOLVE_AUTO && sbx__wasi_have_openat2());
    if (use_openat2)
        return open_beneath(w, dirfd, path, follow, flags, mode, out);
    return walk_open(w, dirfd, path, follow, flags, mode, out);
}

uint32_t sbx__wasi_path_parent(struct sbx__wasi *w, int dirfd, char *path, int *parent,
                               const char **name, bool *has_trailing_slash)
{
    *parent = -1;
    size_t len = strlen(path);
    if (len == 0)
        return WASI_ENOENT;
    if (path[0] == '/')
        return escape(w);
    *has_trailing_slash = path[len - 1] == '/';
    while (len > 1 && path[len - 1] == '/')
        path[--len] = '\0';
    char *slash = strrchr(path, '/');
    const char *last = slash ? slash + 1 : path;
    if (strcmp(last, ".") == 0 || strcmp(last, "..") == 0) {
        /* the directory itself: resolve all of it, then act on "." of it */
        *name = ".";
        return sbx__wasi_path_resolve(w, dirfd, path, true, O_PATH | O_DIRECTORY, 0, parent);
    }
    *name = last;
    if (!slash)
        return sbx__wasi_path_resolve(w, dirfd, ".", true, O_PATH | O_DIRECTORY, 0, parent);
    *slash = '\0';
    uint32_t r = sbx__wasi_path_resolve(w, dirfd, path, true, O_PATH | O_DIRECTORY, 0, parent);
    *slash = '/';
    return r;
}

/* True when s[0..len) is valid UTF-8 without NUL (WASI strings are UTF-8; wasmtime rejects
 * the rest with EILSEQ). */
static bool is_utf8(const uint8_t *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        uint8_t c = s[i];
        size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (c == 0 || n == 0 || i + n > len)
            return false;
        uint32_t cp = n == 1 ? c : (uint32_t)(c & (0x7f >> n));
        for (size_t k = 1; k < n; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + k] & 0x3fu);
        }
        static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += n;
    }
    return true;
}

uint32_t sbx__wasi_path_copy(const struct wasi_env *e, uint32_t gaddr, uint32_t glen, char **out)
{
    *out = NULL;
    const uint8_t *p = g_span(e, gaddr, glen);
    if (!p)
        return WASI_EFAULT;
    if (glen >= MAX_PATH)
        return WASI_ENAMETOOLONG;
    if (!is_utf8(p, glen))
        return WASI_EILSEQ;
    *out = sbx__strndup((const char *)p, glen);
    return *out ? WASI_ESUCCESS : WASI_ENOMEM;
}

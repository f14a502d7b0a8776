/* wasi/internal.h: what the files of src/wasi/ share: preview1 constants and layouts, the
 * context and fd table, guest-memory helpers. Guest memory is reached only through
 * sbx__wasm_memory_span(); every multi-byte value is little-endian by the WASI ABI. */
#ifndef SBX_WASI_INTERNAL_H
#define SBX_WASI_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/denials.h"
#include "core/outbound.h"
#include "wasi/wasi.h"

/* Preview1 errno values (witx typenames "errno"). */
enum {
    WASI_ESUCCESS = 0,
    WASI_E2BIG = 1,
    WASI_EACCES = 2,
    WASI_EADDRINUSE = 3,
    WASI_EADDRNOTAVAIL = 4,
    WASI_EAFNOSUPPORT = 5,
    WASI_EAGAIN = 6,
    WASI_EALREADY = 7,
    WASI_EBADF = 8,
    WASI_EBADMSG = 9,
    WASI_EBUSY = 10,
    WASI_ECANCELED = 11,
    WASI_ECHILD = 12,
    WASI_ECONNABORTED = 13,
    WASI_ECONNREFUSED = 14,
    WASI_ECONNRESET = 15,
    WASI_EDEADLK = 16,
    WASI_EDESTADDRREQ = 17,
    WASI_EDOM = 18,
    WASI_EDQUOT = 19,
    WASI_EEXIST = 20,
    WASI_EFAULT = 21,
    WASI_EFBIG = 22,
    WASI_EHOSTUNREACH = 23,
    WASI_EIDRM = 24,
    WASI_EILSEQ = 25,
    WASI_EINPROGRESS = 26,
    WASI_EINTR = 27,
    WASI_EINVAL = 28,
    WASI_EIO = 29,
    WASI_EISCONN = 30,
    WASI_EISDIR = 31,
    WASI_ELOOP = 32,
    WASI_EMFILE = 33,
    WASI_EMLINK = 34,
    WASI_EMSGSIZE = 35,
    WASI_EMULTIHOP = 36,
    WASI_ENAMETOOLONG = 37,
    WASI_ENETDOWN = 38,
    WASI_ENETRESET = 39,
    WASI_ENETUNREACH = 40,
    WASI_ENFILE = 41,
    WASI_ENOBUFS = 42,
    WASI_ENODEV = 43,
    WASI_ENOENT = 44,
    WASI_ENOEXEC = 45,
    WASI_ENOLCK = 46,
    WASI_ENOLINK = 47,
    WASI_ENOMEM = 48,
    WASI_ENOMSG = 49,
    WASI_ENOPROTOOPT = 50,
    WASI_ENOSPC = 51,
    WASI_ENOSYS = 52,
    WASI_ENOTCONN = 53,
    WASI_ENOTDIR = 54,
    WASI_ENOTEMPTY = 55,
    WASI_ENOTRECOVERABLE = 56,
    WASI_ENOTSOCK = 57,
    WASI_ENOTSUP = 58,
    WASI_ENOTTY = 59,
    WASI_ENXIO = 60,
    WASI_EOVERFLOW = 61,
    WASI_EOWNERDEAD = 62,
    WASI_EPERM = 63,
    WASI_EPIPE = 64,
    WASI_EPROTO = 65,
    WASI_EPROTONOSUPPORT = 66,
    WASI_EPROTOTYPE = 67,
    WASI_ERANGE = 68,
    WASI_EROFS = 69,
    WASI_ESPIPE = 70,
    WASI_ESRCH = 71,
    WASI_ESTALE = 72,
    WASI_ETIMEDOUT = 73,
    WASI_ETXTBSY = 74,
    WASI_EXDEV = 75,
    WASI_ENOTCAPABLE = 76,
};

/* Rights (witx "rights"), one bit each. */
#define WASI_R(n)                 ((uint64_t)1 << (n))
#define R_FD_DATASYNC             WASI_R(0)
#define R_FD_READ                 WASI_R(1)
#define R_FD_SEEK                 WASI_R(2)
#define R_FD_FDSTAT_SET_FLAGS     WASI_R(3)
#define R_FD_SYNC                 WASI_R(4)
#define R_FD_TELL                 WASI_R(5)
#define R_FD_WRITE                WASI_R(6)
#define R_FD_ADVISE               WASI_R(7)
#define R_FD_ALLOCATE             WASI_R(8)
#define R_PATH_CREATE_DIRECTORY   WASI_R(9)
#define R_PATH_CREATE_FILE        WASI_R(10)
#define R_PATH_LINK_SOURCE        WASI_R(11)
#define R_PATH_LINK_TARGET        WASI_R(12)
#define R_PATH_OPEN               WASI_R(13)
#define R_FD_READDIR              WASI_R(14)
#define R_PATH_READLINK           WASI_R(15)
#define R_PATH_RENAME_SOURCE      WASI_R(16)
#define R_PATH_RENAME_TARGET      WASI_R(17)
#define R_PATH_FILESTAT_GET       WASI_R(18)
#define R_PATH_FILESTAT_SET_SIZE  WASI_R(19)
#define R_PATH_FILESTAT_SET_TIMES WASI_R(20)
#define R_FD_FILESTAT_GET         WASI_R(21)
#define R_FD_FILESTAT_SET_SIZE    WASI_R(22)
#define R_FD_FILESTAT_SET_TIMES   WASI_R(23)
#define R_PATH_SYMLINK            WASI_R(24)
#define R_PATH_REMOVE_DIRECTORY   WASI_R(25)
#define R_PATH_UNLINK_FILE        WASI_R(26)
#define R_POLL_FD_READWRITE       WASI_R(27)
#define R_SOCK_SHUTDOWN           WASI_R(28)
#define R_SOCK_ACCEPT             WASI_R(29)
#define R_ALL                     (WASI_R(30) - 1)

enum wasi_filetype {
    FT_UNKNOWN = 0,
    FT_BLOCK = 1,
    FT_CHAR = 2,
    FT_DIR = 3,
    FT_REG = 4,
    FT_SOCK_DGRAM = 5,
    FT_SOCK_STREAM = 6,
    FT_SYMLINK = 7,
};
enum { FDF_APPEND = 1, FDF_DSYNC = 2, FDF_NONBLOCK = 4, FDF_RSYNC = 8, FDF_SYNC = 16 };
enum { OF_CREAT = 1, OF_DIRECTORY = 2, OF_EXCL = 4, OF_TRUNC = 8 };
enum { LOOKUP_SYMLINK_FOLLOW = 1 };
enum { FST_ATIM = 1, FST_ATIM_NOW = 2, FST_MTIM = 4, FST_MTIM_NOW = 8 };

/* How an fd is backed. */
enum wasi_fd_kind {
    FDK_FREE = 0,
    FDK_HOST,      /* a host fd (file, directory, socket, inherited stdio) */
    FDK_STDIN_BUF, /* reads the configured stdin bytes */
    FDK_OUT_BUF,   /* appends to a capped sbx__buf */
};

struct wasi_dirent_cache; /* fs.c: the listing fd_readdir serves cookies from */

struct wasi_fd {
    uint8_t kind; /* enum wasi_fd_kind */
    uint8_t filetype;
    uint16_t fdflags;  /* the flags fd_fdstat_get reports */
    int host_fd;       /* FDK_HOST; -1 otherwise */
    bool is_borrowed;  /* host fd not ours to close (inherited stdio) */
    bool is_read_only; /* under a read-only preopen: a missing write right is a denial */
    uint64_t base;
    uint64_t inheriting;
    char *preopen_name; /* preopened directories only: what fd_prestat_dir_name returns */
    struct sbx__buf *out;
    struct wasi_dirent_cache *dir;
};

/* sock.c: what sock_addr_resolve answered: an address connects as the name it came from. */
struct wasi_resolved_name {
    uint8_t ip[16]; /* IPv4 as v4-mapped */
    char *host;
    struct wasi_resolved_name *next;
};

struct wasi_binding; /* ctx.c: one per host function, its user pointer */

struct sbx__wasi {
    struct wasi_fd *fds;
    uint32_t fd_cap;
    char **args;
    uint32_t argc;
    char **env;
    uint32_t envc;
    uint8_t *stdin_data;
    size_t stdin_len, stdin_pos;
    const sbx_outbound_rule *outbound; /* the policy's own net.outbound (it outlives w) */
    size_t outbound_count;
    bool net_loopback;
    struct wasi_resolved_name *names; /* what sock_addr_resolve answered, for the gate */
    void (*on_denied)(void *user, const char *capability);
    void *user;
    _Atomic uint64_t denied;
    struct sbx__denials net_denials; /* net.connect/net.resolve ones, for the call's result */
    enum sbx__wasi_resolver resolver;
    int wake_fd; /* eventfd readable once interrupted */
    atomic_bool is_interrupted;
    struct wasi_binding *bindings;
};

/* The context one host call runs in. */
struct wasi_env {
    struct sbx__wasi *w;
    struct wasm_call *call;
    struct wasm_memory *mem;
};

/* Returns the host bytes of guest [gaddr, gaddr + glen) or NULL when any byte is outside. */
static inline uint8_t *g_span(const struct wasi_env *e, uint32_t gaddr, uint32_t glen)
{
    return e->mem ? sbx__wasm_memory_span(e->mem, gaddr, glen) : NULL;
}
static inline void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}
/* Writes a u32 result to guest memory; EFAULT when out of bounds. */
static inline uint32_t g_put_u32(const struct wasi_env *e, uint32_t gaddr, uint32_t v)
{
    uint8_t *p = g_span(e, gaddr, 4);
    if (!p)
        return WASI_EFAULT;
    put_u32(p, v);
    return WASI_ESUCCESS;
}
static inline uint32_t g_put_u64(const struct wasi_env *e, uint32_t gaddr, uint64_t v)
{
    uint8_t *p = g_span(e, gaddr, 8);
    if (!p)
        return WASI_EFAULT;
    put_u64(p, v);
    return WASI_ESUCCESS;
}

/* errno.c */
uint16_t sbx__wasi_errno(int host_errno);

/* ctx.c: counts a denial and tells the embedder. */
void sbx__wasi_deny(struct sbx__wasi *w, const char *capability);

/* rights.c */
void sbx__wasi_rights_for(uint8_t filetype, bool is_read_only, uint64_t *base,
                          uint64_t *inheriting);
/* Returns 0 when fd holds every right in need, else ENOTCAPABLE (counting an fs.write denial
 * when fd is read-only by policy and a write right is missing). */
uint32_t sbx__wasi_rights_check(struct sbx__wasi *w, const struct wasi_fd *fd, uint64_t need);
uint8_t sbx__wasi_filetype_of_mode(unsigned mode);

/* fd_table.c */
/* Returns the fd or NULL (and *err = EBADF). */
struct wasi_fd *sbx__wasi_fd_get(struct sbx__wasi *w, uint32_t fd, uint32_t *err);
/* Returns a free slot >= 3 (the lowest), growing the table; NULL (*err = EMFILE/ENOMEM). */
struct wasi_fd *sbx__wasi_fd_alloc(struct sbx__wasi *w, uint32_t *num, uint32_t *err);
void sbx__wasi_fd_release(struct wasi_fd *fd);
uint32_t sbx__wasi_fd_move(struct sbx__wasi *w, uint32_t from, uint32_t to);
void sbx__wasi_fd_table_free(struct sbx__wasi *w);
void sbx__wasi_dircache_free(struct wasi_dirent_cache *c);

/* path.c: the resolver. path is NUL-terminated host text copied out of the guest.
 * sbx__wasi_path_open opens path beneath dirfd with open(2) flags (O_NOFOLLOW on the last
 * component unless follow) and returns a WASI errno; *out gets the new fd. */
uint32_t sbx__wasi_path_resolve(struct sbx__wasi *w, int dirfd, const char *path, bool follow,
                                int flags, unsigned mode, int *out);
/* Resolves all but the last component beneath dirfd: *parent (owned, close it) and *name
 * (points into path, trailing slashes cut off and reported in *has_trailing_slash; "." when
 * the path names the directory itself). */
uint32_t sbx__wasi_path_parent(struct sbx__wasi *w, int dirfd, char *path, int *parent,
                               const char **name, bool *has_trailing_slash);
/* Copies a guest path out of memory into a NUL-terminated host string (owned). EFAULT,
 * EILSEQ (NUL or bad UTF-8), ENAMETOOLONG, ENOMEM. */
uint32_t sbx__wasi_path_copy(const struct wasi_env *e, uint32_t gaddr, uint32_t glen, char **out);
/* True when the kernel has openat2 (probed once). */
bool sbx__wasi_have_openat2(void);

/* clock.c: WASI clock id -> host clock; false for an unknown id. */
#include <time.h>
bool sbx__wasi_clock_id(uint32_t id, clockid_t *out);

/* poll.c: waits until fd is readable (or writable), or the context is interrupted (EINTR). */
uint32_t sbx__wasi_wait(struct sbx__wasi *w, int fd, bool for_write);

/* fs.c: WASI times + fstflags -> utimensat's pair (EINVAL on bad flags); applying them to
 * an fd that may be O_PATH. */
uint32_t sbx__wasi_times(uint64_t atim, uint64_t mtim, uint32_t fst, struct timespec ts[2]);
uint32_t sbx__wasi_fd_set_times(int fd, const struct timespec ts[2]);

/* sock.c: the socket fd num with rights need; ENOTSOCK for any other fd. */
struct wasi_env;
struct wasi_fd *sbx__wasi_sock_get(struct wasi_env *e, uint32_t num, uint64_t need, uint32_t *err);
/* sock.c: frees what sock_addr_resolve remembered. */
void sbx__wasi_sock_names_free(struct sbx__wasi *w);

/* The host functions, one per file by noun. Each returns a WASI errno, or WASI_TRAPPED after
 * it recorded a trap or exit on e->call. */
#define WASI_TRAPPED 0xffffffffu
typedef uint32_t (*wasi_fn)(struct wasi_env *e, const wasm_value *a);

#define WASI_FN(name) uint32_t sbx__wasi_##name(struct wasi_env *e, const wasm_value *a)
WASI_FN(args_get);
WASI_FN(args_sizes_get);
WASI_FN(environ_get);
WASI_FN(environ_sizes_get);
WASI_FN(clock_res_get);
WASI_FN(clock_time_get);
WASI_FN(fd_advise);
WASI_FN(fd_allocate);
WASI_FN(fd_close);
WASI_FN(fd_datasync);
WASI_FN(fd_fdstat_get);
WASI_FN(fd_fdstat_set_flags);
WASI_FN(fd_fdstat_set_rights);
WASI_FN(fd_filestat_get);
WASI_FN(fd_filestat_set_size);
WASI_FN(fd_filestat_set_times);
WASI_FN(fd_pread);
WASI_FN(fd_prestat_get);
WASI_FN(fd_prestat_dir_name);
WASI_FN(fd_pwrite);
WASI_FN(fd_read);
WASI_FN(fd_readdir);
WASI_FN(fd_renumber);
WASI_FN(fd_seek);
WASI_FN(fd_sync);
WASI_FN(fd_tell);
WASI_FN(fd_write);
WASI_FN(path_create_directory);
WASI_FN(path_filestat_get);
WASI_FN(path_filestat_set_times);
WASI_FN(path_link);
WASI_FN(path_open);
WASI_FN(path_readlink);
WASI_FN(path_remove_directory);
WASI_FN(path_rename);
WASI_FN(path_symlink);
WASI_FN(path_unlink_file);
WASI_FN(poll_oneoff);
WASI_FN(proc_exit);
WASI_FN(proc_raise);
WASI_FN(sched_yield);
WASI_FN(random_get);
WASI_FN(sock_accept);
WASI_FN(sock_accept_v1);
WASI_FN(sock_recv);
WASI_FN(sock_send);
WASI_FN(sock_shutdown);
WASI_FN(sock_open);
WASI_FN(sock_bind);
WASI_FN(sock_listen);
WASI_FN(sock_connect);
WASI_FN(sock_addr_resolve);
WASI_FN(sock_getlocaladdr);
WASI_FN(sock_getpeeraddr);
WASI_FN(sock_setsockopt);
WASI_FN(sock_getsockopt);

/* Shared by fs.c and poll.c / sock.c: filestat into 64 guest bytes. */
struct stat;
void sbx__wasi_put_filestat(uint8_t *p, const struct stat *st);
/* Collects guest iovecs into host ones after checking every span; EFAULT / EINVAL. */
struct iovec;
uint32_t sbx__wasi_iovecs(const struct wasi_env *e, uint32_t gaddr, uint32_t count,
                          struct iovec **out);

#endif

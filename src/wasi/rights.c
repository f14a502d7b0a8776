/* wasi/rights.c: which rights an fd starts with, by file type, and the check every call makes.
 * Rights only ever narrow: path_open grants at most the directory's inheriting rights and
 * fd_fdstat_set_rights can only drop bits. A read-only preopen never hands out a write right. */
#include <sys/stat.h>

#include "wasi/internal.h"

#define RIGHTS_DIR_BASE                                                                            \
    (R_FD_FDSTAT_SET_FLAGS | R_FD_SYNC | R_FD_ADVISE | R_PATH_CREATE_DIRECTORY |                   \
     R_PATH_CREATE_FILE | R_PATH_LINK_SOURCE | R_PATH_LINK_TARGET | R_PATH_OPEN | R_FD_READDIR |   \
     R_PATH_READLINK | R_PATH_RENAME_SOURCE | R_PATH_RENAME_TARGET | R_PATH_FILESTAT_GET |         \
     R_PATH_FILESTAT_SET_SIZE | R_PATH_FILESTAT_SET_TIMES | R_FD_FILESTAT_GET |                    \
     R_FD_FILESTAT_SET_TIMES | R_PATH_SYMLINK | R_PATH_REMOVE_DIRECTORY | R_PATH_UNLINK_FILE |     \
     R_POLL_FD_READWRITE)
#define RIGHTS_FILE_BASE                                                                           \
    (R_FD_DATASYNC | R_FD_READ | R_FD_SEEK | R_FD_FDSTAT_SET_FLAGS | R_FD_SYNC | R_FD_TELL |       \
     R_FD_WRITE | R_FD_ADVISE | R_FD_ALLOCATE | R_FD_FILESTAT_GET | R_FD_FILESTAT_SET_SIZE |       \
     R_FD_FILESTAT_SET_TIMES | R_POLL_FD_READWRITE)
#define RIGHTS_TTY_BASE                                                                            \
    (R_FD_READ | R_FD_WRITE | R_FD_FDSTAT_SET_FLAGS | R_FD_FILESTAT_GET | R_POLL_FD_READWRITE)
#define RIGHTS_SOCK_BASE (RIGHTS_TTY_BASE | R_SOCK_SHUTDOWN | R_SOCK_ACCEPT)
/* pipes and captured stdio: seek/tell are granted so they fail with ESPIPE, as on POSIX */
#define RIGHTS_STREAM_BASE (RIGHTS_TTY_BASE | R_FD_SEEK | R_FD_TELL | R_FD_SYNC | R_FD_DATASYNC)

/* Everything that changes the file system: absent under a read-only preopen. */
#define RIGHTS_WRITE                                                                               \
    (R_FD_WRITE | R_FD_ALLOCATE | R_PATH_CREATE_DIRECTORY | R_PATH_CREATE_FILE |                   \
     R_PATH_LINK_SOURCE | R_PATH_LINK_TARGET | R_PATH_RENAME_SOURCE | R_PATH_RENAME_TARGET |       \
     R_PATH_FILESTAT_SET_SIZE | R_PATH_FILESTAT_SET_TIMES | R_FD_FILESTAT_SET_SIZE |               \
     R_FD_FILESTAT_SET_TIMES | R_PATH_SYMLINK | R_PATH_REMOVE_DIRECTORY | R_PATH_UNLINK_FILE)

void sbx__wasi_rights_for(uint8_t filetype, bool is_read_only, uint64_t *base, uint64_t *inheriting)
{
    switch (filetype) {
    case FT_DIR:
        *base = RIGHTS_DIR_BASE;
        *inheriting = RIGHTS_DIR_BASE | RIGHTS_FILE_BASE;
        break;
    case FT_CHAR: /* a terminal: no seek/tell, so wasi-libc's isatty() says yes */
        *base = RIGHTS_TTY_BASE;
        *inheriting = 0;
        break;
    case FT_UNKNOWN:
        *base = RIGHTS_STREAM_BASE;
        *inheriting = 0;
        break;
    case FT_SOCK_STREAM:
    case FT_SOCK_DGRAM:
        *base = RIGHTS_SOCK_BASE;
        *inheriting = 0;
        break;
    default:
        *base = RIGHTS_FILE_BASE;
        *inheriting = 0;
        break;
    }
    if (is_read_only) {
        *base &= ~(uint64_t)RIGHTS_WRITE;
        *inheriting &= ~(uint64_t)RIGHTS_WRITE;
    }
}

uint32_t sbx__wasi_rights_check(struct sbx__wasi *w, const struct wasi_fd *fd, uint64_t need)
{
    uint64_t missing = need & ~fd->base;
    if (!missing)
        return WASI_ESUCCESS;
    if (fd->is_read_only && (missing & RIGHTS_WRITE))
        sbx__wasi_deny(w, "fs.write");
    return WASI_ENOTCAPABLE;
}

uint8_t sbx__wasi_filetype_of_mode(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return FT_REG;
    case S_IFDIR:
        return FT_DIR;
    case S_IFLNK:
        return FT_SYMLINK;
    case S_IFCHR:
        return FT_CHAR;
    case S_IFBLK:
        return FT_BLOCK;
    case S_IFSOCK:
        return FT_SOCK_STREAM;
    default: /* FIFOs too, as wasmtime reports them */
        return FT_UNKNOWN;
    }
}

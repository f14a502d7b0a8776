/* wasi/errno.c: the one table from host errno to WASI errno. Host codes WASI has no name for
 * become EIO, as wasmtime does; aliases (EWOULDBLOCK, EOPNOTSUPP, EDEADLOCK) are covered
 * by their Linux twins. */
#include <errno.h>

#include "wasi/internal.h"

/* X(host errno, WASI errno) */
#define WASI_ERRNO_TABLE(X)                                                                        \
    X(0, WASI_ESUCCESS)                                                                            \
    X(E2BIG, WASI_E2BIG)                                                                           \
    X(EACCES, WASI_EACCES)                                                                         \
    X(EADDRINUSE, WASI_EADDRINUSE)                                                                 \
    X(EADDRNOTAVAIL, WASI_EADDRNOTAVAIL)                                                           \
    X(EAFNOSUPPORT, WASI_EAFNOSUPPORT)                                                             \
    X(EAGAIN, WASI_EAGAIN)                                                                         \
    X(EALREADY, WASI_EALREADY)                                                                     \
    X(EBADF, WASI_EBADF)                                                                           \
    X(EBADMSG, WASI_EBADMSG)                                                                       \
    X(EBUSY, WASI_EBUSY)                                                                           \
    X(ECANCELED, WASI_ECANCELED)                                                                   \
    X(ECHILD, WASI_ECHILD)                                                                         \
    X(ECONNABORTED, WASI_ECONNABORTED)                                                             \
    X(ECONNREFUSED, WASI_ECONNREFUSED)                                                             \
    X(ECONNRESET, WASI_ECONNRESET)                                                                 \
    X(EDEADLK, WASI_EDEADLK)                                                                       \
    X(EDESTADDRREQ, WASI_EDESTADDRREQ)                                                             \
    X(EDOM, WASI_EDOM)                                                                             \
    X(EDQUOT, WASI_EDQUOT)                                                                         \
    X(EEXIST, WASI_EEXIST)                                                                         \
    X(EFAULT, WASI_EFAULT)                                                                         \
    X(EFBIG, WASI_EFBIG)                                                                           \
    X(EHOSTUNREACH, WASI_EHOSTUNREACH)                                                             \
    X(EIDRM, WASI_EIDRM)                                                                           \
    X(EILSEQ, WASI_EILSEQ)                                                                         \
    X(EINPROGRESS, WASI_EINPROGRESS)                                                               \
    X(EINTR, WASI_EINTR)                                                                           \
    X(EINVAL, WASI_EINVAL)                                                                         \
    X(EIO, WASI_EIO)                                                                               \
    X(EISCONN, WASI_EISCONN)                                                                       \
    X(EISDIR, WASI_EISDIR)                                                                         \
    X(ELOOP, WASI_ELOOP)                                                                           \
    X(EMFILE, WASI_EMFILE)                                                                         \
    X(EMLINK, WASI_EMLINK)                                                                         \
    X(EMSGSIZE, WASI_EMSGSIZE)                                                                     \
    X(EMULTIHOP, WASI_EMULTIHOP)                                                                   \
    X(ENAMETOOLONG, WASI_ENAMETOOLONG)                                                             \
    X(ENETDOWN, WASI_ENETDOWN)                                                                     \
    X(ENETRESET, WASI_ENETRESET)                                                                   \
    X(ENETUNREACH, WASI_ENETUNREACH)                                                               \
    X(ENFILE, WASI_ENFILE)                                                                         \
    X(ENOBUFS, WASI_ENOBUFS)                                                                       \
    X(ENODEV, WASI_ENODEV)                                                                         \
    X(ENOENT, WASI_ENOENT)                                                                         \
    X(ENOEXEC, WASI_ENOEXEC)                                                                       \
    X(ENOLCK, WASI_ENOLCK)                                                                         \
    X(ENOLINK, WASI_ENOLINK)                                                                       \
    X(ENOMEM, WASI_ENOMEM)                                                                         \
    X(ENOMSG, WASI_ENOMSG)                                                                         \
    X(ENOPROTOOPT, WASI_ENOPROTOOPT)                                                               \
    X(ENOSPC, WASI_ENOSPC)                                                                         \
    X(ENOSYS, WASI_ENOSYS)                                                                         \
    X(ENOTCONN, WASI_ENOTCONN)                                                                     \
    X(ENOTDIR, WASI_ENOTDIR)                                                                       \
    X(ENOTEMPTY, WASI_ENOTEMPTY)                                                                   \
    X(ENOTRECOVERABLE, WASI_ENOTRECOVERABLE)                                                       \
    X(ENOTSOCK, WASI_ENOTSOCK)                                                                     \
    X(ENOTSUP, WASI_ENOTSUP)                                                                       \
    X(ENOTTY, WASI_ENOTTY)                                                                         \
    X(ENXIO, WASI_ENXIO)                                                                           \
    X(EOVERFLOW, WASI_EOVERFLOW)                                                                   \
    X(EOWNERDEAD, WASI_EOWNERDEAD)                                                                 \
    X(EPERM, WASI_EPERM)                                                                           \
    X(EPIPE, WASI_EPIPE)                                                                           \
    X(EPROTO, WASI_EPROTO)                                                                         \
    X(EPROTONOSUPPORT, WASI_EPROTONOSUPPORT)                                                       \
    X(EPROTOTYPE, WASI_EPROTOTYPE)                                                                 \
    X(ERANGE, WASI_ERANGE)                                                                         \
    X(EROFS, WASI_EROFS)                                                                           \
    X(ESPIPE, WASI_ESPIPE)                                                                         \
    X(ESRCH, WASI_ESRCH)                                                                           \
    X(ESTALE, WASI_ESTALE)                                                                         \
    X(ETIMEDOUT, WASI_ETIMEDOUT)                                                                   \
    X(ETXTBSY, WASI_ETXTBSY)                                                                       \
    X(EXDEV, WASI_EXDEV)

uint16_t sbx__wasi_errno(int host_errno)
{
    switch (host_errno) {
#define WASI_ERRNO_CASE(host, wasi)                                                                \
    case host:                                                                                     \
        return wasi;
        WASI_ERRNO_TABLE(WASI_ERRNO_CASE)
#undef WASI_ERRNO_CASE
    default:
        return WASI_EIO;
    }
}

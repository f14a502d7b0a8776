/* util/path.c: opens a host path without following symlinks in any component. openat2 does it
 * in one call and race-free; the fallback walk holds an fd to each directory it has checked, so
 * a component swapped for a symlink after its check is never followed either. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/path.h"

/* After a failed open of name in dir: ELOOP if name is a symlink (O_NOFOLLOW on an O_PATH or
 * O_DIRECTORY open reports ENOTDIR or opens the link itself instead). */
static int link_or(int dir, const char *name, int err)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return -ELOOP;
    return -err;
}

/* Opens name under dir; intermediate components must be directories. */
static int open_component(int dir, const char *name, bool is_last, int flags)
{
    int fl =
        is_last ? flags | O_NOFOLLOW | O_CLOEXEC : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int fd = openat(dir, name, fl, 0);
    if (fd < 0)
        return link_or(dir, name, errno);
    struct stat st;
    int err = fstat(fd, &st) != 0 ? errno : S_ISLNK(st.st_mode) ? ELOOP : 0; /* O_PATH: the link */
    if (err) {
        close(fd);
        return -err;
    }
    return fd;
}

int sbx__path_open_nofollow_walk(const char *path, int flags)
{
    char buf[PATH_MAX];
    size_t len = strlen(path);
    if (len == 0)
        return -ENOENT;
    if (len >= sizeof(buf))
        return -ENAMETOOLONG;
    memcpy(buf, path, len + 1);
    int dir = path[0] == '/' ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) : AT_FDCWD;
    if (dir == -1)
        return -errno;
    char *p = buf;
    for (;;) {
        while (*p == '/')
            p++;
        char *end = p + strcspn(p, "/");
        char *next = end;
        while (*next == '/')
            next++;
        bool is_last = *next == '\0';
        *end = '\0';
        /* "/" itself, or a trailing slash: the directory reached so far is the answer. */
        int fd = *p ? open_component(dir, p, is_last, flags)
                    : openat(dir, ".", flags | O_DIRECTORY | O_CLOEXEC, 0);
        if (fd == -1)
            fd = -errno;
        if (dir != AT_FDCWD)
            close(dir);
        if (fd < 0 || is_last || !*p)
            return fd;
        dir = fd;
        p = next;
    }
}

int sbx__path_open_nofollow(const char *path, int flags)
{
    struct open_how how = {
        .flags = (unsigned long long)(unsigned)(flags | O_CLOEXEC),
        .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
    if (fd >= 0)
        return (int)fd;
    /* ENOSYS: before Linux 5.6; EPERM: a container's seccomp profile that predates it. */
    if (errno == ENOSYS || errno == EPERM)
        return sbx__path_open_nofollow_walk(path, flags);
    return -errno;
}

const char *sbx__path_open_error(int neg_errno)
{
    if (neg_errno == -ELOOP)
        return "a symlink in the host path is never followed (grant the path it points to)";
    return strerror(-neg_errno);
}

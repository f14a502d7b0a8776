/* jail/mount.c: the guest's filesystem view. The parent plans it (a list of mount steps with
 * absolute paths under the new root); the child applies the list, pivots and detaches the host
 * tree. Root is a tmpfs holding only read-only system binds, /proc, a minimal /dev, /tmp and the
 * policy's grants, so nothing else of the host (/etc/passwd, /home, /root) exists inside. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail/jail.h"
#include "jail/plan.h"
#include "util/path.h"

/* ---- child side: system calls only ---- */

/* Creates path and any missing parents. Tries the full path first: nearly every mount point's
 * parent already exists, so the common case is one mkdir(2). */
static int mkdir_p(const char *path, bool is_last_dir)
{
    char buf[PATH_MAX];
    size_t len = strlen(path);
    if (len >= sizeof(buf))
        return -ENAMETOOLONG;
    memcpy(buf, path, len + 1);
    if (!is_last_dir) {
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf)
            return 0;
        *slash = '\0';
    }
    if (mkdir(buf, 0755) == 0 || errno == EEXIST)
        return 0;
    if (errno != ENOENT)
        return -errno;
    for (char *p = buf + 1;; p++) { /* a parent is missing: create each component in turn */
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -errno;
        *p = saved;
        if (saved == '\0')
            return 0;
    }
}

static int make_mountpoint(const struct sbx__jail_mount *m)
{
    int rc = mkdir_p(m->dst, m->is_dir);
    if (rc || m->is_dir)
        return rc;
    /* O_EXCL: an existing file (a /proc entry bound over itself) is only a mount point. */
    int fd = open(m->dst, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return errno == EEXIST ? 0 : -errno;
    close(fd);
    return 0;
}

static int set_attr(const char *path, uint64_t attr, unsigned flags)
{
    struct mount_attr ma = {.attr_set = attr};
    if (mount_setattr(AT_FDCWD, path, flags, &ma, sizeof(ma)) != 0)
        return -errno;
    return 0;
}

/* After a failed open of name in dir: ELOOP when name is a symlink, else err. */
static int link_or(int dir, const char *name, int err)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return -ELOOP;
    return -err;
}

/* One component of a grant's mount point: made if missing, then opened without following it. */
static int open_step(int dir, const char *name, bool is_dir)
{
    if (is_dir) {
        if (mkdirat(dir, name, 0755) != 0 && errno != EEXIST)
            return link_or(dir, name, errno);
        int fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        return fd >= 0 ? fd : link_or(dir, name, errno);
    }
    int fd = openat(dir, name, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
    else if (errno != EEXIST)
        return link_or(dir, name, errno);
    fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISLNK(st.st_mode))
        return fd;
    close(fd);
    return -ELOOP;
}

/* A grant's mount point may lie inside another (rw:) grant, where an earlier guest could have
 * planted a symlink: walks below the root one component at a time, never following one, so
 * neither the mkdir of a missing parent nor the mount lands on the host's target. */
static int open_mountpoint(const struct sbx__jail_spec *spec, const struct sbx__jail_mount *m)
{
    char buf[PATH_MAX];
    size_t skip = strlen(spec->root_dir), len = strlen(m->dst);
    if (len <= skip || len >= sizeof(buf) || strncmp(m->dst, spec->root_dir, skip) != 0)
        return -EINVAL;
    memcpy(buf, m->dst + skip, len - skip + 1);
    int dir = open(spec->root_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    for (char *p = buf; dir >= 0;) {
        while (*p == '/')
            p++;
        char *end = p + strcspn(p, "/");
        bool is_last = end[strspn(end, "/")] == '\0';
        *end = '\0';
        int fd = open_step(dir, p, !is_last || m->is_dir);
        close(dir);
        if (fd < 0 || is_last)
            return fd;
        dir = fd;
        p = end + 1;
    }
    return -errno;
}

/* A policy grant: its host path opened once, refusing a symlink in any component (one a guest
 * planted in an rw: grant of an earlier run would otherwise redirect it, say to /etc), then that
 * fd's tree cloned, made read-only or not, and attached. Landlock gets the same fd. */
static int bind_grant(const struct sbx__jail_spec *spec, const struct sbx__jail_mount *m,
                      uint64_t attr)
{
    if (m->grant < 0 || (size_t)m->grant >= spec->grant_count)
        return -EINVAL;
    int fd = sbx__path_open_nofollow(m->src, O_PATH);
    if (fd < 0)
        return fd;
    spec->grant_fds[m->grant] = fd;
    int at = open_mountpoint(spec, m);
    if (at < 0)
        return at;
    int tree =
        open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
    struct mount_attr ma = {.attr_set = attr};
    int rc = 0;
    if (tree < 0 || mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &ma, sizeof(ma)) != 0 ||
        move_mount(tree, "", at, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
        rc = -errno;
    if (tree >= 0)
        close(tree);
    close(at);
    return rc;
}

static int apply_bind(const struct sbx__jail_spec *spec, const struct sbx__jail_mount *m)
{
    if (m->is_optional && access(m->src, F_OK) != 0)
        return 0;
    int rc = m->is_grant ? 0 : make_mountpoint(m);
    if (rc)
        return rc;
    uint64_t attr = MOUNT_ATTR_NOSUID;
    if (m->kind == SBX__MNT_BIND_DEV)
        attr |= MOUNT_ATTR_NOEXEC;
    else
        attr |= MOUNT_ATTR_NODEV;
    if (m->kind == SBX__MNT_BIND)
        attr |= MOUNT_ATTR_RDONLY;
    if (m->is_grant)
        return bind_grant(spec, m, attr);
    if (mount(m->src, m->dst, NULL, MS_BIND | MS_REC, NULL) != 0)
        return -errno;
    return set_attr(m->dst, attr, AT_RECURSIVE);
}

void sbx__jail_mount_close_grants(const struct sbx__jail_spec *spec)
{
    for (size_t i = 0; i < spec->grant_count; i++) {
        if (spec->grant_fds[i] >= 0)
            close(spec->grant_fds[i]);
        spec->grant_fds[i] = -1;
    }
}

/* As runc masks /proc entries: reads of a masked file end at once, a masked directory is empty,
 * and both are read-only. Entries this kernel lacks are skipped. */
static int apply_mask(const struct sbx__jail_mount *m)
{
    struct stat st;
    if (lstat(m->dst, &st) != 0)
        return errno == ENOENT ? 0 : -errno;
    if (S_ISDIR(st.st_mode)) {
        unsigned long flags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
        return mount("tmpfs", m->dst, "tmpfs", flags, "mode=0555,size=4k,nr_inodes=1") == 0
                   ? 0
                   : -errno;
    }
    if (mount("/dev/null", m->dst, NULL, MS_BIND, NULL) != 0)
        return -errno;
    return set_attr(m->dst, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, 0);
}

/* A small file of the plan's own text (the stub's /etc/resolv.conf), never through a link. */
static int write_file(const struct sbx__jail_mount *m)
{
    int fd = open(m->dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return -errno;
    size_t len = strlen(m->src);
    ssize_t n = write(fd, m->src, len);
    int rc = n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
    close(fd);
    return rc;
}

static int apply_one(const struct sbx__jail_spec *spec, const struct sbx__jail_mount *m)
{
    int rc;
    switch (m->kind) {
    case SBX__MNT_TMPFS:
        rc = mkdir_p(m->dst, true);
        if (rc == 0 && mount("tmpfs", m->dst, "tmpfs", MS_NOSUID | MS_NODEV, m->src) != 0)
            rc = -errno;
        return rc;
    case SBX__MNT_BIND:
    case SBX__MNT_BIND_RW:
    case SBX__MNT_BIND_DEV:
        return apply_bind(spec, m);
    case SBX__MNT_PROC:
        rc = mkdir_p(m->dst, true);
        if (rc == 0 && mount("proc", m->dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
            rc = -errno;
        return rc;
    case SBX__MNT_SYMLINK:
        return symlink(m->src, m->dst) == 0 || errno == EEXIST ? 0 : -errno;
    case SBX__MNT_DIR:
        return mkdir_p(m->dst, true);
    case SBX__MNT_READONLY:
        return set_attr(m->dst, MOUNT_ATTR_RDONLY, 0);
    case SBX__MNT_MASK:
        return apply_mask(m);
    case SBX__MNT_FILE:
        return write_file(m);
    case SBX__MNT_TREE:
        rc = make_mountpoint(m);
        if (rc == 0 && move_mount(SBX__JAIL_FD_TREE + m->tree, "", AT_FDCWD, m->dst,
                                  MOVE_MOUNT_F_EMPTY_PATH) != 0)
            rc = -errno;
        return rc;
    }
    return -EINVAL;
}

/* Makes every mount private first, so nothing done here propagates back to the host. */
int sbx__jail_mount_apply(const struct sbx__jail_spec *spec, int *failed_step)
{
    *failed_step = -1;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return -errno;
    if (mount("tmpfs", spec->root_dir, "tmpfs", MS_NOSUID | MS_NODEV,
              "mode=0755,size=1m,nr_inodes=4096") != 0)
        return -errno;
    for (size_t i = 0; i < spec->mount_count; i++) {
        int rc = apply_one(spec, &spec->mounts[i]);
        if (rc) {
            *failed_step = (int)i;
            return rc;
        }
    }
    return 0;
}

/* pivot_root(".", ".") stacks the old root under the new one; detaching it leaves the guest
 * no path back to the host tree (pivot_root(2), "NOTES"). */
int sbx__jail_mount_pivot(const char *root_dir)
{
    if (chdir(root_dir) != 0)
        return -errno;
    if (syscall(SYS_pivot_root, ".", ".") != 0)
        return -errno;
    if (umount2(".", MNT_DETACH) != 0)
        return -errno;
    if (chdir("/") != 0)
        return -errno;
    return 0;
}

/* The root tmpfs only holds mount points: once they exist it becomes read-only. */
int sbx__jail_mount_finish(void)
{
    return set_attr("/", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0);
}

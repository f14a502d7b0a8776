/* jail/landlock.c: Landlock, a second fence behind the mount namespace. The ABI is probed at
 * run time and every right that ABI knows is handled, except EXECUTE: sbx's own guest binary is
 * a sealed memfd no path rule can name. Scoping (ABI 6) also cuts abstract unix sockets and
 * signals to processes outside the jail's domain. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/landlock.h>

#include "jail/jail.h"

/* Newer than Debian 12's headers (linux-libc-dev 6.1). */
#define LL_FS_TRUNCATE     (1ULL << 14)
#define LL_FS_IOCTL_DEV    (1ULL << 15)
#define LL_NET_BIND_TCP    (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT  (1ULL << 0)
#define LL_SCOPE_SIGNAL    (1ULL << 1)
#define LL_FS_ABI1         ((1ULL << 13) - 1)

struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

int sbx__jail_landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
}

static uint64_t handled_fs(int abi)
{
    uint64_t fs = LL_FS_ABI1 & ~(uint64_t)LANDLOCK_ACCESS_FS_EXECUTE;
    if (abi >= 2)
        fs |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        fs |= LL_FS_TRUNCATE;
    if (abi >= 5)
        fs |= LL_FS_IOCTL_DEV;
    return fs;
}

uint64_t sbx__jail_landlock_read_access(void)
{
    return LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
}

uint64_t sbx__jail_landlock_write_access(int abi)
{
    return handled_fs(abi) & ~sbx__jail_landlock_read_access();
}

uint64_t sbx__jail_landlock_dev_access(int abi)
{
    uint64_t a = sbx__jail_landlock_read_access() | LANDLOCK_ACCESS_FS_WRITE_FILE;
    return abi >= 5 ? a | LL_FS_IOCTL_DEV : a;
}

/* Rights that make sense on a single file (landlock_add_rule(2) rejects the others). */
uint64_t sbx__jail_landlock_file_access(void)
{
    return LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LL_FS_TRUNCATE |
           LL_FS_IOCTL_DEV;
}

static int add_rules(int ruleset, const struct sbx__jail_spec *spec, uint64_t handled)
{
    for (size_t i = 0; i < spec->rule_count; i++) {
        const struct sbx__jail_rule *r = &spec->rules[i];
        /* A grant's rule is on the fd its bind was made from: the very inode the plan checked. */
        bool is_grant = r->grant_slot > 0 && r->grant_slot <= spec->grant_count;
        int fd = is_grant ? spec->grant_fds[r->grant_slot - 1] : open(r->path, O_PATH | O_CLOEXEC);
        if (fd < 0) {
            if (is_grant)
                return -EBADF;
            if (errno == ENOENT)
                continue;
            return -errno;
        }
        struct landlock_path_beneath_attr pb = {
            .allowed_access = r->access & handled,
            .parent_fd = fd,
        };
        long rc = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
        int err = errno;
        if (!is_grant)
            close(fd);
        if (rc != 0)
            return -err;
    }
    return 0;
}

/* Child side, after no_new_privs (landlock_restrict_self(2) requires it without CAP_SYS_ADMIN). */
int sbx__jail_landlock_apply(const struct sbx__jail_spec *spec)
{
    int abi = spec->landlock_abi;
    struct ll_ruleset_attr attr = {.handled_access_fs = handled_fs(abi)};
    size_t size = sizeof(uint64_t);
    if (abi >= 4) {
        /* Loopback-only networking needs TCP on lo; without it no TCP port is reachable. */
        attr.handled_access_net = spec->net_loopback ? 0 : LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
        size = 2 * sizeof(uint64_t);
    }
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT | LL_SCOPE_SIGNAL;
        size = sizeof(attr);
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0)
        return -errno;
    int rc = add_rules(ruleset, spec, attr.handled_access_fs);
    if (rc == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
        rc = -errno;
    close(ruleset);
    return rc;
}

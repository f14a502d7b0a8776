/* jail/userns.c: the user namespace. The guest's uid maps to one unprivileged host id: the
 * caller's own, or nobody (65534) when sbx runs as root, so host uid 0 is never reachable. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail/jail.h"

static int write_file(const char *path, const char *data)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t len = strlen(data);
    ssize_t n = write(fd, data, len);
    int err = n < 0 ? errno : 0;
    close(fd);
    if (n < 0)
        return -err;
    return (size_t)n == len ? 0 : -EIO;
}

/* Parent side (before the child may run): uid_map, setgroups, gid_map of /proc/<pid>. An
 * unprivileged writer must deny setgroups(2) first (user_namespaces(7)). */
int sbx__jail_userns_write_maps(pid_t pid, uid_t host_uid, gid_t host_gid, bool deny_setgroups)
{
    char path[64], line[64];
    snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
    snprintf(line, sizeof(line), "%u %u 1\n", SBX__JAIL_GUEST_ID, (unsigned)host_uid);
    int rc = write_file(path, line);
    if (rc)
        return rc;
    if (deny_setgroups) {
        snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
        rc = write_file(path, "deny\n");
        if (rc)
            return rc;
    }
    snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
    snprintf(line, sizeof(line), "%u %u 1\n", SBX__JAIL_GUEST_ID, (unsigned)host_gid);
    return write_file(path, line);
}

/* Child side: become the guest id while keeping the namespace's capabilities for the mounts
 * that follow; caps.c drops them all later. A root host also sheds its supplementary groups
 * (gid 0 among them), which an unprivileged host cannot do once setgroups is denied. */
int sbx__jail_userns_apply(const struct sbx__jail_spec *spec)
{
    if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
        return -errno;
    /* Raw system calls: glibc's wrappers broadcast the change to every thread it believes
     * exists (nptl setxid), and this fork-like child inherited the host's thread list but not
     * its threads, so the wrappers would wait forever. */
    if (spec->can_setgroups && syscall(SYS_setgroups, 0, NULL) != 0)
        return -errno;
    gid_t g = spec->guest_gid;
    uid_t u = spec->guest_uid;
    if (syscall(SYS_setresgid, g, g, g) != 0 || syscall(SYS_setresuid, u, u, u) != 0)
        return -errno;
    return 0;
}

/* Formats "<inside> <outside> 1\n" without stdio (async-signal-safe). */
static size_t map_line(char *buf, unsigned inside, unsigned outside)
{
    char digits[2][12];
    unsigned vals[2] = {inside, outside};
    size_t lens[2];
    for (int k = 0; k < 2; k++) {
        size_t n = 0;
        do
            digits[k][n++] = (char)('0' + vals[k] % 10);
        while ((vals[k] /= 10) != 0);
        lens[k] = n;
    }
    size_t o = 0;
    for (int k = 0; k < 2; k++) {
        while (lens[k] > 0)
            buf[o++] = digits[k][--lens[k]];
        buf[o++] = ' ';
    }
    buf[o++] = '1';
    buf[o++] = '\n';
    buf[o] = '\0';
    return o;
}

int sbx__jail_userns_map_self(const struct sbx__jail_spec *spec)
{
    char line[40];
    map_line(line, spec->guest_uid, spec->host_uid);
    int rc = write_file("/proc/self/uid_map", line);
    if (rc == 0)
        rc = write_file("/proc/self/setgroups", "deny\n");
    if (rc == 0) {
        map_line(line, spec->guest_gid, spec->host_gid);
        rc = write_file("/proc/self/gid_map", line);
    }
    return rc;
}

/* mount(2) and the new mount API are denied: no tmpfs, no bind, no remount of a read-only bind. */
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe.h"

int main(void)
{
    int rc = probe_expect_denied(mount("none", "/tmp", "tmpfs", 0, NULL), "mount tmpfs");
    rc = probe_merge(rc, probe_expect_denied(mount("/usr", "/tmp", NULL, MS_BIND, NULL), "bind"));
    rc = probe_merge(rc, probe_expect_denied(mount(NULL, "/usr", NULL, MS_REMOUNT | MS_BIND, NULL),
                                             "remount /usr rw"));
    rc = probe_merge(rc, probe_expect_denied(syscall(SYS_fsopen, "tmpfs", 0), "fsopen"));
    rc = probe_merge(rc, probe_expect_denied(syscall(SYS_open_tree, -100, "/usr", 1), "open_tree"));
    rc = probe_merge(rc, probe_expect_denied(umount2("/proc", MNT_DETACH), "umount /proc"));
    return rc;
}

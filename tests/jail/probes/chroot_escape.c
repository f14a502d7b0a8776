/* The classic chroot breakout (chroot into a subdir, then chdir("..") past the root) needs
 * chroot(2), which is denied; and ".." at the jail's root stays at the root. */
#include <sys/stat.h>
#include <unistd.h>

#include "probe.h"

int main(void)
{
    int rc = probe_expect_denied(chroot("/tmp"), "chroot");
    for (int i = 0; i < 64; i++) {
        if (chdir("..") != 0)
            break;
    }
    struct stat st;
    rc = probe_merge(rc, probe_expect_fail(stat("etc/passwd", &st), "../../etc/passwd"));
    rc = probe_merge(
        rc, probe_expect_fail(stat("/proc/1/root/etc/passwd", &st), "/proc/1/root/etc/passwd"));
    return rc;
}

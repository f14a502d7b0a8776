/* Only null, zero, full, random, urandom exist in /dev; no disk, memory or tty device, and
 * mknod is denied. */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "probe.h"

int main(void)
{
    static const char *const devs[] = {"/dev/mem", "/dev/kmem",    "/dev/sda",  "/dev/vda",
                                       "/dev/tty", "/dev/console", "/dev/ptmx", "/dev/kmsg"};
    int rc = PROBE_SKIP;
    for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
        rc = probe_merge(rc, probe_expect_fail(open(devs[i], O_RDWR), devs[i]));
    rc = probe_merge(rc, probe_expect_denied(mknod("/tmp/mem", S_IFCHR | 0600, makedev(1, 1)),
                                             "mknod /tmp/mem"));
    int fd = open("/dev/null", O_WRONLY);
    if (fd < 0 || write(fd, "x", 1) != 1)
        printf("note: /dev/null unusable\n");
    if (fd >= 0)
        close(fd);
    return rc;
}

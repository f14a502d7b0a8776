/* TIOCSTI pushes bytes into the controlling terminal's input (a classic sandbox escape when
 * the guest shares a tty). Denied by seccomp on the low 32 bits, so setting high bits of the
 * request number does not slip past (CVE-2019-10063). EPERM is the filter's answer; ENOTTY
 * would mean the ioctl reached the kernel. */
#include <sys/ioctl.h>
#include <unistd.h>

#include "probe.h"

static int try_ioctl(unsigned long req, const char *what)
{
    char c = 'x';
    long rc = ioctl(0, req, &c);
    if (rc < 0 && errno == EPERM) {
        printf("blocked: %s: %s\n", what, strerror(errno));
        return PROBE_BLOCKED;
    }
    printf("ESCAPED: %s reached the kernel (rc %ld, %s)\n", what, rc, strerror(errno));
    return PROBE_ESCAPED;
}

int main(void)
{
    int rc = try_ioctl(TIOCSTI, "TIOCSTI");
    rc = probe_merge(rc, try_ioctl(TIOCSTI | (1ul << 32), "TIOCSTI | 1<<32"));
    rc = probe_merge(rc, try_ioctl(TIOCSTI | 0xffffffff00000000ul, "TIOCSTI | high bits"));
    rc = probe_merge(rc, try_ioctl(TIOCLINUX | (1ul << 40), "TIOCLINUX | 1<<40"));
    return rc;
}

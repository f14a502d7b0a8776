/* Kernel knobs under /proc stay read-only: /proc/sys, /proc/sysrq-trigger. */
#include <fcntl.h>
#include <unistd.h>

#include "probe.h"

int main(void)
{
    static const char *const files[] = {"/proc/sys/kernel/hostname", "/proc/sys/vm/drop_caches",
                                        "/proc/sysrq-trigger", "/proc/sys/kernel/core_pattern"};
    int rc = PROBE_SKIP;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        int fd = open(files[i], O_WRONLY);
        if (fd >= 0 && write(fd, "1", 1) == 1) {
            printf("ESCAPED: wrote %s\n", files[i]);
            rc = PROBE_ESCAPED;
        } else {
            rc = probe_merge(rc, probe_expect_fail(-1, files[i]));
        }
        if (fd >= 0)
            close(fd);
    }
    return rc;
}

/* Writes outside any grant: the root tmpfs, /usr, /etc, /dev, /proc are all read-only. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe.h"

int main(void)
{
    static const char *const files[] = {"/x",          "/usr/x",           "/etc/x", "/dev/x",
                                        "/usr/bin/sh", "/etc/ld.so.cache", "/sbx-x"};
    int rc = PROBE_SKIP;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        rc = probe_merge(rc, probe_expect_fail(open(files[i], O_WRONLY | O_CREAT, 0644), files[i]));
    rc = probe_merge(rc, probe_expect_fail(mkdir("/newdir", 0755), "mkdir /newdir"));
    return rc;
}

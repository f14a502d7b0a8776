/* A plain grant (/ro) is readable but not writable, not even by rename or unlink. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "probe.h"

int main(void)
{
    if (access("/ro/f", R_OK) != 0) {
        printf("grant /ro/f not readable: %s\n", strerror(errno));
        return PROBE_SKIP;
    }
    int rc = probe_expect_fail(open("/ro/f", O_WRONLY), "open /ro/f for writing");
    rc = probe_merge(rc, probe_expect_fail(open("/ro/new", O_WRONLY | O_CREAT, 0644), "create"));
    rc = probe_merge(rc, probe_expect_fail(unlink("/ro/f"), "unlink /ro/f"));
    rc = probe_merge(rc, probe_expect_fail(rename("/ro/f", "/ro/g"), "rename /ro/f"));
    return rc;
}

/* Host files outside the grants: /etc/passwd, /etc/shadow, /home, /root must not exist. */
#include <fcntl.h>
#include <unistd.h>

#include "probe.h"

int main(void)
{
    static const char *const paths[] = {"/etc/passwd",   "/etc/shadow", "/home", "/root",
                                        "/etc/hostname", "/var",        "/work"};
    int rc = PROBE_SKIP;
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
        rc = probe_merge(rc, probe_expect_fail(open(paths[i], O_RDONLY), paths[i]));
    return rc;
}

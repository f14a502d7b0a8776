/* An fd the host opened (without O_CLOEXEC) before the run is not visible inside; no fd but
 * 0-2 is open at all. argv[1] = the host's fd number. */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "probe.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return PROBE_SKIP;
    int fd = (int)strtol(argv[1], NULL, 10);
    int rc = probe_expect_fail(fcntl(fd, F_GETFD), "fcntl(host fd)");
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return rc;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int n = (int)strtol(e->d_name, NULL, 10);
        if (e->d_name[0] != '.' && n > 2 && n != dirfd(d)) {
            printf("ESCAPED: fd %d is open inside the jail\n", n);
            rc = PROBE_ESCAPED;
        }
    }
    closedir(d);
    return rc;
}

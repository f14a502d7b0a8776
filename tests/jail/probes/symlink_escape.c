/* Symlinks inside a grant that point outside it (absolute host path, "../" chains) resolve in
 * the jail's own tree, never the host's. Creating one in a writable grant does not help. */
#include <fcntl.h>
#include <unistd.h>

#include "probe.h"

static int try_read(const char *path)
{
    char buf[64] = "";
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return probe_expect_fail(-1, path);
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n > 0 && strstr(buf, "HOSTSECRET")) {
        printf("ESCAPED: %s reads the host secret\n", path);
        return PROBE_ESCAPED;
    }
    printf("blocked: %s opened but is not the host file\n", path);
    return PROBE_BLOCKED;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return PROBE_SKIP;
    int rc = probe_merge(try_read("/links/secret"), try_read("/links/up"));
    /* argv[1]: the host path of the secret; plant a link to it in the writable grant. */
    unlink("/rw/planted");
    if (symlink(argv[1], "/rw/planted") == 0)
        rc = probe_merge(rc, try_read("/rw/planted"));
    rc = probe_merge(rc, try_read(argv[1]));
    return rc;
}

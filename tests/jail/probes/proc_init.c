/* The jail's pid 1 is a fork of the host program, so /proc/1/exe names the host's binary: the
 * way into runc's CVE-2019-5736. pid 1 is not dumpable and that binary lies outside every
 * Landlock rule, so its exe, memory, environment and fds (the status pipe) stay closed.
 * argv[1]: the pid to try (default 1; the unjailed control names the driver instead). */
#include <fcntl.h>
#include <unistd.h>

#include "probe.h"

int main(int argc, char **argv)
{
    static const struct {
        const char *file;
        int flags;
    } tries[] = {
        {"exe", O_RDONLY},     {"exe", O_WRONLY},  {"mem", O_RDWR},
        {"environ", O_RDONLY}, {"fd/5", O_WRONLY}, {"fd/1", O_RDONLY},
    };
    const char *pid = argc > 1 ? argv[1] : "1";
    int rc = PROBE_SKIP;
    for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
        char path[64], what[96];
        snprintf(path, sizeof(path), "/proc/%s/%s", pid, tries[i].file);
        int fd = open(path, tries[i].flags);
        snprintf(what, sizeof(what), "open %s (%s)", path, tries[i].flags == O_RDONLY ? "r" : "w");
        rc = probe_merge(rc, probe_expect_fail(fd, what));
        if (fd >= 0)
            close(fd);
    }
    return rc;
}

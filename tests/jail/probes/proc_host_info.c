/* Host information under the jail's /proc is masked (what docker and runc mask, plus the
 * kernel's config and command line, which here names the hypervisor's vsock ports): each file
 * reads empty or not at all, each directory lists nothing. /proc/kmsg is left out: reading it
 * as root, in the unjailed control, would consume the host's kernel log. */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "probe.h"

static int try_file(const char *path)
{
    char buf[64];
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        printf("blocked: %s: %s\n", path, strerror(errno));
        return PROBE_BLOCKED;
    }
    ssize_t n = read(fd, buf, sizeof(buf));
    close(fd);
    if (n > 0) {
        printf("ESCAPED: %s reads %zd bytes\n", path, n);
        return PROBE_ESCAPED;
    }
    printf("blocked: %s reads nothing\n", path);
    return PROBE_BLOCKED;
}

static int try_dir(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        printf("blocked: %s: %s\n", path, strerror(errno));
        return PROBE_BLOCKED;
    }
    int entries = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        entries += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    printf("%s: %s lists %d entries\n", entries ? "ESCAPED" : "blocked", path, entries);
    return entries ? PROBE_ESCAPED : PROBE_BLOCKED;
}

int main(void)
{
    static const char *const files[] = {
        "/proc/cmdline",     "/proc/config.gz",  "/proc/kallsyms",      "/proc/kcore",
        "/proc/keys",        "/proc/key-users",  "/proc/latency_stats", "/proc/modules",
        "/proc/sched_debug", "/proc/timer_list", "/proc/timer_stats",
    };
    static const char *const dirs[] = {"/proc/acpi", "/proc/asound", "/proc/scsi"};
    int rc = PROBE_SKIP;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        rc = probe_merge(rc, access(files[i], F_OK) == 0 ? try_file(files[i]) : PROBE_SKIP);
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        rc = probe_merge(rc, access(dirs[i], F_OK) == 0 ? try_dir(dirs[i]) : PROBE_SKIP);
    return rc;
}

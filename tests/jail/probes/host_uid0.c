/* Host uid 0 is never reached: the jail's id maps never name outside id 0, setuid(0) fails,
 * and no capability is held in any set. */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "probe.h"

static int check_map(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return PROBE_SKIP;
    unsigned in, out, count;
    int rc = PROBE_BLOCKED;
    while (fscanf(f, "%u %u %u", &in, &out, &count) == 3) {
        if (out == 0) {
            printf("ESCAPED: %s maps %u to host id 0\n", path, in);
            rc = PROBE_ESCAPED;
        }
    }
    fclose(f);
    return rc;
}

static int check_caps(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int rc = PROBE_SKIP;
    while (f && fgets(line, sizeof(line), f)) {
        unsigned long long v;
        char name[16];
        if (sscanf(line, "Cap%15[^:]: %llx", name, &v) == 2) {
            rc = probe_merge(rc, v == 0 ? PROBE_BLOCKED : PROBE_ESCAPED);
            if (v)
                printf("ESCAPED: Cap%s = %llx\n", name, v);
        }
    }
    if (f)
        fclose(f);
    return rc;
}

int main(void)
{
    int rc = probe_merge(check_map("/proc/self/uid_map"), check_map("/proc/self/gid_map"));
    rc = probe_merge(rc, probe_expect_fail(setuid(0), "setuid(0)"));
    rc = probe_merge(rc, probe_expect_fail(setgid(0), "setgid(0)"));
    rc = probe_merge(rc, getuid() != 0 && geteuid() != 0 ? PROBE_BLOCKED : PROBE_ESCAPED);
    rc = probe_merge(rc, check_caps());
    rc = probe_merge(rc,
                     prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? PROBE_BLOCKED : PROBE_ESCAPED);
    return rc;
}

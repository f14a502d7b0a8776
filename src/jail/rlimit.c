/* jail/rlimit.c: resource limits set in the jail's init before the guest starts. Core dumps,
 * file size and open files are always capped; data size and process count only stand in when
 * no cgroup holds memory and pids (the result's enforced bits say which). RLIMIT_DATA, unlike
 * RLIMIT_AS, lets V8 and other runtimes reserve address space they never touch. */
#include <errno.h>
#include <sys/resource.h>

#include "jail/jail.h"

static int set_one(int resource, uint64_t value)
{
    struct rlimit rl = {.rlim_cur = (rlim_t)value, .rlim_max = (rlim_t)value};
    return setrlimit(resource, &rl) == 0 ? 0 : -errno;
}

int sbx__jail_rlimit_apply(const struct sbx__jail_rlimits *r)
{
    int rc = set_one(RLIMIT_CORE, 0);
    if (rc == 0)
        rc = set_one(RLIMIT_FSIZE, r->fsize_bytes);
    if (rc == 0)
        rc = set_one(RLIMIT_NOFILE, r->nofile);
    if (rc == 0 && r->data_bytes)
        rc = set_one(RLIMIT_DATA, r->data_bytes);
    /* Since Linux 5.14 RLIMIT_NPROC counts per user namespace, so this caps the jail alone. */
    if (rc == 0 && r->nproc)
        rc = set_one(RLIMIT_NPROC, r->nproc);
    return rc;
}

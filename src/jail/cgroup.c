/* jail/cgroup.c: memory, pids and cpu limits through a cgroup owned by the sandbox handle,
 * created under the host process's own cgroup: v2 where the controllers are delegated to it,
 * else v1 (memory, pids, cpu hierarchies). When neither is writable, version stays 0 and
 * rlimit.c stands in. Counters are read after each run to tell an OOM kill or a pids denial. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "core/policy.h"
#include "jail/jail.h"
#include "util/alloc.h"

static const char *const v1_ctrls[3] = {"memory", "pids", "cpu"};

void sbx__jail_cgroup_init(struct sbx__jail_cgroup *cg)
{
    memset(cg, 0, sizeof(*cg));
    for (int i = 0; i < 3; i++)
        cg->attach_fds[i] = -1;
}

static int write_str(const char *dir, const char *file, const char *val)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = write(fd, val, strlen(val));
    int err = errno;
    close(fd);
    return n < 0 ? -err : 0;
}

/* Returns the value after "key " in a flat-keyed cgroup file, 0 if absent. */
static uint64_t read_key(const char *dir, const char *file, const char *key)
{
    char path[4096], buf[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    size_t klen = strlen(key);
    for (char *line = buf; line && *line;
         line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ' ')
            return strtoull(line + klen + 1, NULL, 10);
    }
    return 0;
}

/* Finds this process's path in the hierarchy named ctrl ("memory"; "" for v2). */
static char *self_path(const char *ctrl)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return NULL;
    char line[1024];
    char *out = NULL;
    while (!out && fgets(line, sizeof(line), f)) {
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        line[strcspn(line, "\n")] = '\0';
        c2[1 + strcspn(c2 + 1, "\n")] = '\0';
        bool match = ctrl[0] ? false : strcmp(c1 + 1, "") == 0;
        for (char *t = c1 + 1; ctrl[0] && t;) {
            size_t len = strcspn(t, ",");
            match |= strlen(ctrl) == len && strncmp(t, ctrl, len) == 0;
            t = t[len] ? t + len + 1 : NULL;
        }
        if (match)
            out = sbx__strdup(c2 + 1);
    }
    fclose(f);
    return out;
}

/* Removes sbx-<pid>-<n> cgroups whose creator is gone (a host that crashed or was killed before
 * dispose). A live pid, even a reused one, keeps its directories; so does any non-empty one. */
static void reap_stale(const char *parent)
{
    DIR *d = opendir(parent);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        char *end;
        if (strncmp(e->d_name, "sbx-", 4) != 0)
            continue;
        long pid = strtol(e->d_name + 4, &end, 10);
        if (pid <= 0 || *end != '-' || pid == getpid() || kill((pid_t)pid, 0) == 0 ||
            errno != ESRCH)
            continue;
        unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
    }
    if (d)
        closedir(d);
}

static char *make_dir(const char *mnt, const char *self)
{
    static _Atomic unsigned seq;
    char path[4096];
    unsigned n = atomic_fetch_add(&seq, 1);
    snprintf(path, sizeof(path), "%s%s", mnt, strcmp(self, "/") == 0 ? "" : self);
    reap_stale(path);
    size_t len = strlen(path);
    snprintf(path + len, sizeof(path) - len, "/sbx-%d-%u", (int)getpid(), n);
    if (mkdir(path, 0755) != 0)
        return NULL;
    return sbx__strdup(path);
}

static int open_attach(const char *dir, const char *file)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    return open(path, O_WRONLY | O_CLOEXEC);
}

static bool set_limits_v1(struct sbx__jail_cgroup *cg, const struct sbx_policy *p)
{
    char v[32];
    snprintf(v, sizeof(v), "%llu", (unsigned long long)p->memory_bytes);
    if (write_str(cg->dirs[0], "memory.limit_in_bytes", v) != 0)
        return false;
    write_str(cg->dirs[0], "memory.memsw.limit_in_bytes", v); /* absent without swap accounting */
    snprintf(v, sizeof(v), "%u", p->pids);
    if (write_str(cg->dirs[1], "pids.max", v) != 0)
        return false;
    if (p->cpu_percent < 100) {
        snprintf(v, sizeof(v), "%u", p->cpu_percent * 1000u);
        if (write_str(cg->dirs[2], "cpu.cfs_period_us", "100000") != 0 ||
            write_str(cg->dirs[2], "cpu.cfs_quota_us", v) != 0)
            return false;
    }
    return true;
}

static bool try_v1(struct sbx__jail_cgroup *cg, const struct sbx_policy *p)
{
    for (int i = 0; i < 3; i++) {
        char mnt[256];
        snprintf(mnt, sizeof(mnt), "/sys/fs/cgroup/%s", v1_ctrls[i]);
        char *self = self_path(v1_ctrls[i]);
        cg->dirs[i] = self ? make_dir(mnt, self) : NULL;
        sbx__free(self);
        if (!cg->dirs[i])
            return false;
        cg->attach_fds[i] = open_attach(cg->dirs[i], "tasks");
        if (cg->attach_fds[i] < 0)
            return false;
    }
    cg->version = 1;
    return set_limits_v1(cg, p);
}

static const char *v2_mount(void)
{
    static const char *const cands[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
    for (size_t i = 0; i < 2; i++) {
        struct statfs sf;
        if (statfs(cands[i], &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC)
            return cands[i];
    }
    return NULL;
}

static bool set_limits_v2(struct sbx__jail_cgroup *cg, const struct sbx_policy *p)
{
    char v[64];
    snprintf(v, sizeof(v), "%llu", (unsigned long long)p->memory_bytes);
    if (write_str(cg->dirs[0], "memory.max", v) != 0)
        return false;
    write_str(cg->dirs[0], "memory.swap.max", "0");
    snprintf(v, sizeof(v), "%u", p->pids);
    if (write_str(cg->dirs[0], "pids.max", v) != 0)
        return false;
    if (p->cpu_percent < 100) {
        snprintf(v, sizeof(v), "%u 100000", p->cpu_percent * 1000u);
        write_str(cg->dirs[0], "cpu.max", v); /* cpu may not be delegated: best effort */
    }
    return true;
}

/* Delegated means memory and pids are already enabled for our children (cgroups(7), "no
 * internal processes": we cannot enable them ourselves while we live in this cgroup). */
static bool try_v2(struct sbx__jail_cgroup *cg, const struct sbx_policy *p)
{
    const char *mnt = v2_mount();
    char *self = mnt ? self_path("") : NULL;
    if (!self)
        return false;
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s%s", mnt, strcmp(self, "/") == 0 ? "" : self);
    sbx__free(self);
    char buf[256] = "";
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int fd = dfd >= 0 ? openat(dfd, "cgroup.subtree_control", O_RDONLY | O_CLOEXEC) : -1;
    if (dfd >= 0)
        close(dfd);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    if (!strstr(buf, "memory") || !strstr(buf, "pids"))
        return false;
    cg->dirs[0] = make_dir(dir, "");
    if (!cg->dirs[0])
        return false;
    cg->attach_fds[0] = open_attach(cg->dirs[0], "cgroup.procs");
    cg->version = 2;
    return cg->attach_fds[0] >= 0 && set_limits_v2(cg, p);
}

void sbx__jail_cgroup_create(struct sbx__jail_cgroup *cg, const struct sbx_policy *p)
{
    if (getenv("SBX_JAIL_NO_CGROUP"))
        return; /* tests of the rlimit fallback */
    if (try_v2(cg, p))
        return;
    sbx__jail_cgroup_destroy(cg);
    if (try_v1(cg, p))
        return;
    sbx__jail_cgroup_destroy(cg);
}

/* Parent side, v2 only: moving another process takes cgroup_threadgroup_rwsem, whose RCU grace
 * period costs milliseconds, so it runs while the child builds its mounts. On v1 the child moves
 * itself through the tasks files (sbx__jail_cgroup_self_fds), which skips that lock. */
int sbx__jail_cgroup_attach(const struct sbx__jail_cgroup *cg, pid_t pid)
{
    char v[32];
    int len = snprintf(v, sizeof(v), "%d", (int)pid);
    for (int i = 0; i < 3 && cg->version == 2; i++) {
        if (cg->attach_fds[i] >= 0 && write(cg->attach_fds[i], v, (size_t)len) < 0)
            return -errno;
    }
    return 0;
}

void sbx__jail_cgroup_self_fds(const struct sbx__jail_cgroup *cg, int fds[3])
{
    for (int i = 0; i < 3; i++)
        fds[i] = cg->version == 1 ? cg->attach_fds[i] : -1;
}

void sbx__jail_cgroup_poll(struct sbx__jail_cgroup *cg, bool *is_oom, bool *is_pids_hit)
{
    *is_oom = *is_pids_hit = false;
    if (!cg->version)
        return;
    uint64_t ooms = cg->version == 2 ? read_key(cg->dirs[0], "memory.events", "oom_kill")
                                     : read_key(cg->dirs[0], "memory.oom_control", "oom_kill");
    uint64_t hits = read_key(cg->dirs[cg->version == 2 ? 0 : 1], "pids.events", "max");
    *is_oom = ooms > cg->oom_kills;
    *is_pids_hit = hits > cg->pids_max_hits;
    cg->oom_kills = ooms;
    cg->pids_max_hits = hits;
}

void sbx__jail_cgroup_destroy(struct sbx__jail_cgroup *cg)
{
    for (int i = 0; i < 3; i++) {
        if (cg->attach_fds[i] >= 0)
            close(cg->attach_fds[i]);
        cg->attach_fds[i] = -1;
        if (cg->dirs[i])
            rmdir(cg->dirs[i]);
        sbx__free(cg->dirs[i]);
        cg->dirs[i] = NULL;
    }
    cg->version = 0;
}

/* jail/backend.c: the process tier's vtable. A handle owns a temp root (0711, the per-run
 * directories under it), its cgroup and, once needed, the sealed sbx guest binary. A run plans
 * the jail (plan.c), starts it (spawn.c -> jail.c), supervises it (supervisor.c) and turns the
 * jail's report into the result. Nothing ever runs outside the jail: a missing kernel feature
 * fails the run with SANDBOX_UNAVAILABLE naming it. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>

#include "jail/guest.h"
#include "jail/jail.h"
#include "jail/plan.h"
#include "jail/run.h"
#include "util/alloc.h"

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

/* Removes temp roots of dead hosts ("sbx-jail-<pid>-XXXXXX", owned by us, 0711 so nobody else
 * can plant anything inside); a crash or kill before dispose leaves them behind. */
static void reap_stale(const char *tmp)
{
    DIR *d = opendir(tmp);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        char *end, path[PATH_MAX];
        struct stat st;
        if (strncmp(e->d_name, "sbx-jail-", 9) != 0)
            continue;
        long pid = strtol(e->d_name + 9, &end, 10);
        if (pid <= 0 || *end != '-' || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        snprintf(path, sizeof(path), "%s/%s", tmp, e->d_name);
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
    }
    if (d)
        closedir(d);
}

static bool is_tmpfs(const char *dir)
{
    struct statfs sf;
    return statfs(dir, &sf) == 0 && sf.f_type == TMPFS_MAGIC && access(dir, W_OK | X_OK) == 0;
}

/* $TMPDIR when set; else a tmpfs, /tmp or /dev/shm: on a journalling filesystem the temp root's
 * mkdir and rmdir wait on the journal, several ms per handle under load (what `sbx run` paid
 * for each command; docs/process.md, Cost). */
static const char *temp_base(void)
{
    const char *tmp = getenv("TMPDIR");
    if (tmp && tmp[0] == '/')
        return tmp;
    return is_tmpfs("/tmp") || !is_tmpfs("/dev/shm") ? "/tmp" : "/dev/shm";
}

static sbx_err jail_create(const struct sbx_policy *policy, void **tier_handle)
{
    if (access("/proc/self/ns/user", F_OK) != 0 || access("/proc/self/ns/pid", F_OK) != 0)
        return SBX_E_UNAVAILABLE;
    /* The seccomp filters are built by the first run, while its child sets up (run.c). */
    struct sbx__jail_handle *h = sbx__calloc(1, sizeof(*h));
    if (!h)
        return SBX_E_NOMEM;
    h->guest_fd = -1;
    sbx__jail_cgroup_init(&h->cg);
    const char *tmp = temp_base();
    reap_stale(tmp);
    char tmpl[PATH_MAX];
    snprintf(tmpl, sizeof(tmpl), "%s/sbx-jail-%d-XXXXXX", tmp, (int)getpid());
    h->temp_root = mkdtemp(tmpl) ? sbx__strdup(tmpl) : NULL;
    if (h->temp_root) {
        /* Search-only for others: the jail's child may run as host nobody and must reach
         * the root mount point and the run directory; names are random. */
        chmod(h->temp_root, 0711);
        size_t n = strlen(h->temp_root) + 8;
        h->root_dir = sbx__mallocn(n, 1);
        if (h->root_dir)
            snprintf(h->root_dir, n, "%s/root", h->temp_root);
    }
    if (!h->root_dir || mkdir(h->root_dir, 0755) != 0) {
        if (h->temp_root)
            rmdir(h->temp_root);
        sbx__free(h->temp_root);
        sbx__free(h->root_dir);
        sbx__free(h);
        return SBX_E_IO;
    }
    h->landlock_abi = sbx__jail_landlock_abi();
    sbx__jail_cgroup_create(&h->cg, policy);
    *tier_handle = h;
    return SBX_OK;
}

static void jail_dispose(void *tier_handle)
{
    struct sbx__jail_handle *h = tier_handle;
    if (!h)
        return;
    if (h->temp_root)
        nftw(h->temp_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    sbx__jail_cgroup_destroy(&h->cg);
    sbx__jail_close_fd(&h->guest_fd);
    sbx__free(h->temp_root);
    sbx__free(h->root_dir);
    sbx__free(h);
}

static sbx_err jail_open(struct sbx__run *run)
{
    const sbx_run_input *in = run->input;
    bool has_code = in->code != NULL, has_argv = in->argv && in->argv[0];
    if (has_code == has_argv || in->module)
        return SBX_E_INVALID_ARGUMENT;
    if (in->cwd && (in->cwd[0] != '/' || strlen(in->cwd) >= PATH_MAX))
        return SBX_E_INVALID_ARGUMENT; /* a jail path: absolute */
    struct sbx__jail_run *r = sbx__calloc(1, sizeof(*r));
    if (!r)
        return SBX_E_NOMEM;
    for (int i = 0; i < 4; i++)
        r->pipes[i][0] = r->pipes[i][1] = -1;
    r->sync[0] = r->sync[1] = r->status[0] = r->status[1] = r->pidfd = -1;
    r->spec.exec_fd = -1;
    r->spec.gate_fd = -1;
    r->gate_pair[0] = r->gate_pair[1] = -1;
    r->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    run->state = r;
    return r->event_fd >= 0 ? SBX_OK : SBX_E_IO;
}

static void jail_interrupt(struct sbx__run *run)
{
    struct sbx__jail_run *r = run->state;
    if (r && r->event_fd >= 0) {
        uint64_t one = 1;
        ssize_t n = write(r->event_fd, &one, sizeof(one));
        (void)n;
    }
}

static void jail_close(struct sbx__run *run)
{
    struct sbx__jail_run *r = run->state;
    if (!r)
        return;
    if (r->pidfd >= 0) {
        /* exec failed after the clone: never leave a jail behind. */
        syscall(SYS_pidfd_send_signal, r->pidfd, SIGKILL, NULL, 0);
        siginfo_t info;
        waitid((idtype_t)P_PIDFD, (id_t)r->pidfd, &info, WEXITED | __WALL);
        sbx__jail_close_fd(&r->pidfd);
    }
    for (int i = 0; i < 4; i++) {
        sbx__jail_close_fd(&r->pipes[i][0]);
        sbx__jail_close_fd(&r->pipes[i][1]);
    }
    sbx__jail_close_fd(&r->sync[0]);
    sbx__jail_close_fd(&r->sync[1]);
    sbx__jail_close_fd(&r->status[0]);
    sbx__jail_close_fd(&r->status[1]);
    sbx__jail_close_fd(&r->event_fd);
    sbx__jail_close_fd(&r->gate_pair[0]);
    sbx__jail_close_fd(&r->gate_pair[1]);
    if (r->has_gate)
        sbx__jail_gate_destroy(&r->gate);
    if (r->run_dir)
        sbx__jail_guest_unstage(r->run_dir);
    sbx__free(r->run_dir);
    sbx__jail_plan_free(&r->spec);
    sbx__free(r);
    run->state = NULL;
}

const struct sbx__backend sbx__backend_process = {
    .name = "process",
    .create = jail_create,
    .dispose = jail_dispose,
    .open = jail_open,
    .exec = sbx__jail_run_exec,
    .interrupt = jail_interrupt,
    .close = jail_close,
};

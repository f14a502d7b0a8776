/* jail/run.c: one run of the process tier: plan the jail, open its pipes, clone into it, write
 * its id maps and cgroup while it waits, let it go, supervise it, then read its report into the
 * result. The host's id maps come from here: the caller's own ids, or nobody for root. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail/guest.h"
#include "jail/plan.h"
#include "jail/run.h"
#include "util/alloc.h"

/* Set once this process has built the seccomp filters (see send_filters). */
static _Atomic bool filters_ready;

void sbx__jail_close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static sbx_err stage_script(struct sbx__jail_handle *h, struct sbx__jail_run *r,
                            const struct sbx__run *run, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/run-%u", h->temp_root, h->run_seq++);
    r->run_dir = sbx__strdup(dir);
    if (!r->run_dir)
        return SBX_E_NOMEM;
    sbx_err e = sbx__jail_guest_stage(r->run_dir, run, r->guest_argv, err, errlen);
    if (e) {
        sbx__free(r->run_dir); /* stage removed nothing it did not create */
        r->run_dir = NULL;
        return e;
    }
    if (!sbx__jail_guest_is_js(run->input->interpreter))
        return SBX_OK;
    if (h->guest_fd < 0)
        h->guest_fd = sbx__jail_guest_binary();
    if (h->guest_fd < 0) {
        snprintf(err, errlen, "sbx-js interpreter: no sbx guest binary (set SBX_GUEST_BINARY)");
        return SBX_E_UNAVAILABLE;
    }
    r->spec.exec_fd = h->guest_fd;
    return SBX_OK;
}

/* net.outbound: the broker's filter and the socketpair its listener arrives on (gate.c). What
 * this kernel or tier cannot enforce fails the run: it never gets more network than asked. */
static sbx_err prepare_gate(struct sbx__jail_run *r, const struct sbx_policy *p, char *err,
                            size_t errlen)
{
    if (p->outbound_count == 0)
        return SBX_OK;
    sbx_err e = sbx__jail_gate_check(p, err, errlen);
    if (e)
        return e;
    if (sbx__jail_gate_filter(&r->spec.gate_filter) != SBX_OK) {
        snprintf(err, errlen,
                 "policy.net.outbound: libseccomp could not build the connect filter "
                 "(SCMP_ACT_NOTIFY)");
        return SBX_E_UNAVAILABLE;
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->gate_pair) != 0) {
        snprintf(err, errlen, "socketpair: %s", strerror(errno));
        return SBX_E_IO;
    }
    r->spec.gate_fd = r->gate_pair[1];
    r->has_gate = true;
    bool is_ready = sbx__jail_gate_init(&r->gate, p, r->gate_pair[0]);
    r->gate_pair[0] = -1; /* the gate owns it now */
    if (!is_ready) {
        snprintf(err, errlen, "policy.net.outbound: the broker could not start (SO_NETNS_COOKIE)");
        return SBX_E_UNAVAILABLE;
    }
    return SBX_OK;
}

static sbx_err prepare(struct sbx__jail_handle *h, struct sbx__jail_run *r,
                       const struct sbx__run *run, char *err, size_t errlen)
{
    const struct sbx_policy *p = run->policy;
    struct sbx__jail_spec *s = &r->spec;
    sbx_err ce = prepare_gate(r, p, err, errlen);
    if (ce)
        return ce;
    bool is_root = geteuid() == 0;
    s->guest_uid = SBX__JAIL_GUEST_ID;
    s->guest_gid = SBX__JAIL_GUEST_ID;
    s->can_setgroups = is_root;
    s->is_self_mapped = !is_root;
    s->host_uid = is_root ? SBX__JAIL_NOBODY : geteuid();
    s->host_gid = is_root ? SBX__JAIL_NOBODY : getegid();
    s->has_cgroup = h->cg.version == 2;
    sbx__jail_cgroup_self_fds(&h->cg, s->cgroup_tasks_fds);
    s->root_dir = h->root_dir;
    s->net_loopback = p->net_loopback;
    s->landlock_abi = h->landlock_abi;
    s->rlimits.fsize_bytes = 1ull << 30;
    s->rlimits.nofile = 1024;
    if (h->cg.version == 0) {
        s->rlimits.data_bytes = p->memory_bytes;
        s->rlimits.nproc = p->pids;
    }
    s->has_late_filters = !atomic_load(&filters_ready) && !sbx__jail_seccomp_is_prebuilt();
    if (!s->has_late_filters && sbx__jail_seccomp_filters(s->filters) != SBX_OK) {
        snprintf(err, errlen, "seccomp: libseccomp could not build the filter");
        return SBX_E_UNAVAILABLE;
    }
    const char *const *argv = run->input->argv;
    if (run->input->code) {
        sbx_err e = stage_script(h, r, run, err, errlen);
        if (e)
            return e;
        argv = r->guest_argv;
    }
    sbx__jail_plan_title(s);
    sbx_err e = sbx__jail_plan_fs(s, p, r->run_dir, err, errlen);
    if (!e && run->input->cwd && !(s->cwd = sbx__strdup(run->input->cwd)))
        e = SBX_E_NOMEM;
    return e ? e : sbx__jail_plan_exec(s, p, argv);
}

static bool make_pipe(int fds[2], int nonblock_end)
{
    if (pipe2(fds, O_CLOEXEC) != 0)
        return false;
    if (nonblock_end >= 0)
        fcntl(fds[nonblock_end], F_SETFL, O_NONBLOCK);
    return true;
}

/* Pass-through: the guest inherits the host's fds 0-2, except a terminal, which it gets as a
 * fresh pty (tty.c). */
static sbx_err open_stdio(struct sbx__jail_run *r, const sbx_run_input *in, sbx_result *out)
{
    char err[256];
    if (!in->inherit_stdio)
        return SBX_OK;
    sbx_err e = sbx__jail_tty_open(&r->tty, r->spec.stdio, err, sizeof(err));
    if (e)
        sbx__result_fail(out, e, "%s", err);
    return e;
}

static bool open_pipes(struct sbx__jail_run *r, const sbx_run_input *in)
{
    struct sbx__jail_spec *s = &r->spec;
    bool needs_sync = !s->is_self_mapped || s->has_cgroup || s->has_late_filters;
    if ((needs_sync && !make_pipe(r->sync, -1)) || !make_pipe(r->status, 0))
        return false;
    s->sync_fd = r->sync[0];
    s->status_fd = r->status[1];
    s->stdio[0] = s->stdio[1] = s->stdio[2] = s->result_fd = -1;
    if (!in->inherit_stdio) {
        if (!make_pipe(r->pipes[0], 1) || !make_pipe(r->pipes[1], 0) || !make_pipe(r->pipes[2], 0))
            return false;
        s->stdio[0] = r->pipes[0][0];
        s->stdio[1] = r->pipes[1][1];
        s->stdio[2] = r->pipes[2][1];
    }
    if (s->exec_fd >= 0) {
        if (!make_pipe(r->pipes[3], 0))
            return false;
        s->result_fd = r->pipes[3][1];
    }
    return true;
}

/* The process's first run builds the filters (libseccomp, ~1 ms) after the clone, while the
 * child makes its mounts, and sends them down the sync pipe; later runs find them built. */
static sbx_err send_filters(struct sbx__jail_run *r, sbx_result *out)
{
    struct sbx__jail_bpf *f = r->spec.filters;
    if (sbx__jail_seccomp_filters(f) != SBX_OK) {
        sbx__result_fail(out, SBX_E_UNAVAILABLE, "seccomp: libseccomp could not build the filter");
        return SBX_E_UNAVAILABLE;
    }
    atomic_store(&filters_ready, true);
    struct sbx__jail_late_bpf hdr = {{f[0].count, f[1].count}};
    const void *parts[3] = {&hdr, f[0].insns, f[1].insns};
    size_t lens[3] = {sizeof(hdr), f[0].count * sizeof(struct sock_filter),
                      f[1].count * sizeof(struct sock_filter)};
    for (int i = 0; i < 3; i++) {
        /* A few KiB into an empty pipe: never blocks. EPIPE: the child failed; its report says. */
        ssize_t n = sbx__jail_write_nosig(r->sync[1], parts[i], lens[i]);
        if (n < 0 && errno == EPIPE)
            return SBX_OK;
        if (n != (ssize_t)lens[i]) {
            sbx__result_fail(out, SBX_E_IO, "seccomp: sending the filter: %s",
                             n < 0 ? strerror(errno) : "short write");
            return SBX_E_IO;
        }
    }
    return SBX_OK;
}

/* A root host writes the child's id maps (only it may map to nobody); an unprivileged child maps
 * itself. Then the cgroup attach, slow on v1, overlaps the child's mount work. */
static sbx_err start(struct sbx__jail_handle *h, struct sbx__jail_run *r, sbx_result *out)
{
    pid_t pid = sbx__jail_spawn(&r->spec, &r->pidfd);
    if (pid < 0) {
        sbx__result_fail(out, SBX_E_UNAVAILABLE,
                         "clone3 into new user/pid/mount/ipc/uts/net namespaces: %s",
                         strerror(-pid));
        return SBX_E_UNAVAILABLE;
    }
    r->pid = pid;
    sbx__jail_tty_started(&r->tty);
    int *child_ends[] = {&r->sync[0],     &r->status[1],   &r->pipes[0][0], &r->pipes[1][1],
                         &r->pipes[2][1], &r->pipes[3][1], &r->gate_pair[1]};
    for (size_t i = 0; i < sizeof(child_ends) / sizeof(child_ends[0]); i++)
        sbx__jail_close_fd(child_ends[i]);
    if (!r->spec.is_self_mapped) {
        int rc = sbx__jail_userns_write_maps(pid, r->spec.host_uid, r->spec.host_gid, false);
        if (rc || sbx__jail_write_nosig(r->sync[1], "m", 1) != 1) {
            sbx__result_fail(out, SBX_E_UNAVAILABLE, "user namespace: writing id maps: %s",
                             strerror(rc ? -rc : errno));
            return SBX_E_UNAVAILABLE;
        }
    }
    if (r->spec.has_cgroup) {
        /* ESRCH, EPIPE: the child already failed; the supervisor reads its report. */
        int rc = sbx__jail_cgroup_attach(&h->cg, pid);
        if (rc == -ESRCH)
            rc = 0;
        if (rc || (sbx__jail_write_nosig(r->sync[1], "g", 1) != 1 && errno != EPIPE)) {
            sbx__result_fail(out, SBX_E_IO, "cgroup: attaching the jail: %s",
                             strerror(rc ? -rc : errno));
            return SBX_E_IO;
        }
    }
    sbx_err e = r->spec.has_late_filters ? send_filters(r, out) : SBX_OK;
    sbx__jail_close_fd(&r->sync[1]);
    return e;
}

static sbx_err exec_run(struct sbx__jail_handle *h, struct sbx__jail_run *r, struct sbx__run *run,
                        sbx_result *out)
{
    char err[512] = "";
    sbx_err e = prepare(h, r, run, err, sizeof(err));
    if (e) {
        sbx__result_fail(out, e, "%s", err[0] ? err : sbx_err_message(e));
        return e;
    }
    if (!open_pipes(r, run->input)) {
        sbx__result_fail(out, SBX_E_IO, "pipe: %s", strerror(errno));
        return SBX_E_IO;
    }
    e = open_stdio(r, run->input, out);
    if (!e)
        e = start(h, r, out);
    return e ? e : sbx__jail_outcome(h, r, run, out);
}

/* Every way out puts the host's terminal and stdio flags back. */
sbx_err sbx__jail_run_exec(struct sbx__run *run, sbx_result *out)
{
    struct sbx__jail_run *r = run->state;
    sbx__jail_tty_init(&r->tty);
    sbx_err e = exec_run(run->tier_handle, r, run, out);
    sbx__jail_tty_close(&r->tty);
    return e;
}

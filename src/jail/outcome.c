/* jail/outcome.c: from a started jail to a result. The supervisor runs the jail to its end;
 * then the report of its init (setup failure, exec failure, or the guest's wait status), the
 * cgroup counters (OOM kill, pids denial), the deadline and the sbx-js records decide ok, error,
 * limit, exit code and signal. A setup failure is a host failure: SANDBOX_UNAVAILABLE. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail/guest.h"
#include "jail/run.h"
#include "util/alloc.h"

static unsigned enforced_bits(const struct sbx__jail_handle *h)
{
    unsigned bits = SBX_ENFORCED_SECCOMP | SBX_ENFORCED_NETNS;
    if (h->landlock_abi > 0)
        bits |= SBX_ENFORCED_LANDLOCK;
    if (h->cg.version == 2)
        bits |= SBX_ENFORCED_CGROUP_V2;
    else if (h->cg.version == 1)
        bits |= SBX_ENFORCED_CGROUP_V1;
    else
        bits |= SBX_ENFORCED_RLIMIT;
    return bits;
}

static sbx_err setup_failed(const struct sbx__jail_run *r, const struct sbx__jail_report *rep,
                            sbx_result *out)
{
    const char *what = "";
    size_t skip = strlen(r->spec.root_dir);
    if (rep->stage == SBX__STAGE_MOUNT && rep->detail >= 0 &&
        (size_t)rep->detail < r->spec.mount_count) {
        const struct sbx__jail_mount *m = &r->spec.mounts[rep->detail];
        what = m->dst + skip;
        if (m->is_grant && rep->err == ELOOP) {
            /* The host path, or the grant's place inside another grant, became a symlink. */
            sbx__result_fail(out, SBX_E_INVALID_OPTIONS,
                             "policy.fs grant %s -> %s: a symlink on its way is never followed",
                             m->src, what);
            return SBX_E_INVALID_OPTIONS;
        }
        if (m->is_grant && (rep->err == EACCES || rep->err == EPERM || rep->err == ENOTDIR)) {
            /* The grant's host path is unreachable for the jail's host id: a policy error. */
            sbx__result_fail(out, SBX_E_INVALID_OPTIONS,
                             "policy.fs grant %s -> %s: %s (the jail reaches it as host uid %u)",
                             m->src, what, strerror(rep->err), (unsigned)r->spec.host_uid);
            return SBX_E_INVALID_OPTIONS;
        }
    }
    sbx__result_fail(out, SBX_E_UNAVAILABLE, "jail setup failed at %s%s%s: %s",
                     sbx__jail_stage_name(rep->stage), what[0] ? " " : "", what,
                     strerror(rep->err));
    return SBX_E_UNAVAILABLE;
}

static void guest_exited(int ws, sbx_result *out)
{
    if (WIFEXITED(ws)) {
        out->exit_code = WEXITSTATUS(ws);
        out->ok = out->exit_code == 0;
        if (!out->ok)
            sbx__result_fail(out, SBX_E_EXECUTION_FAILED, "guest exited with status %d",
                             out->exit_code);
    } else if (WIFSIGNALED(ws)) {
        out->exit_code = -1;
        out->signal = WTERMSIG(ws);
        sbx__result_fail(out, SBX_E_EXECUTION_FAILED, "guest was killed by signal %d (%s)",
                         out->signal, strsignal(out->signal));
    }
}

/* The order is the priority: abort, timeout, OOM of the guest, setup, exec, the guest's own
 * status. An OOM kill of another process of the run is applied after (oom_elsewhere). */
static sbx_err classify(const struct sbx__jail_run *r, const struct sbx__run *run,
                        const struct sbx__jail_watch *w, bool is_oom, sbx_result *out)
{
    out->exit_code = -1;
    if (w->is_aborted) {
        sbx__result_fail(out, SBX_E_ABORTED, "run was aborted by the host");
    } else if (w->is_timeout) {
        out->limit = SBX_LIMIT_TIMEOUT;
        out->signal = SIGKILL;
        sbx__result_fail(out, SBX_E_TIMEOUT, "run exceeded its time limit of %u ms",
                         run->policy->timeout_ms);
    } else if (is_oom) {
        out->limit = SBX_LIMIT_MEMORY;
        out->signal = SIGKILL;
        sbx__result_fail(out, SBX_E_MEMORY_LIMIT, "guest exceeded its memory limit of %llu bytes",
                         (unsigned long long)run->policy->memory_bytes);
    } else if (w->has_report && w->report.kind == SBX__REPORT_SETUP) {
        return setup_failed(r, &w->report, out);
    } else if (w->has_report && w->report.kind == SBX__REPORT_EXEC && w->report.err < 0) {
        out->exit_code = 126; /* jail.c exec_guest: chdir(input->cwd) failed */
        sbx__result_fail(out, SBX_E_EXECUTION_FAILED, "cannot enter the working directory '%s': %s",
                         r->spec.cwd ? r->spec.cwd : "/", strerror(-w->report.err));
    } else if (w->has_report && w->report.kind == SBX__REPORT_EXEC) {
        out->exit_code = w->report.err == ENOENT ? 127 : 126;
        sbx__result_fail(out, SBX_E_EXECUTION_FAILED, "cannot execute '%s': %s", r->spec.argv[0],
                         strerror(w->report.err));
    } else if (w->has_report && w->report.kind == SBX__REPORT_EXITED) {
        guest_exited(w->report.wstatus, out);
    } else {
        sbx__result_fail(out, SBX_E_EXECUTION_FAILED, "the jail's init ended without a report");
    }
    return SBX_OK;
}

/* The guest exited on its own, but the cgroup killed some process of the run (a child that
 * allocated past the cap): the run hit its memory limit, whatever the guest's status says. */
static void oom_elsewhere(const struct sbx__run *run, sbx_result *out)
{
    out->limit = SBX_LIMIT_MEMORY;
    out->error = SBX_OK; /* the cause replaces "guest exited with status N" */
    sbx__result_fail(out, SBX_E_MEMORY_LIMIT,
                     "a process of the run was killed at the memory limit of %llu bytes "
                     "(the guest exited with status %d)",
                     (unsigned long long)run->policy->memory_bytes, out->exit_code);
}

static void fill_watch(struct sbx__jail_watch *w, struct sbx__jail_run *r,
                       const struct sbx__run *run)
{
    memset(w, 0, sizeof(*w));
    w->pid = r->pid;
    w->pidfd = r->pidfd;
    w->status_fd = r->status[0];
    w->stdin_fd = r->pipes[0][1];
    w->out_fds[0] = r->pipes[1][0];
    w->out_fds[1] = r->pipes[2][0];
    w->result_fd = r->pipes[3][0];
    w->event_fd = r->event_fd;
    w->tty = r->tty.master >= 0 || r->tty.relay_out >= 0 ? &r->tty : NULL;
    w->gate = r->has_gate ? &r->gate : NULL;
    const char *ctx = run->input->context_json;
    if (run->input->code && !ctx)
        ctx = "null";
    w->stdin_data = ctx;
    w->stdin_len = ctx ? strlen(ctx) : 0;
    w->deadline_ns = run->deadline_ns + (r->spec.exec_fd >= 0 ? JS_GRACE_NS : 0);
    w->max_output = (size_t)run->policy->max_output_bytes;
    if (!run->input->inherit_stdio) {
        w->on_output = run->input->on_output;
        w->on_output_user = run->input->on_output_user;
    }
}

sbx_err sbx__jail_outcome(struct sbx__jail_handle *h, struct sbx__jail_run *r,
                          const struct sbx__run *run, sbx_result *out)
{
    struct sbx__jail_watch w;
    fill_watch(&w, r, run);
    struct sbx__buf result;
    sbx__buf_init(&result, (size_t)run->policy->max_output_bytes * 2 + (1u << 20));
    sbx_err e =
        sbx__jail_supervise(&w, &run->interrupt_reason, out, r->spec.exec_fd >= 0 ? &result : NULL);
    r->pipes[0][1] = -1; /* the supervisor closed stdin */
    if (r->has_gate)
        sbx__jail_gate_denials(&r->gate, out);
    if (e) {
        sbx__buf_free(&result);
        return e;
    }
    sbx__jail_close_fd(&r->pidfd);
    out->enforced = enforced_bits(h);
    bool is_oom, is_pids_hit;
    sbx__jail_cgroup_poll(&h->cg, &is_oom, &is_pids_hit);
    bool is_clean_exit =
        w.has_report && w.report.kind == SBX__REPORT_EXITED && WIFEXITED(w.report.wstatus);
    e = classify(r, run, &w, is_oom && !is_clean_exit, out);
    if (e == SBX_OK && is_oom && is_clean_exit)
        oom_elsewhere(run, out);
    /* sbx-js records count only from a guest that also exited 0. */
    if (e == SBX_OK && r->spec.exec_fd >= 0 && out->ok &&
        !sbx__jail_guest_apply_result(result.data, result.len, out))
        sbx__result_fail(out, SBX_E_EXECUTION_FAILED, "sbx-js guest sent no result");
    sbx__buf_free(&result);
    if (is_pids_hit && out->limit == SBX_LIMIT_NONE) {
        out->limit = SBX_LIMIT_PIDS;
        if (!out->ok && out->error == SBX_E_EXECUTION_FAILED)
            out->error = SBX_E_PIDS_LIMIT;
    }
    if ((out->stdout_truncated || out->stderr_truncated) && out->limit == SBX_LIMIT_NONE)
        out->limit = SBX_LIMIT_OUTPUT;
    return e;
}

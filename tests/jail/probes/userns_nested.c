/* No nested namespaces: unshare, clone with CLONE_NEW*, and clone3 (which hides its flags). */
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

static long raw_clone(unsigned long flags)
{
    long pid = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0)
        _exit(0);
    if (pid > 0)
        waitpid((pid_t)pid, NULL, 0);
    return pid;
}

int main(void)
{
    int rc = probe_expect_denied(unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)");
    rc = probe_merge(rc, probe_expect_denied(unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)"));
    rc = probe_merge(rc, probe_expect_denied(raw_clone(CLONE_NEWUSER), "clone(CLONE_NEWUSER)"));
    rc = probe_merge(rc, probe_expect_denied(raw_clone(CLONE_NEWNET), "clone(CLONE_NEWNET)"));
    uint64_t args[11] = {CLONE_NEWUSER, 0, 0, 0, SIGCHLD, 0, 0, 0, 0, 0, 0};
    long pid = syscall(SYS_clone3, args, 88);
    if (pid == 0)
        _exit(0);
    rc = probe_merge(rc, probe_expect_denied(pid, "clone3(CLONE_NEWUSER)"));
    rc = probe_merge(rc, probe_expect_denied(setns(0, 0), "setns"));
    return rc;
}

/* ptrace in every form is denied by seccomp: TRACEME, ATTACH and SEIZE of a sibling. */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

/* TRACEME in a child of its own, so a host-side control run does not trace the probe. */
static int traceme(void)
{
    pid_t child = fork();
    if (child == 0)
        _exit(probe_expect_denied(ptrace(PTRACE_TRACEME, 0, NULL, NULL), "PTRACE_TRACEME"));
    int st = 0;
    waitpid(child, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : PROBE_SKIP;
}

int main(void)
{
    int rc = traceme();
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    rc = probe_merge(
        rc, probe_expect_denied(ptrace(PTRACE_ATTACH, child, NULL, NULL), "PTRACE_ATTACH sibling"));
    rc = probe_merge(
        rc, probe_expect_denied(ptrace(PTRACE_SEIZE, child, NULL, NULL), "PTRACE_SEIZE sibling"));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return rc;
}

/* The x32 system call ABI cannot bypass the x86_64 filter: a call with the x32 bit
 * (nr | 0x40000000) must be killed or refused, never reach mount(2). The attempt runs in a
 * child, since the filter's answer to a foreign ABI is SIGSYS. */
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        static char none[] = "none", tmp[] = "/tmp", fs[] = "tmpfs";
        long rc = syscall(0x40000000L | SYS_mount, none, tmp, fs, 0, 0);
        _exit(probe_expect_denied(rc, "x32 mount"));
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS) {
        printf("blocked: x32 mount: killed by SIGSYS\n");
        return PROBE_BLOCKED;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : PROBE_ESCAPED;
}

/* The compat system call ABIs cannot bypass the x86_64 filter: an x32 call (nr | 0x40000000)
 * and an i386 `int $0x80` call must be killed or refused, never reach mount(2)/ptrace(2). Each
 * attempt runs in a child, since the filter's answer to a foreign ABI is SIGSYS. */
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

static long int80(long nr, long a, long b, long c)
{
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
    return ret;
}

static int in_child(int which, const char *what)
{
    pid_t pid = fork();
    if (pid == 0) {
        static char none[] = "none", tmp[] = "/tmp", fs[] = "tmpfs";
        long rc;
        if (which == 0)
            rc = syscall(0x40000000L | SYS_mount, none, tmp, fs, 0, 0);
        else /* i386 mount is 21; pointers above 4 GiB are truncated, so pass NULLs */
            rc = int80(21, 0, 0, 0);
        if (rc < 0 && which == 1)
            errno = (int)-rc;
        _exit(probe_expect_denied(rc < 0 ? -1 : rc, what));
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS) {
        printf("blocked: %s: killed by SIGSYS\n", what);
        return PROBE_BLOCKED;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : PROBE_ESCAPED;
}

int main(void)
{
    return probe_merge(in_child(0, "x32 mount"), in_child(1, "i386 int 0x80 mount"));
}

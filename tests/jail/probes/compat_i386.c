/* The i386 system call ABI (`int $0x80`) cannot bypass the x86_64 filter: its mount(2) must be
 * killed (SIGSYS) or refused. A kernel without IA32 emulation (CONFIG_IA32_EMULATION=n, or
 * ia32_emulation=0 on the command line) has no such ABI: `int $0x80` faults (SIGSEGV) with or
 * without a jail. That is not an escape, nor a defence of the jail's: the probe says 77, and the
 * driver's control decides. `compat_i386 --control` runs unjailed a harmless i386 getpid(2): exit
 * 1 when the kernel answers (the ABI exists: a jail must block it), 77 when it faults (#23 item 7).
 * Each attempt runs in a child. */
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

#define I386_MOUNT  21
#define I386_GETPID 20

static long int80(long nr, long a, long b, long c)
{
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
    return ret;
}

/* Runs the call in a child; returns its verdict, or -signal when it was killed. */
static int in_child(bool is_control)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (is_control) {
            long got = int80(I386_GETPID, 0, 0, 0);
            printf("control: i386 getpid gave %ld (pid %d)\n", got, (int)getpid());
            _exit(got == getpid() ? PROBE_ESCAPED : PROBE_SKIP);
        }
        /* pointers above 4 GiB are truncated, so pass NULLs */
        long rc = int80(I386_MOUNT, 0, 0, 0);
        if (rc < 0)
            errno = (int)-rc;
        _exit(probe_expect_denied(rc < 0 ? -1 : rc, "i386 int 0x80 mount"));
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFSIGNALED(st) ? -WTERMSIG(st) : WIFEXITED(st) ? WEXITSTATUS(st) : PROBE_ESCAPED;
}

int main(int argc, char **argv)
{
    bool is_control = argc > 1 && strcmp(argv[1], "--control") == 0;
    int v = in_child(is_control);
    if (v == -SIGSEGV) {
        printf("no i386 ABI: int 0x80 faults (SIGSEGV): this kernel has no IA32 emulation\n");
        return PROBE_SKIP;
    }
    if (is_control)
        return v == PROBE_ESCAPED ? PROBE_ESCAPED : 2; /* 2: the control itself went wrong */
    if (v == -SIGSYS) {
        printf("blocked: i386 int 0x80 mount: killed by SIGSYS\n");
        return PROBE_BLOCKED;
    }
    return v < 0 ? PROBE_ESCAPED : v;
}

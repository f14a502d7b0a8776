/* jail/spawn.c: clone3 into new user, pid, mount, ipc, uts and network namespaces with a pidfd.
 * No CLONE_VM: the child is fork-like, a copy of this one thread, and goes straight into the
 * pipeline (jail.c). exit_signal 0 keeps a host's SIGCHLD handler or waitpid(-1) from reaping it;
 * only waitid(P_PIDFD, __WALL) does. The cgroup namespace is entered after the cgroup attach. */
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail/jail.h"

pid_t sbx__jail_spawn(const struct sbx__jail_spec *spec, int *pidfd)
{
    struct clone_args args;
    memset(&args, 0, sizeof(args));
    args.flags = CLONE_PIDFD | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC |
                 CLONE_NEWUTS | CLONE_NEWNET;
    args.pidfd = (uint64_t)(uintptr_t)pidfd;
    args.exit_signal = 0;
    long pid = syscall(SYS_clone3, &args, sizeof(args));
    if (pid < 0)
        return -errno;
    if (pid == 0)
        sbx__jail_child_main(spec);
    return (pid_t)pid;
}

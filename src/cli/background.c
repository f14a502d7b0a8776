/* cli/background.c: the upgrade of a module's kept hot code after `sbx wasm` (docs/wasm.md,
 * "The upgrade"), off the run's clock: `sbx compile --hot PATH` in a process of its own that
 * outlives the run. The run's exit waits only for one fork (the intermediate child exits at
 * once, so no zombie and no wait). The upgrade runs at idle priority (SCHED_IDLE, nice 19: any
 * other work on the machine goes first), bounded by RLIMIT_CPU, in its own session, with
 * nothing of the run's open (a reader of the run's output sees its end when the run ends). */
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

#define UPGRADE_CPU_S 120 /* the largest hot set measured (bzip2's) took 5 s */

static void become_upgrader(const char *abs)
{
    struct sched_param none = {0};
    struct rlimit cpu = {UPGRADE_CPU_S, UPGRADE_CPU_S};
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
        _exit(1);
    close_range(3, ~0u, 0);
    if (setpriority(PRIO_PROCESS, 0, 19) != 0 || sched_setscheduler(0, SCHED_IDLE, &none) != 0 ||
        setrlimit(RLIMIT_CPU, &cpu) != 0)
        _exit(1);
    char *argv[] = {"sbx", "compile", "--hot", (char *)abs, NULL};
    execv("/proc/self/exe", argv);
    _exit(1);
}

void cli_upgrade_in_background(const char *path)
{
    char abs[PATH_MAX];
    if (!realpath(path, abs))
        return;
    pid_t pid = fork();
    if (pid == 0) {
        if (setsid() < 0)
            _exit(1);
        pid_t grandchild = fork();
        if (grandchild == 0)
            become_upgrader(abs);
        _exit(grandchild < 0);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

/* Signals cannot reach host processes: argv[1] = a host pid (the driver's). kill(-1) only
 * reaches the jail's own processes (the probe survives it only because it is signal 0). */
#include <signal.h>
#include <unistd.h>

#include "probe.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return PROBE_SKIP;
    pid_t host = (pid_t)strtol(argv[1], NULL, 10);
    int rc = probe_expect_fail(kill(host, 0), "kill(host pid, 0)");
    rc = probe_merge(rc, probe_expect_fail(kill(host, SIGCONT), "kill(host pid, SIGCONT)"));
    if (getppid() == 0 || getpid() < 16)
        printf("blocked: pid %d in the jail's own pid namespace\n", (int)getpid());
    else
        rc = probe_merge(rc, PROBE_ESCAPED);
    return rc;
}

/* tests/unit/js/run_delay.h: the calling thread's wait for a CPU, for timing bounds that a
 * loaded host must not break by itself. */
#ifndef SBX_TEST_RUN_DELAY_H
#define SBX_TEST_RUN_DELAY_H

#include <stdio.h>

/* How long the calling thread has waited, ready to run, while the host ran others (ms): the
 * run_delay of /proc/thread-self/schedstat; 0 where the kernel does not keep it. A bound on how
 * soon a caller is back subtracts what a loaded host added this way, and only that: time the
 * caller slept (waiting for an engine, a deadline) still counts. */
static inline double sbx_test_run_delay_ms(void)
{
    unsigned long long cpu_ns = 0, wait_ns = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%llu %llu", &cpu_ns, &wait_ns) != 2)
        wait_ns = 0;
    fclose(f);
    return (double)wait_ns / 1e6;
}

#endif

/* tests/jail/probes/probe.h: shared by the escape probes. Each probe is one attempt to get out;
 * it exits 0 when the jail blocked it, 1 when it escaped, 77 when it cannot tell (skip). */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_BLOCKED 0
#define PROBE_ESCAPED 1
#define PROBE_SKIP    77

/* Reports an attempt that must fail: rc < 0 (errno set) is blocked, anything else escaped. */
static inline int probe_expect_fail(long rc, const char *what)
{
    if (rc < 0) {
        printf("blocked: %s: %s\n", what, strerror(errno));
        return PROBE_BLOCKED;
    }
    printf("ESCAPED: %s succeeded (%ld)\n", what, rc);
    return PROBE_ESCAPED;
}

/* Reports a system call the seccomp filter must deny: only EPERM, ENOSYS or EACCES count as
 * blocked; any other failure means the call reached the kernel proper. */
static inline int probe_expect_denied(long rc, const char *what)
{
    if (rc < 0 && (errno == EPERM || errno == ENOSYS || errno == EACCES)) {
        printf("blocked: %s: %s\n", what, strerror(errno));
        return PROBE_BLOCKED;
    }
    printf("ESCAPED: %s reached the kernel (rc %ld, %s)\n", what, rc,
           rc < 0 ? strerror(errno) : "ok");
    return PROBE_ESCAPED;
}

/* Combines results: any escape wins, then any block, else skip. */
static inline int probe_merge(int a, int b)
{
    if (a == PROBE_ESCAPED || b == PROBE_ESCAPED)
        return PROBE_ESCAPED;
    if (a == PROBE_BLOCKED || b == PROBE_BLOCKED)
        return PROBE_BLOCKED;
    return PROBE_SKIP;
}

#endif

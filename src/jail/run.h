/* jail/run.h: the process tier's handle and per-run state, shared by backend.c (lifecycle) and
 * run.c (one run from plan to result). */
#ifndef SBX_JAIL_RUN_H
#define SBX_JAIL_RUN_H

#include "jail/gate.h"
#include "jail/jail.h"
#include "jail/tty.h"

/* sbx-js guests get this much past the deadline to report their own (identical) timeout. */
#define JS_GRACE_NS (250ull * 1000000ull)

struct sbx__jail_handle {
    char *temp_root;
    char *root_dir;
    unsigned run_seq;
    struct sbx__jail_cgroup cg;
    int guest_fd; /* sealed memfd of sbx, -1 until the first sbx-js run */
    int landlock_abi;
};

struct sbx__jail_run {
    struct sbx__jail_spec spec;
    char *run_dir;
    const char *guest_argv[8];
    int event_fd;
    int pipes[4][2]; /* stdin, stdout, stderr, result: [0] read end, [1] write end */
    int sync[2];
    int status[2];
    int pidfd;
    pid_t pid;
    struct sbx__jail_tty tty; /* pass-through stdio: the pty relay and the saved fd flags */
    int gate_pair[2];         /* net.outbound: [0] the broker's end, [1] the child's */
    bool has_gate;
    struct sbx__jail_gate gate;
};

/* Closes *fd if open and sets it to -1. */
void sbx__jail_close_fd(int *fd);

/* The vtable's exec: plans, starts and supervises one run, and fills out. */
sbx_err sbx__jail_run_exec(struct sbx__run *run, sbx_result *out);

/* outcome.c: supervises the started jail and turns its report into the result. */
sbx_err sbx__jail_outcome(struct sbx__jail_handle *h, struct sbx__jail_run *r,
                          const struct sbx__run *run, sbx_result *out);

#endif

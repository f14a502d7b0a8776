/* core/exit.h: the process's exit, in one place with an explicit order. What libsbx must do
 * before libc runs the other exit handlers and library destructors (libLLVM's) is a list of
 * steps run by one handler, in step order. Coverage builds (make coverage) are known here only:
 * their extra steps (threads held still while libgcov writes the counters) and their counter
 * dumps for processes that leave by _exit (the jail's child). */
#ifndef SBX_CORE_EXIT_H
#define SBX_CORE_EXIT_H

#include <stdbool.h>

enum sbx__exit_step {
    SBX__EXIT_STOP_COMPILES,  /* wasm: no use of LLVM under exit() (jit/quiesce.c) */
    SBX__EXIT_PARK_JS_POOL,   /* coverage: JS pool threads parked or joined (js/worker.c) */
    SBX__EXIT_HOLD_WATCHDOGS, /* coverage: every wasm watchdog's lock held (plugin/watchdog.c) */
    SBX__EXIT_STEPS
};

/* Runs fn at exit as step (one function per step; the last registration wins). Each call
 * registers the one handler with atexit(3) again, so it runs before every exit handler and
 * destructor registered until then (a library loaded later, LLVM's lazily registered
 * destructors); the handler runs the steps once, in order. Any thread. */
void sbx__exit_at(enum sbx__exit_step step, void (*fn)(void));

/* Whether this build writes coverage counters (make coverage): the steps and waits only such a
 * build needs are taken then. */
bool sbx__exit_counts_coverage(void);

/* Writes this process's counters now (coverage builds; a no-op otherwise), for a process that
 * is about to leave by _exit. */
void sbx__exit_dump_counters(void);

/* The jail's child (no allocation, no locks): before it detaches from the host's tree, opens
 * the host's root at fd so its counters can be dumped there later (coverage builds; otherwise
 * nothing); dump writes them (until Landlock forbids it); end dumps and closes the fd. */
void sbx__exit_child_begin(int fd);
void sbx__exit_child_dump(void);
void sbx__exit_child_end(void);

#endif

/* jail/tty.h: pass-through stdio without lending the host's terminal. Where a host stdio fd is a
 * terminal the guest gets the slave of a fresh pty instead, and the supervisor relays between
 * its master and the host terminal (as `docker run -t` does); the guest can change only that
 * pty. The file status flags of fds 0-2 are put back after the run. */
#ifndef SBX_JAIL_TTY_H
#define SBX_JAIL_TTY_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

#include "core/backend.h"

#define SBX__TTY_BUF 4096

/* One direction of the relay: bytes read from src wait in buf until dst takes them. */
struct sbx__tty_pipe {
    int src, dst;
    char buf[SBX__TTY_BUF];
    size_t len;
};

struct sbx__jail_tty {
    int master;        /* the pty's master, -1 with pipes or when no stdio fd is a terminal */
    int relay_in;      /* the relay writes keystrokes here: master or a pipe to guest stdin */
    int relay_out;     /* and reads guest output here: master or a pipe from it */
    int guest_ends[2]; /* the parent's copies of the guest's input and output ends */
    int host_fds[2];   /* the host terminal reopened: keystrokes from, output to */
    bool is_shared[2]; /* host_fds[i] shares the host's file description (reopen failed) */
    struct sbx__tty_pipe to_guest, to_host;
    int winch_fd;         /* signalfd for SIGWINCH, -1 if none */
    int size_fd;          /* host terminal whose window size the pty follows */
    bool is_raw;          /* the host terminal is in raw mode until close */
    bool has_mask;        /* old_mask holds this thread's mask before SIGWINCH was blocked */
    struct termios saved; /* the host terminal's modes, restored at close */
    sigset_t old_mask;
    int saved_flags[3]; /* F_GETFL of the host's fds 0-2 (-1: not open) */
};

/* Sets every fd to -1; safe to close after. */
void sbx__jail_tty_init(struct sbx__jail_tty *t);
/* Saves the flags of fds 0-2 and, where one is a terminal, opens the pty and sets guest[i] to
 * its slave (the others stay -1: inherited). SBX_E_UNAVAILABLE with err when no pty opens: the
 * run never falls back to the host's terminal. */
sbx_err sbx__jail_tty_open(struct sbx__jail_tty *t, int guest[3], char *err, size_t errlen);
/* After the clone: drops the parent's copies of the guest's ends, starts following SIGWINCH. */
void sbx__jail_tty_started(struct sbx__jail_tty *t);

#define SBX__TTY_SLOTS 5
/* The poll loop's view: fills SBX__TTY_SLOTS slots (fds -1 when idle); is_ending stops reading the
 * guest. */
void sbx__jail_tty_poll_fds(const struct sbx__jail_tty *t, struct pollfd pfd[SBX__TTY_SLOTS],
                            bool is_ending);
void sbx__jail_tty_handle(struct sbx__jail_tty *t, const struct pollfd pfd[SBX__TTY_SLOTS]);
/* True while guest output may still arrive or wait to be written to the host. */
bool sbx__jail_tty_is_busy(const struct sbx__jail_tty *t);

/* Restores the host terminal's modes and the flags of fds 0-2, closes the pty. Idempotent. */
void sbx__jail_tty_close(struct sbx__jail_tty *t);

#endif

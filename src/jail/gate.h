/* jail/gate.h: per-destination outbound connections (policy.net.outbound) for the process tier.
 * The guest's connect() goes to the supervisor through a seccomp user-notification listener;
 * the broker (gate.c) matches its own copy of the address with the allowlist the wasm tier uses
 * and, when allowed, connects a socket of its own in the host namespace and installs it over
 * the guest's fd. The guest's own syscall is never continued. */
#ifndef SBX_JAIL_GATE_H
#define SBX_JAIL_GATE_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include <sbx/plugin.h>

#include "jail/jail.h"

#define SBX__GATE_PENDING 15
#define SBX__GATE_SLOTS   (1 + SBX__GATE_PENDING) /* the listener, then pending connects */

/* Returns SBX_OK when this kernel and the policy's patterns can be enforced, else
 * SBX_E_UNAVAILABLE with the missing feature or the pattern in err. */
sbx_err sbx__jail_gate_check(const struct sbx_policy *p, char *err, size_t errlen);

/* gate_filter.c: the third seccomp program (connect -> user notification, TCP Fast Open, bind,
 * listen denied), built once per process. */
sbx_err sbx__jail_gate_filter(struct sbx__jail_bpf *out);
/* Child side: installs the program with a new listener, sends the listener on sock_fd and
 * closes both, so the guest cannot answer its own notifications. */
int sbx__jail_gate_apply(const struct sbx__jail_bpf *filter, int sock_fd);

struct sbx__jail_gate_conn {
    uint64_t id;  /* the notification waiting for this connect */
    int sock;     /* the supervisor's host socket, connecting; -1 = free slot */
    int guest_fd; /* the guest's fd number to replace */
    bool is_cloexec;
};

struct sbx__jail_gate {
    sbx_outbound_rule *rules;
    size_t rule_count;
    int ctrl_fd;     /* the parent's end of the socketpair the listener arrives on, or -1 */
    int listener_fd; /* the seccomp listener, or -1 */
    uint64_t host_netns_cookie;
    uint64_t denied_count;
    struct sbx__jail_gate_conn conns[SBX__GATE_PENDING];
};

/* Prepares a gate for policy p; false on allocation failure. ctrl_fd is taken over. */
bool sbx__jail_gate_init(struct sbx__jail_gate *g, const struct sbx_policy *p, int ctrl_fd);
/* Fills the gate's poll slots (SBX__GATE_SLOTS of them). */
void sbx__jail_gate_poll_fds(struct sbx__jail_gate *g, struct pollfd *pfd);
/* Serves what the poll reported; never blocks. */
void sbx__jail_gate_handle(struct sbx__jail_gate *g, const struct pollfd *pfd);
/* Closes every fd and frees the rules; safe on a zeroed or destroyed gate. */
void sbx__jail_gate_destroy(struct sbx__jail_gate *g);

#endif

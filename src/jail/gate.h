/* jail/gate.h: per-destination outbound connections (policy.net.outbound) for the process tier.
 * The guest's connect() goes to the supervisor through a seccomp user-notification listener;
 * the broker (gate.c) matches its own copy of the address with the policy's rules (core's
 * matcher, as every tier) and, when allowed, connects a socket of its own in the host namespace
 * and installs it over the guest's fd. The guest's own syscall is never continued. */
#ifndef SBX_JAIL_GATE_H
#define SBX_JAIL_GATE_H

#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/denials.h"
#include "core/outbound.h"
#include "jail/gate_dns.h"
#include "jail/jail.h"

#define SBX__GATE_PENDING 15
#define SBX__GATE_QUERIES 4  /* DNS questions being resolved on the host at once */
#define SBX__GATE_NAMES   64 /* addresses remembered with the allowed name they answered */
/* The listener, pending connects, the DNS stub, its timer, the questions being resolved. */
#define SBX__GATE_STUB_SLOT (1 + SBX__GATE_PENDING)
#define SBX__GATE_SLOTS     (SBX__GATE_STUB_SLOT + 2 + SBX__GATE_QUERIES)

/* Returns SBX_OK when this kernel and the policy's patterns can be enforced, else
 * SBX_E_UNAVAILABLE with the missing feature or the pattern in err. */
sbx_err sbx__jail_gate_check(const struct sbx_policy *p, char *err, size_t errlen);

/* gate_filter.c: the third seccomp program (connect -> user notification, TCP Fast Open, bind,
 * listen denied), built once per process. */
sbx_err sbx__jail_gate_filter(struct sbx__jail_bpf *out);
/* Child side: installs the program with a new listener, sends the listener and the DNS stub's
 * socket (stub_fd) on sock_fd and closes all three, so the guest cannot answer its own
 * notifications or questions. */
int sbx__jail_gate_apply(const struct sbx__jail_bpf *filter, int sock_fd, int stub_fd);
/* Child side, before capabilities go: the stub's UDP socket, bound to 127.0.0.1:53 in the
 * jail's namespace (its loopback is up). Returns the fd or -errno. */
int sbx__jail_gate_stub_open(void);

struct sbx__jail_gate_conn {
    uint64_t id;  /* the notification waiting for this connect */
    int sock;     /* the supervisor's host socket, connecting; -1 = free slot */
    int guest_fd; /* the guest's fd number to replace */
    bool is_cloexec;
    uint64_t deadline_ns; /* the guest's SO_SNDTIMEO, when set: then EINPROGRESS; else 0 */
};

struct sbx__gate_job;

/* One DNS question of the guest's, being resolved on the host (gate_stub.c). */
struct sbx__jail_gate_query {
    struct sbx__gate_job *job; /* shared with its resolver thread; NULL = free slot */
    struct sbx__dns_query q;
    struct sockaddr_storage from; /* the guest's socket to answer */
    socklen_t from_len;
    uint64_t deadline_ns;
};

/* An address the stub answered for an allowed name: connects to it match that name. */
struct sbx__jail_gate_name {
    char ip[INET6_ADDRSTRLEN];
    char name[SBX__DNS_NAME_MAX];
};

struct sbx__jail_gate {
    const sbx_outbound_rule *rules; /* the run's policy's own net.outbound (not a copy) */
    size_t rule_count;
    int ctrl_fd;     /* the parent's end of the socketpair the listener arrives on, or -1 */
    int listener_fd; /* the seccomp listener, or -1 */
    uint64_t host_netns_cookie;
    bool has_pidfd_thread;       /* Linux 6.9: a pidfd for any thread, not only a group leader */
    struct sbx__denials denials; /* every denial of the run, for sbx_result.denials */
    struct sbx__jail_gate_conn conns[SBX__GATE_PENDING];
    int stub_fd;  /* the DNS stub's socket, in the guest's namespace, or -1 */
    int timer_fd; /* fires at the earliest deadline of conns[] and queries[] */
    struct sbx__jail_gate_query queries[SBX__GATE_QUERIES];
    struct sbx__jail_gate_name *names; /* SBX__GATE_NAMES of them, a ring */
    size_t name_next;
};

/* Prepares a gate for policy p; false on allocation failure. ctrl_fd is taken over. */
bool sbx__jail_gate_init(struct sbx__jail_gate *g, const struct sbx_policy *p, int ctrl_fd);
/* Fills the gate's poll slots (SBX__GATE_SLOTS of them). */
void sbx__jail_gate_poll_fds(struct sbx__jail_gate *g, struct pollfd *pfd);
/* Serves what the poll reported; never blocks. */
void sbx__jail_gate_handle(struct sbx__jail_gate *g, const struct pollfd *pfd);
/* Closes every fd; safe on a zeroed or destroyed gate. */
void sbx__jail_gate_destroy(struct sbx__jail_gate *g);

/* gate_stub.c: the DNS stub. Questions for names the allowlist lists (any port) are resolved
 * on the host in a thread each, bounded in time; others get NXDOMAIN. */
bool sbx__jail_gate_stub_init(struct sbx__jail_gate *g);
void sbx__jail_gate_stub_poll_fds(struct sbx__jail_gate *g, struct pollfd *pfd);
void sbx__jail_gate_stub_handle(struct sbx__jail_gate *g, const struct pollfd *pfd);
void sbx__jail_gate_stub_destroy(struct sbx__jail_gate *g);
/* True when ip (as inet_ntop writes it) was answered for a name allowed on port. */
bool sbx__jail_gate_name_allows(const struct sbx__jail_gate *g, const char *ip, uint16_t port);
/* Arms the gate's timer at the earliest deadline of a parked connect or a question. */
void sbx__jail_gate_arm(const struct sbx__jail_gate *g);
/* Counts one denial (telemetry and the run's list): a connect to the broker's copy of the
 * guest's address, or a name the stub answered NXDOMAIN. */
void sbx__jail_gate_deny_connect(struct sbx__jail_gate *g, const struct sockaddr_storage *addr,
                                 socklen_t addr_len);
void sbx__jail_gate_deny_name(struct sbx__jail_gate *g, const char *name);
/* Hands the run's denials to out (outcome.c, once the supervisor is done). */
void sbx__jail_gate_denials(struct sbx__jail_gate *g, sbx_result *out);

#endif

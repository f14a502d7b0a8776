/* core/denials.h: the distinct destinations a run was denied (sbx_result.denials), kept by the
 * tier that denies them: the process tier's gate, the wasm tier's sockets. */
#ifndef SBX_CORE_DENIALS_H
#define SBX_CORE_DENIALS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <sbx/sandbox.h>

struct sbx__denials {
    sbx_denial *items; /* room for SBX_DENIALS_MAX, allocated at the first denial */
    size_t count;
    uint64_t total;
    bool is_truncated;
};

/* Counts one denial and lists its destination when new and there is room. Never fails: without
 * memory the denial still counts and the list says it is truncated. */
void sbx__denials_add(struct sbx__denials *d, sbx_denial_kind kind, int family, const char *host,
                      uint16_t port);
/* The same for a connect to the guest's sockaddr (len bytes of it, as the broker copied it). */
void sbx__denials_add_sockaddr(struct sbx__denials *d, const struct sockaddr_storage *sa,
                               socklen_t len);
/* Hands the list to out (which frees it with sbx_result_free) and empties d. */
void sbx__denials_move(struct sbx__denials *d, sbx_result *out);
void sbx__denials_free(struct sbx__denials *d);

#endif

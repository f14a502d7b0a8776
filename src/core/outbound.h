/* core/outbound.h: the matcher of policy.net.outbound, the one gate every tier applies (the
 * jail's connect broker and DNS stub, WASI's sock_connect and resolver, the public
 * sbx_outbound_allowed). It reads the policy's own rules: nothing is copied per check. */
#ifndef SBX_CORE_OUTBOUND_H
#define SBX_CORE_OUTBOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sbx/policy.h>

/* True when a rule of rules[0..count) allows host:port. host is a DNS name (case-insensitive,
 * a final root dot ignored), an IPv4 literal or an IPv6 literal with or without brackets; IP
 * literals compare as addresses. Rules with a NULL host match nothing; false for a NULL host. */
bool sbx__outbound_match(const sbx_outbound_rule *rules, size_t count, const char *host,
                         uint16_t port);

/* True when some rule names host at any port (what a DNS lookup of host may be answered for). */
bool sbx__outbound_names(const sbx_outbound_rule *rules, size_t count, const char *host);

/* The same as sbx__outbound_match() on policy->net.outbound; false for a NULL policy. */
bool sbx__outbound_allowed(const struct sbx_policy *policy, const char *host, uint16_t port);

#endif

/* core/outbound.c: matching policy.net.outbound (core/outbound.h), and the public allowlist
 * functions of <sbx/policy.h> as thin wrappers. Patterns come parsed by policy.c: exact
 * "host:port", "*.example.org:443" (deeper subdomains only), "host:*", IPv4 and IPv6 literals.
 * IP literals compare as addresses, so "::1" and "0::1" are the same host; names compare
 * case-blind. */
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>

#include "core/outbound.h"
#include "core/policy.h"
#include "util/alloc.h"

#define HOST_MAX 256

/* Copies host lower-cased without IPv6 brackets or a final root dot; false if too long. */
static bool canonical_host(const char *host, char *out, size_t cap)
{
    size_t len = strlen(host);
    if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
        host++;
        len -= 2;
    } else if (len > 1 && host[len - 1] == '.') {
        len--;
    }
    if (len == 0 || len >= cap)
        return false;
    for (size_t i = 0; i < len; i++)
        out[i] = (char)tolower((unsigned char)host[i]);
    out[len] = '\0';
    return true;
}

/* Parses an IP literal into 16 bytes (IPv4 as its v4-mapped form); false for a name. */
static bool parse_ip(const char *s, uint8_t out[16])
{
    struct in_addr v4;
    if (inet_pton(AF_INET, s, &v4) == 1) {
        memset(out, 0, 10);
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &v4, 4);
        return true;
    }
    return inet_pton(AF_INET6, s, out) == 1;
}

static bool host_matches(const sbx_outbound_rule *p, const char *host, bool is_ip,
                         const uint8_t ip[16])
{
    char pat[HOST_MAX];
    if (!p->host || !canonical_host(p->host, pat, sizeof(pat)))
        return false;
    if (p->is_wildcard) {
        /* "*.example.org" (or "example.org" with the flag set): a strictly deeper name */
        const char *suffix = strncmp(pat, "*.", 2) == 0 ? pat + 1 : pat;
        size_t hl = strlen(host), sl = strlen(suffix);
        if (is_ip)
            return false;
        if (suffix[0] != '.')
            return hl > sl + 1 && host[hl - sl - 1] == '.' && strcmp(host + hl - sl, suffix) == 0;
        return hl > sl && strcmp(host + hl - sl, suffix) == 0;
    }
    uint8_t pip[16];
    if (parse_ip(pat, pip))
        return is_ip && memcmp(pip, ip, 16) == 0;
    return !is_ip && strcmp(pat, host) == 0;
}

/* is_any: every rule counts as "host:*" (the DNS question has no port). */
static bool match(const sbx_outbound_rule *rules, size_t count, const char *host, uint16_t port,
                  bool is_any)
{
    char h[HOST_MAX];
    uint8_t ip[16];
    if (!host || !canonical_host(host, h, sizeof(h)))
        return false;
    bool is_ip = parse_ip(h, ip);
    for (size_t i = 0; i < count; i++) {
        if (!is_any && !rules[i].is_any_port && rules[i].port != port)
            continue;
        if (host_matches(&rules[i], h, is_ip, ip))
            return true;
    }
    return false;
}

bool sbx__outbound_match(const sbx_outbound_rule *rules, size_t count, const char *host,
                         uint16_t port)
{
    return match(rules, count, host, port, false);
}

bool sbx__outbound_names(const sbx_outbound_rule *rules, size_t count, const char *host)
{
    return match(rules, count, host, 0, true);
}

bool sbx__outbound_allowed(const struct sbx_policy *policy, const char *host, uint16_t port)
{
    return policy && sbx__outbound_match(policy->outbound, policy->outbound_count, host, port);
}

bool sbx_outbound_allowed(const sbx_outbound_rule *list, size_t count, const char *host,
                          uint16_t port)
{
    if (!list && count)
        return false;
    return sbx__outbound_match(list, count, host, port);
}

void sbx_outbound_allowlist_free(sbx_outbound_rule *list, size_t count)
{
    if (!list)
        return;
    for (size_t i = 0; i < count; i++)
        sbx__free(list[i].host);
    sbx__free(list);
}

sbx_err sbx_outbound_allowlist_build(const sbx_policy *policy, sbx_outbound_rule **out,
                                     size_t *count)
{
    if (!out || !count)
        return SBX_E_INVALID_ARGUMENT;
    *out = NULL;
    *count = 0;
    size_t n = policy ? policy->outbound_count : 0;
    if (n == 0)
        return SBX_OK;
    sbx_outbound_rule *list = sbx__calloc(n, sizeof(*list));
    if (!list)
        return SBX_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        list[i] = policy->outbound[i];
        list[i].host = sbx__strdup(policy->outbound[i].host);
        if (!list[i].host) {
            sbx_outbound_allowlist_free(list, i);
            return SBX_E_NOMEM;
        }
    }
    *out = list;
    *count = n;
    return SBX_OK;
}

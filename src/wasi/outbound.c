/* wasi/outbound.c: the outbound gate (the seed's buildWasiOutboundAllowlist /
 * gateOutboundConnect). Patterns come parsed from policy.net.outbound: exact "host:port",
 * "*.example.org:443" (deeper subdomains only), "host:*", IPv4 and IPv6 literals. IP literals
 * compare as addresses, so "::1" and "0::1" are the same host; names compare case-blind. */
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>

#include "wasi/internal.h"

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

static bool host_matches(const struct sbx__net_pattern *p, const char *host, bool is_ip,
                         const uint8_t ip[16])
{
    char pat[HOST_MAX];
    if (!canonical_host(p->host, pat, sizeof(pat)))
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

bool sbx__wasi_outbound_match(const struct sbx__net_pattern *pats, size_t count, const char *host,
                              uint16_t port)
{
    char h[HOST_MAX];
    uint8_t ip[16];
    if (!host || !canonical_host(host, h, sizeof(h)))
        return false;
    bool is_ip = parse_ip(h, ip);
    for (size_t i = 0; i < count; i++) {
        if (!pats[i].is_any_port && pats[i].port != port)
            continue;
        if (host_matches(&pats[i], h, is_ip, ip))
            return true;
    }
    return false;
}

bool sbx__wasi_outbound_allowed(const struct sbx_policy *policy, const char *host, uint16_t port)
{
    if (!policy)
        return false;
    return sbx__wasi_outbound_match(policy->outbound, policy->outbound_count, host, port);
}

/* jail/gate_dns.h: the DNS messages the net.outbound stub reads and writes (RFC 1035). Only
 * queries are parsed, defensively (they are guest input); only small answers are written (A and
 * AAAA records, at most SBX__DNS_MAX_ADDRS, so every answer fits the 512 bytes of plain UDP). */
#ifndef SBX_JAIL_GATE_DNS_H
#define SBX_JAIL_GATE_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBX__DNS_NAME_MAX  254 /* dotted, without the root's trailing dot, plus NUL */
#define SBX__DNS_MAX_ADDRS 8
#define SBX__DNS_UDP_MAX   512

enum { SBX__DNS_A = 1, SBX__DNS_AAAA = 28, SBX__DNS_CLASS_IN = 1 };
enum {
    SBX__DNS_NOERROR = 0,
    SBX__DNS_FORMERR = 1,
    SBX__DNS_SERVFAIL = 2,
    SBX__DNS_NXDOMAIN = 3,
    SBX__DNS_NOTIMP = 4,
    SBX__DNS_REFUSED = 5
};

/* What sbx__dns_parse() makes of a packet. */
enum sbx__dns_verdict {
    SBX__DNS_DROP,     /* not a query (too short, or a response): never answered */
    SBX__DNS_QUESTION, /* one well-formed question; name and type are set */
    SBX__DNS_REJECT,   /* answer with rcode and no question (FORMERR, NOTIMP) */
};

struct sbx__dns_query {
    uint16_t id;
    bool is_recursion_desired;
    int rcode; /* for SBX__DNS_REJECT */
    uint16_t qtype, qclass;
    bool has_question;
    bool is_plain_name;           /* labels of [A-Za-z0-9_-] only: name is then unambiguous */
    char name[SBX__DNS_NAME_MAX]; /* dotted, no trailing dot; other bytes shown as '?' */
    uint8_t wire[255];            /* the name uncompressed, as asked (case kept for the echo) */
    size_t wire_len;
};

struct sbx__dns_addr {
    int family; /* AF_INET or AF_INET6 */
    uint8_t bytes[16];
};

enum sbx__dns_verdict sbx__dns_parse(const uint8_t *pkt, size_t len, struct sbx__dns_query *q);

/* Writes the answer to q with rcode and the records of addrs whose family matches q's type
 * (TTL ttl), at most SBX__DNS_MAX_ADDRS. Returns its length, 0 when cap is too small. */
size_t sbx__dns_answer(const struct sbx__dns_query *q, int rcode, const struct sbx__dns_addr *addrs,
                       size_t count, uint32_t ttl, uint8_t *out, size_t cap);

#endif

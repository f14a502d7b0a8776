/* jail/gate_dns.c: parsing one DNS query and writing its answer, for the net.outbound stub.
 * Every length and offset of the guest's packet is checked before it is read; compression
 * pointers are followed only backwards and the name's length is capped, so a pointer loop
 * ends (a loop must repeat a label, which grows the name). */
#include <string.h>
#include <sys/socket.h>

#include "jail/gate_dns.h"

#define HEADER_LEN  12
#define FLAG_QR     0x8000
#define FLAG_RD     0x0100
#define FLAG_RA     0x0080
#define MAX_HOPS    64
#define WIRE_MAX    255
#define TYPE_OFFSET 4 /* qtype + qclass after the name */

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint8_t *put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
    return p + 2;
}

static bool is_plain(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

/* Appends one label (len bytes at src) to both forms of the name. */
static bool add_label(struct sbx__dns_query *q, const uint8_t *src, uint8_t len, size_t *dotted)
{
    if (q->wire_len + 1 + len + 1 > WIRE_MAX || *dotted + 1 + len >= SBX__DNS_NAME_MAX)
        return false;
    q->wire[q->wire_len++] = len;
    memcpy(q->wire + q->wire_len, src, len);
    q->wire_len += len;
    if (*dotted)
        q->name[(*dotted)++] = '.';
    for (uint8_t i = 0; i < len; i++) {
        q->is_plain_name &= is_plain(src[i]);
        q->name[(*dotted)++] = is_plain(src[i]) ? (char)src[i] : '?';
    }
    return true;
}

/* Reads the name at *off; *off ends after the name's own bytes (the first pointer, if any). */
static bool read_name(const uint8_t *pkt, size_t len, size_t *off, struct sbx__dns_query *q)
{
    size_t pos = *off, dotted = 0, end = 0;
    q->is_plain_name = true;
    for (int hops = 0;;) {
        if (pos >= len)
            return false;
        uint8_t l = pkt[pos];
        if ((l & 0xc0) == 0xc0) {
            if (pos + 1 >= len)
                return false;
            size_t target = (size_t)(l & 0x3f) << 8 | pkt[pos + 1];
            if (target >= pos || target < HEADER_LEN || ++hops > MAX_HOPS)
                return false;
            if (!end)
                end = pos + 2;
            pos = target;
        } else if (l & 0xc0) {
            return false; /* the extended label types (RFC 6891) */
        } else if (l == 0) {
            q->wire[q->wire_len++] = 0;
            q->name[dotted] = '\0';
            *off = end ? end : pos + 1;
            return true;
        } else if (pos + 1 + l > len || !add_label(q, pkt + pos + 1, l, &dotted)) {
            return false;
        } else {
            pos += 1 + (size_t)l;
        }
    }
}

enum sbx__dns_verdict sbx__dns_parse(const uint8_t *pkt, size_t len, struct sbx__dns_query *q)
{
    memset(q, 0, sizeof(*q));
    if (!pkt || len < HEADER_LEN)
        return SBX__DNS_DROP;
    uint16_t flags = get16(pkt + 2);
    if (flags & FLAG_QR)
        return SBX__DNS_DROP; /* a response: answering it could start a loop */
    q->id = get16(pkt);
    q->is_recursion_desired = (flags & FLAG_RD) != 0;
    q->rcode = SBX__DNS_FORMERR;
    if ((flags >> 11 & 0xf) != 0) {
        q->rcode = SBX__DNS_NOTIMP; /* only QUERY, not IQUERY, STATUS, NOTIFY, UPDATE */
        return SBX__DNS_REJECT;
    }
    size_t off = HEADER_LEN;
    if (get16(pkt + 4) != 1 || !read_name(pkt, len, &off, q) || off + TYPE_OFFSET > len) {
        q->wire_len = 0;
        return SBX__DNS_REJECT;
    }
    q->qtype = get16(pkt + off);
    q->qclass = get16(pkt + off + 2);
    q->has_question = true;
    q->rcode = SBX__DNS_NOERROR;
    return SBX__DNS_QUESTION;
}

static bool wants(const struct sbx__dns_query *q, const struct sbx__dns_addr *a)
{
    return (q->qtype == SBX__DNS_A && a->family == AF_INET) ||
           (q->qtype == SBX__DNS_AAAA && a->family == AF_INET6);
}

/* One record, its name a pointer to the question's (offset 12). */
static uint8_t *put_record(uint8_t *p, const struct sbx__dns_query *q,
                           const struct sbx__dns_addr *a, uint32_t ttl)
{
    uint16_t rdlen = a->family == AF_INET ? 4 : 16;
    p = put16(p, 0xc000 | HEADER_LEN);
    p = put16(p, q->qtype);
    p = put16(p, SBX__DNS_CLASS_IN);
    p = put16(p, (uint16_t)(ttl >> 16));
    p = put16(p, (uint16_t)ttl);
    p = put16(p, rdlen);
    memcpy(p, a->bytes, rdlen);
    return p + rdlen;
}

size_t sbx__dns_answer(const struct sbx__dns_query *q, int rcode, const struct sbx__dns_addr *addrs,
                       size_t count, uint32_t ttl, uint8_t *out, size_t cap)
{
    size_t qlen = q->has_question ? q->wire_len + TYPE_OFFSET : 0;
    if (cap < HEADER_LEN + qlen + SBX__DNS_MAX_ADDRS * 28)
        return 0;
    uint16_t n = 0;
    uint8_t *p = out + HEADER_LEN;
    if (q->has_question) {
        memcpy(p, q->wire, q->wire_len);
        p = put16(p + q->wire_len, q->qtype);
        p = put16(p, q->qclass);
    }
    for (size_t i = 0; q->has_question && i < count && n < SBX__DNS_MAX_ADDRS; i++) {
        if (wants(q, &addrs[i])) {
            p = put_record(p, q, &addrs[i], ttl);
            n++;
        }
    }
    uint16_t flags = FLAG_QR | FLAG_RA | (q->is_recursion_desired ? FLAG_RD : 0) | (rcode & 0xf);
    uint8_t *h = put16(out, q->id);
    h = put16(h, flags);
    h = put16(h, q->has_question ? 1 : 0);
    h = put16(h, n);
    h = put16(h, 0);
    put16(h, 0);
    return (size_t)(p - out);
}

/* tests/unit/jail/test_gate_dns.c: the DNS stub's parser and answer writer (jail/gate_dns.c) on
 * guest input: well-formed queries, every truncation of one, compression pointers (a loop, a
 * forward jump, a jump into the header), extended labels, responses and odd opcodes, then the
 * answers' records, checked byte by byte. */
#include <string.h>
#include <sys/socket.h>

#include "sbx_test.h"

#include "jail/gate_dns.h"

/* A query for name (dotted) of type qtype, id 0x1234 with RD set. Returns its length. */
static size_t make_query(uint8_t *out, const char *name, uint16_t qtype)
{
    static const uint8_t header[] = {0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
    memcpy(out, header, sizeof(header));
    size_t n = sizeof(header);
    for (const char *p = name; *p;) {
        const char *dot = strchr(p, '.');
        size_t l = dot ? (size_t)(dot - p) : strlen(p);
        out[n++] = (uint8_t)l;
        memcpy(out + n, p, l);
        n += l;
        p += l + (dot ? 1 : 0);
    }
    out[n++] = 0;
    out[n++] = (uint8_t)(qtype >> 8);
    out[n++] = (uint8_t)qtype;
    out[n++] = 0;
    out[n++] = 1;
    return n;
}

START_TEST(test_parse_query)
{
    uint8_t pkt[512];
    size_t n = make_query(pkt, "Api.Example.ORG", SBX__DNS_AAAA);
    struct sbx__dns_query q;
    ck_assert_int_eq(sbx__dns_parse(pkt, n, &q), SBX__DNS_QUESTION);
    ck_assert_uint_eq(q.id, 0x1234);
    ck_assert(q.is_recursion_desired);
    ck_assert_str_eq(q.name, "Api.Example.ORG");
    ck_assert(q.is_plain_name);
    ck_assert_uint_eq(q.qtype, SBX__DNS_AAAA);
    ck_assert_uint_eq(q.qclass, SBX__DNS_CLASS_IN);
    ck_assert_uint_eq(q.wire_len, n - 12 - 4);
    ck_assert_mem_eq(q.wire, pkt + 12, q.wire_len);
}
END_TEST

/* Every prefix of a good query is refused without reading past it (ASan checks the reads: the
 * packet is copied into a buffer of exactly that length). */
START_TEST(test_truncated)
{
    uint8_t pkt[512];
    size_t n = make_query(pkt, "a.example.org", SBX__DNS_A);
    for (size_t len = 0; len < n; len++) {
        uint8_t *cut = malloc(len ? len : 1);
        memcpy(cut, pkt, len);
        struct sbx__dns_query q;
        enum sbx__dns_verdict v = sbx__dns_parse(cut, len, &q);
        ck_assert_msg(v == (len < 12 ? SBX__DNS_DROP : SBX__DNS_REJECT), "len %zu: %d", len, v);
        if (len >= 12) {
            ck_assert_int_eq(q.rcode, SBX__DNS_FORMERR);
            ck_assert(!q.has_question);
        }
        free(cut);
    }
}
END_TEST

static enum sbx__dns_verdict parse_bytes(const uint8_t *b, size_t n, struct sbx__dns_query *q)
{
    uint8_t *copy = malloc(n);
    memcpy(copy, b, n);
    enum sbx__dns_verdict v = sbx__dns_parse(copy, n, q);
    free(copy);
    return v;
}

START_TEST(test_pointers)
{
    struct sbx__dns_query q;
    /* "a" then a pointer back to it: a.a.a... until the name is too long. */
    static const uint8_t loop[] = {0, 1, 1, 0,   0,    1,  0, 0, 0, 0,
                                   0, 0, 1, 'a', 0xc0, 12, 0, 1, 0, 1};
    ck_assert_int_eq(parse_bytes(loop, sizeof(loop), &q), SBX__DNS_REJECT);
    ck_assert_int_eq(q.rcode, SBX__DNS_FORMERR);
    /* A pointer to itself, forwards, into the header, or cut in half. */
    static const uint8_t self[] = {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1};
    static const uint8_t fwd[] = {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 14, 0, 0, 1, 0, 1};
    static const uint8_t hdr[] = {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 2, 0, 1, 0, 1};
    static const uint8_t half[] = {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0};
    static const uint8_t ext[] = {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x41, 0, 0, 1, 0, 1};
    const struct {
        const uint8_t *b;
        size_t n;
    } bad[] = {{self, sizeof(self)},
               {fwd, sizeof(fwd)},
               {hdr, sizeof(hdr)},
               {half, sizeof(half)},
               {ext, sizeof(ext)}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_msg(parse_bytes(bad[i].b, bad[i].n, &q) == SBX__DNS_REJECT, "case %zu", i);
        ck_assert_int_eq(q.rcode, SBX__DNS_FORMERR);
    }
    /* The longest name: 127 one-byte labels are 255 bytes on the wire; one more is refused. */
    uint8_t pkt[600];
    char name[300] = "";
    for (int i = 0; i < 127; i++)
        strcat(name, i ? ".x" : "x");
    size_t n = make_query(pkt, name, SBX__DNS_A);
    ck_assert_int_eq(parse_bytes(pkt, n, &q), SBX__DNS_QUESTION);
    ck_assert_uint_eq(q.wire_len, 255);
    strcat(name, ".x");
    n = make_query(pkt, name, SBX__DNS_A);
    ck_assert_int_eq(parse_bytes(pkt, n, &q), SBX__DNS_REJECT);
}
END_TEST

START_TEST(test_not_queries)
{
    uint8_t pkt[512];
    size_t n = make_query(pkt, "example.org", SBX__DNS_A);
    struct sbx__dns_query q;
    pkt[2] |= 0x80; /* QR: a response is never answered */
    ck_assert_int_eq(sbx__dns_parse(pkt, n, &q), SBX__DNS_DROP);
    pkt[2] = 0x01 | (2 << 3); /* opcode STATUS */
    ck_assert_int_eq(sbx__dns_parse(pkt, n, &q), SBX__DNS_REJECT);
    ck_assert_int_eq(q.rcode, SBX__DNS_NOTIMP);
    pkt[2] = 0x01;
    pkt[5] = 2; /* two questions */
    ck_assert_int_eq(sbx__dns_parse(pkt, n, &q), SBX__DNS_REJECT);
    ck_assert_int_eq(q.rcode, SBX__DNS_FORMERR);
    pkt[5] = 1;
    ck_assert_int_eq(sbx__dns_parse(NULL, 0, &q), SBX__DNS_DROP);
    /* A label with a dot or a NUL in it is kept, but marked: it matches no pattern. */
    static const uint8_t odd[] = {0, 1, 1,   0,   0, 1, 0, 0, 0, 0, 0,
                                  0, 3, 'a', '.', 0, 0, 0, 1, 0, 1};
    ck_assert_int_eq(parse_bytes(odd, sizeof(odd), &q), SBX__DNS_QUESTION);
    ck_assert(!q.is_plain_name);
    ck_assert_str_eq(q.name, "a??");
}
END_TEST

START_TEST(test_answer)
{
    uint8_t pkt[512], out[SBX__DNS_UDP_MAX];
    size_t n = make_query(pkt, "db.internal", SBX__DNS_A);
    struct sbx__dns_query q;
    ck_assert_int_eq(sbx__dns_parse(pkt, n, &q), SBX__DNS_QUESTION);
    struct sbx__dns_addr addrs[12] = {{AF_INET6, {0xfe, 0x80}}};
    for (int i = 1; i < 12; i++)
        addrs[i] = (struct sbx__dns_addr){AF_INET, {10, 0, 0, (uint8_t)i}};
    size_t len = sbx__dns_answer(&q, SBX__DNS_NOERROR, addrs, 12, 60, out, sizeof(out));
    /* header + the question echoed + 8 A records (the AAAA skipped, the rest capped) */
    ck_assert_uint_eq(len, 12 + (n - 12) + 8 * 16);
    static const uint8_t head[] = {0x12, 0x34, 0x81, 0x80, 0, 1, 0, 8, 0, 0, 0, 0};
    ck_assert_mem_eq(out, head, 12);
    ck_assert_mem_eq(out + 12, pkt + 12, n - 12);
    static const uint8_t rr[] = {0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 0, 0, 1};
    ck_assert_mem_eq(out + n, rr, sizeof(rr));
    /* Its own answer parses as a response: dropped, never answered back. */
    ck_assert_int_eq(sbx__dns_parse(out, len, &q), SBX__DNS_DROP);
    /* NXDOMAIN: the question, no records; a rejected packet: the header only. */
    ck_assert_int_eq(sbx__dns_parse(pkt, n, &q), SBX__DNS_QUESTION);
    len = sbx__dns_answer(&q, SBX__DNS_NXDOMAIN, NULL, 0, 60, out, sizeof(out));
    ck_assert_uint_eq(len, n);
    ck_assert_uint_eq(out[3], 0x83);
    ck_assert_uint_eq(out[7], 0);
    pkt[5] = 0;
    ck_assert_int_eq(sbx__dns_parse(pkt, n, &q), SBX__DNS_REJECT);
    ck_assert_uint_eq(sbx__dns_answer(&q, q.rcode, NULL, 0, 60, out, sizeof(out)), 12);
    ck_assert_uint_eq(out[3], 0x81);
    ck_assert_uint_eq(out[5], 0);
    ck_assert_uint_eq(sbx__dns_answer(&q, q.rcode, NULL, 0, 60, out, 100), 0);
}
END_TEST

static Suite *dns_suite(void)
{
    Suite *s = suite_create("gate_dns");
    TCase *tc = tcase_create("parse");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_parse_query);
    tcase_add_test(tc, test_truncated);
    tcase_add_test(tc, test_pointers);
    tcase_add_test(tc, test_not_queries);
    tcase_add_test(tc, test_answer);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(dns_suite());
}

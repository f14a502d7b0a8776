/* fuzz/fuzz_dns_parse.c: the net.outbound DNS stub's parser (jail/gate_dns.c) on any datagram a
 * guest can send. A question must come out bounded (name NUL-terminated and dotted within its
 * buffer, wire form at most 255 bytes) and its answer must fit 512 bytes and parse as a response,
 * which the stub never answers. Any violation aborts. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "jail/gate_dns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sbx__dns_query q;
    enum sbx__dns_verdict v = sbx__dns_parse(data, size, &q);
    if (v == SBX__DNS_DROP)
        return 0;
    if (q.wire_len > sizeof(q.wire) || memchr(q.name, '\0', sizeof(q.name)) == NULL)
        abort();
    if (v == SBX__DNS_QUESTION && (q.wire_len == 0 || q.wire[q.wire_len - 1] != 0))
        abort();
    struct sbx__dns_addr addrs[10];
    for (size_t i = 0; i < 10; i++) {
        addrs[i].family = i % 3 ? AF_INET : AF_INET6;
        memset(addrs[i].bytes, (int)i, sizeof(addrs[i].bytes));
    }
    uint8_t out[SBX__DNS_UDP_MAX];
    size_t n = sbx__dns_answer(&q, q.rcode, addrs, 10, 60, out, sizeof(out));
    struct sbx__dns_query back;
    if (n == 0 || n > sizeof(out) || sbx__dns_parse(out, n, &back) != SBX__DNS_DROP)
        abort();
    return 0;
}

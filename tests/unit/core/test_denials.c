/* tests/unit/core/test_denials.c: the run's list of denied destinations (core/denials.c):
 * deduplicated with counts, in first-denied order, bounded with the total kept, guest bytes
 * made printable, and an allocation failure reported as truncation, never as fewer denials. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/un.h>

#include <sbx/sandbox.h>

#include "core/denials.h"
#include "sbx_test.h"
#include "util/alloc.h"

static void add_v4(struct sbx__denials *d, const char *ip, uint16_t port)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    struct sockaddr_in *in = (struct sockaddr_in *)&ss;
    in->sin_family = AF_INET;
    in->sin_port = htons(port);
    ck_assert_int_eq(inet_pton(AF_INET, ip, &in->sin_addr), 1);
    sbx__denials_add_sockaddr(d, &ss, sizeof(*in));
}

static const char *dest(const sbx_denial *x)
{
    static char buf[SBX_DENIAL_HOST_MAX + 16];
    sbx_denial_destination(x, buf, sizeof(buf));
    return buf;
}

START_TEST(dedup_counts_in_order)
{
    struct sbx__denials d = {0};
    add_v4(&d, "127.0.0.1", 9);
    sbx__denials_add(&d, SBX_DENIAL_DNS, AF_UNSPEC, "evil.example", 0);
    add_v4(&d, "127.0.0.1", 9);
    add_v4(&d, "127.0.0.1", 10); /* another port: another destination */
    sbx__denials_add(&d, SBX_DENIAL_DNS, AF_UNSPEC, "evil.example", 0);
    add_v4(&d, "127.0.0.1", 9);
    sbx_result r = {0};
    sbx__denials_move(&d, &r);
    ck_assert_ptr_null(d.items);
    ck_assert_int_eq(r.denial_count, 3);
    ck_assert_int_eq(r.denied_total, 6);
    ck_assert(!r.denials_truncated);
    ck_assert_str_eq(dest(&r.denials[0]), "127.0.0.1:9");
    ck_assert_int_eq(r.denials[0].count, 3);
    ck_assert_str_eq(dest(&r.denials[1]), "evil.example");
    ck_assert_int_eq(r.denials[1].kind, SBX_DENIAL_DNS);
    ck_assert_int_eq(r.denials[1].count, 2);
    ck_assert_str_eq(dest(&r.denials[2]), "127.0.0.1:10");
    ck_assert_int_eq(r.denials[2].count, 1);
    sbx_result_free(&r);
    ck_assert_ptr_null(r.denials);
}
END_TEST

START_TEST(bounded_with_total)
{
    struct sbx__denials d = {0};
    for (int i = 0; i < SBX_DENIALS_MAX + 10; i++)
        add_v4(&d, "10.0.0.1", (uint16_t)(1000 + i));
    add_v4(&d, "10.0.0.1", 1000);                   /* listed: still counted on its entry */
    add_v4(&d, "10.0.0.1", 1000 + SBX_DENIALS_MAX); /* not listed: only in the total */
    sbx_result r = {0};
    sbx__denials_move(&d, &r);
    ck_assert_int_eq(r.denial_count, SBX_DENIALS_MAX);
    ck_assert(r.denials_truncated);
    ck_assert_int_eq(r.denied_total, SBX_DENIALS_MAX + 12);
    ck_assert_int_eq(r.denials[0].count, 2);
    ck_assert_int_eq(r.denials[SBX_DENIALS_MAX - 1].port, 1000 + SBX_DENIALS_MAX - 1);
    sbx_result_free(&r);
}
END_TEST

/* Addresses as the guest gave them: IPv6 bracketed, AF_UNIX paths (abstract with '@'), control
 * bytes as '?', a family the broker does not know by its number, a short sockaddr as AF_UNSPEC. */
START_TEST(destinations_shown)
{
    struct sbx__denials d = {0};
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(443);
    inet_pton(AF_INET6, "2001:db8::1", &in6->sin6_addr);
    sbx__denials_add_sockaddr(&d, &ss, sizeof(*in6));
    memset(&ss, 0, sizeof(ss));
    struct sockaddr_un *un = (struct sockaddr_un *)&ss;
    un->sun_family = AF_UNIX;
    memcpy(un->sun_path, "/run/a\nb", 9);
    sbx__denials_add_sockaddr(&d, &ss, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 9));
    memset(un->sun_path, 0, sizeof(un->sun_path));
    memcpy(un->sun_path, "\0abs\0x", 6);
    sbx__denials_add_sockaddr(&d, &ss, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 6));
    ss.ss_family = AF_NETLINK + 30;
    sbx__denials_add_sockaddr(&d, &ss, sizeof(ss));
    sbx__denials_add_sockaddr(&d, &ss, 1);
    sbx__denials_add(&d, SBX_DENIAL_DNS, AF_UNSPEC, "a\x1b[31m.example", 0);
    sbx_result r = {0};
    sbx__denials_move(&d, &r);
    ck_assert_int_eq(r.denial_count, 6);
    ck_assert_str_eq(dest(&r.denials[0]), "[2001:db8::1]:443");
    ck_assert_str_eq(dest(&r.denials[1]), "unix:/run/a?b");
    ck_assert_str_eq(dest(&r.denials[2]), "unix:@abs?x");
    ck_assert_int_eq(r.denials[3].family, AF_NETLINK + 30);
    ck_assert_str_eq(r.denials[3].host, "");
    ck_assert_int_eq(r.denials[4].family, AF_UNSPEC);
    ck_assert_str_eq(r.denials[5].host, "a?[31m.example");
    char *j = sbx_result_to_json(&(sbx_result){.backend = SBX_BACKEND_PROCESS,
                                               .denials = r.denials,
                                               .denial_count = 3,
                                               .denied_total = 6,
                                               .denials_truncated = true});
    ck_assert_ptr_nonnull(j);
    ck_assert_ptr_nonnull(
        strstr(j, "\"denied\":{\"total\":6,\"truncated\":true,\"destinations\":["
                  "{\"kind\":\"connect\",\"family\":\"ipv6\",\"host\":\"2001:db8::1\",\"port\":443,"
                  "\"destination\":\"[2001:db8::1]:443\",\"count\":1},"
                  "{\"kind\":\"connect\",\"family\":\"unix\",\"host\":\"/run/a?b\",\"port\":null,"
                  "\"destination\":\"unix:/run/a?b\",\"count\":1},"
                  "{\"kind\":\"connect\",\"family\":\"unix\",\"host\":\"@abs?x\",\"port\":null,"
                  "\"destination\":\"unix:@abs?x\",\"count\":1}]}"));
    sbx_free(j);
    sbx_result_free(&r);
}
END_TEST

/* No memory for the list: the denial still counts, and the result says the list is cut. */
START_TEST(no_memory_is_truncation)
{
    struct sbx__denials d = {0};
    sbx__alloc_fail_at(1);
    add_v4(&d, "127.0.0.1", 9);
    sbx__alloc_fail_at(0);
    add_v4(&d, "127.0.0.1", 10);
    sbx_result r = {0};
    sbx__denials_move(&d, &r);
    ck_assert_int_eq(r.denied_total, 2);
    ck_assert(r.denials_truncated);
    ck_assert_int_eq(r.denial_count, 1);
    ck_assert_str_eq(dest(&r.denials[0]), "127.0.0.1:10");
    sbx_result_free(&r);
    /* None at all: no list, nothing to free. */
    struct sbx__denials none = {0};
    sbx__denials_move(&none, &r);
    ck_assert_ptr_null(r.denials);
    ck_assert_int_eq(r.denied_total, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("denials");
    TCase *tc = tcase_create("denials");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, dedup_counts_in_order);
    tcase_add_test(tc, bounded_with_total);
    tcase_add_test(tc, destinations_shown);
    tcase_add_test(tc, no_memory_is_truncation);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

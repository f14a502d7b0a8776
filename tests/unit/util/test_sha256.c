/* tests/unit/util/test_sha256.c: SHA-256 against the FIPS 180-4 example vectors (NIST CSRC
 * "SHA256.pdf", "SHA2_Additional.pdf"), incremental hashing split at every point, and the CPU's
 * SHA extensions against the portable rounds. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_test.h"
#include "util/sha256.h"

static const char MSG448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char MSG896[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                             "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

static const struct {
    const char *msg;
    const char *hex;
} vectors[] = {
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {MSG448, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    {MSG896, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
};

static void hex_of(const void *data, size_t len, char hex[65])
{
    uint8_t d[SBX__SHA256_LEN];
    sbx__sha256(data, len, d);
    sbx__sha256_hex(d, hex);
}

/* Each vector with the portable rounds and with the CPU's SHA extensions (where present). */
START_TEST(test_vectors)
{
    for (int accel = 0; accel <= 1; accel++) {
        if (!sbx__sha256_use_accel(accel) && accel)
            break;
        char hex[65];
        hex_of(vectors[_i].msg, strlen(vectors[_i].msg), hex);
        ck_assert_msg(strcmp(hex, vectors[_i].hex) == 0, "%s rounds: %s",
                      accel ? "SHA-NI" : "portable", hex);
    }
    sbx__sha256_use_accel(true);
}
END_TEST

/* The SHA extensions and the portable rounds agree on every length up to 4 KiB and on 1 MiB of
 * pseudo-random bytes fed in uneven pieces; this machine must have them for the test to mean
 * anything, so it says when it does not. */
START_TEST(test_accel_matches_portable)
{
    static uint8_t buf[1 << 20];
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < sizeof(buf); i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        buf[i] = (uint8_t)x;
    }
    if (!sbx__sha256_use_accel(true)) {
        fprintf(stderr, "test_sha256: no SHA extensions on this CPU: portable rounds only\n");
        return;
    }
    uint8_t want[SBX__SHA256_LEN], got[SBX__SHA256_LEN];
    for (size_t len = 0; len <= sizeof(buf); len = len < 4096 ? len + 1 : len * 2 + 4096) {
        size_t n = len < sizeof(buf) ? len : sizeof(buf);
        sbx__sha256_use_accel(false);
        sbx__sha256(buf, n, want);
        sbx__sha256_use_accel(true);
        struct sbx__sha256 c;
        sbx__sha256_init(&c);
        for (size_t off = 0, step = 1; off < n; off += step, step = step * 5 % 4099 + 1)
            sbx__sha256_update(&c, buf + off, off + step > n ? n - off : step);
        sbx__sha256_final(&c, got);
        ck_assert_msg(memcmp(got, want, sizeof(want)) == 0, "length %zu", n);
    }
}
END_TEST

/* One million 'a', fed in uneven pieces so blocks straddle updates. */
START_TEST(test_million_a)
{
    static char a[1000000];
    memset(a, 'a', sizeof(a));
    char hex[65];
    hex_of(a, sizeof(a), hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    struct sbx__sha256 c;
    sbx__sha256_init(&c);
    for (size_t off = 0, step = 1; off < sizeof(a); off += step, step = step * 3 % 997 + 1)
        sbx__sha256_update(&c, a + off, off + step > sizeof(a) ? sizeof(a) - off : step);
    uint8_t d[SBX__SHA256_LEN];
    sbx__sha256_final(&c, d);
    sbx__sha256_hex(d, hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

/* Every split of a 200-byte buffer into two and into three updates gives the one-shot digest
 * (lengths around the 55/56/64-byte padding edges included). */
START_TEST(test_every_split)
{
    uint8_t buf[200], want[SBX__SHA256_LEN], got[SBX__SHA256_LEN];
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 7 + 3);
    for (size_t len = 0; len <= sizeof(buf); len += len < 130 ? 1 : 7) {
        sbx__sha256(buf, len, want);
        for (size_t a = 0; a <= len; a++) {
            size_t b = a + (len - a) / 2;
            struct sbx__sha256 c;
            sbx__sha256_init(&c);
            sbx__sha256_update(&c, buf, a);
            sbx__sha256_update(&c, buf + a, b - a);
            sbx__sha256_update(&c, buf + b, len - b);
            sbx__sha256_final(&c, got);
            ck_assert_msg(memcmp(got, want, sizeof(want)) == 0, "len %zu split %zu/%zu", len, a, b);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("util.sha256");
    TCase *tc = tcase_create("fips180");
    tcase_set_timeout(tc, 20);
    tcase_add_loop_test(tc, test_vectors, 0, sizeof(vectors) / sizeof(vectors[0]));
    tcase_add_test(tc, test_million_a);
    tcase_add_test(tc, test_every_split);
    tcase_add_test(tc, test_accel_matches_portable);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

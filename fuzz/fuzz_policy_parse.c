/* fuzz/fuzz_policy_parse.c: libFuzzer target over sbx_policy_parse() and sbx_policy_with(). Input:
 * POLICY [NUL KEYBYTE VALUE]. A failure must leave *out NULL and a one-line message; a success
 * must survive to_json -> parse as a fixed point with every limit in its documented range. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sbx/policy.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_policy_parse: invariant failed: %s\n", #cond);                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static void check_failure(sbx_err e, const sbx_policy *p, const char *err, size_t errlen)
{
    CHECK(e == SBX_E_INVALID_OPTIONS || e == SBX_E_NOMEM);
    CHECK(p == NULL);
    CHECK(memchr(err, '\0', errlen) != NULL);
    CHECK(e != SBX_E_INVALID_OPTIONS || err[0] != '\0');
    CHECK(strchr(err, '\n') == NULL);
}

/* The resolved policy printed and parsed again must print the same. */
static void check_round_trip(const sbx_policy *p)
{
    CHECK(sbx_policy_timeout_ms(p) >= 1 && sbx_policy_timeout_ms(p) <= 3600000);
    CHECK(sbx_policy_memory_bytes(p) >= 262144);
    char *json = sbx_policy_to_json(p);
    if (!json)
        return; /* NOMEM */
    sbx_policy *q = NULL;
    char err[256];
    sbx_err e = sbx_policy_parse(json, strlen(json), &q, err, sizeof(err));
    if (e != SBX_OK)
        fprintf(stderr, "fuzz_policy_parse: resolved policy rejected: %s\n%s\n", err, json);
    CHECK(e == SBX_OK);
    char *again = sbx_policy_to_json(q);
    CHECK(again == NULL || strcmp(json, again) == 0);
    CHECK(sbx_policy_fuel(q) == sbx_policy_fuel(p));
    sbx_free(again);
    sbx_policy_destroy(q);
    sbx_free(json);
}

static const char *const KEYS[] = {"timeoutMs",
                                   "memoryBytes",
                                   "cpuPercent",
                                   "maxOutputBytes",
                                   "pids",
                                   "fuel",
                                   "env",
                                   "fs",
                                   "net",
                                   "net.loopback",
                                   "net.outbound",
                                   "capabilities",
                                   "bogus",
                                   "net.bogus",
                                   ""};

/* Applies VALUE at a key chosen by KEYBYTE to the parsed base. */
static void check_with(const sbx_policy *base, const uint8_t *tail, size_t len)
{
    if (len < 1)
        return;
    char *value = malloc(len);
    if (!value)
        return;
    memcpy(value, tail + 1, len - 1);
    value[len - 1] = '\0';
    const char *key = KEYS[tail[0] % (sizeof(KEYS) / sizeof(KEYS[0]))];
    sbx_policy *q = (sbx_policy *)&q;
    char err[256];
    memset(err, 'x', sizeof(err));
    sbx_err e = sbx_policy_with(base, key, value, &q, err, sizeof(err));
    if (e != SBX_OK) {
        check_failure(e, q, err, sizeof(err));
    } else {
        CHECK(q != NULL);
        check_round_trip(q);
        sbx_policy_destroy(q);
    }
    free(value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sbx_policy *p = (sbx_policy *)&p; /* parse must overwrite it */
    char err[256];
    memset(err, 'x', sizeof(err));
    const uint8_t *nul = memchr(data, '\0', size);
    size_t policy_len = nul ? (size_t)(nul - data) : size;
    sbx_err e = sbx_policy_parse((const char *)data, policy_len, &p, err, sizeof(err));
    if (e != SBX_OK) {
        check_failure(e, p, err, sizeof(err));
        return 0;
    }
    CHECK(p != NULL);
    check_round_trip(p);
    if (nul)
        check_with(p, nul + 1, size - policy_len - 1);
    sbx_policy_destroy(p);
    return 0;
}

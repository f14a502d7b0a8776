/* tests/unit/js/test_zone.c: issue 23, item 8: one rule for the time zone and locale in both
 * JavaScript tiers: UTC and en-US unless the policy's env sets TZ or LANG (LC_ALL, LC_MESSAGES);
 * the host's own TZ and LANG never reach a guest (the worker tier showed them). Runs under
 * different zones at the same time each see their own. */
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sbx.h>

#include "sbx_test.h"

/* The zone, its offset in January and July 2020, the default locale, a formatted number. */
#define PROBE                                                                                      \
    "return [Intl.DateTimeFormat().resolvedOptions().timeZone,"                                    \
    " new Date(2020, 0, 15).getTimezoneOffset(), new Date(2020, 6, 15).getTimezoneOffset(),"       \
    " Intl.DateTimeFormat().resolvedOptions().locale, (1234.5).toLocaleString()]"

#define UTC_EN_US "[\"UTC\",0,0,\"en-US\",\"1,234.5\"]"

static void expect_probe(sbx_backend backend, const char *policy, const char *want)
{
    sbx_result r;
    sbx_run_input in = {.code = PROBE, .code_len = strlen(PROBE)};
    ck_assert_int_eq(sbx_test_run_once(backend, policy, &in, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s %s: %s", sbx_backend_name(backend), policy, r.error_message);
    ck_assert_msg(strcmp(r.value_json, want) == 0, "%s %s: %s, want %s", sbx_backend_name(backend),
                  policy, r.value_json, want);
    sbx_result_free(&r);
}

/* The host's TZ and LANG are set before the engine starts (it read them then). Control: the
 * same zone and locale given by the policy are what the guest sees. */
START_TEST(host_environment_ignored)
{
    setenv("TZ", "America/New_York", 1);
    setenv("LANG", "de_DE.UTF-8", 1);
    setenv("LC_ALL", "de_DE.UTF-8", 1);
    for (sbx_backend b = SBX_BACKEND_WORKER; b <= SBX_BACKEND_PROCESS; b++) {
        expect_probe(b, NULL, UTC_EN_US);
        expect_probe(b, "{\"env\":{\"TZ\":\"America/New_York\",\"LANG\":\"de_DE.UTF-8\"}}",
                     "[\"America/New_York\",300,240,\"de-DE\",\"1.234,5\"]");
    }
}
END_TEST

START_TEST(policy_environment)
{
    static const struct {
        const char *env, *want;
    } cases[] = {
        {"{\"TZ\":\"Australia/Sydney\"}", "[\"Australia/Sydney\",-660,-600,\"en-US\",\"1,234.5\"]"},
        {"{\"TZ\":\"Asia/Kolkata\",\"LANG\":\"hi_IN\"}",
         "[\"Asia/Kolkata\",-330,-330,\"hi-IN\",\"1,234.5\"]"},
        /* LC_ALL wins over LANG, as ICU reads them; C is en-US; an unknown zone is UTC */
        {"{\"LANG\":\"de_DE\",\"LC_ALL\":\"fr_FR.UTF-8@euro\"}",
         "[\"UTC\",0,0,\"fr-FR\",\"1\xe2\x80\xaf"
         "234,5\"]"},
        {"{\"LANG\":\"C.UTF-8\",\"TZ\":\"Nowhere/Bogus\"}", UTC_EN_US},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char policy[256];
        snprintf(policy, sizeof(policy), "{\"env\":%s}", cases[i].env);
        expect_probe(SBX_BACKEND_WORKER, policy, cases[i].want);
        expect_probe(SBX_BACKEND_PROCESS, policy, cases[i].want);
    }
}
END_TEST

struct racer {
    const char *policy, *want;
    int mismatches;
};

static void *race(void *arg)
{
    struct racer *r = arg;
    sbx_sandbox *sb = sbx_test_sandbox(SBX_BACKEND_WORKER, r->policy);
    for (int i = 0; i < 40; i++) {
        sbx_result res;
        sbx_run_input in = {.code = PROBE, .code_len = strlen(PROBE)};
        sbx_sandbox_run(sb, &in, &res);
        r->mismatches += !res.ok || strcmp(res.value_json, r->want) != 0;
        sbx_result_free(&res);
    }
    sbx_sandbox_destroy(sb);
    return NULL;
}

/* The engine has one zone per process: runs under different zones take turns. */
START_TEST(concurrent_zones)
{
    struct racer racers[3] = {
        {NULL, UTC_EN_US, 0},
        {"{\"env\":{\"TZ\":\"America/New_York\"}}",
         "[\"America/New_York\",300,240,\"en-US\",\"1,234.5\"]", 0},
        {"{\"env\":{\"TZ\":\"Asia/Tokyo\"}}", "[\"Asia/Tokyo\",-540,-540,\"en-US\",\"1,234.5\"]",
         0},
    };
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, race, &racers[i]), 0);
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        ck_assert_msg(racers[i].mismatches == 0, "%s: %d runs saw another zone", racers[i].want,
                      racers[i].mismatches);
    }
}
END_TEST

/* The process tier's JavaScript guest is this build's sbx (<build>/tests/unit/js/test_x ->
 * <build>/sbx), unless SBX_GUEST_BINARY names one. */
static void guest_binary(void)
{
    char self[PATH_MAX], guest[PATH_MAX + 8];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (getenv("SBX_GUEST_BINARY") || n <= 0)
        return;
    self[n] = '\0';
    for (int i = 0; i < 4; i++) {
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
    }
    snprintf(guest, sizeof(guest), "%s/sbx", self);
    setenv("SBX_GUEST_BINARY", guest, 1);
}

int main(void)
{
    guest_binary();
    Suite *s = suite_create("js_zone");
    TCase *tc = tcase_create("zone");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, host_environment_ignored);
    tcase_add_test(tc, policy_environment);
    tcase_add_test(tc, concurrent_zones);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

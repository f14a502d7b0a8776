/* tests/unit/util/test_json_text.c: util/json_text.c, and the value in sbx_result_to_json (issue
 * 23, item 4): a lone surrogate escape becomes U+FFFD and a value deeper than jansson's 2048
 * levels stays what it is, so the value's type is never turned into a string. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sbx.h>

#include "sbx_test.h"
#include "util/json_text.h"

static bool valid(const char *s)
{
    return sbx__json_text_is_valid(s, strlen(s));
}

START_TEST(validates)
{
    static const char *const good[] = {
        "1",  "-0.5e+3", "\"a\\u00e9\\n\"", " [1, {\"a\": [true, false, null]}, \"x\"] ",
        "{}", "[]",      "\"\\ud800\"",     "{\"k\":{\"k\":[[],{}]}}",
    };
    static const char *const bad[] = {
        "",      "[1,]", "{\"a\" 1}", "[1 2]",     "01",       "1.",  "-",
        "[",     "]",    "{\"a\":1",  "\"\\x\"",   "\"\x01\"", "tru", "1 2",
        "{1:2}", "[1]]", "\"abc",     "\"\\u12\"", "nulll",    "{,}", "\"\xff\"",
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        ck_assert_msg(valid(good[i]), "%s", good[i]);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(!valid(bad[i]), "%s", bad[i]);
    /* No recursion: 100,000 levels. */
    size_t n = 100000;
    char *deep = malloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = '\0';
    ck_assert(valid(deep));
    deep[2 * n - 1] = ' ';
    ck_assert(!valid(deep));
    free(deep);
}
END_TEST

static void expect_fixed(const char *in, const char *want, size_t count)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", in);
    ck_assert_uint_eq(sbx__json_text_replace_lone_surrogates(buf, strlen(buf)), count);
    ck_assert_str_eq(buf, want);
}

START_TEST(lone_surrogates)
{
    expect_fixed("\"\\ud800\"", "\"\\ufffd\"", 1);
    expect_fixed("{\"\\udc00k\":\"\\ud83d\\ude00\\ud83d\"}",
                 "{\"\\ufffdk\":\"\\ud83d\\ude00\\ufffd\"}", 2);
    expect_fixed("\"\\\\ud800\"", "\"\\\\ud800\"", 0); /* an escaped backslash, then text */
    expect_fixed("\"\\ud800\\n\"", "\"\\ufffd\\n\"", 1);
    expect_fixed("\"\\ude00\\ud800\"", "\"\\ufffd\\ufffd\"", 2);
}
END_TEST

static json_t *value_of(const char *value_json)
{
    sbx_result r = {.ok = true, .value_json = (char *)value_json, .exit_code = -1};
    char *s = sbx_result_to_json(&r);
    ck_assert_ptr_nonnull(s);
    json_error_t je;
    json_t *o = json_loads(s, 0, &je);
    ck_assert_msg(o != NULL || strstr(je.text, "depth"), "%s: %s", s, je.text);
    json_t *v = o ? json_incref(json_object_get(o, "value")) : NULL;
    json_decref(o);
    sbx_free(s);
    return v;
}

START_TEST(result_value_keeps_its_type)
{
    json_t *v = value_of("{\"admin\":false,\"note\":\"\\ud800\"}");
    ck_assert(json_is_object(v));
    ck_assert(json_is_false(json_object_get(v, "admin")));
    ck_assert_str_eq(json_string_value(json_object_get(v, "note")), "\xef\xbf\xbd");
    json_decref(v);
    v = value_of("not json");
    ck_assert(json_is_null(v));
    json_decref(v);
    /* 3,000 levels: jansson cannot load it, so the text is spliced in as it is. */
    size_t n = 3000;
    char *deep = malloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = '\0';
    sbx_result r = {.ok = true, .value_json = deep, .exit_code = -1};
    char *s = sbx_result_to_json(&r);
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(strncmp(s, "{\"ok\":true,\"value\":[[[", 22) == 0, "%.40s", s);
    ck_assert(strstr(s, deep) != NULL);
    ck_assert(sbx__json_text_is_valid(s, strlen(s)));
    sbx_free(s);
    free(deep);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json_text");
    TCase *tc = tcase_create("json_text");
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, validates);
    tcase_add_test(tc, lone_surrogates);
    tcase_add_test(tc, result_value_keeps_its_type);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

/* tests/unit/telemetry/test_text.c: the exporters' escaping, table-driven: JSON strings with
 * UTF-8 repair (Unicode table 3-7 edge cases), Prometheus label values, HELP text and names. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/text.h"
#include "util/alloc.h"
#include "sbx_test.h"

#define TIMEOUT_S 10
#define FFFD      "\xef\xbf\xbd"

static const struct {
    const char *in, *want;
} JSON_CASES[] = {
    {"", "\"\""},
    {"plain", "\"plain\""},
    {"q\"b\\s", "\"q\\\"b\\\\s\""},
    {"\n\r\t", "\"\\n\\r\\t\""},
    {"\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\""},
    {"\xc3\xa9", "\"\xc3\xa9\""},                        /* 2 bytes */
    {"\xe2\x82\xac", "\"\xe2\x82\xac\""},                /* 3 bytes */
    {"\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""},        /* 4 bytes */
    {"\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\""},        /* U+10FFFF */
    {"\xc0\xaf", "\"" FFFD FFFD "\""},                   /* overlong 2-byte lead */
    {"\xe0\x80\xaf", "\"" FFFD FFFD FFFD "\""},          /* overlong 3-byte */
    {"\xed\xa0\x80", "\"" FFFD FFFD FFFD "\""},          /* surrogate */
    {"\xf0\x80\x80\xaf", "\"" FFFD FFFD FFFD FFFD "\""}, /* overlong 4-byte */
    {"\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\""}, /* above U+10FFFF */
    {"\xf5\x80", "\"" FFFD FFFD "\""},
    {"\xe2\x82", "\"" FFFD FFFD "\""},         /* truncated at the end */
    {"\xe2\x28\xa1", "\"" FFFD "(" FFFD "\""}, /* bad continuation */
    {"\xf0\x9f\x98(", "\"" FFFD FFFD FFFD "(\""},
};

START_TEST(test_json_string)
{
    struct sbx__buf b;
    sbx__buf_init(&b, 1024);
    ck_assert(sbx__telemetry_json_string(&b, JSON_CASES[_i].in));
    ck_assert_str_eq(b.data, JSON_CASES[_i].want);
    sbx__buf_free(&b);
}
END_TEST

static char *apply(bool (*fn)(struct sbx__buf *, const char *), const char *in)
{
    struct sbx__buf b;
    sbx__buf_init(&b, 1024);
    ck_assert(fn(&b, in));
    return sbx__buf_take(&b, NULL);
}

static bool metric_name(struct sbx__buf *b, const char *s)
{
    return sbx__telemetry_prom_name(b, s, false);
}

static bool label_name(struct sbx__buf *b, const char *s)
{
    return sbx__telemetry_prom_name(b, s, true);
}

static const struct {
    bool (*fn)(struct sbx__buf *, const char *);
    const char *in, *want;
} PROM_CASES[] = {
    {sbx__telemetry_prom_label_value, "a\"b\\c\nd\te", "a\\\"b\\\\c\\nd\te"},
    {sbx__telemetry_prom_label_value, "\xff", FFFD},
    {sbx__telemetry_prom_help, "h\\e\nl\"p", "h\\\\e\\nl\"p"},
    {metric_name, "sandbox.runs_total", "sandbox_runs_total"},
    {metric_name, "a..b--c", "a_b_c"},
    {metric_name, "ns:metric", "ns:metric"},
    {metric_name, "9lives", "_9lives"},
    {metric_name, "\xc3\xa9t\xc3\xa9", "_t_"},
    {label_name, "ns:label", "ns_label"},
    {label_name, "__reserved", "_reserved"},
};

START_TEST(test_prometheus_text)
{
    char *got = apply(PROM_CASES[_i].fn, PROM_CASES[_i].in);
    ck_assert_str_eq(got ? got : "", PROM_CASES[_i].want);
    sbx__free(got);
}
END_TEST

START_TEST(test_numbers)
{
    struct sbx__buf b;
    sbx__buf_init(&b, 1024);
    ck_assert(sbx__telemetry_json_double(&b, 0.1) && SBX__LIT(&b, " "));
    ck_assert(sbx__telemetry_json_double(&b, 1.0 / 3) && SBX__LIT(&b, " "));
    ck_assert(sbx__telemetry_json_double(&b, 1e300) && SBX__LIT(&b, " "));
    ck_assert(sbx__telemetry_json_u64(&b, UINT64_MAX));
    ck_assert_str_eq(b.data, "0.1 0.33333333333333331 1e+300 \"18446744073709551615\"");
    double third = strtod(strchr(b.data, ' ') + 1, NULL);
    ck_assert(third == 1.0 / 3); /* shortest form still round-trips */
    sbx__buf_free(&b);
}
END_TEST

START_TEST(test_capped_buffer)
{
    struct sbx__buf b;
    sbx__buf_init(&b, 4);
    sbx__telemetry_json_string(&b, "long value");
    ck_assert(b.is_truncated); /* callers check is_truncated and discard the document */
    ck_assert_int_eq(b.len, 4);
    sbx__buf_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("telemetry_text");
    TCase *tc = tcase_create("text");
    tcase_set_timeout(tc, TIMEOUT_S);
    tcase_add_loop_test(tc, test_json_string, 0, (int)(sizeof(JSON_CASES) / sizeof(JSON_CASES[0])));
    tcase_add_loop_test(tc, test_prometheus_text, 0,
                        (int)(sizeof(PROM_CASES) / sizeof(PROM_CASES[0])));
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_capped_buffer);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

/* The public policy pieces of <sbx/plugin.h>: preopens, the outbound allowlist and gate, and
 * a module's capability imports, each driven through sbx_policy_parse() as an embedder would. */
#include <stdlib.h>
#include <string.h>

#include <sbx.h>

#include "sbx_test.h"
#include "util/alloc.h"
#include "wasm_builder.h"

static sbx_policy *parse(const char *json)
{
    sbx_policy *p = NULL;
    char err[256];
    ck_assert_msg(sbx_policy_parse(json, strlen(json), &p, err, sizeof(err)) == SBX_OK, "%s", err);
    return p;
}

START_TEST(preopens_from_policy)
{
    sbx_policy *p = parse("{\"fs\": [\"/srv/data::/data\", \"rw:/tmp/out\", \"/x::/data/\","
                          " \"rw:/y::/data\"]}");
    sbx_preopen *list;
    size_t n;
    ck_assert_int_eq(sbx_preopens_build(p, &list, &n), SBX_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(list[0].host_path, "/srv/data"); /* first grant wins the host path */
    ck_assert_str_eq(list[0].guest_path, "/data");
    ck_assert(list[0].is_writable); /* a later rw: grant for the same guest path */
    ck_assert_str_eq(list[1].guest_path, "/tmp/out");
    ck_assert(list[1].is_writable);
    sbx_preopens_free(list, n);
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(preopens_none_and_bad_arguments)
{
    sbx_policy *p = parse("{}");
    sbx_preopen *list = (void *)1;
    size_t n = 7;
    ck_assert_int_eq(sbx_preopens_build(p, &list, &n), SBX_OK);
    ck_assert_ptr_null(list);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(sbx_preopens_build(p, NULL, &n), SBX_E_INVALID_ARGUMENT);
    ck_assert_int_eq(sbx_preopens_build(p, &list, NULL), SBX_E_INVALID_ARGUMENT);
    sbx_preopens_free(NULL, 3);
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(preopens_nomem)
{
    sbx_policy *p = parse("{\"fs\": [\"/a\", \"/b\"]}");
    int failures = 0;
    for (unsigned long k = 1; k <= 8; k++) {
        sbx_preopen *list;
        size_t n;
        sbx__alloc_fail_at(k);
        sbx_err rc = sbx_preopens_build(p, &list, &n);
        sbx__alloc_fail_at(0);
        if (rc == SBX_OK) {
            ck_assert_uint_eq(n, 2);
            sbx_preopens_free(list, n);
        } else {
            ck_assert_int_eq(rc, SBX_E_NOMEM);
            failures++;
        }
    }
    ck_assert_int_ge(failures, 2); /* both the internal and the public list were failed */
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(preopen_match_longest_prefix)
{
    sbx_policy *p = parse("{\"fs\": [\"/h::/data\", \"/s::/data/sub\", \"/r::/\"]}");
    sbx_preopen *list;
    size_t n;
    ck_assert_int_eq(sbx_preopens_build(p, &list, &n), SBX_OK);
    const char *rest;
    ck_assert_int_eq(sbx_preopen_match(list, n, "/data/sub/x", &rest), 1);
    ck_assert_str_eq(rest, "x");
    ck_assert_int_eq(sbx_preopen_match(list, n, "/data/subway", &rest), 0);
    ck_assert_str_eq(rest, "subway");
    ck_assert_int_eq(sbx_preopen_match(list, n, "/data", &rest), 0);
    ck_assert_str_eq(rest, ".");
    ck_assert_int_eq(sbx_preopen_match(list, n, "/etc/passwd", &rest), 2);
    ck_assert_int_eq(sbx_preopen_match(list, 2, "/etc/passwd", &rest), -1);
    ck_assert_int_eq(sbx_preopen_match(list, n, NULL, &rest), -1);
    ck_assert_int_eq(sbx_preopen_match(NULL, 1, "/data", &rest), -1);
    ck_assert_int_eq(sbx_preopen_match(NULL, 0, "/data", NULL), -1);
    /* a caller-built list with a hole: the hole matches nothing, the rest still do */
    sbx_preopen holes[] = {{"/x", NULL, false}, {"/y", "/data", false}};
    ck_assert_int_eq(sbx_preopen_match(holes, 2, "/data/f", NULL), 1);
    sbx_preopens_free(list, n);
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(outbound_allowlist_and_gate)
{
    sbx_policy *p =
        parse("{\"net\": {\"outbound\": [\"API.example.com:443\", \"*.example.org:443\","
              " \"any.test:*\", \"[::1]:8080\", \"10.0.0.5:53\"]}}");
    sbx_outbound_rule *list;
    size_t n;
    ck_assert_int_eq(sbx_outbound_allowlist_build(p, &list, &n), SBX_OK);
    ck_assert_uint_eq(n, 5);
    ck_assert_str_eq(list[0].host, "api.example.com");
    ck_assert_uint_eq(list[0].port, 443);
    ck_assert(!list[0].is_wildcard && !list[0].is_any_port);
    ck_assert(list[1].is_wildcard);
    ck_assert(list[2].is_any_port);
    ck_assert_uint_eq(list[2].port, 0);
    ck_assert_str_eq(list[3].host, "::1");
    static const struct {
        const char *host;
        uint16_t port;
        bool is_allowed;
    } cases[] = {
        {"api.example.com", 443, true}, {"API.EXAMPLE.COM.", 443, true},
        {"api.example.com", 80, false}, {"a.example.org", 443, true},
        {"example.org", 443, false},    {"evil-example.org", 443, false},
        {"any.test", 1, true},          {"0:0::1", 8080, true},
        {"[::1]", 8080, true},          {"10.0.0.5", 53, true},
        {"10.0.0.6", 53, false},        {"", 443, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        ck_assert_msg(sbx_outbound_allowed(list, n, cases[i].host, cases[i].port) ==
                          cases[i].is_allowed,
                      "%s:%u", cases[i].host, cases[i].port);
    ck_assert(!sbx_outbound_allowed(list, n, NULL, 443));
    ck_assert(!sbx_outbound_allowed(NULL, 2, "any.test", 1));
    sbx_outbound_rule hole[] = {{NULL, 1, false, false}, {"h.test", 1, false, false}};
    ck_assert(sbx_outbound_allowed(hole, 2, "h.test", 1));
    sbx_outbound_allowlist_free(list, n);
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(outbound_deny_by_default_and_nomem)
{
    sbx_policy *p = parse("{}");
    sbx_outbound_rule *list = (void *)1;
    size_t n = 3;
    ck_assert_int_eq(sbx_outbound_allowlist_build(p, &list, &n), SBX_OK);
    ck_assert_ptr_null(list);
    ck_assert(!sbx_outbound_allowed(list, n, "localhost", 80));
    ck_assert_int_eq(sbx_outbound_allowlist_build(p, NULL, &n), SBX_E_INVALID_ARGUMENT);
    sbx_policy_destroy(p);
    p = parse("{\"net\": {\"outbound\": [\"a.test:1\", \"b.test:2\"]}}");
    for (unsigned long k = 1; k <= 4; k++) {
        sbx__alloc_fail_at(k);
        sbx_err rc = sbx_outbound_allowlist_build(p, &list, &n);
        sbx__alloc_fail_at(0);
        ck_assert_int_eq(rc, k <= 3 ? SBX_E_NOMEM : SBX_OK);
        if (rc == SBX_OK)
            sbx_outbound_allowlist_free(list, n);
    }
    sbx_outbound_allowlist_free(NULL, 1);
    sbx_policy_destroy(p);
}
END_TEST

static uint8_t *module_with_imports(size_t *len)
{
    struct wb *w = wb_new();
    wb_import_func(w, "wasi_snapshot_preview1", "proc_exit", "i", "");
    wb_import_func(w, "host", "log", "i", "");
    wb_import_func(w, "host", "mix", "iIfF", "I");
    wb_import_func(w, "env", "none", "", "");
    uint8_t *bytes = wb_finish(w, len);
    wb_free(w);
    ck_assert_ptr_nonnull(bytes);
    return bytes;
}

START_TEST(module_imports_listed_with_signatures)
{
    size_t len, n;
    uint8_t *bytes = module_with_imports(&len);
    sbx_wasm_import *list;
    char err[256];
    ck_assert_int_eq(sbx_wasm_module_imports(bytes, len, &list, &n, err, sizeof(err)), SBX_OK);
    ck_assert_uint_eq(n, 3); /* WASI is not a capability */
    ck_assert_str_eq(list[0].name, "host.log");
    ck_assert_str_eq(list[0].signature, "(i32) -> ()");
    ck_assert_uint_eq(list[0].param_count, 1);
    ck_assert_str_eq(list[1].name, "host.mix");
    ck_assert_str_eq(list[1].signature, "(i32, i64, f32, f64) -> (i64)");
    ck_assert_int_eq(list[1].params[3], SBX_WASM_F64);
    ck_assert_int_eq(list[1].results[0], SBX_WASM_I64);
    ck_assert_str_eq(list[2].signature, "() -> ()");
    sbx_wasm_imports_free(list, n);
    free(bytes);
}
END_TEST

START_TEST(module_imports_errors)
{
    static const uint8_t junk[] = {0, 'a', 's', 'm', 9, 0, 0, 0};
    sbx_wasm_import *list;
    size_t n;
    char err[256];
    ck_assert_int_eq(sbx_wasm_module_imports(junk, sizeof(junk), &list, &n, err, sizeof(err)),
                     SBX_E_WASM_INVALID_MODULE);
    ck_assert_ptr_nonnull(strstr(err, "malformed"));
    ck_assert_int_eq(sbx_wasm_module_imports(NULL, 0, &list, &n, err, sizeof(err)),
                     SBX_E_INVALID_ARGUMENT);
    size_t len;
    uint8_t *none = wb_fixture_reactor(&len);
    ck_assert_int_eq(sbx_wasm_module_imports(none, len, &list, &n, NULL, 0), SBX_OK);
    ck_assert_ptr_null(list);
    ck_assert_uint_eq(n, 0);
    free(none);
    uint8_t *bytes = module_with_imports(&len);
    int failures = 0;
    for (unsigned long k = 1; k <= 400 && failures >= 0; k++) {
        sbx__alloc_fail_at(k);
        sbx_err rc = sbx_wasm_module_imports(bytes, len, &list, &n, err, sizeof(err));
        sbx__alloc_fail_at(0);
        if (rc == SBX_OK) {
            ck_assert_uint_eq(n, 3);
            sbx_wasm_imports_free(list, n);
            break;
        }
        ck_assert_int_eq(rc, SBX_E_NOMEM);
        failures++;
    }
    ck_assert_int_gt(failures, 3);
    sbx_wasm_imports_free(NULL, 2);
    free(bytes);
}
END_TEST

static Suite *grants_suite(void)
{
    Suite *s = suite_create("plugin_grants");
    TCase *tc = tcase_create("grants");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, preopens_from_policy);
    tcase_add_test(tc, preopens_none_and_bad_arguments);
    tcase_add_test(tc, preopens_nomem);
    tcase_add_test(tc, preopen_match_longest_prefix);
    tcase_add_test(tc, outbound_allowlist_and_gate);
    tcase_add_test(tc, outbound_deny_by_default_and_nomem);
    tcase_add_test(tc, module_imports_listed_with_signatures);
    tcase_add_test(tc, module_imports_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(grants_suite());
}

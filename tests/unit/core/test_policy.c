/* Policy validation at the boundary: defaults, every range, paths in messages. */
#include <string.h>
#include <unistd.h>

#include "core/policy.h"
#include "sbx_test.h"
#include "util/alloc.h"

static sbx_policy *parse_ok(const char *json)
{
    char err[512] = "";
    sbx_policy *p = NULL;
    sbx_err e = sbx_policy_parse(json, strlen(json), &p, err, sizeof(err));
    ck_assert_msg(e == SBX_OK, "%s: %s", json, err);
    return p;
}

START_TEST(defaults_are_finite_and_deny)
{
    sbx_policy *p = parse_ok("{}");
    ck_assert_uint_eq(p->timeout_ms, 5000);
    ck_assert_uint_eq(p->memory_bytes, 64u << 20);
    ck_assert_uint_eq(p->cpu_percent, 100);
    ck_assert_uint_eq(p->max_output_bytes, 1u << 20);
    ck_assert_uint_eq(p->pids, 64);
    ck_assert_uint_eq(p->fuel, 0);
    ck_assert_uint_eq(p->fs_count, 0);
    ck_assert(!p->net_loopback);
    ck_assert_uint_eq(p->outbound_count, 0);
    ck_assert_int_eq(sbx__policy_capability(p, "host.log"), SBX_CAP_DENY);
    ck_assert_int_eq(p->wasm_tier, SBX_WASM_TIER_AUTO);
    ck_assert(p->wasm_cache);
    ck_assert(!p->js_jit);
    sbx_policy_destroy(p);
}
END_TEST

struct bad_case {
    const char *json;
    const char *message; /* expected substring */
};

static const struct bad_case bad[] = {
    {"{\"cpuPercent\": 150}", "policy.cpuPercent: must be an integer in 1..100, got 150"},
    {"{\"timeoutMs\": -1}", "policy.timeoutMs: must be an integer in 1..3600000, got -1"},
    {"{\"timeoutMs\": 0}", "policy.timeoutMs: must be an integer in 1..3600000, got 0"},
    {"{\"timeoutMs\": 1.5}", "policy.timeoutMs: must be an integer in 1..3600000, got 1.5"},
    {"{\"timeoutMs\": \"5\"}", "policy.timeoutMs: must be an integer in 1..3600000, got a string"},
    {"{\"memoryBytes\": 1024}", "policy.memoryBytes: must be an integer in 262144.."},
    {"{\"pids\": 0}", "policy.pids: must be an integer in 1..32768, got 0"},
    {"{\"fuel\": -5}", "policy.fuel: must be an integer"},
    {"{\"maxOutputBytes\": true}", "policy.maxOutputBytes: must be an integer"},
    {"{\"bogus\": 1}", "policy.bogus: unknown key"},
    {"{\"timeoutMs\": 5, \"timeoutMs\": 6}", "duplicate object key"},
    {"{\"fs\": [\"rw:\"]}", "policy.fs[0]: host path is empty"},
    {"{\"fs\": [\"/a::\"]}", "policy.fs[0]: guest path is empty"},
    {"{\"fs\": [\"/a\", 3]}", "policy.fs[1]: must be a string"},
    {"{\"fs\": \"/a\"}", "policy.fs: must be an array"},
    {"{\"timeoutMs\": null}", "policy.timeoutMs: must be an integer in 1..3600000, got null"},
    {"{\"pids\": [1]}", "policy.pids: must be an integer in 1..32768, got an array"},
    {"{\"fuel\": {}}", "policy.fuel: must be an integer"},
    {"{\"cpuPercent\": {}}", "policy.cpuPercent: must be an integer in 1..100, got an object"},
    {"{\"env\": [\"A=1\"]}", "policy.env: must be an object of strings"},
    {"{\"net\": true}", "policy.net: must be an object"},
    {"{\"net\": {\"outbound\": \"a.org:1\"}}", "policy.net.outbound: must be an array"},
    {"{\"capabilities\": [\"host.log\"]}", "policy.capabilities: must be an object"},
    {"{\"env\": {\"A\": 1}}", "policy.env.A: must be a string"},
    {"{\"env\": {\"A=B\": \"x\"}}", "policy.env.A=B: variable name"},
    {"{\"env\": {\"A\": \"x\\u0000y\"}}", "is not allowed"},
    {"{\"net\": {\"wifi\": true}}", "policy.net.wifi: unknown key"},
    {"{\"net\": {\"loopback\": 1}}", "policy.net.loopback: must be a boolean"},
    {"{\"net\": {\"outbound\": [\"example.org\"]}}", "policy.net.outbound[0]: expected"},
    {"{\"net\": {\"outbound\": [\"a.org:0\"]}}", "policy.net.outbound[0]: port must be"},
    {"{\"net\": {\"outbound\": [\"a.org:70000\"]}}", "policy.net.outbound[0]: port must be"},
    {"{\"net\": {\"outbound\": [\"a b:80\"]}}", "policy.net.outbound[0]: invalid host"},
    {"{\"net\": {\"outbound\": [\"[::1:80\"]}}", "policy.net.outbound[0]: malformed IPv6"},
    {"{\"capabilities\": {\"log\": \"allow\"}}", "policy.capabilities.log: name must be"},
    {"{\"capabilities\": {\"host.log\": \"maybe\"}}", "policy.capabilities.host.log: must be"},
    {"{\"wasm\": \"compiled\"}", "policy.wasm: must be an object"},
    {"{\"wasm\": {\"tier\": \"jit\"}}",
     "policy.wasm.tier: must be \"auto\", \"interp\" or \"compiled\", got \"jit\""},
    {"{\"wasm\": {\"tier\": 1}}", "policy.wasm.tier: must be a string"},
    {"{\"wasm\": {\"level\": 2}}", "policy.wasm.level: unknown key"},
    {"{\"wasm\": {\"cache\": \"no\"}}", "policy.wasm.cache: must be a boolean, got a string"},
    {"{\"wasm\": {\"cache\": 0}}", "policy.wasm.cache: must be a boolean, got 0"},
    {"{\"js\": true}", "policy.js: must be an object"},
    {"{\"js\": {\"jit\": 1}}", "policy.js.jit: must be a boolean, got 1"},
    {"{\"js\": {\"jit\": \"on\"}}", "policy.js.jit: must be a boolean, got a string"},
    {"{\"js\": {\"jit\": null}}", "policy.js.jit: must be a boolean, got null"},
    {"{\"js\": {\"ion\": true}}", "policy.js.ion: unknown key"},
    {"[1, 2]", "policy: must be a JSON object"},
    {"{\"timeoutMs\": }", "policy: syntax error at line 1, column"},
    {"{\n  \"a\": 1,\n  oops\n}", "policy: syntax error at line 3, column"},
    {"", "policy: syntax error at line"},
    /* Found by fuzz_policy_parse: messages stay one line, hosts stay printable in full. */
    {"{\"a\\nb\": 1}", "policy.a\\x0ab: unknown key"},
    {"{\"net\":{\"outbound\":[\"a\\nb:1\"]}}", "invalid host \"a\\x0ab:1\""},
    {"{\"net\":{\"outbound\":["
     "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa."
     "org:1"
     "\"]}}",
     "policy.net.outbound[0]: host is longer than 253 bytes"},
};

START_TEST(rejects_bad_field)
{
    const struct bad_case *c = &bad[_i];
    char err[512] = "";
    sbx_policy *p = (sbx_policy *)1;
    sbx_err e = sbx_policy_parse(c->json, strlen(c->json), &p, err, sizeof(err));
    ck_assert_int_eq(e, SBX_E_INVALID_OPTIONS);
    ck_assert_ptr_null(p);
    ck_assert_msg(strstr(err, c->message), "%s: got \"%s\", want \"%s\"", c->json, err, c->message);
}
END_TEST

START_TEST(parses_every_field)
{
    sbx_policy *p =
        parse_ok("{\"timeoutMs\": 100, \"memoryBytes\": 262144, \"cpuPercent\": 50,"
                 "\"maxOutputBytes\": 10, \"pids\": 3, \"fuel\": 1000,"
                 "\"env\": {\"LANG\": \"C\"}, \"fs\": [\"/data\", \"rw:/out::/o\"],"
                 "\"net\": {\"loopback\": true, \"outbound\": [\"API.example.org:443\","
                 "\"*.cdn.org:*\", \"[::1]:8080\", \"10.0.0.5:*\"]},"
                 "\"capabilities\": {\"host.log\": \"allow\", \"host.kv\": \"deny\"},"
                 "\"wasm\": {\"tier\": \"compiled\", \"cache\": false}, \"js\": {\"jit\": true}}");
    ck_assert_int_eq(p->wasm_tier, SBX_WASM_TIER_COMPILED);
    ck_assert(!p->wasm_cache);
    ck_assert(p->js_jit);
    ck_assert_uint_eq(p->timeout_ms, 100);
    ck_assert_uint_eq(p->cpu_percent, 50);
    ck_assert_uint_eq(p->fuel, 1000);
    ck_assert_str_eq(p->env[0].name, "LANG");
    ck_assert_str_eq(p->fs[0].host_path, "/data");
    ck_assert_str_eq(p->fs[0].guest_path, "/data");
    ck_assert(!p->fs[0].is_writable);
    ck_assert_str_eq(p->fs[1].host_path, "/out");
    ck_assert_str_eq(p->fs[1].guest_path, "/o");
    ck_assert(p->fs[1].is_writable);
    ck_assert(p->net_loopback);
    ck_assert_str_eq(p->outbound[0].host, "api.example.org");
    ck_assert_uint_eq(p->outbound[0].port, 443);
    ck_assert(p->outbound[1].is_wildcard && p->outbound[1].is_any_port);
    ck_assert_str_eq(p->outbound[2].host, "::1");
    ck_assert(p->outbound[3].is_any_port);
    ck_assert_int_eq(sbx__policy_capability(p, "host.log"), SBX_CAP_ALLOW);
    ck_assert_int_eq(sbx__policy_capability(p, "host.kv"), SBX_CAP_DENY);
    ck_assert_int_eq(sbx__policy_capability(p, "host.other"), SBX_CAP_DENY);
    ck_assert_uint_eq(sbx_policy_timeout_ms(p), 100);
    ck_assert_uint_eq(sbx_policy_memory_bytes(p), 262144);
    ck_assert_uint_eq(sbx_policy_fuel(p), 1000);

    /* The resolved JSON parses back to the same policy. */
    char *json = sbx_policy_to_json(p);
    ck_assert_ptr_nonnull(json);
    ck_assert_ptr_nonnull(strstr(json, "\"rw:/out::/o\""));
    ck_assert_ptr_nonnull(strstr(json, "\"[::1]:8080\""));
    sbx_policy *q = parse_ok(json);
    char *json2 = sbx_policy_to_json(q);
    ck_assert_str_eq(json, json2);
    sbx_free(json);
    sbx_free(json2);
    sbx_policy_destroy(q);
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(with_appends_merges_replaces)
{
    sbx_policy *p = parse_ok("{\"fs\": [\"/a\"], \"env\": {\"A\": \"1\"}}");
    char err[256] = "";
    sbx_policy *q = NULL;
    ck_assert_int_eq(sbx_policy_with(p, "fs", "\"rw:/b\"", &q, err, sizeof(err)), SBX_OK);
    ck_assert_uint_eq(q->fs_count, 2);
    ck_assert(q->fs[1].is_writable);
    sbx_policy *r = NULL;
    ck_assert_int_eq(sbx_policy_with(q, "env", "{\"B\": \"2\"}", &r, err, sizeof(err)), SBX_OK);
    ck_assert_uint_eq(r->env_count, 2);
    sbx_policy *s = NULL;
    ck_assert_int_eq(sbx_policy_with(r, "net.loopback", "true", &s, err, sizeof(err)), SBX_OK);
    ck_assert(s->net_loopback);
    sbx_policy *t = NULL;
    ck_assert_int_eq(sbx_policy_with(s, "wasm.tier", "\"interp\"", &t, err, sizeof(err)), SBX_OK);
    ck_assert_int_eq(t->wasm_tier, SBX_WASM_TIER_INTERP);
    sbx_policy_destroy(t);
    ck_assert_int_eq(sbx_policy_with(s, "js.jit", "true", &t, err, sizeof(err)), SBX_OK);
    ck_assert(t->js_jit);
    sbx_policy_destroy(t);
    ck_assert_int_eq(sbx_policy_with(s, "js.jit", "\"yes\"", &t, err, sizeof(err)),
                     SBX_E_INVALID_OPTIONS);
    ck_assert_ptr_nonnull(strstr(err, "policy.js.jit: must be a boolean"));
    t = NULL;
    ck_assert_int_eq(sbx_policy_with(s, "timeoutMs", "0", &t, err, sizeof(err)),
                     SBX_E_INVALID_OPTIONS);
    ck_assert_ptr_nonnull(strstr(err, "policy.timeoutMs"));
    ck_assert_int_eq(sbx_policy_with(s, "nope.x", "1", &t, err, sizeof(err)),
                     SBX_E_INVALID_OPTIONS);
    ck_assert_int_eq(sbx_policy_with(s, "timeoutMs", "{", &t, err, sizeof(err)),
                     SBX_E_INVALID_OPTIONS);
    /* Found by fuzz_policy_parse: jansson quotes the bad token, newline included. */
    ck_assert_int_eq(sbx_policy_with(s, "maxOutputBytes", "\"\\\n[\"", &t, err, sizeof(err)),
                     SBX_E_INVALID_OPTIONS);
    ck_assert_ptr_null(strchr(err, '\n'));
    ck_assert_ptr_nonnull(strstr(err, "policy.maxOutputBytes: syntax error"));
    ck_assert_int_eq(sbx_policy_with(NULL, "timeoutMs", "1", &t, err, sizeof(err)),
                     SBX_E_INVALID_ARGUMENT);
    ck_assert_uint_eq(p->fs_count, 1); /* the base is untouched */
    sbx_policy_destroy(s);
    sbx_policy_destroy(r);
    sbx_policy_destroy(q);
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(parse_file_reports_io_and_syntax)
{
    char err[256] = "";
    sbx_policy *p = NULL;
    ck_assert_int_eq(sbx_policy_parse_file("/nonexistent/p.json", &p, err, sizeof(err)),
                     SBX_E_INVALID_OPTIONS);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/p.json"));
    char path[] = "/tmp/sbx-policy-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "{\n\"pids\": 2,\n}", 14), 14);
    close(fd);
    ck_assert_int_eq(sbx_policy_parse_file(path, &p, err, sizeof(err)), SBX_E_INVALID_OPTIONS);
    ck_assert_msg(strstr(err, "syntax error at line 3"), "%s", err);
    unlink(path);
    ck_assert_int_eq(sbx_policy_parse(NULL, 3, &p, err, sizeof(err)), SBX_E_INVALID_OPTIONS);
    ck_assert_int_eq(sbx_policy_parse_file(NULL, &p, err, sizeof(err)), SBX_E_INVALID_OPTIONS);
    ck_assert_str_eq(err, "policy: invalid argument");
    /* No room for a message: the verdict alone, and nothing written. */
    err[0] = '#';
    ck_assert_int_eq(sbx_policy_parse("{\"pids\": 0}", 11, &p, err, 0), SBX_E_INVALID_OPTIONS);
    ck_assert_int_eq(err[0], '#');
    ck_assert_ptr_null(p);
    sbx_policy_destroy(NULL);
}
END_TEST

/* #29 item 4: one policy shared by reference, never copied through JSON. */
START_TEST(shared_by_reference)
{
    sbx_policy *p = parse_ok("{\"timeoutMs\": 100, \"env\": {\"A\": \"1\"}, \"fs\": [\"/d\"],"
                             "\"net\": {\"outbound\": [\"h.test:1\"]},"
                             "\"capabilities\": {\"host.log\": \"allow\"}}");
    ck_assert_uint_eq(atomic_load(&p->refs), 1);
    struct sbx_policy *r = sbx__policy_ref(p);
    ck_assert_ptr_eq(r, p);
    ck_assert_uint_eq(atomic_load(&p->refs), 2);
    sbx_policy_destroy(p); /* the caller's; the handle's still holds it */
    ck_assert_uint_eq(atomic_load(&r->refs), 1);
    ck_assert_str_eq(r->outbound[0].host, "h.test");
    /* The JS guest's text is made once and kept with the policy. */
    const char *j1 = sbx__policy_json(r), *j2 = sbx__policy_json(r);
    ck_assert_ptr_nonnull(j1);
    ck_assert_ptr_eq(j1, j2);
    char *fresh = sbx_policy_to_json(r);
    ck_assert_str_eq(j1, fresh);
    /* A copy is a new policy with equal contents and its own strings. */
    struct sbx_policy *c = sbx__policy_copy(r);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_ne(c->fs[0].host_path, r->fs[0].host_path);
    char *cj = sbx_policy_to_json(c);
    ck_assert_str_eq(cj, fresh);
    sbx_free(cj);
    sbx_free(fresh);
    sbx_policy_destroy(c);
    sbx_policy_destroy(r);
}
END_TEST

/* Every allocation failure of a copy is a clean NULL (ASan: nothing leaks). */
START_TEST(copy_alloc_failures)
{
    sbx_policy *p = parse_ok("{\"env\": {\"A\": \"1\", \"B\": \"2\"}, \"fs\": [\"/d\", \"/e\"],"
                             "\"net\": {\"outbound\": [\"h.test:1\"]},"
                             "\"capabilities\": {\"host.log\": \"allow\"}}");
    bool was_whole = false;
    for (int n = 1; n < 64 && !was_whole; n++) {
        sbx__alloc_fail_at((unsigned long)n);
        struct sbx_policy *c = sbx__policy_copy(p);
        sbx__alloc_fail_at(0);
        was_whole = c != NULL;
        sbx_policy_destroy(c);
    }
    ck_assert(was_whole);
    sbx_policy_destroy(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("policy");
    TCase *tc = tcase_create("policy");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, defaults_are_finite_and_deny);
    tcase_add_loop_test(tc, rejects_bad_field, 0, (int)(sizeof(bad) / sizeof(bad[0])));
    tcase_add_test(tc, parses_every_field);
    tcase_add_test(tc, with_appends_merges_replaces);
    tcase_add_test(tc, parse_file_reports_io_and_syntax);
    tcase_add_test(tc, shared_by_reference);
    tcase_add_test(tc, copy_alloc_failures);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

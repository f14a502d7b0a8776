/* test_alloc.c: allocation-failure walk over the plugin handle. Failing the Nth allocation for
 * every N from 1 until a create-call-destroy cycle succeeds must always end in a clean error or
 * a clean result: no crash, no leak (the sanitizer build checks), no half-built handle. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sbx.h>

#include "util/alloc.h"
#include "wasm_builder.h"
#include "sbx_test.h"

static void answer(void *user, const sbx_wasm_value *args, size_t n, sbx_wasm_completion *c)
{
    (void)user;
    (void)args;
    (void)n;
    sbx_wasm_value v = {.type = SBX_WASM_I32, .of.i32 = 5};
    sbx_wasm_completion_finish(c, &v, 1);
}

/* One full cycle; returns true when every step succeeded. */
static bool cycle(const uint8_t *bytes, size_t len, const sbx_policy *p)
{
    sbx_wasm_host_func hf = {"host.answer", "() -> i32", answer, NULL};
    sbx_wasm_options opt = {.size = sizeof(opt), .host_funcs = &hf, .host_func_count = 1};
    sbx_wasm_sandbox *sb = NULL;
    char err[256];
    sbx_err rc = sbx_wasm_sandbox_create(bytes, len, p, &opt, &sb, err, sizeof(err));
    if (rc != SBX_OK) {
        ck_assert_ptr_null(sb);
        ck_assert_msg(rc == SBX_E_NOMEM || rc == SBX_E_WASM_INVALID_MODULE ||
                          rc == SBX_E_WASM_LINK || rc == SBX_E_WASM_INSTANTIATE ||
                          rc == SBX_E_INVALID_OPTIONS,
                      "unexpected %s: %s", sbx_err_name(rc), err);
        return false;
    }
    sbx_wasm_value v = {0};
    sbx_result r;
    sbx_wasm_sandbox_call(sb, "call", NULL, 0, &v, 1, &r);
    bool ok = r.ok && v.of.i32 == 5;
    if (!r.ok)
        ck_assert_int_ne(r.error, SBX_OK);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
    return ok;
}

/* Returns how many allocations one cycle makes: arm a far countdown, run, then count how
 * many more allocations it takes to reach the armed failure. */
static unsigned long count_allocations(const uint8_t *bytes, size_t len, const sbx_policy *p)
{
    const unsigned long far = 200000;
    sbx__alloc_fail_at(far);
    ck_assert(cycle(bytes, len, p));
    unsigned long probes = 0;
    for (;;) {
        probes++;
        void *q = sbx__mallocn(1, 1);
        if (!q)
            break;
        sbx__free(q);
        ck_assert_uint_lt(probes, far);
    }
    sbx__alloc_fail_at(0);
    return far - probes;
}

START_TEST(every_allocation_may_fail)
{
    size_t len;
    uint8_t *bytes = wb_fixture_cap_caller("host", "answer", &len);
    sbx_policy *p = NULL;
    const char *json = "{\"capabilities\": {\"host.answer\": \"allow\"}}";
    char err[256];
    ck_assert_int_eq(sbx_policy_parse(json, strlen(json), &p, err, sizeof(err)), SBX_OK);
    unsigned long total = count_allocations(bytes, len, p);
    ck_assert_uint_gt(total, 10);
    unsigned long failed = 0;
    for (unsigned long n = 1; n <= total; n++) {
        sbx__alloc_fail_at(n);
        failed += !cycle(bytes, len, p);
        sbx__alloc_fail_at(0);
    }
    fprintf(stderr, "%lu allocations per cycle; failing each in turn: %lu cycles failed cleanly\n",
            total, failed);
    /* Zero-size requests may fail harmlessly; most failures must surface as errors. */
    ck_assert_uint_ge(failed, total / 2);
    ck_assert(cycle(bytes, len, p)); /* and the walk left nothing broken behind */
    sbx_policy_destroy(p);
    free(bytes);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plugin_alloc");
    TCase *tc = tcase_create("alloc");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, every_allocation_may_fail);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

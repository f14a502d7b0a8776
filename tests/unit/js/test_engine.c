/* tests/unit/js/test_engine.c: the worker tier's parts below the pool: UTF-8/UTF-16 conversion
 * and the engine on the calling thread (stop flag, deadline, engines built ahead, every sbx
 * allocation failing in turn). */
#include <check.h>
#include <pthread.h>
#include <string.h>

#include "core/backend.h"
#include "js/engine.h"
#include "js/text.h"
#include "util/alloc.h"
#include "sbx_test.h"

#define EMOJI "\xf0\x9f\x98\x80" /* U+1F600 in UTF-8; D83D DE00 in UTF-16 */
#define FFFD  "\xef\xbf\xbd"

static void expect_to_utf16(const char *in, size_t len, const uint16_t *want, size_t want_count)
{
    size_t n;
    uint16_t *out = sbx__js_utf8_to_utf16(in, len, &n);
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(n, want_count);
    ck_assert_mem_eq(out, want, n * sizeof(*want));
    sbx__free(out);
}

static void expect_to_utf8(const uint16_t *in, size_t count, const char *want)
{
    size_t n = sbx__js_utf16_to_utf8(in, count, NULL);
    ck_assert_uint_eq(n, strlen(want));
    char buf[64];
    ck_assert_uint_eq(sbx__js_utf16_to_utf8(in, count, buf), n);
    ck_assert_mem_eq(buf, want, n);
}

START_TEST(text_to_utf16)
{
    expect_to_utf16("ab", 2, (const uint16_t[]){'a', 'b'}, 2);
    expect_to_utf16("\xc3\xa9\xe2\x82\xac", 5, (const uint16_t[]){0xe9, 0x20ac}, 2);
    expect_to_utf16("a" EMOJI "b", 6, (const uint16_t[]){'a', 0xd83d, 0xde00, 'b'}, 4);
    expect_to_utf16("\xff", 1, (const uint16_t[]){0xfffd}, 1);
    expect_to_utf16("\xc3", 1, (const uint16_t[]){0xfffd}, 1);             /* truncated */
    expect_to_utf16("\xc0\xaf", 2, (const uint16_t[]){0xfffd, 0xfffd}, 2); /* overlong */
    expect_to_utf16("\xed\xa0\x80", 3, (const uint16_t[]){0xfffd}, 1);     /* a surrogate */
    expect_to_utf16("\xf4\x90\x80\x80", 4, (const uint16_t[]){0xfffd, 0xfffd, 0xfffd, 0xfffd},
                    4); /* > U+10FFFF */
}
END_TEST

START_TEST(text_to_utf8)
{
    expect_to_utf8((const uint16_t[]){'x', 0xd83d, 0xde00, 'y'}, 4, "x" EMOJI "y");
    expect_to_utf8((const uint16_t[]){0xd83d}, 1, FFFD);
    expect_to_utf8((const uint16_t[]){0xde00, 0xd83d}, 2, FFFD FFFD);
    char buf[8];
    ck_assert_uint_eq(sbx__js_latin1_to_utf8((const uint8_t *)"a\xe9", 2, buf), 3);
    ck_assert_mem_eq(buf, "a\xc3\xa9", 3);
}
END_TEST

START_TEST(text_cut)
{
    ck_assert_uint_eq(sbx__js_utf8_cut("abc", 3, 10), 3);
    ck_assert_uint_eq(sbx__js_utf8_cut("a\xc3\xa9", 3, 2), 1);
    ck_assert_uint_eq(sbx__js_utf8_cut("a" EMOJI, 5, 4), 1);
    ck_assert_uint_eq(sbx__js_utf8_cut("a" EMOJI, 5, 5), 5);
    ck_assert_uint_eq(sbx__js_utf8_cut("ab", 2, 0), 0);
}
END_TEST

static void eval(const char *code, sbx__js_atomic_int *stop, uint64_t deadline_ns,
                 struct sbx__js_eval_out *out)
{
    struct sbx__js_eval_in in = {.code = code,
                                 .code_len = strlen(code),
                                 .memory_bytes = 16u << 20,
                                 .max_output_bytes = 1024,
                                 .deadline_ns = deadline_ns,
                                 .stop = stop};
    sbx__js_eval_out_init(out, in.max_output_bytes);
    sbx__js_eval(&in, out);
}

START_TEST(engine_stop_and_deadline)
{
    struct sbx__js_eval_out out;
    _Atomic int stop = SBX_E_ABORTED;
    eval("while (true) {}", &stop, 0, &out);
    ck_assert_int_eq(out.error, SBX_E_ABORTED);
    sbx__js_eval_out_free(&out);
    eval("while (true) {}", NULL, sbx__now_ns() + 20000000u, &out);
    ck_assert_int_eq(out.error, SBX_E_TIMEOUT);
    ck_assert_int_eq(out.limit, SBX_LIMIT_TIMEOUT);
    sbx__js_eval_out_free(&out);
    eval("console.log('x'); return [1]", NULL, 0, &out);
    ck_assert_int_eq(out.error, SBX_OK);
    ck_assert_str_eq(out.value_json, "[1]");
    ck_assert_str_eq(out.out.data, "x\n");
    ck_assert_uint_gt(out.heap_peak_bytes, 0);
    sbx__js_eval_out_free(&out);
}
END_TEST

static void *run_elsewhere(void *arg)
{
    struct sbx__js_eval_in in = {.code = "return 1", .code_len = 8, .memory_bytes = 1u << 20};
    struct sbx__js_eval_out out;
    sbx__js_eval_out_init(&out, 64);
    sbx__js_engine_run(arg, &in, &out);
    int err = out.error;
    sbx__js_eval_out_free(&out);
    return (void *)(intptr_t)err;
}

START_TEST(engine_built_ahead)
{
    sbx__js_engine_destroy(NULL);
    sbx__js_engine_destroy(sbx__js_engine_create()); /* never run */
    struct sbx__js_eval_in in = {
        .code = "return typeof Duktape", .code_len = 21, .memory_bytes = 1u << 20};
    struct sbx__js_eval_out out;
    sbx__js_eval_out_init(&out, 64);
    sbx__js_engine_run(sbx__js_engine_create(), &in, &out);
    ck_assert_int_eq(out.error, SBX_OK);
    ck_assert_str_eq(out.value_json, "\"undefined\"");
    sbx__js_eval_out_free(&out);
    /* A cap below what a realm needs is refused, not silently over budget. */
    in.memory_bytes = 4096;
    sbx__js_eval_out_init(&out, 64);
    sbx__js_engine_run(sbx__js_engine_create(), &in, &out);
    ck_assert_int_eq(out.error, SBX_E_MEMORY_LIMIT);
    sbx__js_eval_out_free(&out);
    /* Engines are bound to the thread that built them (contexts are single-threaded). */
    pthread_t t;
    void *rc;
    ck_assert_int_eq(pthread_create(&t, NULL, run_elsewhere, sbx__js_engine_create()), 0);
    pthread_join(t, &rc);
    ck_assert_int_eq((int)(intptr_t)rc, SBX_E_INVALID_ARGUMENT);
}
END_TEST

/* Fails the 1st, 2nd, ... allocation of an evaluation in turn: the host never crashes or leaks,
 * and each run either succeeds or reports an error. */
START_TEST(engine_alloc_failures)
{
    int ok = 0;
    for (unsigned long n = 1; n <= 3000; n += (n < 400 ? 1 : 7)) {
        struct sbx__js_eval_out out;
        sbx__js_eval_out_init(&out, 1024);
        const char *code = "console.log('a', {b: 1}); return context.a + 1";
        struct sbx__js_eval_in in = {.code = code,
                                     .code_len = strlen(code),
                                     .context_json = "{\"a\":1}",
                                     .context_len = 7,
                                     .memory_bytes = 16u << 20,
                                     .max_output_bytes = 1024};
        sbx__alloc_fail_at(n);
        sbx__js_eval(&in, &out);
        sbx__alloc_fail_at(0);
        if (out.error == SBX_OK) {
            ck_assert_str_eq(out.value_json, "2");
            ok++;
        } else {
            ck_assert_ptr_nonnull(out.message);
        }
        sbx__js_eval_out_free(&out);
    }
    ck_assert_int_gt(ok, 0); /* late failure points are past the run's last allocation */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("js_engine");
    TCase *tc = tcase_create("text");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, text_to_utf16);
    tcase_add_test(tc, text_to_utf8);
    tcase_add_test(tc, text_cut);
    suite_add_tcase(s, tc);
    tc = tcase_create("engine");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, engine_stop_and_deadline);
    tcase_add_test(tc, engine_built_ahead);
    tcase_add_test(tc, engine_alloc_failures);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

/* tests/unit/js/test_engine.c: the worker tier's parts below the pool: UTF-8/CESU-8 conversion,
 * the capped heap allocator, and the engine on the calling thread (stop flag, deadline, engines
 * built ahead, every allocation failing in turn). */
#include <check.h>
#include <pthread.h>
#include <string.h>

#include "core/backend.h"
#include "js/engine.h"
#include "js/heap.h"
#include "js/text.h"
#include "util/alloc.h"

#define EMOJI      "\xf0\x9f\x98\x80"         /* U+1F600 in UTF-8 */
#define EMOJI_CESU "\xed\xa0\xbd\xed\xb8\x80" /* the same as a CESU-8 surrogate pair */
#define FFFD       "\xef\xbf\xbd"

static void expect_to_cesu(const char *in, size_t len, const char *want)
{
    size_t n;
    char *out = sbx__js_to_cesu(in, len, &n);
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(n, strlen(want));
    ck_assert_mem_eq(out, want, n);
    sbx__free(out);
}

static void expect_from_cesu(const char *in, enum sbx__js_lone mode, const char *want)
{
    size_t len = strlen(in);
    size_t n = sbx__js_from_cesu(in, len, mode, NULL);
    ck_assert_uint_eq(n, strlen(want));
    char buf[64];
    ck_assert_uint_eq(sbx__js_from_cesu(in, len, mode, buf), n);
    ck_assert_mem_eq(buf, want, n);
}

START_TEST(text_to_cesu)
{
    expect_to_cesu("plain ascii", 11, "plain ascii");
    expect_to_cesu("\xc3\xa9\xe2\x82\xac", 5, "\xc3\xa9\xe2\x82\xac"); /* BMP stays */
    expect_to_cesu("a" EMOJI "b", 6, "a" EMOJI_CESU "b");
    expect_to_cesu("\xff", 1, FFFD);
    expect_to_cesu("\xc3", 1, FFFD);                            /* truncated sequence */
    expect_to_cesu("\xc0\xaf", 2, FFFD FFFD);                   /* overlong */
    expect_to_cesu("\xed\xa0\x80", 3, FFFD);                    /* surrogates are not UTF-8 */
    expect_to_cesu("\xf4\x90\x80\x80", 4, FFFD FFFD FFFD FFFD); /* > U+10FFFF */
}
END_TEST

START_TEST(text_from_cesu)
{
    expect_from_cesu("x" EMOJI_CESU "y", SBX_JS_LONE_REPLACE, "x" EMOJI "y");
    expect_from_cesu("\xed\xa0\xbd", SBX_JS_LONE_REPLACE, FFFD);
    expect_from_cesu("\"\xed\xa0\xbd\"", SBX_JS_LONE_ESCAPE, "\"\\ud83d\"");
    expect_from_cesu("\xed\xb8\x80\xed\xa0\xbd", SBX_JS_LONE_ESCAPE, "\\ude00\\ud83d");
    expect_from_cesu(EMOJI, SBX_JS_LONE_ESCAPE, EMOJI); /* already UTF-8 passes through */
    expect_from_cesu("\xff"
                     "a",
                     SBX_JS_LONE_REPLACE, FFFD "a");
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

START_TEST(heap_cap)
{
    struct sbx__js_heap h;
    sbx__js_heap_init(&h, 4096, 0);
    void *a = sbx__js_heap_alloc(&h, 1000);
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_gt(h.used_bytes, 1000);
    ck_assert_ptr_null(sbx__js_heap_alloc(&h, 4000));
    ck_assert(h.has_hit_limit);
    memset(a, 0x5a, 1000);
    void *b = sbx__js_heap_realloc(&h, a, 2000);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(((unsigned char *)b)[999], 0x5a);
    ck_assert_ptr_null(sbx__js_heap_realloc(&h, b, 8000)); /* refused, b still valid */
    size_t used = h.used_bytes;
    void *c = sbx__js_heap_realloc(&h, b, 10);
    ck_assert_uint_lt(h.used_bytes, used);
    ck_assert_ptr_null(sbx__js_heap_realloc(&h, c, 0)); /* size 0 frees */
    ck_assert_uint_eq(h.used_bytes, 0);
    ck_assert_uint_ge(h.peak_bytes, 2000);
    /* Release frees what the engine left behind (ASan's leak check verifies). */
    for (int i = 0; i < 10; i++)
        ck_assert_ptr_nonnull(sbx__js_heap_alloc(&h, 100));
    sbx__js_heap_release(&h);
    ck_assert_uint_eq(h.used_bytes, 0);
    ck_assert_ptr_null(h.blocks);
}
END_TEST

START_TEST(heap_arena)
{
    struct sbx__js_heap h;
    sbx__js_heap_init(&h, 8192, 1024);
    ck_assert_uint_eq(h.used_bytes, 1024); /* the arena counts whole */
    char *a = sbx__js_heap_alloc(&h, 100);
    ck_assert(a >= h.arena && a < h.arena + 1024);
    memset(a, 'x', 100);
    ck_assert_ptr_eq(sbx__js_heap_realloc(&h, a, 300), a); /* last block grows in place */
    char *b = sbx__js_heap_alloc(&h, 16);
    char *c = sbx__js_heap_realloc(&h, a, 800); /* not last, no room: moves out, keeps data */
    ck_assert(c < h.arena || c >= h.arena + 1024);
    ck_assert_int_eq(c[99], 'x');
    sbx__js_heap_free(&h, b);                            /* arena blocks are freed with the heap */
    ck_assert_ptr_nonnull(sbx__js_heap_alloc(&h, 2000)); /* too big for the arena */
    sbx__js_heap_seal(&h);
    char *d = sbx__js_heap_alloc(&h, 8);
    ck_assert(d < h.arena || d >= h.arena + 1024);
    ck_assert_ptr_null(sbx__js_heap_alloc(&h, 8192)); /* the cap still holds */
    sbx__js_heap_release(&h);
    ck_assert_ptr_null(h.arena);
    ck_assert_uint_eq(h.used_bytes, 0);
}
END_TEST

static void eval(const char *code, _Atomic int *stop, uint64_t deadline_ns,
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
    /* A heap already bigger than the run's cap is refused, not silently over budget. */
    in.memory_bytes = 4096;
    sbx__js_eval_out_init(&out, 64);
    sbx__js_engine_run(sbx__js_engine_create(), &in, &out);
    ck_assert_int_eq(out.error, SBX_E_MEMORY_LIMIT);
    sbx__js_eval_out_free(&out);
    /* Engines are bound to the thread that built them (stack floor, fatal jump). */
    pthread_t t;
    void *rc;
    ck_assert_int_eq(pthread_create(&t, NULL, run_elsewhere, sbx__js_engine_create()), 0);
    pthread_join(t, &rc);
    ck_assert_int_eq((int)(intptr_t)rc, SBX_E_INVALID_ARGUMENT);
}
END_TEST

/* An engine fatal error mid-call jumps back to the tier, which frees the dead heap (ASan checks
 * nothing leaks) and reports it; the next engine is unaffected. */
START_TEST(engine_fatal_contained)
{
    struct sbx__js_eval_out out;
    sbx__js_test_fatal_on_console(true);
    eval("var a = [1, 2, 3].map(function (x) { console.log(x); return x; }); return a", NULL, 0,
         &out);
    sbx__js_test_fatal_on_console(false);
    ck_assert_int_eq(out.error, SBX_E_EXECUTION_FAILED);
    ck_assert_str_eq(out.message, "engine fatal error: test fatal from console");
    ck_assert_ptr_null(out.value_json);
    sbx__js_eval_out_free(&out);
    eval("console.log('fine'); return 1", NULL, 0, &out);
    ck_assert_int_eq(out.error, SBX_OK);
    ck_assert_str_eq(out.out.data, "fine\n");
    sbx__js_eval_out_free(&out);
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
    tcase_add_test(tc, text_to_cesu);
    tcase_add_test(tc, text_from_cesu);
    tcase_add_test(tc, text_cut);
    suite_add_tcase(s, tc);
    tc = tcase_create("heap");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, heap_cap);
    tcase_add_test(tc, heap_arena);
    suite_add_tcase(s, tc);
    tc = tcase_create("engine");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, engine_stop_and_deadline);
    tcase_add_test(tc, engine_built_ahead);
    tcase_add_test(tc, engine_fatal_contained);
    tcase_add_test(tc, engine_alloc_failures);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

/* The full level for the huge functions of a large module (src/wasm/jit/level.h): a module
 * with at least SBX__JIT_LARGE_BYTES of code and one function of SBX__JIT_HUGE_BYTES compiles
 * that function at the full level, in a part of its own, and the rest at the large level; the
 * code computes what the interpreter computes, calls between the two parts both ways included;
 * past SBX__JIT_HUGE_BUDGET a huge function keeps the large level; both are in the key. Every
 * function has a loop, so each part must emit the OSR entries of its own functions only. */
#include <stdlib.h>
#include <string.h>

#include "sbx_test.h"
#include "wasm/jit/jit.h"
#include "wasm/jit/level.h"
#include "wasm_gen.h"
#include "wasm_env.h"

#define SMALL_STEPS 30 /* 10 bytes each: about 300 bytes per small function */
#define HUGE_STEPS  (SBX__JIT_HUGE_BYTES / 10 + 100)

/* f(x): steps of x = x * a + c, then x, plus callee(x) when callee >= 0. */
static void body_of(struct wb_bytes *out, uint32_t k, uint32_t steps, int callee)
{
    struct wb_bytes b = {0};
    wb_bytes_put(&b, "\x00", 1); /* no locals */
    wb_bytes_put(&b, "\x03\x40\x0b",
                 3); /* an empty loop: every function has an OSR entry, in its part */
    for (uint32_t r = 0; r < steps; r++) {
        uint8_t a = (uint8_t)((k * 2 + r * 6 + 1) & 0x3f), c = (uint8_t)((k + r) % 50);
        const uint8_t step[] = {0x20, 0x00, 0x41, a, 0x6c, 0x41, c, 0x6a, 0x21, 0x00};
        wb_bytes_put(&b, step, sizeof(step));
    }
    wb_bytes_put(&b, "\x20\x00", 2);
    if (callee >= 0) {
        const uint8_t call[] = {0x20, 0x00, 0x10, (uint8_t)callee, 0x6a};
        wb_bytes_put(&b, call, sizeof(call));
    }
    wb_bytes_put(&b, "\x0b", 1);
    wb_bytes_uleb(out, (uint32_t)b.len);
    wb_bytes_put(out, b.data, b.len);
    free(b.data);
}

struct gen_args {
    uint32_t huge;
};

static void body(struct wb_bytes *code, uint32_t k, uint32_t n, void *user)
{
    const struct gen_args *g = user;
    bool is_huge = k >= 1 && k <= g->huge;
    body_of(code, k, is_huge ? HUGE_STEPS : SMALL_STEPS, k == 1 ? 0 : k == n - 1 ? 1 : -1);
}

static const char *const names[] = {"first", "huge", "last"};

/* n functions (i32) -> i32; f1 .. f<huge> huge, f1 calling f0; the last calls f1. Exports
 * f0 "first", f1 "huge", the last "last". */
static struct wb_bytes gen(uint32_t n, uint32_t huge)
{
    struct gen_args g = {huge};
    const uint32_t idx[] = {0, 1, n - 1};
    return wbytes_i32_module(n, names, idx, body, &g);
}

static uint32_t small_count(void)
{
    return (uint32_t)(SBX__JIT_LARGE_BYTES / (SMALL_STEPS * 10)) + 16;
}

/* f1 at the full level, the others at the large one; the results are the interpreter's. */
START_TEST(huge_function_takes_full_level)
{
    struct wb_bytes b = gen(small_count(), 1);
    struct wasm_module *m = wenv_module(b.data, b.len);
    ck_assert_uint_ge(sbx__jit_code_bytes(m), SBX__JIT_LARGE_BYTES);
    uint32_t end = sbx__jit_huge_end(m);
    ck_assert_uint_eq(end, 2);
    ck_assert_str_eq(sbx__jit_level_of_func(m, 1, end)->pipeline, SBX__JIT_FULL_PIPELINE);
    ck_assert_str_eq(sbx__jit_level_of_func(m, 0, end)->pipeline, SBX__JIT_LARGE_PIPELINE);
    ck_assert_str_eq(sbx__jit_level_of_func(m, m->func_def_count - 1, end)->pipeline,
                     SBX__JIT_LARGE_PIPELINE);
    wbytes_compiled_matches_interp(m, names);
    sbx__wasm_module_destroy(m);
    free(b.data);
}
END_TEST

/* Huge functions past the budget stay at the large level; a small module has no huge part;
 * both constants are in the cache key. */
START_TEST(budget_bounds_the_full_part)
{
    ck_assert_ptr_nonnull(strstr(SBX__JIT_CACHE_OPTS, SBX__JIT_HUGE_OPTS));
    ck_assert_ptr_nonnull(strstr(SBX__JIT_HUGE_OPTS, SBX__JIT_STR(SBX__JIT_HUGE_BYTES)));
    ck_assert_ptr_nonnull(strstr(SBX__JIT_HUGE_OPTS, SBX__JIT_STR(SBX__JIT_HUGE_BUDGET)));
    uint32_t fit = SBX__JIT_HUGE_BUDGET / (HUGE_STEPS * 10 + 16);
    struct wb_bytes b = gen(small_count(), fit + 2);
    struct wasm_module *m = wenv_module(b.data, b.len);
    uint32_t end = sbx__jit_huge_end(m);
    ck_assert_uint_eq(end, fit + 1);
    ck_assert_str_eq(sbx__jit_level_of_func(m, fit, end)->pipeline, SBX__JIT_FULL_PIPELINE);
    ck_assert_str_eq(sbx__jit_level_of_func(m, fit + 1, end)->pipeline, SBX__JIT_LARGE_PIPELINE);
    sbx__wasm_module_destroy(m);
    free(b.data);
    b = gen(16, 1); /* one huge function, but below SBX__JIT_LARGE_BYTES in all */
    m = wenv_module(b.data, b.len);
    ck_assert_uint_eq(sbx__jit_huge_end(m), 0);
    ck_assert_str_eq(sbx__jit_level_of_func(m, 1, 0)->pipeline, SBX__JIT_FULL_PIPELINE);
    sbx__wasm_module_destroy(m);
    free(b.data);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_jit_huge");
    TCase *tc = tcase_create("huge");
    tcase_set_timeout(tc, 300); /* LLVM on about 570 KB of code, under ASan and a loaded machine */
    tcase_add_test(tc, huge_function_takes_full_level);
    tcase_add_test(tc, budget_bounds_the_full_part);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

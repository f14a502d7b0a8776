/* The compiled tier's optimisation levels (src/wasm/jit/level.h): a module with at least
 * SBX__JIT_LARGE_BYTES of code takes the large level (cheap passes, FastISel), smaller ones
 * the full level; both levels are in the cache key; and a large module's code, compiled in two
 * parts at the large level, computes what the interpreter computes, calls from one part into
 * the other included. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_test.h"
#include "util/alloc.h"
#include "wasm/jit/cache.h"
#include "wasm/jit/jit.h"
#include "wasm/jit/level.h"
#include "wasm_gen.h"
#include "wasm_env.h"

#define REPS 22 /* mixing steps per loop iteration: about 300 bytes per function */

/* f<k>(x): three loop iterations i of REPS steps x = (x * a + c) ^ i; the last function adds
 * f0(x). */
static void body(struct wb_bytes *out, uint32_t k, uint32_t n, void *user)
{
    (void)user;
    struct wb_bytes b = {0};
    /* one i32 local; block; loop */
    static const uint8_t head[] = {0x01, 0x01, 0x7f, 0x02, 0x40, 0x03, 0x40};
    wb_bytes_put(&b, head, sizeof(head));
    for (uint32_t r = 0; r < REPS; r++) {
        uint8_t a = (uint8_t)((k * 2 + r * 6 + 1) & 0x3f), c = (uint8_t)((k + r) % 50);
        const uint8_t step[] = {0x20, 0x00, 0x41, a,    0x6c, 0x41, c,
                                0x6a, 0x20, 0x01, 0x73, 0x21, 0x00};
        wb_bytes_put(&b, step, sizeof(step));
    }
    static const uint8_t tail[] = {0x20, 0x01, 0x41, 0x01, 0x6a, 0x22, 0x01, 0x41,
                                   0x03, 0x49, 0x0d, 0x00, 0x0b, 0x0b, 0x20, 0x00};
    wb_bytes_put(&b, tail, sizeof(tail));
    if (k == n - 1) {
        static const uint8_t add_f0[] = {0x20, 0x00, 0x10, 0x00, 0x6a};
        wb_bytes_put(&b, add_f0, sizeof(add_f0));
    }
    wb_bytes_byte(&b, 0x0b);
    wb_bytes_uleb(out, (uint32_t)b.len);
    wb_bytes_put(out, b.data, b.len);
    free(b.data);
}

static const char *const names[] = {"first", "mid", "last"};

/* A module of n functions (i32) -> i32, exporting f0 as "first", f<n/2> "mid", f<n-1> "last". */
static struct wb_bytes gen(uint32_t n)
{
    const uint32_t idx[] = {0, n / 2, n - 1};
    return wbytes_i32_module(n, names, idx, body, NULL);
}

static struct wasm_module *load(const struct wb_bytes *b)
{
    return wenv_module(b->data, b->len);
}

/* Just below the threshold the full level, from it the large one. */
START_TEST(level_follows_code_size)
{
    struct wb_bytes small = gen(8);
    struct wasm_module *m = load(&small);
    uint64_t per_fn = sbx__jit_code_bytes(m) / 8;
    ck_assert_uint_gt(per_fn, 250);
    ck_assert_str_eq(sbx__jit_level_of(m)->pipeline, SBX__JIT_FULL_PIPELINE);
    ck_assert_int_eq(sbx__jit_level_of(m)->codegen, SBX__JIT_FULL_CODEGEN);
    sbx__wasm_module_destroy(m);
    free(small.data);
    uint32_t n = (uint32_t)(SBX__JIT_LARGE_BYTES / per_fn);
    struct wb_bytes below = gen(n - 2), above = gen(n + 2);
    m = load(&below);
    ck_assert_uint_lt(sbx__jit_code_bytes(m), SBX__JIT_LARGE_BYTES);
    ck_assert_str_eq(sbx__jit_level_of(m)->pipeline, SBX__JIT_FULL_PIPELINE);
    sbx__wasm_module_destroy(m);
    m = load(&above);
    ck_assert_uint_ge(sbx__jit_code_bytes(m), SBX__JIT_LARGE_BYTES);
    ck_assert_str_eq(sbx__jit_level_of(m)->pipeline, SBX__JIT_LARGE_PIPELINE);
    ck_assert_int_eq(sbx__jit_level_of(m)->codegen, SBX__JIT_LARGE_CODEGEN);
    sbx__wasm_module_destroy(m);
    free(below.data);
    free(above.data);
}
END_TEST

/* A key names both levels and the boundary, so changing any of them misses old entries. */
START_TEST(levels_are_in_the_key)
{
    ck_assert_ptr_nonnull(strstr(SBX__JIT_CACHE_OPTS, SBX__JIT_FULL_PIPELINE));
    ck_assert_ptr_nonnull(strstr(SBX__JIT_CACHE_OPTS, SBX__JIT_LARGE_PIPELINE));
    char bound[32];
    snprintf(bound, sizeof(bound), "%u", (unsigned)SBX__JIT_LARGE_BYTES);
    ck_assert_ptr_nonnull(strstr(SBX__JIT_CACHE_OPTS, bound));
}
END_TEST

/* The large level's code gives the interpreter's results, "last" calling f0 in the other part. */
START_TEST(large_module_matches_interpreter)
{
    struct wb_bytes b = gen((uint32_t)(SBX__JIT_LARGE_BYTES / 290) + 16);
    struct wasm_module *m = load(&b);
    ck_assert_str_eq(sbx__jit_level_of(m)->pipeline, SBX__JIT_LARGE_PIPELINE);
    wbytes_compiled_matches_interp(m, names);
    sbx__wasm_module_destroy(m);
    free(b.data);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_jit_level");
    TCase *tc = tcase_create("level");
    tcase_set_timeout(tc, 300); /* LLVM on about 530 KB of code, under ASan and a loaded machine */
    tcase_add_test(tc, level_follows_code_size);
    tcase_add_test(tc, levels_are_in_the_key);
    tcase_add_test(tc, large_module_matches_interpreter);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

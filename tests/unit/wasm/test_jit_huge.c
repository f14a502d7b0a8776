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
#include "wasm_env.h"

#define SMALL_STEPS 30 /* 10 bytes each: about 300 bytes per small function */
#define HUGE_STEPS  (SBX__JIT_HUGE_BYTES / 10 + 100)

struct bytes {
    uint8_t *p;
    size_t len, cap;
};

static void put(struct bytes *b, const void *src, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void put_leb(struct bytes *b, uint32_t v)
{
    do {
        uint8_t byte = (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
        put(b, &byte, 1);
        v >>= 7;
    } while (v);
}

/* f(x): steps of x = x * a + c, then x, plus callee(x) when callee >= 0. */
static void body(struct bytes *out, uint32_t k, uint32_t steps, int callee)
{
    struct bytes b = {0};
    put(&b, "\x00", 1);         /* no locals */
    put(&b, "\x03\x40\x0b", 3); /* an empty loop: every function has an OSR entry, in its part */
    for (uint32_t r = 0; r < steps; r++) {
        uint8_t a = (uint8_t)((k * 2 + r * 6 + 1) & 0x3f), c = (uint8_t)((k + r) % 50);
        const uint8_t step[] = {0x20, 0x00, 0x41, a, 0x6c, 0x41, c, 0x6a, 0x21, 0x00};
        put(&b, step, sizeof(step));
    }
    put(&b, "\x20\x00", 2);
    if (callee >= 0) {
        const uint8_t call[] = {0x20, 0x00, 0x10, (uint8_t)callee, 0x6a};
        put(&b, call, sizeof(call));
    }
    put(&b, "\x0b", 1);
    put_leb(out, (uint32_t)b.len);
    put(out, b.p, b.len);
    free(b.p);
}

static void section(struct bytes *m, uint8_t id, const struct bytes *s)
{
    put(m, &id, 1);
    put_leb(m, (uint32_t)s->len);
    put(m, s->p, s->len);
}

/* n functions (i32) -> i32; f1 .. f<huge> huge, f1 calling f0; the last calls f1. Exports
 * f0 "first", f1 "huge", the last "last". */
static struct bytes gen(uint32_t n, uint32_t huge)
{
    struct bytes m = {0}, types = {0}, funcs = {0}, exports = {0}, code = {0};
    put(&m, "\x00\x61\x73\x6d\x01\x00\x00\x00", 8);
    put(&types, "\x01\x60\x01\x7f\x01\x7f", 6);
    section(&m, 1, &types);
    put_leb(&funcs, n);
    for (uint32_t k = 0; k < n; k++)
        put(&funcs, "\x00", 1);
    section(&m, 3, &funcs);
    const char *names[] = {"first", "huge", "last"};
    uint32_t idx[] = {0, 1, n - 1};
    put_leb(&exports, 3);
    for (int i = 0; i < 3; i++) {
        put_leb(&exports, (uint32_t)strlen(names[i]));
        put(&exports, names[i], strlen(names[i]));
        put(&exports, "\x00", 1);
        put_leb(&exports, idx[i]);
    }
    section(&m, 7, &exports);
    put_leb(&code, n);
    for (uint32_t k = 0; k < n; k++) {
        bool is_huge = k >= 1 && k <= huge;
        body(&code, k, is_huge ? HUGE_STEPS : SMALL_STEPS, k == 1 ? 0 : k == n - 1 ? 1 : -1);
    }
    section(&m, 10, &code);
    free(types.p);
    free(funcs.p);
    free(exports.p);
    free(code.p);
    return m;
}

static uint32_t small_count(void)
{
    return (uint32_t)(SBX__JIT_LARGE_BYTES / (SMALL_STEPS * 10)) + 16;
}

static uint32_t call(struct wasm_store *s, struct wasm_instance *i, const char *name, uint32_t x)
{
    wasm_value a = {.i32 = x};
    return wenv_func_i32(s, i, name, &a);
}

/* f1 at the full level, the others at the large one; the results are the interpreter's. */
START_TEST(huge_function_takes_full_level)
{
    struct bytes b = gen(small_count(), 1);
    struct wasm_module *m = wenv_module(b.p, b.len);
    ck_assert_uint_ge(sbx__jit_code_bytes(m), SBX__JIT_LARGE_BYTES);
    uint32_t end = sbx__jit_huge_end(m);
    ck_assert_uint_eq(end, 2);
    ck_assert_str_eq(sbx__jit_level_of_func(m, 1, end)->pipeline, SBX__JIT_FULL_PIPELINE);
    ck_assert_str_eq(sbx__jit_level_of_func(m, 0, end)->pipeline, SBX__JIT_LARGE_PIPELINE);
    ck_assert_str_eq(sbx__jit_level_of_func(m, m->func_def_count - 1, end)->pipeline,
                     SBX__JIT_LARGE_PIPELINE);
    struct wasm_store_limits li = {.tier = WASM_TIER_INTERP}, lc = {.tier = WASM_TIER_COMPILED};
    struct wasm_store *si = NULL, *sc = NULL;
    ck_assert_int_eq(sbx__wasm_store_create(&li, &si), SBX_OK);
    ck_assert_int_eq(sbx__wasm_store_create(&lc, &sc), SBX_OK);
    struct wasm_instance *ii = wenv_instance(si, m, NULL, NULL),
                         *ic = wenv_instance(sc, m, NULL, NULL);
    for (uint32_t k = 0; k < m->func_def_count; k++)
        ck_assert_ptr_nonnull(ic->funcs[m->func_import_count + k]->jit_entry);
    const char *names[] = {"first", "huge", "last"};
    const uint32_t xs[] = {0, 1, 7, 12345, 0x80000000u, 0xffffffffu};
    uint64_t before = sbx__wasm_store_native_entries(sc);
    for (size_t i = 0; i < 3; i++) {
        for (size_t j = 0; j < sizeof(xs) / sizeof(xs[0]); j++)
            ck_assert_uint_eq(call(sc, ic, names[i], xs[j]), call(si, ii, names[i], xs[j]));
    }
    ck_assert_uint_eq(sbx__wasm_store_native_entries(sc) - before, 18); /* it ran native code */
    sbx__wasm_store_destroy(si);
    sbx__wasm_store_destroy(sc);
    sbx__wasm_module_destroy(m);
    free(b.p);
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
    struct bytes b = gen(small_count(), fit + 2);
    struct wasm_module *m = wenv_module(b.p, b.len);
    uint32_t end = sbx__jit_huge_end(m);
    ck_assert_uint_eq(end, fit + 1);
    ck_assert_str_eq(sbx__jit_level_of_func(m, fit, end)->pipeline, SBX__JIT_FULL_PIPELINE);
    ck_assert_str_eq(sbx__jit_level_of_func(m, fit + 1, end)->pipeline, SBX__JIT_LARGE_PIPELINE);
    sbx__wasm_module_destroy(m);
    free(b.p);
    b = gen(16, 1); /* one huge function, but below SBX__JIT_LARGE_BYTES in all */
    m = wenv_module(b.p, b.len);
    ck_assert_uint_eq(sbx__jit_huge_end(m), 0);
    ck_assert_str_eq(sbx__jit_level_of_func(m, 1, 0)->pipeline, SBX__JIT_FULL_PIPELINE);
    sbx__wasm_module_destroy(m);
    free(b.p);
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

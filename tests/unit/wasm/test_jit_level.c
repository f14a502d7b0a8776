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
#include "wasm_env.h"

#define REPS 22 /* mixing steps per loop iteration: about 300 bytes per function */

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

static void put_u8(struct bytes *b, uint8_t v)
{
    put(b, &v, 1);
}

static void put_leb(struct bytes *b, uint32_t v)
{
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        put_u8(b, (uint8_t)(byte | (v ? 0x80 : 0)));
    } while (v);
}

/* f<k>(x): three loop iterations i of REPS steps x = (x * a + c) ^ i; the last function adds
 * f0(x). */
static void body(struct bytes *out, uint32_t k, uint32_t n)
{
    struct bytes b = {0};
    /* one i32 local; block; loop */
    static const uint8_t head[] = {0x01, 0x01, 0x7f, 0x02, 0x40, 0x03, 0x40};
    put(&b, head, sizeof(head));
    for (uint32_t r = 0; r < REPS; r++) {
        uint8_t a = (uint8_t)((k * 2 + r * 6 + 1) & 0x3f), c = (uint8_t)((k + r) % 50);
        const uint8_t step[] = {0x20, 0x00, 0x41, a,    0x6c, 0x41, c,
                                0x6a, 0x20, 0x01, 0x73, 0x21, 0x00};
        put(&b, step, sizeof(step));
    }
    static const uint8_t tail[] = {0x20, 0x01, 0x41, 0x01, 0x6a, 0x22, 0x01, 0x41,
                                   0x03, 0x49, 0x0d, 0x00, 0x0b, 0x0b, 0x20, 0x00};
    put(&b, tail, sizeof(tail));
    if (k == n - 1) {
        static const uint8_t add_f0[] = {0x20, 0x00, 0x10, 0x00, 0x6a};
        put(&b, add_f0, sizeof(add_f0));
    }
    put_u8(&b, 0x0b);
    put_leb(out, (uint32_t)b.len);
    put(out, b.p, b.len);
    free(b.p);
}

static void section(struct bytes *m, uint8_t id, const struct bytes *s)
{
    put_u8(m, id);
    put_leb(m, (uint32_t)s->len);
    put(m, s->p, s->len);
}

/* A module of n functions (i32) -> i32, exporting f0 as "first", f<n/2> "mid", f<n-1> "last". */
static struct bytes gen(uint32_t n)
{
    static const uint8_t magic[] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
    static const uint8_t type[] = {0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f};
    struct bytes m = {0}, funcs = {0}, exports = {0}, code = {0}, types = {0};
    put(&m, magic, sizeof(magic));
    put(&types, type, sizeof(type));
    section(&m, 1, &types);
    put_leb(&funcs, n);
    for (uint32_t k = 0; k < n; k++)
        put_u8(&funcs, 0x00);
    section(&m, 3, &funcs);
    const char *names[] = {"first", "mid", "last"};
    uint32_t idx[] = {0, n / 2, n - 1};
    put_leb(&exports, 3);
    for (int i = 0; i < 3; i++) {
        put_leb(&exports, (uint32_t)strlen(names[i]));
        put(&exports, names[i], strlen(names[i]));
        put_u8(&exports, 0x00);
        put_leb(&exports, idx[i]);
    }
    section(&m, 7, &exports);
    put_leb(&code, n);
    for (uint32_t k = 0; k < n; k++)
        body(&code, k, n);
    section(&m, 10, &code);
    free(types.p);
    free(funcs.p);
    free(exports.p);
    free(code.p);
    return m;
}

static struct wasm_module *load(const struct bytes *b)
{
    return wenv_module(b->p, b->len);
}

static uint32_t call(struct wasm_store *s, struct wasm_instance *i, const char *name, uint32_t x)
{
    wasm_value a = {.i32 = x};
    return wenv_func_i32(s, i, name, &a);
}

/* Just below the threshold the full level, from it the large one. */
START_TEST(level_follows_code_size)
{
    struct bytes small = gen(8);
    struct wasm_module *m = load(&small);
    uint64_t per_fn = sbx__jit_code_bytes(m) / 8;
    ck_assert_uint_gt(per_fn, 250);
    ck_assert_str_eq(sbx__jit_level_of(m)->pipeline, SBX__JIT_FULL_PIPELINE);
    ck_assert_int_eq(sbx__jit_level_of(m)->codegen, SBX__JIT_FULL_CODEGEN);
    sbx__wasm_module_destroy(m);
    free(small.p);
    uint32_t n = (uint32_t)(SBX__JIT_LARGE_BYTES / per_fn);
    struct bytes below = gen(n - 2), above = gen(n + 2);
    m = load(&below);
    ck_assert_uint_lt(sbx__jit_code_bytes(m), SBX__JIT_LARGE_BYTES);
    ck_assert_str_eq(sbx__jit_level_of(m)->pipeline, SBX__JIT_FULL_PIPELINE);
    sbx__wasm_module_destroy(m);
    m = load(&above);
    ck_assert_uint_ge(sbx__jit_code_bytes(m), SBX__JIT_LARGE_BYTES);
    ck_assert_str_eq(sbx__jit_level_of(m)->pipeline, SBX__JIT_LARGE_PIPELINE);
    ck_assert_int_eq(sbx__jit_level_of(m)->codegen, SBX__JIT_LARGE_CODEGEN);
    sbx__wasm_module_destroy(m);
    free(below.p);
    free(above.p);
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
    struct bytes b = gen((uint32_t)(SBX__JIT_LARGE_BYTES / 290) + 16);
    struct wasm_module *m = load(&b);
    ck_assert_str_eq(sbx__jit_level_of(m)->pipeline, SBX__JIT_LARGE_PIPELINE);
    struct wasm_store_limits li = {.tier = WASM_TIER_INTERP}, lc = {.tier = WASM_TIER_COMPILED};
    struct wasm_store *si = NULL, *sc = NULL;
    ck_assert_int_eq(sbx__wasm_store_create(&li, &si), SBX_OK);
    ck_assert_int_eq(sbx__wasm_store_create(&lc, &sc), SBX_OK);
    struct wasm_instance *ii = wenv_instance(si, m, NULL, NULL),
                         *ic = wenv_instance(sc, m, NULL, NULL);
    for (uint32_t k = 0; k < m->func_def_count; k++)
        ck_assert_ptr_nonnull(ic->funcs[m->func_import_count + k]->jit_entry);
    const char *names[] = {"first", "mid", "last"};
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

/* The tier-up worker with two stores armed at once (src/wasm/jit/tierup.c): it serves the
 * earliest deadline, whichever was armed first, so a store with a short threshold compiles
 * while one armed before or after it with a minute's threshold waits. One store at a time was
 * what the other tests armed; two were armed together only when suites overlapped by chance
 * (moved between coverage runs, issue 15). */
#include <stdlib.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/jit/jit.h"
#include "wasm/runtime.h"
#include "wasm/wasm.h"
#include "wasm_builder.h"
#include "wasm_env.h"

#define LONG_MS 60000 /* a threshold no test reaches */

/* quick() = 7; run() = wait() + 7, where the import "wait" blocks until the store is native
 * (wenv_resolve_wait) and returns 1 if it got there. */
static uint8_t *build(size_t *len)
{
    struct wb *w = wb_new();
    uint32_t wait = wb_import_func(w, "t", "wait", "", "i");
    struct wb_bytes q = {0};
    wbc_i32_const(&q, 7), wbc_end(&q);
    wb_export_func(w, "quick", wb_func(w, "", "i", "", &q));
    wb_bytes_free(&q);
    struct wb_bytes r = {0};
    wbc_call(&r, wait), wbc_i32_const(&r, 7), wbc_op(&r, WB_OP_I32_ADD), wbc_end(&r);
    wb_export_func(w, "run", wb_func(w, "", "i", "", &r));
    wb_bytes_free(&r);
    uint8_t *bytes = wb_finish(w, len);
    wb_free(w);
    ck_assert_ptr_nonnull(bytes);
    return bytes;
}

static void env_open(struct wenv *e, uint32_t tierup_ms)
{
    size_t len;
    uint8_t *bytes = build(&len);
    struct wasm_store_limits l = {.tier = WASM_TIER_AUTO, .tierup_ms = tierup_ms};
    wenv_open(e, bytes, len, &l);
    free(bytes);
    wenv_instantiate(e, wenv_resolve_wait, e);
}

static int32_t call(struct wenv *e, const char *name)
{
    return (int32_t)wenv_call_i32(e, name, NULL);
}

/* _i 0: the long store is armed first, then the short one; _i 1: the short one first (its
 * first call arms it), then the long one, then the short one's long call. Either way the
 * worker keeps both armed and compiles the short one only. */
START_TEST(earliest_deadline_first)
{
    struct wenv slow, fast;
    env_open(&slow, LONG_MS);
    env_open(&fast, _i == 0 ? 1 : 300);
    if (_i == 0) {
        ck_assert_int_eq(call(&slow, "quick"), 7);
    } else {
        ck_assert_int_eq(call(&fast, "quick"), 7);
        ck_assert_int_eq(call(&slow, "quick"), 7);
    }
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(slow.store), WASM_TIERUP_ARMED);
    fast.wait_for = WASM_TIERUP_NATIVE;
    ck_assert_int_eq(call(&fast, "run"), 1 + 7); /* 1: it became native during the call */
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(fast.store), WASM_TIERUP_NATIVE);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(slow.store), WASM_TIERUP_ARMED);
    ck_assert_int_eq(call(&slow, "quick"), 7);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(slow.store), 0);
    wenv_close(&fast);
    wenv_close(&slow);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_tierup_order");
    TCase *tc = tcase_create("tierup_order");
    tcase_set_timeout(tc, WENV_WAIT_S + 30);
    tcase_add_loop_test(tc, earliest_deadline_first, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

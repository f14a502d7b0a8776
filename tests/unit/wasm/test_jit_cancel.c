/* A compile cancelled while it emits (src/wasm/jit/engine.c emit_all): the cancel flag set
 * before a function, or before an OSR entry, stops the compile there with SBX_E_ABORTED and no
 * object. The library's test hook (jit.h, where 2) runs at each cancellation check, before the
 * check reads the flag: it counts the checks and sets the flag at the one a test names, so the
 * cancel lands at the same point every run (a store destroyed during its tier-up reached these
 * checks only when the timing happened to fall there: moved between coverage runs, issue 15). */
#include <stdatomic.h>
#include <stdlib.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/jit/jit.h"
#include "wasm_builder.h"
#include "wasm_env.h"

#define FUNCS 3

static atomic_bool cancel;
static atomic_int checks, cancel_at; /* cancel_at 0: never; -1: before the first check */

void sbx__jit_test_pause(int where)
{
    if (where == 1 && atomic_load(&cancel_at) < 0)
        atomic_store(&cancel, true);
    if (where == 2 && atomic_fetch_add(&checks, 1) + 1 == atomic_load(&cancel_at))
        atomic_store(&cancel, true);
}

/* FUNCS exported functions (i32) -> i32: sums by a loop (each gets an OSR entry), or n + 1. */
static struct wasm_module *module(bool has_loops)
{
    struct wb *w = wb_new();
    ck_assert_ptr_nonnull(w);
    for (int i = 0; i < FUNCS; i++) {
        struct wb_bytes c = {0};
        wbc_local_get(&c, 0), wbc_i32_const(&c, i + 1), wbc_op(&c, WB_OP_I32_ADD), wbc_end(&c);
        uint32_t f = has_loops ? wb_func_sum(w) : wb_func(w, "i", "i", "", &c);
        wb_bytes_free(&c);
        char name[8] = {'f', (char)('0' + i), 0};
        wb_export_func(w, name, f);
    }
    size_t len;
    uint8_t *bytes = wb_finish(w, &len);
    wb_free(w);
    ck_assert_ptr_nonnull(bytes);
    struct wasm_module *m = wenv_module(bytes, len);
    free(bytes);
    return m;
}

/* Compiles m whole with the flag set at check number at; returns the result, *nchecks the
 * checks made. */
static sbx_err compile(const struct wasm_module *m, int at, int *nchecks)
{
    atomic_store(&cancel, false);
    atomic_store(&checks, 0);
    atomic_store(&cancel_at, at);
    struct sbx__jit_obj objs[SBX__JIT_MAX_PARTS] = {{0}};
    uint32_t nobjs = 99;
    char err[256] = "";
    struct sbx__jit_stop stop = {.cancel = &cancel};
    sbx_err rc = sbx__jit_compile_set(m, false, NULL, NULL, &stop, objs, &nobjs, err, sizeof(err));
    atomic_store(&cancel_at, 0);
    *nchecks = atomic_load(&checks);
    if (rc == SBX_OK) {
        ck_assert_uint_eq(nobjs, 1);
        ck_assert_uint_gt(objs[0].len, 0);
        sbx__jit_objs_free(objs, nobjs);
    } else {
        ck_assert_msg(rc == SBX_E_ABORTED, "compile: %s: %s", sbx_err_name(rc), err);
        ck_assert_uint_eq(nobjs, 0);
        ck_assert_ptr_null(objs[0].bytes);
    }
    return rc;
}

/* Cancelled before the first function: the function loop stops there (one check), and the
 * build reports that check's abort. The control compiles, checking once per function and once
 * after optimising. Fails with the function loop's check removed: no function has a loop, so
 * nothing else checks until after the optimiser, and a cancel at the second check never lands
 * (the compile succeeds). */
START_TEST(cancelled_before_a_function)
{
    struct wasm_module *m = module(false);
    int n;
    ck_assert_int_eq(compile(m, 0, &n), SBX_OK);
    ck_assert_int_eq(n, FUNCS + 1);
    ck_assert_int_eq(compile(m, -1, &n), SBX_E_ABORTED);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(compile(m, 2, &n), SBX_E_ABORTED); /* before the second function */
    ck_assert_int_eq(n, 2);
    sbx__wasm_module_destroy(m);
}
END_TEST

/* Cancelled after every function was emitted, before the first OSR entry (check FUNCS + 1):
 * the OSR loop stops there. The control checks FUNCS times, FUNCS times again for the OSR
 * entries, then once after optimising. Fails with the OSR loop's check removed: the flag is
 * then set by the check after the optimiser, and a cancel at FUNCS + 2 never lands. */
START_TEST(cancelled_before_an_osr_entry)
{
    struct wasm_module *m = module(true);
    int n;
    ck_assert_int_eq(compile(m, 0, &n), SBX_OK);
    ck_assert_int_eq(n, 2 * FUNCS + 1);
    ck_assert_int_eq(compile(m, FUNCS + 1, &n), SBX_E_ABORTED);
    ck_assert_int_eq(n, FUNCS + 1);
    ck_assert_int_eq(compile(m, FUNCS + 2, &n), SBX_E_ABORTED); /* before the second entry */
    ck_assert_int_eq(n, FUNCS + 2);
    sbx__wasm_module_destroy(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_jit_cancel");
    TCase *tc = tcase_create("cancel");
    tcase_set_timeout(tc, WENV_WAIT_S);
    tcase_add_test(tc, cancelled_before_a_function);
    tcase_add_test(tc, cancelled_before_an_osr_entry);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

/* Hot-only tier-up (src/wasm/jit/lazy.c) across the interpreter/compiled boundary, on a small
 * module forced LAZY (WASM_HOT_ON): which functions get an OSR entry, and that every result
 * equals an interpreter-only store's. The engine's counters and each function's entries say
 * what was compiled and entered (never timing). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/jit/jit.h"
#include "wasm/runtime.h"
#include "wasm_builder.h"
#include "wasm_env.h"

#define HOT_CALLS 1500 /* more calls than the hot threshold */

/* work(n) = n + ... + 1 by a loop (a back-edge per step); forever() loops without end. */
static void env_open(struct wenv *e, uint8_t tier)
{
    struct wb *w = wb_new();
    ck_assert_ptr_nonnull(w);
    wb_export_func(w, "work", wb_func_sum(w));
    struct wb_bytes body = {0};
    wbc_spin(&body);
    wbc_end(&body);
    size_t len;
    uint8_t *bytes = wb_finish_export(w, "forever", "", "", &body, &len);
    ck_assert_ptr_nonnull(bytes);
    struct wasm_store_limits l = {.tier = tier, .tierup_ms = 1, .hot_only = WASM_HOT_ON};
    wenv_open(e, bytes, len, &l);
    free(bytes);
    wenv_instantiate(e, NULL, NULL);
}

static uint32_t work(struct wenv *e, uint32_t n)
{
    wasm_value a = {.i32 = n};
    return wenv_call_i32(e, "work", &a);
}

static bool has_entry(struct wasm_func *f)
{
    return __atomic_load_n(&f->jit_entry, __ATOMIC_ACQUIRE) != NULL;
}

/* A function hot through its calls (a short loop each) gets native code for its next call but
 * no OSR entry: no frame of it runs for long, and the entry is a second translation of the
 * whole function. Fails with OSR entries emitted for every queued function. */
START_TEST(call_hot_function_gets_no_osr_entry)
{
    struct wenv ei, ea;
    env_open(&ei, WASM_TIER_INTERP);
    env_open(&ea, WASM_TIER_AUTO);
    struct wasm_func *f = wenv_export_func(&ea, "work");
    for (int i = 0; i < HOT_CALLS; i++)
        work(&ea, 3);
    for (double end = wenv_now_s() + WENV_WAIT_S; !has_entry(f) && wenv_now_s() < end;)
        work(&ea, 3), usleep(1000);
    ck_assert_msg(has_entry(f), "work got no native code");
    ck_assert_ptr_null(f->osr_entry);
    uint64_t entries = sbx__wasm_store_native_entries(ea.store);
    for (uint32_t n = 1; n < 50; n++)
        ck_assert_uint_eq(work(&ea, n), work(&ei, n));
    ck_assert_uint_eq(sbx__wasm_store_native_entries(ea.store), entries + 49);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(ea.store), 0);
    wenv_close(&ea);
    wenv_close(&ei);
}
END_TEST

/* Interrupts the store once forever() was compiled (with or without an OSR entry), a little
 * later, so that the spinning frame had its back-edges to move at. */
static void *interrupt_when_compiled(void *p)
{
    struct wenv *e = p;
    struct wasm_func *f = wenv_export_func(e, "forever");
    for (double end = wenv_now_s() + WENV_WAIT_S; !has_entry(f) && wenv_now_s() < end;)
        usleep(1000);
    usleep(20 * 1000);
    sbx__wasm_store_interrupt(e->store);
    return NULL;
}

/* A function hot through the back-edges of one call gets an OSR entry, and that very frame moves
 * to native code (the OSR counter) before the interrupt stops it. Fails with OSR entries never
 * emitted for batches. */
START_TEST(loop_hot_function_gets_osr_entry)
{
    struct wenv e;
    struct wasm_trap trap;
    pthread_t t;
    env_open(&e, WASM_TIER_AUTO);
    ck_assert_int_eq(pthread_create(&t, NULL, interrupt_when_compiled, &e), 0);
    ck_assert_int_eq(wenv_call(&e, "forever", NULL, NULL, &trap), SBX_E_WASM_TRAP);
    pthread_join(t, NULL);
    ck_assert_int_eq(trap.kind, WASM_TRAP_INTERRUPTED);
    struct wasm_func *f = wenv_export_func(&e, "forever");
    ck_assert(has_entry(f));
    ck_assert_ptr_nonnull(f->osr_entry);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(e.store), 1);
    wenv_close(&e);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_lazy_cross");
    TCase *tc = tcase_create("lazy_cross");
    tcase_set_timeout(tc, WENV_WAIT_S + 60);
    tcase_add_test(tc, call_hot_function_gets_no_osr_entry);
    tcase_add_test(tc, loop_hot_function_gets_osr_entry);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

/* Hot-only tier-up (src/wasm/jit/lazy.c) across the interpreter/compiled boundary, on a small
 * module forced LAZY (WASM_HOT_ON): which functions get an OSR entry, and that every result
 * equals an interpreter-only store's. The engine's counters and each function's entries say
 * what was compiled and entered (never timing). */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/jit/jit.h"
#include "wasm/runtime.h"
#include "wasm_builder.h"
#include "wasm_env.h"

#define HOT_CALLS 6000 /* more calls than the hot threshold (5000) */

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
 * whole function; and it takes the batch level, having no loop hot in its first call in its
 * batch. Fails with OSR entries emitted for every queued function, and with every batch at the
 * hot-set level. */
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
    ck_assert_uint_eq(sbx__wasm_store_lazy_hot_level(ea.store), 0); /* no loop: the batch level */
    wenv_close(&ea);
    wenv_close(&ei);
}
END_TEST

struct interrupter {
    struct wenv *e;
    clockid_t spinner; /* the CPU clock of the thread that runs forever() */
};

static double cpu_ms(clockid_t clk)
{
    struct timespec ts;
    ck_assert_int_eq(clock_gettime(clk, &ts), 0);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Interrupts the store once forever() was compiled (with or without an OSR entry) and its
 * spinning frame then ran 20 ms of its own CPU time: back-edges enough to move at. Its CPU
 * time, not the wall clock: at load 20 a 20 ms sleep often ended before the spinner ran at all
 * (the OSR count was 0 in 4 of 12 runs). */
static void *interrupt_when_compiled(void *p)
{
    struct interrupter *in = p;
    struct wasm_func *f = wenv_export_func(in->e, "forever");
    double end = wenv_now_s() + WENV_WAIT_S;
    while (!has_entry(f) && wenv_now_s() < end)
        usleep(1000);
    for (double from = cpu_ms(in->spinner); cpu_ms(in->spinner) - from < 20 && wenv_now_s() < end;)
        usleep(1000);
    sbx__wasm_store_interrupt(in->e->store);
    return NULL;
}

/* A function hot through the back-edges of one call gets an OSR entry, and that very frame moves
 * to native code (the OSR counter) before the interrupt stops it; in this small module it is
 * compiled at the hot-set level. Fails with OSR entries never emitted for batches, and with
 * every batch at the batch level. */
START_TEST(loop_hot_function_gets_osr_entry)
{
    struct wenv e;
    struct wasm_trap trap;
    pthread_t t;
    env_open(&e, WASM_TIER_AUTO);
    struct interrupter in = {.e = &e};
    ck_assert_int_eq(pthread_getcpuclockid(pthread_self(), &in.spinner), 0);
    ck_assert_int_eq(pthread_create(&t, NULL, interrupt_when_compiled, &in), 0);
    ck_assert_int_eq(wenv_call(&e, "forever", NULL, NULL, &trap), SBX_E_WASM_TRAP);
    pthread_join(t, NULL);
    ck_assert_int_eq(trap.kind, WASM_TRAP_INTERRUPTED);
    struct wasm_func *f = wenv_export_func(&e, "forever");
    ck_assert(has_entry(f));
    ck_assert_ptr_nonnull(f->osr_entry);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(e.store), 1);
    /* hot within its first call, in a small module: the hot-set level (level.h's loop rule) */
    ck_assert_uint_eq(sbx__wasm_store_lazy_hot_level(e.store), 1);
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

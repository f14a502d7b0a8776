/* The baseline tier (src/wasm/base/): a hot-only store's functions get baseline code from their
 * second entry, and everything they compute, trap on or are interrupted in matches an
 * interpreter-only store. Whether baseline code ran is read off each function's record and the
 * store's count of translations (never timing). The spec suite also runs with every function in
 * baseline code (wasm/spectest-base). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/base/base.h"
#include "wasm/runtime.h"
#include "wasm_builder.h"
#include "wasm_env.h"

#define OP_BR_TABLE 0x0e
#define OP_I32_AND  0x71
#define OP_I32_SHL  0x74

static void loop_body(struct wb_bytes *b, uint32_t helper)
{
    /* locals: 0 n, 1 i, 2 acc. mem[(i & 1023) * 4] = i * i ^ acc */
    wbc_local_get(b, 1), wbc_i32_const(b, 1023), wbc_op(b, OP_I32_AND), wbc_i32_const(b, 4);
    wbc_op(b, WB_OP_I32_MUL);
    wbc_local_get(b, 1), wbc_local_get(b, 1), wbc_op(b, WB_OP_I32_MUL), wbc_local_get(b, 2);
    wbc_op(b, WB_OP_I32_XOR), wbc_i32_store(b);
    /* acc += mem[((i * 7) & 1023) * 4] */
    wbc_local_get(b, 2), wbc_local_get(b, 1), wbc_i32_const(b, 7), wbc_op(b, WB_OP_I32_MUL);
    wbc_i32_const(b, 1023), wbc_op(b, OP_I32_AND), wbc_i32_const(b, 4), wbc_op(b, WB_OP_I32_MUL);
    wbc_i32_load(b), wbc_op(b, WB_OP_I32_ADD), wbc_local_set(b, 2);
    /* by i & 3: acc = helper(acc) | acc - i | acc << 5 ^ acc | nothing (br_table) */
    wbc_block(b, WB_OP_BLOCK), wbc_block(b, WB_OP_BLOCK), wbc_block(b, WB_OP_BLOCK);
    wbc_block(b, WB_OP_BLOCK);
    wbc_local_get(b, 1), wbc_i32_const(b, 3), wbc_op(b, OP_I32_AND), wbc_op(b, OP_BR_TABLE);
    wb_bytes_uleb(b, 3), wb_bytes_uleb(b, 0), wb_bytes_uleb(b, 1), wb_bytes_uleb(b, 2);
    wb_bytes_uleb(b, 3), wbc_end(b);
    wbc_local_get(b, 2), wbc_call(b, helper), wbc_local_set(b, 2), wbc_op(b, WB_OP_BR);
    wb_bytes_uleb(b, 2), wbc_end(b);
    wbc_local_get(b, 2), wbc_local_get(b, 1), wbc_op(b, WB_OP_I32_SUB), wbc_local_set(b, 2);
    wbc_op(b, WB_OP_BR), wb_bytes_uleb(b, 1), wbc_end(b);
    wbc_local_get(b, 2), wbc_i32_const(b, 5), wbc_op(b, OP_I32_SHL), wbc_local_get(b, 2);
    wbc_op(b, WB_OP_I32_XOR), wbc_local_set(b, 2), wbc_end(b);
}

/* helper(x) = x * 3 + 1; mix(n): n rounds of stores, loads, a br_table and calls of helper;
 * peek(a) = the i32 at a; spin_if(x): loops forever when x != 0, else 7. */
static uint8_t *module_bytes(size_t *len)
{
    struct wb *w = wb_new();
    ck_assert_ptr_nonnull(w);
    wb_memory(w, 1, 1);
    struct wb_bytes b = {0};
    wbc_local_get(&b, 0), wbc_i32_const(&b, 3), wbc_op(&b, WB_OP_I32_MUL), wbc_i32_const(&b, 1);
    wbc_op(&b, WB_OP_I32_ADD), wbc_end(&b);
    uint32_t helper = wb_func(w, "i", "i", "", &b);
    b.len = 0;
    /* if n != 0: loop { body; i += 1; br_if i < n } */
    wbc_local_get(&b, 0), wbc_block(&b, WB_OP_IF), wbc_block(&b, WB_OP_LOOP);
    loop_body(&b, helper);
    wbc_local_get(&b, 1), wbc_i32_const(&b, 1), wbc_op(&b, WB_OP_I32_ADD), wbc_local_tee(&b, 1);
    wbc_local_get(&b, 0), wbc_op(&b, WB_OP_I32_LT_U), wbc_op(&b, WB_OP_BR_IF), wb_bytes_uleb(&b, 0);
    wbc_end(&b), wbc_end(&b), wbc_local_get(&b, 2), wbc_end(&b);
    wb_export_func(w, "mix", wb_func(w, "i", "i", "ii", &b));
    b.len = 0;
    wbc_local_get(&b, 0), wbc_i32_load(&b), wbc_end(&b);
    wb_export_func(w, "peek", wb_func(w, "i", "i", "", &b));
    b.len = 0;
    wbc_local_get(&b, 0), wbc_block(&b, WB_OP_IF), wbc_spin(&b), wbc_end(&b);
    wbc_i32_const(&b, 7), wbc_end(&b);
    wb_export_func(w, "spin_if", wb_func(w, "i", "i", "", &b));
    wb_bytes_free(&b);
    uint8_t *bytes = wb_finish(w, len);
    wb_free(w);
    ck_assert_ptr_nonnull(bytes);
    return bytes;
}

/* A hot-only store that never reaches LLVM within a test (its tier-up waits 10 minutes of
 * interpretation), metered or not; or an interpreter-only store. */
static void env_open(struct wenv *e, uint8_t tier, uint64_t fuel)
{
    size_t len;
    uint8_t *bytes = module_bytes(&len);
    struct wasm_store_limits l = {
        .tier = tier, .tierup_ms = 600000, .hot_only = WASM_HOT_ON, .fuel = fuel};
    wenv_open(e, bytes, len, &l);
    free(bytes);
    wenv_instantiate(e, NULL, NULL);
}

static uint32_t call1(struct wenv *e, const char *name, uint32_t x)
{
    wasm_value a = {.i32 = x};
    return wenv_call_i32(e, name, &a);
}

/* Fails when baseline code computes anything differently (every instruction of mix is one it
 * translates, the call and the br_table's arms included), or when it is never used. */
START_TEST(results_equal_the_interpreters)
{
    struct wenv eb, ei;
    env_open(&eb, WASM_TIER_AUTO, 0);
    env_open(&ei, WASM_TIER_INTERP, 0);
    for (uint32_t n = 0; n < 300; n += 7)
        ck_assert_uint_eq(call1(&eb, "mix", n), call1(&ei, "mix", n));
    ck_assert_ptr_nonnull(wenv_export_func(&eb, "mix")->base);
    ck_assert_uint_ge(sbx__base_count(eb.store), 2); /* mix and helper */
    ck_assert_uint_eq(sbx__base_count(ei.store), 0);
    wenv_close(&eb);
    wenv_close(&ei);
}
END_TEST

/* An out-of-bounds load in baseline code traps as the interpreter's does: kind and message. */
START_TEST(out_of_bounds_traps_the_same)
{
    struct wenv eb, ei;
    env_open(&eb, WASM_TIER_AUTO, 0);
    env_open(&ei, WASM_TIER_INTERP, 0);
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(call1(&eb, "peek", 8), 0);
    ck_assert_ptr_nonnull(wenv_export_func(&eb, "peek")->base);
    uint32_t at[] = {65533, 65536, 0xFFFFFFFFu};
    for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
        wasm_value a = {.i32 = at[k]}, rb, ri;
        struct wasm_trap tb, ti;
        ck_assert_int_eq(wenv_call(&eb, "peek", &a, &rb, &tb), SBX_E_WASM_TRAP);
        ck_assert_int_eq(wenv_call(&ei, "peek", &a, &ri, &ti), SBX_E_WASM_TRAP);
        ck_assert_int_eq(tb.kind, WASM_TRAP_MEMORY_OOB);
        ck_assert_int_eq(tb.kind, ti.kind);
        ck_assert_str_eq(tb.message, ti.message);
    }
    ck_assert_uint_eq(call1(&eb, "peek", 65532), 0); /* the last word is in bounds */
    wenv_close(&eb);
    wenv_close(&ei);
}
END_TEST

struct interrupter {
    struct wenv *e;
    clockid_t spinner;
};

static double cpu_ms(clockid_t clk)
{
    struct timespec ts;
    ck_assert_int_eq(clock_gettime(clk, &ts), 0);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* After 20 ms of the spinner's own CPU time: its loop is in baseline code by then. */
static void *interrupt_later(void *p)
{
    struct interrupter *in = p;
    double end = wenv_now_s() + WENV_WAIT_S;
    for (double from = cpu_ms(in->spinner); cpu_ms(in->spinner) - from < 20 && wenv_now_s() < end;)
        usleep(1000);
    sbx__wasm_store_interrupt(in->e->store);
    return NULL;
}

/* A loop of baseline code polls the interrupt flag at its back-edge. Fails (the test times out)
 * when baseline back-edges do not poll. */
START_TEST(interrupt_stops_a_baseline_loop)
{
    struct wenv e;
    env_open(&e, WASM_TIER_AUTO, 0);
    ck_assert_uint_eq(call1(&e, "spin_if", 0), 7);
    ck_assert_uint_eq(call1(&e, "spin_if", 0), 7);
    ck_assert_ptr_nonnull(wenv_export_func(&e, "spin_if")->base);
    struct interrupter in = {.e = &e};
    ck_assert_int_eq(pthread_getcpuclockid(pthread_self(), &in.spinner), 0);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, interrupt_later, &in), 0);
    wasm_value a = {.i32 = 1}, r;
    struct wasm_trap trap;
    ck_assert_int_eq(wenv_call(&e, "spin_if", &a, &r, &trap), SBX_E_WASM_TRAP);
    pthread_join(t, NULL);
    ck_assert_int_eq(trap.kind, WASM_TRAP_INTERRUPTED);
    wenv_close(&e);
}
END_TEST

/* Fuel is counted per interpreted instruction: a metered store never enters baseline code, and
 * runs out of fuel where the interpreter-only store does. */
START_TEST(metered_store_stays_interpreted)
{
    struct wenv eb, ei;
    env_open(&eb, WASM_TIER_AUTO, 200000);
    env_open(&ei, WASM_TIER_INTERP, 200000);
    sbx_err rb = SBX_OK, ri = SBX_OK;
    uint32_t calls = 0;
    while (rb == SBX_OK && ri == SBX_OK && calls < 1000) {
        wasm_value a = {.i32 = 50}, xb, xi;
        struct wasm_trap tb, ti;
        rb = wenv_call(&eb, "mix", &a, &xb, &tb);
        ri = wenv_call(&ei, "mix", &a, &xi, &ti);
        if (rb == SBX_OK && ri == SBX_OK)
            ck_assert_uint_eq(xb.i32, xi.i32);
        calls++;
    }
    ck_assert_int_eq(rb, SBX_E_WASM_TRAP); /* both ran out, at the same call */
    ck_assert_int_eq(ri, SBX_E_WASM_TRAP);
    ck_assert_uint_gt(calls, 2);
    ck_assert_uint_eq(sbx__base_count(eb.store), 0);
    wenv_close(&eb);
    wenv_close(&ei);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_base");
    TCase *tc = tcase_create("base");
    tcase_set_timeout(tc, WENV_WAIT_S + 30);
    tcase_add_test(tc, results_equal_the_interpreters);
    tcase_add_test(tc, out_of_bounds_traps_the_same);
    tcase_add_test(tc, interrupt_stops_a_baseline_loop);
    tcase_add_test(tc, metered_store_stays_interpreted);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

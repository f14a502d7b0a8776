/* Hot-only tier-up under the AUTO tier (src/wasm/jit/lazy.c): a store with a module of at
 * least SBX__JIT_LARGE_BYTES of code compiles only the functions that get hot, in batches,
 * while the rest stay interpreted. The module is generated here: a few small functions that
 * the tests make hot or keep cold, then enough padding functions (never called) to pass the
 * boundary. The engine's counters and each function's jit_entry say what was compiled (never
 * timing), and every result and trap is compared with an interpreter-only store. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/jit/jit.h"
#include "wasm/jit/level.h"
#include "wasm/runtime.h"
#include "wasm/wasm.h"
#include "wasm_builder.h"
#include "wasm_env.h"

#define PADS      1000 /* padding functions, PAD_ADDS additions each: about 600 KB of code */
#define PAD_ADDS  150
#define HOT_CALLS 6000 /* more calls than the hot threshold (5000) */

/* The named functions, in index order; all are (i32) -> i32. */
enum { F_HOT, F_COLD, F_CALLER, F_LATE, F_TRAPPER, F_TRAP_CALLER, F_SPIN, F_NAMED };
static const char *const names[F_NAMED] = {"hot",     "cold_c",      "caller", "late",
                                           "trapper", "trap_caller", "spin"};

/* hot(n), locals i and acc: a loop (acc = acc * 31 + i for i < n), then acc += cold_c(acc)
 * when n == 7; returns acc. */
static void body_hot(struct wb_bytes *c)
{
    wbc_block(c, WB_OP_LOOP);
    wbc_local_get(c, 2), wbc_i32_const(c, 31), wbc_op(c, WB_OP_I32_MUL);
    wbc_local_get(c, 1), wbc_op(c, WB_OP_I32_ADD), wbc_local_set(c, 2);
    wbc_local_get(c, 1), wbc_i32_const(c, 1), wbc_op(c, WB_OP_I32_ADD), wbc_local_tee(c, 1);
    wbc_local_get(c, 0), wbc_op(c, WB_OP_I32_LT_U), wbc_op(c, WB_OP_BR_IF), wb_bytes_uleb(c, 0);
    wbc_end(c);
    wbc_local_get(c, 0), wbc_i32_const(c, 7), wbc_op(c, WB_OP_I32_EQ), wbc_block(c, WB_OP_IF);
    wbc_local_get(c, 2), wbc_call(c, F_COLD), wbc_local_get(c, 2), wbc_op(c, WB_OP_I32_ADD);
    wbc_local_set(c, 2), wbc_end(c);
    wbc_local_get(c, 2), wbc_end(c);
}

static void body_cold(struct wb_bytes *c) /* n ^ 23130 */
{
    wbc_local_get(c, 0), wbc_i32_const(c, 23130), wbc_op(c, WB_OP_I32_XOR), wbc_end(c);
}

static void body_caller(struct wb_bytes *c) /* hot(n) + 1 */
{
    wbc_local_get(c, 0), wbc_call(c, F_HOT), wbc_i32_const(c, 1), wbc_op(c, WB_OP_I32_ADD);
    wbc_end(c);
}

static void body_late(struct wb_bytes *c) /* hot(n) ^ n */
{
    wbc_local_get(c, 0), wbc_call(c, F_HOT), wbc_local_get(c, 0), wbc_op(c, WB_OP_I32_XOR);
    wbc_end(c);
}

static void body_trapper(struct wb_bytes *c) /* traps on 0; else n * 3 */
{
    wbc_local_get(c, 0), wbc_op(c, WB_OP_I32_EQZ), wbc_block(c, WB_OP_IF);
    wbc_op(c, WB_OP_UNREACHABLE), wbc_end(c);
    wbc_local_get(c, 0), wbc_i32_const(c, 3), wbc_op(c, WB_OP_I32_MUL), wbc_end(c);
}

static void body_trap_caller(struct wb_bytes *c) /* trapper(n) + 1 */
{
    wbc_local_get(c, 0), wbc_call(c, F_TRAPPER), wbc_i32_const(c, 1), wbc_op(c, WB_OP_I32_ADD);
    wbc_end(c);
}

static void body_spin(struct wb_bytes *c) /* loops n times, forever when n == 0 */
{
    wbc_block(c, WB_OP_LOOP);
    wbc_local_get(c, 1), wbc_i32_const(c, 1), wbc_op(c, WB_OP_I32_ADD), wbc_local_set(c, 1);
    wbc_local_get(c, 0), wbc_op(c, WB_OP_I32_EQZ), wbc_op(c, WB_OP_BR_IF), wb_bytes_uleb(c, 0);
    wbc_local_get(c, 1), wbc_local_get(c, 0), wbc_op(c, WB_OP_I32_LT_U);
    wbc_op(c, WB_OP_BR_IF), wb_bytes_uleb(c, 0), wbc_end(c);
    wbc_local_get(c, 1), wbc_end(c);
}

static const struct {
    void (*body)(struct wb_bytes *c);
    const char *locals;
} funcs[F_NAMED] = {
    {body_hot, "ii"},   {body_cold, ""},        {body_caller, ""}, {body_late, ""},
    {body_trapper, ""}, {body_trap_caller, ""}, {body_spin, "i"},
};

/* The named functions, exported and named (traps name them), then the padding. */
static uint8_t *big_module(size_t *len)
{
    struct wb *w = wb_new();
    ck_assert_ptr_nonnull(w);
    for (uint32_t i = 0; i < F_NAMED; i++) {
        struct wb_bytes c = {0};
        funcs[i].body(&c);
        ck_assert_uint_eq(wb_func(w, "i", "i", funcs[i].locals, &c), i);
        wb_bytes_free(&c);
        wb_export_func(w, names[i], i);
        wb_func_name(w, i, names[i]);
    }
    wb_func_padding(w, PADS, PAD_ADDS);
    uint8_t *bytes = wb_finish(w, len);
    wb_free(w);
    ck_assert_ptr_nonnull(bytes);
    return bytes;
}

static void env_open(struct wenv *e, uint8_t tier, uint8_t hot_only)
{
    size_t len;
    uint8_t *bytes = big_module(&len);
    struct wasm_store_limits l = {.tier = tier, .tierup_ms = 1, .hot_only = hot_only};
    wenv_open(e, bytes, len, &l);
    free(bytes);
    ck_assert_uint_ge(sbx__jit_code_bytes(e->m), SBX__JIT_LARGE_BYTES);
    wenv_instantiate(e, NULL, NULL);
}

static bool is_native(struct wenv *e, int idx)
{
    return __atomic_load_n(&wenv_export_func(e, names[idx])->jit_entry, __ATOMIC_ACQUIRE) != NULL;
}

static sbx_err call(struct wenv *e, int idx, uint32_t arg, uint32_t *res, struct wasm_trap *trap)
{
    wasm_value a = {.i32 = arg}, r[1] = {0};
    sbx_err rc = wenv_call(e, names[idx], &a, r, trap);
    *res = r[0].i32;
    return rc;
}

static uint32_t call_i32(struct wenv *e, int idx, uint32_t arg)
{
    wasm_value a = {.i32 = arg};
    return wenv_call_i32(e, names[idx], &a);
}

/* Calls idx(arg) until it has native code (it is hot after the first few). */
static void make_hot(struct wenv *e, int idx, uint32_t arg)
{
    for (int i = 0; i < HOT_CALLS; i++)
        call_i32(e, idx, arg);
    for (double end = wenv_now_s() + WENV_WAIT_S; !is_native(e, idx) && wenv_now_s() < end;
         usleep(1000))
        call_i32(e, idx, arg);
    ck_assert_msg(is_native(e, idx), "%s got no native code", names[idx]);
}

/* The hot function alone is compiled (a loop: its back-edges make it hot within one call);
 * a cold function it calls, its interpreted caller and the padding stay interpreted, and every
 * result equals the interpreter's: compiled -> interpreted (hot(7) calls cold_c) and
 * interpreted -> compiled (caller). Fails with the counting removed (nothing is compiled) and
 * with the whole-module path (every function gets code). */
START_TEST(hot_function_alone_is_compiled)
{
    struct wenv ei, ea;
    env_open(&ei, WASM_TIER_INTERP, WASM_HOT_DEFAULT);
    env_open(&ea, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(ea.store), WASM_TIERUP_IDLE);
    make_hot(&ea, F_HOT, 5000);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(ea.store), WASM_TIERUP_LAZY);
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(ea.store), 1);
    /* a loop hot in its first call, but in a large module: the batch level (level.h) */
    ck_assert_uint_eq(sbx__wasm_store_lazy_hot_level(ea.store), 0);
    ck_assert(!is_native(&ea, F_COLD));
    ck_assert(!is_native(&ea, F_CALLER));
    ck_assert_uint_eq(call_i32(&ea, F_HOT, 5000), call_i32(&ei, F_HOT, 5000));
    uint64_t entries = sbx__wasm_store_native_entries(ea.store);
    ck_assert_uint_eq(call_i32(&ea, F_HOT, 7), call_i32(&ei, F_HOT, 7));
    ck_assert_uint_eq(call_i32(&ea, F_CALLER, 300), call_i32(&ei, F_CALLER, 300));
    ck_assert_uint_eq(sbx__wasm_store_native_entries(ea.store), entries + 2);
    ck_assert(!is_native(&ea, F_COLD));
    ck_assert(!is_native(&ea, F_CALLER));
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(ea.store), 1);
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(ei.store), 0);
    wenv_close(&ea);
    wenv_close(&ei);
}
END_TEST

/* A later batch calls an earlier one: late (hot from the host's calls, no loop) calls hot
 * (compiled first) through the runtime's entry slot. */
START_TEST(later_batch_calls_earlier)
{
    struct wenv ei, ea;
    env_open(&ei, WASM_TIER_INTERP, WASM_HOT_DEFAULT);
    env_open(&ea, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
    make_hot(&ea, F_HOT, 5000);
    ck_assert(!is_native(&ea, F_LATE));
    make_hot(&ea, F_LATE, 9);
    ck_assert_uint_ge(sbx__wasm_store_lazy_batches(ea.store), 2);
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(ea.store), 2);
    for (uint32_t n = 0; n < 20; n++)
        ck_assert_uint_eq(call_i32(&ea, F_LATE, n), call_i32(&ei, F_LATE, n));
    wenv_close(&ea);
    wenv_close(&ei);
}
END_TEST

/* A trap inside a lazily compiled callee, called from an interpreted caller, names the callee,
 * as the interpreter's does. */
START_TEST(trap_in_compiled_callee_names_it)
{
    struct wenv ei, ea;
    struct wasm_trap ti, ta;
    uint32_t r;
    env_open(&ei, WASM_TIER_INTERP, WASM_HOT_DEFAULT);
    env_open(&ea, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
    make_hot(&ea, F_TRAPPER, 5);
    ck_assert(!is_native(&ea, F_TRAP_CALLER));
    uint64_t entries = sbx__wasm_store_native_entries(ea.store);
    ck_assert_int_eq(call(&ei, F_TRAP_CALLER, 0, &r, &ti), SBX_E_WASM_TRAP);
    ck_assert_int_eq(call(&ea, F_TRAP_CALLER, 0, &r, &ta), SBX_E_WASM_TRAP);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(ea.store), entries + 1);
    ck_assert_int_eq(ta.kind, WASM_TRAP_UNREACHABLE);
    ck_assert_str_eq(ta.message, ti.message);
    ck_assert_ptr_nonnull(strstr(ta.message, "in trapper"));
    ck_assert_uint_eq(call_i32(&ea, F_TRAP_CALLER, 4), call_i32(&ei, F_TRAP_CALLER, 4));
    wenv_close(&ea);
    wenv_close(&ei);
}
END_TEST

static double interrupted_at;

static void *interrupt_later(void *p)
{
    usleep(300 * 1000);
    interrupted_at = wenv_now_s();
    sbx__wasm_store_interrupt(p);
    return NULL;
}

/* An endless loop in a lazily compiled function stops at the interrupt (its native loop header
 * polls the flag; the bound allows for a loaded machine). */
START_TEST(interrupt_of_compiled_loop)
{
    struct wenv e;
    struct wasm_trap trap;
    uint32_t r;
    pthread_t t;
    env_open(&e, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
    make_hot(&e, F_SPIN, 100);
    uint64_t entries = sbx__wasm_store_native_entries(e.store);
    ck_assert_int_eq(pthread_create(&t, NULL, interrupt_later, e.store), 0);
    ck_assert_int_eq(call(&e, F_SPIN, 0, &r, &trap), SBX_E_WASM_TRAP);
    double took_ms = (wenv_now_s() - interrupted_at) * 1e3;
    pthread_join(t, NULL);
    ck_assert_int_eq(trap.kind, WASM_TRAP_INTERRUPTED);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), entries + 1);
    printf("lazy: interrupt stopped the native loop in %.2f ms\n", took_ms);
    ck_assert_msg(took_ms < 500, "interrupt took %.1f ms", took_ms);
    wenv_close(&e);
}
END_TEST

/* Fuel runs stay interpreted, and hot_only OFF keeps the whole-module path (the control:
 * nothing is compiled one function at a time). */
START_TEST(fuel_and_off_compile_no_batch)
{
    struct wenv e;
    env_open(&e, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
    sbx__wasm_store_set_fuel(e.store, 1000000000);
    for (int i = 0; i < HOT_CALLS; i++)
        call_i32(&e, F_HOT, 100);
    usleep(100 * 1000);
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(e.store), 0);
    ck_assert(!is_native(&e, F_HOT));
    wenv_close(&e);
    env_open(&e, WASM_TIER_AUTO, WASM_HOT_OFF);
    call_i32(&e, F_HOT, 100);
    ck_assert_uint_ne(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_LAZY);
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(e.store), 0);
    wenv_close(&e);
}
END_TEST

/* The store is destroyed while a batch compiles: destroy waits for the compile, which stops at
 * its next function or phase (the pause below holds it at its start until destroy began). */
static atomic_bool pause_armed, is_paused, is_destroying, has_resumed;

void sbx__jit_test_pause(int where)
{
    if (where != 1 || !atomic_load(&pause_armed) || atomic_exchange(&is_paused, true))
        return;
    for (double end = wenv_now_s() + WENV_WAIT_S;
         !atomic_load(&is_destroying) && wenv_now_s() < end;)
        usleep(1000);
    usleep(100 * 1000); /* destroy is waiting for the compile by now */
    atomic_store(&has_resumed, true);
}

START_TEST(destroy_during_batch)
{
    struct wenv e;
    atomic_store(&pause_armed, true);
    env_open(&e, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
    call_i32(&e, F_HOT, 5000); /* hot within the call */
    for (double end = wenv_now_s() + WENV_WAIT_S; !atomic_load(&is_paused) && wenv_now_s() < end;
         usleep(1000))
        call_i32(&e, F_CALLER, 1); /* keeps the store busy past its threshold */
    ck_assert(atomic_load(&is_paused));
    atomic_store(&is_destroying, true);
    sbx__wasm_store_destroy(e.store);
    ck_assert(atomic_load(&has_resumed)); /* destroy returned after the compile did */
    sbx__wasm_module_destroy(e.m);
    atomic_store(&pause_armed, false);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_lazy");
    TCase *tc = tcase_create("lazy");
    tcase_set_timeout(tc, WENV_WAIT_S + 60);
    tcase_add_test(tc, hot_function_alone_is_compiled);
    tcase_add_test(tc, later_batch_calls_earlier);
    tcase_add_test(tc, trap_in_compiled_callee_names_it);
    tcase_add_test(tc, interrupt_of_compiled_loop);
    tcase_add_test(tc, fuel_and_off_compile_no_batch);
    tcase_add_test(tc, destroy_during_batch);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

/* On-stack replacement under the AUTO tier (src/wasm/interp_osr.c, jit/emit_osr.c): a
 * function already running in the interpreter moves to native code at a loop back-edge once
 * the store has tiered up. Each guest loop calls the import "wait" in its first iteration,
 * which blocks until the store's tier-up is done, so the rest of the loop runs after it; the
 * engine's OSR counter says whether the frame moved (never timing alone), and every result,
 * trap and memory effect is compared with an interpreter-only store. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "test_osr_mods.h"
#include "wasm/jit/jit.h"
#include "wasm_env.h"

/* spin()'s iterations: about a second interpreted, a fraction of it native */
#define SPIN_N 150000000u

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* tier AUTO (tier-up after 1 ms of guest time; "wait" blocks until native) or INTERP. */
static void env_open(struct wenv *e, uint8_t tier)
{
    struct wasm_store_limits l = {.tier = tier, .tierup_ms = 1};
    wenv_open(e, mod_osr, sizeof(mod_osr), &l);
    e->wait_for = tier == WASM_TIER_AUTO ? WASM_TIERUP_NATIVE : WASM_TIERUP_IDLE;
    wenv_instantiate(e, wenv_resolve_wait, e);
}

static uint32_t call_i32(struct wenv *e, const char *name, uint32_t arg)
{
    wasm_value a = {.i32 = arg};
    return wenv_call_i32(e, name, &a);
}

static uint64_t spin(struct wenv *e, double *cpu)
{
    wasm_value a = {.i32 = SPIN_N}, r[1] = {0};
    struct wasm_trap trap;
    double t0 = cpu_s();
    ck_assert_int_eq(wenv_call(e, "spin", &a, r, &trap), SBX_OK);
    *cpu = cpu_s() - t0;
    return r[0].i64;
}

/* One call whose loop runs for about a second interpreted: under AUTO the frame moves to
 * native code at a back-edge after the tier-up (one OSR entry, the only native entry) and
 * finishes with the same value, in much less of this thread's CPU (the compile runs on the
 * worker). It fails with the interpreter's back-edge check removed (no OSR entry). */
START_TEST(long_loop_moves_to_native)
{
    struct wenv ei, ea;
    double cpu_i, cpu_a;
    env_open(&ei, WASM_TIER_INTERP);
    uint64_t want = spin(&ei, &cpu_i);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(ei.store), 0);
    wenv_close(&ei);
    env_open(&ea, WASM_TIER_AUTO);
    ck_assert_uint_eq(spin(&ea, &cpu_a), want);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(ea.store), WASM_TIERUP_NATIVE);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(ea.store), 1);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(ea.store), 1);
    wenv_close(&ea);
    printf("osr: spin(%u) CPU interp %.3f s, auto %.3f s\n", SPIN_N, cpu_i, cpu_a);
    ck_assert_msg(cpu_a * 2 < cpu_i, "auto %.3f s vs interp %.3f s", cpu_a, cpu_i);
}
END_TEST

/* Locals of every type (a signalling NaN's payload in f32 and f64, a v128, a funcref, an
 * externref) carry over into the native loop exactly: the results match the interpreter's
 * bit for bit, and the refs are the same objects. */
START_TEST(locals_of_every_type_carry_over)
{
    void *host_ref = (void *)(uintptr_t)0x5eed1234u;
    wasm_value arg = {.ref = host_ref}, ri[7], ra[7];
    struct wasm_trap trap;
    memset(ri, 0, sizeof(ri));
    memset(ra, 0, sizeof(ra));
    struct wenv ei, ea;
    env_open(&ei, WASM_TIER_INTERP);
    ck_assert_int_eq(wenv_call(&ei, "types", &arg, ri, &trap), SBX_OK);
    ck_assert_ptr_eq(ri[5].ref, wenv_export_func(&ei, "spin"));
    wenv_close(&ei);
    env_open(&ea, WASM_TIER_AUTO);
    ck_assert_int_eq(wenv_call(&ea, "types", &arg, ra, &trap), SBX_OK);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(ea.store), 1);
    ck_assert_uint_eq(ra[0].i32, ri[0].i32);
    ck_assert_uint_eq(ra[0].i32, 0x7eadbeefu + 1001);
    ck_assert_uint_eq(ra[1].i64, ri[1].i64);
    ck_assert_uint_eq(ra[2].f32, 0x7fa00001u);
    ck_assert_uint_eq(ra[3].f64, 0x7ff4000000000123u);
    ck_assert_mem_eq(ra[4].v128, ri[4].v128, 16);
    ck_assert_ptr_eq(ra[5].ref, wenv_export_func(&ea, "spin"));
    ck_assert_ptr_eq(ra[6].ref, host_ref);
    wenv_close(&ea);
}
END_TEST

/* memory.grow inside the native loop: the interpreted caller it returns to sees the new
 * size and stores to the new page. */
START_TEST(memory_grow_after_osr)
{
    struct wenv ei, ea;
    env_open(&ei, WASM_TIER_INTERP);
    uint32_t want = call_i32(&ei, "grow", 0);
    wenv_close(&ei);
    ck_assert_uint_eq(want, 42 + 2 * 100 + 1);
    env_open(&ea, WASM_TIER_AUTO);
    ck_assert_uint_eq(call_i32(&ea, "grow", 0), want);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(ea.store), 1);
    wenv_close(&ea);
}
END_TEST

/* A trap inside the native loop is the interpreter's: same kind, same message naming oob. */
START_TEST(trap_after_osr_names_the_function)
{
    wasm_value a = {.i32 = 1000}, r[1];
    struct wasm_trap ti, ta;
    struct wenv ei, ea;
    env_open(&ei, WASM_TIER_INTERP);
    ck_assert_int_eq(wenv_call(&ei, "oob", &a, r, &ti), SBX_E_WASM_TRAP);
    wenv_close(&ei);
    env_open(&ea, WASM_TIER_AUTO);
    ck_assert_int_eq(wenv_call(&ea, "oob", &a, r, &ta), SBX_E_WASM_TRAP);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(ea.store), 1);
    wenv_close(&ea);
    ck_assert_int_eq(ta.kind, WASM_TRAP_MEMORY_OOB);
    ck_assert_int_eq(ta.kind, ti.kind);
    ck_assert_str_eq(ta.message, ti.message);
    ck_assert_msg(strstr(ta.message, "oob") != NULL, "message: %s", ta.message);
}
END_TEST

static double interrupted_at;

static void *interrupt_after_native(void *p)
{
    if (wenv_wait_tierup(p, WASM_TIERUP_NATIVE))
        usleep(200 * 1000); /* the frame moved at its next back-edge, long before */
    interrupted_at = wenv_now_s();
    sbx__wasm_store_interrupt(p);
    return NULL;
}

/* An endless loop moved to native code stops at the interrupt: the native loop header polls
 * the flag (the 1 ms of the issue; the bound here allows for a loaded machine). */
START_TEST(interrupt_after_osr)
{
    struct wenv e;
    struct wasm_trap trap;
    pthread_t t;
    env_open(&e, WASM_TIER_AUTO);
    ck_assert_int_eq(pthread_create(&t, NULL, interrupt_after_native, e.store), 0);
    ck_assert_int_eq(wenv_call(&e, "forever", NULL, NULL, &trap), SBX_E_WASM_TRAP);
    double took_ms = (wenv_now_s() - interrupted_at) * 1e3;
    pthread_join(t, NULL);
    ck_assert_int_eq(trap.kind, WASM_TRAP_INTERRUPTED);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(e.store), 1);
    printf("osr: interrupt stopped the native loop in %.2f ms\n", took_ms);
    ck_assert_msg(took_ms < 500, "interrupt took %.1f ms", took_ms);
    wenv_close(&e);
}
END_TEST

/* A loop with a value on the operand stack below it has no OSR entry: it stays interpreted
 * after the tier-up and is still right. The control: a loop with a param (an empty stack below
 * it) moves. */
START_TEST(stack_below_loop_stays_interpreted)
{
    struct wenv ea;
    env_open(&ea, WASM_TIER_AUTO);
    ck_assert_uint_eq(call_i32(&ea, "below", 1000), 2000);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(ea.store), WASM_TIERUP_NATIVE);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(ea.store), 0);
    wenv_close(&ea);
    env_open(&ea, WASM_TIER_AUTO);
    ck_assert_uint_eq(call_i32(&ea, "params", 1000), 7 + 3 * 1000);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(ea.store), 1);
    wenv_close(&ea);
}
END_TEST

/* Fuel runs never move: a metered store never tiers up (the interpreter counts fuel). */
START_TEST(fuel_runs_stay_interpreted)
{
    struct wenv e;
    env_open(&e, WASM_TIER_AUTO);
    e.wait_for = WASM_TIERUP_IDLE;
    sbx__wasm_store_set_fuel(e.store, 100000000);
    ck_assert_uint_eq(call_i32(&e, "params", 1000), 7 + 3 * 1000);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_IDLE);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(e.store), 0);
    wenv_close(&e);
}
END_TEST

static struct wasm_instance *osr_calls_inst; /* resolve_late's "a" */

static bool resolve_late(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    (void)user;
    return imp->kind == WASM_EXTERN_TABLE &&
           sbx__wasm_instance_export(osr_calls_inst, imp->name, strlen(imp->name), out);
}

/* A frame moved by OSR whose native code calls a function the store did not compile (its
 * instance came after the tier-up armed): that call enters the interpreter again, which must
 * take the frame record above the moved frame's, not the moved frame's own (its return to the
 * interpreted caller "outer"). With the record overwritten, "outer" returned at once, without
 * adding its 1000. */
START_TEST(osr_frame_calls_the_interpreter)
{
    struct wenv e;
    struct wasm_store_limits l = {.tier = WASM_TIER_AUTO, .tierup_ms = 1};
    wenv_open(&e, mod_osr_calls, sizeof(mod_osr_calls), &l);
    struct wasm_module *mb = wenv_module(mod_osr_late, sizeof(mod_osr_late));
    e.wait_for = WASM_TIERUP_NATIVE;
    wenv_instantiate(&e, wenv_resolve_wait, &e);
    ck_assert_int_eq(wenv_call(&e, "nop", NULL, NULL, NULL),
                     SBX_OK); /* arms the tier-up with e.m */
    struct wasm_instance *late;
    char err[256] = "";
    osr_calls_inst = e.inst;
    ck_assert_msg(sbx__wasm_instantiate(e.store, mb, resolve_late, NULL, &late, NULL, err,
                                        sizeof(err)) == SBX_OK,
                  "instantiate: %s", err);
    ck_assert_uint_eq(call_i32(&e, "outer", 10), 5 + 10 + 1000);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_NATIVE);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(e.store), 1);
    wenv_close(&e);
    sbx__wasm_module_destroy(mb);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_osr");
    TCase *tc = tcase_create("osr");
    tcase_set_timeout(tc, WENV_WAIT_S + 60);
    tcase_add_test(tc, long_loop_moves_to_native);
    tcase_add_test(tc, locals_of_every_type_carry_over);
    tcase_add_test(tc, memory_grow_after_osr);
    tcase_add_test(tc, trap_after_osr_names_the_function);
    tcase_add_test(tc, interrupt_after_osr);
    tcase_add_test(tc, stack_below_loop_stays_interpreted);
    tcase_add_test(tc, fuel_runs_stay_interpreted);
    tcase_add_test(tc, osr_frame_calls_the_interpreter);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

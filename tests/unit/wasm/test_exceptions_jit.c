/* Compiled try_table (src/wasm/jit/emit_eh.c): functions that catch run native in the compiled
 * tier and after AUTO's tier-up (the engine's counters say so: native entries grow, no call
 * falls back to the interpreter); a throw crosses many alternating compiled and interpreted
 * frames (a function over the compile-cost bound stays interpreted) in both directions, and
 * recursion through them ends in a clean "call stack exhausted" bounded by the native stack;
 * an interrupt inside a try_table (a loop in its body, or in a callee) is a trap no catch_all
 * takes. The module (built below, no text format: wabt 1.0.32 has no try_table):
 * (module
 *   (tag $t0 (param i32)) (tag $t1 (param i32))
 *   (func $f (param $n i32) (result i32)         ;; compiled; its clause never matches
 *     (try_table (result i32) (catch $t1 0) (call $g (local.get $n))))
 *   (func $g (param $n i32) (result i32)         ;; interpreted when padded over the bound
 *     (if (i32.eqz (local.get $n)) (then (throw $t0 (i32.const 42))))
 *     (return (call $f (i32.sub (local.get $n) (i32.const 1))))
 *     (i32.const 0) (drop) ...)                  ;; padding, dead code
 *   (func (export "top") (param $n i32) (result i32)
 *     (block $c (result i32)
 *       (try_table (result i32) (catch $t0 $c) (call $f (local.get $n)))
 *       (return (i32.add (i32.const 1000)))))
 *   (func $spin (loop $l (br $l)))
 *   (func (export "spin_in_try") (result i32)
 *     (block $c (try_table (catch_all $c) (call $spin)) (return (i32.const 0))) (i32.const 1))
 *   (func (export "loop_in_try") (result i32)
 *     (block $c (try_table (catch_all $c) (loop $l (br $l)))) (i32.const 1)))
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx_test.h"
#include "wasm/code.h"
#include "wasm/jit/jit.h"
#include "wasm/jit/level.h"
#include "wasm_builder.h"
#include "wasm_env.h"

/* (i32.const 0) (drop): 3 bytes, so this many put $g over the compile-cost bound. */
#define PAD_PAIRS (SBX__JIT_MAX_BODY_BYTES / 3 + 16)

static void section(struct wb_bytes *mod, uint8_t id, struct wb_bytes *body)
{
    wb_bytes_byte(mod, id);
    wb_bytes_uleb(mod, body->len);
    wb_bytes_put(mod, body->data, body->len);
    wb_bytes_free(body);
}

static void body(struct wb_bytes *code, const uint8_t *bytes, size_t len, size_t pad)
{
    struct wb_bytes b = {0};
    wb_bytes_byte(&b, 0x00); /* no locals */
    wb_bytes_put(&b, bytes, len - 1);
    for (size_t i = 0; i < pad; i++)
        wb_bytes_put(&b, (const uint8_t[]){0x41, 0x00, 0x1a}, 3);
    wb_bytes_byte(&b, bytes[len - 1]); /* the final end */
    wb_bytes_uleb(code, b.len);
    wb_bytes_put(code, b.data, b.len);
    wb_bytes_free(&b);
}

static const uint8_t f_body[] = {0x1f, 0x7f, 0x01, 0x00, 0x01, 0x00,
                                 0x20, 0x00, 0x10, 0x01, 0x0b, 0x0b};
static const uint8_t g_body[] = {0x20, 0x00, 0x45, 0x04, 0x40, 0x41, 0x2a, 0x08, 0x00, 0x0b,
                                 0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00, 0x0f, 0x0b};
static const uint8_t top_body[] = {0x02, 0x7f, 0x1f, 0x7f, 0x01, 0x00, 0x00, 0x00, 0x20, 0x00,
                                   0x10, 0x00, 0x0b, 0x41, 0xe8, 0x07, 0x6a, 0x0f, 0x0b, 0x0b};
static const uint8_t spin_body[] = {0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b};
static const uint8_t spin_try_body[] = {0x02, 0x40, 0x1f, 0x40, 0x01, 0x02, 0x00, 0x10, 0x03,
                                        0x0b, 0x41, 0x00, 0x0f, 0x0b, 0x41, 0x01, 0x0b};
static const uint8_t loop_try_body[] = {0x02, 0x40, 0x1f, 0x40, 0x01, 0x02, 0x00, 0x03, 0x40,
                                        0x0c, 0x00, 0x0b, 0x0b, 0x0b, 0x41, 0x01, 0x0b};

static uint8_t *build(bool is_padded, size_t *len)
{
    struct wb_bytes mod = {0}, s = {0};
    wb_bytes_put(&mod, "\0asm\1\0\0\0", 8);
    wb_bytes_put(&s,
                 (const uint8_t[]){0x04, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x00, 0x60,
                                   0x00, 0x00, 0x60, 0x00, 0x01, 0x7f},
                 17);
    section(&mod, 1, &s);
    wb_bytes_put(&s, (const uint8_t[]){0x06, 0x00, 0x00, 0x00, 0x02, 0x03, 0x03}, 7);
    section(&mod, 3, &s);
    wb_bytes_put(&s, (const uint8_t[]){0x02, 0x00, 0x01, 0x00, 0x01}, 5);
    section(&mod, 13, &s); /* tags: after memory, before globals */
    wb_bytes_byte(&s, 0x03);
    wb_bytes_put(&s, "\3top\0\2", 6);
    wb_bytes_put(&s, "\13spin_in_try\0\4", 14);
    wb_bytes_put(&s, "\13loop_in_try\0\5", 14);
    section(&mod, 7, &s);
    wb_bytes_byte(&s, 0x06);
    body(&s, f_body, sizeof(f_body), 0);
    body(&s, g_body, sizeof(g_body), is_padded ? PAD_PAIRS : 0);
    body(&s, top_body, sizeof(top_body), 0);
    body(&s, spin_body, sizeof(spin_body), 0);
    body(&s, spin_try_body, sizeof(spin_try_body), 0);
    body(&s, loop_try_body, sizeof(loop_try_body), 0);
    section(&mod, 10, &s);
    ck_assert(!mod.is_oom);
    *len = mod.len;
    return mod.data;
}

static void open_mod(struct wenv *e, uint8_t tier, bool is_padded)
{
    size_t len;
    uint8_t *bytes = build(is_padded, &len);
    struct wasm_store_limits l = {.tier = tier, .max_call_depth = 100000};
    wenv_open(e, bytes, len, &l);
    free(bytes);
    wenv_instantiate(e, NULL, NULL);
}

static uint32_t top(struct wenv *e, int32_t n, struct wasm_trap *trap)
{
    wasm_value arg = {.i32 = n}, res = {0};
    sbx_err rc = wenv_call(e, "top", &arg, &res, trap);
    return rc == SBX_OK ? res.i32 : UINT32_MAX;
}

static bool is_native(struct wenv *e, uint32_t idx)
{
    return __atomic_load_n(&e->inst->funcs[idx]->jit_entry, __ATOMIC_ACQUIRE) != NULL;
}

/* Compiled tier, nothing padded: every function is native, the catching ones included, and
 * the throw 1,000 frames down reaches top's handler with no call run interpreted. */
START_TEST(catching_functions_run_native)
{
    struct wenv e;
    open_mod(&e, WASM_TIER_COMPILED, false);
    for (uint32_t i = 0; i < 6; i++)
        ck_assert(is_native(&e, i));
    struct wasm_trap trap;
    ck_assert_uint_eq(top(&e, 1000, &trap), 42);
    ck_assert_uint_eq(top(&e, 0, &trap), 42);
    ck_assert_uint_eq(sbx__wasm_store_interp_fallbacks(e.store), 0);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), 2);
    wenv_close(&e);
}
END_TEST

/* AUTO after its tier-up: the whole module, or with a padded $g (whole-module tier-up refuses
 * a function over the bound) hot-only batches until $f and top are native ($g never is). The
 * interpreter calls native code only once tiered up (under the compiled tier an interpreted
 * function's callees run interpreted), so alternating frames need this. */
static void open_tiered(struct wenv *e, bool is_padded)
{
    size_t len;
    uint8_t *bytes = build(is_padded, &len);
    struct wasm_store_limits l = {.tier = WASM_TIER_AUTO,
                                  .tierup_ms = 1,
                                  .hot_only = is_padded ? WASM_HOT_ON : WASM_HOT_OFF,
                                  .max_call_depth = 100000};
    wenv_open(e, bytes, len, &l);
    free(bytes);
    wenv_instantiate(e, NULL, NULL);
    struct wasm_trap trap;
    time_t end = time(NULL) + 60;
    bool is_done = false;
    while (!is_done && time(NULL) < end) {
        ck_assert_uint_eq(top(e, 20, &trap), 42);
        is_done = is_padded ? is_native(e, 0) && is_native(e, 2)
                            : sbx__wasm_store_tierup_state(e->store) == WASM_TIERUP_NATIVE;
    }
    ck_assert(is_done);
}

/* An alternation takes about 4 KiB of native stack (8 MiB holds about 1,950), about 20 KiB
 * under ASan and UBSan (300 fit, 400 do not); the old bound was 100 (MAX_NEST 200). */
#ifdef __SANITIZE_ADDRESS__
#define ALTERNATIONS 250
#else
#define ALTERNATIONS 1000
#endif

/* $g padded over the bound: native $f and interpreted $g alternate; the exception crosses
 * ALTERNATIONS alternations each way (native to interpreted and back), each $f's dispatch
 * passing it on; the control: $g really ran interpreted ALTERNATIONS + 1 times, $f natively. */
START_TEST(throw_crosses_alternating_frames)
{
    struct wenv e;
    open_tiered(&e, true);
    ck_assert(!is_native(&e, 1));
    uint64_t fallbacks = sbx__wasm_store_interp_fallbacks(e.store);
    uint64_t entries = sbx__wasm_store_native_entries(e.store);
    struct wasm_trap trap;
    uint32_t r = top(&e, ALTERNATIONS, &trap);
    ck_assert_msg(r == 42, "%u: trap %d %s", r, trap.kind, trap.message);
    ck_assert_uint_eq(sbx__wasm_store_interp_fallbacks(e.store), fallbacks + ALTERNATIONS + 1);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), entries + 1 + ALTERNATIONS);
    ck_assert_uint_eq(top(&e, 3, &trap), 42); /* nothing left in flight */
    wenv_close(&e);
}
END_TEST

/* Recursion through alternating frames is bounded by the native stack, not by a count (it
 * was 200 nested entries): a chain far deeper than any stack ends in "call stack exhausted",
 * and the store still works. */
START_TEST(alternating_recursion_is_bounded)
{
    struct wenv e;
    open_tiered(&e, true);
    struct wasm_trap trap;
    ck_assert_uint_eq(top(&e, 90000, &trap), UINT32_MAX);
    ck_assert_int_eq(trap.kind, WASM_TRAP_STACK_EXHAUSTED);
    ck_assert_uint_eq(top(&e, 10, &trap), 42);
    wenv_close(&e);
}
END_TEST

struct interrupter {
    struct wasm_store *store;
    unsigned ms;
};

static void *interrupt_later(void *p)
{
    struct interrupter *it = p;
    struct timespec ts = {.tv_sec = it->ms / 1000, .tv_nsec = (long)(it->ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
    sbx__wasm_store_interrupt(it->store);
    return NULL;
}

/* An interrupt (the deadline's and abort's mechanism) inside a try_table's body, in a loop of
 * the body itself or of a callee, ends the call as "interrupted": catch_all does not take a
 * trap. Both tiers; the control: once cleared, the store runs the catching function again. */
START_TEST(interrupt_inside_try_table)
{
    static const uint8_t tiers[] = {WASM_TIER_INTERP, WASM_TIER_COMPILED};
    static const char *const names[] = {"spin_in_try", "loop_in_try"};
    struct wenv e;
    open_mod(&e, tiers[_i / 2], false);
    struct interrupter it = {e.store, 100};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, interrupt_later, &it), 0);
    struct wasm_trap trap;
    ck_assert_int_eq(wenv_call(&e, names[_i % 2], NULL, NULL, &trap), SBX_E_WASM_TRAP);
    pthread_join(th, NULL);
    ck_assert_int_eq(trap.kind, WASM_TRAP_INTERRUPTED);
    sbx__wasm_store_clear_interrupt(e.store);
    struct wasm_trap t2;
    ck_assert_uint_eq(top(&e, 5, &t2), 42);
    wenv_close(&e);
}
END_TEST

/* AUTO: after the tier-up the catching function "top" is entered natively and its throw and
 * catch (1,000 frames down) run with no call interpreted. */
START_TEST(auto_tier_compiles_catching_functions)
{
    struct wenv e;
    open_tiered(&e, false);
    uint64_t entries = sbx__wasm_store_native_entries(e.store);
    uint64_t fallbacks = sbx__wasm_store_interp_fallbacks(e.store);
    struct wasm_trap trap;
    ck_assert_uint_eq(top(&e, 1000, &trap), 42);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), entries + 1);
    ck_assert_uint_eq(sbx__wasm_store_interp_fallbacks(e.store), fallbacks);
    wenv_close(&e);
}
END_TEST

/* A loop inside a try_table moved to native code at a back-edge (OSR): the entry runs the
 * frame's handlers itself, so a throw after the try_table ends, also native, is not caught
 * by the interpreted frame's handler it left (it was: the interpreter unwound from the loop's
 * header). (func (export "osr_throw") (param $n i32) (result i32)
 *   (block $c (try_table (catch_all $c)
 *       (loop $l (drop (call $wait)) (br_if $l (local.tee $n (i32.sub (local.get $n) ...)))))
 *     (throw $t (i32.const 7)))
 *   (i32.const 1)) with $wait blocking until the tier-up. */
static const uint8_t osr_mod[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0e, 0x03, 0x60, 0x00, 0x01, 0x7f, 0x60,
    0x01, 0x7f, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x00, 0x02, 0x0a, 0x01, 0x01, 0x74, 0x04, 0x77, 0x61,
    0x69, 0x74, 0x00, 0x00, 0x03, 0x02, 0x01, 0x01, 0x0d, 0x03, 0x01, 0x00, 0x02, 0x07, 0x0d, 0x01,
    0x09, 0x6f, 0x73, 0x72, 0x5f, 0x74, 0x68, 0x72, 0x6f, 0x77, 0x00, 0x01, 0x0a, 0x22, 0x01, 0x20,
    0x00, 0x02, 0x40, 0x1f, 0x40, 0x01, 0x02, 0x00, 0x03, 0x40, 0x10, 0x00, 0x1a, 0x20, 0x00, 0x41,
    0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b, 0x0b, 0x41, 0x07, 0x08, 0x00, 0x0b, 0x41, 0x01, 0x0b};

START_TEST(osr_entry_runs_its_frames_handlers)
{
    struct wasm_store_limits l = {.tier = WASM_TIER_AUTO, .tierup_ms = 1, .hot_only = WASM_HOT_OFF};
    struct wenv e;
    wenv_open(&e, osr_mod, sizeof(osr_mod), &l);
    e.wait_for = WASM_TIERUP_NATIVE;
    wenv_instantiate(&e, wenv_resolve_wait, &e);
    wasm_value arg = {.i32 = 1000}, res = {0};
    struct wasm_trap trap;
    ck_assert_int_eq(wenv_call(&e, "osr_throw", &arg, &res, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_EXCEPTION);
    ck_assert_uint_eq(sbx__wasm_store_osr_entries(e.store), 1); /* the control: it moved */
    wenv_close(&e);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("wasm_exceptions_jit");
    TCase *tc = tcase_create("compiled_try_table");
    tcase_set_timeout(tc, 120); /* LLVM compiles under SAN, at load */
    tcase_add_test(tc, catching_functions_run_native);
    tcase_add_test(tc, throw_crosses_alternating_frames);
    tcase_add_test(tc, alternating_recursion_is_bounded);
    tcase_add_loop_test(tc, interrupt_inside_try_table, 0, 4);
    tcase_add_test(tc, auto_tier_compiles_catching_functions);
    tcase_add_test(tc, osr_entry_runs_its_frames_handlers);
    suite_add_tcase(su, tc);
    return sbx_test_main(su);
}

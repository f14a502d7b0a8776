/* Exception handling at the engine's edges, in both tiers (the 3.0 spec scripts and
 * tests/wasm/regress3/exceptions.wast cover the instructions): an uncaught exception is a trap
 * naming its tag; a host function between a throw and a try_table stops it (it becomes a
 * trap no handler catches); exceptions count against max_bytes, those a catch ends are freed
 * at once, and a loop keeping exnrefs ends at the store's limit. The module, in text form:
 * (module
 *   (import "host" "h" (func $h))
 *   (tag $boom (export "boom") (param i32))
 *   (global $g (mut exnref) (ref.null exn))
 *   (func $thrower (export "thrower") (throw $boom (i32.const 7)))
 *   (func (export "through_host") (result i32)
 *     (block $c
 *       (try_table (catch_all $c) (call $h))
 *       (return (i32.const 0)))
 *     (i32.const 1))
 *   (func (export "direct") (result i32)
 *     (block $c
 *       (try_table (catch_all $c) (call $thrower))
 *       (return (i32.const 0)))
 *     (i32.const 1))
 *   (func (export "many") (param $n i32) (param $keep i32)
 *     (loop $l
 *       (if (i32.eqz (local.get $n)) (then (return)))
 *       (local.set $n (i32.sub (local.get $n) (i32.const 1)))
 *       (if (local.get $keep)
 *         (then
 *           (block $k (result exnref)
 *             (try_table (catch_all_ref $k) (call $thrower))
 *             (unreachable))
 *           (global.set $g))
 *         (else
 *           (block $d
 *             (try_table (catch_all $d) (call $thrower)))))
 *       (br $l)))
 * )
 */
#include <check.h>
#include <string.h>

#include "wasm/code.h"
#include "wasm_env.h"
#include "sbx_test.h"

static const uint8_t exn_wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x11, 0x04, 0x60, 0x00, 0x00, 0x60, 0x01,
    0x7f, 0x00, 0x60, 0x00, 0x01, 0x7f, 0x60, 0x02, 0x7f, 0x7f, 0x00, 0x02, 0x0a, 0x01, 0x04, 0x68,
    0x6f, 0x73, 0x74, 0x01, 0x68, 0x00, 0x00, 0x03, 0x05, 0x04, 0x00, 0x02, 0x02, 0x03, 0x0d, 0x03,
    0x01, 0x00, 0x01, 0x06, 0x06, 0x01, 0x69, 0x01, 0xd0, 0x69, 0x0b, 0x07, 0x31, 0x05, 0x04, 0x62,
    0x6f, 0x6f, 0x6d, 0x04, 0x00, 0x07, 0x74, 0x68, 0x72, 0x6f, 0x77, 0x65, 0x72, 0x00, 0x01, 0x0c,
    0x74, 0x68, 0x72, 0x6f, 0x75, 0x67, 0x68, 0x5f, 0x68, 0x6f, 0x73, 0x74, 0x00, 0x02, 0x06, 0x64,
    0x69, 0x72, 0x65, 0x63, 0x74, 0x00, 0x03, 0x04, 0x6d, 0x61, 0x6e, 0x79, 0x00, 0x04, 0x0a, 0x63,
    0x04, 0x06, 0x00, 0x41, 0x07, 0x08, 0x00, 0x0b, 0x12, 0x00, 0x02, 0x40, 0x1f, 0x40, 0x01, 0x02,
    0x00, 0x10, 0x00, 0x0b, 0x41, 0x00, 0x0f, 0x0b, 0x41, 0x01, 0x0b, 0x12, 0x00, 0x02, 0x40, 0x1f,
    0x40, 0x01, 0x02, 0x00, 0x10, 0x01, 0x0b, 0x41, 0x00, 0x0f, 0x0b, 0x41, 0x01, 0x0b, 0x34, 0x00,
    0x03, 0x40, 0x20, 0x00, 0x45, 0x04, 0x40, 0x0f, 0x0b, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x21, 0x00,
    0x20, 0x01, 0x04, 0x40, 0x02, 0x69, 0x1f, 0x40, 0x01, 0x03, 0x00, 0x10, 0x01, 0x0b, 0x00, 0x0b,
    0x24, 0x00, 0x05, 0x02, 0x40, 0x1f, 0x40, 0x01, 0x02, 0x00, 0x10, 0x01, 0x0b, 0x0b, 0x0b, 0x0c,
    0x00, 0x0b, 0x0b, 0x00, 0x49, 0x04, 0x6e, 0x61, 0x6d, 0x65, 0x01, 0x0d, 0x02, 0x00, 0x01, 0x68,
    0x01, 0x07, 0x74, 0x68, 0x72, 0x6f, 0x77, 0x65, 0x72, 0x02, 0x0c, 0x01, 0x04, 0x02, 0x00, 0x01,
    0x6e, 0x01, 0x04, 0x6b, 0x65, 0x65, 0x70, 0x03, 0x16, 0x03, 0x02, 0x01, 0x00, 0x01, 0x63, 0x03,
    0x01, 0x00, 0x01, 0x63, 0x04, 0x03, 0x00, 0x01, 0x6c, 0x03, 0x01, 0x6b, 0x05, 0x01, 0x64, 0x07,
    0x04, 0x01, 0x00, 0x01, 0x67, 0x0b, 0x07, 0x01, 0x00, 0x04, 0x62, 0x6f, 0x6f, 0x6d,
};

/* The host import "h": calls the export "thrower" when calls_back, and passes on the trap it
 * gets, as a host function that calls into the guest would; else returns. */
struct host {
    struct wenv e;
    bool calls_back;
};

static int host_h(struct wasm_call *call, void *user, const wasm_value *args, wasm_value *results)
{
    (void)args, (void)results;
    struct host *h = user;
    if (!h->calls_back)
        return 0;
    struct wasm_trap trap;
    wasm_value none[1] = {{0}};
    sbx_err rc =
        sbx__wasm_func_call(h->e.store, wenv_export_func(&h->e, "thrower"), none, none, &trap);
    ck_assert_int_eq(rc, SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_EXCEPTION);
    sbx__wasm_call_trap(call, trap.kind, "%s", trap.message);
    return -1;
}

static bool resolve(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    struct host *h = user;
    static const wasm_vtype none[1] = {0};
    static struct wasm_functype t = {0, 0, (wasm_vtype *)none};
    if (imp->kind != WASM_EXTERN_FUNC || strcmp(imp->name, "h") != 0)
        return false;
    out->kind = WASM_EXTERN_FUNC;
    out->u.func = sbx__wasm_func_new_host(h->e.store, &t, host_h, h);
    return out->u.func != NULL;
}

static void open_tier(struct host *h, uint8_t tier, uint64_t extra_bytes)
{
    struct wasm_store_limits l = {.tier = tier, .max_stack_bytes = 1u << 20};
    l.max_bytes = extra_bytes ? sbx__wasm_exec_bytes(&l) + extra_bytes : 0;
    memset(h, 0, sizeof(*h));
    wenv_open(&h->e, exn_wasm, sizeof(exn_wasm), &l);
    wenv_instantiate(&h->e, resolve, h);
}

static const uint8_t tiers[] = {WASM_TIER_INTERP, WASM_TIER_COMPILED};

START_TEST(uncaught_names_its_tag)
{
    struct host h;
    open_tier(&h, tiers[_i], 0);
    struct wasm_trap trap;
    ck_assert_int_eq(wenv_call(&h.e, "thrower", NULL, NULL, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_EXCEPTION);
    ck_assert_str_eq(trap.message, "uncaught exception: tag \"boom\"");
    wenv_close(&h.e);
}
END_TEST

/* The control: the same throw with no host frame between is caught. */
START_TEST(host_frame_stops_an_exception)
{
    struct host h;
    open_tier(&h, tiers[_i], 0);
    ck_assert_uint_eq(wenv_call_i32(&h.e, "direct", NULL), 1);
    ck_assert_uint_eq(wenv_call_i32(&h.e, "through_host", NULL), 0); /* h returns */
    h.calls_back = true;
    struct wasm_trap trap;
    ck_assert_int_eq(wenv_call(&h.e, "through_host", NULL, NULL, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_HOST);
    ck_assert_ptr_nonnull(strstr(trap.message, "crossed a host function"));
    ck_assert_ptr_nonnull(strstr(trap.message, "boom"));
    ck_assert_uint_eq(wenv_call_i32(&h.e, "direct", NULL), 1); /* nothing left in flight */
    wenv_close(&h.e);
}
END_TEST

/* 100,000 exceptions each ended by catch_all fit in 64 KiB; kept by catch_all_ref (no
 * collector yet: held until the store ends) they reach the limit, which ends the call. */
START_TEST(exceptions_count_against_max_bytes)
{
    struct host h;
    open_tier(&h, tiers[_i], 64u << 10);
    uint64_t before = sbx__wasm_store_bytes_used(h.e.store);
    wasm_value args[2] = {{.i32 = 100000}, {.i32 = 0}};
    struct wasm_trap trap;
    ck_assert_int_eq(wenv_call(&h.e, "many", args, NULL, &trap), SBX_OK);
    ck_assert_uint_eq(sbx__wasm_store_bytes_used(h.e.store), before);
    ck_assert(!sbx__wasm_store_was_refused(h.e.store));
    args[1].i32 = 1;
    ck_assert_int_eq(wenv_call(&h.e, "many", args, NULL, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_HOST);
    ck_assert_ptr_nonnull(strstr(trap.message, "memoryBytes"));
    ck_assert(sbx__wasm_store_was_refused(h.e.store));
    ck_assert_uint_le(sbx__wasm_store_bytes_used(h.e.store), h.e.store->limits.max_bytes);
    ck_assert_uint_gt(sbx__wasm_store_bytes_used(h.e.store), before + (60u << 10));
    wenv_close(&h.e);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("wasm_exceptions");
    TCase *tc = tcase_create("edges");
    tcase_set_timeout(tc, 120); /* the compiled tier's LLVM compile under SAN, at load */
    tcase_add_loop_test(tc, uncaught_names_its_tag, 0, 2);
    tcase_add_loop_test(tc, host_frame_stops_an_exception, 0, 2);
    tcase_add_loop_test(tc, exceptions_count_against_max_bytes, 0, 2);
    suite_add_tcase(su, tc);
    return sbx_test_main(su);
}

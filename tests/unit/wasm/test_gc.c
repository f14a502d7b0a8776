/* The GC heap (src/wasm/gc.c) through the public API (the 3.0 gc/ spec scripts cover the
 * instructions): GC objects count against memoryBytes, so a guest that keeps everything it
 * allocates ends in SANDBOX_MEMORY_LIMIT (the bomb), while one that drops what it allocates runs
 * on, its garbage collected, and what it keeps survives the collections intact (the churn, the
 * control: the same cap, 300 MiB allocated in all); an allocation loop ends at the deadline;
 * each in every tier. The modules
 * (bytes from a generator: wabt here does not read GC text), types in each:
 *   (type $bytes (array (mut i8)))
 *   (type $node (struct (field (mut (ref null $node))) (field (ref null $bytes))))
 * bomb:    (func (export "_start") (local $l (ref null $node))
 *            (loop $k (local.set $l (struct.new $node (local.get $l)
 *                                      (array.new_default $bytes (i32.const 65536))))
 *                     (br $k)))
 * churn:   (func (export "_start") (local $i i32) (local $l (ref null $node))
 *            (loop $k
 *              (local.set $l (struct.new $node (local.get $l)
 *                               (array.new $bytes (local.get $i) (i32.const 1024))))
 *              (drop (array.new_default $bytes (i32.const 1048576)))
 *              (br_if $k (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1)))
 *                                  (i32.const 300))))
 *            (loop $w
 *              (local.set $i (i32.sub (local.get $i) (i32.const 1)))
 *              (if (i32.ne (array.get_u $bytes (struct.get $node 1 (local.get $l))
 *                                               (i32.const 1023))
 *                          (i32.and (local.get $i) (i32.const 255)))
 *                (then unreachable))
 *              (local.set $l (struct.get $node 0 (local.get $l)))
 *              (br_if $w (local.get $i)))
 *            (if (i32.eqz (ref.is_null (local.get $l))) (then unreachable)))
 * forever: (func (export "_start")
 *            (loop $k (drop (array.new_default $bytes (i32.const 1048576))) (br $k)))
 * wide:    (type $refs (array (mut (ref null $node))))
 *          (func (export "_start") (local $a (ref null $refs)) (local $i i32) (local $j i32)
 *            (local.set $a (array.new_default $refs (i32.const 200000)))
 *            (loop $fill ;; node i holds a 1-byte array of i
 *              (array.set $refs (local.get $a) (local.get $i)
 *                (struct.new $node (ref.null $node)
 *                  (array.new $bytes (local.get $i) (i32.const 1))))
 *              (br_if $fill (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1)))
 *                                     (i32.const 200000))))
 *            (local.set $i (i32.const 0))
 *            (loop $g ;; collections, and small arrays that reuse whatever they freed
 *              (drop (array.new_default $bytes (i32.const 1048576)))
 *              (local.set $j (i32.const 0))
 *              (loop $s (drop (array.new $bytes (i32.const 0xEE) (i32.const 1)))
 *                (br_if $s (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1)))
 *                                    (i32.const 8192))))
 *              (br_if $g (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1)))
 *                                  (i32.const 64))))
 *            (local.set $i (i32.const 0))
 *            (loop $check
 *              (if (i32.ne (array.get_u $bytes
 *                            (struct.get $node 1 (array.get $refs (local.get $a) (local.get $i)))
 *                            (i32.const 0))
 *                          (i32.and (local.get $i) (i32.const 255)))
 *                (then unreachable))
 *              (br_if $check (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1)))
 *                                      (i32.const 200000)))))
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include <sbx.h>

#include "sbx_test.h"

static const uint8_t bomb_wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x13, 0x04, 0x5e, 0x78, 0x01, 0x5f,
    0x02, 0x63, 0x01, 0x01, 0x63, 0x00, 0x00, 0x60, 0x00, 0x00, 0x5e, 0x63, 0x01, 0x01, 0x03,
    0x02, 0x01, 0x02, 0x07, 0x0a, 0x01, 0x06, 0x5f, 0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x00,
    0x0a, 0x1a, 0x01, 0x18, 0x01, 0x01, 0x63, 0x01, 0x03, 0x40, 0x20, 0x00, 0x41, 0x80, 0x80,
    0x04, 0xfb, 0x07, 0x00, 0xfb, 0x00, 0x01, 0x21, 0x00, 0x0c, 0x00, 0x0b, 0x0b,
};
static const uint8_t churn_wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x13, 0x04, 0x5e, 0x78, 0x01, 0x5f,
    0x02, 0x63, 0x01, 0x01, 0x63, 0x00, 0x00, 0x60, 0x00, 0x00, 0x5e, 0x63, 0x01, 0x01, 0x03,
    0x02, 0x01, 0x02, 0x07, 0x0a, 0x01, 0x06, 0x5f, 0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x00,
    0x0a, 0x66, 0x01, 0x64, 0x02, 0x01, 0x7f, 0x01, 0x63, 0x01, 0x03, 0x40, 0x20, 0x01, 0x20,
    0x00, 0x41, 0x80, 0x08, 0xfb, 0x06, 0x00, 0xfb, 0x00, 0x01, 0x21, 0x01, 0x41, 0x80, 0x80,
    0xc0, 0x00, 0xfb, 0x07, 0x00, 0x1a, 0x20, 0x00, 0x41, 0x01, 0x6a, 0x22, 0x00, 0x41, 0xac,
    0x02, 0x49, 0x0d, 0x00, 0x0b, 0x03, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x21, 0x00, 0x20,
    0x01, 0xfb, 0x02, 0x01, 0x01, 0x41, 0xff, 0x07, 0xfb, 0x0d, 0x00, 0x20, 0x00, 0x41, 0xff,
    0x01, 0x71, 0x47, 0x04, 0x40, 0x00, 0x0b, 0x20, 0x01, 0xfb, 0x02, 0x01, 0x00, 0x21, 0x01,
    0x20, 0x00, 0x0d, 0x00, 0x0b, 0x20, 0x01, 0xd1, 0x45, 0x04, 0x40, 0x00, 0x0b, 0x0b,
};
static const uint8_t forever_wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x13, 0x04, 0x5e, 0x78,
    0x01, 0x5f, 0x02, 0x63, 0x01, 0x01, 0x63, 0x00, 0x00, 0x60, 0x00, 0x00, 0x5e,
    0x63, 0x01, 0x01, 0x03, 0x02, 0x01, 0x02, 0x07, 0x0a, 0x01, 0x06, 0x5f, 0x73,
    0x74, 0x61, 0x72, 0x74, 0x00, 0x00, 0x0a, 0x12, 0x01, 0x10, 0x00, 0x03, 0x40,
    0x41, 0x80, 0x80, 0xc0, 0x00, 0xfb, 0x07, 0x00, 0x1a, 0x0c, 0x00, 0x0b, 0x0b,
};
static const uint8_t wide_wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x13, 0x04, 0x5e, 0x78, 0x01, 0x5f,
    0x02, 0x63, 0x01, 0x01, 0x63, 0x00, 0x00, 0x60, 0x00, 0x00, 0x5e, 0x63, 0x01, 0x01, 0x03,
    0x02, 0x01, 0x02, 0x07, 0x0a, 0x01, 0x06, 0x5f, 0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x00,
    0x0a, 0x84, 0x01, 0x01, 0x81, 0x01, 0x02, 0x01, 0x63, 0x03, 0x01, 0x7f, 0x41, 0xc0, 0x9a,
    0x0c, 0xfb, 0x07, 0x03, 0x21, 0x00, 0x03, 0x40, 0x20, 0x00, 0x20, 0x01, 0xd0, 0x01, 0x20,
    0x01, 0x41, 0x01, 0xfb, 0x06, 0x00, 0xfb, 0x00, 0x01, 0xfb, 0x0e, 0x03, 0x20, 0x01, 0x41,
    0x01, 0x6a, 0x22, 0x01, 0x41, 0xc0, 0x9a, 0x0c, 0x49, 0x0d, 0x00, 0x0b, 0x41, 0x00, 0x21,
    0x01, 0x03, 0x40, 0x41, 0x80, 0x80, 0xc0, 0x00, 0xfb, 0x07, 0x00, 0x1a, 0x20, 0x01, 0x41,
    0x01, 0x6a, 0x22, 0x01, 0x41, 0xc0, 0x00, 0x49, 0x0d, 0x00, 0x0b, 0x41, 0x00, 0x21, 0x01,
    0x03, 0x40, 0x20, 0x00, 0x20, 0x01, 0xfb, 0x0b, 0x03, 0xfb, 0x02, 0x01, 0x01, 0x41, 0x00,
    0xfb, 0x0d, 0x00, 0x20, 0x01, 0x41, 0xff, 0x01, 0x71, 0x47, 0x04, 0x40, 0x00, 0x0b, 0x20,
    0x01, 0x41, 0x01, 0x6a, 0x22, 0x01, 0x41, 0xc0, 0x9a, 0x0c, 0x49, 0x0d, 0x00, 0x0b, 0x0b,
};

#define CAP "\"memoryBytes\": 33554432" /* 32 MiB: 8.3 of them the stacks */

static void run(const uint8_t *bytes, size_t len, const char *tier, uint32_t timeout_ms,
                sbx_result *r)
{
    char json[160];
    snprintf(json, sizeof(json),
             "{" CAP ", \"timeoutMs\": %u, \"wasm\": {\"tier\": \"%s\", \"cache\": false}}",
             timeout_ms, tier);
    sbx_run_input in = {.module = bytes, .module_len = len};
    ck_assert_int_eq(sbx_test_run_once(SBX_BACKEND_WASM, json, &in, r), SBX_OK);
}

/* compiled: the collector finds the references of compiled frames on the native stack (the
 * churn fails when gc.c does not scan it); auto: interpreted, then compiled mid-run. */
static const char *const tiers[] = {"interp", "compiled", "auto"};

START_TEST(keeping_everything_ends_at_memory_bytes)
{
    sbx_result r;
    run(bomb_wasm, sizeof(bomb_wasm), tiers[_i], 20000, &r);
    ck_assert_msg(r.error == SBX_E_MEMORY_LIMIT, "%s: %s", sbx_err_name(r.error),
                  r.error_message ? r.error_message : "");
    ck_assert_int_eq(r.limit, SBX_LIMIT_MEMORY);
    ck_assert_ptr_nonnull(strstr(r.error_message, "GC heap"));
    sbx_result_free(&r);
}
END_TEST

START_TEST(garbage_is_collected_and_live_objects_survive)
{
    sbx_result r;
    run(churn_wasm, sizeof(churn_wasm), tiers[_i], 20000, &r);
    ck_assert_msg(r.error == SBX_OK, "%s: %s", sbx_err_name(r.error),
                  r.error_message ? r.error_message : "");
    ck_assert_int_eq(r.limit, SBX_LIMIT_NONE);
    ck_assert_int_eq(r.exit_code, 0);
    sbx_result_free(&r);
}
END_TEST

/* 400,000 live objects reached from one array: more than the mark stack's bound (gc.c
 * MARK_STACK_MAX), so marking overflows and finishes by rescanning the heap. */
START_TEST(a_wide_live_graph_survives_mark_stack_overflow)
{
    sbx_result r;
    char json[160];
    snprintf(json, sizeof(json),
             "{\"memoryBytes\": 67108864, \"wasm\": {\"tier\": \"%s\", \"cache\": false}}",
             tiers[_i]);
    sbx_run_input in = {.module = wide_wasm, .module_len = sizeof(wide_wasm)};
    ck_assert_int_eq(sbx_test_run_once(SBX_BACKEND_WASM, json, &in, &r), SBX_OK);
    ck_assert_msg(r.error == SBX_OK, "%s: %s", sbx_err_name(r.error),
                  r.error_message ? r.error_message : "");
    ck_assert_int_eq(r.limit, SBX_LIMIT_NONE);
    sbx_result_free(&r);
}
END_TEST

START_TEST(allocation_loop_ends_at_the_deadline)
{
    sbx_result r;
    run(forever_wasm, sizeof(forever_wasm), tiers[_i], 1000, &r);
    ck_assert_msg(r.error == SBX_E_TIMEOUT, "%s: %s", sbx_err_name(r.error),
                  r.error_message ? r.error_message : "");
    ck_assert_int_eq(r.limit, SBX_LIMIT_TIMEOUT);
    sbx_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("wasm_gc");
    TCase *tc = tcase_create("heap");
    tcase_set_timeout(tc, 120); /* the compiled tier's LLVM load under SAN, at load */
    tcase_add_loop_test(tc, keeping_everything_ends_at_memory_bytes, 0, 3);
    tcase_add_loop_test(tc, garbage_is_collected_and_live_objects_survive, 0, 3);
    tcase_add_loop_test(tc, allocation_loop_ends_at_the_deadline, 0, 3);
    tcase_add_loop_test(tc, a_wide_live_graph_survives_mark_stack_overflow, 0, 3);
    suite_add_tcase(su, tc);
    return sbx_test_main(su);
}

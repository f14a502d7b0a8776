/* tests/unit/js/test_memory.c: one memory bomb per kind of allocation a guest can make, each in
 * its own test process (Check forks per test), so the process's peak RSS is the bomb's. Each
 * ends in SANDBOX_MEMORY_LIMIT, and the peak stays below the warmed-up baseline plus twice the
 * cap (the GC heap and the malloc'd memory are capped separately) plus OVERHEAD, with the JIT
 * off and on (policy.js.jit; each loop index is a process of its own, so its engine's mode). */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sbx.h>
#include "sbx_test.h"

#define CAP_BYTES (16u << 20)
/* GC chunks are 1 MiB and the nursery is outside the GC-heap count; both are stated in
 * docs/worker.md. */
#define OVERHEAD_BYTES (24u << 20)
/* With the JIT on, the engine's own GC-heap cap sits this far above the run's (heap_cap.cpp). */
#define JIT_HEADROOM_BYTES (16u << 20)

static bool is_jit; /* this test process's mode: the loop index */

static long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, field, n) == 0)
            kb = atol(line + n);
    if (f)
        fclose(f);
    return kb;
}

static sbx_sandbox *sandbox(void)
{
    char json[128];
    snprintf(json, sizeof(json), "{\"memoryBytes\":%u,\"timeoutMs\":20000,\"js\":{\"jit\":%s}}",
             CAP_BYTES, is_jit ? "true" : "false");
    return sbx_test_sandbox(SBX_BACKEND_WORKER, json);
}

static void run(sbx_sandbox *sb, const char *code, sbx_result *r)
{
    sbx_run_input in = {.code = code, .code_len = strlen(code)};
    ck_assert_int_eq(sbx_sandbox_run(sb, &in, r), SBX_OK);
}

static void expect_bomb(const char *code)
{
    sbx_sandbox *sb = sandbox();
    sbx_result r;
    run(sb, "return [1, 2].map(x => x * 2).length", &r); /* warm-up: context and pool */
    ck_assert(r.ok);
    sbx_result_free(&r);
    long base_kb = status_kb("VmRSS:");
    run(sb, code, &r);
    long peak_kb = status_kb("VmHWM:");
    ck_assert_msg(!r.ok && r.error == SBX_E_MEMORY_LIMIT && r.limit == SBX_LIMIT_MEMORY,
                  "%s: %s (%s)", code, sbx_err_name(r.error), r.error_message);
    sbx_result_free(&r);
    long bound_kb =
        base_kb + (2L * CAP_BYTES + OVERHEAD_BYTES + (is_jit ? JIT_HEADROOM_BYTES : 0)) / 1024;
    fprintf(stderr, "bomb (jit %s): peak %ld KiB, baseline %ld KiB, bound %ld KiB: %s\n",
            is_jit ? "on" : "off", peak_kb, base_kb, bound_kb, code);
#if !defined(__SANITIZE_ADDRESS__) /* ASan's quarantine and shadow memory are RSS of their own */
    ck_assert_msg(peak_kb <= bound_kb, "%s: peak RSS %ld KiB over %ld KiB", code, peak_kb,
                  bound_kb);
#endif
    /* The tier still works after the bomb. */
    run(sb, "return 'fine'", &r);
    ck_assert(r.ok);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}

START_TEST(objects)
{
    is_jit = _i;
    expect_bomb("var a = []; for (;;) a.push({i: a.length, j: {k: a.length}})");
}
END_TEST

START_TEST(strings)
{
    is_jit = _i;
    expect_bomb("var a = []; for (;;) { var s = 'x'.repeat(65536) + a.length; s.indexOf('y');"
                " a.push(s); }");
}
END_TEST

START_TEST(arrays)
{
    is_jit = _i;
    expect_bomb("var a = []; for (;;) a.push(new Array(100000).fill(a.length))");
}
END_TEST

START_TEST(regexps)
{
    is_jit = _i;
    expect_bomb("var a = []; for (var i = 0;; i++) { var r = new RegExp('a' + i + '(b|c)*d');"
                " r.test('a' + i + 'bcbd'); a.push(r); }");
}
END_TEST

START_TEST(array_buffers)
{
    is_jit = _i;
    expect_bomb("var a = []; for (;;) a.push(new ArrayBuffer(1 << 20))");
    expect_bomb("return new ArrayBuffer(1 << 30).byteLength");
}
END_TEST

START_TEST(typed_arrays)
{
    is_jit = _i;
    expect_bomb("var a = []; for (;;) a.push(new Float64Array(1 << 17).fill(1))");
    expect_bomb("var a = []; for (;;) a.push(new Uint8Array(64).slice(0))"); /* small ones */
    expect_bomb("return new Uint8Array(1 << 30).fill(1).length");
}
END_TEST

/* WebAssembly memories and SharedArrayBuffer cannot be bounded the same way: the worker tier has
 * neither (the wasm tier runs WebAssembly under its own cap). */
START_TEST(no_wasm_no_shared_memory)
{
    is_jit = _i;
    sbx_sandbox *sb = sandbox();
    sbx_result r;
    run(sb,
        "return [typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics,"
        " typeof ArrayBuffer]",
        &r);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_str_eq(r.value_json, "[\"undefined\",\"undefined\",\"undefined\",\"function\"]");
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("js_memory");
    TCase *tc = tcase_create("bombs");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, objects, 0, 2);
    tcase_add_loop_test(tc, strings, 0, 1); /* JIT off only: CI time */
    tcase_add_loop_test(tc, arrays, 0, 2);
    tcase_add_loop_test(tc, regexps, 0, 1); /* JIT off only: CI time */
    tcase_add_loop_test(tc, array_buffers, 0, 2);
    tcase_add_loop_test(tc, typed_arrays, 0, 2);
    tcase_add_loop_test(tc, no_wasm_no_shared_memory, 0, 2);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

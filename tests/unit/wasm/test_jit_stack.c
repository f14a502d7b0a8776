/* Compiled frames larger than the native stack's margin (issue 23, item 1): a function whose
 * frame is 80 KiB to 1 MiB recurses until the stack runs out, starting at every depth of the
 * thread's stack in 16 KiB steps, on the main thread and on a host thread whose 2 MiB stack
 * has 4 MiB of PROT_NONE below it, in the compiled tier and under auto. Each run must end in
 * "call stack exhausted" from native code, and the process must live: no write of the frame,
 * and none of the trap path, may land below the stack's end (on the old code, which checked
 * the stack pointer only after the frame was allocated, the test process dies of SIGSEGV). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/jit/jit.h"
#include "wasm_env.h"
#include "wasm_gen.h"

#define SITE_BYTES    16000u /* each call site's slots: 1000 v128 arguments */
#define STEP_BYTES    (16u << 10)
#define THREAD_STACK  (2u << 20)
#define THREAD_GUARD  (4u << 20) /* PROT_NONE below the thread's stack: a write there faults */
#define PAD_FRAME     1024u
#define RECURSE_DEPTH 100000

/* Appends s as section id and empties s for the next one. */
static void section(struct wb_bytes *m, uint8_t id, struct wb_bytes *s)
{
    ck_assert(!s->is_oom);
    wbytes_section(m, id, s);
    wb_bytes_free(s);
}

/* f(n) = n == 0 ? 0 : f(n - 1) + 1, exported as "f". Its frame: under `n == -1` (never true),
 * sites call_indirects of sink(v128 x 1000), each with its own 16,000 bytes of argument slots
 * (emit_call.c's call_slow, an alloca per site, never merged: no lifetime markers). */
static uint8_t *gen(uint32_t sites, size_t *len)
{
    struct wb_bytes m = {0}, s = {0}, body = {0};
    wb_bytes_put(&m, "\x00\x61\x73\x6d\x01\x00\x00\x00", 8);
    wb_bytes_put(&s, "\x02\x60\x01\x7f\x01\x7f\x60\xe8\x07", 9); /* (i32)->i32; 1000 params: */
    for (int i = 0; i < 1000; i++)
        wb_bytes_put(&s, "\x7b", 1);
    wb_bytes_put(&s, "\x00", 1);
    section(&m, 1, &s);
    wb_bytes_put(&s, "\x02\x01\x00", 3); /* sink: type 1; f: type 0 */
    section(&m, 3, &s);
    wb_bytes_put(&s, "\x01\x70\x00\x01", 4);
    section(&m, 4, &s);
    wb_bytes_put(&s, "\x01\x01\x66\x00\x01", 5); /* export "f" = func 1 */
    section(&m, 7, &s);
    wb_bytes_put(&s, "\x01\x00\x41\x00\x0b\x01\x00", 7); /* table[0] = sink */
    section(&m, 9, &s);
    wb_bytes_put(&body, "\x01\x01\x7b", 3);                 /* one v128 local */
    wb_bytes_put(&body, "\x20\x00\x41\x7f\x46\x04\x40", 7); /* if (n == -1) */
    for (uint32_t k = 0; k < sites; k++) {
        for (int i = 0; i < 1000; i++)
            wb_bytes_put(&body, "\x20\x01", 2);
        wb_bytes_put(&body, "\x41\x00\x11\x01\x00", 5); /* call_indirect (type 1) (i32.const 0) */
    }
    wb_bytes_put(&body, "\x0b\x20\x00\x04\x7f", 5); /* end; if (result i32) n */
    wb_bytes_put(&body, "\x20\x00\x41\x01\x6b\x10\x01\x41\x01\x6a", 10); /* f(n - 1) + 1 */
    wb_bytes_put(&body, "\x05\x41\x00\x0b\x0b", 5);                      /* else 0 end end */
    wb_bytes_put(&s, "\x02\x02\x00\x0b", 4);
    wb_bytes_uleb(&s, (uint32_t)body.len);
    wb_bytes_put(&s, body.data, body.len);
    wb_bytes_free(&body);
    section(&m, 10, &s);
    ck_assert(!m.is_oom);
    *len = m.len;
    return m.data;
}

struct job {
    struct wenv *e;
    uint32_t frame_bytes;
    uint32_t runs;
    char failure[512]; /* empty: every run trapped as it must */
};

/* One recursion from here: it must end in "call stack exhausted", from native code. */
static void run_once(struct job *j)
{
    uint64_t before = sbx__wasm_store_native_entries(j->e->store);
    wasm_value a = {.i32 = RECURSE_DEPTH}, r[1] = {0};
    struct wasm_trap trap;
    sbx_err rc = wenv_call(j->e, "f", &a, r, &trap);
    j->runs++;
    if (j->failure[0])
        return;
    if (rc != SBX_E_WASM_TRAP || trap.kind != WASM_TRAP_STACK_EXHAUSTED ||
        !strstr(trap.message, "call stack exhausted"))
        snprintf(j->failure, sizeof(j->failure), "run %u: rc %s, trap %d \"%s\"", j->runs,
                 sbx_err_name(rc), (int)trap.kind, trap.message);
    else if (sbx__wasm_store_native_entries(j->e->store) == before)
        snprintf(j->failure, sizeof(j->failure), "run %u did not run native code", j->runs);
}

/* Runs the recursion with kib KiB of this thread's stack in use below the caller. */
static __attribute__((noinline)) int run_padded(struct job *j, uint32_t kib)
{
    volatile char pad[PAD_FRAME];
    pad[0] = 1;
    if (kib == 0) {
        run_once(j);
        return pad[0];
    }
    return run_padded(j, kib - 1) + pad[0] - 1;
}

/* Starts the recursion at every depth from 0 to the frame's size, in STEP_BYTES steps, so
 * that the frame that crosses the limit lands at every offset to the stack's end. */
static void *run_all_depths(void *arg)
{
    struct job *j = arg;
    for (uint32_t pad = 0; pad <= j->frame_bytes + STEP_BYTES; pad += STEP_BYTES)
        run_padded(j, pad / PAD_FRAME);
    return NULL;
}

/* The same on a host thread with a small stack and nothing mapped below it. */
static void run_on_small_thread(struct job *j)
{
    uint8_t *map = mmap(NULL, THREAD_GUARD + THREAD_STACK, PROT_NONE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ck_assert_ptr_ne(map, MAP_FAILED);
    ck_assert_int_eq(mprotect(map + THREAD_GUARD, THREAD_STACK, PROT_READ | PROT_WRITE), 0);
    pthread_attr_t a;
    pthread_t t;
    pthread_attr_init(&a);
    ck_assert_int_eq(pthread_attr_setstack(&a, map + THREAD_GUARD, THREAD_STACK), 0);
    ck_assert_int_eq(pthread_create(&t, &a, run_all_depths, j), 0);
    pthread_join(t, NULL);
    pthread_attr_destroy(&a);
    munmap(map, THREAD_GUARD + THREAD_STACK);
}

/* Auto: calls f(0) until f has native code (a whole-module tier-up, or f's hot-only batch). */
static void wait_native(struct wenv *e)
{
    struct wasm_func *f = wenv_export_func(e, "f");
    double until = wenv_now_s() + WENV_WAIT_S;
    wasm_value a = {.i32 = 0}, r[1];
    while (!__atomic_load_n(&f->jit_entry, __ATOMIC_ACQUIRE) && wenv_now_s() < until)
        ck_assert_int_eq(wenv_call(e, "f", &a, r, NULL), SBX_OK);
    ck_assert_msg(f->jit_entry, "f got no native code (tier-up state %u)",
                  sbx__wasm_store_tierup_state(e->store));
}

static void check_frames(uint8_t tier, uint32_t sites)
{
    size_t len;
    uint8_t *bytes = gen(sites, &len);
    struct wasm_store_limits l = {.tier = tier, .tierup_ms = 1};
    struct wenv e;
    wenv_open(&e, bytes, len, &l);
    free(bytes);
    wenv_instantiate(&e, NULL, NULL);
    if (tier == WASM_TIER_AUTO)
        wait_native(&e);
    struct job main_job = {.e = &e, .frame_bytes = sites * SITE_BYTES};
    run_all_depths(&main_job);
    ck_assert_msg(!main_job.failure[0], "main thread, %u sites: %s", sites, main_job.failure);
    struct job thread_job = {.e = &e, .frame_bytes = sites * SITE_BYTES};
    run_on_small_thread(&thread_job);
    ck_assert_msg(!thread_job.failure[0], "small thread, %u sites: %s", sites, thread_job.failure);
    wenv_close(&e);
}

/* 4, 17 and 64 sites: frames of about 80 KiB (under the 256 KiB margin), 290 KiB (the issue's
 * 18,000 live v128 values) and 1 MiB. */
static const uint32_t site_counts[] = {4, 17, 64};

START_TEST(compiled_frames_trap_at_every_depth)
{
    check_frames(WASM_TIER_COMPILED, site_counts[_i]);
}
END_TEST

START_TEST(auto_frames_trap_at_every_depth)
{
    check_frames(WASM_TIER_AUTO, site_counts[_i]);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_jit_stack");
    TCase *tc = tcase_create("frames");
    tcase_set_timeout(tc, WENV_WAIT_S + 120);
    int n = (int)(sizeof(site_counts) / sizeof(site_counts[0]));
    tcase_add_loop_test(tc, compiled_frames_trap_at_every_depth, 0, n);
    tcase_add_loop_test(tc, auto_frames_trap_at_every_depth, 0, n);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

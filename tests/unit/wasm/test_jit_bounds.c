/* The compiled tier's compile cost (issue 23, item 3). A function over the compile-cost bound
 * (src/wasm/jit/level.h: its body, or its interpreter slots, an upper bound of the values live at
 * once) stays interpreted in every tier, and the rest of its module runs native code around it
 * (each result compared with an interpreter-only store). A run's deadline and abort stop the
 * compile of `wasm.tier: "compiled"` (at its next function or LLVM phase: jit/parts.c) and the
 * run ends SANDBOX_TIMEOUT or SANDBOX_ABORTED, never ok: on the old code the compile ran to its
 * end whatever the deadline, and a short guest then reported ok. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <unistd.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/jit/jit.h"
#include "wasm/jit/level.h"
#include "wasm_env.h"
#include "wasm_gen.h"

#define OVER_LIVE  (SBX__JIT_MAX_FRAME_SLOTS + 200) /* i64 values live across a call */
#define SMALL_LIVE 100
#define SLOW_LIVE  2000 /* within the bound, about 0.3-0.6 s of LLVM each at O2 */
#define SLOW_FUNCS 12
#define TIMEOUT_MS 1000 /* the compile's first check comes well before it */
#define PAD_PAIRS  ((SBX__JIT_MAX_BODY_BYTES + 4096) / 3) /* i32.const 1; drop */
#define DATA_BYTES 4096u

/* Appends s as section id and empties s for the next one. */
static void section(struct wb_bytes *m, uint8_t id, struct wb_bytes *s)
{
    ck_assert(!s->is_oom);
    wbytes_section(m, id, s);
    wb_bytes_free(s);
}

static void add_body(struct wb_bytes *code, struct wb_bytes *body)
{
    wb_bytes_uleb(code, (uint32_t)body->len);
    wb_bytes_put(code, body->data, body->len);
    ck_assert(!body->is_oom);
    wb_bytes_free(body);
}

/* f(n): live i64 loads (from the data below), then f(n - 1) when n, else 0, then all of them
 * xor'ed with it: every load is live across the call. */
static void live_body(struct wb_bytes *code, uint32_t self, uint32_t live)
{
    struct wb_bytes b = {0};
    wb_bytes_byte(&b, 0); /* no locals */
    for (uint32_t i = 0; i < live; i++) {
        wb_bytes_put(&b, "\x41\x00\x29\x03", 4); /* i32.const 0; i64.load align=3 offset: */
        wb_bytes_uleb(&b, (i * 8 + self) % (DATA_BYTES - 8));
    }
    wb_bytes_put(&b, "\x20\x00\x04\x7e\x20\x00\x41\x01\x6b\x10", 10); /* if (result i64) f(n - 1) */
    wb_bytes_uleb(&b, self);
    wb_bytes_put(&b, "\x05\x42\x00\x0b", 4); /* else 0 end */
    for (uint32_t i = 0; i < live; i++)
        wb_bytes_byte(&b, 0x85); /* i64.xor */
    wb_bytes_byte(&b, 0x0b);
    add_body(code, &b);
}

/* g(n) = f0(n) ^ 1: a compiled caller of f0. */
static void caller_body(struct wb_bytes *code)
{
    struct wb_bytes b = {0};
    wb_bytes_put(&b, "\x00\x20\x00\x10\x00\x42\x01\x85\x0b", 9);
    add_body(code, &b);
}

/* pad(n) = 7 after PAD_PAIRS of i32.const 1; drop: a body over the size bound. */
static void pad_body(struct wb_bytes *code)
{
    struct wb_bytes b = {0};
    wb_bytes_byte(&b, 0);
    for (uint32_t i = 0; i < PAD_PAIRS; i++)
        wb_bytes_put(&b, "\x41\x01\x1a", 3);
    wb_bytes_put(&b, "\x42\x07\x0b", 3);
    add_body(code, &b);
}

struct spec {
    const uint32_t *live; /* per live function: its live values */
    uint32_t nlive;
    bool has_caller, has_pad;
};

/* Functions (i32) -> i64: "f<i>" the live ones, then "g" (the caller of f0) and "pad" when
 * asked; "_start" calls f0(1). One page of memory with DATA_BYTES of a pattern. */
static uint8_t *gen(const struct spec *sp, size_t *len)
{
    struct wb_bytes m = {0}, s = {0}, code = {0};
    uint32_t nf = sp->nlive + sp->has_caller + sp->has_pad;
    wb_bytes_put(&m, "\x00\x61\x73\x6d\x01\x00\x00\x00", 8);
    wb_bytes_put(&s, "\x02\x60\x01\x7f\x01\x7e\x60\x00\x00", 9);
    section(&m, 1, &s);
    wb_bytes_uleb(&s, nf + 1);
    for (uint32_t i = 0; i < nf; i++)
        wb_bytes_byte(&s, 0);
    wb_bytes_byte(&s, 1);
    section(&m, 3, &s);
    wb_bytes_put(&s, "\x01\x00\x01", 3);
    section(&m, 5, &s);
    wb_bytes_uleb(&s, nf + 1);
    for (uint32_t i = 0; i < nf; i++) {
        char name[16];
        int n = i < sp->nlive                      ? snprintf(name, sizeof(name), "f%u", i)
                : sp->has_caller && i == sp->nlive ? snprintf(name, sizeof(name), "g")
                                                   : snprintf(name, sizeof(name), "pad");
        wb_bytes_uleb(&s, (uint32_t)n);
        wb_bytes_put(&s, name, (size_t)n);
        wb_bytes_byte(&s, 0);
        wb_bytes_uleb(&s, i);
    }
    wb_bytes_put(&s, "\x06_start\x00", 8);
    wb_bytes_uleb(&s, nf);
    section(&m, 7, &s);
    wb_bytes_uleb(&code, nf + 1);
    for (uint32_t i = 0; i < sp->nlive; i++)
        live_body(&code, i, sp->live[i]);
    if (sp->has_caller)
        caller_body(&code);
    if (sp->has_pad)
        pad_body(&code);
    struct wb_bytes st = {0};
    wb_bytes_put(&st, "\x00\x41\x01\x10\x00\x1a\x0b", 7); /* f0(1); drop */
    add_body(&code, &st);
    section(&m, 10, &code);
    wb_bytes_put(&s, "\x01\x00\x41\x00\x0b", 5); /* data at 0 */
    wb_bytes_uleb(&s, DATA_BYTES);
    for (uint32_t i = 0; i < DATA_BYTES; i++)
        wb_bytes_byte(&s, (uint8_t)(i * 37 + (i >> 5)));
    section(&m, 11, &s);
    ck_assert(!m.is_oom);
    *len = m.len;
    return m.data;
}

static void open_tier(struct wenv *e, const struct spec *sp, uint8_t tier, uint8_t hot_only)
{
    size_t len;
    uint8_t *bytes = gen(sp, &len);
    struct wasm_store_limits l = {.tier = tier, .tierup_ms = 1, .hot_only = hot_only};
    wenv_open(e, bytes, len, &l);
    free(bytes);
    wenv_instantiate(e, NULL, NULL);
}

static uint64_t call_i64(struct wenv *e, const char *name, int32_t n)
{
    wasm_value a = {.i32 = (uint32_t)n}, r[1] = {0};
    struct wasm_trap trap;
    ck_assert_msg(wenv_call(e, name, &a, r, &trap) == SBX_OK, "%s: %s", name, trap.message);
    return r[0].i64;
}

static bool is_native(const struct wenv *e, const char *name)
{
    return __atomic_load_n(&wenv_export_func(e, name)->jit_entry, __ATOMIC_ACQUIRE) != NULL;
}

/* Under the compiled tier, f0 (more live values than the bound) and pad (a body over it) stay
 * interpreted; f1 and g are native, and g's native call of f0 reaches the interpreter. Every
 * result equals the interpreter's. */
START_TEST(over_bound_stays_interpreted)
{
    const uint32_t live[] = {OVER_LIVE, SMALL_LIVE};
    struct spec sp = {.live = live, .nlive = 2, .has_caller = true, .has_pad = true};
    struct wenv c, i;
    open_tier(&c, &sp, WASM_TIER_COMPILED, WASM_HOT_DEFAULT);
    open_tier(&i, &sp, WASM_TIER_INTERP, WASM_HOT_DEFAULT);
    ck_assert_msg(!is_native(&c, "f0"), "f0 (%u slots) was compiled", OVER_LIVE);
    ck_assert_msg(!is_native(&c, "pad"), "pad (%u bytes) was compiled", 3 * PAD_PAIRS);
    ck_assert(is_native(&c, "f1") && is_native(&c, "g"));
    const char *names[] = {"f0", "f1", "g", "pad"};
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        ck_assert_uint_eq(call_i64(&c, names[k], 2), call_i64(&i, names[k], 2));
    ck_assert_uint_ne(call_i64(&i, "f0", 2), 0); /* three levels: an odd count */
    ck_assert_uint_gt(sbx__wasm_store_native_entries(c.store), 0);
    wenv_close(&c);
    wenv_close(&i);
}
END_TEST

/* Hot-only (auto): f0, hot first, is never queued; f1, hot after it, gets its batch alone (on
 * the old code both took one batch and were compiled). */
START_TEST(over_bound_never_queued)
{
    const uint32_t live[] = {OVER_LIVE, SMALL_LIVE};
    struct spec sp = {.live = live, .nlive = 2};
    struct wenv e;
    open_tier(&e, &sp, WASM_TIER_AUTO, WASM_HOT_ON);
    uint64_t want0 = call_i64(&e, "f0", 0), want1 = call_i64(&e, "f1", 0);
    for (int k = 0; k < 1100; k++)
        ck_assert_uint_eq(call_i64(&e, "f0", 0), want0);
    /* The count is raised before the entries are published: wait for the code itself. */
    for (double end = wenv_now_s() + WENV_WAIT_S; !is_native(&e, "f1") && wenv_now_s() < end;)
        ck_assert_uint_eq(call_i64(&e, "f1", 0), want1);
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(e.store), 1);
    ck_assert(is_native(&e, "f1") && !is_native(&e, "f0"));
    wenv_close(&e);
}
END_TEST

/* The stop of a compile: the store's cancel and interrupt flags, the guard's stop code and its
 * deadline, each alone. */
START_TEST(stop_check_reads_every_source)
{
    atomic_bool cancel = false, interrupt = false;
    _Atomic int code = 0;
    struct wasm_load_guard g = {.deadline_ns = 0, .stop = &code};
    struct sbx__jit_stop s = {.cancel = &cancel, .interrupt = &interrupt, .guard = &g};
    ck_assert_int_eq(sbx__jit_stop_check(NULL), SBX_OK);
    ck_assert_int_eq(sbx__jit_stop_check(&s), SBX_OK);
    atomic_store(&cancel, true);
    ck_assert_int_eq(sbx__jit_stop_check(&s), SBX_E_ABORTED);
    atomic_store(&cancel, false);
    atomic_store(&interrupt, true);
    ck_assert_int_eq(sbx__jit_stop_check(&s), SBX_E_ABORTED);
    atomic_store(&interrupt, false);
    atomic_store(&code, SBX_E_ABORTED);
    ck_assert_int_eq(sbx__jit_stop_check(&s), SBX_E_ABORTED);
    atomic_store(&code, 0);
    g.deadline_ns = 1; /* long past */
    ck_assert_int_eq(sbx__jit_stop_check(&s), SBX_E_TIMEOUT);
}
END_TEST

/* SLOW_FUNCS functions within the bound that take LLVM seconds at O2, and a short _start. */
static uint8_t *slow_module(size_t *len)
{
    uint32_t live[SLOW_FUNCS];
    for (int i = 0; i < SLOW_FUNCS; i++)
        live[i] = SLOW_LIVE;
    struct spec sp = {.live = live, .nlive = SLOW_FUNCS};
    return gen(&sp, len);
}

/* The library's test hook (jit.h) at each of a compile's stop checks (where 2, before the check
 * reads its flags): at check ACT_AT it aborts stop_target, or sleeps past the run's deadline, so
 * the stop lands at the same point every run. A compile that honours it makes at most one more
 * check on the other part thread once that is done (acted); on the old code it went on through
 * all of them. */
#define ACT_AT 2
static atomic_int checks, acted;
static sbx_sandbox *_Atomic stop_target; /* NULL: sleep instead */
static atomic_bool is_armed;

void sbx__jit_test_pause(int where)
{
    if (where != 2 || !atomic_load(&is_armed) || atomic_fetch_add(&checks, 1) + 1 != ACT_AT)
        return;
    sbx_sandbox *sb = atomic_load(&stop_target);
    if (sb)
        sbx_sandbox_abort(sb);
    else
        usleep(TIMEOUT_MS * 1200); /* past the deadline, whatever the start cost */
    atomic_store(&acted, atomic_load(&checks));
}

static void arm(sbx_sandbox *target)
{
    atomic_store(&checks, 0);
    atomic_store(&acted, 0);
    atomic_store(&stop_target, target);
    atomic_store(&is_armed, true);
}

static void assert_stopped(const char *test, sbx_err got, sbx_err want)
{
    atomic_store(&is_armed, false);
    int n = atomic_load(&checks), at = atomic_load(&acted);
    fprintf(stderr, "%s: %s, stop at check %d of %d\n", test, sbx_err_name(got), at, n);
    ck_assert_msg(got == want, "%s ended %s", test, sbx_err_name(got));
    /* Stopped before the act (a deadline that passed before the compile got there), or at most
     * one more check after it. */
    ck_assert_msg((at == 0 && n < ACT_AT) || (at >= ACT_AT && n - at <= 1),
                  "the compile went on for %d checks", n - at);
}

static const char compiled_policy[] =
    "{\"timeoutMs\": 1000, \"wasm\": {\"tier\": \"compiled\", \"cache\": false}}";

/* The run's deadline passes while its module compiles: SANDBOX_TIMEOUT (limit timeout). */
START_TEST(deadline_stops_compile)
{
    size_t len;
    uint8_t *bytes = slow_module(&len);
    sbx_run_input in = {.module = bytes, .module_len = len};
    sbx_result r;
    arm(NULL);
    ck_assert_int_eq(sbx_test_run_once(SBX_BACKEND_WASM, compiled_policy, &in, &r), SBX_OK);
    assert_stopped("deadline_stops_compile", r.error, SBX_E_TIMEOUT);
    ck_assert_int_eq(r.limit, SBX_LIMIT_TIMEOUT);
    sbx_result_free(&r);
    free(bytes);
}
END_TEST

/* An abort while the module compiles (the run's handle is not made yet: core's abort reaches it
 * through the load guard's stop flag): SANDBOX_ABORTED. */
START_TEST(abort_stops_compile)
{
    size_t len;
    uint8_t *bytes = slow_module(&len);
    sbx_sandbox *sb =
        sbx_test_sandbox(SBX_BACKEND_WASM, "{\"timeoutMs\": 600000, \"wasm\": {\"tier\": "
                                           "\"compiled\", \"cache\": false}}");
    sbx_run_input in = {.module = bytes, .module_len = len};
    sbx_result r;
    arm(sb);
    ck_assert_int_eq(sbx_sandbox_run(sb, &in, &r), SBX_OK);
    assert_stopped("abort_stops_compile", r.error, SBX_E_ABORTED);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    free(bytes);
}
END_TEST

/* A plugin handle whose instantiation outlives the policy's timeout is not created. */
START_TEST(plugin_create_times_out)
{
    size_t len;
    uint8_t *bytes = slow_module(&len);
    sbx_policy *p = sbx_test_policy(compiled_policy);
    sbx_wasm_sandbox *sb = NULL;
    char err[256] = "";
    arm(NULL);
    sbx_err rc = sbx_wasm_sandbox_create(bytes, len, p, NULL, &sb, err, sizeof(err));
    assert_stopped("plugin_create_times_out", rc, SBX_E_TIMEOUT);
    ck_assert_ptr_null(sb);
    ck_assert_msg(strstr(err, "time limit"), "%s", err);
    sbx_policy_destroy(p);
    free(bytes);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_jit_bounds");
    TCase *tc = tcase_create("bounds");
    tcase_set_timeout(tc, WENV_WAIT_S + 120);
    tcase_add_test(tc, over_bound_stays_interpreted);
    tcase_add_test(tc, over_bound_never_queued);
    tcase_add_test(tc, stop_check_reads_every_source);
    tcase_add_test(tc, deadline_stops_compile);
    tcase_add_test(tc, abort_stops_compile);
    tcase_add_test(tc, plugin_create_times_out);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

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
#include <time.h>
#include <unistd.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/jit/jit.h"
#include "wasm/jit/level.h"
#include "wasm/runtime.h"
#include "wasm/wasm.h"

#define WAIT_S    120  /* the longest a batch is awaited: LLVM under ASan on a loaded machine */
#define PADS      1000 /* padding functions, PAD_ADDS additions each: about 600 KB of code */
#define PAD_ADDS  150
#define HOT_CALLS 1500 /* more calls than the hot threshold */

/* A growable byte buffer: the module writer. */
struct buf {
    uint8_t *p;
    size_t len, cap;
};

static void put(struct buf *b, const void *v, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    memcpy(b->p + b->len, v, n);
    b->len += n;
}

static void byte(struct buf *b, uint8_t v)
{
    put(b, &v, 1);
}

static void uleb(struct buf *b, uint32_t v)
{
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        byte(b, (uint8_t)(c | (v ? 0x80 : 0)));
    } while (v);
}

static void sleb(struct buf *b, int32_t v)
{
    for (;;) {
        uint8_t c = v & 0x7f;
        v >>= 7;
        if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40))) {
            byte(b, c);
            return;
        }
        byte(b, c | 0x80);
    }
}

static void section(struct buf *m, uint8_t id, struct buf *content)
{
    byte(m, id);
    uleb(m, (uint32_t)content->len);
    put(m, content->p, content->len);
    free(content->p);
    *content = (struct buf){0};
}

/* The named functions, in index order; all are (i32) -> i32. */
enum { F_HOT, F_COLD, F_CALLER, F_LATE, F_TRAPPER, F_TRAP_CALLER, F_SPIN, F_NAMED };
static const char *const names[F_NAMED] = {"hot",     "cold_c",      "caller", "late",
                                           "trapper", "trap_caller", "spin"};

/* Bodies (without the size): locals, then code. hot: a loop, then calls cold_c when n == 7;
 * caller and late call hot; trap_caller calls trapper, which traps on 0; spin loops n times,
 * forever when n == 0. */
static const uint8_t body_hot[] = {1,    2,    0x7f, 0x03, 0x40, 0x20, 2, 0x41, 31,     0x6c,
                                   0x20, 1,    0x6a, 0x21, 2,    0x20, 1, 0x41, 1,      0x6a,
                                   0x22, 1,    0x20, 0,    0x49, 0x0d, 0, 0x0b, 0x20,   0,
                                   0x41, 7,    0x46, 0x04, 0x40, 0x20, 2, 0x10, F_COLD, 0x20,
                                   2,    0x6a, 0x21, 2,    0x0b, 0x20, 2, 0x0b};
static const uint8_t body_cold[] = {0, 0x20, 0, 0x41, 0xda, 0xb4, 0x01, 0x73, 0x0b};
static const uint8_t body_caller[] = {0, 0x20, 0, 0x10, F_HOT, 0x41, 1, 0x6a, 0x0b};
static const uint8_t body_late[] = {0, 0x20, 0, 0x10, F_HOT, 0x20, 0, 0x73, 0x0b};
static const uint8_t body_trapper[] = {0,    0x20, 0, 0x45, 0x04, 0x40, 0x00,
                                       0x0b, 0x20, 0, 0x41, 3,    0x6c, 0x0b};
static const uint8_t body_trap_caller[] = {0, 0x20, 0, 0x10, F_TRAPPER, 0x41, 1, 0x6a, 0x0b};
static const uint8_t body_spin[] = {1,    1,    0x7f, 0x03, 0x40, 0x20, 1, 0x41, 1, 0x6a,
                                    0x21, 1,    0x20, 0,    0x45, 0x0d, 0, 0x20, 1, 0x20,
                                    0,    0x49, 0x0d, 0,    0x0b, 0x20, 1, 0x0b};
static const struct {
    const uint8_t *p;
    size_t len;
} bodies[F_NAMED] = {
    {body_hot, sizeof(body_hot)},         {body_cold, sizeof(body_cold)},
    {body_caller, sizeof(body_caller)},   {body_late, sizeof(body_late)},
    {body_trapper, sizeof(body_trapper)}, {body_trap_caller, sizeof(body_trap_caller)},
    {body_spin, sizeof(body_spin)},
};

static void code_section(struct buf *m)
{
    struct buf s = {0}, f = {0};
    uleb(&s, F_NAMED + PADS);
    for (int i = 0; i < F_NAMED; i++) {
        uleb(&s, (uint32_t)bodies[i].len);
        put(&s, bodies[i].p, bodies[i].len);
    }
    for (int k = 0; k < PADS; k++) { /* x + c1 + c2 + ...: two-byte constants */
        f.len = 0;
        byte(&f, 0);
        byte(&f, 0x20), byte(&f, 0);
        for (int j = 0; j < PAD_ADDS; j++)
            byte(&f, 0x41), sleb(&f, 64 + (k * 7 + j) % 8000), byte(&f, 0x6a);
        byte(&f, 0x0b);
        uleb(&s, (uint32_t)f.len);
        put(&s, f.p, f.len);
    }
    free(f.p);
    section(m, 10, &s);
}

static void name_section(struct buf *m)
{
    struct buf s = {0}, sub = {0};
    uleb(&s, 4), put(&s, "name", 4);
    uleb(&sub, F_NAMED);
    for (uint32_t i = 0; i < F_NAMED; i++)
        uleb(&sub, i), uleb(&sub, (uint32_t)strlen(names[i])),
            put(&sub, names[i], strlen(names[i]));
    byte(&s, 1);
    uleb(&s, (uint32_t)sub.len);
    put(&s, sub.p, sub.len);
    free(sub.p);
    section(m, 0, &s);
}

static struct buf big_module(void)
{
    struct buf m = {0}, s = {0};
    put(&m, "\0asm\1\0\0\0", 8);
    uleb(&s, 1), byte(&s, 0x60), uleb(&s, 1), byte(&s, 0x7f), uleb(&s, 1), byte(&s, 0x7f);
    section(&m, 1, &s);
    uleb(&s, F_NAMED + PADS);
    for (int i = 0; i < F_NAMED + PADS; i++)
        uleb(&s, 0);
    section(&m, 3, &s);
    uleb(&s, F_NAMED);
    for (uint32_t i = 0; i < F_NAMED; i++)
        uleb(&s, (uint32_t)strlen(names[i])), put(&s, names[i], strlen(names[i])), byte(&s, 0),
            uleb(&s, i);
    section(&m, 7, &s);
    code_section(&m);
    name_section(&m);
    return m;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct env {
    struct wasm_module *m;
    struct wasm_store *store;
    struct wasm_instance *inst;
};

static void env_open(struct env *e, uint8_t tier, uint8_t hot_only)
{
    char err[256] = "";
    struct buf b = big_module();
    ck_assert_int_eq(sbx__wasm_module_load(b.p, b.len, &e->m, err, sizeof(err)), SBX_OK);
    free(b.p);
    ck_assert_uint_ge(sbx__jit_code_bytes(e->m), SBX__JIT_LARGE_BYTES);
    struct wasm_store_limits l = {.tier = tier, .tierup_ms = 1, .hot_only = hot_only};
    ck_assert_int_eq(sbx__wasm_store_create(&l, &e->store), SBX_OK);
    sbx_err rc =
        sbx__wasm_instantiate(e->store, e->m, NULL, NULL, &e->inst, NULL, err, sizeof(err));
    ck_assert_msg(rc == SBX_OK, "instantiate: %s", err);
}

static void env_close(struct env *e)
{
    sbx__wasm_store_destroy(e->store);
    sbx__wasm_module_destroy(e->m);
}

static struct wasm_func *fn(struct env *e, int idx)
{
    struct wasm_extern ext;
    ck_assert(sbx__wasm_instance_export(e->inst, names[idx], strlen(names[idx]), &ext));
    return ext.u.func;
}

static bool is_native(struct env *e, int idx)
{
    return __atomic_load_n(&fn(e, idx)->jit_entry, __ATOMIC_ACQUIRE) != NULL;
}

static sbx_err call(struct env *e, int idx, uint32_t arg, uint32_t *res, struct wasm_trap *trap)
{
    wasm_value a = {.i32 = arg}, r[1] = {0};
    sbx_err rc = sbx__wasm_func_call(e->store, fn(e, idx), &a, r, trap);
    *res = r[0].i32;
    return rc;
}

static uint32_t call_i32(struct env *e, int idx, uint32_t arg)
{
    uint32_t r;
    struct wasm_trap trap;
    sbx_err rc = call(e, idx, arg, &r, &trap);
    ck_assert_msg(rc == SBX_OK, "%s: %s", names[idx], trap.message);
    return r;
}

/* Calls idx(arg) until it has native code (it is hot after the first few). */
static void make_hot(struct env *e, int idx, uint32_t arg)
{
    for (int i = 0; i < HOT_CALLS; i++)
        call_i32(e, idx, arg);
    for (double end = now_s() + WAIT_S; !is_native(e, idx) && now_s() < end; usleep(1000))
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
    struct env ei, ea;
    env_open(&ei, WASM_TIER_INTERP, WASM_HOT_DEFAULT);
    env_open(&ea, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(ea.store), WASM_TIERUP_IDLE);
    make_hot(&ea, F_HOT, 5000);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(ea.store), WASM_TIERUP_LAZY);
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(ea.store), 1);
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
    env_close(&ea);
    env_close(&ei);
}
END_TEST

/* A later batch calls an earlier one: late (hot from the host's calls, no loop) calls hot
 * (compiled first) through the runtime's entry slot. */
START_TEST(later_batch_calls_earlier)
{
    struct env ei, ea;
    env_open(&ei, WASM_TIER_INTERP, WASM_HOT_DEFAULT);
    env_open(&ea, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
    make_hot(&ea, F_HOT, 5000);
    ck_assert(!is_native(&ea, F_LATE));
    make_hot(&ea, F_LATE, 9);
    ck_assert_uint_ge(sbx__wasm_store_lazy_batches(ea.store), 2);
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(ea.store), 2);
    for (uint32_t n = 0; n < 20; n++)
        ck_assert_uint_eq(call_i32(&ea, F_LATE, n), call_i32(&ei, F_LATE, n));
    env_close(&ea);
    env_close(&ei);
}
END_TEST

/* A trap inside a lazily compiled callee, called from an interpreted caller, names the callee,
 * as the interpreter's does. */
START_TEST(trap_in_compiled_callee_names_it)
{
    struct env ei, ea;
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
    env_close(&ea);
    env_close(&ei);
}
END_TEST

static double interrupted_at;

static void *interrupt_later(void *p)
{
    usleep(300 * 1000);
    interrupted_at = now_s();
    sbx__wasm_store_interrupt(p);
    return NULL;
}

/* An endless loop in a lazily compiled function stops at the interrupt (its native loop header
 * polls the flag; the bound allows for a loaded machine). */
START_TEST(interrupt_of_compiled_loop)
{
    struct env e;
    struct wasm_trap trap;
    uint32_t r;
    pthread_t t;
    env_open(&e, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
    make_hot(&e, F_SPIN, 100);
    uint64_t entries = sbx__wasm_store_native_entries(e.store);
    ck_assert_int_eq(pthread_create(&t, NULL, interrupt_later, e.store), 0);
    ck_assert_int_eq(call(&e, F_SPIN, 0, &r, &trap), SBX_E_WASM_TRAP);
    double took_ms = (now_s() - interrupted_at) * 1e3;
    pthread_join(t, NULL);
    ck_assert_int_eq(trap.kind, WASM_TRAP_INTERRUPTED);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), entries + 1);
    printf("lazy: interrupt stopped the native loop in %.2f ms\n", took_ms);
    ck_assert_msg(took_ms < 500, "interrupt took %.1f ms", took_ms);
    env_close(&e);
}
END_TEST

/* Fuel runs stay interpreted, and hot_only OFF keeps the whole-module path (the control:
 * nothing is compiled one function at a time). */
START_TEST(fuel_and_off_compile_no_batch)
{
    struct env e;
    env_open(&e, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
    sbx__wasm_store_set_fuel(e.store, 1000000000);
    for (int i = 0; i < HOT_CALLS; i++)
        call_i32(&e, F_HOT, 100);
    usleep(100 * 1000);
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(e.store), 0);
    ck_assert(!is_native(&e, F_HOT));
    env_close(&e);
    env_open(&e, WASM_TIER_AUTO, WASM_HOT_OFF);
    call_i32(&e, F_HOT, 100);
    ck_assert_uint_ne(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_LAZY);
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(e.store), 0);
    env_close(&e);
}
END_TEST

/* The store is destroyed while a batch compiles: destroy waits for the compile, which stops at
 * its next function or phase (the pause below holds it at its start until destroy began). */
static atomic_bool pause_armed, is_paused, is_destroying, has_resumed;

void sbx__jit_test_pause(int where)
{
    if (where != 1 || !atomic_load(&pause_armed) || atomic_exchange(&is_paused, true))
        return;
    for (double end = now_s() + WAIT_S; !atomic_load(&is_destroying) && now_s() < end;)
        usleep(1000);
    usleep(100 * 1000); /* destroy is waiting for the compile by now */
    atomic_store(&has_resumed, true);
}

START_TEST(destroy_during_batch)
{
    struct env e;
    atomic_store(&pause_armed, true);
    env_open(&e, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
    call_i32(&e, F_HOT, 5000); /* hot within the call */
    for (double end = now_s() + WAIT_S; !atomic_load(&is_paused) && now_s() < end; usleep(1000))
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
    tcase_set_timeout(tc, WAIT_S + 60);
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

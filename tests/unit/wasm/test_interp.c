/* Interpreter tests: the fused forms the translator emits (address adds, constant addresses,
 * load-op, op-store, read-modify-write, compare-branch, deferred locals), traps with function
 * names, fuel, interrupts from another thread, call-depth and value-stack limits, host
 * functions (traps, exit, memory, re-entry, v128 values) and call_indirect across modules. Every
 * test also runs in the compiled tier (test case "compiled"), which must behave identically. */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lsan_no_tls.h" /* the compiled cases: the tracer faulted at every exit without it */
#include "sbx_test.h"
#include "test_interp_mods.h"
#include "wasm_env.h"

static uint8_t test_tier; /* enum wasm_tier of every store; set per test case */

static void tier_interp(void)
{
    test_tier = WASM_TIER_INTERP;
}

static void tier_compiled(void)
{
    test_tier = WASM_TIER_COMPILED;
}

static struct wasm_func *host_add, *host_fail, *host_reenter, *host_poke, *host_vswap;
static struct wenv *reenter_env;

static bool resolve_host(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    (void)user;
    out->kind = WASM_EXTERN_FUNC;
    if (strcmp(imp->name, "add") == 0)
        out->u.func = host_add;
    else if (strcmp(imp->name, "fail") == 0)
        out->u.func = host_fail;
    else if (strcmp(imp->name, "reenter") == 0)
        out->u.func = host_reenter;
    else if (strcmp(imp->name, "poke") == 0)
        out->u.func = host_poke;
    else if (strcmp(imp->name, "vswap") == 0)
        out->u.func = host_vswap;
    else
        return false;
    return true;
}

static void env_open(struct wenv *e, const uint8_t *bytes, size_t len,
                     const struct wasm_store_limits *limits)
{
    struct wasm_store_limits l = {0};
    if (limits)
        l = *limits;
    l.tier = test_tier;
    wenv_open(e, bytes, len, &l);
}

static void env_inst(struct wenv *e, wasm_resolve_fn resolve)
{
    wenv_instantiate(e, resolve, NULL);
    /* Not vacuous: in the compiled case the code really is native. */
    const struct wasm_module *m = e->inst->module;
    for (uint32_t i = m->func_import_count; i < m->func_count; i++)
        ck_assert((e->inst->funcs[i]->jit_entry != NULL) == (test_tier == WASM_TIER_COMPILED));
}

static uint32_t call_i32(struct wenv *e, const char *name, uint32_t a, uint32_t b, uint32_t c)
{
    wasm_value args[3];
    memset(args, 0, sizeof(args));
    args[0].i32 = a, args[1].i32 = b, args[2].i32 = c;
    return wenv_call_i32(e, name, args);
}

static void expect_trap(struct wenv *e, const char *name, uint32_t a, enum wasm_trap_kind kind,
                        const char *message)
{
    wasm_value args[3], res[2];
    memset(args, 0, sizeof(args));
    args[0].i32 = a;
    struct wasm_trap trap;
    ck_assert_int_eq(wenv_call(e, name, args, res, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, kind);
    if (message)
        ck_assert_str_eq(trap.message, message);
}

static struct wenv ops_env(void)
{
    struct wenv e;
    env_open(&e, mod_ops, sizeof(mod_ops), NULL);
    env_inst(&e, NULL);
    return e;
}

START_TEST(fused_address_add_wraps)
{
    struct wenv e = ops_env();
    call_i32(&e, "st_add", 0, 0x01020304, 0);
    /* 0xFFFFFFF8 + 8 wraps to 0 in i32.add: the fused load must wrap the same way. */
    ck_assert_uint_eq(call_i32(&e, "ld_addi", 0xFFFFFFF8u, 0, 0), 0x01020304);
    ck_assert_uint_eq(call_i32(&e, "ld_addi", 16, 0, 0), 0);
    expect_trap(&e, "ld_addi", 65532 - 8 + 1, WASM_TRAP_MEMORY_OOB,
                "out of bounds memory access in ld_addi");
    wenv_close(&e);
}
END_TEST

START_TEST(fused_memory_ops)
{
    struct wenv e = ops_env();
    call_i32(&e, "st_add", 100, 40, 2);                      /* op-store */
    ck_assert_uint_eq(call_i32(&e, "ld_op", 100, 8, 0), 50); /* load-op */
    expect_trap(&e, "st_add", 65533, WASM_TRAP_MEMORY_OOB, NULL);
    expect_trap(&e, "ld_op", 65533, WASM_TRAP_MEMORY_OOB, NULL);

    wasm_value args[2], res[1];
    memset(args, 0, sizeof(args));
    args[0].i32 = 200;
    double x = 1.5, y;
    memcpy(&args[1].f64, &x, sizeof(x));
    struct wasm_trap trap;
    ck_assert_int_eq(wenv_call(&e, "rmw", args, res, &trap), SBX_OK);
    ck_assert_int_eq(wenv_call(&e, "rmw", args, res, &trap), SBX_OK); /* memory = 1.5 + 1.5 */
    memcpy(&y, &res[0].f64, sizeof(y));
    ck_assert(y == 3.0);
    args[0].i32 = 65529; /* 8 bytes from 65529 end past 65536 */
    ck_assert_int_eq(wenv_call(&e, "rmw", args, res, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_MEMORY_OOB);
    wenv_close(&e);
}
END_TEST

static double call_f64(struct wenv *e, const char *name, uint32_t a, double x, wasm_value y)
{
    wasm_value args[3], res[1];
    struct wasm_trap trap;
    memset(args, 0, sizeof(args));
    args[0].i32 = a;
    memcpy(&args[1].f64, &x, sizeof(x));
    args[2] = y;
    ck_assert_int_eq(wenv_call(e, name, args, res, &trap), SBX_OK);
    double r;
    memcpy(&r, &res[0].f64, sizeof(r));
    return r;
}

START_TEST(fused_multiply_accumulate)
{
    struct wenv e = ops_env();
    wasm_value y = {0};
    double three = 3.0, one = 1.0, below = 1.0 - 0x1p-53;
    memcpy(&y.f64, &three, sizeof(three));
    ck_assert(call_f64(&e, "axpy", 300, 2.0, y) == 6.0); /* memory: 0 + 2 * 3 */
    ck_assert(call_f64(&e, "axpy", 300, 2.0, y) == 12.0);
    /* Two roundings, as the separate instructions: (1 + 2^-52) * (1 - 2^-53) rounds to 1, so
     * adding -1 gives 0 where a fused multiply-add would give 2^-53 - 2^-105. */
    memcpy(&y.f64, &one, sizeof(one));
    ck_assert(call_f64(&e, "axpy", 400, -1.0, y) == -1.0);
    memcpy(&y.f64, &below, sizeof(below));
    ck_assert(call_f64(&e, "axpy", 400, 1.0 + 0x1p-52, y) == 0.0);
    /* axpy_ld: memory[a + 8] += x * memory[y] */
    wasm_value addr = {0};
    addr.i32 = 300; /* holds 12.0 */
    ck_assert(call_f64(&e, "axpy_ld", 500, 0.5, addr) == 6.0);
    ck_assert(call_f64(&e, "axpy_ld", 500, 0.5, addr) == 12.0);
    wasm_value args[3], res[1];
    struct wasm_trap trap;
    memset(args, 0, sizeof(args));
    args[0].i32 = 65530;
    ck_assert_int_eq(wenv_call(&e, "axpy", args, res, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_MEMORY_OOB);
    args[0].i32 = 8;
    args[2].i32 = 65530;
    ck_assert_int_eq(wenv_call(&e, "axpy_ld", args, res, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_MEMORY_OOB);
    wenv_close(&e);
}
END_TEST

START_TEST(fused_constants)
{
    struct wenv e = ops_env();
    wasm_value args[1], res[1];
    struct wasm_trap trap;
    args[0].i64 = 0;
    args[0].i32 = 64;
    ck_assert_int_eq(wenv_call(&e, "store_const", args, res, &trap), SBX_OK);
    ck_assert_int_eq((int64_t)res[0].i64, -2);
    ck_assert_uint_eq(call_i32(&e, "const_addr", 0, 0, 0), 7);
    expect_trap(&e, "const_addr_oob", 0, WASM_TRAP_MEMORY_OOB, NULL);
    /* -1 + offset 2 exceeds 32 bits: no wrap into low memory. */
    expect_trap(&e, "big_offset", 0, WASM_TRAP_MEMORY_OOB, NULL);
    wenv_close(&e);
}
END_TEST

START_TEST(fused_store_address_and_loops)
{
    struct wenv e = ops_env();
    call_i32(&e, "st_addr", 0xFFFFFFFCu, 4, 0x11223344); /* the address add wraps to 0 */
    ck_assert_uint_eq(call_i32(&e, "ld_addi", 0xFFFFFFF8u, 0, 0), 0x11223344);
    call_i32(&e, "st_addr", 8, 4, 5);
    ck_assert_uint_eq(call_i32(&e, "ld_addi", 4, 0, 0), 5);
    wasm_value args[3], res[1];
    struct wasm_trap trap;
    memset(args, 0, sizeof(args));
    args[0].i32 = 65532;
    args[1].i32 = 1;
    ck_assert_int_eq(wenv_call(&e, "st_addr", args, res, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_MEMORY_OOB);
    call_i32(&e, "st_addr_k", 100, 0, 0);
    ck_assert_uint_eq(call_i32(&e, "ld_byte", 104, 0, 0), 99);
    expect_trap(&e, "st_addr_k", 65532, WASM_TRAP_MEMORY_OOB, NULL);
    ck_assert_uint_eq(call_i32(&e, "step_loop", 0, 0, 0), 10);
    ck_assert_uint_eq(call_i32(&e, "sum_loop", 7, 0, 0), 105);
    ck_assert_uint_eq(call_i32(&e, "sum_loop", 200, 0, 0), 200);
    wenv_close(&e);
}
END_TEST

START_TEST(deferred_locals)
{
    struct wenv e = ops_env();
    /* local.get 0 is read before local.set 0 overwrites it. */
    ck_assert_uint_eq(call_i32(&e, "swap", 10, 3, 0), 7);
    ck_assert_uint_eq(call_i32(&e, "tee_chain", 5, 0, 0), 30);
    ck_assert_uint_eq(call_i32(&e, "mov_mov", 9, 4, 3), 15);
    ck_assert_uint_eq(call_i32(&e, "cmp_br", 1000, 0, 0), 1000);
    ck_assert_uint_eq(call_i32(&e, "cmp_br", (uint32_t)-5, 0, 0), 1);
    uint32_t a = 0x12345678u, b = 0x9ABCDEF0u, c = 0x0FEDCBA9u;
    uint32_t mix = (((a << 7) | (a >> 25)) ^ b) + (a + b + c) + ((a ^ c) + b) + ((a & b) + c);
    ck_assert_uint_eq(call_i32(&e, "hash_mix", a, b, c), mix);
    /* `local = 0` is dropped only where the local is known to be zero still. */
    ck_assert_uint_eq(call_i32(&e, "reset_in_loop", 0, 0, 0), 21);
    ck_assert_uint_eq(call_i32(&e, "zero_after_if", 1, 0, 0), 0);
    wenv_close(&e);
}
END_TEST

START_TEST(blocks_and_tables)
{
    struct wenv e = ops_env();
    wasm_value args[1], res[2];
    struct wasm_trap trap;
    memset(args, 0, sizeof(args));
    args[0].i32 = 5;
    ck_assert_int_eq(wenv_call(&e, "multi", args, res, &trap), SBX_OK);
    ck_assert_uint_eq(res[0].i32, 5);
    ck_assert_uint_eq(res[1].i32, 6);
    args[0].i32 = 0;
    ck_assert_int_eq(wenv_call(&e, "multi", args, res, &trap), SBX_OK);
    ck_assert_uint_eq(res[0].i32, 7);
    ck_assert_uint_eq(res[1].i32, 8);
    ck_assert_uint_eq(call_i32(&e, "table_sw", 0, 0, 0), 10);
    ck_assert_uint_eq(call_i32(&e, "table_sw", 1, 0, 0), 20);
    ck_assert_uint_eq(call_i32(&e, "table_sw", 2, 0, 0), 30);
    ck_assert_uint_eq(call_i32(&e, "table_sw", 99, 0, 0), 30);
    wenv_close(&e);
}
END_TEST

START_TEST(numeric_edges)
{
    struct wenv e = ops_env();
    ck_assert_uint_eq(call_i32(&e, "div", (uint32_t)-7, 2, 0), (uint32_t)-3);
    expect_trap(&e, "div", 1, WASM_TRAP_DIV_ZERO, "integer divide by zero in div");
    wasm_value args[2], res[1];
    struct wasm_trap trap;
    memset(args, 0, sizeof(args));
    args[0].i32 = 0x80000000u;
    args[1].i32 = 0xFFFFFFFFu;
    ck_assert_int_eq(wenv_call(&e, "div", args, res, &trap), SBX_E_WASM_TRAP);
    ck_assert_str_eq(trap.message, "integer overflow in div");
    /* min(-0, +0) is -0; a NaN payload stays a NaN. */
    args[0].f64 = 0x8000000000000000u;
    args[1].f64 = 0;
    ck_assert_int_eq(wenv_call(&e, "fmin", args, res, &trap), SBX_OK);
    ck_assert_uint_eq(res[0].f64, 0x8000000000000000u);
    args[0].f64 = 0x7FF4000000000000u;
    ck_assert_int_eq(wenv_call(&e, "fmin", args, res, &trap), SBX_OK);
    ck_assert_uint_eq(res[0].f64 & 0x7FF8000000000000u, 0x7FF8000000000000u);
    args[0].f32 = 0x4F000000u; /* 2^31: out of i32 range */
    ck_assert_int_eq(wenv_call(&e, "trunc", args, res, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_INT_OVERFLOW);
    args[0].f32 = 0x7FC00000u;
    ck_assert_int_eq(wenv_call(&e, "trunc", args, res, &trap), SBX_E_WASM_TRAP);
    ck_assert_str_eq(trap.message, "invalid conversion to integer in trunc");
    args[0].f32 = 0xCF000000u; /* -2^31 fits */
    ck_assert_int_eq(wenv_call(&e, "trunc", args, res, &trap), SBX_OK);
    ck_assert_uint_eq(res[0].i32, 0x80000000u);
    wenv_close(&e);
}
END_TEST

START_TEST(fuel_runs_out)
{
    struct wenv e;
    env_open(&e, mod_limits, sizeof(mod_limits), NULL);
    env_inst(&e, NULL);
    sbx__wasm_store_set_fuel(e.store, 100000);
    ck_assert_uint_eq(call_i32(&e, "count", 100, 0, 0), 100);
    uint64_t left = sbx__wasm_store_fuel(e.store);
    ck_assert(left < 100000 - 100 && left > 100000 - 2000);
    expect_trap(&e, "spin", 0, WASM_TRAP_FUEL_EXHAUSTED, NULL);
    ck_assert_uint_eq(sbx__wasm_store_fuel(e.store), 0);
    sbx__wasm_store_set_fuel(e.store, 0); /* unmetered again */
    ck_assert_uint_eq(call_i32(&e, "count", 100000, 0, 0), 100000);
    wenv_close(&e);
}
END_TEST

static void *interrupt_later(void *p)
{
    usleep(50 * 1000);
    sbx__wasm_store_interrupt(p);
    return NULL;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

START_TEST(interrupt_from_thread)
{
    struct wenv e;
    env_open(&e, mod_limits, sizeof(mod_limits), NULL);
    env_inst(&e, NULL);
    pthread_t t;
    double start = now_ms();
    ck_assert_int_eq(pthread_create(&t, NULL, interrupt_later, e.store), 0);
    expect_trap(&e, "spin", 0, WASM_TRAP_INTERRUPTED, NULL);
    double took = now_ms() - start;
    pthread_join(t, NULL);
    ck_assert_msg(took < 2000, "interrupt took %.1f ms", took);
    /* Stays interrupted until cleared. */
    expect_trap(&e, "count", 10, WASM_TRAP_INTERRUPTED, NULL);
    sbx__wasm_store_clear_interrupt(e.store);
    ck_assert_uint_eq(call_i32(&e, "count", 10, 0, 0), 10);
    wenv_close(&e);
}
END_TEST

START_TEST(call_depth_limit)
{
    struct wasm_store_limits limits = {.max_call_depth = 500};
    struct wenv e;
    env_open(&e, mod_limits, sizeof(mod_limits), &limits);
    env_inst(&e, NULL);
    expect_trap(&e, "rec", 0, WASM_TRAP_STACK_EXHAUSTED, "call stack exhausted in rec");
    ck_assert_uint_eq(call_i32(&e, "count", 3, 0, 0), 3); /* the store still works */
    wenv_close(&e);
}
END_TEST

START_TEST(value_stack_limit)
{
    /* A deep call limit with a small value stack: the stack runs out first, cleanly. */
    struct wasm_store_limits limits = {.max_call_depth = 1000000, .max_stack_bytes = 64 * 1024};
    struct wenv e;
    env_open(&e, mod_limits, sizeof(mod_limits), &limits);
    env_inst(&e, NULL);
    expect_trap(&e, "rec", 0, WASM_TRAP_STACK_EXHAUSTED, NULL);
    wenv_close(&e);
}
END_TEST

static int h_add(struct wasm_call *c, void *user, const wasm_value *args, wasm_value *res)
{
    (void)c, (void)user;
    res[0].i32 = args[0].i32 + args[1].i32;
    return 0;
}

static int h_fail(struct wasm_call *c, void *user, const wasm_value *args, wasm_value *res)
{
    (void)args, (void)res;
    if (user)
        sbx__wasm_call_exit(c, 42);
    else
        sbx__wasm_call_trap(c, WASM_TRAP_HOST, "boom %d", 7);
    return -1;
}

static int h_reenter(struct wasm_call *c, void *user, const wasm_value *args, wasm_value *res)
{
    (void)user;
    struct wasm_trap trap;
    wasm_value a[1] = {{0}};
    a[0].i32 = 21;
    struct wasm_func *f = wenv_export_func(reenter_env, "double");
    if (args[0].i32 > 0) { /* recurse through the host: call_reenter(n - 1) */
        a[0].i32 = args[0].i32 - 1;
        f = wenv_export_func(reenter_env, "call_reenter");
    }
    if (sbx__wasm_func_call(sbx__wasm_call_store(c), f, a, res, &trap) != SBX_OK) {
        sbx__wasm_call_trap(c, trap.kind, "%s", trap.message);
        return -1;
    }
    return 0;
}

static int h_poke(struct wasm_call *c, void *user, const wasm_value *args, wasm_value *res)
{
    (void)user, (void)res;
    uint8_t *p = sbx__wasm_memory_span(sbx__wasm_call_memory(c), args[0].i32, 4);
    if (!p) {
        sbx__wasm_call_trap(c, WASM_TRAP_MEMORY_OOB, "poke out of bounds");
        return -1;
    }
    memcpy(p, "\x2a\x00\x00\x00", 4);
    return 0;
}

static void host_env(struct wenv *e, bool fail_exits)
{
    env_open(e, mod_host, sizeof(mod_host), NULL);
    wasm_vtype ii_i[] = {WASM_I32, WASM_I32, WASM_I32}, i_i[] = {WASM_I32, WASM_I32};
    struct wasm_functype t_add = {2, 1, ii_i}, t_none = {0, 0, NULL}, t_re = {1, 1, i_i};
    struct wasm_functype t_poke = {1, 0, i_i};
    host_add = sbx__wasm_func_new_host(e->store, &t_add, h_add, NULL);
    host_fail = sbx__wasm_func_new_host(e->store, &t_none, h_fail, fail_exits ? e : NULL);
    host_reenter = sbx__wasm_func_new_host(e->store, &t_re, h_reenter, NULL);
    host_poke = sbx__wasm_func_new_host(e->store, &t_poke, h_poke, NULL);
    ck_assert(host_add && host_fail && host_reenter && host_poke);
    ck_assert_int_eq(sbx__wasm_func_type(host_add)->param_count, 2);
    env_inst(e, resolve_host);
    reenter_env = e;
}

START_TEST(host_calls)
{
    struct wenv e;
    host_env(&e, false);
    ck_assert_uint_eq(call_i32(&e, "call_add", 40, 2, 0), 42);
    expect_trap(&e, "call_fail", 0, WASM_TRAP_HOST, "boom 7");
    ck_assert_uint_eq(call_i32(&e, "poke_load", 8, 0, 0), 42);
    expect_trap(&e, "poke_load", 65534, WASM_TRAP_MEMORY_OOB, "poke out of bounds");
    /* call_reenter(n) = double(21) + n + 1, re-entering the guest n + 1 times */
    ck_assert_uint_eq(call_i32(&e, "call_reenter", 0, 0, 0), 43);
    ck_assert_uint_eq(call_i32(&e, "call_reenter", 3, 0, 0), 46);
    wenv_close(&e);
}
END_TEST

START_TEST(host_exit_and_deep_reentry)
{
    struct wenv e;
    host_env(&e, true);
    wasm_value args[1] = {{0}}, res[1];
    struct wasm_trap trap;
    ck_assert_int_eq(wenv_call(&e, "call_fail", args, res, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_EXIT);
    ck_assert_int_eq(trap.exit_code, 42);
    /* Unbounded re-entry through the host ends in a clean trap, not a C stack overflow. */
    expect_trap(&e, "call_reenter", 1000000, WASM_TRAP_STACK_EXHAUSTED, NULL);
    ck_assert_uint_eq(call_i32(&e, "call_reenter", 2, 0, 0), 45);
    wenv_close(&e);
}
END_TEST

/* vswap(a, k, b) = (b with k added to lane 0, a) */
static int h_vswap(struct wasm_call *c, void *user, const wasm_value *args, wasm_value *res)
{
    (void)c, (void)user;
    uint32_t lane0;
    memcpy(res[0].v128, args[2].v128, 16);
    memcpy(&lane0, res[0].v128, 4);
    lane0 += args[1].i32;
    memcpy(res[0].v128, &lane0, 4);
    memcpy(res[1].v128, args[0].v128, 16);
    return 0;
}

/* A host function with v128 params and results between scalars: in the compiled tier they
 * cross sbx__wasm_call_host()'s slots, two per v128. */
START_TEST(host_call_v128)
{
    struct wenv e;
    env_open(&e, mod_vhost, sizeof(mod_vhost), NULL);
    wasm_vtype vt[] = {WASM_V128, WASM_I32, WASM_V128, WASM_V128, WASM_V128};
    struct wasm_functype t = {3, 2, vt};
    host_vswap = sbx__wasm_func_new_host(e.store, &t, h_vswap, NULL);
    ck_assert(host_vswap);
    env_inst(&e, resolve_host);
    /* (5 + 9) * 1000 + lane 3 of (1 2 3 4) */
    ck_assert_uint_eq(call_i32(&e, "call_vswap", 9, 0, 0), 14004);
    wenv_close(&e);
}
END_TEST

START_TEST(call_indirect_checks)
{
    struct wenv e;
    host_env(&e, false);
    ck_assert_uint_eq(call_i32(&e, "indirect", 3, 4, 0), 7); /* host function in the table */
    wasm_value args[3], res[1];
    struct wasm_trap trap;
    memset(args, 0, sizeof(args));
    args[2].i32 = 1; /* $double has the wrong type */
    ck_assert_int_eq(wenv_call(&e, "indirect", args, res, &trap), SBX_E_WASM_TRAP);
    ck_assert_str_eq(trap.message, "indirect call type mismatch in indirect");
    args[2].i32 = 2;
    ck_assert_int_eq(wenv_call(&e, "indirect", args, res, &trap), SBX_E_WASM_TRAP);
    ck_assert_str_eq(trap.message, "undefined element in indirect");
    wenv_close(&e);
}
END_TEST

START_TEST(trap_texts)
{
    ck_assert_str_eq(sbx__wasm_trap_text(WASM_TRAP_UNREACHABLE), "unreachable");
    ck_assert_str_eq(sbx__wasm_trap_text(WASM_TRAP_STACK_EXHAUSTED), "call stack exhausted");
    ck_assert_str_eq(sbx__wasm_trap_text(WASM_TRAP_UNINITIALIZED_ELEMENT), "uninitialized element");
    ck_assert_str_eq(sbx__wasm_trap_text((enum wasm_trap_kind)999), "unknown trap");
}
END_TEST

static TCase *tier_case(const char *name, void (*set_tier)(void))
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 30);
    tcase_add_unchecked_fixture(tc, set_tier, NULL);
    tcase_add_test(tc, fused_address_add_wraps);
    tcase_add_test(tc, fused_memory_ops);
    tcase_add_test(tc, fused_multiply_accumulate);
    tcase_add_test(tc, fused_constants);
    tcase_add_test(tc, fused_store_address_and_loops);
    tcase_add_test(tc, deferred_locals);
    tcase_add_test(tc, blocks_and_tables);
    tcase_add_test(tc, numeric_edges);
    tcase_add_test(tc, fuel_runs_out);
    tcase_add_test(tc, interrupt_from_thread);
    tcase_add_test(tc, call_depth_limit);
    tcase_add_test(tc, value_stack_limit);
    tcase_add_test(tc, host_calls);
    tcase_add_test(tc, host_exit_and_deep_reentry);
    tcase_add_test(tc, host_call_v128);
    tcase_add_test(tc, call_indirect_checks);
    tcase_add_test(tc, trap_texts);
    return tc;
}

int main(void)
{
    Suite *s = suite_create("wasm_interp");
    suite_add_tcase(s, tier_case("interp", tier_interp));
    suite_add_tcase(s, tier_case("compiled", tier_compiled));
    return sbx_test_main(s);
}

/* The tier-up worker with two stores armed at once (src/wasm/jit/tierup.c): it serves the
 * earliest deadline, whichever was armed first, so a store with a short threshold compiles
 * while one armed before or after it with a minute's threshold waits. One store at a time was
 * what the other tests armed; two were armed together only when suites overlapped by chance
 * (moved between coverage runs, issue 15). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/jit/jit.h"
#include "wasm/runtime.h"
#include "wasm/wasm.h"
#include "wasm_builder.h"

#define WAIT_S  120   /* the longest a state is awaited: LLVM under ASan on a loaded machine */
#define LONG_MS 60000 /* a threshold no test reaches */

static struct wasm_store *waiting_store; /* the store the import "wait" watches */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static bool wait_state(struct wasm_store *s, unsigned want)
{
    for (double end = now_s() + WAIT_S; now_s() < end; usleep(1000)) {
        unsigned st = sbx__wasm_store_tierup_state(s);
        if (st == want || st == WASM_TIERUP_FAILED)
            return st == want;
    }
    return false;
}

/* The import "wait": blocks inside the guest's call (the time counts as interpretation) until
 * the store is native; returns 1 if it got there. */
static int host_wait(struct wasm_call *c, void *user, const wasm_value *args, wasm_value *res)
{
    (void)c, (void)user, (void)args;
    res[0].i32 = wait_state(waiting_store, WASM_TIERUP_NATIVE) ? 1 : 0;
    return 0;
}

struct env {
    struct wasm_module *m;
    struct wasm_store *store;
    struct wasm_instance *inst;
};

static bool resolve(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    struct env *e = user;
    if (imp->kind != WASM_EXTERN_FUNC || strcmp(imp->name, "wait") != 0)
        return false;
    out->kind = WASM_EXTERN_FUNC;
    out->u.func =
        sbx__wasm_func_new_host(e->store, &e->m->types[imp->u.func_type], host_wait, NULL);
    return out->u.func != NULL;
}

/* quick() = 7; run() = wait() + 7. */
static uint8_t *build(size_t *len)
{
    struct wb *w = wb_new();
    uint32_t wait = wb_import_func(w, "t", "wait", "", "i");
    struct wb_bytes q = {0};
    wbc_i32_const(&q, 7), wbc_end(&q);
    wb_export_func(w, "quick", wb_func(w, "", "i", "", &q));
    wb_bytes_free(&q);
    struct wb_bytes r = {0};
    wbc_call(&r, wait), wbc_i32_const(&r, 7), wbc_op(&r, WB_OP_I32_ADD), wbc_end(&r);
    wb_export_func(w, "run", wb_func(w, "", "i", "", &r));
    wb_bytes_free(&r);
    uint8_t *bytes = wb_finish(w, len);
    wb_free(w);
    ck_assert_ptr_nonnull(bytes);
    return bytes;
}

static void env_open(struct env *e, uint32_t tierup_ms)
{
    char err[256] = "";
    size_t len;
    uint8_t *bytes = build(&len);
    ck_assert_int_eq(sbx__wasm_module_load(bytes, len, &e->m, err, sizeof(err)), SBX_OK);
    free(bytes);
    struct wasm_store_limits l = {.tier = WASM_TIER_AUTO, .tierup_ms = tierup_ms};
    ck_assert_int_eq(sbx__wasm_store_create(&l, &e->store), SBX_OK);
    sbx_err rc =
        sbx__wasm_instantiate(e->store, e->m, resolve, e, &e->inst, NULL, err, sizeof(err));
    ck_assert_msg(rc == SBX_OK, "instantiate: %s", err);
}

static void env_close(struct env *e)
{
    sbx__wasm_store_destroy(e->store);
    sbx__wasm_module_destroy(e->m);
}

static int32_t call(struct env *e, const char *name)
{
    struct wasm_extern ext;
    ck_assert(sbx__wasm_instance_export(e->inst, name, strlen(name), &ext));
    wasm_value res[1];
    memset(res, 0, sizeof(res));
    struct wasm_trap trap;
    sbx_err rc = sbx__wasm_func_call(e->store, ext.u.func, NULL, res, &trap);
    ck_assert_msg(rc == SBX_OK, "%s: %s", name, trap.message);
    return (int32_t)res[0].i32;
}

/* _i 0: the long store is armed first, then the short one; _i 1: the short one first (its
 * first call arms it), then the long one, then the short one's long call. Either way the
 * worker keeps both armed and compiles the short one only. */
START_TEST(earliest_deadline_first)
{
    struct env slow, fast;
    env_open(&slow, LONG_MS);
    env_open(&fast, _i == 0 ? 1 : 300);
    if (_i == 0) {
        ck_assert_int_eq(call(&slow, "quick"), 7);
    } else {
        ck_assert_int_eq(call(&fast, "quick"), 7);
        ck_assert_int_eq(call(&slow, "quick"), 7);
    }
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(slow.store), WASM_TIERUP_ARMED);
    waiting_store = fast.store;
    ck_assert_int_eq(call(&fast, "run"), 1 + 7); /* 1: it became native during the call */
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(fast.store), WASM_TIERUP_NATIVE);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(slow.store), WASM_TIERUP_ARMED);
    ck_assert_int_eq(call(&slow, "quick"), 7);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(slow.store), 0);
    env_close(&fast);
    env_close(&slow);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_tierup_order");
    TCase *tc = tcase_create("tierup_order");
    tcase_set_timeout(tc, WAIT_S + 30);
    tcase_add_loop_test(tc, earliest_deadline_first, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

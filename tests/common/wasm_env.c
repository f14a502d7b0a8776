/* tests/common/wasm_env.c: see wasm_env.h. Assertions are Check's, so only the test's own
 * thread may call what fails the test. */
#include "wasm_env.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wasm/jit/jit.h"

#define MAX_VALUES 8 /* of arguments passed as zeros, and of results wenv_func_i32 takes */

static const wasm_value zeros[MAX_VALUES]; /* the arguments of a call given NULL */

double wenv_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct wasm_module *wenv_module(const uint8_t *bytes, size_t len)
{
    char err[256] = "";
    struct wasm_module *m = NULL;
    sbx_err rc = sbx__wasm_module_load(bytes, len, &m, err, sizeof(err));
    ck_assert_msg(rc == SBX_OK, "load: %s", err);
    return m;
}

void wenv_open(struct wenv *e, const uint8_t *bytes, size_t len,
               const struct wasm_store_limits *limits)
{
    struct wasm_store_limits l = {0};
    if (limits)
        l = *limits;
    memset(e, 0, sizeof(*e));
    e->m = wenv_module(bytes, len);
    ck_assert_int_eq(sbx__wasm_store_create(&l, &e->store), SBX_OK);
}

struct wasm_instance *wenv_instance(struct wasm_store *s, const struct wasm_module *m,
                                    wasm_resolve_fn resolve, void *user)
{
    char err[256] = "";
    struct wasm_instance *inst = NULL;
    sbx_err rc = sbx__wasm_instantiate(s, m, resolve, user, &inst, NULL, err, sizeof(err));
    ck_assert_msg(rc == SBX_OK, "instantiate: %s", err);
    return inst;
}

void wenv_instantiate(struct wenv *e, wasm_resolve_fn resolve, void *user)
{
    e->inst = wenv_instance(e->store, e->m, resolve, user);
}

void wenv_close(struct wenv *e)
{
    sbx__wasm_store_destroy(e->store);
    sbx__wasm_module_destroy(e->m);
}

struct wasm_func *wenv_func(const struct wasm_instance *inst, const char *name)
{
    struct wasm_extern ext;
    ck_assert_msg(sbx__wasm_instance_export(inst, name, strlen(name), &ext), "no export %s", name);
    ck_assert_int_eq(ext.kind, WASM_EXTERN_FUNC);
    return ext.u.func;
}

struct wasm_func *wenv_export_func(const struct wenv *e, const char *name)
{
    return wenv_func(e->inst, name);
}

sbx_err wenv_call(struct wenv *e, const char *name, const wasm_value *args, wasm_value *res,
                  struct wasm_trap *trap)
{
    return sbx__wasm_func_call(e->store, wenv_func(e->inst, name), args ? args : zeros, res, trap);
}

uint32_t wenv_func_i32(struct wasm_store *s, const struct wasm_instance *inst, const char *name,
                       const wasm_value *args)
{
    wasm_value res[MAX_VALUES];
    memset(res, 0, sizeof(res));
    struct wasm_trap trap;
    sbx_err rc = sbx__wasm_func_call(s, wenv_func(inst, name), args ? args : zeros, res, &trap);
    ck_assert_msg(rc == SBX_OK, "%s trapped: %s", name, trap.message);
    return res[0].i32;
}

uint32_t wenv_call_i32(struct wenv *e, const char *name, const wasm_value *args)
{
    return wenv_func_i32(e->store, e->inst, name, args);
}

bool wenv_wait_tierup(struct wasm_store *s, unsigned want)
{
    for (double end = wenv_now_s() + WENV_WAIT_S; wenv_now_s() < end; usleep(1000)) {
        unsigned st = sbx__wasm_store_tierup_state(s);
        if (st == want || st == WASM_TIERUP_FAILED)
            return st == want;
    }
    return false;
}

/* The import "wait": blocks inside the guest's call, so that the time counts as the guest's. */
static int host_wait(struct wasm_call *c, void *user, const wasm_value *args, wasm_value *res)
{
    (void)c, (void)args;
    const struct wenv *e = user;
    res[0].i32 = e->wait_for != WASM_TIERUP_IDLE && wenv_wait_tierup(e->store, e->wait_for);
    return 0;
}

bool wenv_resolve_wait(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    struct wenv *e = user;
    if (imp->kind != WASM_EXTERN_FUNC || strcmp(imp->name, "wait") != 0)
        return false;
    out->kind = WASM_EXTERN_FUNC;
    out->u.func = sbx__wasm_func_new_host(e->store, &e->m->types[imp->u.func_type], host_wait, e);
    return out->u.func != NULL;
}

void wenv_cache_dir_make(char *dir, size_t size, const char *name)
{
    snprintf(dir, size, "/tmp/sbx-%s-XXXXXX", name);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("SBX_CACHE_DIR", dir, 1);
}

void wenv_cache_dir_remove(const char *dir)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

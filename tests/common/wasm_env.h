/* tests/common/wasm_env.h: the wasm unit tests' scaffolding over the engine's internal API: one
 * module, store and instance (struct wenv), calls of its exports, the wait for a store's
 * tier-up, and the host import "wait" that blocks inside a guest call until it is reached. */
#ifndef SBX_TESTS_WASM_ENV_H
#define SBX_TESTS_WASM_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasm/runtime.h"
#include "wasm/wasm.h"

/* The longest a tier-up state is awaited: LLVM under ASan on a loaded machine. */
#define WENV_WAIT_S 120

struct wenv {
    struct wasm_module *m;
    struct wasm_store *store;
    struct wasm_instance *inst;
    /* enum wasm_tierup_state the import "wait" blocks until (then returns 1, or 0 when the
     * tier-up failed or WENV_WAIT_S passed); WASM_TIERUP_IDLE: it returns 0 at once. */
    unsigned wait_for;
};

/* Returns CLOCK_MONOTONIC in seconds. */
double wenv_now_s(void);
/* Loads a module from its binary, failing the test with the decoder's message. */
struct wasm_module *wenv_module(const uint8_t *bytes, size_t len);
/* Instantiates m in s, imports from resolve(user); fails the test with the reason. */
struct wasm_instance *wenv_instance(struct wasm_store *s, const struct wasm_module *m,
                                    wasm_resolve_fn resolve, void *user);
/* Returns inst's exported function name, failing the test when there is none. */
struct wasm_func *wenv_func(const struct wasm_instance *inst, const char *name);
/* Calls inst's export name in s (args NULL: zeros), failing the test on a trap; returns its
 * first result as an i32. */
uint32_t wenv_func_i32(struct wasm_store *s, const struct wasm_instance *inst, const char *name,
                       const wasm_value *args);

/* Zeroes e, loads bytes into e->m and creates e->store under limits (NULL: defaults). */
void wenv_open(struct wenv *e, const uint8_t *bytes, size_t len,
               const struct wasm_store_limits *limits);
/* Instantiates e->m in e->store as e->inst (wenv_instance). */
void wenv_instantiate(struct wenv *e, wasm_resolve_fn resolve, void *user);
/* Destroys the store (its instances with it), then the module. */
void wenv_close(struct wenv *e);
/* wenv_func() of e->inst. */
struct wasm_func *wenv_export_func(const struct wenv *e, const char *name);
/* Calls the export name (args NULL: zeros); returns SBX_OK or the trap's code, *trap filled. */
sbx_err wenv_call(struct wenv *e, const char *name, const wasm_value *args, wasm_value *res,
                  struct wasm_trap *trap);
/* wenv_func_i32() of e->inst. */
uint32_t wenv_call_i32(struct wenv *e, const char *name, const wasm_value *args);
/* Waits up to WENV_WAIT_S for s's tier-up to reach want (or FAILED); whether it reached want. */
bool wenv_wait_tierup(struct wasm_store *s, unsigned want);
/* A wasm_resolve_fn for the function import named "wait" () -> i32, blocking as e->wait_for
 * says; user is the struct wenv, whose store must exist. Any other import: false. */
bool wenv_resolve_wait(void *user, const struct wasm_import *imp, struct wasm_extern *out);

/* Makes a fresh directory /tmp/sbx-NAME-XXXXXX in dir (size bytes) and points $SBX_CACHE_DIR
 * at it: each cache test starts from an empty cache of its own. */
void wenv_cache_dir_make(char *dir, size_t size, const char *name);
/* Removes dir and everything in it. */
void wenv_cache_dir_remove(const char *dir);

#endif

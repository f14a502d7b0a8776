/* js/module.h: the table between libsbx and its private engine module, libsbx-js.so (the C++
 * adapter linked with libmozjs-102 and libstdc++, loaded with dlopen on first use so that a
 * process that never runs JavaScript does not pay for relocating them; docs/worker.md). The
 * module calls back into the host's allocator and clock, so the host's allocation-failure
 * switch and heap reach the engine's own allocations. */
#ifndef SBX_JS_MODULE_H
#define SBX_JS_MODULE_H

#include "core/engine_module.h" /* SBX_JS_STENCIL_NAME, where the module is */
#include "js/engine.h"

#define SBX_JS_MODULE_ABI  5
#define SBX_JS_MODULE_OPEN "sbx__js_module_open" /* the module's one exported symbol */

struct sbx__js_host {
    void *(*calloc)(size_t count, size_t size);
    void *(*mallocn)(size_t count, size_t size);
    void *(*reallocn)(void *ptr, size_t count, size_t size);
    char *(*strndup)(const char *s, size_t len);
    void (*free)(void *ptr);
    uint64_t (*now_ns)(void);
    /* Coverage builds (core/exit.h): writes the host's counters, for an engine leaving by
     * _exit; else NULL, which tells the module it is no coverage build. */
    void (*dump_counters)(void);
};

/* The functions of js/engine.h the adapter implements. */
struct sbx__js_module {
    void (*test_deaf_ms)(unsigned ms);
    bool (*can_throttle)(void);
    struct sbx__js_engine *(*engine_create)(void);
    void (*engine_destroy)(struct sbx__js_engine *e);
    void (*engine_run)(struct sbx__js_engine *e, const struct sbx__js_eval_in *in,
                       struct sbx__js_eval_out *out);
    bool (*self_hosted_offer)(const uint8_t *data, size_t len);
    const char *(*self_hosted_status)(void);
    bool (*self_hosted_write)(const char *path, char *err, size_t errlen);
    bool (*jit_claim)(bool want);
    struct sbx__js_script *(*script_new)(const char *name, const char *source, size_t len);
    void (*script_ref)(struct sbx__js_script *s);
    void (*script_release)(struct sbx__js_script *s);
};

/* The self-hosted stencil file (js/selfhosted.cpp), beside the module: the loader reads it
 * (trusted locations only) and offers its bytes, which must stay alive for the process; the
 * module uses them only if their header names this libmozjs and sbx and the checksum holds
 * (then it returns true; false: the caller may free them). NULL data: there is none. */
#ifdef __cplusplus
extern "C" {
#endif
bool sbx__js_self_hosted_offer(const uint8_t *data, size_t len);
/* How the first context got the self-hosted code: "stencil file" or "parsed: <why>". */
const char *sbx__js_self_hosted_status(void);
/* Writes this engine's stencil file to path (the build step); false: err says why. */
bool sbx__js_self_hosted_write(const char *path, char *err, size_t errlen);
/* Fixes the process's JIT mode (policy.js.jit) to want unless it is fixed; returns the mode. */
bool sbx__js_jit_claim(bool want);
/* The module's side of the host's dump_counters (a no-op when the host has none). */
void sbx__js_host_dump_counters(void);
/* Whether the host is a coverage build (it hands over dump_counters only then). */
bool sbx__js_host_counts_coverage(void);
#ifdef __cplusplus
}
#endif

/* Returns the module's table, or NULL when abi is not the module's. */
typedef const struct sbx__js_module *sbx__js_module_open_fn(unsigned abi,
                                                            const struct sbx__js_host *host);

/* Loads the module once per process. false: err says which path failed and why (dlerror). */
bool sbx__js_module_load(char *err, size_t errlen);

/* Loads the module and has it write its stencil file to out (src/js/gen/stencil.c). */
bool sbx__js_write_stencil(const char *out, char *err, size_t errlen);

/* For tests: the module's sbx__js_self_hosted_status (NULL before the module loaded). */
const char *sbx__js_test_self_hosted_status(void);

#endif

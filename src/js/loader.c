/* js/loader.c: loads the engine module (js/module.h) on first use and forwards js/engine.h's
 * calls to it. Where the module is, core decides (core/engine_module.c). */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/backend.h"
#include "core/engine_module.h"
#include "core/exit.h"
#include "js/module.h"
#include "util/alloc.h"

#define STENCIL_MAX (64 << 20) /* a larger file is not one of ours (they are about 300 KB) */

/* dump_counters is set at load, in coverage builds only (core/exit.h). */
static struct sbx__js_host host = {
    .calloc = sbx__calloc,
    .mallocn = sbx__mallocn,
    .reallocn = sbx__reallocn,
    .strndup = sbx__strndup,
    .free = sbx__free,
    .now_ns = sbx__now_ns,
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const struct sbx__js_module *mod;
static char load_error[PATH_MAX + 200];

/* The stencil file beside the module at p, when it is as trusted as the module (never freed:
 * the engine decodes from it for the process's life); NULL when there is none. */
static const uint8_t *read_stencil(const char *p, size_t *len)
{
    char file[PATH_MAX];
    if (!sbx__engine_stencil_path(p, file, sizeof(file)))
        return NULL;
    struct stat st;
    FILE *f = sbx__engine_module_is_trusted(file) ? fopen(file, "rbe") : NULL;
    uint8_t *data = NULL;
    if (f && fstat(fileno(f), &st) == 0 && st.st_size > 0 && st.st_size < STENCIL_MAX)
        data = sbx__mallocn(1, (size_t)st.st_size);
    *len = data ? fread(data, 1, (size_t)st.st_size, f) : 0;
    if (f)
        fclose(f);
    return data;
}

static void load(void)
{
    const char *p = sbx__engine_module_path();
    void *lib = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(load_error, sizeof(load_error),
                 "worker tier: cannot load the engine module %s: %s", p,
                 why ? why : "unknown error");
        return;
    }
    sbx__js_module_open_fn *open_fn = (sbx__js_module_open_fn *)dlsym(lib, SBX_JS_MODULE_OPEN);
    /* libsbx's own counters, for an engine leaving by _exit: the module's libgcov has its own */
    host.dump_counters = sbx__exit_counts_coverage() ? sbx__exit_dump_counters : NULL;
    mod = open_fn ? open_fn(SBX_JS_MODULE_ABI, &host) : NULL;
    if (mod) {
        size_t len = 0;
        const uint8_t *stencil = read_stencil(p, &len);
        if (!mod->self_hosted_offer(stencil, len))
            sbx__free((void *)stencil);
    }
    if (!mod)
        snprintf(load_error, sizeof(load_error),
                 "worker tier: the engine module %s is not this libsbx's (no %s of ABI %d)", p,
                 SBX_JS_MODULE_OPEN, SBX_JS_MODULE_ABI);
}

bool sbx__js_module_load(char *err, size_t errlen)
{
    pthread_once(&load_once, load);
    if (!mod && err && errlen)
        snprintf(err, errlen, "%s", load_error);
    return mod != NULL;
}

static bool loaded(void)
{
    return sbx__js_module_load(NULL, 0);
}

void sbx__js_test_deaf_ms(unsigned ms)
{
    if (loaded())
        mod->test_deaf_ms(ms);
}

bool sbx__js_can_throttle(void)
{
    return loaded() && mod->can_throttle();
}

struct sbx__js_engine *sbx__js_engine_create(void)
{
    return loaded() ? mod->engine_create() : NULL;
}

void sbx__js_engine_destroy(struct sbx__js_engine *e)
{
    if (e) /* only a loaded module makes engines */
        mod->engine_destroy(e);
}

void sbx__js_engine_run(struct sbx__js_engine *e, const struct sbx__js_eval_in *in,
                        struct sbx__js_eval_out *out)
{
    if (loaded()) {
        mod->engine_run(e, in, out);
        return;
    }
    out->error = SBX_E_UNAVAILABLE;
    out->message = sbx__strdup(load_error);
    if (in->on_done)
        in->on_done(in->on_done_arg);
}

struct sbx__js_script *sbx__js_script_new(const char *name, const char *source, size_t len)
{
    return loaded() ? mod->script_new(name, source, len) : NULL;
}

void sbx__js_script_ref(struct sbx__js_script *s)
{
    if (s) /* only a loaded module makes scripts */
        mod->script_ref(s);
}

void sbx__js_script_release(struct sbx__js_script *s)
{
    if (s)
        mod->script_release(s);
}

void sbx__js_claim_jit(bool jit)
{
    if (loaded())
        (void)mod->jit_claim(jit);
}

void sbx__js_eval(const struct sbx__js_eval_in *in, struct sbx__js_eval_out *out)
{
    sbx__js_claim_jit(in->jit); /* before the engine starts: the first run picks its mode */
    sbx__js_engine_run(sbx__js_engine_create(), in, out);
}

void sbx__js_eval_out_init(struct sbx__js_eval_out *out, uint64_t max_output_bytes)
{
    memset(out, 0, sizeof(*out));
    size_t cap = max_output_bytes > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)max_output_bytes;
    sbx__buf_init(&out->out, cap);
    sbx__buf_init(&out->err, cap);
}

void sbx__js_eval_out_free(struct sbx__js_eval_out *out)
{
    sbx__free(out->message);
    sbx__free(out->value_json);
    sbx__free(out->stack);
    sbx__buf_free(&out->out);
    sbx__buf_free(&out->err);
    memset(out, 0, sizeof(*out));
}

bool sbx__js_write_stencil(const char *out, char *err, size_t errlen)
{
    return sbx__js_module_load(err, errlen) && mod->self_hosted_write(out, err, errlen);
}

const char *sbx__js_test_self_hosted_status(void)
{
    return mod ? mod->self_hosted_status() : NULL;
}

/* js/loader.c: loads the engine module (js/module.h) on first use and forwards js/engine.h's
 * calls to it. Where it looks (docs/worker.md, Engine module): next to a shared libsbx
 * (<its dir>/sbx/libsbx-js.so), the jail's bind, then the build tree and the install path
 * compiled in; never the current directory or the environment. A candidate that someone other
 * than root or this user could replace (its file or directory writable by group or others, or
 * owned by another user) is skipped. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/backend.h"
#include "js/module.h"
#include "js_module_path.h" /* generated: SBX_JS_MODULE_BUILD, SBX_JS_MODULE_INSTALL */
#include "util/alloc.h"

#define MODULE_NAME "libsbx-js.so"
#define STENCIL_MAX (64 << 20) /* a larger file is not one of ours (they are about 300 KB) */

#ifdef SBX_COVERAGE
void __gcov_dump(void);
#define DUMP_COUNTERS                                                                              \
    __gcov_dump /* libsbx's own counters: the module's libgcov has only its own                    \
                 */
#else
#define DUMP_COUNTERS NULL
#endif

static const struct sbx__js_host host = {
    .calloc = sbx__calloc,
    .mallocn = sbx__mallocn,
    .reallocn = sbx__reallocn,
    .strndup = sbx__strndup,
    .free = sbx__free,
    .now_ns = sbx__now_ns,
    .dump_counters = DUMP_COUNTERS,
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static pthread_once_t path_once = PTHREAD_ONCE_INIT;
static const struct sbx__js_module *mod;
static char path[PATH_MAX];
static char load_error[PATH_MAX + 200];

/* Whether uid is the kernel's overflow uid standing for an owner this user namespace does not
 * map (inside the process tier's jail, root's files show so): no one in here can change it. */
static bool is_unmapped_owner(uid_t uid)
{
    unsigned long overflow = 0, in, out, count;
    FILE *f = fopen("/proc/sys/kernel/overflowuid", "re");
    bool ok = f && fscanf(f, "%lu", &overflow) == 1 && overflow == uid;
    if (f)
        fclose(f);
    f = ok ? fopen("/proc/self/uid_map", "re") : NULL;
    if (!f)
        return false;
    while (ok && fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3)
        ok = !(uid >= in && uid - in < count);
    fclose(f);
    return ok;
}

static bool is_trusted(const struct stat *st)
{
    bool owner_ok = st->st_uid == 0 || st->st_uid == geteuid() || is_unmapped_owner(st->st_uid);
    return owner_ok && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

bool sbx__js_module_is_trusted(const char *p)
{
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISREG(st.st_mode) || !is_trusted(&st))
        return false;
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", p);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return false;
    *slash = '\0';
    return stat(dir, &st) == 0 && is_trusted(&st);
}

/* <dir of libsbx.so>/sbx/libsbx-js.so when this code is in a shared libsbx, else "". */
static void beside_shared_lib(char *out, size_t outlen)
{
    Dl_info info;
    out[0] = '\0';
    if (!dladdr((void *)sbx__js_module_load, &info) || !info.dli_fname)
        return;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash || strncmp(slash + 1, "libsbx.so", 9) != 0)
        return;
    snprintf(out, outlen, "%.*s/sbx/" MODULE_NAME, (int)(slash - info.dli_fname), info.dli_fname);
}

static void find_path(void)
{
    if (path[0])
        return; /* set by a test */
    char beside[PATH_MAX];
    beside_shared_lib(beside, sizeof(beside));
    const char *const candidates[] = {beside, SBX_JS_MODULE_JAIL, SBX_JS_MODULE_BUILD,
                                      SBX_JS_MODULE_INSTALL};
    snprintf(path, sizeof(path), "%s", SBX_JS_MODULE_INSTALL);
    for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
        if (candidates[i][0] && sbx__js_module_is_trusted(candidates[i])) {
            snprintf(path, sizeof(path), "%s", candidates[i]);
            return;
        }
    }
}

void sbx__js_test_module_path(const char *p)
{
    snprintf(path, sizeof(path), "%s", p);
}

const char *sbx__js_module_path(void)
{
    pthread_once(&path_once, find_path);
    return path;
}

/* The stencil file beside the module at p, when it is as trusted as the module (never freed:
 * the engine decodes from it for the process's life); NULL when there is none. */
static const uint8_t *read_stencil(const char *p, size_t *len)
{
    char file[PATH_MAX];
    const char *slash = strrchr(p, '/');
    if (!slash || snprintf(file, sizeof(file), "%.*s/" SBX_JS_STENCIL_NAME, (int)(slash - p), p) >=
                      (int)sizeof(file))
        return NULL;
    struct stat st;
    FILE *f = sbx__js_module_is_trusted(file) ? fopen(file, "rbe") : NULL;
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
    const char *p = sbx__js_module_path();
    void *lib = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(load_error, sizeof(load_error),
                 "worker tier: cannot load the engine module %s: %s", p,
                 why ? why : "unknown error");
        return;
    }
    sbx__js_module_open_fn *open_fn = (sbx__js_module_open_fn *)dlsym(lib, SBX_JS_MODULE_OPEN);
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

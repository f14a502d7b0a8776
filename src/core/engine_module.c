/* core/engine_module.c: locates the engine module (core/engine_module.h; docs/worker.md, Engine
 * module). A candidate that someone other than root or this user could replace (its file or
 * directory writable by group or others, or owned by another user) is skipped. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/engine_module.h"
#include "js_module_path.h" /* generated: SBX_JS_MODULE_BUILD, SBX_JS_MODULE_INSTALL */

#define MODULE_NAME "libsbx-js.so"

static pthread_once_t path_once = PTHREAD_ONCE_INIT;
static char path[PATH_MAX];

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

bool sbx__engine_module_is_trusted(const char *p)
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
    if (!dladdr((void *)sbx__engine_module_path, &info) || !info.dli_fname)
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
        if (candidates[i][0] && sbx__engine_module_is_trusted(candidates[i])) {
            snprintf(path, sizeof(path), "%s", candidates[i]);
            return;
        }
    }
}

void sbx__engine_test_module_path(const char *p)
{
    snprintf(path, sizeof(path), "%s", p);
}

const char *sbx__engine_module_path(void)
{
    pthread_once(&path_once, find_path);
    return path;
}

bool sbx__engine_stencil_path(const char *module, char *out, size_t cap)
{
    const char *slash = strrchr(module, '/');
    if (!slash)
        return false;
    int n = snprintf(out, cap, "%.*s/" SBX_JS_STENCIL_NAME, (int)(slash - module), module);
    return n > 0 && (size_t)n < cap;
}

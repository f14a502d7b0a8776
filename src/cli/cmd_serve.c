/* cli/cmd_serve.c: `sbx serve` and `sbx __serve-runner`, the only part of the service inside
 * the sbx binary. The service (and its
 * runners) live in a module, libsbx-serve.so, loaded here on `sbx serve`: linked into sbx,
 * libmicrohttpd, libcurl and libcrypto would cost every sbx process (the CLI, each jailed
 * sbx-js guest) about 5 ms of loading (measured: 0.6 -> 5.9 ms CPU for an empty program).
 * The module finds libsbx's public functions in this executable (exported sbx_* symbols). It
 * is looked for at the build tree's path, then the install path (compiled in), never in the
 * current directory or the environment, and only if no one but root or this user can change
 * it. */
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

/* The module's one exported function (src/serve/main.c defines it). */
#define SERVE_MODULE_ENTRY "sbx_serve_module_entry"
typedef int (*serve_module_entry_fn)(int argc, char **argv, bool is_runner);

#ifndef SBX_SERVE_MODULE_BUILD
#define SBX_SERVE_MODULE_BUILD ""
#endif
#ifndef SBX_SERVE_MODULE_INSTALL
#define SBX_SERVE_MODULE_INSTALL "/usr/local/lib/sbx/libsbx-serve.so"
#endif
/* Runners load their own module: their objects and jansson only. The jails a runner clones copy
 * its mappings, and the service's libraries (libcurl's alone bring ~30) cost ~0.8 ms a run. */
#ifndef SBX_SERVE_RUNNER_BUILD
#define SBX_SERVE_RUNNER_BUILD ""
#endif
#ifndef SBX_SERVE_RUNNER_INSTALL
#define SBX_SERVE_RUNNER_INSTALL "/usr/local/lib/sbx/libsbx-serve-runner.so"
#endif

static bool is_safe(const char *path, bool is_dir)
{
    struct stat st;
    return stat(path, &st) == 0 && (st.st_uid == 0 || st.st_uid == geteuid()) &&
           !(st.st_mode & (S_IWGRP | S_IWOTH)) &&
           (is_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

/* The file and its directory: no one but root or this user can replace it. */
static bool is_trusted(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return false;
    *slash = '\0';
    return is_safe(path, false) && is_safe(dir, true);
}

static int load_and_run(int argc, char **argv, bool is_runner)
{
    const char *const server[] = {SBX_SERVE_MODULE_BUILD, SBX_SERVE_MODULE_INSTALL};
    const char *const runner[] = {SBX_SERVE_RUNNER_BUILD, SBX_SERVE_RUNNER_INSTALL};
    const char *const *candidates = is_runner ? runner : server;
    void *handle = NULL;
    const char *tried = candidates[1];
    for (size_t i = 0; !handle && i < 2; i++) {
        if (!candidates[i][0] || !is_trusted(candidates[i]))
            continue;
        tried = candidates[i];
        handle = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
    }
    serve_module_entry_fn entry =
        handle ? (serve_module_entry_fn)dlsym(handle, SERVE_MODULE_ENTRY) : NULL;
    if (!entry) {
        fprintf(stderr, "sbx: serve: cannot load the service module %s: %s\n", tried,
                handle      ? "no entry point"
                : dlerror() ? dlerror()
                            : "missing or not trusted");
        return 2;
    }
    return entry(argc, argv, is_runner);
}

int cli_serve(int argc, char **argv)
{
    return load_and_run(argc, argv, false);
}

int cli_serve_runner(int argc, char **argv)
{
    return load_and_run(argc, argv, true);
}

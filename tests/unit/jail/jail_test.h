/* tests/unit/jail/jail_test.h: helpers shared by the process tier's Check suites: policies from
 * JSON, command and script runs through the public API, host-side temp dirs. */
#ifndef SBX_JAIL_TEST_H
#define SBX_JAIL_TEST_H

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sbx.h>

#include "sbx_test.h"

static inline sbx_sandbox *jt_sandbox(const char *policy_json)
{
    return sbx_test_sandbox(SBX_BACKEND_PROCESS, policy_json);
}

static inline sbx_err jt_run_argv(sbx_sandbox *sb, const char *const *argv, sbx_result *r)
{
    sbx_run_input in = {.argv = argv};
    return sbx_sandbox_run(sb, &in, r);
}

/* Runs `sh -c script` in the jail. */
static inline sbx_err jt_sh(sbx_sandbox *sb, const char *script, sbx_result *r)
{
    const char *argv[] = {"sh", "-c", script, NULL};
    return jt_run_argv(sb, argv, r);
}

static inline sbx_err jt_script(sbx_sandbox *sb, const char *interp, const char *code,
                                const char *ctx, sbx_result *r)
{
    sbx_run_input in = {
        .code = code, .code_len = strlen(code), .interpreter = interp, .context_json = ctx};
    return sbx_sandbox_run(sb, &in, r);
}

static inline const char *jt_out(const sbx_result *r)
{
    return r->stdout_data ? r->stdout_data : "";
}

/* Makes a fresh 0755 directory under /tmp (the caller removes it with jt_rmrf). */
static inline void jt_tempdir(char out[PATH_MAX], const char *tag)
{
    snprintf(out, PATH_MAX, "/tmp/sbx-jt-%s-XXXXXX", tag);
    ck_assert_ptr_nonnull(mkdtemp(out));
    ck_assert_int_eq(chmod(out, 0755), 0);
}

static inline void jt_rmrf(const char *dir)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static inline bool jt_have(const char *path)
{
    return access(path, X_OK) == 0;
}

/* Points SBX_GUEST_BINARY at this build's sbx (<build>/tests/unit/jail/test_x -> <build>/sbx)
 * unless the caller set it. */
static inline void jt_guest_binary(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (getenv("SBX_GUEST_BINARY") || n <= 0)
        return;
    self[n] = '\0';
    for (int i = 0; i < 4; i++) {
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
    }
    char guest[PATH_MAX + 8];
    snprintf(guest, sizeof(guest), "%s/sbx", self);
    setenv("SBX_GUEST_BINARY", guest, 1);
}

#endif

/* cli/guest_js.c: `sbx __js-guest --policy FILE SCRIPT`, sbx's JavaScript engine as the process
 * tier's default interpreter. It runs inside the jail (started from a sealed memfd), reads the
 * context JSON on stdin, runs SCRIPT in the worker tier under the same policy, so both tiers
 * give the same result, prints the guest's stdout/stderr as written, and sends ok, error, message,
 * value and truncation as "<key>:<length>:<bytes>" records on fd 3. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

#define RESULT_FD      3
#define MAX_CONTEXT    (64u << 20)
#define EXIT_GUEST_BAD 125

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

static int record(int fd, const char *key, const char *val, size_t len)
{
    char head[64];
    int n = snprintf(head, sizeof(head), "%s:%zu:", key, len);
    return write_all(fd, head, (size_t)n) == 0 && write_all(fd, val, len) == 0 ? 0 : -1;
}

static int send_result(const sbx_result *r)
{
    int fd = RESULT_FD;
    if (fcntl(fd, F_GETFD) < 0)
        fd = STDOUT_FILENO; /* run by hand, outside the jail */
    const char *msg = r->error_message ? r->error_message : "";
    int rc = record(fd, "ok", r->ok ? "1" : "0", 1);
    if (!r->ok) {
        const char *name = sbx_err_name(r->error);
        rc |= record(fd, "error", name, strlen(name));
        rc |= record(fd, "message", msg, strlen(msg));
        if (r->error_stack)
            rc |= record(fd, "stack", r->error_stack, strlen(r->error_stack));
    }
    if (r->value_json)
        rc |= record(fd, "value", r->value_json, strlen(r->value_json));
    rc |= record(fd, "stdout_truncated", r->stdout_truncated ? "1" : "0", 1);
    rc |= record(fd, "stderr_truncated", r->stderr_truncated ? "1" : "0", 1);
    return rc;
}

/* Reads the context from stdin into *ctx (NULL when empty: the run had none). Returns 0, 1 when
 * it is over MAX_CONTEXT, -1 when stdin could not be read (message printed). */
static int read_context(char **ctx)
{
    size_t len = 0;
    *ctx = cli_read_file("-", &len);
    if (!*ctx)
        return -1;
    if (len == 0 || len > MAX_CONTEXT) {
        free(*ctx);
        *ctx = NULL;
    }
    return len > MAX_CONTEXT ? 1 : 0;
}

/* A context too large to read is the run's error, not a silent `null` context. */
static int refuse_context(void)
{
    char msg[64];
    snprintf(msg, sizeof(msg), "context is over %u MiB", MAX_CONTEXT >> 20);
    sbx_result r = {.ok = false, .error = SBX_E_INVALID_ARGUMENT, .error_message = msg};
    return send_result(&r) == 0 ? 0 : EXIT_GUEST_BAD;
}

/* The guest's output goes out as it is written, so the host streams it too (on_output). */
static void stream_output(void *user, sbx_stream stream, const char *data, size_t len)
{
    int *rc = user;
    *rc |= write_all(stream == SBX_STREAM_STDERR ? STDERR_FILENO : STDOUT_FILENO, data, len);
}

static int run_guest(sbx_policy *policy, const char *code, size_t code_len, const char *ctx)
{
    sbx_sandbox *sb = NULL;
    sbx_err e = sbx_sandbox_create(SBX_BACKEND_WORKER, policy, &sb);
    if (e) {
        fprintf(stderr, "sbx: __js-guest: worker tier: %s\n", sbx_err_message(e));
        return EXIT_GUEST_BAD;
    }
    int rc = 0;
    sbx_run_input in = {.code = code,
                        .code_len = code_len,
                        .context_json = ctx,
                        .on_output = stream_output,
                        .on_output_user = &rc};
    sbx_result r;
    sbx_sandbox_run(sb, &in, &r);
    rc |= send_result(&r);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    return rc == 0 ? 0 : EXIT_GUEST_BAD;
}

#ifdef SBX_COVERAGE
/* Coverage builds count this guest too, where its build tree is in sight: not in a jail, where
 * the attempt would fill the guest's stderr with libgcov's complaints. It leaves through exit
 * there, whose handlers bring the worker pool, the engine and its watchdog to rest before
 * libgcov writes the counters: a dump while they run breaks gcov's counts (issue 15). */
static void cov_exit(int rc)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash = n > 0 ? memrchr(exe, '/', (size_t)n) : NULL;
    if (!slash)
        return;
    *slash = '\0';
    if (access(exe, W_OK) == 0)
        exit(rc);
}
#else
static void cov_exit(int rc)
{
    (void)rc;
}
#endif

int cli_js_guest(int argc, char **argv)
{
    if (argc != 4 || strcmp(argv[1], "--policy") != 0)
        return cli_usage_error("__js-guest", "usage: sbx __js-guest --policy FILE SCRIPT");
    sbx_policy *policy = cli_policy_load(argv[2]);
    if (!policy)
        return EXIT_GUEST_BAD;
    size_t code_len = 0;
    char *code = cli_read_file(argv[3], &code_len);
    char *ctx = NULL;
    int got = code ? read_context(&ctx) : -1;
    int rc = got < 0    ? EXIT_GUEST_BAD
             : got == 1 ? refuse_context()
                        : run_guest(policy, code, code_len, ctx);
    free(code);
    free(ctx);
    sbx_policy_destroy(policy);
    /* Inside the jail ptrace is denied, so a sanitizer build's exit-time leak check (which
     * stops the world with ptrace) would fail the run: leave without atexit handlers. */
    fflush(stdout);
    fflush(stderr);
    cov_exit(rc);
    _exit(rc);
}

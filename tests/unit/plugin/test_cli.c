/* test_cli.c: `sbx wasm` and `sbx conformance` as a user runs them: exit statuses (guest code,
 * 124 timeout, 134 trap, 125 sbx failure, 2 usage), stdio pass-through, policy options and
 * --invoke. Runs the sbx binary of this build on the compiled guests. */
#include <check.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sbx_test.h"

static char sbx_path[4096], guest_dir[4096];

/* Runs sbx with args (a NULL-terminated list), capturing stdout (and stderr) into out. Returns
 * the exit status. */
static int sbx(char *out, size_t cap, const char *const *args)
{
    int pipefd[2];
    ck_assert_int_eq(pipe(pipefd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(pipefd[1], 1);
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        const char *argv[32] = {sbx_path};
        for (size_t i = 0; args[i] && i < 30; i++)
            argv[i + 1] = args[i];
        execv(sbx_path, (char *const *)argv);
        _exit(99);
    }
    close(pipefd[1]);
    size_t len = 0;
    ssize_t n;
    while (len + 1 < cap && (n = read(pipefd[0], out + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = '\0';
    close(pipefd[0]);
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static const char *guest(const char *name)
{
    static char path[2][4200];
    static int which;
    which ^= 1;
    snprintf(path[which], sizeof(path[which]), "%s/%s.wasm", guest_dir, name);
    return path[which];
}

START_TEST(exit_codes_follow_wasmtime)
{
    char out[8192];
    const char *cmd = guest("command");
    ck_assert_int_eq(sbx(out, sizeof(out), (const char *[]){"wasm", cmd, NULL}), 0);
    ck_assert_ptr_nonnull(strstr(out, "argv[0]="));
    ck_assert_int_eq(sbx(out, sizeof(out), (const char *[]){"wasm", cmd, "7", NULL}), 7);
    /* An infinite loop in a reactor export: timeout 124, fuel 134. */
    ck_assert_int_eq(sbx(out, sizeof(out),
                         (const char *[]){"wasm", "--timeout-ms", "100", "--invoke", "fib",
                                          guest("reactor"), "2000000000", NULL}),
                     124);
    ck_assert_ptr_nonnull(strstr(out, "SANDBOX_TIMEOUT"));
    ck_assert_int_eq(sbx(out, sizeof(out),
                         (const char *[]){"wasm", "--fuel", "1000", "--invoke", "fib",
                                          guest("reactor"), "2000000000", NULL}),
                     134);
    ck_assert_ptr_nonnull(strstr(out, "SAND_WASM_FUEL_EXHAUSTED"));
    ck_assert_int_eq(sbx(out, sizeof(out), (const char *[]){"wasm", "/nonexistent.wasm", NULL}),
                     125);
    ck_assert_int_eq(sbx(out, sizeof(out), (const char *[]){"wasm", "--bogus", cmd, NULL}), 2);
    ck_assert_int_eq(sbx(out, sizeof(out), (const char *[]){"wasm", NULL}), 2);
    ck_assert_int_eq(sbx(out, sizeof(out), (const char *[]){"wasm", "--dir", "", cmd, NULL}), 125);
    ck_assert_int_eq(sbx(out, sizeof(out), (const char *[]){"wasm", "--fuel", "lots", cmd, NULL}),
                     2);
}
END_TEST

START_TEST(trap_denial_and_bad_module)
{
    char out[8192];
    ck_assert_int_eq(sbx(out, sizeof(out),
                         (const char *[]){"wasm", "--invoke", "crash", guest("reactor"), NULL}),
                     134);
    ck_assert_ptr_nonnull(strstr(out, "SAND_WASM_TRAP"));
    ck_assert_ptr_nonnull(strstr(out, "unreachable"));
    /* The reactor's twice() calls host.twice, which the CLI cannot offer: the denial stub
     * returns -76; a bad module instead is a 125. */
    ck_assert_int_eq(
        sbx(out, sizeof(out),
            (const char *[]){"wasm", "--invoke", "twice", guest("reactor"), "4", NULL}),
        0);
    ck_assert_str_eq(out, "-76\n");
    const char *bad = "/tmp/sbx-cli-test-bad.wasm";
    FILE *f = fopen(bad, "w");
    fputs("\0asm junk", f);
    fclose(f);
    ck_assert_int_eq(sbx(out, sizeof(out), (const char *[]){"wasm", bad, NULL}), 125);
    unlink(bad);
    /* alloc_mb of 64 MiB under a 1 MiB limit: malloc fails, no trap: prints -1, and sbx says
     * on stderr which cap refused the grow. */
    ck_assert_int_eq(sbx(out, sizeof(out),
                         (const char *[]){"wasm", "--memory-bytes", "1048576", "--invoke",
                                          "alloc_mb", guest("reactor"), "64", NULL}),
                     0);
    ck_assert_str_eq(out, "sbx: wasm: memory.grow or table.grow refused: the policy caps memory "
                          "at 1 MiB (memoryBytes)\n-1\n");
}
END_TEST

START_TEST(policy_options_reach_the_guest)
{
    char out[8192];
    char dir[] = "/tmp/sbx-cli-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char grant[128];
    snprintf(grant, sizeof(grant), "rw:%s::/out", dir);
    ck_assert_int_eq(sbx(out, sizeof(out),
                         (const char *[]){"wasm", "--env", "MODE=cli", "--dir", grant,
                                          guest("command"), "0", NULL}),
                     0);
    ck_assert_ptr_nonnull(strstr(out, "MODE=cli\n"));
    ck_assert_ptr_nonnull(strstr(out, "out: kept\n"));
    char note[160];
    snprintf(note, sizeof(note), "%s/note.txt", dir);
    ck_assert_int_eq(access(note, F_OK), 0);
    unlink(note);
    rmdir(dir);
}
END_TEST

START_TEST(invoke_prints_typed_results)
{
    char out[8192];
    ck_assert_int_eq(sbx(out, sizeof(out),
                         (const char *[]){"wasm", "--invoke", "fib", guest("reactor"), "50", NULL}),
                     0);
    ck_assert_str_eq(out, "12586269025\n");
    ck_assert_int_eq(
        sbx(out, sizeof(out),
            (const char *[]){"wasm", "--invoke", "hypot2", guest("reactor"), "0.5", "1.5", NULL}),
        0);
    ck_assert_str_eq(out, "2.5\n");
    ck_assert_int_eq(sbx(out, sizeof(out),
                         (const char *[]){"wasm", "--invoke", "fib", guest("reactor"), "x", NULL}),
                     125);
}
END_TEST

START_TEST(conformance_command)
{
    char out[16384];
    ck_assert_int_eq(sbx(out, sizeof(out), (const char *[]){"conformance", NULL}), 0);
    ck_assert_ptr_nonnull(strstr(out, "conformance: 12 passed, 0 failed"));
    ck_assert_int_eq(sbx(out, sizeof(out), (const char *[]){"conformance", "--json", NULL}), 0);
    ck_assert_ptr_nonnull(strstr(out, "\"failed\":0"));
    ck_assert_int_eq(sbx(out, sizeof(out), (const char *[]){"conformance", "extra", NULL}), 2);
    ck_assert_int_eq(
        sbx(out, sizeof(out), (const char *[]){"conformance", "--policy", "/nonexistent", NULL}),
        125);
}
END_TEST

int main(int argc, char **argv)
{
    (void)argc;
    char self[4096];
    snprintf(self, sizeof(self), "%s", argv[0]);
    char *dir = dirname(self); /* BUILD/tests/unit/plugin */
    snprintf(guest_dir, sizeof(guest_dir), "%s/guests", dir);
    snprintf(sbx_path, sizeof(sbx_path), "%s/../../../sbx", dir);
    Suite *s = suite_create("plugin_cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, exit_codes_follow_wasmtime);
    tcase_add_test(tc, trap_denial_and_bad_module);
    tcase_add_test(tc, policy_options_reach_the_guest);
    tcase_add_test(tc, invoke_prints_typed_results);
    tcase_add_test(tc, conformance_command);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

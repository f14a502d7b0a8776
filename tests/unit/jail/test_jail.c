/* tests/unit/jail/test_jail.c: the process tier through the public API: exit statuses, the
 * seed's security cases (exit caught, /etc/passwd, infinite loop, huge output), grants, limits
 * (pids, memory), timeouts that kill setsid'd grandchildren, stdin context and environment. */
#include <fcntl.h>
#include <signal.h>

#include "jail_test.h"

START_TEST(test_exit_status)
{
    sbx_sandbox *sb = jt_sandbox("{}");
    sbx_result r;
    ck_assert_int_eq(jt_sh(sb, "echo out; echo err >&2; exit 3", &r), SBX_OK);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.error, SBX_E_EXECUTION_FAILED);
    ck_assert_int_eq(r.exit_code, 3);
    ck_assert_str_eq(jt_out(&r), "out\n");
    ck_assert_str_eq(r.stderr_data, "err\n");
    ck_assert_int_eq(r.backend, SBX_BACKEND_PROCESS);
    sbx_result_free(&r);
    ck_assert_int_eq(jt_sh(sb, "kill -TERM $$", &r), SBX_OK);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.signal, SIGTERM);
    ck_assert_int_eq(r.exit_code, -1);
    sbx_result_free(&r);
    ck_assert_int_eq(jt_sh(sb, "true", &r), SBX_OK);
    ck_assert(r.ok);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_int_eq(r.error, SBX_OK);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

START_TEST(test_exit_caught)
{
    sbx_sandbox *sb = jt_sandbox("{}");
    sbx_result r;
    ck_assert_int_eq(jt_script(sb, "python3", "import sys\nprint('a')\nsys.exit(4)", NULL, &r),
                     SBX_OK);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.exit_code, 4);
    ck_assert_int_eq(r.error, SBX_E_EXECUTION_FAILED);
    ck_assert_str_eq(jt_out(&r), "a\n");
    sbx_result_free(&r);
    if (jt_have("/usr/bin/node")) {
        ck_assert_int_eq(jt_script(sb, "node", "process.exit(5)", NULL, &r), SBX_OK);
        ck_assert_int_eq(r.exit_code, 5);
        ck_assert(!r.ok);
        sbx_result_free(&r);
    }
    sbx_sandbox_destroy(sb);
}
END_TEST

START_TEST(test_passwd_unreadable)
{
    sbx_sandbox *sb = jt_sandbox("{}");
    sbx_result r;
    ck_assert_int_eq(jt_script(sb, "python3", "print(open('/etc/passwd').read())", NULL, &r),
                     SBX_OK);
    ck_assert(!r.ok);
    ck_assert_ptr_nonnull(strstr(r.stderr_data, "No such file"));
    ck_assert_ptr_null(strstr(jt_out(&r), "root:"));
    sbx_result_free(&r);
    ck_assert_int_eq(jt_sh(sb, "ls /home /root /var 2>&1; cat /etc/passwd", &r), SBX_OK);
    ck_assert(!r.ok);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

START_TEST(test_infinite_loop_timeout)
{
    sbx_sandbox *sb = jt_sandbox("{\"timeoutMs\":300}");
    sbx_result r;
    ck_assert_int_eq(jt_sh(sb, "while :; do :; done", &r), SBX_OK);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.error, SBX_E_TIMEOUT);
    ck_assert_int_eq(r.limit, SBX_LIMIT_TIMEOUT);
    ck_assert_int_eq(r.signal, SIGKILL);
    ck_assert(r.duration_ms >= 290 && r.duration_ms < 1300);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

START_TEST(test_huge_output_bounded)
{
    sbx_sandbox *sb = jt_sandbox("{\"maxOutputBytes\":4096,\"timeoutMs\":20000}");
    sbx_result r;
    const char *code = "import sys\nfor i in range(200):\n    sys.stdout.write('x' * 262144)\n"
                       "sys.stderr.write('e' * 100000)\nraise Exception('y' * 1000000)";
    ck_assert_int_eq(jt_script(sb, "python3", code, NULL, &r), SBX_OK);
    ck_assert_uint_eq(r.stdout_len, 4096);
    ck_assert_uint_eq(r.stderr_len, 4096);
    ck_assert(r.stdout_truncated && r.stderr_truncated);
    ck_assert_int_eq(r.limit, SBX_LIMIT_OUTPUT);
    ck_assert_int_eq(r.exit_code, 1);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

START_TEST(test_grants_rw_and_ro)
{
    char rw[PATH_MAX], ro[PATH_MAX], json[3 * PATH_MAX], path[PATH_MAX + 16];
    jt_tempdir(rw, "rw");
    jt_tempdir(ro, "ro");
    ck_assert_int_eq(chmod(rw, 0777), 0);
    snprintf(path, sizeof(path), "%s/in", ro);
    FILE *f = fopen(path, "w");
    fputs("hello\n", f);
    fclose(f);
    snprintf(json, sizeof(json), "{\"fs\":[\"rw:%s::/w\",\"%s::/r\"]}", rw, ro);
    sbx_sandbox *sb = jt_sandbox(json);
    sbx_result r;
    ck_assert_int_eq(jt_sh(sb,
                           "cat /r/in > /w/out && ! (echo x > /r/new) 2>/dev/null && "
                           "! (echo x > /r/in) 2>/dev/null && ! rm /r/in 2>/dev/null",
                           &r),
                     SBX_OK);
    ck_assert_msg(r.ok, "%s %s", r.error_message, r.stderr_data);
    sbx_result_free(&r);
    snprintf(path, sizeof(path), "%s/out", rw);
    char buf[32] = "";
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
    fclose(f);
    ck_assert_str_eq(buf, "hello\n");
    snprintf(path, sizeof(path), "%s/new", ro);
    ck_assert_int_ne(access(path, F_OK), 0);
    sbx_sandbox_destroy(sb);
    jt_rmrf(rw);
    jt_rmrf(ro);
}
END_TEST

START_TEST(test_fork_bomb_held_by_pids)
{
    sbx_sandbox *sb = jt_sandbox("{\"pids\":8,\"timeoutMs\":10000}");
    sbx_result r;
    const char *code = "import os, time\nn = 0\nfor i in range(64):\n    try:\n"
                       "        if os.fork() == 0:\n            time.sleep(1)\n"
                       "            os._exit(0)\n        n += 1\n    except OSError:\n"
                       "        pass\nprint(n)";
    ck_assert_int_eq(jt_script(sb, "python3", code, NULL, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s %s", r.error_message, r.stderr_data);
    int forks = atoi(jt_out(&r));
    ck_assert_int_gt(forks, 0);
    ck_assert_int_lt(forks, 8);
    if (r.enforced & (SBX_ENFORCED_CGROUP_V1 | SBX_ENFORCED_CGROUP_V2))
        ck_assert_int_eq(r.limit, SBX_LIMIT_PIDS);
    else
        ck_assert(r.enforced & SBX_ENFORCED_RLIMIT);
    sbx_result_free(&r);
    ck_assert_int_eq(jt_sh(sb, ":(){ :|:& };:; sleep 1", &r), SBX_OK); /* the classic */
    ck_assert(r.duration_ms < 9000);
    sbx_result_free(&r);
    /* A guest that dies of the limit has it reported as the cause. */
    const char *bomb = "import os, time\nfor i in range(64):\n    if os.fork() == 0:\n"
                       "        time.sleep(1)\n        os._exit(0)\n";
    ck_assert_int_eq(jt_script(sb, "python3", bomb, NULL, &r), SBX_OK);
    ck_assert(!r.ok);
    if (r.enforced & (SBX_ENFORCED_CGROUP_V1 | SBX_ENFORCED_CGROUP_V2)) {
        ck_assert_msg(r.error == SBX_E_PIDS_LIMIT, "%s", sbx_err_name(r.error));
        ck_assert_int_eq(r.limit, SBX_LIMIT_PIDS);
    } else {
        ck_assert_int_eq(r.error, SBX_E_EXECUTION_FAILED);
    }
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

START_TEST(test_memory_bomb)
{
    sbx_sandbox *sb = jt_sandbox("{\"memoryBytes\":33554432,\"timeoutMs\":10000}");
    sbx_result r;
    const char *code = "x = []\nwhile True:\n    x.append(bytearray(1 << 20))";
    ck_assert_int_eq(jt_script(sb, "python3", code, NULL, &r), SBX_OK);
    ck_assert(!r.ok);
    if (r.enforced & (SBX_ENFORCED_CGROUP_V1 | SBX_ENFORCED_CGROUP_V2)) {
        ck_assert_int_eq(r.error, SBX_E_MEMORY_LIMIT);
        ck_assert_int_eq(r.limit, SBX_LIMIT_MEMORY);
    } else {
        ck_assert(r.enforced & SBX_ENFORCED_RLIMIT);
        ck_assert_ptr_nonnull(strstr(r.stderr_data, "MemoryError"));
    }
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

static off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* A setsid'd, backgrounded grandchild writes a heartbeat into a writable grant; once the run
 * ends (timeout, or the main process exits), the heartbeat must stop. */
START_TEST(test_grandchild_gone)
{
    char dir[PATH_MAX], json[PATH_MAX + 64], beat[PATH_MAX + 8];
    jt_tempdir(dir, "beat");
    ck_assert_int_eq(chmod(dir, 0777), 0);
    snprintf(json, sizeof(json), "{\"timeoutMs\":600,\"fs\":[\"rw:%s::/w\"]}", dir);
    snprintf(beat, sizeof(beat), "%s/beat", dir);
    sbx_sandbox *sb = jt_sandbox(json);
    const char *scripts[] = {
        "setsid sh -c 'while :; do echo x >> /w/beat; sleep 0.02; done' & sleep 30",
        "(setsid sh -c 'while :; do echo x >> /w/beat; sleep 0.02; done' &); sleep 0.2; exit 0",
    };
    for (int i = 0; i < 2; i++) {
        unlink(beat);
        sbx_result r;
        ck_assert_int_eq(jt_sh(sb, scripts[i], &r), SBX_OK);
        ck_assert_int_eq(r.error, i == 0 ? SBX_E_TIMEOUT : SBX_OK);
        sbx_result_free(&r);
        off_t before = file_size(beat);
        ck_assert_int_gt(before, 0);
        usleep(300 * 1000);
        ck_assert_int_eq(file_size(beat), before);
    }
    sbx_sandbox_destroy(sb);
    jt_rmrf(dir);
}
END_TEST

START_TEST(test_context_on_stdin)
{
    sbx_sandbox *sb = jt_sandbox("{}");
    size_t n = 1 << 20;
    char *ctx = malloc(n + 16);
    memcpy(ctx, "{\"s\":\"", 6);
    memset(ctx + 6, 'a', n);
    memcpy(ctx + 6 + n, "\"}", 3);
    sbx_result r;
    const char *code = "import json, sys\nprint(len(json.load(sys.stdin)['s']))";
    ck_assert_int_eq(jt_script(sb, "python3", code, ctx, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.stderr_data);
    ck_assert_str_eq(jt_out(&r), "1048576\n");
    sbx_result_free(&r);
    ck_assert_int_eq(jt_script(sb, "python3", "import sys\nprint(sys.stdin.read())", NULL, &r),
                     SBX_OK);
    ck_assert_str_eq(jt_out(&r), "null\n");
    sbx_result_free(&r);
    free(ctx);
    sbx_sandbox_destroy(sb);
}
END_TEST

START_TEST(test_environment_is_policy_env)
{
    setenv("SBX_HOST_SECRET", "leak", 1);
    sbx_sandbox *sb = jt_sandbox("{\"env\":{\"A\":\"1\",\"B\":\"two words\"}}");
    const char *argv[] = {"/usr/bin/env", NULL};
    sbx_result r;
    ck_assert_int_eq(jt_run_argv(sb, argv, &r), SBX_OK);
    ck_assert(r.ok);
    ck_assert_ptr_nonnull(strstr(jt_out(&r), "A=1\n"));
    ck_assert_ptr_nonnull(strstr(jt_out(&r), "B=two words\n"));
    ck_assert_ptr_null(strstr(jt_out(&r), "SBX_HOST_SECRET"));
    ck_assert_ptr_null(strstr(jt_out(&r), "PATH="));
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

START_TEST(test_command_errors)
{
    sbx_sandbox *sb = jt_sandbox("{}");
    const char *argv[] = {"no-such-command-sbx", NULL};
    sbx_result r;
    ck_assert_int_eq(jt_run_argv(sb, argv, &r), SBX_OK);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.exit_code, 127);
    ck_assert_ptr_nonnull(strstr(r.error_message, "no-such-command-sbx"));
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    sb = jt_sandbox("{\"fs\":[\"/no/such/dir/for/sbx\"]}");
    ck_assert_int_eq(jt_sh(sb, "true", &r), SBX_E_INVALID_OPTIONS);
    ck_assert_ptr_nonnull(strstr(r.error_message, "/no/such/dir/for/sbx"));
    sbx_result_free(&r);
    if (geteuid() == 0) { /* root jails reach grants as nobody: a 0700 parent stops them */
        char dir[PATH_MAX], json[PATH_MAX + 64], sub[PATH_MAX + 8];
        jt_tempdir(dir, "private");
        ck_assert_int_eq(chmod(dir, 0700), 0);
        snprintf(sub, sizeof(sub), "%s/sub", dir);
        ck_assert_int_eq(mkdir(sub, 0755), 0);
        snprintf(json, sizeof(json), "{\"fs\":[\"%s::/x\"]}", sub);
        sbx_sandbox *priv = jt_sandbox(json);
        ck_assert_int_eq(jt_sh(priv, "ls /x", &r), SBX_E_INVALID_OPTIONS);
        ck_assert_ptr_nonnull(strstr(r.error_message, "65534"));
        sbx_result_free(&r);
        sbx_sandbox_destroy(priv);
        jt_rmrf(dir);
    }
    sbx_run_input both = {.code = "x", .code_len = 1, .argv = argv};
    ck_assert_int_eq(sbx_sandbox_run(sb, &both, &r), SBX_E_INVALID_ARGUMENT);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

START_TEST(test_enforced_bits)
{
    sbx_sandbox *sb = jt_sandbox("{}");
    sbx_result r;
    ck_assert_int_eq(jt_sh(sb, "true", &r), SBX_OK);
    ck_assert(r.enforced & SBX_ENFORCED_SECCOMP);
    ck_assert(r.enforced & SBX_ENFORCED_NETNS);
    int limits = !!(r.enforced & SBX_ENFORCED_CGROUP_V1) + !!(r.enforced & SBX_ENFORCED_CGROUP_V2) +
                 !!(r.enforced & SBX_ENFORCED_RLIMIT);
    ck_assert_int_eq(limits, 1);
    if (geteuid() == 0 && access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK) == 0 &&
        !getenv("SBX_JAIL_NO_CGROUP"))
        ck_assert(r.enforced & (SBX_ENFORCED_CGROUP_V1 | SBX_ENFORCED_CGROUP_V2));
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

/* cpuPercent 5 (cgroup cfs quota): a busy loop gets at most ~5% of one CPU over a second. */
START_TEST(test_cpu_percent)
{
    sbx_sandbox *sb = jt_sandbox("{\"cpuPercent\":5,\"timeoutMs\":10000}");
    sbx_result r;
    const char *code = "import time\nw = time.time(); c = time.process_time()\n"
                       "while time.time() - w < 1.0:\n    pass\n"
                       "print('%.3f' % ((time.process_time() - c) / (time.time() - w)))";
    ck_assert_int_eq(jt_script(sb, "python3", code, NULL, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.stderr_data);
    if (r.enforced & SBX_ENFORCED_CGROUP_V1)
        ck_assert_msg(atof(jt_out(&r)) <= 0.10, "cpu share %s", jt_out(&r));
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

/* net.outbound on a kernel without SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (5.19, stood in for
 * by $SBX_JAIL_KERNEL_RELEASE): the run fails, naming the field and the feature, and the guest
 * never starts. The control: the same policy, with a name pattern, runs on this kernel. */
START_TEST(test_outbound_unavailable)
{
    char dir[PATH_MAX], json[PATH_MAX + 128], mark[PATH_MAX + 8];
    jt_tempdir(dir, "outbound");
    ck_assert_int_eq(chmod(dir, 0777), 0);
    snprintf(json, sizeof(json), "{\"fs\":[\"rw:%s::/w\"],\"net\":{\"outbound\":[\"a.org:443\"]}}",
             dir);
    snprintf(mark, sizeof(mark), "%s/ran", dir);
    sbx_sandbox *sb = jt_sandbox(json);
    sbx_result r;
    setenv("SBX_JAIL_KERNEL_RELEASE", "5.18.0", 1);
    ck_assert_int_eq(jt_sh(sb, "echo x > /w/ran", &r), SBX_E_UNAVAILABLE);
    unsetenv("SBX_JAIL_KERNEL_RELEASE");
    ck_assert(!r.ok);
    ck_assert_int_eq(r.error, SBX_E_UNAVAILABLE);
    ck_assert_msg(strstr(r.error_message, "policy.net.outbound") != NULL, "%s", r.error_message);
    ck_assert_msg(strstr(r.error_message, "WAIT_KILLABLE_RECV") != NULL, "%s", r.error_message);
    ck_assert_int_ne(access(mark, F_OK), 0);
    sbx_result_free(&r);
    ck_assert_int_eq(jt_sh(sb, "echo x > /w/ran", &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_int_eq(access(mark, F_OK), 0);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    jt_rmrf(dir);
}
END_TEST

/* The jail's pid 1 is a fork of the host program: its cmdline and comm would show the host's
 * binary and arguments (paths, tokens) to every guest. Both read sbx-init. */
START_TEST(test_init_argv_neutral)
{
    sbx_sandbox *sb = jt_sandbox("{}");
    sbx_result r;
    ck_assert_int_eq(jt_sh(sb, "tr '\\0' '|' < /proc/1/cmdline; echo; cat /proc/1/comm", &r),
                     SBX_OK);
    ck_assert_msg(r.ok, "%s %s", r.error_message, r.stderr_data);
    ck_assert_str_eq(jt_out(&r), "sbx-init|\nsbx-init\n");
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

/* The two-run attack: a guest with an rw: grant plants symlinks (to /etc, to /tmp, and through
 * a directory of its own); a later run granted a path through one of them would read the host's
 * /etc or write the host's /tmp. Every such grant is refused, naming it; a real directory the
 * first run made (the control) is granted and works. */
START_TEST(test_grant_through_planted_symlink)
{
    char dir[PATH_MAX], json[2 * PATH_MAX + 64];
    jt_tempdir(dir, "plant");
    ck_assert_int_eq(chmod(dir, 0777), 0);
    snprintf(json, sizeof(json), "{\"fs\":[\"rw:%s::/out\"]}", dir);
    sbx_sandbox *sb = jt_sandbox(json);
    sbx_result r;
    ck_assert_int_eq(jt_sh(sb,
                           "ln -s /etc /out/sub && ln -s /tmp /out/tmp && mkdir /out/real && "
                           "echo mine > /out/real/f && ln -s real /out/rel && "
                           "ln -s ../../../../../../etc /out/up",
                           &r),
                     SBX_OK);
    ck_assert_msg(r.ok, "%s %s", r.error_message, r.stderr_data);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    static const char *const through[] = {"sub", "rw:tmp", "rel/f", "up", "sub/ssl", "rel"};
    for (size_t i = 0; i < sizeof(through) / sizeof(through[0]); i++) {
        bool rw = strncmp(through[i], "rw:", 3) == 0;
        snprintf(json, sizeof(json), "{\"fs\":[\"%s%s/%s::/data\"]}", rw ? "rw:" : "", dir,
                 through[i] + (rw ? 3 : 0));
        sb = jt_sandbox(json);
        ck_assert_int_eq(jt_sh(sb, "cat /data/passwd /data/f; echo x > /data/sbx-planted", &r),
                         SBX_E_INVALID_OPTIONS);
        ck_assert_msg(strstr(r.error_message, "policy.fs[0]") &&
                          strstr(r.error_message, "symlink in the host path is never followed"),
                      "%s: %s", through[i], r.error_message);
        ck_assert_ptr_null(strstr(jt_out(&r), "root:"));
        sbx_result_free(&r);
        sbx_sandbox_destroy(sb);
    }
    ck_assert_int_ne(access("/tmp/sbx-planted", F_OK), 0);
    snprintf(json, sizeof(json), "{\"fs\":[\"rw:%s/real::/data\"]}", dir);
    sb = jt_sandbox(json);
    ck_assert_int_eq(jt_sh(sb, "cat /data/f && echo more >> /data/f", &r), SBX_OK);
    ck_assert_msg(r.ok, "%s %s", r.error_message, r.stderr_data);
    ck_assert_str_eq(jt_out(&r), "mine\n");
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    jt_rmrf(dir);
}
END_TEST

/* A grant nested in an rw: grant lands on a path the guest could prepare: a symlink planted at
 * its mount point (or above it) must not carry the mount, or the mkdir of its missing parents,
 * onto the host's target. The run is refused as a policy error; a real directory there works. */
START_TEST(test_nested_grant_through_planted_symlink)
{
    char dir[PATH_MAX], json[4 * PATH_MAX], p[PATH_MAX + 32];
    jt_tempdir(dir, "nest");
    static const char *const subs[] = {"job", "other", "target"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, subs[i]);
        ck_assert_int_eq(mkdir(p, 0777), 0);
        ck_assert_int_eq(chmod(p, 0777), 0);
    }
    snprintf(p, sizeof(p), "%s/other/f", dir);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs("other\n", f);
    fclose(f);
    snprintf(json, sizeof(json), "{\"fs\":[\"rw:%s/job::/a\"]}", dir);
    sbx_sandbox *sb = jt_sandbox(json);
    sbx_result r;
    char script[PATH_MAX + 64];
    snprintf(script, sizeof(script), "ln -s %s/target /a/b && mkdir /a/real", dir);
    ck_assert_int_eq(jt_sh(sb, script, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s %s", r.error_message, r.stderr_data);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    static const char *const at[] = {"/a/b", "/a/b/c"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(json, sizeof(json), "{\"fs\":[\"rw:%s/job::/a\",\"%s/other::%s\"]}", dir, dir,
                 at[i]);
        sb = jt_sandbox(json);
        ck_assert_int_eq(jt_sh(sb, "cat /a/b/f /a/b/c/f", &r), SBX_E_INVALID_OPTIONS);
        ck_assert_msg(strstr(r.error_message, "policy.fs grant") &&
                          strstr(r.error_message, "symlink"),
                      "%s: %s", at[i], r.error_message);
        sbx_result_free(&r);
        sbx_sandbox_destroy(sb);
    }
    snprintf(p, sizeof(p), "%s/target/c", dir);
    ck_assert_int_ne(access(p, F_OK), 0); /* nothing was made through the link */
    snprintf(json, sizeof(json), "{\"fs\":[\"rw:%s/job::/a\",\"%s/other::/a/real/c\"]}", dir, dir);
    sb = jt_sandbox(json);
    ck_assert_int_eq(jt_sh(sb, "cat /a/real/c/f", &r), SBX_OK);
    ck_assert_msg(r.ok, "%s %s", r.error_message, r.stderr_data);
    ck_assert_str_eq(jt_out(&r), "other\n");
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    jt_rmrf(dir);
}
END_TEST

static Suite *jail_suite(void)
{
    Suite *s = suite_create("jail");
    TCase *tc = tcase_create("run");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_exit_status);
    tcase_add_test(tc, test_exit_caught);
    tcase_add_test(tc, test_passwd_unreadable);
    tcase_add_test(tc, test_infinite_loop_timeout);
    tcase_add_test(tc, test_huge_output_bounded);
    tcase_add_test(tc, test_grants_rw_and_ro);
    tcase_add_test(tc, test_fork_bomb_held_by_pids);
    tcase_add_test(tc, test_memory_bomb);
    tcase_add_test(tc, test_grandchild_gone);
    tcase_add_test(tc, test_context_on_stdin);
    tcase_add_test(tc, test_environment_is_policy_env);
    tcase_add_test(tc, test_command_errors);
    tcase_add_test(tc, test_enforced_bits);
    tcase_add_test(tc, test_cpu_percent);
    tcase_add_test(tc, test_outbound_unavailable);
    tcase_add_test(tc, test_init_argv_neutral);
    tcase_add_test(tc, test_grant_through_planted_symlink);
    tcase_add_test(tc, test_nested_grant_through_planted_symlink);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    jt_guest_binary();
    return sbx_test_main(jail_suite());
}

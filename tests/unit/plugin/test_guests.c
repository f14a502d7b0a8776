/* test_guests.c: real C programs (the guests directory, compiled by mk/plugin.mk with clang
 * --target=wasm32-wasi) through the plugin handle and through sbx_sandbox_run(): args, env,
 * stdin, files under rw and read-only preopens, escapes, clocks, random, typed reactor calls,
 * heap growth under memoryBytes and a capability import from C. */
#include <check.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sbx.h>
#include "sbx_test.h"

static char guest_dir[4096];
static char scratch[64];

static uint8_t *load_guest(const char *name, size_t *len)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s.wasm", guest_dir, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s missing: build it with `make plugin-guests`", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *bytes = malloc((size_t)n);
    ck_assert_uint_eq(fread(bytes, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return bytes;
}

static sbx_policy *policy_of(const char *json)
{
    sbx_policy *p = NULL;
    char err[256];
    ck_assert_msg(sbx_policy_parse(json, strlen(json), &p, err, sizeof(err)) == SBX_OK, "%s", err);
    return p;
}

/* scratch/in/data.txt (granted read-only) and scratch/out (granted read-write). */
static void setup(void)
{
    snprintf(scratch, sizeof(scratch), "/tmp/sbx-guests-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(scratch));
    char p[128];
    snprintf(p, sizeof(p), "%s/in", scratch);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/out", scratch);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/in/data.txt", scratch);
    FILE *f = fopen(p, "w");
    fputs("from the host\n", f);
    fclose(f);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
    ck_assert_int_eq(system(cmd), 0);
}

static sbx_policy *command_policy(void)
{
    char json[512];
    snprintf(json, sizeof(json),
             "{\"fs\": [\"%s/in::/in\", \"rw:%s/out::/out\"], \"env\": {\"MODE\": \"test\"}}",
             scratch, scratch);
    return policy_of(json);
}

static const char expected_tail[] = "MODE=test\n"
                                    "HOME=(unset)\n"
                                    "stdin={\"job\": 1}\n"
                                    "out: kept\n"
                                    "in: from the host\n"
                                    "write /in: Capabilities insufficient\n"
                                    "escape: Capabilities insufficient\n"
                                    "monotonic: ok\n"
                                    "realtime: ok\n"
                                    "random: ok\n";

static char wasi_labels[512];

static void on_counter(void *user, const char *name, uint64_t value, const sbx_attr *attrs,
                       size_t n)
{
    (void)user;
    (void)value;
    size_t used = strlen(wasi_labels);
    if (!strcmp(name, "plugin.permission_denied_total") && n == 1 &&
        !strcmp(attrs[0].key, "capability"))
        snprintf(wasi_labels + used, sizeof(wasi_labels) - used, "%s ", attrs[0].value);
}

START_TEST(command_through_the_handle)
{
    wasi_labels[0] = '\0';
    sbx_telemetry_hooks hooks = {.counter_add = on_counter};
    sbx_telemetry_set_hooks(&hooks);
    size_t len;
    uint8_t *bytes = load_guest("command", &len);
    sbx_policy *p = command_policy();
    static const char *const argv[] = {"command", "0", "two words", NULL};
    static const char input[] = "{\"job\": 1}";
    sbx_wasm_options opt = {.size = sizeof(opt),
                            .argv = argv,
                            .stdin_data = (const uint8_t *)input,
                            .stdin_len = strlen(input)};
    sbx_wasm_sandbox *sb;
    char err[256];
    ck_assert_int_eq(sbx_wasm_sandbox_create(bytes, len, p, &opt, &sb, err, sizeof(err)), SBX_OK);
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.error_message);
    char want[1024];
    snprintf(want, sizeof(want), "argv[0]=command\nargv[1]=0\nargv[2]=two words\n%s",
             expected_tail);
    ck_assert_str_eq(r.stdout_data, want);
    ck_assert_str_eq(r.stderr_data, "done\n");
    ck_assert_int_eq(r.exit_code, 0);
    /* Both read-only denials (write, escape) were counted. */
    ck_assert_uint_ge(sbx_wasm_sandbox_denied_count(sb), 2);
    sbx_telemetry_set_hooks(NULL);
    /* ... each with its capability label on plugin.permission_denied_total. */
    ck_assert_msg(strstr(wasi_labels, "fs.write ") && strstr(wasi_labels, "fs.escape "), "%s",
                  wasi_labels);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
    sbx_policy_destroy(p);
    free(bytes);
    char path[128];
    snprintf(path, sizeof(path), "%s/out/note.txt", scratch);
    ck_assert_int_eq(access(path, F_OK), 0);
    snprintf(path, sizeof(path), "%s/in/new.txt", scratch);
    ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

START_TEST(command_through_sbx_sandbox_run)
{
    size_t len;
    uint8_t *bytes = load_guest("command", &len);
    sbx_policy *p = command_policy();
    sbx_sandbox *sb;
    ck_assert_int_eq(sbx_sandbox_create(SBX_BACKEND_WASM, p, &sb), SBX_OK);
    static const char *const argv[] = {"command", "5", NULL};
    sbx_run_input in = {
        .module = bytes, .module_len = len, .argv = argv, .context_json = "{\"job\": 1}"};
    sbx_result r;
    ck_assert_int_eq(sbx_sandbox_run(sb, &in, &r), SBX_OK);
    char want[1024];
    snprintf(want, sizeof(want), "argv[0]=command\nargv[1]=5\n%s", expected_tail);
    ck_assert_str_eq(r.stdout_data, want);
    ck_assert_int_eq(r.exit_code, 5);
    ck_assert_int_eq(r.error, SBX_E_EXECUTION_FAILED);
    char *json = sbx_result_to_json(&r);
    ck_assert_ptr_nonnull(strstr(json, "\"exitCode\":5"));
    sbx_free(json);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    sbx_policy_destroy(p);
    free(bytes);
}
END_TEST

static int32_t twice_calls;

static void host_twice(void *user, const sbx_wasm_value *args, size_t n, sbx_wasm_completion *c)
{
    (void)user;
    ck_assert_uint_eq(n, 1);
    twice_calls++;
    sbx_wasm_value v = {.type = SBX_WASM_I32, .of.i32 = args[0].of.i32 * 2};
    sbx_wasm_completion_finish(c, &v, 1);
}

static sbx_wasm_sandbox *reactor(const char *json)
{
    size_t len;
    uint8_t *bytes = load_guest("reactor", &len);
    sbx_policy *p = policy_of(json);
    sbx_wasm_host_func hf = {"host.twice", "(i32) -> i32", host_twice, NULL};
    sbx_wasm_options opt = {.size = sizeof(opt), .host_funcs = &hf, .host_func_count = 1};
    sbx_wasm_sandbox *sb;
    char err[256];
    sbx_err rc = sbx_wasm_sandbox_create(bytes, len, p, &opt, &sb, err, sizeof(err));
    ck_assert_msg(rc == SBX_OK, "%s", err);
    sbx_policy_destroy(p);
    free(bytes);
    return sb;
}

static sbx_wasm_value call1(sbx_wasm_sandbox *sb, const char *name, const sbx_wasm_value *args,
                            size_t n)
{
    sbx_wasm_value v = {0};
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, name, args, n, &v, 1, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s: %s", name, r.error_message);
    sbx_result_free(&r);
    return v;
}

START_TEST(reactor_typed_calls)
{
    sbx_wasm_sandbox *sb = reactor("{}");
    ck_assert_int_eq(call1(sb, "counter", NULL, 0).of.i32, 100); /* _initialize ran ctors */
    ck_assert_int_eq(call1(sb, "counter", NULL, 0).of.i32, 101); /* state persists */
    sbx_wasm_value n = {.type = SBX_WASM_I32, .of.i32 = 90};
    sbx_wasm_value f = call1(sb, "fib", &n, 1);
    ck_assert_int_eq(f.type, SBX_WASM_I64);
    ck_assert(f.of.i64 == 2880067194370816120ll);
    sbx_wasm_value xy[2] = {{.type = SBX_WASM_F64, .of.f64 = 3.0},
                            {.type = SBX_WASM_F32, .of.f32 = 4.0f}};
    sbx_wasm_value h = call1(sb, "hypot2", xy, 2);
    ck_assert_int_eq(h.type, SBX_WASM_F64);
    ck_assert(h.of.f64 == 25.0);
    sbx_wasm_valtype pt[4], rt[4];
    size_t pc, rc;
    ck_assert_int_eq(sbx_wasm_sandbox_export_type(sb, "hypot2", pt, &pc, rt, &rc, 4), SBX_OK);
    ck_assert_uint_eq(pc, 2);
    ck_assert_int_eq(pt[1], SBX_WASM_F32);
    ck_assert_int_eq(rt[0], SBX_WASM_F64);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

/* Calls alloc_mb(mb) and returns its result; *limit gets the call's recorded limit. */
static int32_t alloc_mb(sbx_wasm_sandbox *sb, int32_t mb, sbx_limit *limit)
{
    sbx_wasm_value arg = {.type = SBX_WASM_I32, .of.i32 = mb}, v = {0};
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "alloc_mb", &arg, 1, &v, 1, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.error_message);
    *limit = r.limit;
    sbx_result_free(&r);
    return v.of.i32;
}

/* malloc sees the refused grow as NULL and the guest goes on; the result says the memory limit
 * shaped the call (issue 10: it said nothing, so the caller could not tell). */
START_TEST(reactor_heap_is_capped_by_memory_bytes)
{
    sbx_wasm_sandbox *sb = reactor("{\"memoryBytes\": 4194304}"); /* 4 MiB: 56 pages */
    sbx_limit limit;
    ck_assert_int_eq(alloc_mb(sb, 1, &limit), 0);
    ck_assert_int_eq(limit, SBX_LIMIT_NONE);
    ck_assert_int_eq(alloc_mb(sb, 8, &limit), -1);
    ck_assert_int_eq(limit, SBX_LIMIT_MEMORY);
    ck_assert_int_eq(alloc_mb(sb, 1, &limit), 0);
    ck_assert_int_eq(limit, SBX_LIMIT_NONE);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

START_TEST(capability_from_c_allowed_and_denied)
{
    twice_calls = 0;
    sbx_wasm_sandbox *sb = reactor("{\"capabilities\": {\"host.twice\": \"allow\"}}");
    sbx_wasm_value x = {.type = SBX_WASM_I32, .of.i32 = 21};
    ck_assert_int_eq(call1(sb, "twice", &x, 1).of.i32, 42);
    ck_assert_int_eq(twice_calls, 1);
    sbx_wasm_sandbox_destroy(sb);
    sb = reactor("{\"capabilities\": {\"host.twice\": \"deny\"}}");
    ck_assert_int_eq(call1(sb, "twice", &x, 1).of.i32, SBX_WASM_DENIED);
    ck_assert_int_eq(twice_calls, 1); /* the host function never ran */
    ck_assert_uint_eq(sbx_wasm_sandbox_denied_count(sb), 1);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

START_TEST(blocking_wasi_calls_work_after_a_timeout)
{
    sbx_wasm_sandbox *sb = reactor("{\"timeoutMs\": 200}");
    sbx_wasm_value ms = {.type = SBX_WASM_I32, .of.i32 = 30};
    ck_assert_int_ge(call1(sb, "nap", &ms, 1).of.i32, 29);
    sbx_wasm_value n = {.type = SBX_WASM_I32, .of.i32 = 2000000000};
    sbx_wasm_value v;
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "fib", &n, 1, &v, 1, &r), SBX_OK);
    ck_assert_int_eq(r.error, SBX_E_TIMEOUT);
    sbx_result_free(&r);
    /* The timeout interrupted WASI; the next call's sleep must sleep again. */
    ck_assert_int_ge(call1(sb, "nap", &ms, 1).of.i32, 29);
    /* A guest blocked in poll_oneoff is woken at the deadline, not when its sleep ends. */
    ms.of.i32 = 2000;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "nap", &ms, 1, &v, 1, &r), SBX_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ck_assert_int_eq(r.error, SBX_E_TIMEOUT);
    sbx_result_free(&r);
    long took_ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    ck_assert_msg(took_ms >= 199 && took_ms < 300, "took %ld ms", took_ms);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

int main(int argc, char **argv)
{
    (void)argc;
    char self[4096];
    snprintf(self, sizeof(self), "%s", argv[0]);
    snprintf(guest_dir, sizeof(guest_dir), "%s/guests", dirname(self));
    Suite *s = suite_create("plugin_guests");
    TCase *tc = tcase_create("guests");
    tcase_set_timeout(tc, 20);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, command_through_the_handle);
    tcase_add_test(tc, command_through_sbx_sandbox_run);
    tcase_add_test(tc, reactor_typed_calls);
    tcase_add_test(tc, reactor_heap_is_capped_by_memory_bytes);
    tcase_add_test(tc, capability_from_c_allowed_and_denied);
    tcase_add_test(tc, blocking_wasi_calls_work_after_a_timeout);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

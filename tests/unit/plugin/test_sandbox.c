/* test_sandbox.c: the wasm plugin handle: commands and reactors, captured output, exit codes,
 * traps, time, fuel, memory and CPU limits, abort, dispose, telemetry. (The wasm backend of
 * sbx_sandbox_run(): test_backend.c.) Modules come from the fixture builder. */
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sbx.h>

#include "core/backend.h"
#include "plugin/plugin.h"
#include "wasm_builder.h"
#include "sbx_test.h"

/* Creates a sandbox from module bytes (freed here) under a policy given as JSON. */
static sbx_wasm_sandbox *make(uint8_t *bytes, size_t len, const char *json,
                              const sbx_wasm_options *opt)
{
    ck_assert_ptr_nonnull(bytes);
    sbx_policy *p = sbx_test_policy(json);
    sbx_wasm_sandbox *sb = NULL;
    char err[256] = "";
    sbx_err rc = sbx_wasm_sandbox_create(bytes, len, p, opt, &sb, err, sizeof(err));
    ck_assert_msg(rc == SBX_OK, "create: %s: %s", sbx_err_name(rc), err);
    sbx_policy_destroy(p);
    free(bytes);
    return sb;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Milliseconds the threads of this process spent runnable but waiting for a CPU, as the
 * scheduler counts them (field 2 of /proc/<pid>/task/<tid>/schedstat): the guest thread's own
 * (the calling thread runs the guest) and the others' (the watchdog's). On a loaded host that
 * is the time others took; a throttle or a timeout that sleeps too long never shows up here. */
static void waited_ms(double *own, double *others)
{
    unsigned long long run, wait, mine = 0, all = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fscanf(f, "%llu %llu", &run, &mine), 2);
    fclose(f);
    DIR *d = opendir("/proc/self/task");
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));) {
        char path[300]; /* a d_name has up to 255 bytes */
        snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
        if (e->d_name[0] != '.' && (f = fopen(path, "r"))) {
            if (fscanf(f, "%llu %llu", &run, &wait) == 2)
                all += wait;
            fclose(f);
        }
    }
    closedir(d);
    *own = (double)mine / 1e6;
    *others = all > mine ? (double)(all - mine) / 1e6 : 0;
}

/* CPU time of the whole process (every thread), in microseconds. */
static double process_cpu_us(void)
{
    struct timespec ts;
    ck_assert_int_eq(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts), 0);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

START_TEST(command_output_is_captured)
{
    size_t len;
    uint8_t *bytes = wb_fixture_print_exit("hello from wasm\n", 1, -1, &len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{}", NULL);
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_uint_eq(r.stdout_len, 16);
    ck_assert_str_eq(r.stdout_data, "hello from wasm\n");
    ck_assert_int_eq(r.backend, SBX_BACKEND_WASM);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

/* A command that opens a socket, connects twice to 127.0.0.1:9 and resolves "evil.example",
 * each refused unless the policy lists it. */
static uint8_t *net_probe(size_t *len)
{
    struct wb *w = wb_new();
    uint32_t sock_open = wb_import_func(w, "wasi_snapshot_preview1", "sock_open", "iii", "i");
    uint32_t sock_connect = wb_import_func(w, "wasi_snapshot_preview1", "sock_connect", "iii", "i");
    uint32_t resolve =
        wb_import_func(w, "wasi_snapshot_preview1", "sock_addr_resolve", "iiiiii", "i");
    wb_memory(w, 1, -1);
    wb_export_memory(w, "memory");
    uint32_t addr[2] = {108, 4}; /* {buf, len} -> 127.0.0.1 */
    static const uint8_t lo[4] = {127, 0, 0, 1};
    wb_data(w, 100, addr, sizeof(addr));
    wb_data(w, 108, lo, sizeof(lo));
    wb_data(w, 300, "evil.example", 12);
    struct wb_bytes c = {0};
    int32_t open_args[] = {1, 2, 0}, resolve_args[] = {300, 12, 0, 400, 4, 8};
    for (size_t i = 0; i < 3; i++)
        wbc_i32_const(&c, open_args[i]);
    wbc_call(&c, sock_open);
    wbc_op(&c, WB_OP_DROP);
    for (int i = 0; i < 2; i++) {
        wbc_i32_const(&c, 0);
        wbc_i32_load(&c);
        wbc_i32_const(&c, 100);
        wbc_i32_const(&c, 9);
        wbc_call(&c, sock_connect);
        wbc_op(&c, WB_OP_DROP);
    }
    for (size_t i = 0; i < 6; i++)
        wbc_i32_const(&c, resolve_args[i]);
    wbc_call(&c, resolve);
    wbc_op(&c, WB_OP_DROP);
    wbc_end(&c);
    return wb_finish_export(w, "_start", "", "", &c, len);
}

/* The wasm tier's denials land in the result as the process tier's do: through the handle and
 * through sbx_sandbox_run(). The control allows both: nothing is listed. */
START_TEST(net_denials_listed)
{
    size_t len;
    uint8_t *bytes = net_probe(&len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{\"net\":{\"outbound\":[\"a.test:1\"]}}", NULL);
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_uint_eq(r.denial_count, 2);
    ck_assert_uint_eq(r.denied_total, 3);
    ck_assert_int_eq(r.denials[0].kind, SBX_DENIAL_CONNECT);
    ck_assert_str_eq(r.denials[0].host, "127.0.0.1");
    ck_assert_uint_eq(r.denials[0].port, 9);
    ck_assert_uint_eq(r.denials[0].count, 2);
    ck_assert_int_eq(r.denials[1].kind, SBX_DENIAL_DNS);
    ck_assert_str_eq(r.denials[1].host, "evil.example");
    char *j = sbx_result_to_json(&r);
    ck_assert_ptr_nonnull(strstr(j, "\"denied\":{\"total\":3,\"truncated\":false,"));
    sbx_free(j);
    sbx_result_free(&r);
    ck_assert_uint_eq(sbx_wasm_sandbox_denied_count(sb), 3);
    sbx_wasm_sandbox_destroy(sb);
    sbx_run_input in = {0};
    in.module = net_probe(&in.module_len);
    ck_assert_int_eq(
        sbx_test_run_once(SBX_BACKEND_WASM, "{\"net\":{\"outbound\":[\"a.test:1\"]}}", &in, &r),
        SBX_OK);
    ck_assert_uint_eq(r.denial_count, 2);
    ck_assert_uint_eq(r.denied_total, 3);
    sbx_result_free(&r);
    ck_assert_int_eq(sbx_test_run_once(SBX_BACKEND_WASM,
                                       "{\"net\":{\"outbound\":[\"127.0.0.1:9\", "
                                       "\"evil.example:*\"]}}",
                                       &in, &r),
                     SBX_OK);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_uint_eq(r.denied_total, 0);
    ck_assert_ptr_null(r.denials);
    sbx_result_free(&r);
    free((void *)in.module);
}
END_TEST

START_TEST(stderr_and_exit_code)
{
    size_t len;
    uint8_t *bytes = wb_fixture_print_exit("oops\n", 2, 3, &len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{}", NULL);
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_OK);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.error, SBX_E_EXECUTION_FAILED);
    ck_assert_int_eq(r.exit_code, 3);
    ck_assert_str_eq(r.stderr_data, "oops\n");
    ck_assert_uint_eq(r.stdout_len, 0);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

START_TEST(output_is_capped)
{
    size_t len;
    uint8_t *bytes = wb_fixture_print_exit("0123456789abcdef", 1, 0, &len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{\"maxOutputBytes\": 10}", NULL);
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_OK);
    ck_assert_uint_eq(r.stdout_len, 10);
    ck_assert(r.stdout_truncated);
    ck_assert_int_eq(memcmp(r.stdout_data, "0123456789", 10), 0);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

START_TEST(trap_gives_message)
{
    size_t len;
    uint8_t *bytes = wb_fixture_trap(&len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{}", NULL);
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_OK);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.error, SBX_E_WASM_TRAP);
    ck_assert_ptr_nonnull(strstr(r.error_message, "unreachable"));
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

START_TEST(timeout_stops_a_spin)
{
    size_t len;
    uint8_t *bytes = wb_fixture_spin(&len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{\"timeoutMs\": 100}", NULL);
    sbx_result r;
    double w0, o0, w1, o1;
    waited_ms(&w0, &o0);
    double t0 = now_ms();
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_OK);
    double took = now_ms() - t0;
    waited_ms(&w1, &o1);
    ck_assert_int_eq(r.error, SBX_E_TIMEOUT);
    ck_assert_int_eq(r.limit, SBX_LIMIT_TIMEOUT);
    double waited = w1 - w0 + o1 - o0;
    fprintf(stderr, "timeoutMs 100: the run ended after %.3f ms (%.1f ms waiting for a CPU)\n",
            took, waited);
    /* What the host kept the guest and watchdog threads waiting is not the timeout's. */
    ck_assert_msg(took >= 99 && took < 160 + waited, "took %.1f ms", took);
    sbx_result_free(&r);
    /* The handle stays usable: the next run times out again rather than failing at once. */
    t0 = now_ms();
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_OK);
    ck_assert_int_eq(r.error, SBX_E_TIMEOUT);
    ck_assert(now_ms() - t0 >= 99);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

START_TEST(fuel_runs_out)
{
    size_t len;
    uint8_t *bytes = wb_fixture_spin(&len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{\"fuel\": 100000, \"timeoutMs\": 5000}", NULL);
    sbx_result r;
    double t0 = now_ms();
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_OK);
    ck_assert_int_eq(r.error, SBX_E_WASM_FUEL_EXHAUSTED);
    ck_assert_int_eq(r.limit, SBX_LIMIT_FUEL);
    ck_assert(now_ms() - t0 < 1000);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

struct aborter {
    sbx_wasm_sandbox *sb;
    int delay_ms;
    clockid_t guest;     /* the CPU clock of the thread that runs the guest */
    double guest_cpu_ms; /* its CPU time when the abort was asked */
};

static double clock_ms(clockid_t clk)
{
    struct timespec ts;
    ck_assert_int_eq(clock_gettime(clk, &ts), 0);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *abort_later(void *arg)
{
    struct aborter *a = arg;
    usleep((useconds_t)a->delay_ms * 1000);
    a->guest_cpu_ms = clock_ms(a->guest);
    sbx_wasm_sandbox_abort(a->sb);
    return NULL;
}

START_TEST(abort_from_another_thread)
{
    size_t len;
    uint8_t *bytes = wb_fixture_spin(&len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{\"timeoutMs\": 5000}", NULL);
    sbx_wasm_sandbox_abort(sb); /* idle: the next run ends at once, not at its 5 s limit */
    sbx_result r;
    double t0 = now_ms();
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_OK);
    ck_assert_int_eq(r.error, SBX_E_ABORTED);
    ck_assert_msg(now_ms() - t0 < 1000, "a remembered abort took %.1f ms", now_ms() - t0);
    sbx_result_free(&r);
    sbx_wasm_sandbox_abort(sb);
    sbx_wasm_sandbox_clear_abort(sb); /* forgotten: the runs below spin until aborted */
    /* The latency is the guest thread's CPU time from the abort to the run's return: how long
     * it ran on before it polled. Wall time measures the host too (16 ms seen at load 26);
     * the wall time of a run is bounded below. The best of a few tries, for what else the
     * host does to a thread; an abort that is not polled fails every try. */
    clockid_t self;
    ck_assert_int_eq(pthread_getcpuclockid(pthread_self(), &self), 0);
    double best = 1e9;
    for (int i = 0; i < 5 && best >= 10; i++) {
        struct aborter a = {.sb = sb, .delay_ms = 50, .guest = self};
        pthread_t t;
        pthread_create(&t, NULL, abort_later, &a);
        t0 = now_ms();
        ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_OK);
        double took = now_ms() - t0, ended_cpu_ms = clock_ms(self);
        pthread_join(t, NULL);
        ck_assert_int_eq(r.error, SBX_E_ABORTED);
        ck_assert_msg(took >= 45 && took < 1000, "took %.1f ms", took);
        sbx_result_free(&r);
        if (ended_cpu_ms - a.guest_cpu_ms < best)
            best = ended_cpu_ms - a.guest_cpu_ms;
    }
    fprintf(stderr, "abort latency: %.3f ms of the guest thread's CPU time\n", best);
    ck_assert_msg(best < 10, "abort took %.3f ms to land", best); /* ~0.1 ms unloaded */
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

static sbx_wasm_value i32v(int32_t v)
{
    sbx_wasm_value x = {.type = SBX_WASM_I32, .of.i32 = v};
    return x;
}

START_TEST(reactor_initialize_and_calls)
{
    size_t len;
    uint8_t *bytes = wb_fixture_reactor(&len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{}", NULL);
    sbx_wasm_value res = {0};
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "get", NULL, 0, &res, 1, &r), SBX_OK);
    ck_assert(r.ok);
    ck_assert_int_eq(res.type, SBX_WASM_I32);
    ck_assert_int_eq(res.of.i32, 42); /* _initialize ran at create */
    sbx_result_free(&r);
    sbx_wasm_value args[2] = {i32v(40), i32v(2)};
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "add", args, 2, &res, 1, &r), SBX_OK);
    ck_assert_int_eq(res.of.i32, 42);
    sbx_result_free(&r);
    args[1] = i32v(0);
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "div", args, 2, &res, 1, &r), SBX_OK);
    ck_assert_int_eq(r.error, SBX_E_WASM_TRAP);
    ck_assert_ptr_nonnull(strstr(r.error_message, "integer divide by zero"));
    sbx_result_free(&r);
    /* The instance survives the trap. */
    args[1] = i32v(5);
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "div", args, 2, &res, 1, &r), SBX_OK);
    ck_assert(r.ok);
    ck_assert_int_eq(res.of.i32, 8);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

START_TEST(call_checks_export_and_types)
{
    size_t len;
    uint8_t *bytes = wb_fixture_reactor(&len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{}", NULL);
    sbx_wasm_value res, args[2] = {i32v(1), {.type = SBX_WASM_F64, .of.f64 = 1.0}};
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "nope", NULL, 0, &res, 1, &r), SBX_E_WASM_NO_EXPORT);
    ck_assert_int_eq(r.error, SBX_E_WASM_NO_EXPORT);
    sbx_result_free(&r);
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "add", args, 2, &res, 1, &r),
                     SBX_E_INVALID_ARGUMENT);
    sbx_result_free(&r);
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "add", args, 1, &res, 1, &r),
                     SBX_E_INVALID_ARGUMENT);
    sbx_result_free(&r);
    /* A reactor has no _start. */
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_E_WASM_NO_EXPORT);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

/* A reactor with memory, no _initialize: bump() adds 1 to the i32 at 0, get() returns it. */
static uint8_t *counter_module(size_t *len)
{
    struct wb *w = wb_new();
    wb_memory(w, 1, 1);
    struct wb_bytes c = {0};
    wbc_i32_const(&c, 0), wbc_i32_const(&c, 0), wbc_i32_load(&c);
    wbc_i32_const(&c, 1), wbc_op(&c, WB_OP_I32_ADD), wbc_i32_store(&c), wbc_end(&c);
    wb_export_func(w, "bump", wb_func(w, "", "", "", &c));
    c.len = 0;
    wbc_i32_const(&c, 0), wbc_i32_load(&c), wbc_end(&c);
    return wb_finish_export(w, "get", "", "i", &c, len);
}

static uint32_t get_counter(sbx_wasm_sandbox *sb)
{
    sbx_wasm_value v;
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "get", NULL, 0, &v, 1, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.error_message);
    sbx_result_free(&r);
    return (uint32_t)v.of.i32;
}

/* Core's abort that came before its interrupt found the handle (plugin/backend.c: the run's
 * interrupt_reason is the handle's external reason, set while exec had not yet published
 * the handle): the next call ends aborted at once and never enters the guest; its counter is
 * untouched, where the same call with no abort bumps it (the control). Fails with begin_call's
 * external-reason check removed (the call runs: ok) and with invoke's check of the stop reason
 * removed (bump has no loop or call to poll the interrupt: it runs and returns ok). */
START_TEST(core_abort_before_the_handle_is_found)
{
    size_t len;
    uint8_t *bytes = counter_module(&len);
    ck_assert_ptr_nonnull(bytes);
    sbx_policy *p = sbx_test_policy("{\"timeoutMs\": 5000}");
    atomic_int reason = SBX_OK; /* core's run->interrupt_reason */
    struct wasm_load_guard guard = {.stop = &reason};
    sbx_wasm_sandbox *sb = NULL;
    char err[256] = "";
    sbx_err rc = sbx__plugin_create(bytes, len, p, NULL, false, &guard, &sb, err, sizeof(err));
    ck_assert_msg(rc == SBX_OK, "create: %s", err);
    free(bytes);
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "bump", NULL, 0, NULL, 0, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.error_message);
    sbx_result_free(&r);
    ck_assert_uint_eq(get_counter(sb), 1);
    atomic_store(&reason, SBX_E_ABORTED);
    double t0 = now_ms();
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "bump", NULL, 0, NULL, 0, &r), SBX_OK);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.error, SBX_E_ABORTED);
    ck_assert_str_eq(r.error_message, "run was aborted by the host");
    ck_assert_int_eq(r.limit, SBX_LIMIT_NONE);
    ck_assert_double_lt(now_ms() - t0, 1000); /* at once, not at the 5 s limit */
    sbx_result_free(&r);
    atomic_store(&reason, SBX_OK);
    ck_assert_uint_eq(get_counter(sb), 1); /* the aborted call never ran */
    sbx_wasm_sandbox_destroy(sb);
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(dispose_is_idempotent)
{
    size_t len;
    uint8_t *bytes = wb_fixture_reactor(&len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{}", NULL);
    sbx_wasm_sandbox_dispose(sb);
    sbx_wasm_sandbox_dispose(sb);
    sbx_wasm_value res;
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "get", NULL, 0, &res, 1, &r), SBX_E_WASM_DISPOSED);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.error, SBX_E_WASM_DISPOSED);
    ck_assert_str_eq(sbx_err_name(r.error), "SAND_WASM_DISPOSED");
    sbx_result_free(&r);
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_E_WASM_DISPOSED);
    sbx_result_free(&r);
    sbx_wasm_sandbox_abort(sb); /* harmless */
    sbx_wasm_sandbox_destroy(sb);
    sbx_wasm_sandbox_destroy(NULL);
}
END_TEST

/* A reactor exporting grow(pages) -> memory.grow's result, memory 1 page, no maximum. */
static uint8_t *grow_module(uint32_t min_pages, size_t *len)
{
    struct wb *w = wb_new();
    wb_memory(w, min_pages, -1);
    struct wb_bytes c = {0};
    wbc_local_get(&c, 0);
    wbc_op(&c, WB_OP_MEMORY_GROW);
    wb_bytes_byte(&c, 0);
    wbc_end(&c);
    return wb_finish_export(w, "grow", "i", "i", &c, len);
}

START_TEST(memory_bytes_caps_growth)
{
    size_t len;
    uint8_t *bytes = grow_module(1, &len);
    /* 262144 bytes: an eighth for the stacks (16 KiB of values, 512 frames), then 3 pages. */
    sbx_wasm_sandbox *sb = make(bytes, len, "{\"memoryBytes\": 262144}", NULL);
    sbx_wasm_value res, arg = i32v(2);
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "grow", &arg, 1, &res, 1, &r), SBX_OK);
    ck_assert_int_eq(res.of.i32, 1); /* old size */
    ck_assert_int_eq(r.limit, SBX_LIMIT_NONE);
    sbx_result_free(&r);
    arg = i32v(1);
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "grow", &arg, 1, &res, 1, &r), SBX_OK);
    ck_assert_int_eq(res.of.i32, -1); /* the fourth page is refused */
    ck_assert(r.ok);                  /* the guest goes on: the limit shaped the call */
    ck_assert_int_eq(r.limit, SBX_LIMIT_MEMORY);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);

    /* A module whose initial memory exceeds the limit does not instantiate. */
    sbx_policy *p = sbx_test_policy("{\"memoryBytes\": 262144}");
    bytes = grow_module(5, &len);
    char err[256];
    ck_assert_int_eq(sbx_wasm_sandbox_create(bytes, len, p, NULL, &sb, err, sizeof(err)),
                     SBX_E_MEMORY_LIMIT);
    ck_assert_ptr_null(sb);
    free(bytes);
    sbx_policy_destroy(p);
}
END_TEST

START_TEST(bad_module_and_arguments)
{
    sbx_policy *p = sbx_test_policy("{}");
    static const uint8_t junk[] = {0x00, 0x61, 0x73, 0x6d, 0x02, 0x00, 0x00, 0x00};
    sbx_wasm_sandbox *sb = (sbx_wasm_sandbox *)1;
    char err[256] = "";
    ck_assert_int_eq(sbx_wasm_sandbox_create(junk, sizeof(junk), p, NULL, &sb, err, sizeof(err)),
                     SBX_E_WASM_INVALID_MODULE);
    ck_assert_ptr_null(sb);
    ck_assert(err[0] != '\0');
    ck_assert_int_eq(sbx_wasm_sandbox_create(NULL, 0, p, NULL, &sb, err, sizeof(err)),
                     SBX_E_INVALID_ARGUMENT);
    sbx_wasm_options opt = {.size = 3};
    ck_assert_int_eq(sbx_wasm_sandbox_create(junk, sizeof(junk), p, &opt, &sb, err, sizeof(err)),
                     SBX_E_INVALID_ARGUMENT);
    /* An import nobody serves is a link error. */
    struct wb *w = wb_new();
    wb_import_func(w, "wasi_snapshot_preview1", "no_such_function", "", "");
    size_t len;
    uint8_t *bytes = wb_finish(w, &len);
    wb_free(w);
    ck_assert_int_eq(sbx_wasm_sandbox_create(bytes, len, p, NULL, &sb, err, sizeof(err)),
                     SBX_E_WASM_LINK);
    free(bytes);
    sbx_policy_destroy(p);
}
END_TEST

/* Exports add(i32, i32) -> i32 and spin() (loops forever). */
static uint8_t *add_spin_module(size_t *len)
{
    struct wb *w = wb_new();
    struct wb_bytes c = {0};
    wbc_local_get(&c, 0);
    wbc_local_get(&c, 1);
    wbc_op(&c, WB_OP_I32_ADD);
    wbc_end(&c);
    wb_export_func(w, "add", wb_func(w, "ii", "i", "", &c));
    c.len = 0;
    wbc_spin(&c);
    wbc_end(&c);
    return wb_finish_export(w, "spin", "", "", &c, len);
}

START_TEST(timeout_after_many_quick_calls)
{
    size_t len;
    uint8_t *bytes = add_spin_module(&len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{\"timeoutMs\": 50}", NULL);
    sbx_wasm_value args[2] = {i32v(1), i32v(2)}, res;
    sbx_result r;
    /* CPU time of every thread (the watchdog's wakeups too), not wall time: the host's load is
     * not the call's cost (111-140 us of wall time per call seen at load 22-26). */
    double cpu0 = process_cpu_us();
    for (int i = 0; i < 2000; i++) {
        double c0 = now_ms();
        sbx_wasm_sandbox_call(sb, "add", args, 2, &res, 1, &r);
        /* A call the host kept off the CPU past 50 ms times out (seen at load 30); one that
         * ends sooner never does: no earlier call's deadline reaches a later call. */
        double c = now_ms() - c0;
        ck_assert_msg((r.ok && res.of.i32 == 3) || (r.error == SBX_E_TIMEOUT && c >= 49),
                      "call %d: %s after %.1f ms", i, sbx_err_name(r.error), c);
        sbx_result_free(&r);
    }
    double per_call_us = (process_cpu_us() - cpu0) / 2000;
    fprintf(stderr, "export call overhead: %.2f us of CPU\n", per_call_us);
    ck_assert_msg(per_call_us < 100, "%.1f us of CPU per call", per_call_us);
    /* Each call armed the one watchdog thread; the next spin still ends at its deadline. What
     * the host kept the guest and watchdog threads waiting is not the timeout's (as in
     * timeout_stops_a_spin: 136-395 ms seen at load 22-26 against < 120). */
    double w0, o0, w1, o1;
    waited_ms(&w0, &o0);
    double t0 = now_ms();
    sbx_wasm_sandbox_call(sb, "spin", NULL, 0, NULL, 0, &r);
    double took = now_ms() - t0;
    waited_ms(&w1, &o1);
    double waited = w1 - w0 + o1 - o0;
    ck_assert_int_eq(r.error, SBX_E_TIMEOUT);
    fprintf(stderr, "timeoutMs 50 after 2000 calls: %.1f ms (%.1f ms waiting for a CPU)\n", took,
            waited);
    ck_assert_msg(took >= 49 && took < 120 + waited, "took %.1f ms (%.1f ms waiting)", took,
                  waited);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
}
END_TEST

struct spin {
    double cpu_ms, wall_ms;
    double waited_ms, others_waited_ms; /* the guest thread's, the other threads' */
    uint64_t paused_ns;
};

/* Spins until the timeout under cpu_percent and measures the run. */
static struct spin spin_run(int cpu_percent, int timeout_ms)
{
    char json[128];
    snprintf(json, sizeof(json), "{\"timeoutMs\": %d, \"cpuPercent\": %d}", timeout_ms,
             cpu_percent);
    size_t len;
    uint8_t *bytes = wb_fixture_spin(&len);
    sbx_wasm_sandbox *sb = make(bytes, len, json, NULL);
    struct timespec c0, c1;
    double w0, o0, w1, o1;
    waited_ms(&w0, &o0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    double t0 = now_ms();
    sbx_result r;
    ck_assert_int_eq(sbx_wasm_sandbox_run(sb, &r), SBX_OK);
    struct spin s = {.wall_ms = now_ms() - t0};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    waited_ms(&w1, &o1); /* before destroy: the watchdog thread still counts */
    ck_assert_int_eq(r.error, SBX_E_TIMEOUT);
    s.cpu_ms = (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) / 1e6;
    s.waited_ms = w1 - w0;
    s.others_waited_ms = o1 - o0;
    s.paused_ns = atomic_load(&sb->throttle.paused_ns);
    fprintf(stderr,
            "cpuPercent %d: cpu %.1f ms / wall %.1f ms = %.3f, paused %.1f ms, waited for a CPU "
            "%.1f ms (guest) + %.1f ms (others)\n",
            cpu_percent, s.cpu_ms, s.wall_ms, s.cpu_ms / s.wall_ms, (double)s.paused_ns / 1e6,
            s.waited_ms, s.others_waited_ms);
    /* The run ends at the timeout; what the host kept our threads waiting is not the sandbox's. */
    ck_assert(s.wall_ms >= timeout_ms - 1);
    ck_assert_msg(s.wall_ms < timeout_ms + 100 + s.waited_ms + s.others_waited_ms,
                  "a %d ms timeout took %.1f ms", timeout_ms, s.wall_ms);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
    return s;
}

START_TEST(initialize_is_under_the_limits)
{
    /* A reactor whose _initialize never returns: create ends at the timeout. */
    struct wb *w = wb_new();
    struct wb_bytes c = {0};
    wbc_spin(&c);
    wbc_end(&c);
    size_t len;
    uint8_t *bytes = wb_finish_export(w, "_initialize", "", "", &c, &len);
    sbx_policy *p = sbx_test_policy("{\"timeoutMs\": 50}");
    sbx_wasm_sandbox *sb = NULL;
    char err[256];
    /* The wall time less what this process's threads waited for a CPU (the watchdog lives
     * only as long as the create; 175 ms seen at load 26), and the best of 3 tries for the
     * host's other stalls; a timeout that does not stop _initialize fails every try. */
    double best = 1e9;
    for (int i = 0; i < 3 && best >= 150; i++) {
        double w0, o0, w1, o1;
        waited_ms(&w0, &o0);
        double t0 = now_ms();
        ck_assert_int_eq(sbx_wasm_sandbox_create(bytes, len, p, NULL, &sb, err, sizeof(err)),
                         SBX_E_TIMEOUT);
        double took = now_ms() - t0;
        waited_ms(&w1, &o1);
        took -= w1 - w0 + o1 - o0;
        if (took < best)
            best = took;
        ck_assert_ptr_null(sb);
        ck_assert_ptr_nonnull(strstr(err, "initialisation"));
    }
    ck_assert_msg(best < 150, "a 50 ms timeout in _initialize took %.1f ms (not waiting)", best);
    sbx_policy_destroy(p);
    p = sbx_test_policy("{\"fuel\": 1000}");
    ck_assert_int_eq(sbx_wasm_sandbox_create(bytes, len, p, NULL, &sb, err, sizeof(err)),
                     SBX_E_WASM_FUEL_EXHAUSTED);
    sbx_policy_destroy(p);
    free(bytes);
}
END_TEST

/* Reads the watchdog thread's current wait end (0: idle) under its lock. */
static uint64_t wait_end(struct sbx__watchdog *wd)
{
    pthread_mutex_lock(&wd->mu);
    uint64_t at = wd->wait_until_ns;
    pthread_mutex_unlock(&wd->mu);
    return at;
}

/* Polls until the watchdog's wait end satisfies is_done(at, ref), for at most 5 s. */
static bool wait_end_becomes(struct sbx__watchdog *wd, bool (*is_done)(uint64_t, uint64_t),
                             uint64_t ref)
{
    for (double until = now_ms() + 5000; now_ms() < until; usleep(1000))
        if (is_done(wait_end(wd), ref))
            return true;
    return false;
}

static bool is_waiting(uint64_t at, uint64_t ref)
{
    (void)ref;
    return at != 0;
}

static bool is_before(uint64_t at, uint64_t ref)
{
    return at != 0 && at < ref;
}

/* Arms wd for an unthrottled call with a 10 s deadline, waits until its thread sleeps towards
 * it and disarms (which does not wake it); returns that old deadline, the thread's wait end. */
static uint64_t asleep_until_old_deadline(struct sbx__watchdog *wd, struct sbx__throttle *t)
{
    ck_assert_int_eq(sbx__plugin_watchdog_arm(wd, 10000, 100, t), SBX_OK);
    ck_assert(wait_end_becomes(wd, is_waiting, 0));
    sbx__plugin_watchdog_disarm(wd);
    return wait_end(wd);
}

static void no_timeout(void *user)
{
    ck_abort_msg("deadline of call %p passed", user);
}

START_TEST(throttled_arm_wakes_a_waiting_watchdog)
{
    /* After an unthrottled call the watchdog thread sleeps on until that call's deadline:
     * disarm does not wake it. A throttled call armed next must wake it to tick every 2 ms,
     * or its guest would run unthrottled until the old deadline (10 s here). */
    struct sbx__watchdog wd = {.on_timeout = no_timeout};
    atomic_int stop = SBX_OK;
    struct sbx__throttle t = {.stop_reason = &stop};
    uint64_t old_end = asleep_until_old_deadline(&wd, &t);
    ck_assert_uint_gt(old_end, sbx__now_ns() + 5000000000ull); /* still the old deadline */
    ck_assert_int_eq(sbx__plugin_watchdog_arm(&wd, 20000, 50, &t), SBX_OK);
    bool is_ticking = wait_end_becomes(&wd, is_before, old_end);
    sbx__plugin_watchdog_disarm(&wd);
    sbx__plugin_watchdog_destroy(&wd);
    ck_assert_msg(is_ticking, "the throttled call left the watchdog asleep");
}
END_TEST

static atomic_int timeouts_seen;

static void count_timeout(void *user)
{
    (void)user;
    atomic_fetch_add(&timeouts_seen, 1);
}

START_TEST(earlier_deadline_wakes_a_waiting_watchdog)
{
    /* After a call with a 10 s deadline the watchdog thread sleeps on until it. A call armed
     * next with an earlier deadline (200 ms) wakes it, which then times that call out at its
     * own deadline; one with a later deadline (20 s) leaves it asleep (no wakeup per call:
     * waking at the old deadline it sees the new one). Which of the two happened depended on
     * how the suites' calls followed each other (moved between coverage runs, issue 15). */
    struct sbx__watchdog wd = {.on_timeout = count_timeout};
    atomic_int stop = SBX_OK;
    struct sbx__throttle t = {.stop_reason = &stop};
    uint64_t old_end = asleep_until_old_deadline(&wd, &t);
    ck_assert_int_eq(sbx__plugin_watchdog_arm(&wd, 20000, 100, &t), SBX_OK);
    usleep(100 * 1000);
    uint64_t end_later = wait_end(&wd);
    sbx__plugin_watchdog_disarm(&wd);
    ck_assert_msg(end_later == old_end, "a later deadline woke the watchdog");
    double t0 = now_ms();
    ck_assert_int_eq(sbx__plugin_watchdog_arm(&wd, 200, 100, &t), SBX_OK);
    while (atomic_load(&timeouts_seen) == 0 && now_ms() - t0 < 5000)
        usleep(1000);
    double took = now_ms() - t0;
    sbx__plugin_watchdog_disarm(&wd);
    sbx__plugin_watchdog_destroy(&wd);
    int seen = atomic_load(&timeouts_seen);
    ck_assert_int_eq(seen, 1);
    ck_assert_msg(took >= 199 && took < 5000, "timed out after %.0f ms, not at 200", took);
}
END_TEST

START_TEST(cpu_percent_throttles_to_share)
{
    ck_assert_uint_eq(spin_run(100, 300).paused_ns, 0); /* never paused without a cpuPercent */
    /* At 1% every pause the watchdog computes is over its 50 ms cap (2 ms of CPU owe 200 ms):
     * the cap is taken whatever the load. */
    static const int shares[] = {25, 10, 1};
    int pct = shares[_i];
    struct spin s = spin_run(pct, 600);
    /* The throttle guarantees the ceiling; a loaded host may give the guest even less. Ticks
     * the watchdog got late (it waited for a CPU) let the guest run on until the next one. */
    double ceiling = (pct / 100.0 + 0.05) * s.wall_ms + s.others_waited_ms;
    ck_assert_msg(s.cpu_ms < ceiling, "cpu %.1f ms for %d%% of %.1f ms", s.cpu_ms, pct, s.wall_ms);
    /* When the host left the guest more than twice its share, the throttle must have paused it. */
    if (s.wall_ms - s.waited_ms - s.others_waited_ms > 2.0 * pct / 100.0 * s.wall_ms)
        ck_assert_msg(s.paused_ns > 100000000ull, "paused only %.1f ms", (double)s.paused_ns / 1e6);
}
END_TEST

/* ---- telemetry --------------------------------------------------------------------------- */

static char seen_span[64], seen_backend[16], seen_outcome[16];
static int span_ends;

static void *on_span_start(void *user, const char *name, const sbx_attr *attrs, size_t n)
{
    (void)user;
    snprintf(seen_span, sizeof(seen_span), "%s", name);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(attrs[i].key, "backend"))
            snprintf(seen_backend, sizeof(seen_backend), "%s", attrs[i].value);
    return seen_span;
}

static void on_span_end(void *user, void *span, const sbx_attr *attrs, size_t n, bool is_error,
                        const char *msg)
{
    (void)user;
    (void)is_error;
    (void)msg;
    ck_assert_ptr_eq(span, seen_span);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(attrs[i].key, "outcome"))
            snprintf(seen_outcome, sizeof(seen_outcome), "%s", attrs[i].value);
    span_ends++;
}

START_TEST(span_for_direct_runs)
{
    sbx_telemetry_hooks h = {.span_start = on_span_start, .span_end = on_span_end};
    sbx_telemetry_set_hooks(&h);
    size_t len;
    uint8_t *bytes = wb_fixture_trap(&len);
    sbx_wasm_sandbox *sb = make(bytes, len, "{}", NULL);
    sbx_result r;
    sbx_wasm_sandbox_run(sb, &r);
    sbx_result_free(&r);
    sbx_telemetry_set_hooks(NULL);
    ck_assert_str_eq(seen_span, "sandbox.run");
    ck_assert_str_eq(seen_backend, "wasm");
    ck_assert_str_eq(seen_outcome, "error");
    ck_assert_int_eq(span_ends, 1);
    sbx_wasm_sandbox_destroy(sb);
    /* Through sbx_sandbox_run() core makes the one span; the handle inside adds none. */
    sbx_telemetry_set_hooks(&h);
    sbx_sandbox *box = sbx_test_sandbox(SBX_BACKEND_WASM, NULL);
    bytes = wb_fixture_print_exit("x", 1, 0, &len);
    sbx_run_input in = {.module = bytes, .module_len = len};
    ck_assert_int_eq(sbx_sandbox_run(box, &in, &r), SBX_OK);
    sbx_telemetry_set_hooks(NULL);
    ck_assert_int_eq(span_ends, 2);
    ck_assert_str_eq(seen_backend, "wasm");
    ck_assert_str_eq(seen_outcome, "ok");
    sbx_result_free(&r);
    sbx_sandbox_destroy(box);
    free(bytes);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plugin_sandbox");
    TCase *tc = tcase_create("sandbox");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, command_output_is_captured);
    tcase_add_test(tc, stderr_and_exit_code);
    tcase_add_test(tc, output_is_capped);
    tcase_add_test(tc, trap_gives_message);
    tcase_add_test(tc, timeout_stops_a_spin);
    tcase_add_test(tc, fuel_runs_out);
    tcase_add_test(tc, timeout_after_many_quick_calls);
    tcase_add_test(tc, abort_from_another_thread);
    tcase_add_test(tc, core_abort_before_the_handle_is_found);
    tcase_add_test(tc, reactor_initialize_and_calls);
    tcase_add_test(tc, call_checks_export_and_types);
    tcase_add_test(tc, dispose_is_idempotent);
    tcase_add_test(tc, memory_bytes_caps_growth);
    tcase_add_test(tc, bad_module_and_arguments);
    tcase_add_test(tc, initialize_is_under_the_limits);
    tcase_add_loop_test(tc, cpu_percent_throttles_to_share, 0, 3);
    tcase_add_test(tc, throttled_arm_wakes_a_waiting_watchdog);
    tcase_add_test(tc, earlier_deadline_wakes_a_waiting_watchdog);
    tcase_add_test(tc, span_for_direct_runs);
    tcase_add_test(tc, net_denials_listed);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

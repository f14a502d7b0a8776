/* Streaming output (sbx_run_input.on_output) in every tier: chunks arrive while the guest runs,
 * in order, only within maxOutputBytes, equal to the captured output, never after the run
 * returned; and sbx_run_input.cwd, the process tier's working directory. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sbx.h>

#include "../jail/jail_test.h"
#include "js/engine.h"
#include "sbx_test.h"
#include "wasm_builder.h"

struct chunks {
    pthread_mutex_t lock; /* the worker tier calls from its engine thread */
    char text[2][4096];   /* stdout, stderr as delivered */
    size_t len[2];
    int count;
    double first_ms; /* when the first chunk came, from the run's start */
    struct timespec start;
};

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static void on_chunk(void *user, sbx_stream stream, const char *data, size_t len)
{
    struct chunks *c = user;
    ck_assert(stream == SBX_STREAM_STDOUT || stream == SBX_STREAM_STDERR);
    ck_assert_uint_gt(len, 0);
    pthread_mutex_lock(&c->lock);
    int i = stream == SBX_STREAM_STDERR;
    if (c->count++ == 0)
        c->first_ms = since(&c->start);
    if (c->len[i] + len < sizeof(c->text[i])) {
        memcpy(c->text[i] + c->len[i], data, len);
        c->len[i] += len;
    }
    pthread_mutex_unlock(&c->lock);
}

/* Runs in (with the tap added) and checks the chunks equal the captured output. Returns the
 * run's duration in ms. */
static double run_tapped(sbx_backend tier, const char *policy, sbx_run_input *in, struct chunks *c,
                         sbx_result *r)
{
    memset(c, 0, sizeof(*c));
    pthread_mutex_init(&c->lock, NULL);
    in->on_output = on_chunk;
    in->on_output_user = c;
    clock_gettime(CLOCK_MONOTONIC, &c->start);
    sbx_test_run_once(tier, policy, in, r);
    double took = since(&c->start);
    pthread_mutex_lock(&c->lock);
    ck_assert_uint_eq(c->len[0], r->stdout_len);
    ck_assert_uint_eq(c->len[1], r->stderr_len);
    ck_assert(r->stdout_len == 0 || memcmp(c->text[0], r->stdout_data, r->stdout_len) == 0);
    ck_assert(r->stderr_len == 0 || memcmp(c->text[1], r->stderr_data, r->stderr_len) == 0);
    pthread_mutex_unlock(&c->lock);
    return took;
}

START_TEST(worker_streams_console_calls)
{
    const char *code = "console.log('a'); console.error('b', 2);"
                       "const t = Date.now(); while (Date.now() - t < 300) {} console.log('c');";
    sbx_run_input in = {.code = code, .code_len = strlen(code)};
    struct chunks c;
    sbx_result r;
    double took = run_tapped(SBX_BACKEND_WORKER, NULL, &in, &c, &r);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_int_eq(c.count, 3); /* one chunk per console call */
    ck_assert_str_eq(c.text[0], "a\nc\n");
    ck_assert_str_eq(c.text[1], "b 2\n");
    /* Control for "as written": the first chunk came well before the run ended. */
    ck_assert_msg(c.first_ms < took - 200, "first chunk at %.1f ms of %.1f", c.first_ms, took);
    sbx_result_free(&r);
}
END_TEST

START_TEST(worker_chunks_stop_at_the_cap)
{
    const char *code = "console.log('0123456789'); console.log('more'); return 1";
    sbx_run_input in = {.code = code, .code_len = strlen(code)};
    struct chunks c;
    sbx_result r;
    run_tapped(SBX_BACKEND_WORKER, "{\"maxOutputBytes\": 5}", &in, &c, &r);
    ck_assert(r.stdout_truncated);
    ck_assert_int_eq(c.count, 1);
    ck_assert_str_eq(c.text[0], "01234");
    sbx_result_free(&r);
}
END_TEST

static int late_calls;
static void count_late(void *user, sbx_stream stream, const char *data, size_t len)
{
    (void)user, (void)stream, (void)data, (void)len;
    __atomic_add_fetch(&late_calls, 1, __ATOMIC_SEQ_CST);
}

/* An engine stuck past its deadline is abandoned and keeps printing: the caller, back from the
 * run, must hear nothing more from it. The control: while the run lasted, calls came. */
START_TEST(abandoned_worker_never_calls_after_return)
{
    sbx__js_test_deaf_ms(600);
    const char *code = "for (;;) console.log('x')";
    sbx_run_input in = {.code = code, .code_len = strlen(code), .on_output = count_late};
    sbx_result r;
    sbx_test_run_once(SBX_BACKEND_WORKER, "{\"timeoutMs\": 100, \"maxOutputBytes\": 100000000}",
                      &in, &r);
    ck_assert_int_eq(r.error, SBX_E_TIMEOUT);
    int at_return = __atomic_load_n(&late_calls, __ATOMIC_SEQ_CST);
    ck_assert_int_gt(at_return, 0);
    usleep(300 * 1000);
    ck_assert_int_eq(__atomic_load_n(&late_calls, __ATOMIC_SEQ_CST), at_return);
    sbx_result_free(&r);
    sbx__js_test_deaf_ms(0);
}
END_TEST

START_TEST(process_streams_pipe_reads)
{
    const char *argv[] = {"/bin/sh", "-c", "echo a; echo b >&2; sleep 0.3; echo c", NULL};
    sbx_run_input in = {.argv = argv};
    struct chunks c;
    sbx_result r;
    double took = run_tapped(SBX_BACKEND_PROCESS, NULL, &in, &c, &r);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_str_eq(c.text[0], "a\nc\n");
    ck_assert_str_eq(c.text[1], "b\n");
    ck_assert_int_ge(c.count, 3);
    ck_assert_msg(c.first_ms < took - 200, "first chunk at %.1f ms of %.1f", c.first_ms, took);
    sbx_result_free(&r);
}
END_TEST

START_TEST(process_chunks_stop_at_the_cap)
{
    const char *argv[] = {"/bin/sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x", NULL};
    sbx_run_input in = {.argv = argv};
    struct chunks c;
    sbx_result r;
    run_tapped(SBX_BACKEND_PROCESS, "{\"maxOutputBytes\": 1000}", &in, &c, &r);
    ck_assert(r.stdout_truncated);
    ck_assert_uint_eq(c.len[0], 1000);
    sbx_result_free(&r);
}
END_TEST

/* sbx-js in the jail prints as its guest writes (cli/guest_js.c), so the host streams it. */
START_TEST(process_js_guest_streams)
{
    const char *code = "console.log('a'); const t = Date.now(); while (Date.now() - t < 400) {}"
                       "console.log('b'); return 1";
    sbx_run_input in = {.code = code, .code_len = strlen(code)};
    struct chunks c;
    sbx_result r;
    double took = run_tapped(SBX_BACKEND_PROCESS, NULL, &in, &c, &r);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_str_eq(c.text[0], "a\nb\n");
    ck_assert_msg(c.first_ms < took - 250, "first chunk at %.1f ms of %.1f", c.first_ms, took);
    sbx_result_free(&r);
}
END_TEST

/* _start: fd_write "out\n" to 1, "err\n" to 2, then a loop until the deadline. */
static uint8_t *print_then_spin(size_t *len)
{
    struct wb *w = wb_new();
    uint32_t fd_write = wb_import_func(w, "wasi_snapshot_preview1", "fd_write", "iiii", "i");
    wb_memory(w, 1, -1);
    wb_export_memory(w, "memory");
    uint32_t iov[4] = {64, 4, 68, 4}; /* two iovecs at 0 and 8 */
    wb_data(w, 0, iov, sizeof(iov));
    wb_data(w, 64, "out\nerr\n", 8);
    struct wb_bytes c = {0};
    for (int fd = 1; fd <= 2; fd++) {
        wbc_i32_const(&c, fd);
        wbc_i32_const(&c, fd == 1 ? 0 : 8);
        wbc_i32_const(&c, 1);
        wbc_i32_const(&c, 32);
        wbc_call(&c, fd_write);
        wbc_op(&c, WB_OP_DROP);
    }
    wbc_spin(&c);
    wbc_end(&c);
    return wb_finish_export(w, "_start", "", "", &c, len);
}

START_TEST(wasm_streams_fd_writes)
{
    size_t len;
    uint8_t *mod = print_then_spin(&len);
    ck_assert_ptr_nonnull(mod);
    sbx_run_input in = {.module = mod, .module_len = len};
    struct chunks c;
    sbx_result r;
    double took = run_tapped(SBX_BACKEND_WASM, "{\"timeoutMs\": 400}", &in, &c, &r);
    ck_assert_int_eq(r.error, SBX_E_TIMEOUT);
    ck_assert_int_eq(c.count, 2);
    ck_assert_str_eq(c.text[0], "out\n");
    ck_assert_str_eq(c.text[1], "err\n");
    ck_assert_msg(c.first_ms < took - 250, "first chunk at %.1f ms of %.1f", c.first_ms, took);
    sbx_result_free(&r);
    free(mod);
}
END_TEST

START_TEST(process_cwd)
{
    const char *argv[] = {"/bin/sh", "-c", "pwd; ls", NULL};
    sbx_run_input in = {.argv = argv, .cwd = "/usr"};
    sbx_result r;
    sbx_test_run_once(SBX_BACKEND_PROCESS, NULL, &in, &r);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_ptr_nonnull(strstr(r.stdout_data, "/usr\n"));
    ck_assert_ptr_nonnull(strstr(r.stdout_data, "bin\n")); /* `ls` ran there */
    sbx_result_free(&r);
    /* A relative program is found from the working directory, as execve does. */
    const char *rel[] = {"./bin/true", NULL};
    sbx_run_input in2 = {.argv = rel, .cwd = "/usr"};
    sbx_test_run_once(SBX_BACKEND_PROCESS, NULL, &in2, &r);
    ck_assert_msg(r.ok, "%s", r.error_message);
    sbx_result_free(&r);
    in2.cwd = NULL; /* control: from "/" (the default) ./true names nothing */
    in2.argv = (const char *const[]){"./true", NULL};
    sbx_test_run_once(SBX_BACKEND_PROCESS, NULL, &in2, &r);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.exit_code, 127);
    sbx_result_free(&r);
}
END_TEST

START_TEST(process_cwd_missing_fails_clearly)
{
    const char *argv[] = {"/bin/true", NULL};
    sbx_run_input in = {.argv = argv, .cwd = "/no/such/dir"};
    sbx_result r;
    sbx_test_run_once(SBX_BACKEND_PROCESS, NULL, &in, &r);
    ck_assert(!r.ok);
    ck_assert_int_eq(r.error, SBX_E_EXECUTION_FAILED);
    ck_assert_int_eq(r.exit_code, 126);
    ck_assert_msg(strstr(r.error_message, "working directory '/no/such/dir'"), "%s",
                  r.error_message);
    sbx_result_free(&r);
    in.cwd = "relative";
    ck_assert_int_eq(sbx_test_run_once(SBX_BACKEND_PROCESS, NULL, &in, &r), SBX_E_INVALID_ARGUMENT);
    sbx_result_free(&r);
}
END_TEST

START_TEST(cwd_is_process_only)
{
    sbx_run_input in = {.code = "return 1", .code_len = 8, .cwd = "/tmp"};
    sbx_result r;
    ck_assert_int_eq(sbx_test_run_once(SBX_BACKEND_WORKER, NULL, &in, &r), SBX_E_INVALID_ARGUMENT);
    sbx_result_free(&r);
    size_t len;
    uint8_t *mod = wb_fixture_print_exit("x", 1, 0, &len);
    sbx_run_input w = {.module = mod, .module_len = len, .cwd = "/tmp"};
    ck_assert_int_eq(sbx_test_run_once(SBX_BACKEND_WASM, NULL, &w, &r), SBX_E_INVALID_ARGUMENT);
    sbx_result_free(&r);
    free(mod);
}
END_TEST

/* A caller that blocks SIGTERM and ignores SIGPIPE (a server with a signal thread) must not
 * hand that to its guests: they start with nothing blocked or ignored. */
START_TEST(guest_signals_are_default_whatever_the_caller_set)
{
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    void (*was)(int) = signal(SIGPIPE, SIG_IGN);
    const char *argv[] = {"/bin/grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status", NULL};
    sbx_run_input in = {.argv = argv};
    sbx_result r;
    sbx_test_run_once(SBX_BACKEND_PROCESS, NULL, &in, &r);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    signal(SIGPIPE, was);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_str_eq(r.stdout_data, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
    sbx_result_free(&r);
}
END_TEST

static Suite *stream_suite(void)
{
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, worker_streams_console_calls);
    tcase_add_test(tc, worker_chunks_stop_at_the_cap);
    tcase_add_test(tc, abandoned_worker_never_calls_after_return);
    tcase_add_test(tc, process_streams_pipe_reads);
    tcase_add_test(tc, process_chunks_stop_at_the_cap);
    tcase_add_test(tc, process_js_guest_streams);
    tcase_add_test(tc, wasm_streams_fd_writes);
    tcase_add_test(tc, process_cwd);
    tcase_add_test(tc, process_cwd_missing_fails_clearly);
    tcase_add_test(tc, cwd_is_process_only);
    tcase_add_test(tc, guest_signals_are_default_whatever_the_caller_set);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    jt_guest_binary(); /* this build's sbx for the sbx-js guest */
    return sbx_test_main(stream_suite());
}

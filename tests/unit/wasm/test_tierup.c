/* AUTO tier's background tier-up (src/wasm/jit/tierup.c): a store that interprets long enough
 * gets native code and its calls switch to it (the engine's entry counter says so, no timing
 * is asserted), a short run never loads LLVM, destroying a store while its compile is in
 * flight is clean (run under ASan by `make SAN=1 test`), and neither sbx_shutdown() nor exit()
 * returns while a load or compile is in flight (src/wasm/jit/quiesce.c). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/jit/jit.h"
#include "wasm/runtime.h"
#include "wasm_builder.h"
#include "wasm_env.h"

/* work(n) = n + (n-1) + ... + 1 by a loop; run() = work(100), wait(), work(100) + the wait's
 * result (1 when the state was reached); quick() = work(3). pad extra functions, the i-th
 * returning work(i % 64 + 1) after filler pairs of i32.const/drop, make the module larger
 * (exported: the last, as "last"). */
static uint8_t *build(uint32_t pad, uint32_t filler, size_t *len)
{
    struct wb *w = wb_new();
    uint32_t wait = wb_import_func(w, "t", "wait", "", "i");
    uint32_t work = wb_func_sum(w);
    struct wb_bytes r = {0};
    wbc_i32_const(&r, 100), wbc_call(&r, work), wbc_op(&r, WB_OP_DROP);
    wbc_call(&r, wait), wbc_i32_const(&r, 100), wbc_call(&r, work), wbc_op(&r, WB_OP_I32_ADD);
    wbc_end(&r);
    wb_export_func(w, "run", wb_func(w, "", "i", "", &r));
    wb_bytes_free(&r);
    struct wb_bytes q = {0};
    wbc_i32_const(&q, 3), wbc_call(&q, work), wbc_end(&q);
    wb_export_func(w, "quick", wb_func(w, "", "i", "", &q));
    wb_bytes_free(&q);
    uint32_t last = 0;
    for (uint32_t i = 0; i < pad; i++) {
        struct wb_bytes p = {0};
        for (uint32_t k = 0; k < filler; k++) /* bytes for the split, no code for LLVM */
            wbc_i32_const(&p, 1), wbc_op(&p, WB_OP_DROP);
        wbc_i32_const(&p, (int32_t)(i % 64) + 1), wbc_call(&p, work), wbc_end(&p);
        last = wb_func(w, "", "i", "", &p);
        wb_bytes_free(&p);
    }
    if (pad)
        wb_export_func(w, "last", last);
    uint8_t *bytes = wb_finish(w, len);
    wb_free(w);
    ck_assert_ptr_nonnull(bytes);
    return bytes;
}

static void env_open_tier(struct wenv *e, uint32_t pad, uint32_t filler, uint32_t tierup_ms,
                          uint8_t tier, uint8_t hot_only)
{
    size_t len;
    uint8_t *bytes = build(pad, filler, &len);
    struct wasm_store_limits l = {.tier = tier, .tierup_ms = tierup_ms, .hot_only = hot_only};
    wenv_open(e, bytes, len, &l);
    free(bytes);
    wenv_instantiate(e, wenv_resolve_wait, e);
}

static void env_open(struct wenv *e, uint32_t pad, uint32_t tierup_ms)
{
    env_open_tier(e, pad, 0, tierup_ms, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
}

static uint32_t call(struct wenv *e, const char *name)
{
    return wenv_call_i32(e, name, NULL);
}

/* One interpreted call spans the tier-up: its second call of work() is native (entered from
 * the interpreter), and the result is the same; later host entries are native too. */
START_TEST(long_run_switches_to_native)
{
    struct wenv e;
    env_open(&e, 0, 1);
    e.wait_for = WASM_TIERUP_NATIVE;
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), 0);
    ck_assert_int_eq(call(&e, "run"), 5050 + 1);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_NATIVE);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), 1); /* work(), from run() */
    ck_assert_int_eq(call(&e, "quick"), 6);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), 2); /* quick(), from the host */
    ck_assert(sbx__jit_llvm_is_loaded());
    wenv_close(&e);
}
END_TEST

/* Under the default threshold a short call never compiles: even past the worker's first look
 * (the threshold counts time inside calls only), LLVM is not loaded. Check forks each test,
 * so nothing else in this process loaded it. */
START_TEST(short_run_never_starts_llvm)
{
    struct wenv e;
    env_open(&e, 0, 0);
    ck_assert_int_eq(call(&e, "quick"), 6);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_ARMED);
    usleep(400 * 1000); /* twice the default threshold */
    ck_assert_int_eq(call(&e, "quick"), 6);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_ARMED);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), 0);
    ck_assert(!sbx__jit_llvm_is_loaded());
    wenv_close(&e);
}
END_TEST

/* The store goes while its compile runs (2,000 more functions make it last): destroy waits
 * for the worker to stop, which then compiles the next store normally. */
START_TEST(destroy_during_compile)
{
    struct wenv e;
    env_open(&e, 2000, 1);
    e.wait_for = WASM_TIERUP_COMPILING;
    ck_assert_int_eq(call(&e, "run"), 5050 + 1);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_COMPILING);
    wenv_close(&e);
    struct wenv e2;
    env_open(&e2, 0, 1);
    e2.wait_for = WASM_TIERUP_NATIVE;
    ck_assert_int_eq(call(&e2, "run"), 5050 + 1);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e2.store), 1);
    wenv_close(&e2);
}
END_TEST

/* What the exit hook does (sbx__wasm_tierup_stop) while a compile runs: it cancels it, and no
 * store armed after it ever compiles. Driven here because at a real exit a
 * compile is in flight only by chance. Check forks each test: the stop stays in this one. */
START_TEST(stop_during_compile)
{
    struct wenv e;
    env_open(&e, 2000, 1);
    e.wait_for = WASM_TIERUP_COMPILING;
    ck_assert_int_eq(call(&e, "run"), 5050 + 1);
    sbx__wasm_tierup_stop();
    /* The stop waits for LLVM's work only (jit/quiesce.c); the worker marks the store after. */
    for (int ms = 0; ms < 5000 && sbx__wasm_store_tierup_state(e.store) == WASM_TIERUP_COMPILING;
         ms++)
        usleep(1000);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_FAILED);
    ck_assert_int_eq(call(&e, "quick"), 6);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), 0);
    wenv_close(&e);
    struct wenv e2;
    env_open(&e2, 0, 1);
    ck_assert_int_eq(call(&e2, "quick"), 6);
    usleep(100 * 1000); /* a hundred times its threshold */
    ck_assert_int_eq(call(&e2, "quick"), 6);
    ck_assert_uint_ne(sbx__wasm_store_tierup_state(e2.store), WASM_TIERUP_NATIVE);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e2.store), 0);
    wenv_close(&e2);
}
END_TEST

/* Fuel runs stay in the interpreter, which counts fuel: a metered store never arms. */
START_TEST(fuel_runs_stay_interpreted)
{
    struct wenv e;
    env_open(&e, 0, 1);
    sbx__wasm_store_set_fuel(e.store, 1000000);
    ck_assert_int_eq(call(&e, "quick"), 6);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_IDLE);
    wenv_close(&e);
}
END_TEST

/* A function body past 256 KiB (LLVM's time grows faster than its size) keeps the store
 * interpreted: the whole-module tier-up reaches FAILED without loading LLVM, and the store
 * runs on correctly. */
START_TEST(huge_function_stays_interpreted)
{
    struct wenv e;
    env_open_tier(&e, 1, 100000, 1, WASM_TIER_AUTO, WASM_HOT_OFF);
    e.wait_for = WASM_TIERUP_FAILED;
    ck_assert_int_eq(call(&e, "run"), 5050 + 1);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_FAILED);
    ck_assert_int_eq(call(&e, "quick"), 6);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), 0);
    ck_assert(!sbx__jit_llvm_is_loaded());
    wenv_close(&e);
}
END_TEST

/* The same module takes the hot-only tier-up by default (it has 64 KiB of code or more): the
 * huge function, however hot, is never queued and stays interpreted, while its small callee,
 * hot through it, gets native code. */
START_TEST(huge_function_never_queued)
{
    struct wenv e;
    env_open_tier(&e, 1, 100000, 1, WASM_TIER_AUTO, WASM_HOT_DEFAULT);
    for (double end = wenv_now_s() + WENV_WAIT_S;
         sbx__wasm_store_lazy_compiled(e.store) == 0 && wenv_now_s() < end;)
        ck_assert_int_eq(call(&e, "last"), 1); /* work(1) */
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_LAZY);
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(e.store), 1);
    for (int i = 0; i < 2000; i++)
        ck_assert_int_eq(call(&e, "last"), 1);
    usleep(100 * 1000); /* a hundred times its threshold */
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(e.store), 1);
    ck_assert_ptr_null(__atomic_load_n(&wenv_export_func(&e, "last")->jit_entry, __ATOMIC_ACQUIRE));
    wenv_close(&e);
}
END_TEST

/* A module past engine.c's 64 KiB split (two functions of 36 KB each, mostly i32.const/drop
 * pairs that give LLVM nothing to do) is compiled as two parts on two threads: the second
 * part's last() calls work() in the first, and host entries into both are native. */
START_TEST(two_part_module)
{
    struct wenv e;
    env_open_tier(&e, 2, 12000, 0, WASM_TIER_COMPILED, WASM_HOT_DEFAULT);
    ck_assert_uint_ge(e.m->len, 64u << 10);
    ck_assert_int_eq(call(&e, "quick"), 6);
    ck_assert_int_eq(call(&e, "last"), 2 * 3 / 2); /* the second pad: work(1 % 64 + 1) */
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), 2);
    wenv_close(&e);
}
END_TEST

/* The library's test hook (jit.h): the use of LLVM at pause_where sleeps PAUSE_US, then
 * writes 'r' to pause_fd, so the parent knows the pause ended before the process did. */
#define PAUSE_US 300000

static int pause_where = -1, pause_fd = -1;
static atomic_bool is_paused, has_resumed;

void sbx__jit_test_pause(int where)
{
    if (where != pause_where || atomic_exchange(&is_paused, true))
        return;
    usleep(PAUSE_US);
    atomic_store(&has_resumed, true);
    if (write(pause_fd, "r", 1) != 1)
        _exit(96);
}

static void wait_paused(void)
{
    for (double end = wenv_now_s() + WENV_WAIT_S; !atomic_load(&is_paused); usleep(1000)) {
        if (wenv_now_s() > end)
            _exit(99);
    }
}

/* Runs child(k) in a process of its own (its own worker and LLVM load; this one never loads
 * it); it must end with status 40 + k, by no signal, having printed nothing and written the
 * hook's 'r' (the paused use finished before the process did). */
static void run_child(void (*child)(void), const char *what)
{
    int out[2], mark[2];
    ck_assert_int_eq(pipe(out), 0);
    ck_assert_int_eq(pipe(mark), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(out[1], STDERR_FILENO);
        close(out[0]), close(mark[0]);
        pause_fd = mark[1];
        child();
        _exit(95);
    }
    close(out[1]), close(mark[1]);
    char err[4096] = "", r = 0;
    size_t n = 0;
    for (ssize_t k; (k = read(out[0], err + n, sizeof(err) - 1 - n)) > 0 && n < sizeof(err) - 1;)
        n += (size_t)k; /* to its end: a report cut short would end the child by SIGPIPE */
    ssize_t nr = read(mark[0], &r, 1);
    close(out[0]), close(mark[0]);
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 40 && n == 0,
                  "%s: child status %#x, stderr [%s]", what, st, err);
    ck_assert_msg(nr == 1 && r == 'r', "%s: the process ended inside the paused use of LLVM", what);
    ck_assert(!sbx__jit_llvm_is_loaded());
}

/* The worker is paused inside the load (dlopen done, LLVM's constructors run, the target not
 * yet initialised): sbx_shutdown() returns only after the load, and the compile that would
 * follow never starts (the store stays interpreted). Without the stop, exit() here ran LLVM's
 * destructors under the load: 3 of 60 C hosts exiting 150-700 ms into a run crashed. */
static void shutdown_child(void)
{
    struct wenv e;
    pause_where = 0;
    env_open(&e, 100, 1);
    e.wait_for = WASM_TIERUP_COMPILING;
    if (call(&e, "run") != 5050 + 1)
        _exit(98);
    wait_paused();
    sbx_shutdown();
    if (!atomic_load(&has_resumed))
        _exit(97);
    if (!wenv_wait_tierup(e.store, WASM_TIERUP_FAILED))
        _exit(94);
    exit(40);
}

START_TEST(shutdown_waits_for_load)
{
    run_child(shutdown_child, "shutdown during the load");
}
END_TEST

/* The compiled tier compiles on the instantiating thread, outside the worker: an exit() from
 * another thread while it compiles (paused at its start, after the load) waits for it through
 * the exit hook, and the compile stops at its next function. */
static void *instantiate_compiled(void *arg)
{
    (void)arg;
    static struct wenv e; /* no Check assertions here: this is not the test's thread */
    char err[256];
    size_t len;
    uint8_t *bytes = build(100, 0, &len);
    struct wasm_store_limits l = {.tier = WASM_TIER_COMPILED};
    sbx_err rc = sbx__wasm_module_load(bytes, len, &e.m, err, sizeof(err));
    free(bytes);
    if (rc != SBX_OK || sbx__wasm_store_create(&l, &e.store) != SBX_OK)
        _exit(92);
    sbx__wasm_instantiate(e.store, e.m, wenv_resolve_wait, &e, &e.inst, NULL, err,
                          sizeof(err)); /* stopped: fails */
    return NULL;
}

static void compiled_exit_child(void)
{
    pause_where = 1;
    pthread_t t;
    if (pthread_create(&t, NULL, instantiate_compiled, NULL) != 0)
        _exit(93);
    wait_paused();
    exit(40);
}

START_TEST(exit_waits_for_compiled_tier)
{
    run_child(compiled_exit_child, "exit during a compiled-tier compile");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_tierup");
    TCase *tc = tcase_create("tierup");
    tcase_set_timeout(tc, 2 * WENV_WAIT_S + 30);
    tcase_add_test(tc, long_run_switches_to_native);
    tcase_add_test(tc, short_run_never_starts_llvm);
    tcase_add_test(tc, destroy_during_compile);
    tcase_add_test(tc, stop_during_compile);
    tcase_add_test(tc, fuel_runs_stay_interpreted);
    tcase_add_test(tc, two_part_module);
    tcase_add_test(tc, huge_function_stays_interpreted);
    tcase_add_test(tc, huge_function_never_queued);
    tcase_add_test(tc, shutdown_waits_for_load);
    tcase_add_test(tc, exit_waits_for_compiled_tier);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

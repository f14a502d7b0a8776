/* tests/unit/wasm/test_cache_hot.c: what the default (auto) tier compiles is kept (issue 28,
 * src/wasm/jit/cache_hot.c): a hot-only store's batches go into the module's partial image, in
 * memory and in the cache directory, and a later store of the same module, in another process,
 * starts with native code for them at its first look, with no batch and LLVM never loaded (a
 * whole-module tier-up's image likewise). Also: two processes writing one entry leave a good
 * one, and a module changed by one byte misses. Stores that compile run in child processes, so
 * that the test's own process never loads LLVM. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/jit/cache.h"
#include "wasm/jit/image.h"
#include "wasm/jit/jit.h"
#include "wasm/module.h"
#include "wasm/wasm.h"
#include "wasm_builder.h"
#include "wasm_env.h"

static char dir[PATH_MAX];

static void setup(void)
{
    wenv_cache_dir_make(dir, sizeof(dir), "cache-hot");
}

static void teardown(void)
{
    wenv_cache_dir_remove(dir);
}

static void open_env(struct wenv *e, int32_t k, uint8_t tier, uint8_t hot_only)
{
    size_t len;
    uint8_t *bytes = wb_fixture_quick_sum(k, &len);
    ck_assert_ptr_nonnull(bytes);
    struct wasm_store_limits l = {
        .tier = tier, .tierup_ms = 1, .use_cache = true, .hot_only = hot_only};
    wenv_open(e, bytes, len, &l);
    free(bytes);
    wenv_instantiate(e, NULL, NULL);
}

static int32_t sum(int32_t k)
{
    return k * (k + 1) / 2;
}

static bool work_is_native(const struct wenv *e)
{
    /* work() is function 0 (wb_func_sum came first) */
    return __atomic_load_n(&e->inst->funcs[0]->jit_entry, __ATOMIC_ACQUIRE) != NULL;
}

/* Calls quick() until work() is native (a batch, or the first look's hit), at most WENV_WAIT_S.
 */
static void run_until_native(struct wenv *e, int32_t k)
{
    for (double end = wenv_now_s() + WENV_WAIT_S; !work_is_native(e) && wenv_now_s() < end;)
        ck_assert_int_eq(wenv_call_i32(e, "quick", NULL), sum(k));
    ck_assert_msg(work_is_native(e), "work() got no native code");
}

/* A hot-only run of module k: work() gets hot, its batch is compiled and kept. */
static void hot_run(int32_t k)
{
    struct wenv e;
    open_env(&e, k, WASM_TIER_AUTO, WASM_HOT_ON);
    run_until_native(&e, k);
    ck_assert_uint_ge(sbx__wasm_store_lazy_batches(e.store), 1);
    wenv_close(&e); /* writes what is not written yet */
}

/* What a fresh process sees of module k after one call, once its first look is done. */
struct seen {
    bool is_native, has_llvm;
    uint32_t batches;
    int32_t value;
};

static struct seen first_look(int32_t k, uint8_t hot_only)
{
    struct wenv e;
    struct seen s = {0};
    open_env(&e, k, WASM_TIER_AUTO, hot_only);
    s.value = wenv_call_i32(&e, "quick", NULL); /* arms the store: its first look starts */
    for (double end = wenv_now_s() + 10; !work_is_native(&e) && wenv_now_s() < end;)
        usleep(1000); /* no calls: nothing gets hot meanwhile */
    s.is_native = work_is_native(&e);
    s.batches = sbx__wasm_store_lazy_batches(e.store);
    s.has_llvm = sbx__jit_llvm_is_loaded();
    if (s.is_native)
        ck_assert_int_eq(wenv_call_i32(&e, "quick", NULL), sum(k));
    wenv_close(&e);
    return s;
}

/* Runs f in a child process (so that this one never loads LLVM); fails the test on failure. */
static void in_child(void (*f)(int32_t), int32_t k)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        f(k);
        _exit(0);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed (status %d)", st);
}

/* The second process starts native: work(), hot in the first, has native code once the first
 * look is done, before any of its calls could make it hot, with no batch and LLVM never loaded.
 * The control (no earlier run): not native. */
START_TEST(second_process_starts_native)
{
    struct seen before = first_look(100, WASM_HOT_ON);
    ck_assert(!before.is_native && before.value == sum(100));
    in_child(hot_run, 100);
    struct seen after = first_look(100, WASM_HOT_ON);
    ck_assert_msg(after.is_native, "work() is not native from the cache");
    ck_assert_uint_eq(after.batches, 0);
    ck_assert(!after.has_llvm);
}
END_TEST

/* The same for a whole-module tier-up: the image the first run's tier-up compiled is in the
 * directory, and the second process is native at its first look. */
static void whole_run(int32_t k)
{
    struct wenv e;
    open_env(&e, k, WASM_TIER_AUTO, WASM_HOT_OFF);
    run_until_native(&e, k);
    wenv_close(&e);
}

START_TEST(second_process_starts_native_whole)
{
    in_child(whole_run, 100);
    struct seen after = first_look(100, WASM_HOT_OFF);
    ck_assert(after.is_native && !after.has_llvm);
}
END_TEST

/* A module changed by one byte (work(101) for work(100)) misses: its first look finds nothing. */
START_TEST(changed_module_misses)
{
    in_child(hot_run, 100);
    struct seen other = first_look(101, WASM_HOT_ON);
    ck_assert(!other.is_native && other.value == sum(101));
    struct seen same = first_look(100, WASM_HOT_ON);
    ck_assert(same.is_native); /* the control */
}
END_TEST

/* Two processes run the module hot at once, both writing its partial image: the entry left is
 * whole, and a third process starts native from it. */
START_TEST(two_writers_leave_a_good_entry)
{
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        pid[i] = fork();
        ck_assert_int_ge(pid[i], 0);
        if (pid[i] == 0) {
            hot_run(100);
            _exit(0);
        }
    }
    for (int i = 0; i < 2; i++) {
        int st;
        ck_assert_int_eq(waitpid(pid[i], &st, 0), pid[i]);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    struct seen after = first_look(100, WASM_HOT_ON);
    ck_assert(after.is_native && !after.has_llvm);
}
END_TEST

/* The upgrade (cache_hot.c): never in the first process; in the second, once the processes have
 * spent the hot set's budget (for this module, a few dozen bytes of code: milliseconds), the
 * worker recompiles the set at the hot-set level and that becomes the module's image (flag
 * "upgraded", in memory and on disk), the results still right; a third process links the upgraded
 * image at its first look and, with CPU spent far past the budget, compiles nothing (no second
 * upgrade; the library's hook, where 1, counts LLVM compiles). */
static int compiles;
static int holds_look; /* 1: the worker's first look waits (where 3) until the test sets 0 */

void sbx__jit_test_pause(int where)
{
    __atomic_fetch_add(&compiles, where == 1, __ATOMIC_RELAXED); /* the worker thread's */
    while (where == 3 && __atomic_load_n(&holds_look, __ATOMIC_ACQUIRE))
        usleep(1000);
}

/* Whether this process holds an upgraded partial image of module k (either variant). */
static bool has_upgraded_image(int32_t k)
{
    size_t len;
    uint8_t *bytes = wb_fixture_quick_sum(k, &len);
    bool is_upgraded = false;
    const char *opts[2] = {SBX__JIT_CACHE_OPTS_HOT " guarded", SBX__JIT_CACHE_OPTS_HOT " checked"};
    for (int i = 0; i < 2; i++) {
        uint8_t key[SBX__SHA256_LEN];
        sbx__jit_cache_key(bytes, len, opts[i], key);
        struct sbx__jit_image *im = sbx__jit_mem_get(key);
        is_upgraded |= im && sbx__jit_image_is_upgraded(im);
        sbx__jit_image_free(im);
    }
    free(bytes);
    return is_upgraded;
}

/* Calls quick() until the upgraded image is this process's, at most WENV_WAIT_S. */
static void run_until_upgraded(struct wenv *e, int32_t k)
{
    for (double end = wenv_now_s() + WENV_WAIT_S; !has_upgraded_image(k) && wenv_now_s() < end;)
        ck_assert_int_eq(wenv_call_i32(e, "quick", NULL), sum(k));
    ck_assert_msg(has_upgraded_image(k), "the hot set was not upgraded");
    ck_assert_int_eq(wenv_call_i32(e, "quick", NULL), sum(k)); /* the upgraded code */
}

static void upgrade_run(int32_t k)
{
    struct wenv e;
    open_env(&e, k, WASM_TIER_AUTO, WASM_HOT_ON);
    run_until_native(&e, k);
    run_until_upgraded(&e, k);
    wenv_close(&e);
}

static void upgraded_run(int32_t k)
{
    struct seen s = first_look(k, WASM_HOT_ON);
    ck_assert(s.is_native && !s.has_llvm && s.batches == 0);
    struct wenv e;
    open_env(&e, k, WASM_TIER_AUTO, WASM_HOT_ON);
    ck_assert_int_eq(wenv_call_i32(&e, "quick", NULL), sum(k)); /* arms: the first look */
    double end = wenv_now_s() + 0.3;
    for (volatile uint64_t spin = 0; wenv_now_s() < end;) /* CPU far past the budget */
        spin++;
    ck_assert_int_eq(wenv_call_i32(&e, "quick", NULL), sum(k));
    wenv_close(&e);
    ck_assert_int_eq(__atomic_load_n(&compiles, __ATOMIC_RELAXED), 0);
    ck_assert(!sbx__jit_llvm_is_loaded());
}

/* The first process never upgrades (its CPU is credit for the next): it ends without an
 * upgraded image however long it runs. */
static void first_run(int32_t k)
{
    struct wenv e;
    open_env(&e, k, WASM_TIER_AUTO, WASM_HOT_ON);
    run_until_native(&e, k);
    for (double end = wenv_now_s() + 0.3; wenv_now_s() < end;) /* CPU far past the budget */
        ck_assert_int_eq(wenv_call_i32(&e, "quick", NULL), sum(k));
    ck_assert(!has_upgraded_image(k));
    wenv_close(&e);
}

START_TEST(hot_set_is_upgraded_once_paid)
{
    in_child(first_run, 100);
    in_child(upgrade_run, 100);
    in_child(upgraded_run, 100);
}
END_TEST

/* The second process's work() gets hot in the interpreter and is queued before the store's
 * first look links it from the kept image (the worker's look held until then: the order seen
 * in 1 run of 4 of the test above). The queued function has native code already and, its
 * calls now native, the store's interpretation time no longer grows: the item must not stay
 * queued, or the upgrade, which waits for an empty queue, never comes (it did not, before). */
static void upgrade_run_queued_first(int32_t k)
{
    struct wenv e;
    __atomic_store_n(&holds_look, 1, __ATOMIC_RELEASE);
    open_env(&e, k, WASM_TIER_AUTO, WASM_HOT_ON);
    for (double end = wenv_now_s() + WENV_WAIT_S;
         !__atomic_load_n(&e.store->tierup.queue_len, __ATOMIC_ACQUIRE) && wenv_now_s() < end;)
        ck_assert_int_eq(wenv_call_i32(&e, "quick", NULL), sum(k));
    ck_assert_msg(e.store->tierup.queue_len > 0 && !work_is_native(&e), "work() was not queued");
    __atomic_store_n(&holds_look, 0, __ATOMIC_RELEASE);
    run_until_native(&e, k);
    run_until_upgraded(&e, k);
    wenv_close(&e);
}

START_TEST(upgrade_comes_when_queued_before_the_first_look)
{
    in_child(first_run, 100);
    in_child(upgrade_run_queued_first, 100);
}
END_TEST

/* The upgrade off the runs' clock (sbx__jit_hot_upgrade_module: what `sbx wasm` starts after a
 * run, cli/background.c). A first process that paid for it (its CPU far past the estimate) ends
 * with the module due, and without an upgrade; another process, with no store, upgrades the kept
 * set; a third links the upgraded image at its first look with no batch, no compile, LLVM never
 * loaded. Controls: before any run nothing is due or kept and nothing is done; with the cache
 * directory's upgrade lock held elsewhere (here) nothing is done. */
static bool module_is_due(int32_t k)
{
    size_t len;
    uint8_t *bytes = wb_fixture_quick_sum(k, &len);
    bool is_due = sbx__jit_hot_due(bytes, len);
    free(bytes);
    return is_due;
}

static void first_run_leaves_due(int32_t k)
{
    ck_assert(!module_is_due(k));
    first_run(k); /* never upgrades in the run */
    ck_assert_msg(module_is_due(k), "a first run that paid did not leave the module due");
}

/* Runs the background upgrade of module k; wants says whether it must upgrade (1), find
 * nothing kept (0) or find the lock held (2). */
static void bg_upgrade(int32_t k, int wants)
{
    size_t len;
    uint8_t *bytes = wb_fixture_quick_sum(k, &len);
    struct wasm_module *m = NULL;
    char err[512], path[PATH_MAX];
    bool did = true;
    ck_assert_int_eq(sbx__wasm_module_load(bytes, len, &m, err, sizeof(err)), SBX_OK);
    ck_assert_int_eq(sbx__jit_hot_upgrade_module(m, &did, path, sizeof(path), err, sizeof(err)),
                     SBX_OK);
    ck_assert_msg(did == (wants == 1), "did %d: %s", did, err);
    if (wants == 0)
        ck_assert_str_eq(err, "no hot code kept for this module");
    if (wants == 1)
        ck_assert(has_upgraded_image(k));
    if (wants == 2)
        ck_assert_str_eq(err, "another upgrade is running in this cache directory");
    sbx__wasm_module_destroy(m);
    free(bytes);
}

static void bg_upgrades(int32_t k)
{
    bg_upgrade(k, 1);
}

static void bg_finds_nothing(int32_t k)
{
    bg_upgrade(k, 0);
}

static void bg_finds_the_lock_held(int32_t k)
{
    bg_upgrade(k, 2);
}

START_TEST(upgrade_after_the_run_off_its_clock)
{
    ck_assert(!module_is_due(100)); /* this process ran nothing */
    in_child(bg_finds_nothing, 100);
    in_child(first_run_leaves_due, 100);
    struct sbx__jit_cache c;
    char err[512];
    ck_assert_int_eq(sbx__jit_cache_open(&c, NULL, 0, err, sizeof(err)), SBX_OK);
    int lock = sbx__jit_cache_lock(&c);
    ck_assert_int_ge(lock, 0);
    in_child(bg_finds_the_lock_held, 100);
    close(lock);
    sbx__jit_cache_close(&c);
    in_child(bg_upgrades, 100);
    in_child(upgraded_run, 100);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wasm.cache_hot");
    TCase *tc = tcase_create("cache_hot");
    tcase_set_timeout(tc, 3 * WENV_WAIT_S + 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, second_process_starts_native);
    tcase_add_test(tc, second_process_starts_native_whole);
    tcase_add_test(tc, changed_module_misses);
    tcase_add_test(tc, two_writers_leave_a_good_entry);
    tcase_add_test(tc, hot_set_is_upgraded_once_paid);
    tcase_add_test(tc, upgrade_comes_when_queued_before_the_first_look);
    tcase_add_test(tc, upgrade_after_the_run_off_its_clock);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

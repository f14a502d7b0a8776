/* fork() while the compiled tier uses LLVM (src/wasm/jit/quiesce.c, tierup.c): the tier-up
 * worker is paused inside its load or at the start of its compile (the library's test hook,
 * jit.h), or also a thread waits in sbx_shutdown() for that compile, when the process forks.
 * In the child, which has none of those threads, a new AUTO store runs a guest far past its
 * tier-up threshold with the right results and stays interpreted (LLVM's state may be held by
 * a thread the child lacks: it never compiles there, where before it did), and destroying the
 * store, sbx_shutdown() and exit() return, all within CHILD_S (SIGALRM otherwise). */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
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
#include "wasm/wasm.h"
#include "wasm_builder.h"

#define WAIT_S   120 /* the longest the parent waits for the pause: LLVM under ASan, loaded */
#define CHILD_S  60  /* the child's whole run; past it, it hung */
#define SETTLE_S 3   /* the child's store runs this long unless it tiers up or gives up first */
#define WORK_N   20000
#define WORK_SUM ((int32_t)(WORK_N * (WORK_N + 1) / 2))

/* What the parent's worker held at the fork (its compile's allocations) is reachable in the
 * child from no thread: LeakSanitizer would report it at the child's exit. */
__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:sbx__wasm_jit_instance\n";
}

struct env {
    struct wasm_module *m;
    struct wasm_store *store;
    struct wasm_instance *inst;
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* work() = WORK_N + ... + 1 by a loop. */
static void env_open(struct env *e)
{
    struct wb *w = wb_new();
    struct wb_bytes b = {0};
    wbc_i32_const(&b, WORK_N), wbc_local_set(&b, 0);
    wbc_op(&b, WB_OP_LOOP), wbc_op(&b, WB_BLOCKTYPE_VOID);
    wbc_local_get(&b, 1), wbc_local_get(&b, 0), wbc_op(&b, WB_OP_I32_ADD), wbc_local_set(&b, 1);
    wbc_local_get(&b, 0), wbc_i32_const(&b, 1), wbc_op(&b, WB_OP_I32_SUB), wbc_local_set(&b, 0);
    wbc_local_get(&b, 0), wbc_op(&b, WB_OP_BR_IF), wb_bytes_uleb(&b, 0), wbc_end(&b);
    wbc_local_get(&b, 1), wbc_end(&b);
    wb_export_func(w, "work", wb_func(w, "", "i", "ii", &b));
    wb_bytes_free(&b);
    size_t len;
    uint8_t *bytes = wb_finish(w, &len);
    wb_free(w);
    char err[256] = "";
    ck_assert_int_eq(sbx__wasm_module_load(bytes, len, &e->m, err, sizeof(err)), SBX_OK);
    free(bytes);
    struct wasm_store_limits l = {.tier = WASM_TIER_AUTO, .tierup_ms = 1};
    ck_assert_int_eq(sbx__wasm_store_create(&l, &e->store), SBX_OK);
    ck_assert_int_eq(
        sbx__wasm_instantiate(e->store, e->m, NULL, NULL, &e->inst, NULL, err, sizeof(err)),
        SBX_OK);
}

static void env_close(struct env *e)
{
    sbx__wasm_store_destroy(e->store);
    sbx__wasm_module_destroy(e->m);
}

static bool work(struct env *e)
{
    struct wasm_extern ext;
    if (!sbx__wasm_instance_export(e->inst, "work", 4, &ext))
        return false;
    wasm_value res[1];
    memset(res, 0, sizeof(res));
    struct wasm_trap trap;
    return sbx__wasm_func_call(e->store, ext.u.func, NULL, res, &trap) == SBX_OK &&
           (int32_t)res[0].i32 == WORK_SUM;
}

/* The library's test hook: the use of LLVM at pause_where waits until the parent has forked. */
static int pause_where = -1;
static atomic_bool is_paused, has_forked;

void sbx__jit_test_pause(int where)
{
    if (where != pause_where || atomic_exchange(&is_paused, true))
        return;
    for (double end = now_s() + WAIT_S; !atomic_load(&has_forked) && now_s() < end;)
        usleep(1000);
}

/* The child: a new AUTO store past its threshold many times over, then the exit path. */
static void child(void)
{
    alarm(CHILD_S);
    struct env e;
    env_open(&e);
    unsigned st = WASM_TIERUP_IDLE;
    for (double end = now_s() + SETTLE_S; now_s() < end && st < WASM_TIERUP_NATIVE;) {
        if (!work(&e))
            _exit(98);
        st = sbx__wasm_store_tierup_state(e.store);
    }
    if (st == WASM_TIERUP_NATIVE || st == WASM_TIERUP_COMPILING)
        _exit(90 + (int)st); /* it used LLVM, whose state a thread the child lacks may hold */
    env_close(&e);
    sbx_shutdown();
    exit(40);
}

static void *shutdown_thread(void *arg)
{
    (void)arg;
    sbx_shutdown();
    return NULL;
}

/* Pauses the worker at where, optionally with a thread waiting in sbx_shutdown(), forks, and
 * checks the child; then lets the parent's compile finish and cleans up. */
static void fork_during(int where, bool is_shutting_down)
{
    pause_where = where;
    struct env e;
    env_open(&e);
    for (double end = now_s() + WAIT_S; !atomic_load(&is_paused); ck_assert(now_s() < end))
        ck_assert(work(&e));
    pthread_t t;
    if (is_shutting_down) {
        ck_assert_int_eq(pthread_create(&t, NULL, shutdown_thread, NULL), 0);
        usleep(100000); /* into its wait (a shutdown not yet waiting is the case above) */
    }
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        child();
    atomic_store(&has_forked, true);
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 40,
                  "child: status %#x (exit 92, 93: it used LLVM; 98: a wrong result; signal %d: "
                  "it hung)",
                  st, SIGALRM);
    if (is_shutting_down)
        pthread_join(t, NULL);
    env_close(&e);
}

START_TEST(fork_during_load)
{
    fork_during(0, false);
}
END_TEST

START_TEST(fork_during_compile)
{
    fork_during(1, false);
}
END_TEST

START_TEST(fork_during_shutdown_wait)
{
    fork_during(1, true);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_jit_fork");
    TCase *tc = tcase_create("fork");
    tcase_set_timeout(tc, WAIT_S + CHILD_S + 30);
    tcase_add_test(tc, fork_during_load);
    tcase_add_test(tc, fork_during_compile);
    tcase_add_test(tc, fork_during_shutdown_wait);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

/* Guard regions of the compiled tier (src/wasm/jit/fault.c, docs/wasm.md "Memory safety"): an
 * out-of-bounds access of guarded code faults in its memory's reservation and becomes the
 * interpreter's trap, named after the function that made it (also when it was inlined, and
 * after a call); memory.grow moves the limit; a host's own SIGSEGV handler still gets the
 * host's faults (chained), also on another thread while guest code runs, and without one the
 * host's fault still kills the process (a host's SIG_IGN still ignores a sent SIGSEGV); where
 * RLIMIT_AS refuses the reservation the memory falls back to checked code, which traps the same.
 * Each case runs in a child process of its own, since it installs signal handlers or limits; the
 * child reports the first step that went wrong. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit_guard_mods.h"
#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/runtime.h"
#include "wasm/wasm.h"

#define OOB         "out of bounds memory access"
#define FAILED_STEP 99 /* a child's exit status when a step failed (1 is ASan's report) */

/* How the host dies of its own fault with no handler of its own: by the default action, or
 * under ASan (whose handler sbx chains to) by ASan's SEGV report. */
#ifdef __SANITIZE_ADDRESS__
#define DIED_OF_HOST_FAULT(st) (WIFEXITED(st) && WEXITSTATUS(st) == 1)
#else
#define DIED_OF_HOST_FAULT(st) (WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV)
#endif

struct env {
    struct wasm_store *s;
    struct wasm_module *m;
    struct wasm_instance *i;
    struct wasm_memory *mem;
    struct wasm_func *host;
};

static void (*host_body)(void); /* what the guest's import "host" runs */

static int host_fn(struct wasm_call *call, void *user, const wasm_value *args, wasm_value *res)
{
    (void)call, (void)user, (void)args, (void)res;
    if (host_body)
        host_body();
    return 0;
}

static bool resolve(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    struct env *e = user;
    if (imp->name_len != 4 || memcmp(imp->name, "host", 4) != 0)
        return false;
    out->kind = WASM_EXTERN_FUNC;
    out->u.func = e->host;
    return true;
}

/* A compiled store with the module instantiated; NULL when all went well, else what failed. */
static const char *env_open(struct env *e)
{
    char err[256] = "";
    struct wasm_store_limits l = {.tier = WASM_TIER_COMPILED};
    static wasm_vtype no_types[1];
    static const struct wasm_functype void_type = {0, 0, no_types};
    memset(e, 0, sizeof(*e));
    if (sbx__wasm_store_create(&l, &e->s) != SBX_OK)
        return "store";
    if (sbx__wasm_module_load(mod_guard, sizeof(mod_guard), &e->m, err, sizeof(err)) != SBX_OK)
        return "module";
    e->host = sbx__wasm_func_new_host(e->s, &void_type, host_fn, NULL);
    if (!e->host ||
        sbx__wasm_instantiate(e->s, e->m, resolve, e, &e->i, NULL, err, sizeof(err)) != SBX_OK) {
        fprintf(stderr, "instantiate: %s\n", err);
        return "instantiate";
    }
    e->mem = sbx__wasm_instance_memory(e->i, 0);
    for (uint32_t k = 0; k < e->m->func_def_count; k++) {
        if (!e->i->funcs[e->m->func_import_count + k]->jit_entry)
            return "not compiled";
    }
    return NULL;
}

/* Calls export name(arg); the trap message (empty on success) goes to msg, the result to *r. */
static sbx_err call(struct env *e, const char *name, uint32_t arg, int32_t *r, char *msg)
{
    struct wasm_extern ext;
    if (!sbx__wasm_instance_export(e->i, name, strlen(name), &ext))
        return SBX_E_INVALID_ARGUMENT;
    wasm_value args[1] = {{.i32 = arg}}, res[1];
    memset(res, 0, sizeof(res));
    struct wasm_trap trap;
    memset(&trap, 0, sizeof(trap));
    sbx_err rc = sbx__wasm_func_call(e->s, ext.u.func, args, res, &trap);
    snprintf(msg, 256, "%s", rc == SBX_OK ? "" : trap.message);
    *r = (int32_t)res[0].i32;
    return rc;
}

static bool returns(struct env *e, const char *name, uint32_t arg, int32_t want)
{
    char msg[256];
    int32_t r;
    return call(e, name, arg, &r, msg) == SBX_OK && r == want;
}

/* The call traps with exactly want (the interpreter's "<trap> in <func>"). */
static bool traps(struct env *e, const char *name, uint32_t arg, const char *want)
{
    char msg[256];
    int32_t r;
    sbx_err rc = call(e, name, arg, &r, msg);
    if (rc != SBX_E_WASM_TRAP || strcmp(msg, want) != 0) {
        fprintf(stderr, "%s(%u): rc %d, '%s', want '%s'\n", name, arg, rc, msg, want);
        return false;
    }
    return true;
}

/* The accesses at the memory's edges (1 page, max 3) trap as in the interpreter, also past
 * the reservation of checked code and at the top of the address space. */
static const char *edges(struct env *e)
{
    if (!returns(e, "load", 65532, 0))
        return "last word";
    if (!traps(e, "load", 65533, OOB " in load") || !traps(e, "load", 65536, OOB " in load"))
        return "first word past the end";
    if (!traps(e, "load", 200000, OOB " in load") || !traps(e, "load", 0xfffffffdu, OOB " in load"))
        return "far";
    if (!traps(e, "outer", 65536, OOB " in outer"))
        return "trap after a call";
    if (!traps(e, "via_inner", 65536, OOB " in inner"))
        return "trap in an inlined callee";
    if (!returns(e, "grow", 1, 1) || !returns(e, "load", 65536, 0) ||
        !returns(e, "load", 131068, 0))
        return "grown pages";
    if (!traps(e, "load", 131069, OOB " in load"))
        return "the limit after grow";
    return NULL;
}

/* Runs fn in a child process; the child's status is returned (reason, if any, in why). */
static int in_child(const char *(*fn)(void), char *why, size_t whylen)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(p[0]);
        alarm(120);
        const char *r = fn();
        if (r && write(p[1], r, strlen(r)) < 0)
            _exit(3);
        _exit(r ? FAILED_STEP : 0);
    }
    close(p[1]);
    ssize_t n = read(p[0], why, whylen - 1);
    why[n > 0 ? n : 0] = '\0';
    close(p[0]);
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return st;
}

static void assert_child_ok(const char *(*fn)(void))
{
    char why[256];
    int st = in_child(fn, why, sizeof(why));
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: status %#x, failed at: %s", st,
                  why);
}

static sigjmp_buf host_jb;
static volatile sig_atomic_t host_hits;

static void host_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    host_hits++;
    siglongjmp(host_jb, 1);
}

static void install_host_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = host_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
}

/* The host reads an address inside the guest memory's guard region itself: its own fault. */
static bool host_faults(struct env *e)
{
    volatile uint8_t *p = e->mem->data + e->mem->size + 4096;
    int before = host_hits;
    if (sigsetjmp(host_jb, 1) == 0)
        (void)*p;
    return host_hits == before + 1;
}

static const char *guarded_edges(void)
{
    struct env e;
    const char *r = env_open(&e);
    if (r)
        return r;
    if (!e.mem->is_guarded || e.mem->reserved != WASM_GUARD_RESERVE)
        return "memory not guarded";
    return edges(&e);
}

START_TEST(guarded_oob_traps_like_the_interpreter)
{
    assert_child_ok(guarded_edges);
}
END_TEST

static const char *host_handler_case(void)
{
    install_host_handler(); /* before sbx installs its own: the one sbx chains to */
    struct env e;
    const char *r = env_open(&e);
    if (r)
        return r;
    if (!traps(&e, "load", 70000, OOB " in load") || host_hits != 0)
        return "guest fault reached the host's handler";
    if (!host_faults(&e))
        return "host fault not chained to the host's handler";
    if (!traps(&e, "load", 70000, OOB " in load") || host_hits != 1)
        return "guest fault after the host's";
    return NULL;
}

START_TEST(host_handler_chained)
{
    assert_child_ok(host_handler_case);
}
END_TEST

static struct env *thread_env;

static void *thread_fault(void *arg)
{
    (void)arg;
    return host_faults(thread_env) ? NULL : (void *)"no";
}

/* Inside the guest's call: another thread faults in the guard region. */
static void fault_on_thread(void)
{
    pthread_t t;
    void *r = (void *)"not started";
    if (pthread_create(&t, NULL, thread_fault, NULL) == 0)
        pthread_join(t, &r);
    if (r)
        host_hits = -100;
}

static const char *other_thread_case(void)
{
    install_host_handler();
    struct env e;
    const char *r = env_open(&e);
    if (r)
        return r;
    thread_env = &e;
    host_body = fault_on_thread;
    if (!returns(&e, "call_host", 0, 0))
        return "guest call";
    if (host_hits != 1)
        return "the other thread's fault was not the host's";
    return NULL;
}

START_TEST(other_thread_fault_not_swallowed)
{
    assert_child_ok(other_thread_case);
}
END_TEST

/* env_open, then one guest trap (sbx's handler has run once). */
static const char *open_after_trap(struct env *e)
{
    const char *r = env_open(e);
    if (r)
        return r;
    return traps(e, "load", 70000, OOB " in load") ? NULL : "guest trap";
}

/* With no handler of the host's (SIG_DFL, or ASan's), its fault still kills it, after a guest
 * trap. */
static const char *default_case(void)
{
    struct env e;
    const char *r = open_after_trap(&e);
    if (r)
        return r;
    volatile uint8_t *p = e.mem->data + e.mem->size + 4096;
    (void)*p;
    return "the host's fault was swallowed";
}

START_TEST(default_disposition_still_kills)
{
    char why[256];
    int st = in_child(default_case, why, sizeof(why));
    ck_assert_msg(DIED_OF_HOST_FAULT(st), "child: status %#x (%s)", st, why);
}
END_TEST

/* A host that ignores SIGSEGV with SA_SIGINFO set (sa_sigaction is then SIG_IGN): a sent
 * SIGSEGV is still ignored once sbx's handler chains to it. sbx called SIG_IGN's value as a
 * handler, which faulted and killed the process. */
static const char *ignored_siginfo_case(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_IGN;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0)
        return "sigaction";
    struct env e;
    const char *r = open_after_trap(&e);
    if (r)
        return r;
    if (kill(getpid(), SIGSEGV) != 0)
        return "kill";
    return NULL;
}

START_TEST(ignored_siginfo_disposition_kept)
{
    assert_child_ok(ignored_siginfo_case);
}
END_TEST

/* Address space for what the process has now plus 1.5 GiB: enough to load LLVM and compile,
 * not for an 8 GiB reservation. */
static bool limit_address_space(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%lu", &pages) != 1)
        return false;
    fclose(f);
    rlim_t now = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
    struct rlimit rl = {now + (3ull << 29), now + (3ull << 29)};
    return setrlimit(RLIMIT_AS, &rl) == 0;
}

static const char *fallback_case(void)
{
    if (!limit_address_space())
        return "setrlimit";
    struct env e;
    const char *r = env_open(&e);
    if (r)
        return r;
    if (e.mem->is_guarded || e.mem->reserved != 3u * WASM_PAGE_SIZE)
        return "memory guarded under RLIMIT_AS";
    return edges(&e);
}

START_TEST(fallback_to_checks_under_rlimit_as)
{
    assert_child_ok(fallback_case);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_jit_guard");
    TCase *tc = tcase_create("guard");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, guarded_oob_traps_like_the_interpreter);
    tcase_add_test(tc, host_handler_chained);
    tcase_add_test(tc, other_thread_fault_not_swallowed);
    tcase_add_test(tc, default_disposition_still_kills);
    tcase_add_test(tc, ignored_siginfo_disposition_kept);
    tcase_add_test(tc, fallback_to_checks_under_rlimit_as);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}

/* tests/wasm/jit_dlopen.c: the compiled tier's fault handler in a libsbx loaded with dlopen(), as
 * the Python and Node bindings load it (src/wasm/jit/running.c says why that differs from a
 * linked one). With a guest inside compiled code on one thread, a host thread that never entered
 * sbx faults: the host's own handler (installed first, so sbx chains to it) must get the fault
 * with no malloc, calloc or realloc between the fault and that handler (a handler reading a
 * thread-local of the dlopen'ed library had glibc allocate it there). The control: the same
 * counter sees a deliberate malloc. And a guest's out-of-bounds load in compiled code, through
 * the same handler, still traps. Usage: jit_dlopen LIBSBX.so; prints "N passed, M failed". */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit_guard_mods.h"
#include "lsan_no_tls.h"
#include "sbx.h"

#define TIMEOUT_S 120 /* the whole program: an LLVM compile under ASan on a loaded machine */
#define OOB       "out of bounds memory access"
#define POLICY                                                                                     \
    "{\"timeoutMs\": 100000, \"capabilities\": {\"env.host\": \"allow\"},"                         \
    " \"wasm\": {\"tier\": \"compiled\", \"cache\": false}}"

/* ---- counting allocations while is_counting is set ---------------------------------------- */

static atomic_bool is_counting;
static atomic_uint allocs;

static void count_alloc(void)
{
    if (atomic_load(&is_counting))
        atomic_fetch_add(&allocs, 1);
}

#ifdef __SANITIZE_ADDRESS__
/* ASan's allocator serves every malloc (also glibc's own): its hook sees each one. */
int __sanitizer_install_malloc_and_free_hooks(void (*on_malloc)(const volatile void *, size_t),
                                              void (*on_free)(const volatile void *));
static void on_malloc(const volatile void *p, size_t n)
{
    (void)p, (void)n;
    count_alloc();
}

static void on_free(const volatile void *p)
{
    (void)p;
}

static void count_init(void)
{
    if (!__sanitizer_install_malloc_and_free_hooks(on_malloc, on_free)) /* both, or it refuses */
        fprintf(stderr, "the allocator hooks were refused\n");
}
#else
/* Interposed: exported (-rdynamic, default visibility), so glibc's loader uses these too. */
#define EXPORT __attribute__((visibility("default")))
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t k);
void *__libc_realloc(void *p, size_t n);

EXPORT void *malloc(size_t n)
{
    count_alloc();
    return __libc_malloc(n);
}

EXPORT void *calloc(size_t n, size_t k)
{
    count_alloc();
    return __libc_calloc(n, k);
}

EXPORT void *realloc(void *p, size_t n)
{
    count_alloc();
    return __libc_realloc(p, n);
}

static void count_init(void)
{
}
#endif

/* ---- the library, by dlsym ---------------------------------------------------------------- */

static struct {
    __typeof__(sbx_policy_parse) *policy_parse;
    __typeof__(sbx_policy_destroy) *policy_destroy;
    __typeof__(sbx_wasm_sandbox_create) *create;
    __typeof__(sbx_wasm_sandbox_call) *call;
    __typeof__(sbx_wasm_sandbox_destroy) *destroy;
    __typeof__(sbx_wasm_completion_finish) *finish;
    __typeof__(sbx_result_free) *result_free;
    __typeof__(sbx_shutdown) *shutdown;
} api;

static void *lib;

static bool load_api(const char *path)
{
    /* RTLD_LAZY: whether a call is bound at load is the library's own (DF_BIND_NOW) here. */
    lib = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return false;
    }
    static const char *const names[] = {"sbx_policy_parse",         "sbx_policy_destroy",
                                        "sbx_wasm_sandbox_create",  "sbx_wasm_sandbox_call",
                                        "sbx_wasm_sandbox_destroy", "sbx_wasm_completion_finish",
                                        "sbx_result_free",          "sbx_shutdown"};
    void **slots = (void **)&api;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!(slots[i] = dlsym(lib, names[i]))) {
            fprintf(stderr, "dlsym %s: %s\n", names[i], dlerror());
            return false;
        }
    }
    return true;
}

/* ---- the host's fault, on a thread of its own --------------------------------------------- */

static sigjmp_buf host_jb;
static atomic_int host_sig;        /* what the host's handler got */
static void *volatile host_addr;   /* the address it got */
static atomic_uint allocs_in_path; /* counted between the fault and the host's handler */
static const char *thread_failure; /* the faulting thread's first failed step, or NULL */

static void host_handler(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    atomic_store(&is_counting, false);
    atomic_store(&allocs_in_path, atomic_load(&allocs));
    atomic_store(&host_sig, sig);
    host_addr = si->si_addr;
    siglongjmp(host_jb, 1);
}

static void *(*volatile malloc_fn)(size_t) = malloc; /* a call the compiler cannot drop */
static volatile uintptr_t fault_addr = 16;           /* unmapped */

/* Never entered sbx. Faults with counting on; then the control. */
static void *faulting_thread(void *arg)
{
    (void)arg;
    if (sigsetjmp(host_jb, 1) == 0) {
        atomic_store(&allocs, 0);
        atomic_store(&is_counting, true);
        *(volatile int *)fault_addr = 1;
        atomic_store(&is_counting, false);
        thread_failure = "the store to address 16 did not fault";
        return NULL;
    }
    if (atomic_load(&host_sig) != SIGSEGV || host_addr != (void *)fault_addr) {
        thread_failure = "the host's handler did not get the host's fault";
        return NULL;
    }
    if (atomic_load(&allocs_in_path) != 0) {
        thread_failure = "the fault path allocated before the host's handler ran";
        return NULL;
    }
    atomic_store(&allocs, 0);
    atomic_store(&is_counting, true);
    free(malloc_fn(24));
    atomic_store(&is_counting, false);
    if (atomic_load(&allocs) == 0)
        thread_failure = "control: the counter missed a malloc";
    return NULL;
}

static atomic_bool has_host_run;

/* The guest's import env.host, on the guest's thread inside compiled code. */
static void host_fn(void *user, const sbx_wasm_value *args, size_t n, sbx_wasm_completion *c)
{
    (void)user, (void)args, (void)n;
    atomic_store(&has_host_run, true);
    pthread_t t;
    if (pthread_create(&t, NULL, faulting_thread, NULL) != 0)
        thread_failure = "pthread_create failed";
    else
        pthread_join(t, NULL);
    api.finish(c, NULL, 0);
}

/* ---- cases -------------------------------------------------------------------------------- */

static sbx_wasm_sandbox *open_sandbox(void)
{
    char err[256] = "";
    sbx_policy *p = NULL;
    if (api.policy_parse(POLICY, strlen(POLICY), &p, err, sizeof(err)) != SBX_OK) {
        fprintf(stderr, "policy: %s\n", err);
        return NULL;
    }
    sbx_wasm_host_func hf = {"env.host", "() -> ()", host_fn, NULL};
    sbx_wasm_options o = {.size = sizeof(o), .host_funcs = &hf, .host_func_count = 1};
    sbx_wasm_sandbox *sb = NULL;
    if (api.create(mod_guard, sizeof(mod_guard), p, &o, &sb, err, sizeof(err)) != SBX_OK)
        fprintf(stderr, "create: %s\n", err);
    api.policy_destroy(p);
    return sb;
}

static const char *host_fault_case(sbx_wasm_sandbox *sb)
{
    struct sigaction cur;
    sigaction(SIGSEGV, NULL, &cur);
    if (cur.sa_sigaction == host_handler)
        return "sbx installed no fault handler over the host's (the case would prove nothing)";
    sbx_result r;
    memset(&r, 0, sizeof(r));
    api.call(sb, "call_host", NULL, 0, NULL, 0, &r);
    bool ok = r.ok;
    api.result_free(&r);
    if (!atomic_load(&has_host_run))
        return "the guest did not call the host";
    if (thread_failure)
        return thread_failure;
    return ok ? NULL : "call_host failed";
}

/* load(addr): in bounds it reads, out of bounds (the guard region) it traps. */
static const char *load(sbx_wasm_sandbox *sb, int32_t addr, bool *is_oob)
{
    sbx_wasm_value arg = {.type = SBX_WASM_I32, .of.i32 = addr}, res;
    sbx_result r;
    memset(&r, 0, sizeof(r));
    api.call(sb, "load", &arg, 1, &res, 1, &r);
    *is_oob = !r.ok && r.error == SBX_E_WASM_TRAP && r.error_message &&
              strstr(r.error_message, OOB) != NULL;
    const char *why = r.ok || *is_oob ? NULL : "load failed otherwise";
    api.result_free(&r);
    return why;
}

static const char *guest_oob_case(sbx_wasm_sandbox *sb)
{
    void *llvm = dlopen("libLLVM-16.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!llvm)
        return "libLLVM is not loaded: the guest did not run compiled code";
    dlclose(llvm);
    bool is_oob;
    const char *why = load(sb, 0, &is_oob);
    if (why || is_oob)
        return why ? why : "control: load(0) trapped";
    why = load(sb, 1 << 20, &is_oob);
    if (why || !is_oob)
        return why ? why : "load(1 MiB) did not trap with " OOB;
    return NULL;
}

/* libsbx asks to be bound at load (mk/jit.mk says why): DF_BIND_NOW or DF_1_NOW. */
static const char *bind_now_case(void)
{
    struct link_map *map = NULL;
    if (dlinfo(lib, RTLD_DI_LINKMAP, &map) != 0 || !map)
        return "dlinfo failed";
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
        if ((d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_BIND_NOW)) ||
            (d->d_tag == DT_FLAGS_1 && (d->d_un.d_val & DF_1_NOW)))
            return NULL;
    }
    return "libsbx.so is bound lazily (no DF_BIND_NOW)";
}

static int report(const char *name, const char *why)
{
    printf("%s: %s%s\n", name, why ? "FAIL: " : "ok", why ? why : "");
    return why ? 1 : 0;
}

int main(int argc, char **argv)
{
    alarm(TIMEOUT_S);
    if (argc != 2 || !load_api(argv[1]))
        return 2;
    count_init();
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = host_handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL); /* before sbx's: it chains to this one */
    sbx_wasm_sandbox *sb = open_sandbox();
    if (!sb)
        return 2;
    int failed = report("host fault on a new thread", host_fault_case(sb));
    failed += report("guest out of bounds traps", guest_oob_case(sb));
    failed += report("libsbx is bound at load", bind_now_case());
    api.destroy(sb);
    api.shutdown();
    printf("%d passed, %d failed\n", 3 - failed, failed);
    return failed ? 1 : 0;
}

/* wasm/jit/llvm_api.c: loading libLLVM-16 on first use of the compiled tier. The library
 * stays loaded for the life of the process (compiled code and LLVM's globals live in it). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "wasm/jit/jit.h"
#include "wasm/jit/llvm_api.h"

#define LLVM_LIB "libLLVM-16.so.1"

struct sbx__llvm_api sbx__llvm;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[200];
static bool is_loaded;

static void load(void)
{
    /* Before dlopen, for an exit that starts first (the load then never starts); its
     * constructors register destructors that are newer, hence the hook again after it. */
    sbx__jit_exit_hook();
    void *lib = dlopen(LLVM_LIB, RTLD_NOW | RTLD_LOCAL);
    if (lib && sbx__jit_test_pause)
        sbx__jit_test_pause(0);
    if (lib)
        sbx__jit_env_pause_load();
    if (!lib) {
        snprintf(load_error, sizeof(load_error),
                 "compiled tier: cannot load %s (llvm-16 is not "
                 "installed?)",
                 LLVM_LIB);
        return;
    }
    static const struct {
        const char *name;
        size_t offset;
    } syms[] = {
#define SBX_LLVM_ROW(name) {"LLVM" #name, offsetof(struct sbx__llvm_api, name)},
        SBX_LLVM_FUNCS(SBX_LLVM_ROW)
#undef SBX_LLVM_ROW
    };
    for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
        void *p = dlsym(lib, syms[i].name);
        if (!p) {
            snprintf(load_error, sizeof(load_error), "compiled tier: %s lacks %s", LLVM_LIB,
                     syms[i].name);
            return;
        }
        *(void **)((char *)&sbx__llvm + syms[i].offset) = p;
    }
    L(InitializeX86TargetInfo)();
    L(InitializeX86Target)();
    L(InitializeX86TargetMC)();
    L(InitializeX86AsmPrinter)();
    sbx__jit_exit_hook();
    __atomic_store_n(&is_loaded, true, __ATOMIC_RELEASE);
}

bool sbx__jit_llvm_is_loaded(void)
{
    return __atomic_load_n(&is_loaded, __ATOMIC_ACQUIRE);
}

bool sbx__jit_llvm_load(char *err, size_t errlen)
{
    if (!sbx__jit_use_begin(true)) {
        if (err && errlen)
            snprintf(err, errlen, "compiled tier: the process is exiting (sbx_shutdown)");
        return false;
    }
    pthread_once(&load_once, load);
    sbx__jit_use_end(true);
    if (!is_loaded && err && errlen)
        snprintf(err, errlen, "%s", load_error);
    return is_loaded;
}

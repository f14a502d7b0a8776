/* js/oom.cpp: SpiderMonkey crashes the process on an allocation failure in about 1,400 places it
 * cannot unwind from (js::AutoEnterOOMUnsafeRegion::crash: Irregexp's zone, the GC's store
 * buffer, tenuring, unique ids, ...). The accounting keeps such failures rare (account.c hands
 * out memory well past the cap); this is the last resort when one still happens inside a run:
 * the run ends with its outcome and its thread is retired (parked for good, its engine state
 * and memory kept), so the host process lives on. Outside a run the engine's own crash stays. */
#include "js/sm.h" /* first: see there */

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

extern "C" {
#include "util/alloc.h"
}

#define CRASH_SYMBOL "_ZN2js24AutoEnterOOMUnsafeRegion5crashEPKc" /* crash(const char *) */
#define PATCH_BYTES  12u /* movabs $hook, %rax; jmp *%rax */
/* Past this many retired threads the tier refuses runs: each keeps its memory until exit. */
#define RETIRED_MAX 16

static std::atomic<int> retired;
static bool is_contained;

static void fail(struct sm_run *run, sbx_err err, sbx_limit limit, const char *msg)
{
    struct sbx__js_eval_out *out = run->out;
    out->error = err;
    out->limit = limit;
    sbx__free(out->message);
    out->message = sbx__strdup(msg);
    sbx__free(out->value_json);
    out->value_json = nullptr;
}

/* Takes the place of the engine's crash(reason): never returns. The allocation that failed was
 * either refused by the accounting (the run is far over its cap) or refused by the system. */
[[noreturn]] static void on_unhandlable_oom(void *, const char *reason)
{
    struct sm_run *run = sm_current();
    if (!run || !run->out) {
        fprintf(stderr, "Hit MOZ_CRASH([unhandlable oom] %s)\n", reason ? reason : "?");
        abort();
    }
    char msg[256];
    if (sbx__js_account_refused_count() > 0 || sbx__js_account_is_over()) {
        snprintf(msg, sizeof(msg),
                 "guest exceeded its memory limit (memoryBytes): the engine ran out of memory "
                 "where it cannot recover (%s); its thread is retired",
                 reason);
        fail(run, SBX_E_MEMORY_LIMIT, SBX_LIMIT_MEMORY, msg);
    } else {
        snprintf(msg, sizeof(msg),
                 "the host ran out of memory inside the engine (%s); its thread is retired",
                 reason);
        fail(run, SBX_E_NOMEM, SBX_LIMIT_NONE, msg);
    }
    retired.fetch_add(1);
    sm_zone_leave(run);
    sm_unwatch(run);
    sm_set_current(nullptr);
    if (run->in->on_done)
        run->in->on_done(run->in->on_done_arg);
    for (;;) /* the engine's state on this thread is half-updated: it never runs again */
        pause();
}

/* The function's own length from the dynamic symbol table: the patch must fit inside it. */
static bool is_long_enough(void *fn)
{
    Dl_info info;
    void *entry = nullptr;
    bool ok = dladdr1(fn, &info, &entry, RTLD_DL_SYMENT) != 0;
    const ElfW(Sym) *sym = static_cast<const ElfW(Sym) *>(entry);
    return ok && sym && info.dli_saddr == fn && sym->st_size >= PATCH_BYTES;
}

/* Overwrites the entry of fn with a jump to to (x86-64 only). */
static bool patch(void *fn, void *to)
{
#if defined(__x86_64__)
    uint8_t code[PATCH_BYTES] = {0x48, 0xb8};
    memcpy(code + 2, &to, sizeof(to));
    code[10] = 0xff;
    code[11] = 0xe0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)fn & ~(page - 1);
    uintptr_t hi = ((uintptr_t)fn + PATCH_BYTES + page - 1) & ~(page - 1);
    void *base = reinterpret_cast<void *>(lo);
    if (mprotect(base, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        return false;
    memcpy(fn, code, sizeof(code));
    mprotect(base, hi - lo, PROT_READ | PROT_EXEC);
    __builtin___clear_cache(static_cast<char *>(fn), static_cast<char *>(fn) + PATCH_BYTES);
    return true;
#else
    (void)fn;
    (void)to;
    return false;
#endif
}

bool sm_oom_install(void)
{
    void *lib = dlopen("libmozjs-102.so.0", RTLD_NOW | RTLD_NOLOAD);
    void *fn = lib ? dlsym(lib, CRASH_SYMBOL) : nullptr;
    is_contained =
        fn && is_long_enough(fn) && patch(fn, reinterpret_cast<void *>(on_unhandlable_oom));
    if (lib)
        dlclose(lib);
    return is_contained;
}

const char *sm_oom_refusal(void)
{
    if (retired.load() < RETIRED_MAX)
        return nullptr;
    return "16 engine threads were retired after the engine ran out of memory where it cannot "
           "recover; restart the process to reclaim their memory";
}

bool sm_oom_is_contained(void)
{
    return is_contained;
}

int sm_oom_retired_count(void)
{
    return retired.load();
}

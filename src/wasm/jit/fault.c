/* wasm/jit/fault.c: the signal handler behind guard regions (docs/wasm.md, "Memory safety").
 * Guarded compiled code accesses memory with no bounds check; an access out of bounds lands in
 * the PROT_NONE rest of its memory's reservation and faults. A fault is the guest's only when
 * this thread is inside a compiled entry of a store, the pc lies in code linked for that store,
 * and the address lies in the reservation of that code's instance's guarded memory. Then the
 * handler makes the interrupted context resume in sbx__jit_rt_trap() (as if the faulting
 * instruction had called it), so the kernel's sigreturn restores the signal mask and leaves
 * any alternate stack, and the trap unwinds to the entry as every other trap does. Any other
 * fault goes to the handler installed before ours. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "wasm/jit/link.h"
#include "wasm/jit/rt.h"

#define RED_ZONE 128 /* the System V ABI's, below the interrupted stack pointer */

static const int fault_signals[] = {SIGSEGV, SIGBUS};
static struct sigaction previous[2]; /* per fault_signals entry */
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

/* The instance of js's guarded code that faulted at pc on addr, or NULL: not the guest's. */
static const struct wasm_instance *guest_fault(const struct wasm_jit_store *js, uintptr_t pc,
                                               uintptr_t addr)
{
    if (!js || !js->top)
        return NULL;
    const struct wasm_instance *inst = sbx__jit_code_instance(js, pc);
    const struct wasm_memory *mem = inst ? inst->mem0 : NULL;
    if (!mem || !mem->is_guarded || addr - (uintptr_t)mem->data >= mem->reserved)
        return NULL;
    return inst;
}

/* Resumes the interrupted context in sbx__jit_rt_trap(js, OOB, inst, js->fault_func), on its
 * own stack below the red zone, with the faulting pc as the return address (for backtraces;
 * rt_trap never returns). Compiled code always keeps 256 KiB of stack (rt.c), so there is room. */
__attribute__((no_sanitize_address)) /* writes below the interrupted frame's stack pointer */
static void
resume_in_trap(ucontext_t *uc, struct wasm_jit_store *js, const struct wasm_instance *inst)
{
    greg_t *g = uc->uc_mcontext.gregs;
    uintptr_t sp = (((uintptr_t)g[REG_RSP] - RED_ZONE) & ~(uintptr_t)15) - 8;
    *(uintptr_t *)sp = (uintptr_t)g[REG_RIP];
    g[REG_RSP] = (greg_t)sp;
    g[REG_RIP] = (greg_t)(uintptr_t)sbx__jit_rt_trap;
    g[REG_RDI] = (greg_t)(uintptr_t)js;
    g[REG_RSI] = WASM_TRAP_MEMORY_OOB;
    g[REG_RDX] = (greg_t)(uintptr_t)inst;
    g[REG_RCX] = (greg_t)js->fault_func;
}

/* What the previous disposition would have done with this signal. SIG_DFL (and SIG_IGN for a
 * real fault, which the kernel would not let be ignored) restores the default: a fault then
 * repeats when the instruction restarts, a sent signal is raised again (delivered once the
 * handler returns and the mask is restored), and the process dies as it would have without
 * sbx. A sent signal under SIG_IGN is dropped, as it would have been. */
static void chain(int sig, siginfo_t *si, void *uc)
{
    const struct sigaction *p = &previous[sig == SIGBUS];
    /* sa_handler and sa_sigaction share storage: SIG_DFL and SIG_IGN are dispositions even
     * with SA_SIGINFO set (which sigaction() accepts), never functions to call. */
    bool is_disposition = p->sa_handler == SIG_DFL || p->sa_handler == SIG_IGN;
    if (!is_disposition) {
        if (p->sa_flags & SA_SIGINFO)
            p->sa_sigaction(sig, si, uc);
        else
            p->sa_handler(sig);
        return;
    }
    bool is_sent = si->si_code <= 0;
    if (p->sa_handler == SIG_IGN && is_sent)
        return;
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    if (is_sent)
        raise(sig);
}

/* Everything it calls is async-signal-safe: no thread-local of libsbx (running.c), lock or
 * allocation. errno is kept for the interrupted code (chain() may call sigaction()). */
static void on_fault(int sig, siginfo_t *si, void *ucv)
{
    int saved_errno = errno;
    ucontext_t *uc = ucv;
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    struct wasm_jit_store *js = si->si_code > 0 ? sbx__jit_running_get() : NULL;
    const struct wasm_instance *inst = guest_fault(js, pc, (uintptr_t)si->si_addr);
    if (inst)
        resume_in_trap(uc, js, inst);
    else
        chain(sig, si, ucv);
    errno = saved_errno;
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(fault_signals) / sizeof(fault_signals[0]); i++)
        sigaction(fault_signals[i], &sa, &previous[i]);
}

void sbx__jit_fault_install(void)
{
    pthread_once(&install_once, install);
}

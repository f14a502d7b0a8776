/* wasi/proc.c: proc_exit, proc_raise, sched_yield. proc_exit ends the guest through the
 * engine (a WASM_TRAP_EXIT carrying the code), never the host process. proc_raise cannot
 * deliver a signal to the host, so it answers ENOSYS (wasmtime traps instead; an errno lets
 * the guest carry on). */
#include <sched.h>

#include "wasi/internal.h"

WASI_FN(proc_exit)
{
    /* the full u32 goes to the embedder; a process exit status keeps the low 8 bits */
    sbx__wasm_call_exit(e->call, (int)a[0].i32);
    return WASI_TRAPPED;
}

WASI_FN(proc_raise)
{
    (void)e;
    (void)a;
    return WASI_ENOSYS;
}

WASI_FN(sched_yield)
{
    (void)e;
    (void)a;
    sched_yield();
    return WASI_ESUCCESS;
}

/* js/jit.cpp: the JIT mode of this process's engine (policy.js.jit). SpiderMonkey 102 fixes it
 * per process: JS::DisableJitBackend (no executable memory at all) must precede JS_Init and is
 * permanent, and JS_SetGlobalJitCompilerOption writes one process-wide struct (jit::JitOptions)
 * that running threads read unsynchronised. So the first run decides; a run asking for the
 * other mode is refused (docs/worker.md, "The JIT"). */
#include "js/sm.h" /* first: see there */

#include "js/module.h"

enum { MODE_UNSET = -1, MODE_OFF = 0, MODE_ON = 1 };

static std::atomic<int> mode{MODE_UNSET};

bool sm_jit_claim(bool want)
{
    int expected = MODE_UNSET;
    mode.compare_exchange_strong(expected, want ? MODE_ON : MODE_OFF);
    return mode.load() == MODE_ON;
}

const char *sm_jit_refusal(bool want)
{
    if (sm_jit_claim(want) == want)
        return nullptr;
    return want ? "policy.js.jit is true, but this process's JavaScript engine started with the "
                  "JIT off (the mode is fixed per process, by its first run); run it in "
                  "another process, such as the process tier's (--backend process)"
                : "policy.js.jit is false, but this process's JavaScript engine started with the "
                  "JIT on (the mode is fixed per process, by its first run); run it in "
                  "another process, such as the process tier's (--backend process)";
}

bool sbx__js_jit_claim(bool want)
{
    return sm_jit_claim(want);
}

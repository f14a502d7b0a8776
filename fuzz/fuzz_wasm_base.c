/* fuzz/fuzz_wasm_base.c: fuzz_wasm_diff.c's target (linked with it) with the interpreter's side
 * in baseline code: SBX_TEST_BASE=1 gives every function of every store baseline code from its
 * first entry (src/wasm/base/), so each generated plan compares the baseline tier, and the
 * interpreter for what it hands back, with LLVM's code. */
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return setenv("SBX_TEST_BASE", "1", 1);
}

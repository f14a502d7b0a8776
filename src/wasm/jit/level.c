/* wasm/jit/level.c: the optimisation level of a module (level.h says why two). */
#include "wasm/jit/level.h"

#include "wasm/module.h"

static const struct sbx__jit_level full = {SBX__JIT_FULL_PIPELINE, SBX__JIT_FULL_CODEGEN};
static const struct sbx__jit_level large = {SBX__JIT_LARGE_PIPELINE, SBX__JIT_LARGE_CODEGEN};

uint64_t sbx__jit_code_bytes(const struct wasm_module *m)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < m->func_def_count; i++)
        total += m->funcs[i].code_len;
    return total;
}

const struct sbx__jit_level *sbx__jit_level_of(const struct wasm_module *m)
{
    return sbx__jit_code_bytes(m) >= SBX__JIT_LARGE_BYTES ? &large : &full;
}

const struct sbx__jit_level *sbx__jit_level_of_batch(const struct wasm_module *m,
                                                     const uint8_t *only)
{
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < m->func_def_count; i++)
        bytes += only[i] ? m->funcs[i].code_len : 0;
    return bytes > SBX__JIT_BATCH_FULL_BYTES ? &large : &full;
}

/* wasm/jit/level.c: the optimisation level of a module (level.h says why two). */
#include "wasm/jit/level.h"

#include "wasm/code.h"
#include "wasm/module.h"

static const struct sbx__jit_level full = {SBX__JIT_FULL_PIPELINE, SBX__JIT_FULL_CODEGEN};
static const struct sbx__jit_level large = {SBX__JIT_LARGE_PIPELINE, SBX__JIT_LARGE_CODEGEN};
static const struct sbx__jit_level hot_set = {SBX__JIT_LARGE_PIPELINE, SBX__JIT_HOT_CODEGEN};

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

static bool is_huge(const struct wasm_module *m, uint32_t def)
{
    return m->funcs[def].code_len >= SBX__JIT_HUGE_BYTES;
}

uint32_t sbx__jit_huge_end(const struct wasm_module *m)
{
    if (sbx__jit_level_of(m) != &large)
        return 0;
    uint64_t sum = 0;
    uint32_t end = 0;
    for (uint32_t i = 0; i < m->func_def_count; i++) {
        if (!is_huge(m, i))
            continue;
        sum += m->funcs[i].code_len;
        if (sum > SBX__JIT_HUGE_BUDGET)
            break;
        end = i + 1;
    }
    return end;
}

const struct sbx__jit_level *sbx__jit_level_of_func(const struct wasm_module *m, uint32_t def,
                                                    uint32_t huge_end)
{
    if (!huge_end)
        return sbx__jit_level_of(m);
    return def < huge_end && is_huge(m, def) ? &full : &large;
}

bool sbx__jit_func_fits(const struct wasm_module *m, uint32_t def)
{
    return m->funcs[def].code_len <= SBX__JIT_MAX_BODY_BYTES &&
           m->compiled[def].frame_slots <= SBX__JIT_MAX_FRAME_SLOTS;
}

const struct sbx__jit_level *sbx__jit_level_of_batch(void)
{
    return &large;
}

bool sbx__jit_batch_may_raise(const struct wasm_module *m)
{
    return sbx__jit_level_of(m) == &full;
}

const struct sbx__jit_level *sbx__jit_level_of_hot_set(void)
{
    return &hot_set;
}

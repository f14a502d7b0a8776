/* wasm/jit/rt_gc.c: the GC helpers compiled code calls (sym.h JIT_RT_GC_*): thin doors to
 * gc_ops.c and gc.c, which the interpreter's handlers use too, so both tiers allocate, copy
 * and test the same way. References travel as 64-bit values; those that trap return the kind
 * (the caller raises it with its function's name) and write a new reference to *out. An
 * allocation may collect: the caller's references are then on the native stack or in
 * callee-saved registers, which the collector scans conservatively (gc.c mark_stacks). */
#include "wasm/gc_ops.h"
#include "wasm/jit/rt.h"

uint32_t sbx__jit_rt_gc_struct_new(struct wasm_instance *inst, const struct wasm_rtt *rtt,
                                   const uint64_t *vals, uint64_t *out)
{
    return sbx__wasm_gc_struct_new(inst->store, rtt, vals, out);
}

uint32_t sbx__jit_rt_gc_array_new(struct wasm_instance *inst, const struct wasm_rtt *rtt,
                                  const uint64_t *init, uint32_t len, uint64_t *out)
{
    return sbx__wasm_gc_array_new(inst->store, rtt, init, len, out);
}

uint32_t sbx__jit_rt_gc_array_new_fixed(struct wasm_instance *inst, const struct wasm_rtt *rtt,
                                        const uint64_t *vals, uint32_t n, uint64_t *out)
{
    return sbx__wasm_gc_array_new_fixed(inst->store, rtt, vals, n, out);
}

uint32_t sbx__jit_rt_gc_array_new_seg(struct wasm_instance *inst, const struct wasm_rtt *rtt,
                                      uint32_t is_elem, uint32_t seg, uint32_t off, uint32_t n,
                                      uint64_t *out)
{
    if (is_elem)
        return sbx__wasm_gc_array_new_elem(inst->store, rtt, inst, seg, off, n, out);
    return sbx__wasm_gc_array_new_data(inst->store, rtt, inst, seg, off, n, out);
}

uint32_t sbx__jit_rt_gc_array_fill(uint64_t ref, uint32_t d, const uint64_t *val, uint32_t n)
{
    return sbx__wasm_gc_array_fill(ref, d, val, n);
}

uint32_t sbx__jit_rt_gc_array_copy(uint64_t dref, uint32_t d, uint64_t sref, uint32_t s, uint32_t n)
{
    return sbx__wasm_gc_array_copy(dref, d, sref, s, n);
}

uint32_t sbx__jit_rt_gc_array_init(struct wasm_instance *inst, uint32_t is_elem, uint32_t seg,
                                   uint64_t ref, uint32_t d, uint32_t s, uint32_t n)
{
    if (is_elem)
        return sbx__wasm_gc_array_init_elem(ref, inst, seg, d, s, n);
    return sbx__wasm_gc_array_init_data(ref, inst, seg, d, s, n);
}

uint32_t sbx__jit_rt_gc_test(uint64_t v, uint32_t abs, const struct wasm_rtt *rtt,
                             uint32_t is_nullable)
{
    return sbx__wasm_gc_test(v, abs, rtt, is_nullable != 0);
}

uint32_t sbx__jit_rt_gc_convert(struct wasm_instance *inst, uint64_t v, uint32_t to_any,
                                uint64_t *out)
{
    enum wasm_trap_kind tk = WASM_TRAP_NONE;
    *out = to_any ? sbx__wasm_gc_internalize(inst->store, v, &tk)
                  : sbx__wasm_gc_externalize(inst->store, v, &tk);
    return tk;
}

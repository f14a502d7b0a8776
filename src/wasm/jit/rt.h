/* wasm/jit/rt.h: the C functions compiled code calls (as sbx_rt_<name>: sym.h). Helpers that may
 * trap either return a wasm_trap_kind for the code to raise with its function's name, or, when
 * the trap record is already filled (host calls), longjmp to the entry themselves. */
#ifndef SBX_WASM_JIT_RT_H
#define SBX_WASM_JIT_RT_H

#include <stdint.h>

#include "wasm/jit/jit.h"
#include "wasm/runtime.h"

struct wasm_exn; /* code.h */

/* Records a trap of kind in function func_idx of inst, as the interpreter does, and unwinds
 * to the innermost entry. */
_Noreturn void sbx__jit_rt_trap(struct wasm_jit_store *js, uint32_t kind,
                                const struct wasm_instance *inst, uint32_t func_idx);
/* The same for "call stack exhausted" from the stack probe of a mapping of inst's code
 * (link.c), which knows no function: the trap names none. */
_Noreturn void sbx__jit_rt_stack_trap(struct wasm_jit_store *js, const struct wasm_instance *inst);
/* Calls fn (host, interpreted or compiled) with params in slots; results replace them. */
void sbx__jit_rt_call(struct wasm_jit_store *js, struct wasm_func *fn, struct wasm_instance *caller,
                      uint64_t *slots);
/* throw: makes the exception of inst's tag (its values in slots) the one in flight and unwinds
 * to the innermost entry (the frame that entered compiled code looks for a handler);
 * throw_ref: the same for exn, or the trap "null exception reference". */
_Noreturn void sbx__jit_rt_throw(struct wasm_jit_store *js, struct wasm_instance *inst,
                                 uint32_t tag, const uint64_t *slots);
_Noreturn void sbx__jit_rt_throw_ref(struct wasm_jit_store *js, struct wasm_exn *exn);
/* Compiled try_table (emit_eh.c): the only setjmp between compiled frames. try_call calls fn
 * as sbx__jit_rt_call does with js->top at a jmp_buf of its own: NULL when it returned, else
 * the exception that came out of it (in flight, ex->exn); any other trap unwinds on. exn_new
 * makes the exception of inst's tag without unwinding (a throw inside a try_table; a trap when
 * max_bytes cannot hold it); exn_ref puts exn in flight again (throw_ref there; NULL traps).
 * exn_is: 1 when exn is of inst's tag; exn_take: a clause caught it (is_ref: an exnref keeps it,
 * else it ends). */
struct wasm_exn *sbx__jit_rt_try_call(struct wasm_jit_store *js, struct wasm_func *fn,
                                      struct wasm_instance *caller, uint64_t *slots);
struct wasm_exn *sbx__jit_rt_exn_new(struct wasm_jit_store *js, struct wasm_instance *inst,
                                     uint32_t tag, const uint64_t *slots);
struct wasm_exn *sbx__jit_rt_exn_ref(struct wasm_jit_store *js, struct wasm_exn *exn);
uint32_t sbx__jit_rt_exn_is(const struct wasm_instance *inst, const struct wasm_exn *exn,
                            uint32_t tag);
void sbx__jit_rt_exn_take(struct wasm_jit_store *js, struct wasm_exn *exn, uint32_t is_ref);
/* 1 when fn's type equals want structurally (call_indirect across type indices). */
uint32_t sbx__jit_rt_sig_eq(const struct wasm_func *fn, const struct wasm_rtt *want);

uint32_t sbx__jit_rt_memory_grow(struct wasm_memory *mem, uint32_t delta);
uint32_t sbx__jit_rt_memory_fill(struct wasm_memory *mem, uint32_t d, uint32_t val, uint32_t n);
uint32_t sbx__jit_rt_memory_copy(struct wasm_memory *mem, uint32_t d, uint32_t s, uint32_t n);
uint32_t sbx__jit_rt_memory_init(struct wasm_instance *inst, uint32_t seg, uint32_t d, uint32_t s,
                                 uint32_t n);
void sbx__jit_rt_data_drop(struct wasm_instance *inst, uint32_t seg);
uint32_t sbx__jit_rt_table_grow(struct wasm_table *t, void *init, uint32_t delta);
uint32_t sbx__jit_rt_table_fill(struct wasm_table *t, uint32_t i, void *val, uint32_t n);
uint32_t sbx__jit_rt_table_copy(struct wasm_table *dt, struct wasm_table *st, uint32_t d,
                                uint32_t s, uint32_t n);
uint32_t sbx__jit_rt_table_init(struct wasm_instance *inst, uint32_t table, uint32_t seg,
                                uint32_t d, uint32_t s, uint32_t n);
void sbx__jit_rt_elem_drop(struct wasm_instance *inst, uint32_t seg);
/* The same on memory idx of inst, any memory: addresses and lengths are u64 (a 32-bit memory's
 * zero-extended); memory.grow is sbx__wasm_memory_grow64 itself. */
uint32_t sbx__jit_rt_memory_fill64(struct wasm_instance *inst, uint32_t mem, uint64_t d,
                                   uint32_t val, uint64_t n);
uint32_t sbx__jit_rt_memory_copy64(struct wasm_instance *inst, uint32_t dmem, uint32_t smem,
                                   uint64_t d, uint64_t s, uint64_t n);
uint32_t sbx__jit_rt_memory_init64(struct wasm_instance *inst, uint32_t mem, uint32_t seg,
                                   uint64_t d, uint32_t s, uint32_t n);

/* rt_gc.c: the GC instructions that allocate, move many values or test types (gc_ops.h): a
 * trap kind, the new reference in *out. The array.*_seg / init helpers take a data segment, or
 * an element segment when is_elem; gc_test answers ref.test (rtt NULL: abstract type abs);
 * gc_convert is any.convert_extern (to_any) or extern.convert_any. */
uint32_t sbx__jit_rt_gc_struct_new(struct wasm_instance *inst, const struct wasm_rtt *rtt,
                                   const uint64_t *vals, uint64_t *out);
uint32_t sbx__jit_rt_gc_array_new(struct wasm_instance *inst, const struct wasm_rtt *rtt,
                                  const uint64_t *init, uint32_t len, uint64_t *out);
uint32_t sbx__jit_rt_gc_array_new_fixed(struct wasm_instance *inst, const struct wasm_rtt *rtt,
                                        const uint64_t *vals, uint32_t n, uint64_t *out);
uint32_t sbx__jit_rt_gc_array_new_seg(struct wasm_instance *inst, const struct wasm_rtt *rtt,
                                      uint32_t is_elem, uint32_t seg, uint32_t off, uint32_t n,
                                      uint64_t *out);
uint32_t sbx__jit_rt_gc_array_fill(uint64_t ref, uint32_t d, const uint64_t *val, uint32_t n);
uint32_t sbx__jit_rt_gc_array_copy(uint64_t dref, uint32_t d, uint64_t sref, uint32_t s,
                                   uint32_t n);
uint32_t sbx__jit_rt_gc_array_init(struct wasm_instance *inst, uint32_t is_elem, uint32_t seg,
                                   uint64_t ref, uint32_t d, uint32_t s, uint32_t n);
uint32_t sbx__jit_rt_gc_test(uint64_t v, uint32_t abs, const struct wasm_rtt *rtt,
                             uint32_t is_nullable);
uint32_t sbx__jit_rt_gc_convert(struct wasm_instance *inst, uint64_t v, uint32_t to_any,
                                uint64_t *out);

#endif

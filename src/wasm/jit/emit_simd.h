/* wasm/jit/emit_simd.h: the fixed-width SIMD emitters, one file per family: emit_simd.c
 * (constants, shuffles, lanes, bitwise, reductions), emit_simd_mem.c, emit_simd_int.c,
 * emit_simd_float.c. A v128 is one LLVM <2 x i64> on the operand stack, in locals, globals and
 * calls; an instruction bitcasts it to its lane shape (no code), so lane i is bytes
 * [i * width, ...) in memory order, as in the interpreter (interp_simd.h). */
#ifndef SBX_WASM_JIT_EMIT_SIMD_H
#define SBX_WASM_JIT_EMIT_SIMD_H

#include "wasm/jit/emit.h"

/* A lane shape: 16 x i8 ... 2 x f64. */
enum simd_shape { SH_I8, SH_I16, SH_I32, SH_I64, SH_F32, SH_F64 };

/* The vector type of a shape, its lane type and lane count. */
LLVMTypeRef sbx__jit_simd_type(struct jit_mod *jm, enum simd_shape s);
LLVMTypeRef sbx__jit_simd_lane(struct jit_mod *jm, enum simd_shape s);
unsigned sbx__jit_simd_lanes(enum simd_shape s);
/* The integer shape of lanes of `bytes` bytes (1, 2, 4, 8). */
enum simd_shape sbx__jit_simd_int_shape(uint32_t bytes);
/* v (any 128-bit vector) as shape s; a result back as the stack's v128. */
LLVMValueRef sbx__jit_simd_as(struct jit_func *f, LLVMValueRef v, enum simd_shape s);
LLVMValueRef sbx__jit_simd_v128(struct jit_func *f, LLVMValueRef v);
/* Pops a v128 as shape s. */
LLVMValueRef sbx__jit_simd_pop(struct jit_func *f, enum simd_shape s);
/* Pushes a vector result of any shape as v128. */
void sbx__jit_simd_push(struct jit_func *f, LLVMValueRef v);
/* shufflevector(a, b) with the n lane indices idx (b may be NULL: a itself). */
LLVMValueRef sbx__jit_simd_shuffle(struct jit_func *f, LLVMValueRef a, LLVMValueRef b,
                                   const unsigned *idx, unsigned n);
/* The scalar x (already of the lane type) in every lane of shape s. */
LLVMValueRef sbx__jit_simd_splat(struct jit_func *f, LLVMValueRef x, enum simd_shape s);

/* The families, each true when it knows in->op. */
bool sbx__jit_simd_mem(struct jit_func *f, const struct wasm_instr *in, bool *ok);
bool sbx__jit_simd_int(struct jit_func *f, const struct wasm_instr *in, bool *ok);
bool sbx__jit_simd_float(struct jit_func *f, const struct wasm_instr *in, bool *ok);
/* emit_simd_relaxed.c: relaxed SIMD's own instructions (the rest are emitted as their twins). */
bool sbx__jit_simd_relaxed(struct jit_func *f, const struct wasm_instr *in, bool *ok);

#endif

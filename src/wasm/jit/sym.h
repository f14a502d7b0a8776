/* wasm/jit/sym.h: the external symbols compiled code refers to instead of addresses, so that
 * the code of a module is the same bytes for every instance (image.h). Each names what it
 * refers to by kind and index (sbx_k_func12, sbx_k_mem_data0, sbx_rt_trap); the loader
 * (link.c) resolves them for one instance. */
#ifndef SBX_WASM_JIT_SYM_H
#define SBX_WASM_JIT_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasm/runtime.h"

enum jit_sym {
    JIT_SYM_INSTANCE,    /* struct wasm_instance */
    JIT_SYM_JIT,         /* the store's struct wasm_jit_store */
    JIT_SYM_INTERRUPT,   /* the store's is_interrupted flag */
    JIT_SYM_STACK_LIMIT, /* the store's wasm_jit_store.stack_limit */
    JIT_SYM_FUNC,        /* struct wasm_func of function idx (imported or defined) */
    JIT_SYM_TYPE,        /* the canonical type of the module's type idx (struct wasm_rtt) */
    JIT_SYM_MEM,         /* struct wasm_memory idx */
    JIT_SYM_MEM_DATA,    /* memory idx's data (never moves: runtime.h) */
    JIT_SYM_TABLE,       /* struct wasm_table idx */
    JIT_SYM_GLOBAL,      /* global idx's wasm_value */
    JIT_SYM_RT,          /* the C helper idx (enum jit_rt) */
    JIT_SYM_COUNT_
};

/* The C helpers of rt.h, by index. */
enum jit_rt {
    JIT_RT_TRAP,
    JIT_RT_CALL,
    JIT_RT_SIG_EQ,
    JIT_RT_MEMORY_GROW,
    JIT_RT_MEMORY_FILL,
    JIT_RT_MEMORY_COPY,
    JIT_RT_MEMORY_INIT,
    JIT_RT_DATA_DROP,
    JIT_RT_TABLE_GROW,
    JIT_RT_TABLE_FILL,
    JIT_RT_TABLE_COPY,
    JIT_RT_TABLE_INIT,
    JIT_RT_ELEM_DROP,
    JIT_RT_MEMORY_GROW64, /* any memory: u64 addresses and lengths (multiple memories, memory64) */
    JIT_RT_MEMORY_FILL64,
    JIT_RT_MEMORY_COPY64,
    JIT_RT_MEMORY_INIT64,
    JIT_RT_THROW, /* exception handling */
    JIT_RT_THROW_REF,
    JIT_RT_GC_STRUCT_NEW, /* GC (rt_gc.c) */
    JIT_RT_GC_ARRAY_NEW,
    JIT_RT_GC_ARRAY_NEW_FIXED,
    JIT_RT_GC_ARRAY_NEW_SEG,
    JIT_RT_GC_ARRAY_FILL,
    JIT_RT_GC_ARRAY_COPY,
    JIT_RT_GC_ARRAY_INIT,
    JIT_RT_GC_TEST,
    JIT_RT_GC_CONVERT,
    JIT_RT_TRY_CALL, /* compiled try_table (emit_eh.c) */
    JIT_RT_EXN_NEW,
    JIT_RT_EXN_REF,
    JIT_RT_EXN_IS,
    JIT_RT_EXN_TAKE,
    JIT_RT_COUNT_
};

/* The stack probe every function with a frame of SBX__JIT_PROBE_BYTES or more calls in its
 * prologue, before the frame is allocated, with the frame's size in %rax (LLVM's "probe-stack"
 * attribute): the loader gives each mapping its own (link.c), which traps "call stack
 * exhausted" when the frame would end below the store's stack limit. Smaller frames are
 * checked after the prologue (emit_func.c), within the limit's margin (rt.c). */
#define SBX__JIT_PROBE_SYM   "sbx_rt_probe_stack"
#define SBX__JIT_PROBE_BYTES 32768

/* Writes the symbol's name ("sbx_k_func12"); idx is ignored for the store-wide kinds. */
void sbx__jit_sym_name(char *buf, size_t len, enum jit_sym kind, uint32_t idx);

/* Parses a decimal index that is all of s (no sign, no leading zero, at most UINT32_MAX). */
bool sbx__jit_sym_index(const char *s, uint32_t *out);

/* The address a symbol named name stands for in inst: one of ours (its index checked against
 * inst's module), or a libc/libm function of a fixed list that LLVM lowers some operations to.
 * False when the name is none of them or its index is out of range. *addr may be NULL (an
 * empty memory's data). */
bool sbx__jit_sym_resolve(const char *name, const struct wasm_instance *inst, uintptr_t *addr);

#endif

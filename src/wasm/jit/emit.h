/* wasm/jit/emit.h: the state of translating one module to LLVM IR, shared by the emitters
 * (one file per instruction family, as WAMR's compilation/ is laid out). Values on the wasm
 * operand stack are LLVM SSA values; locals and block results are allocas that mem2reg lifts.
 * Runtime objects of the instance are reached through external symbols (sym.h), resolved per
 * instance by the loader: the code is the same for every instance of the module. */
#ifndef SBX_WASM_JIT_EMIT_H
#define SBX_WASM_JIT_EMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "wasm/decode.h"
#include "wasm/jit/jit.h"
#include "wasm/jit/level.h"
#include "wasm/jit/llvm_api.h"
#include "wasm/jit/sym.h"
#include "wasm/runtime.h"

/* Disjoint kinds of memory, told to the optimiser as TBAA types (jit_alias.c): a store to
 * guest memory cannot change the memory's size field, a global or the call depth, so those
 * stay in registers across it (e.g. the size load leaves a loop). */
enum jit_alias {
    JIT_ALIAS_GUEST,   /* linear memory */
    JIT_ALIAS_MEMSIZE, /* struct wasm_memory.size / pages */
    JIT_ALIAS_LIMIT,   /* wasm_jit_store.stack_limit */
    JIT_ALIAS_TABLE,   /* struct wasm_table.size / elems */
    JIT_ALIAS_ELEM,    /* a table's element array */
    JIT_ALIAS_FUNC,    /* struct wasm_func fields */
    JIT_ALIAS_FAULT,   /* wasm_jit_store.fault_func */
    JIT_ALIAS_COUNT_
};

/* The module being translated: LLVM objects and the module part it translates. */
struct jit_mod {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMTypeRef t_void, t_i1, t_i8, t_i16, t_i32, t_i64, t_f32, t_f64, t_ptr;
    LLVMTypeRef *fn_types; /* per type index: the native signature */
    LLVMValueRef *fns;     /* per defined function */
    LLVMValueRef fn_table; /* [func_def_count x ptr] of fns, for call_indirect; NULL: only */
    const struct wasm_module *m;
    const struct sbx__jit_stop *stop; /* what stops the compile at its next function or phase */
    /* Hot-only (lazy.c): per defined function, non-zero when this batch compiles it (NULL: all;
     * SBX__JIT_ONLY_OSR: with its OSR entry). The others have no native function here (fns[i]
     * NULL): calls reach them in the runtime. */
    const uint8_t *only;
    const struct sbx__jit_level *level; /* the pipeline and codegen level (level.h) */
    uint32_t def_first, def_end;        /* the defined functions this part translates */
    uint32_t huge_end;        /* set: translates only those in range whose level is jm->level */
    bool is_whole;            /* one part: functions are internal */
    bool is_guarded;          /* accesses rely on the guard region (emit_memory.c) */
    LLVMTargetMachineRef tm;  /* this part's (optimiser costs, codegen) */
    LLVMTargetDataRef layout; /* tm's */
    LLVMMemoryBufferRef obj;  /* the part's object code */
    const char *feature;      /* set when the module uses something not compiled (e.g. "SIMD") */
    unsigned tbaa_kind;
    LLVMMetadataRef tbaa_root;
    LLVMValueRef tbaa[JIT_ALIAS_COUNT_]; /* access tags, made on first use */
    LLVMValueRef *tbaa_globals;          /* per global index: each global is its own type */
};

/* One open block, loop, if, or the function body (kind WASM_OP_BLOCK at depth 0). */
struct jit_ctl {
    uint16_t kind;
    bool has_else;
    LLVMBasicBlockRef end_bb, loop_bb, else_bb;
    LLVMValueRef *rvars; /* nr allocas: results (block, if, function) */
    LLVMValueRef *pvars; /* np allocas: loop params (the branch target of a loop) */
    LLVMValueRef *saved; /* if: the params, for an implicit else */
    const wasm_vtype *ptypes, *rtypes;
    wasm_vtype single; /* rtypes of a one-value-type block (is_single) */
    bool is_single;
    uint32_t np, nr;
    uint32_t height; /* operand stack height below the params */
    /* try_table (emit_eh.c): its clauses, its dispatch block (the enclosing one's when it has
     * no clause) and the enclosing one's (NULL: none in this function). */
    struct wasm_instr try_in;
    LLVMBasicBlockRef handler_bb, outer_handler;
};

/* One function being translated. */
struct jit_func {
    struct jit_mod *jm;
    LLVMBuilderRef b;
    const struct wasm_module *m;
    uint32_t func_idx;
    const struct wasm_functype *type;
    LLVMValueRef fn;
    LLVMTypeRef fn_type;
    LLVMBasicBlockRef entry_bb;
    LLVMValueRef *locals;
    wasm_vtype *local_types;
    uint32_t local_count;
    LLVMValueRef *stack;
    uint32_t sp, stack_cap;
    struct jit_ctl *ctls;
    uint32_t nctl, ctl_cap;
    LLVMBasicBlockRef trap_bb[WASM_TRAP_KIND_COUNT];
    uint32_t skip; /* nesting depth inside dead code */
    bool is_dead;  /* after br, br_table, return, unreachable: skip to the matching end/else */
    bool is_nomem;
    /* An OSR entry (emit_osr.c): its slots parameter, the switch over loop ordinals, and the
     * ordinal of the last loop read (every loop opcode of the body counts, dead or not). */
    LLVMValueRef osr_slots, osr_switch;
    uint32_t osr_param_slot; /* where the loop params start in the slots (after the locals) */
    uint32_t loop_seq;
    /* Inside a try_table: the innermost one's dispatch block, and the alloca holding the
     * exception that goes there (emit_eh.c). */
    LLVMBasicBlockRef handler_bb;
    LLVMValueRef exn_var;
    uint8_t mem_use;     /* guarded: 0 not scanned yet, 1 the body accesses memory, 2 it does not */
    bool has_fault_slot; /* guarded: the entry's write of fault_func is emitted */
};

/* A family's emitter: returns true when it knows in->op, with *ok false only on NOMEM (the
 * module is validated) or an unsupported feature (jm->feature set). */
typedef bool (*jit_family_fn)(struct jit_func *f, const struct wasm_instr *in, bool *ok);

/* emit_func.c: the stack, locals, helpers shared by the emitters. */
void sbx__jit_push(struct jit_func *f, LLVMValueRef v);
LLVMValueRef sbx__jit_pop(struct jit_func *f);
LLVMTypeRef sbx__jit_type(struct jit_mod *jm, wasm_vtype valtype);
/* A member of a multi-value result: floats travel as their bits, since x86-64 returns a third
 * floating-point member in x87's st0, whose load quiets a signalling NaN. */
LLVMTypeRef sbx__jit_member_type(struct jit_mod *jm, wasm_vtype valtype);
LLVMValueRef sbx__jit_to_member(struct jit_func *f, LLVMValueRef v, wasm_vtype valtype);
LLVMValueRef sbx__jit_from_member(struct jit_func *f, LLVMValueRef v, wasm_vtype valtype);
/* The address of the instance object kind idx names (an external symbol of the module). */
LLVMValueRef sbx__jit_sym(struct jit_mod *jm, enum jit_sym kind, uint32_t idx);
LLVMValueRef sbx__jit_i32(struct jit_mod *jm, uint64_t v);
LLVMValueRef sbx__jit_i64(struct jit_mod *jm, uint64_t v);
/* Loads a field of type t at byte offset off from the instance object kind idx. */
LLVMValueRef sbx__jit_load_at(struct jit_func *f, LLVMTypeRef t, enum jit_sym kind, uint32_t idx,
                              size_t off);
/* Loads a field of type t at byte offset off from a runtime pointer p. */
LLVMValueRef sbx__jit_load_field(struct jit_func *f, LLVMTypeRef t, LLVMValueRef p, size_t off);
/* Calls the C helper rt (sbx_rt_<name>) with the given LLVM signature. */
LLVMValueRef sbx__jit_call_c(struct jit_func *f, enum jit_rt rt, LLVMTypeRef ret,
                             LLVMTypeRef *params, LLVMValueRef *args, unsigned n);
/* Calls an LLVM intrinsic by name, overloaded on the given types. */
LLVMValueRef sbx__jit_intrinsic(struct jit_func *f, const char *name, LLVMTypeRef *over,
                                size_t nover, LLVMValueRef *args, unsigned nargs);
/* Branches to the function's trap block for kind when cond is true (marked unlikely). */
void sbx__jit_trap_if(struct jit_func *f, LLVMValueRef cond, enum wasm_trap_kind kind);
/* Traps if the C helper's returned kind (i32) is not WASM_TRAP_NONE. */
void sbx__jit_trap_if_kind(struct jit_func *f, LLVMValueRef kind);
/* Polls the store's interrupt flag (function entries and loop headers). */
void sbx__jit_poll(struct jit_func *f);
LLVMBasicBlockRef sbx__jit_block(struct jit_func *f, const char *name);
/* A builder at the start of f's entry block (allocas, the entry's fault_func write); the
 * caller disposes of it. */
LLVMBuilderRef sbx__jit_entry_builder(struct jit_func *f);
/* An alloca in the entry block (so loops do not grow the stack). */
LLVMValueRef sbx__jit_alloca(struct jit_func *f, LLVMTypeRef t);
/* Makes n allocas of the given types (block results, loop params); NULL on NOMEM. */
LLVMValueRef *sbx__jit_vars(struct jit_func *f, const wasm_vtype *types, uint32_t n);

/* emit_table.c: a table index or length as an i32: a 64-bit table's (is64) saturated to
 * UINT32_MAX, out of bounds in every table (table.c). */
LLVMValueRef sbx__jit_idx32(struct jit_func *f, LLVMValueRef v, bool is64);

/* emit_memory.c: the host address of [addr + offset, + bytes) of memory mem after its bounds
 * check (none when jm->is_guarded and mem is a 32-bit memory 0: the guard region faults
 * instead; a 64-bit address is always checked). */
LLVMValueRef sbx__jit_checked_addr(struct jit_func *f, LLVMValueRef addr, uint32_t mem,
                                   uint64_t offset, uint32_t bytes);
/* Tags a load or store of guest memory; guarded, also makes it volatile, so that the optimiser
 * neither deletes nor reorders an access that may fault (docs/wasm.md, "Memory safety"). */
void sbx__jit_guest_access(struct jit_mod *jm, LLVMValueRef access);
/* Guarded: makes a store of other trap-visible state (globals, table elements) volatile, so
 * that it stays in order with the guest accesses around it. */
void sbx__jit_visible_store(struct jit_mod *jm, LLVMValueRef store);
/* Guarded: after a call, in a function that accesses memory, writes fault_func again (the
 * callee wrote its own). */
void sbx__jit_fault_slot_after_call(struct jit_func *f);

/* emit_numeric.c: v through an empty asm (an SSE register in, the same out), hiding it from
 * the optimiser's folds. */
LLVMValueRef sbx__jit_opaque(struct jit_func *f, LLVMValueRef v);

/* jit_alias.c: tags a load or store with its kind of memory (or global idx's own). */
void sbx__jit_alias(struct jit_mod *jm, LLVMValueRef access, enum jit_alias kind);
void sbx__jit_alias_global(struct jit_mod *jm, LLVMValueRef access, uint32_t idx);

/* The families: each returns true when it knows in->op (setting *ok to the emit result). */
bool sbx__jit_emit_control(struct jit_func *f, const struct wasm_instr *in, bool *ok);
bool sbx__jit_emit_numeric(struct jit_func *f, const struct wasm_instr *in, bool *ok);
bool sbx__jit_emit_convert(struct jit_func *f, const struct wasm_instr *in, bool *ok);
bool sbx__jit_emit_memory(struct jit_func *f, const struct wasm_instr *in, bool *ok);
bool sbx__jit_emit_table(struct jit_func *f, const struct wasm_instr *in, bool *ok);
bool sbx__jit_emit_variable(struct jit_func *f, const struct wasm_instr *in, bool *ok);
/* emit_simd.c: the 0xFD instructions (emit_simd.h). */
bool sbx__jit_emit_simd(struct jit_func *f, const struct wasm_instr *in, bool *ok);
/* emit_gc.c: the GC instructions (3.0), helpers in rt_gc.c. */
bool sbx__jit_emit_gc(struct jit_func *f, const struct wasm_instr *in, bool *ok);

/* emit_eh.c: exception handling. open/close: a try_table's start (its block pushed as ctl c)
 * and end (c already popped: its clauses' labels are the enclosing context's); throw and
 * throw_ref; a call inside a try_table (f->handler_bb set): fn (a struct wasm_func *) through
 * sbx__jit_rt_try_call, an exception that comes out of it going to the dispatch. */
bool sbx__jit_eh_open(struct jit_func *f, const struct wasm_instr *in, struct jit_ctl *c);
bool sbx__jit_eh_close(struct jit_func *f, const struct jit_ctl *c);
bool sbx__jit_emit_throw(struct jit_func *f, const struct wasm_instr *in);
void sbx__jit_call_try(struct jit_func *f, LLVMValueRef fn, const struct wasm_functype *t,
                       LLVMValueRef *args, LLVMValueRef *res);

/* emit_call.c: the calling convention of the module's functions: LLVM's tailcc (guaranteed
 * tail calls, fastcc otherwise) in a module with return_call*, else C's; every call of one of
 * them sets it too (sbx__jit_call_conv). */
void sbx__jit_func_conv(struct jit_mod *jm, LLVMValueRef fn);
void sbx__jit_call_conv(struct jit_mod *jm, LLVMValueRef call);

/* emit_call.c: direct and indirect calls and the slot-ABI wrapper of a function. */
bool sbx__jit_emit_call(struct jit_func *f, const struct wasm_instr *in, bool *ok);
bool sbx__jit_emit_wrapper(struct jit_mod *jm, uint32_t def_idx, const char *name);
/* Packs values into an [n x i64] slot array (alloca) / reads results back. */
LLVMValueRef sbx__jit_pack(struct jit_func *f, LLVMValueRef *vals, const wasm_vtype *types,
                           uint32_t n, uint32_t room);
LLVMValueRef sbx__jit_unpack(struct jit_func *f, LLVMValueRef slots, uint32_t i, wasm_vtype type);
/* A call through a runtime helper of the slot ABI: args into slots with room for the results
 * (*slots), then rt(js, fn, caller, slots) returning ret; the results read back from the slots. */
LLVMValueRef sbx__jit_call_slots(struct jit_func *f, enum jit_rt rt, LLVMTypeRef ret,
                                 LLVMValueRef fn, const struct wasm_functype *t, LLVMValueRef *args,
                                 LLVMValueRef *slots);
void sbx__jit_unpack_results(struct jit_func *f, LLVMValueRef slots, const struct wasm_functype *t,
                             LLVMValueRef *res);
/* The slow call: sbx__jit_rt_call (which unwinds itself on a trap): fn may be native,
 * interpreted or a host function. */
void sbx__jit_call_runtime(struct jit_func *f, LLVMValueRef fn, const struct wasm_functype *t,
                           LLVMValueRef *args, LLVMValueRef *res);

/* emit_func.c: translates defined function def_idx into jm->fns[def_idx]. */
bool sbx__jit_emit_func(struct jit_mod *jm, uint32_t def_idx);
/* The same for a function over the compile-cost bound (level.h): jm->fns[def_idx] only passes
 * the call to the runtime, which interprets the function (it gets no wrapper). */
bool sbx__jit_emit_stub(struct jit_mod *jm, uint32_t def_idx);
/* The branch to label depth (br, br_if taken, br_table): stores the label's values. */
void sbx__jit_branch(struct jit_func *f, uint32_t depth);
/* Returns the top values of the stack as the function's results. */
void sbx__jit_return(struct jit_func *f);
/* emit_control.c: after an unconditional transfer, the rest of the block is dead code. */
void sbx__jit_go_dead(struct jit_func *f);
/* emit_control.c: opens the function body as the outermost block; its end returns. */
bool sbx__jit_open_body(struct jit_func *f);

/* emit_osr.c: on-stack replacement entries. sbx_o<def> (sbx__jit_osr_name), emitted for each
 * function with a loop, is uint32_t (uint64_t *slots, uint32_t loop): slots hold the locals in
 * declaration order (sbx__wasm_type_slots each), then the loop's params; it continues the
 * function at the header of its loop-th loop (the ordinal of the loop opcode in the body) and
 * returns 1 with the results in slots[0...], or 0 (nothing run) when that loop has no entry.
 * Loops have an entry when the operand stack below their params is empty (osr.h). */
void sbx__jit_osr_name(char *buf, size_t len, uint32_t def_idx);
bool sbx__jit_has_loop(const struct wasm_module *m, uint32_t def_idx);
/* Declares sbx_o<def_idx>, the function f translates into, and its entry block. */
LLVMValueRef sbx__jit_osr_declare(struct jit_mod *jm, uint32_t def_idx);
/* After the locals are loaded in the entry block: the switch, then a block with no
 * predecessors that the body's start is translated into. */
void sbx__jit_osr_open(struct jit_func *f);
/* At loop c's header (loop_bb made): its case in the switch when it qualifies. */
void sbx__jit_osr_loop(struct jit_func *f, const struct jit_ctl *c);
/* The function's return in an OSR entry: the results into slots, then return 1. */
void sbx__jit_osr_return(struct jit_func *f);
/* Whole OSR entry of def_idx (emit_func.c). */
bool sbx__jit_emit_osr(struct jit_mod *jm, uint32_t def_idx);
/* emit_call.c: stores v (of wasm type) at slot i of slots, the interpreter's layout. */
void sbx__jit_store_slot(struct jit_func *f, LLVMValueRef v, wasm_vtype type, LLVMValueRef slots,
                         uint32_t i);

#endif

/* wasm/compile_impl.h: the translator's state, shared by compile*.c. The operand stack is
 * tracked at compile time: each entry has a canonical slot (locals + its stack position), but
 * a value may stay in a local or be a constant until something needs it in its slot. */
#ifndef SBX_WASM_COMPILE_IMPL_H
#define SBX_WASM_COMPILE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sbx/error.h>

#include "wasm/code.h"
#include "wasm/decode.h"

enum { K_SLOT = 0, K_LOCAL, K_CONST };
enum { B_FUNC = 0, B_BLOCK, B_LOOP, B_IF, B_ELSE };
enum { C_NZ = 0, C_Z, C_CMP };

struct centry {
    wasm_vtype type;
    uint8_t kind;   /* K_* */
    uint32_t slot;  /* canonical slot */
    uint32_t local; /* K_LOCAL: the local's slot */
    uint64_t k;     /* K_CONST: the bits */
};

struct cblock {
    uint8_t kind;       /* B_* */
    uint32_t height;    /* operand entries below the block's params */
    uint32_t base_slot; /* canonical slot of the first param / result */
    uint32_t nparams, nresults;
    const wasm_vtype *ptypes, *rtypes;
    uint32_t loop_pos;      /* B_LOOP: the header's word index */
    uint32_t fixups;        /* chain of forward-branch words to patch at end, +1; 0 = none */
    uint32_t else_fix;      /* B_IF: the false-jump's word, +1; 0 = none */
    uint32_t outer_fuel;    /* B_LOOP: the enclosing region's count */
    uint32_t try_idx;       /* a try_table's block: its handler's index + 1; 0 = none */
    wasm_vtype single_type; /* storage for a one-valtype block type */
    bool is_single;         /* ptypes / rtypes point at single_type */
};

/* A branch condition: slot != 0, slot == 0, or a fused i32 compare of a and b (b an
 * immediate when is_imm). */
struct ccond {
    uint8_t kind; /* C_* */
    uint8_t cmp;  /* 0..9: eq ne lt_s lt_u gt_s gt_u le_s le_u ge_s ge_u */
    bool is_imm;
    uint32_t a, b;
};

struct compiler {
    const struct wasm_module *m;
    const struct wasm_functype *ft;
    const int32_t *ops;
    struct wasm_reader r; /* the body; instructions are read only through the decoder */
    uint32_t *local_slot;
    wasm_vtype *local_type;
    uint8_t *local_written; /* per local: some instruction so far sets it */
    uint8_t *local_zeroed;  /* per local: zeroed at entry (the validator's local_zeroed) */
    uint32_t local_count;
    uint32_t frame_base; /* slots of params + locals: where the operand stack starts */
    uint32_t zero_slot;  /* a local slot that always holds 0 (base of constant addresses) */
    bool is_zero_used;   /* some instruction reads zero_slot: zero it at entry */

    uint32_t *w;    /* the code, handler words as label offsets until finish() */
    uint8_t *is_op; /* per word: it is a handler */
    uint32_t wlen, wcap;
    struct centry *st;
    uint32_t sp, stcap;
    uint32_t slot_top, max_slot;
    struct cblock *bl;
    uint32_t nbl, blcap;

    bool is_dead;        /* after br/return/unreachable until the block's end or else */
    uint32_t skip_depth; /* blocks opened inside dead code */
    uint32_t fuel;       /* instructions in the current metering region */
    uint32_t last_dst;   /* +1: dst word of the last instruction when its result is on top */
    uint32_t last_cmp;   /* +1: start of the last instruction when it is a fusable compare */
    uint8_t last_cmp_kind, last_cmp_op;
    enum wasm_iop last_op; /* the last instruction emitted (unreachable after a label) */
    uint32_t last_start;   /* its first word */
    enum wasm_iop prev_op; /* the one before it, when no label lies between */
    uint32_t prev_start;
    enum wasm_iop older_op; /* and the one before that (restored by unemit) */
    uint32_t older_start;
    bool last_cmp_imm;
    uint32_t loop_seq;               /* loop opcodes read so far, dead ones too */
    struct wasm_osr_loop *osr_loops; /* the qualifying loops so far (compile_osr.c) */
    uint32_t osr_count, osr_cap;
    struct wasm_handler *handlers; /* try_tables so far (compile_control.c) */
    uint32_t nhandlers, handler_cap;
    struct wasm_hcatch *catches;
    uint32_t ncatches, catch_cap;
    bool has_failed;
    sbx_err rc;
    char *err;
    size_t errlen;
};

/* compile.c */
void sbx__wasm_c_fail(struct compiler *c, sbx_err rc, const char *msg);
void sbx__wasm_c_emit(struct compiler *c, uint32_t word);
void sbx__wasm_c_op(struct compiler *c, enum wasm_iop op);
/* Takes back the last instruction (to fuse it into the next); the one before becomes last. */
void sbx__wasm_c_unemit(struct compiler *c);
struct centry *sbx__wasm_c_push(struct compiler *c, wasm_vtype type);
struct centry sbx__wasm_c_pop(struct compiler *c);
uint32_t sbx__wasm_c_operand(struct compiler *c, const struct centry *e);
void sbx__wasm_c_flush_top(struct compiler *c, uint32_t n);
/* Emits the op with [dst] first, then the given operand words; pushes the result. */
void sbx__wasm_c_result(struct compiler *c, enum wasm_iop op, wasm_vtype type,
                        const uint32_t *opnds, uint32_t n);

/* Makes room for need elements in *arr (capacity *cap, doubling); false on NOMEM. */
bool sbx__wasm_c_grow(struct compiler *c, void **arr, uint32_t *cap, uint32_t need, size_t size);
/* Copies e's value into dst without changing the compile-time stack. */
void sbx__wasm_c_copy(struct compiler *c, const struct centry *e, uint32_t dst);
/* Marks a branch target here: nothing before it may be fused with what follows. */
void sbx__wasm_c_label(struct compiler *c);

/* compile_osr.c: records loop b (just opened) when it can be left for native code; moves the
 * records into out->osr (NULL when none), freeing them. */
void sbx__wasm_c_osr_loop(struct compiler *c, const struct cblock *b);
void sbx__wasm_c_osr_finish(struct compiler *c, struct wasm_code *out);

/* compile_control.c: each handles one decoded instruction, in dead code too (nesting). */
void sbx__wasm_c_block(struct compiler *c, uint8_t kind, const struct wasm_instr *in);
void sbx__wasm_c_else(struct compiler *c);
bool sbx__wasm_c_end(struct compiler *c); /* true at the function's final end */
void sbx__wasm_c_br(struct compiler *c, const struct wasm_instr *in);
void sbx__wasm_c_br_if(struct compiler *c, const struct wasm_instr *in);
void sbx__wasm_c_br_table(struct compiler *c, const struct wasm_instr *in);
void sbx__wasm_c_return(struct compiler *c);
void sbx__wasm_c_call(struct compiler *c, const struct wasm_instr *in);
void sbx__wasm_c_call_indirect(struct compiler *c, const struct wasm_instr *in);
void sbx__wasm_c_return_call(struct compiler *c, const struct wasm_instr *in);
void sbx__wasm_c_call_ref(struct compiler *c, const struct wasm_instr *in);
void sbx__wasm_c_br_on_null(struct compiler *c, const struct wasm_instr *in);
void sbx__wasm_c_br_on_cast(struct compiler *c, const struct wasm_instr *in);

/* compile_gc.c: the GC instructions other than br_on_cast*. */
bool sbx__wasm_c_gc(struct compiler *c, const struct wasm_instr *in);
/* compile_exn.c: try_table, throw, throw_ref; end_try closes try_table block b. */
void sbx__wasm_c_try_table(struct compiler *c, const struct wasm_instr *in);
void sbx__wasm_c_throw(struct compiler *c, const struct wasm_instr *in);
void sbx__wasm_c_end_try(struct compiler *c, const struct cblock *b);
/* compile_control.c, for compile_exn.c: an unconditional branch from the current stack to
 * label b (moves, a loop's poll, or a return), and label b by depth. */
void sbx__wasm_c_emit_br(struct compiler *c, struct cblock *b);
struct cblock *sbx__wasm_c_label_at(struct compiler *c, uint32_t depth);
void sbx__wasm_c_patch(struct compiler *c, uint32_t word, uint32_t target);
uint32_t sbx__wasm_c_call_args(struct compiler *c, const struct wasm_functype *ft);

/* compile_ops.c: live instructions without control flow. Returns false (and fails the
 * translation) when the instruction is not one it knows. */
bool sbx__wasm_c_ops(struct compiler *c, const struct wasm_instr *in);
/* The plain handler of a load or store (scalar or SIMD). */
enum wasm_iop sbx__wasm_c_access_iop(uint16_t op);

/* compile_mem.c: an instruction on a memory other than a 32-bit memory 0; false when in is
 * not one (the fast path's). clamp64 saturates a 64-bit table index or length in e's slot
 * (read from src) and returns the slot. */
bool sbx__wasm_c_mem_general(struct compiler *c, const struct wasm_instr *in);
uint32_t sbx__wasm_c_clamp64(struct compiler *c, const struct centry *e, uint32_t src);

#endif

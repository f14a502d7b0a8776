/* fuzz/wasmgen_impl.h: the generator's state, shared by wasmgen.c (module layout, sections) and
 * wasmgen_body.c (function bodies by typed stack-machine generation). */
#ifndef SBX_FUZZ_WASMGEN_IMPL_H
#define SBX_FUZZ_WASMGEN_IMPL_H

#include "wasmgen.h"

#define MAX_FUNCS     4 /* defined; function 0 is the host import env.h */
#define MAX_TYPES     64
#define MAX_GLOBALS   6
#define MAX_LOCALS    16
#define MAX_STACK     64
#define MAX_CTRL      8
#define WGEN_TAGS     2 /* exception tags, of function types (params only) */
#define WGEN_GC_TYPES 7 /* the type section's first entries: wasmgen_gc.c */

struct buf {
    uint8_t *p;
    size_t len, cap;
    bool is_bad; /* an allocation failed */
};

struct frame {
    uint8_t kind; /* opcode: 0x02 block, 0x03 loop, 0x04 if, 0x1f try_table, 0 = the body */
    bool in_else;
    struct wgen_sig sig;
    uint32_t height; /* operand stack height below the frame's params */
};

struct gen {
    const uint8_t *in;
    size_t in_left;
    struct wgen_sig types[MAX_TYPES];
    uint32_t type_count;
    uint32_t func_type[MAX_FUNCS + 1]; /* by function index */
    uint32_t func_count;               /* with the import */
    uint8_t global_type[MAX_GLOBALS];
    bool global_is_mut[MAX_GLOBALS];
    uint32_t global_count;
    uint32_t mem_pages, table_min;
    uint32_t passive_data_len, passive_elem_len;
    uint32_t tag_type[WGEN_TAGS]; /* type index of each tag */
    /* The function being generated. */
    struct buf *code;
    uint8_t local_type[MAX_LOCALS];
    uint32_t local_count; /* params included */
    uint32_t param_count;
    uint32_t scratch_f32, scratch_f64; /* locals for NaN canonicalisation */
    uint32_t gc_local;                 /* the first of wasmgen_gc.c's locals */
    uint8_t stack[MAX_STACK];
    uint32_t sp;
    struct frame ctrl[MAX_CTRL];
    uint32_t ctrl_count;
    int steps_left;
};

uint8_t gen_u8(struct gen *g);
uint32_t gen_pick(struct gen *g, uint32_t n); /* in [0, n) */
uint64_t gen_u64(struct gen *g);
void buf_byte(struct buf *b, uint8_t v);
void buf_uleb(struct buf *b, uint64_t v);
void buf_sleb(struct buf *b, int64_t v);
void buf_bytes(struct buf *b, const void *p, size_t len);
/* Returns the index of sig in the type section, adding it (UINT32_MAX when it is full). */
uint32_t gen_type(struct gen *g, const struct wgen_sig *sig);
/* Interesting bit patterns for a value of type t (constants and call arguments). */
uint64_t gen_bits(struct gen *g, uint8_t t);

/* Emits the body of function idx (locals vector, code, end) into code. */
void gen_body(struct gen *g, uint32_t idx, struct buf *code);

/* wasmgen_body.c's stack machine, for wasmgen_3.c: an opcode (with a LEB index), a constant
 * (not pushed), a fresh value of type t (pushed), the top values made types, a push, whether
 * the innermost frame is an if's arm, the rest of the frame unreachable, a NaN on top made
 * canonical, a scalar load (is_load) or store of the instruction table. */
void gen3_op(struct gen *g, uint16_t id);
void gen3_op_idx(struct gen *g, uint16_t id, uint32_t idx);
void gen3_const(struct gen *g, uint8_t t, uint64_t bits);
void gen3_fresh(struct gen *g, uint8_t t);
void gen3_ensure(struct gen *g, const uint8_t *types, uint32_t n);
void gen3_push(struct gen *g, uint8_t t);
bool gen3_is_conditional(struct gen *g);
void gen3_unreachable(struct gen *g);
void gen3_canonicalise(struct gen *g, uint8_t t);
uint16_t gen3_memop(struct gen *g, bool is_load);
void gen3_budget_check(struct gen *g);

/* wasmgen_3.c: the 3.0 steps, and a try_table's clauses (written to out). */
void gen3_tail_call(struct gen *g);
void gen3_throw(struct gen *g);
void gen3_clauses(struct gen *g, struct buf *out);
void gen3_call_ref(struct gen *g);
void gen3_br_on_null(struct gen *g);
void gen3_memory64(struct gen *g);
void gen3_relaxed(struct gen *g);

/* wasmgen_gc.c: the GC types (the type section's first WGEN_GC_TYPES entries), the locals every
 * body declares for them (after the others), and one GC step. */
void gengc_types(struct buf *s);
void gengc_locals(struct gen *g, struct buf *code);
void gengc_step(struct gen *g);

#endif

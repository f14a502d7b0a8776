/* wasm/code.h: the interpreter's internal form, shared by compile*.c and interp*.c.
 * Code is a stream of 32-bit words: a handler (label offset from the op table), then operands.
 * Operands name 64-bit frame slots (params, locals, then the operand stack); branch targets are
 * word offsets relative to the target word itself. v128 values take two slots. */
#ifndef SBX_WASM_CODE_H
#define SBX_WASM_CODE_H

#include <stdbool.h>
#include <stdint.h>

#include "wasm/runtime.h"

/* clang-format off */
/* Integer binary ops [h][dst][a][b]; with suffix _i, [h][dst][a][k] (k sign-extended for i64).
 * Comparisons stay in this order: the compiler indexes them from eq. */
#define WASM_IBIN(X, T, S) \
    X(T##_add##S) X(T##_sub##S) X(T##_mul##S) X(T##_div_s##S) X(T##_div_u##S) X(T##_rem_s##S) \
    X(T##_rem_u##S) X(T##_and##S) X(T##_or##S) X(T##_xor##S) X(T##_shl##S) X(T##_shr_s##S) \
    X(T##_shr_u##S) X(T##_rotl##S) X(T##_rotr##S) X(T##_eq##S) X(T##_ne##S) X(T##_lt_s##S) \
    X(T##_lt_u##S) X(T##_gt_s##S) X(T##_gt_u##S) X(T##_le_s##S) X(T##_le_u##S) X(T##_ge_s##S) \
    X(T##_ge_u##S)

/* Float binary [h][dst][a][b] and unary [h][dst][src] ops; arithmetic also has _i forms with
 * the constant's bits as one (f32) or two (f64, low word first) immediate words. */
#define WASM_FOPS(X, T) \
    X(T##_add) X(T##_sub) X(T##_mul) X(T##_div) X(T##_min) X(T##_max) X(T##_copysign) \
    X(T##_eq) X(T##_ne) X(T##_lt) X(T##_gt) X(T##_le) X(T##_ge) X(T##_abs) X(T##_neg) \
    X(T##_ceil) X(T##_floor) X(T##_trunc) X(T##_nearest) X(T##_sqrt) \
    X(T##_add_i) X(T##_sub_i) X(T##_mul_i) X(T##_div_i)

/* Fused compare-and-branch on i32: [h][a][b][target]; _i: [h][a][k][target]; the _back forms
 * jump to a loop header and poll (interrupt, fuel): [h][a][b][target][fuel]. */
#define WASM_BRCMP(X, S) \
    X(br_eq##S) X(br_ne##S) X(br_lt_s##S) X(br_lt_u##S) X(br_gt_s##S) X(br_gt_u##S) \
    X(br_le_s##S) X(br_le_u##S) X(br_ge_s##S) X(br_ge_u##S)

/* A loop's closing add and compare-branch: x = a + b (_i: a + k), then as br_<cmp>_i_back
 * on x: [h][x][a][b][limit][target][fuel]. */
#define WASM_ADDBR(X, S) \
    X(addbr_eq##S) X(addbr_ne##S) X(addbr_lt_s##S) X(addbr_lt_u##S) X(addbr_gt_s##S) \
    X(addbr_gt_u##S) X(addbr_le_s##S) X(addbr_le_u##S) X(addbr_ge_s##S) X(addbr_ge_u##S)

/* Loads [h][dst][addr][offset]; _add: address a + b, [h][dst][a][b][offset]; _addi: address
 * a + k, [h][dst][a][k][offset] (the 32-bit sum wraps, as the separate i32.add would). */
#define WASM_LOADS(X, S) \
    X(i32_load##S) X(i64_load##S) X(i32_load8_s##S) X(i32_load8_u##S) X(i32_load16_s##S) \
    X(i32_load16_u##S) X(i64_load8_s##S) X(i64_load8_u##S) X(i64_load16_s##S) \
    X(i64_load16_u##S) X(i64_load32_s##S) X(i64_load32_u##S)

/* Stores [h][addr][value][offset]; _i: [h][addr][k][offset], k sign-extended. With the
 * address as a sum: _add [h][a][b][value][offset], _addi [h][a][ka][value][offset], and
 * _i_add / _i_addi with the value k in place of the value slot. */
#define WASM_STORES(X, S) \
    X(i32_store##S) X(i64_store##S) X(i32_store8##S) X(i32_store16##S) X(i64_store32##S)

/* Binary ops fused with memory: _ld reads b from memory, [h][dst][a][addr][offset];
 * _st stores the result, [h][addr][a][b][offset]; _rmw does both at one address,
 * [h][addr][a][offset] (memory = a OP memory). Order matches compile_ops.c's memops. */
#define WASM_MEMOPS(X, S) \
    X(i32_add##S) X(i32_sub##S) X(i32_and##S) X(i32_or##S) X(i32_xor##S) X(i64_add##S) \
    X(i64_sub##S) X(f32_add##S) X(f32_sub##S) X(f32_mul##S) X(f64_add##S) X(f64_sub##S) \
    X(f64_mul##S)

/* Everything else. Formats: see interp.c next to each handler. */
#define WASM_MISC_OPS(X) \
    X(unreachable) X(br) X(br_if) X(br_unless) X(br_back) X(br_if_back) X(br_unless_back) \
    X(br_table) X(ret0) X(ret1) X(retn) X(call) X(call_func) X(call_indirect) X(mov) X(mov2) X(mov_mov) X(f64_muladd_rmw) X(f64_mulldadd_rmw) \
    X(i32_add_pair) X(i32_add_pair_ri) X(i32_add_pair_ir) X(i32_add_pair_ii) \
    X(i32_xor_rotl_i) X(i32_add_add) X(i32_add_xor) X(i32_add_and) \
    X(const32) X(const64) X(select) X(global_get) X(global_set) X(select2) X(global_get2) \
    X(global_set2) \
    X(i32_clz) X(i32_ctz) X(i32_popcnt) X(i32_eqz) X(i32_extend8_s) X(i32_extend16_s) \
    X(i64_clz) X(i64_ctz) X(i64_popcnt) X(i64_eqz) X(i64_extend8_s) X(i64_extend16_s) \
    X(i64_extend32_s) X(i64_extend_i32_s) X(i64_extend_i32_u) \
    X(i32_trunc_f32_s) X(i32_trunc_f32_u) X(i32_trunc_f64_s) X(i32_trunc_f64_u) \
    X(i64_trunc_f32_s) X(i64_trunc_f32_u) X(i64_trunc_f64_s) X(i64_trunc_f64_u) \
    X(i32_trunc_sat_f32_s) X(i32_trunc_sat_f32_u) X(i32_trunc_sat_f64_s) \
    X(i32_trunc_sat_f64_u) X(i64_trunc_sat_f32_s) X(i64_trunc_sat_f32_u) \
    X(i64_trunc_sat_f64_s) X(i64_trunc_sat_f64_u) \
    X(f32_convert_i32_s) X(f32_convert_i32_u) X(f32_convert_i64_s) X(f32_convert_i64_u) \
    X(f64_convert_i32_s) X(f64_convert_i32_u) X(f64_convert_i64_s) X(f64_convert_i64_u) \
    X(f32_demote_f64) X(f64_promote_f32) \
    X(memory_size) X(memory_grow) X(memory_copy) X(memory_fill) X(memory_init) X(data_drop) \
    X(table_get) X(table_set) X(table_size) X(table_grow) X(table_fill) X(table_copy) \
    X(table_init) X(elem_drop) X(ref_func) \
    X(addr64) X(mem_sel) X(mem_sel0) X(memory_size_m) X(memory_grow_m) X(memory_fill_m) \
    X(memory_copy_m) X(memory_init_m) X(idx64) \
    X(return_call) X(return_call_func) X(return_call_indirect) \
    X(call_ref) X(return_call_ref) X(ref_as_non_null) X(br_null) X(br_nonnull) \
    X(throw) X(throw_ref) X(base_resume) \
    WASM_GC_IOPS(X)

/* GC (interp_gc.h): struct.get/set and array.get/set by access size and sign; the rest one each. */
#define WASM_GC_IOPS(X) \
    X(struct_new) X(struct_new_default) X(struct_get32) X(struct_get64) X(struct_get128) \
    X(struct_get_i8s) X(struct_get_i8u) X(struct_get_i16s) X(struct_get_i16u) X(struct_set8) \
    X(struct_set16) X(struct_set32) X(struct_set64) X(struct_set128) X(array_new) \
    X(array_new_default) X(array_new_fixed) X(array_new_data) X(array_new_elem) X(array_get32) \
    X(array_get64) X(array_get128) X(array_get_i8s) X(array_get_i8u) X(array_get_i16s) \
    X(array_get_i16u) X(array_set8) X(array_set16) X(array_set32) X(array_set64) \
    X(array_set128) X(array_len) X(array_fill) X(array_copy) X(array_init_data) \
    X(array_init_elem) X(ref_test) X(ref_cast) X(br_on_cast) X(br_on_cast_fail) X(ref_i31) \
    X(i31_get_s) X(i31_get_u) X(any_convert_extern) X(extern_convert_any) X(ref_eq)

#define WASM_ALL_OPS(X) \
    WASM_MISC_OPS(X) \
    WASM_IBIN(X, i32, ) WASM_IBIN(X, i32, _i) WASM_IBIN(X, i64, ) WASM_IBIN(X, i64, _i) \
    WASM_FOPS(X, f32) WASM_FOPS(X, f64) \
    WASM_BRCMP(X, ) WASM_BRCMP(X, _i) WASM_BRCMP(X, _back) WASM_BRCMP(X, _i_back) \
    WASM_LOADS(X, ) WASM_LOADS(X, _add) WASM_LOADS(X, _addi) \
    WASM_STORES(X, ) WASM_STORES(X, _i) WASM_STORES(X, _add) WASM_STORES(X, _addi) \
    WASM_STORES(X, _i_add) WASM_STORES(X, _i_addi) WASM_ADDBR(X, ) WASM_ADDBR(X, _i) \
    WASM_MEMOPS(X, _ld) WASM_MEMOPS(X, _st) \
    WASM_MEMOPS(X, _rmw)
/* clang-format on */

enum wasm_iop {
#define WASM_IOP_ENUM(name) IOP_##name,
    WASM_ALL_OPS(WASM_IOP_ENUM)
#undef WASM_IOP_ENUM
        IOP_SIMD_BASE_,                 /* + the 0xFD sub-opcode: SIMD handlers follow opcodes.h */
    IOP_COUNT_ = IOP_SIMD_BASE_ + 0x114 /* relaxed SIMD's codes reach 0x113 */
};

/* One word of translated code: a handler's address, or an operand (a 32-bit value, zero-extended;
 * branch offsets and signed immediates are read back through int32_t). */
typedef uint64_t wasm_word;

/* A loop header an interpreted frame may leave for the function's native OSR entry
 * (jit/emit.h) at a back-edge: a loop with an empty operand stack below its params. */
struct wasm_osr_loop {
    uint32_t pos;         /* the header's word index, the back-edges' target */
    uint32_t loop;        /* the ordinal of its loop opcode in the body */
    uint32_t param_slot;  /* its params' first slot */
    uint32_t param_slots; /* and how many */
};

/* A function's OSR facts (compile_osr.c): its qualifying loops by pos, and where each local
 * lives in the frame (the native entry takes them in declaration order). */
struct wasm_osr {
    struct wasm_osr_loop *loops;
    uint32_t nloops;
    uint32_t nlocals;
    uint32_t *local_slot;
    wasm_vtype *local_type;
    uint32_t buf_slots; /* the entry's slots: locals, the widest loop's params, the results */
};

/* A try_table's catch clause (compile_control.c): when it matches, the exception's values
 * (then its exnref for the _REF kinds) go to slots slot..., and the frame goes on at word pad,
 * which moves them to the label and branches there. */
struct wasm_hcatch {
    uint8_t kind; /* enum wasm_catch_kind (decode.h) */
    uint32_t tag; /* catch, catch_ref: the module's tag index */
    uint32_t pad;
    uint32_t slot;
};

/* A try_table's body: words [start, end) of the code, its clauses in catches[first...].
 * Handlers are in the order their try_tables open, so nested ones follow their parents. */
struct wasm_handler {
    uint32_t start, end;
    uint32_t first, count;
};

/* An exception in flight or held as an exnref: its tag and its values in slots (code.h's
 * layout). Owned by the exec (ex->exns), freed at once when a catch without _ref ends it
 * and no exnref ever held it, else with the store; charged to max_bytes. */
struct wasm_exn {
    const struct wasm_tag *tag;
    struct wasm_exn *prev, *next;
    bool is_held; /* some exnref held it: freed only with the store */
    uint32_t nslots;
    uint64_t bytes; /* charged */
    uint64_t slots[];
};

/* One translated function. */
struct wasm_code {
    wasm_word *words;
    uint8_t *op_bits; /* bit i set: word i is a handler (an instruction starts there) */
    uint32_t word_count;
    uint32_t func_index;  /* in the module's function index space */
    uint32_t param_slots; /* slots taken by params (they start the frame) */
    uint32_t local_slots; /* declared locals after the params, zeroed at entry */
    uint32_t frame_slots; /* params + locals + deepest operand stack */
    uint32_t result_slots;
    uint32_t entry_fuel; /* instructions outside loops, charged per call */
    const struct wasm_functype *type;
    struct wasm_osr *osr;          /* NULL: no loop qualifies */
    struct wasm_handler *handlers; /* try_tables, nhandlers of them (NULL: none) */
    struct wasm_hcatch *catches;
    uint32_t nhandlers;
};

/* A suspended caller, or an entry from sbx__wasm_func_call() when ip is NULL. */
struct wasm_frame {
    const wasm_word *ip;
    uint64_t *fp;
    const struct wasm_code *code;
    struct wasm_instance *inst;
};

/* A store's interpreter state: one value stack and one frame stack, shared by nested entries
 * (host functions calling back into the guest). */
struct wasm_exec {
    struct wasm_store *store;
    uint64_t *stack;
    uint64_t *stack_end;
    uint64_t *sp; /* first free slot for a new entry */
    struct wasm_frame *frames;
    uint32_t depth;
    uint32_t max_depth;
    uint32_t nest; /* nested sbx__wasm_func_call() entries on the C stack */
    /* The outermost sbx__wasm_func_call()'s frame while one runs: the top of the native stack
     * the GC scans (gc.c); NULL outside a call. */
    void *native_top;
    struct wasm_trap trap;
    /* The exception of a WASM_TRAP_EXCEPTION in flight (also on its way through compiled
     * frames and nested entries), and every exception object not yet freed. */
    struct wasm_exn *exn;
    struct wasm_exn *exns;
    /* An exception that came back from a call of an interpreted frame: where it unwinds from
     * (the frame, its word or UINT32_MAX after a tail call, the frame records in use), for
     * sbx__wasm_interp_run to resume in a fresh run (interp.c). */
    struct wasm_frame resume;
    uint32_t resume_pos, resume_depth;
    bool has_resume;
    /* Where the last trap happened, for the "in <name>" suffix. */
    const struct wasm_instance *trap_inst;
    uint32_t trap_func;
    bool has_trap_func;
};

struct wasm_call {
    struct wasm_exec *exec;
    struct wasm_instance *inst; /* the caller, NULL when called from the embedder */
    bool has_trap;
};

/* Returns the label offsets of every enum wasm_iop from sbx__wasm_interp_base(), for the
 * translator: a handler's address is base + offset. */
const int32_t *sbx__wasm_interp_ops(void);
const char *sbx__wasm_interp_base(void);

/* Runs f (a wasm function) with its params at fp; results end up at fp[0...]. Returns
 * WASM_TRAP_NONE or the trap kind (details in ex->trap). */
enum wasm_trap_kind sbx__wasm_interp_run(struct wasm_exec *ex, struct wasm_func *f, uint64_t *fp);

/* Calls host function f from the interpreter: args read from slots, results written there. */
enum wasm_trap_kind sbx__wasm_call_host(struct wasm_exec *ex, struct wasm_func *f,
                                        struct wasm_instance *caller, uint64_t *slots);

/* interp_exn.c: exceptions. Creates the exception of tag (its values copied from slots) and
 * makes it the one in flight; WASM_TRAP_EXCEPTION, or a HOST trap when max_bytes cannot hold
 * it (the store's was_refused set). */
enum wasm_trap_kind sbx__wasm_exn_throw(struct wasm_exec *ex, const struct wasm_tag *tag,
                                        const uint64_t *slots);
/* throw_ref: exn (NULL: the trap "null exception reference") in flight again. */
enum wasm_trap_kind sbx__wasm_exn_rethrow(struct wasm_exec *ex, struct wasm_exn *exn);
/* The handler of frame code (in inst) at word pos that catches the exception in flight: its
 * clause, or NULL. */
const struct wasm_hcatch *sbx__wasm_exn_find(const struct wasm_exec *ex,
                                             const struct wasm_instance *inst,
                                             const struct wasm_code *code, uint32_t pos);
/* Delivers the exception in flight to clause h of a frame at fp: its values (and exnref) to
 * their slots; ends it when nothing can see it any more. */
void sbx__wasm_exn_deliver(struct wasm_exec *ex, const struct wasm_hcatch *h, uint64_t *fp);
/* An uncaught exception leaving the outermost entry: the trap's message names its tag. */
void sbx__wasm_exn_describe(struct wasm_exec *ex);
void sbx__wasm_exn_free_all(struct wasm_exec *ex);

/* Returns true if two function types are structurally equal. */
bool sbx__wasm_functype_eq(const struct wasm_functype *a, const struct wasm_functype *b);

/* interp_tier.c: what the dispatch loop hands over on its slow paths. */
enum wasm_tier_step {
    WASM_TIER_STAY, /* nothing run natively: go on interpreting */
    WASM_TIER_RAN,  /* the call, or the rest of the frame (OSR), ran natively; results in place */
    WASM_TIER_TRAP, /* a trap, its record complete ("in <func>" facts included) */
    WASM_TIER_BASE, /* nothing run: the callee has baseline code (base/base.h) to enter */
};

/* Per run of the dispatch loop: the last frame whose loop had no OSR entry, so that its
 * back-edges stop offering it. */
struct wasm_tier_frame {
    const uint64_t *osr_off_fp;
    const struct wasm_code *osr_off_code;
};

/* A wasm call of callee (in cinst, its frame at nfp) once the store may have native code;
 * depth counts the frame records in use. */
/* Whether code's function (in inst) runs baseline code when entered now (counting the entry,
 * translating it when due): a store that uses the tier, unmetered. */
bool sbx__wasm_tier_base(struct wasm_store *s, struct wasm_instance *inst,
                         const struct wasm_code *code);
enum wasm_tier_step sbx__wasm_tier_call(struct wasm_exec *ex, struct wasm_instance *cinst,
                                        const struct wasm_code *callee, uint64_t *nfp,
                                        uint32_t depth, enum wasm_trap_kind *tk);
/* A loop back-edge of frame fp (code of inst) to header whose poll is due (interrupted,
 * metered: fuel is charged, or the store has tiered up): traps, moves the frame to its
 * function's native OSR entry (RAN: its results at fp[0...]), or stays. depth counts the
 * frame records in use, this frame's return included. */
enum wasm_tier_step sbx__wasm_tier_backedge(struct wasm_exec *ex, struct wasm_tier_frame *tf,
                                            struct wasm_instance *inst,
                                            const struct wasm_code *code, uint64_t *fp,
                                            const wasm_word *header, uint32_t fuel, uint32_t depth,
                                            enum wasm_trap_kind *tk);
/* Charges fuel units and reports an interrupt: a call's poll. */
enum wasm_trap_kind sbx__wasm_tier_poll(struct wasm_store *store, uint32_t fuel);
/* At a back-edge of frame fp (code of inst) to the header at word pos, with the store tiered
 * up: runs the rest of the function natively when that loop has an entry, its results then
 * at fp[0...]. depth counts the frame records in use, this frame's return included (the
 * native code's calls back into the interpreter take the next). Returns false (nothing run,
 * *tk untouched) when it cannot; else *tk is the trap kind, its record filled. */
bool sbx__wasm_osr_run(struct wasm_exec *ex, struct wasm_instance *inst,
                       const struct wasm_code *code, uint64_t *fp, uint32_t pos, uint32_t depth,
                       enum wasm_trap_kind *tk);
void sbx__wasm_osr_free(struct wasm_osr *osr);

/* Returns the slots a value of type t takes (2 for v128, else 1). */
static inline uint32_t sbx__wasm_type_slots(wasm_vtype t)
{
    return t == WASM_V128 ? 2u : 1u;
}

/* The slots n values of these types take. */
static inline uint32_t sbx__wasm_types_slots(const wasm_vtype *types, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += sbx__wasm_type_slots(types[i]);
    return k;
}

/* The slots of a function type's results. */
static inline uint32_t sbx__wasm_results_slots(const struct wasm_functype *t)
{
    return sbx__wasm_types_slots(t->types + t->param_count, t->result_count);
}

#endif

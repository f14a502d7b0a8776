/* wasm/code.h: the interpreter's internal form, shared by compile*.c and interp*.c.
 * Code is a stream of 32-bit words: a handler (label offset from the op table), then operands.
 * Operands name 64-bit frame slots (params, locals, then the operand stack); branch targets are
 * word offsets relative to the target word itself. v128 values take two slots. */
#ifndef SBX_WASM_CODE_H
#define SBX_WASM_CODE_H

#include <stdbool.h>
#include <stdint.h>

#include "wasm/runtime.h"

/* Integer binary ops: each has a slot form [h][dst][a][b] and an immediate form [h][dst][a][k]
 * (k sign-extended for i64). */
#define WASM_IBIN(X, T)                                                                            \
    X(T##_add)                                                                                     \
    X(T##_sub) X(T##_mul) X(T##_div_s) X(T##_div_u) X(T##_rem_s) X(T##_rem_u) X(T##_and) X(T##_or) \
        X(T##_xor) X(T##_shl) X(T##_shr_s) X(T##_shr_u) X(T##_rotl) X(T##_rotr) X(T##_eq)          \
            X(T##_ne) X(T##_lt_s) X(T##_lt_u) X(T##_gt_s) X(T##_gt_u) X(T##_le_s) X(T##_le_u)      \
                X(T##_ge_s) X(T##_ge_u)

/* Float binary [h][dst][a][b] and unary [h][dst][src] ops. */
#define WASM_FOPS(X, T)                                                                            \
    X(T##_add)                                                                                     \
    X(T##_sub) X(T##_mul) X(T##_div) X(T##_min) X(T##_max) X(T##_copysign) X(T##_eq) X(T##_ne)     \
        X(T##_lt) X(T##_gt) X(T##_le) X(T##_ge) X(T##_abs) X(T##_neg) X(T##_ceil) X(T##_floor)     \
            X(T##_trunc) X(T##_nearest) X(T##_sqrt)

/* Fused compare-and-branch: [h][a][b][target], and the _i form [h][a][k][target]. */
#define WASM_BRCMP(X)                                                                              \
    X(br_eq)                                                                                       \
    X(br_ne) X(br_lt_s) X(br_lt_u) X(br_gt_s) X(br_gt_u) X(br_le_s) X(br_le_u) X(br_ge_s)          \
        X(br_ge_u)

/* Everything else. Formats: see interp.c next to each handler. */
#define WASM_MISC_OPS(X)                                                                           \
    X(unreachable)                                                                                 \
    X(br) X(br_if) X(br_unless) X(br_table) X(loop_check) X(ret0) X(ret1) X(retn) X(call) X(       \
        call_func) X(call_indirect) X(mov) X(mov2) X(const32) X(const64) X(select) X(global_get)   \
        X(global_set) X(i32_clz) X(i32_ctz) X(i32_popcnt) X(i32_eqz) X(i32_extend8_s) X(           \
            i32_extend16_s) X(i64_clz) X(i64_ctz) X(i64_popcnt) X(i64_eqz) X(i64_extend8_s)        \
            X(i64_extend16_s) X(i64_extend32_s) X(i64_extend_i32_s) X(i64_extend_i32_u) X(         \
                i32_trunc_f32_s) X(i32_trunc_f32_u) X(i32_trunc_f64_s) X(i32_trunc_f64_u)          \
                X(i64_trunc_f32_s) X(i64_trunc_f32_u) X(i64_trunc_f64_s) X(i64_trunc_f64_u) X(     \
                    i32_trunc_sat_f32_s) X(i32_trunc_sat_f32_u) X(i32_trunc_sat_f64_s)             \
                    X(i32_trunc_sat_f64_u) X(i64_trunc_sat_f32_s) X(i64_trunc_sat_f32_u) X(        \
                        i64_trunc_sat_f64_s) X(i64_trunc_sat_f64_u) X(f32_convert_i32_s)           \
                        X(f32_convert_i32_u) X(f32_convert_i64_s) X(f32_convert_i64_u) X(          \
                            f64_convert_i32_s) X(f64_convert_i32_u) X(f64_convert_i64_s)           \
                            X(f64_convert_i64_u) X(f32_demote_f64) X(f64_promote_f32) X(i32_load)  \
                                X(i64_load) X(i32_load8_s) X(i32_load8_u) X(i32_load16_s)          \
                                    X(i32_load16_u) X(i64_load8_s) X(i64_load8_u) X(i64_load16_s)  \
                                        X(i64_load16_u) X(i64_load32_s) X(i64_load32_u)            \
                                            X(i32_store) X(i64_store) X(i32_store8) X(i32_store16) \
                                                X(i64_store32) X(memory_size) X(memory_grow)       \
                                                    X(memory_copy) X(memory_fill) X(memory_init)   \
                                                        X(data_drop) X(table_get) X(table_set)     \
                                                            X(table_size) X(table_grow)            \
                                                                X(table_fill) X(table_copy)        \
                                                                    X(table_init) X(elem_drop)     \
                                                                        X(ref_func)

#define WASM_ALL_OPS(X)                                                                            \
    WASM_MISC_OPS(X)                                                                               \
    WASM_IBIN(X, i32)                                                                              \
    WASM_IBIN(X, i64) WASM_FOPS(X, f32) WASM_FOPS(X, f64) WASM_BRCMP(X) WASM_ALL_IMM_OPS(X)

#define WASM_ALL_IMM_OPS(X) WASM_IMM_OPS_I32(X) WASM_IMM_OPS_I64(X) WASM_IMM_OPS_BR(X)
#define WASM_IMM_OPS_I32(X)                                                                        \
    X(i32_add_i)                                                                                   \
    X(i32_sub_i) X(i32_mul_i) X(i32_div_s_i) X(i32_div_u_i) X(i32_rem_s_i) X(i32_rem_u_i)          \
        X(i32_and_i) X(i32_or_i) X(i32_xor_i) X(i32_shl_i) X(i32_shr_s_i) X(i32_shr_u_i)           \
            X(i32_rotl_i) X(i32_rotr_i) X(i32_eq_i) X(i32_ne_i) X(i32_lt_s_i) X(i32_lt_u_i)        \
                X(i32_gt_s_i) X(i32_gt_u_i) X(i32_le_s_i) X(i32_le_u_i) X(i32_ge_s_i)              \
                    X(i32_ge_u_i)
#define WASM_IMM_OPS_I64(X)                                                                        \
    X(i64_add_i)                                                                                   \
    X(i64_sub_i) X(i64_mul_i) X(i64_div_s_i) X(i64_div_u_i) X(i64_rem_s_i) X(i64_rem_u_i)          \
        X(i64_and_i) X(i64_or_i) X(i64_xor_i) X(i64_shl_i) X(i64_shr_s_i) X(i64_shr_u_i)           \
            X(i64_rotl_i) X(i64_rotr_i) X(i64_eq_i) X(i64_ne_i) X(i64_lt_s_i) X(i64_lt_u_i)        \
                X(i64_gt_s_i) X(i64_gt_u_i) X(i64_le_s_i) X(i64_le_u_i) X(i64_ge_s_i)              \
                    X(i64_ge_u_i)
#define WASM_IMM_OPS_BR(X)                                                                         \
    X(br_eq_i)                                                                                     \
    X(br_ne_i) X(br_lt_s_i) X(br_lt_u_i) X(br_gt_s_i) X(br_gt_u_i) X(br_le_s_i) X(br_le_u_i)       \
        X(br_ge_s_i) X(br_ge_u_i)

enum wasm_iop {
#define WASM_IOP_ENUM(name) IOP_##name,
    WASM_ALL_OPS(WASM_IOP_ENUM)
#undef WASM_IOP_ENUM
        IOP_COUNT_
};

/* One translated function. */
struct wasm_code {
    uint32_t *words;
    uint32_t word_count;
    uint32_t func_index;  /* in the module's function index space */
    uint32_t param_slots; /* slots taken by params (they start the frame) */
    uint32_t local_slots; /* declared locals after the params, zeroed at entry */
    uint32_t frame_slots; /* params + locals + deepest operand stack */
    uint32_t result_slots;
    uint32_t entry_fuel; /* instructions outside loops, charged per call */
    const struct wasm_functype *type;
};

/* A suspended caller, or an entry from sbx__wasm_func_call() when ip is NULL. */
struct wasm_frame {
    const uint32_t *ip;
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
    struct wasm_trap trap;
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

/* Returns the label offsets of every enum wasm_iop, for compile.c to write into code. */
const int32_t *sbx__wasm_interp_ops(void);

/* Runs f (a wasm function) with its params at fp; results end up at fp[0...]. Returns
 * WASM_TRAP_NONE or the trap kind (details in ex->trap). */
enum wasm_trap_kind sbx__wasm_interp_run(struct wasm_exec *ex, struct wasm_func *f, uint64_t *fp);

/* Calls host function f from the interpreter: args read from slots, results written there. */
enum wasm_trap_kind sbx__wasm_call_host(struct wasm_exec *ex, struct wasm_func *f,
                                        struct wasm_instance *caller, uint64_t *slots);

/* Returns true if two function types are structurally equal. */
bool sbx__wasm_functype_eq(const struct wasm_functype *a, const struct wasm_functype *b);

/* Returns the slots a value of type t takes (2 for v128, else 1). */
static inline uint32_t sbx__wasm_type_slots(uint8_t t)
{
    return t == WASM_V128 ? 2u : 1u;
}

#endif

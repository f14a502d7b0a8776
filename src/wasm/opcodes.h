/* wasm/opcodes.h: every WebAssembly instruction as one row of an X-macro table, so the decoder,
 * validator, both tiers' translators and the fuzzers' generator drive off the same facts; the
 * decoder (decode_instr.c) is the only reader of immediates. Row format (stable):
 *   X(NAME, prefix, code, "text", IMM, SIG, arg, FEATURE)
 * prefix 0x00/0xFB/0xFC/0xFD; IMM a wasm_imm_kind suffix; SIG a WASM_SIGS row (NONE = not
 * fixed, the validator types it by hand); arg = max alignment log2 for MEMARG/MEMARG_LANE,
 * lane count for LANE, else 0; FEATURE a WASM_FEATURES row (the proposal it belongs to). Access
 * size of a memory op is 1 << arg bytes. */
#ifndef SBX_WASM_OPCODES_H
#define SBX_WASM_OPCODES_H

#include <stdbool.h>
#include <stdint.h>

#include "wasm/module.h"

/* The proposals an instruction or a module construct belongs to: X(NAME, "text"). BASE is
 * WebAssembly 2.0 without SIMD; the rest are what 3.0 added (and 2.0's SIMD). */
#define WASM_FEATURES(X)                                                                           \
    X(BASE, "WebAssembly 2.0")                                                                     \
    X(SIMD, "fixed-width SIMD")                                                                    \
    X(EXT_CONST, "extended constant expressions")                                                  \
    X(MULTI_MEMORY, "multiple memories")                                                           \
    X(MEMORY64, "memory64")                                                                        \
    X(TAIL_CALL, "tail calls")                                                                     \
    X(RELAXED_SIMD, "relaxed SIMD")                                                                \
    X(FUNC_REFS, "typed function references")                                                      \
    X(EXCEPTIONS, "exception handling")                                                            \
    X(GC, "garbage collection")

enum wasm_feature {
#define WASM_FEATURE_ENUM(name, text) WASM_FEAT_##name,
    WASM_FEATURES(WASM_FEATURE_ENUM)
#undef WASM_FEATURE_ENUM
        WASM_FEAT_COUNT
};

/* The 2.0 instruction a relaxed SIMD one behaves as under the deterministic profile
 * (WASM_OPCODES_RELAXED_ALIAS), or 0 when op is not one of those. */
uint16_t sbx__wasm_relaxed_as(uint16_t op);

/* Returns the feature's name ("tail calls"); static, never NULL. */
const char *sbx__wasm_feature_text(unsigned feature);

/* Whether sbx runs the feature in both tiers (opcodes.c); a module that uses one that is off is
 * refused at validation with "unsupported: ... needs <feature>". */
bool sbx__wasm_feature_on(unsigned feature);

/* Immediates that follow an opcode. */
enum wasm_imm_kind {
    WASM_IMM_NONE = 0,
    WASM_IMM_BLOCK,         /* blocktype: 0x40, a valtype, or a type index (s33) */
    WASM_IMM_LABEL,         /* labelidx (br, br_if) */
    WASM_IMM_BR_TABLE,      /* vec(labelidx) labelidx */
    WASM_IMM_FUNC,          /* funcidx (call, ref.func) */
    WASM_IMM_CALL_INDIRECT, /* typeidx tableidx */
    WASM_IMM_LOCAL,         /* localidx */
    WASM_IMM_GLOBAL,        /* globalidx */
    WASM_IMM_TABLE,         /* tableidx (table.get/set/grow/size/fill) */
    WASM_IMM_MEMARG,        /* flags:u32 (align, memory index follows) [memidx] offset:u64 */
    WASM_IMM_MEMIDX,        /* memidx (memory.size/grow/fill) */
    WASM_IMM_I32,           /* i32 (s32) */
    WASM_IMM_I64,           /* i64 (s64) */
    WASM_IMM_F32,           /* 4 raw bytes */
    WASM_IMM_F64,           /* 8 raw bytes */
    WASM_IMM_V128,          /* 16 raw bytes */
    WASM_IMM_SELECT_T,      /* vec(valtype), length 1 in 2.0 */
    WASM_IMM_HEAPTYPE,      /* heaptype (ref.null, ref.test, ref.cast): valtype (ref null ht) */
    WASM_IMM_DATA_MEM,      /* dataidx memidx (memory.init) */
    WASM_IMM_DATA,          /* dataidx (data.drop) */
    WASM_IMM_MEM_MEM,       /* memidx memidx (memory.copy: destination first) */
    WASM_IMM_ELEM_TABLE,    /* elemidx tableidx (table.init) */
    WASM_IMM_ELEM,          /* elemidx (elem.drop) */
    WASM_IMM_TABLE_TABLE,   /* tableidx tableidx (table.copy: destination first) */
    WASM_IMM_SHUFFLE,       /* 16 lane index bytes, each < 32 */
    WASM_IMM_LANE,          /* one lane index byte, < arg */
    WASM_IMM_MEMARG_LANE,   /* memarg, then a lane index byte < 16 >> arg */
    WASM_IMM_TYPE,          /* typeidx (call_ref, struct.new, array.get ...) */
    WASM_IMM_TYPE_FIELD,    /* typeidx fieldidx (struct.get/set) */
    WASM_IMM_TYPE_COUNT,    /* typeidx u32 (array.new_fixed) */
    WASM_IMM_TYPE_DATA,     /* typeidx dataidx (array.new_data, array.init_data) */
    WASM_IMM_TYPE_ELEM,     /* typeidx elemidx (array.new_elem, array.init_elem) */
    WASM_IMM_TYPE_TYPE,     /* typeidx typeidx (array.copy: destination first) */
    WASM_IMM_BR_ON_CAST,    /* flags labelidx heaptype heaptype */
    WASM_IMM_TAG,           /* tagidx (throw) */
    WASM_IMM_TRY_TABLE,     /* blocktype vec(catch) */
};

/* Fixed stack signatures: X(NAME, param count, p1, p2, p3, result count, r1). 0 = unused. */
#define WASM_SIGS(X)                                                                               \
    X(NONE, 0, 0, 0, 0, 0, 0)                                                                      \
    X(0_0, 0, 0, 0, 0, 0, 0)                                                                       \
    X(0_i, 0, 0, 0, 0, 1, WASM_I32)                                                                \
    X(0_l, 0, 0, 0, 0, 1, WASM_I64)                                                                \
    X(0_f, 0, 0, 0, 0, 1, WASM_F32)                                                                \
    X(0_d, 0, 0, 0, 0, 1, WASM_F64)                                                                \
    X(0_v, 0, 0, 0, 0, 1, WASM_V128)                                                               \
    X(i_i, 1, WASM_I32, 0, 0, 1, WASM_I32)                                                         \
    X(i_l, 1, WASM_I32, 0, 0, 1, WASM_I64)                                                         \
    X(i_f, 1, WASM_I32, 0, 0, 1, WASM_F32)                                                         \
    X(i_d, 1, WASM_I32, 0, 0, 1, WASM_F64)                                                         \
    X(i_v, 1, WASM_I32, 0, 0, 1, WASM_V128)                                                        \
    X(l_i, 1, WASM_I64, 0, 0, 1, WASM_I32)                                                         \
    X(l_l, 1, WASM_I64, 0, 0, 1, WASM_I64)                                                         \
    X(l_f, 1, WASM_I64, 0, 0, 1, WASM_F32)                                                         \
    X(l_d, 1, WASM_I64, 0, 0, 1, WASM_F64)                                                         \
    X(l_v, 1, WASM_I64, 0, 0, 1, WASM_V128)                                                        \
    X(f_i, 1, WASM_F32, 0, 0, 1, WASM_I32)                                                         \
    X(f_l, 1, WASM_F32, 0, 0, 1, WASM_I64)                                                         \
    X(f_f, 1, WASM_F32, 0, 0, 1, WASM_F32)                                                         \
    X(f_d, 1, WASM_F32, 0, 0, 1, WASM_F64)                                                         \
    X(f_v, 1, WASM_F32, 0, 0, 1, WASM_V128)                                                        \
    X(d_i, 1, WASM_F64, 0, 0, 1, WASM_I32)                                                         \
    X(d_l, 1, WASM_F64, 0, 0, 1, WASM_I64)                                                         \
    X(d_f, 1, WASM_F64, 0, 0, 1, WASM_F32)                                                         \
    X(d_d, 1, WASM_F64, 0, 0, 1, WASM_F64)                                                         \
    X(d_v, 1, WASM_F64, 0, 0, 1, WASM_V128)                                                        \
    X(v_i, 1, WASM_V128, 0, 0, 1, WASM_I32)                                                        \
    X(v_l, 1, WASM_V128, 0, 0, 1, WASM_I64)                                                        \
    X(v_f, 1, WASM_V128, 0, 0, 1, WASM_F32)                                                        \
    X(v_d, 1, WASM_V128, 0, 0, 1, WASM_F64)                                                        \
    X(v_v, 1, WASM_V128, 0, 0, 1, WASM_V128)                                                       \
    X(ii_0, 2, WASM_I32, WASM_I32, 0, 0, 0)                                                        \
    X(il_0, 2, WASM_I32, WASM_I64, 0, 0, 0)                                                        \
    X(if_0, 2, WASM_I32, WASM_F32, 0, 0, 0)                                                        \
    X(id_0, 2, WASM_I32, WASM_F64, 0, 0, 0)                                                        \
    X(iv_0, 2, WASM_I32, WASM_V128, 0, 0, 0)                                                       \
    X(ii_i, 2, WASM_I32, WASM_I32, 0, 1, WASM_I32)                                                 \
    X(iv_v, 2, WASM_I32, WASM_V128, 0, 1, WASM_V128)                                               \
    X(ll_i, 2, WASM_I64, WASM_I64, 0, 1, WASM_I32)                                                 \
    X(ll_l, 2, WASM_I64, WASM_I64, 0, 1, WASM_I64)                                                 \
    X(ff_i, 2, WASM_F32, WASM_F32, 0, 1, WASM_I32)                                                 \
    X(ff_f, 2, WASM_F32, WASM_F32, 0, 1, WASM_F32)                                                 \
    X(dd_i, 2, WASM_F64, WASM_F64, 0, 1, WASM_I32)                                                 \
    X(dd_d, 2, WASM_F64, WASM_F64, 0, 1, WASM_F64)                                                 \
    X(vi_v, 2, WASM_V128, WASM_I32, 0, 1, WASM_V128)                                               \
    X(vl_v, 2, WASM_V128, WASM_I64, 0, 1, WASM_V128)                                               \
    X(vf_v, 2, WASM_V128, WASM_F32, 0, 1, WASM_V128)                                               \
    X(vd_v, 2, WASM_V128, WASM_F64, 0, 1, WASM_V128)                                               \
    X(vv_v, 2, WASM_V128, WASM_V128, 0, 1, WASM_V128)                                              \
    X(iii_0, 3, WASM_I32, WASM_I32, WASM_I32, 0, 0)                                                \
    X(vvv_v, 3, WASM_V128, WASM_V128, WASM_V128, 1, WASM_V128)

enum wasm_sig {
#define WASM_SIG_ENUM(name, np, p1, p2, p3, nr, r1) WASM_SIG_##name,
    WASM_SIGS(WASM_SIG_ENUM)
#undef WASM_SIG_ENUM
        WASM_SIG_COUNT
};

/* clang-format off */
#define WASM_OPCODES_MVP(X) \
    X(UNREACHABLE,         0x00, 0x00, "unreachable",         NONE,          NONE, 0, BASE) \
    X(NOP,                 0x00, 0x01, "nop",                 NONE,          0_0,  0, BASE) \
    X(BLOCK,               0x00, 0x02, "block",               BLOCK,         NONE, 0, BASE) \
    X(LOOP,                0x00, 0x03, "loop",                BLOCK,         NONE, 0, BASE) \
    X(IF,                  0x00, 0x04, "if",                  BLOCK,         NONE, 0, BASE) \
    X(ELSE,                0x00, 0x05, "else",                NONE,          NONE, 0, BASE) \
    X(END,                 0x00, 0x0B, "end",                 NONE,          NONE, 0, BASE) \
    X(BR,                  0x00, 0x0C, "br",                  LABEL,         NONE, 0, BASE) \
    X(BR_IF,               0x00, 0x0D, "br_if",               LABEL,         NONE, 0, BASE) \
    X(BR_TABLE,            0x00, 0x0E, "br_table",            BR_TABLE,      NONE, 0, BASE) \
    X(RETURN,              0x00, 0x0F, "return",              NONE,          NONE, 0, BASE) \
    X(CALL,                0x00, 0x10, "call",                FUNC,          NONE, 0, BASE) \
    X(CALL_INDIRECT,       0x00, 0x11, "call_indirect",       CALL_INDIRECT, NONE, 0, BASE) \
    X(RETURN_CALL,         0x00, 0x12, "return_call",         FUNC,          NONE, 0, TAIL_CALL) \
    X(RETURN_CALL_INDIRECT, 0x00, 0x13, "return_call_indirect", CALL_INDIRECT, NONE, 0, TAIL_CALL) \
    X(DROP,                0x00, 0x1A, "drop",                NONE,          NONE, 0, BASE) \
    X(SELECT,              0x00, 0x1B, "select",              NONE,          NONE, 0, BASE) \
    X(SELECT_T,            0x00, 0x1C, "select",              SELECT_T,      NONE, 0, BASE) \
    X(LOCAL_GET,           0x00, 0x20, "local.get",           LOCAL,         NONE, 0, BASE) \
    X(LOCAL_SET,           0x00, 0x21, "local.set",           LOCAL,         NONE, 0, BASE) \
    X(LOCAL_TEE,           0x00, 0x22, "local.tee",           LOCAL,         NONE, 0, BASE) \
    X(GLOBAL_GET,          0x00, 0x23, "global.get",          GLOBAL,        NONE, 0, BASE) \
    X(GLOBAL_SET,          0x00, 0x24, "global.set",          GLOBAL,        NONE, 0, BASE) \
    X(TABLE_GET,           0x00, 0x25, "table.get",           TABLE,         NONE, 0, BASE) \
    X(TABLE_SET,           0x00, 0x26, "table.set",           TABLE,         NONE, 0, BASE) \
    X(I32_LOAD,            0x00, 0x28, "i32.load",            MEMARG,        i_i,  2, BASE) \
    X(I64_LOAD,            0x00, 0x29, "i64.load",            MEMARG,        i_l,  3, BASE) \
    X(F32_LOAD,            0x00, 0x2A, "f32.load",            MEMARG,        i_f,  2, BASE) \
    X(F64_LOAD,            0x00, 0x2B, "f64.load",            MEMARG,        i_d,  3, BASE) \
    X(I32_LOAD8_S,         0x00, 0x2C, "i32.load8_s",         MEMARG,        i_i,  0, BASE) \
    X(I32_LOAD8_U,         0x00, 0x2D, "i32.load8_u",         MEMARG,        i_i,  0, BASE) \
    X(I32_LOAD16_S,        0x00, 0x2E, "i32.load16_s",        MEMARG,        i_i,  1, BASE) \
    X(I32_LOAD16_U,        0x00, 0x2F, "i32.load16_u",        MEMARG,        i_i,  1, BASE) \
    X(I64_LOAD8_S,         0x00, 0x30, "i64.load8_s",         MEMARG,        i_l,  0, BASE) \
    X(I64_LOAD8_U,         0x00, 0x31, "i64.load8_u",         MEMARG,        i_l,  0, BASE) \
    X(I64_LOAD16_S,        0x00, 0x32, "i64.load16_s",        MEMARG,        i_l,  1, BASE) \
    X(I64_LOAD16_U,        0x00, 0x33, "i64.load16_u",        MEMARG,        i_l,  1, BASE) \
    X(I64_LOAD32_S,        0x00, 0x34, "i64.load32_s",        MEMARG,        i_l,  2, BASE) \
    X(I64_LOAD32_U,        0x00, 0x35, "i64.load32_u",        MEMARG,        i_l,  2, BASE) \
    X(I32_STORE,           0x00, 0x36, "i32.store",           MEMARG,        ii_0, 2, BASE) \
    X(I64_STORE,           0x00, 0x37, "i64.store",           MEMARG,        il_0, 3, BASE) \
    X(F32_STORE,           0x00, 0x38, "f32.store",           MEMARG,        if_0, 2, BASE) \
    X(F64_STORE,           0x00, 0x39, "f64.store",           MEMARG,        id_0, 3, BASE) \
    X(I32_STORE8,          0x00, 0x3A, "i32.store8",          MEMARG,        ii_0, 0, BASE) \
    X(I32_STORE16,         0x00, 0x3B, "i32.store16",         MEMARG,        ii_0, 1, BASE) \
    X(I64_STORE8,          0x00, 0x3C, "i64.store8",          MEMARG,        il_0, 0, BASE) \
    X(I64_STORE16,         0x00, 0x3D, "i64.store16",         MEMARG,        il_0, 1, BASE) \
    X(I64_STORE32,         0x00, 0x3E, "i64.store32",         MEMARG,        il_0, 2, BASE) \
    X(MEMORY_SIZE,         0x00, 0x3F, "memory.size",         MEMIDX,        0_i,  0, BASE) \
    X(MEMORY_GROW,         0x00, 0x40, "memory.grow",         MEMIDX,        i_i,  0, BASE) \
    X(I32_CONST,           0x00, 0x41, "i32.const",           I32,           0_i,  0, BASE) \
    X(I64_CONST,           0x00, 0x42, "i64.const",           I64,           0_l,  0, BASE) \
    X(F32_CONST,           0x00, 0x43, "f32.const",           F32,           0_f,  0, BASE) \
    X(F64_CONST,           0x00, 0x44, "f64.const",           F64,           0_d,  0, BASE) \
    X(I32_EQZ,             0x00, 0x45, "i32.eqz",             NONE,          i_i,  0, BASE) \
    X(I32_EQ,              0x00, 0x46, "i32.eq",              NONE,          ii_i, 0, BASE) \
    X(I32_NE,              0x00, 0x47, "i32.ne",              NONE,          ii_i, 0, BASE) \
    X(I32_LT_S,            0x00, 0x48, "i32.lt_s",            NONE,          ii_i, 0, BASE) \
    X(I32_LT_U,            0x00, 0x49, "i32.lt_u",            NONE,          ii_i, 0, BASE) \
    X(I32_GT_S,            0x00, 0x4A, "i32.gt_s",            NONE,          ii_i, 0, BASE) \
    X(I32_GT_U,            0x00, 0x4B, "i32.gt_u",            NONE,          ii_i, 0, BASE) \
    X(I32_LE_S,            0x00, 0x4C, "i32.le_s",            NONE,          ii_i, 0, BASE) \
    X(I32_LE_U,            0x00, 0x4D, "i32.le_u",            NONE,          ii_i, 0, BASE) \
    X(I32_GE_S,            0x00, 0x4E, "i32.ge_s",            NONE,          ii_i, 0, BASE) \
    X(I32_GE_U,            0x00, 0x4F, "i32.ge_u",            NONE,          ii_i, 0, BASE) \
    X(I64_EQZ,             0x00, 0x50, "i64.eqz",             NONE,          l_i,  0, BASE) \
    X(I64_EQ,              0x00, 0x51, "i64.eq",              NONE,          ll_i, 0, BASE) \
    X(I64_NE,              0x00, 0x52, "i64.ne",              NONE,          ll_i, 0, BASE) \
    X(I64_LT_S,            0x00, 0x53, "i64.lt_s",            NONE,          ll_i, 0, BASE) \
    X(I64_LT_U,            0x00, 0x54, "i64.lt_u",            NONE,          ll_i, 0, BASE) \
    X(I64_GT_S,            0x00, 0x55, "i64.gt_s",            NONE,          ll_i, 0, BASE) \
    X(I64_GT_U,            0x00, 0x56, "i64.gt_u",            NONE,          ll_i, 0, BASE) \
    X(I64_LE_S,            0x00, 0x57, "i64.le_s",            NONE,          ll_i, 0, BASE) \
    X(I64_LE_U,            0x00, 0x58, "i64.le_u",            NONE,          ll_i, 0, BASE) \
    X(I64_GE_S,            0x00, 0x59, "i64.ge_s",            NONE,          ll_i, 0, BASE) \
    X(I64_GE_U,            0x00, 0x5A, "i64.ge_u",            NONE,          ll_i, 0, BASE) \
    X(F32_EQ,              0x00, 0x5B, "f32.eq",              NONE,          ff_i, 0, BASE) \
    X(F32_NE,              0x00, 0x5C, "f32.ne",              NONE,          ff_i, 0, BASE) \
    X(F32_LT,              0x00, 0x5D, "f32.lt",              NONE,          ff_i, 0, BASE) \
    X(F32_GT,              0x00, 0x5E, "f32.gt",              NONE,          ff_i, 0, BASE) \
    X(F32_LE,              0x00, 0x5F, "f32.le",              NONE,          ff_i, 0, BASE) \
    X(F32_GE,              0x00, 0x60, "f32.ge",              NONE,          ff_i, 0, BASE) \
    X(F64_EQ,              0x00, 0x61, "f64.eq",              NONE,          dd_i, 0, BASE) \
    X(F64_NE,              0x00, 0x62, "f64.ne",              NONE,          dd_i, 0, BASE) \
    X(F64_LT,              0x00, 0x63, "f64.lt",              NONE,          dd_i, 0, BASE) \
    X(F64_GT,              0x00, 0x64, "f64.gt",              NONE,          dd_i, 0, BASE) \
    X(F64_LE,              0x00, 0x65, "f64.le",              NONE,          dd_i, 0, BASE) \
    X(F64_GE,              0x00, 0x66, "f64.ge",              NONE,          dd_i, 0, BASE) \
    X(I32_CLZ,             0x00, 0x67, "i32.clz",             NONE,          i_i,  0, BASE) \
    X(I32_CTZ,             0x00, 0x68, "i32.ctz",             NONE,          i_i,  0, BASE) \
    X(I32_POPCNT,          0x00, 0x69, "i32.popcnt",          NONE,          i_i,  0, BASE) \
    X(I32_ADD,             0x00, 0x6A, "i32.add",             NONE,          ii_i, 0, BASE) \
    X(I32_SUB,             0x00, 0x6B, "i32.sub",             NONE,          ii_i, 0, BASE) \
    X(I32_MUL,             0x00, 0x6C, "i32.mul",             NONE,          ii_i, 0, BASE) \
    X(I32_DIV_S,           0x00, 0x6D, "i32.div_s",           NONE,          ii_i, 0, BASE) \
    X(I32_DIV_U,           0x00, 0x6E, "i32.div_u",           NONE,          ii_i, 0, BASE) \
    X(I32_REM_S,           0x00, 0x6F, "i32.rem_s",           NONE,          ii_i, 0, BASE) \
    X(I32_REM_U,           0x00, 0x70, "i32.rem_u",           NONE,          ii_i, 0, BASE) \
    X(I32_AND,             0x00, 0x71, "i32.and",             NONE,          ii_i, 0, BASE) \
    X(I32_OR,              0x00, 0x72, "i32.or",              NONE,          ii_i, 0, BASE) \
    X(I32_XOR,             0x00, 0x73, "i32.xor",             NONE,          ii_i, 0, BASE) \
    X(I32_SHL,             0x00, 0x74, "i32.shl",             NONE,          ii_i, 0, BASE) \
    X(I32_SHR_S,           0x00, 0x75, "i32.shr_s",           NONE,          ii_i, 0, BASE) \
    X(I32_SHR_U,           0x00, 0x76, "i32.shr_u",           NONE,          ii_i, 0, BASE) \
    X(I32_ROTL,            0x00, 0x77, "i32.rotl",            NONE,          ii_i, 0, BASE) \
    X(I32_ROTR,            0x00, 0x78, "i32.rotr",            NONE,          ii_i, 0, BASE) \
    X(I64_CLZ,             0x00, 0x79, "i64.clz",             NONE,          l_l,  0, BASE) \
    X(I64_CTZ,             0x00, 0x7A, "i64.ctz",             NONE,          l_l,  0, BASE) \
    X(I64_POPCNT,          0x00, 0x7B, "i64.popcnt",          NONE,          l_l,  0, BASE) \
    X(I64_ADD,             0x00, 0x7C, "i64.add",             NONE,          ll_l, 0, BASE) \
    X(I64_SUB,             0x00, 0x7D, "i64.sub",             NONE,          ll_l, 0, BASE) \
    X(I64_MUL,             0x00, 0x7E, "i64.mul",             NONE,          ll_l, 0, BASE) \
    X(I64_DIV_S,           0x00, 0x7F, "i64.div_s",           NONE,          ll_l, 0, BASE) \
    X(I64_DIV_U,           0x00, 0x80, "i64.div_u",           NONE,          ll_l, 0, BASE) \
    X(I64_REM_S,           0x00, 0x81, "i64.rem_s",           NONE,          ll_l, 0, BASE) \
    X(I64_REM_U,           0x00, 0x82, "i64.rem_u",           NONE,          ll_l, 0, BASE) \
    X(I64_AND,             0x00, 0x83, "i64.and",             NONE,          ll_l, 0, BASE) \
    X(I64_OR,              0x00, 0x84, "i64.or",              NONE,          ll_l, 0, BASE) \
    X(I64_XOR,             0x00, 0x85, "i64.xor",             NONE,          ll_l, 0, BASE) \
    X(I64_SHL,             0x00, 0x86, "i64.shl",             NONE,          ll_l, 0, BASE) \
    X(I64_SHR_S,           0x00, 0x87, "i64.shr_s",           NONE,          ll_l, 0, BASE) \
    X(I64_SHR_U,           0x00, 0x88, "i64.shr_u",           NONE,          ll_l, 0, BASE) \
    X(I64_ROTL,            0x00, 0x89, "i64.rotl",            NONE,          ll_l, 0, BASE) \
    X(I64_ROTR,            0x00, 0x8A, "i64.rotr",            NONE,          ll_l, 0, BASE) \
    X(F32_ABS,             0x00, 0x8B, "f32.abs",             NONE,          f_f,  0, BASE) \
    X(F32_NEG,             0x00, 0x8C, "f32.neg",             NONE,          f_f,  0, BASE) \
    X(F32_CEIL,            0x00, 0x8D, "f32.ceil",            NONE,          f_f,  0, BASE) \
    X(F32_FLOOR,           0x00, 0x8E, "f32.floor",           NONE,          f_f,  0, BASE) \
    X(F32_TRUNC,           0x00, 0x8F, "f32.trunc",           NONE,          f_f,  0, BASE) \
    X(F32_NEAREST,         0x00, 0x90, "f32.nearest",         NONE,          f_f,  0, BASE) \
    X(F32_SQRT,            0x00, 0x91, "f32.sqrt",            NONE,          f_f,  0, BASE) \
    X(F32_ADD,             0x00, 0x92, "f32.add",             NONE,          ff_f, 0, BASE) \
    X(F32_SUB,             0x00, 0x93, "f32.sub",             NONE,          ff_f, 0, BASE) \
    X(F32_MUL,             0x00, 0x94, "f32.mul",             NONE,          ff_f, 0, BASE) \
    X(F32_DIV,             0x00, 0x95, "f32.div",             NONE,          ff_f, 0, BASE) \
    X(F32_MIN,             0x00, 0x96, "f32.min",             NONE,          ff_f, 0, BASE) \
    X(F32_MAX,             0x00, 0x97, "f32.max",             NONE,          ff_f, 0, BASE) \
    X(F32_COPYSIGN,        0x00, 0x98, "f32.copysign",        NONE,          ff_f, 0, BASE) \
    X(F64_ABS,             0x00, 0x99, "f64.abs",             NONE,          d_d,  0, BASE) \
    X(F64_NEG,             0x00, 0x9A, "f64.neg",             NONE,          d_d,  0, BASE) \
    X(F64_CEIL,            0x00, 0x9B, "f64.ceil",            NONE,          d_d,  0, BASE) \
    X(F64_FLOOR,           0x00, 0x9C, "f64.floor",           NONE,          d_d,  0, BASE) \
    X(F64_TRUNC,           0x00, 0x9D, "f64.trunc",           NONE,          d_d,  0, BASE) \
    X(F64_NEAREST,         0x00, 0x9E, "f64.nearest",         NONE,          d_d,  0, BASE) \
    X(F64_SQRT,            0x00, 0x9F, "f64.sqrt",            NONE,          d_d,  0, BASE) \
    X(F64_ADD,             0x00, 0xA0, "f64.add",             NONE,          dd_d, 0, BASE) \
    X(F64_SUB,             0x00, 0xA1, "f64.sub",             NONE,          dd_d, 0, BASE) \
    X(F64_MUL,             0x00, 0xA2, "f64.mul",             NONE,          dd_d, 0, BASE) \
    X(F64_DIV,             0x00, 0xA3, "f64.div",             NONE,          dd_d, 0, BASE) \
    X(F64_MIN,             0x00, 0xA4, "f64.min",             NONE,          dd_d, 0, BASE) \
    X(F64_MAX,             0x00, 0xA5, "f64.max",             NONE,          dd_d, 0, BASE) \
    X(F64_COPYSIGN,        0x00, 0xA6, "f64.copysign",        NONE,          dd_d, 0, BASE) \
    X(I32_WRAP_I64,        0x00, 0xA7, "i32.wrap_i64",        NONE,          l_i,  0, BASE) \
    X(I32_TRUNC_F32_S,     0x00, 0xA8, "i32.trunc_f32_s",     NONE,          f_i,  0, BASE) \
    X(I32_TRUNC_F32_U,     0x00, 0xA9, "i32.trunc_f32_u",     NONE,          f_i,  0, BASE) \
    X(I32_TRUNC_F64_S,     0x00, 0xAA, "i32.trunc_f64_s",     NONE,          d_i,  0, BASE) \
    X(I32_TRUNC_F64_U,     0x00, 0xAB, "i32.trunc_f64_u",     NONE,          d_i,  0, BASE) \
    X(I64_EXTEND_I32_S,    0x00, 0xAC, "i64.extend_i32_s",    NONE,          i_l,  0, BASE) \
    X(I64_EXTEND_I32_U,    0x00, 0xAD, "i64.extend_i32_u",    NONE,          i_l,  0, BASE) \
    X(I64_TRUNC_F32_S,     0x00, 0xAE, "i64.trunc_f32_s",     NONE,          f_l,  0, BASE) \
    X(I64_TRUNC_F32_U,     0x00, 0xAF, "i64.trunc_f32_u",     NONE,          f_l,  0, BASE) \
    X(I64_TRUNC_F64_S,     0x00, 0xB0, "i64.trunc_f64_s",     NONE,          d_l,  0, BASE) \
    X(I64_TRUNC_F64_U,     0x00, 0xB1, "i64.trunc_f64_u",     NONE,          d_l,  0, BASE) \
    X(F32_CONVERT_I32_S,   0x00, 0xB2, "f32.convert_i32_s",   NONE,          i_f,  0, BASE) \
    X(F32_CONVERT_I32_U,   0x00, 0xB3, "f32.convert_i32_u",   NONE,          i_f,  0, BASE) \
    X(F32_CONVERT_I64_S,   0x00, 0xB4, "f32.convert_i64_s",   NONE,          l_f,  0, BASE) \
    X(F32_CONVERT_I64_U,   0x00, 0xB5, "f32.convert_i64_u",   NONE,          l_f,  0, BASE) \
    X(F32_DEMOTE_F64,      0x00, 0xB6, "f32.demote_f64",      NONE,          d_f,  0, BASE) \
    X(F64_CONVERT_I32_S,   0x00, 0xB7, "f64.convert_i32_s",   NONE,          i_d,  0, BASE) \
    X(F64_CONVERT_I32_U,   0x00, 0xB8, "f64.convert_i32_u",   NONE,          i_d,  0, BASE) \
    X(F64_CONVERT_I64_S,   0x00, 0xB9, "f64.convert_i64_s",   NONE,          l_d,  0, BASE) \
    X(F64_CONVERT_I64_U,   0x00, 0xBA, "f64.convert_i64_u",   NONE,          l_d,  0, BASE) \
    X(F64_PROMOTE_F32,     0x00, 0xBB, "f64.promote_f32",     NONE,          f_d,  0, BASE) \
    X(I32_REINTERPRET_F32, 0x00, 0xBC, "i32.reinterpret_f32", NONE,          f_i,  0, BASE) \
    X(I64_REINTERPRET_F64, 0x00, 0xBD, "i64.reinterpret_f64", NONE,          d_l,  0, BASE) \
    X(F32_REINTERPRET_I32, 0x00, 0xBE, "f32.reinterpret_i32", NONE,          i_f,  0, BASE) \
    X(F64_REINTERPRET_I64, 0x00, 0xBF, "f64.reinterpret_i64", NONE,          l_d,  0, BASE) \
    X(I32_EXTEND8_S,       0x00, 0xC0, "i32.extend8_s",       NONE,          i_i,  0, BASE) \
    X(I32_EXTEND16_S,      0x00, 0xC1, "i32.extend16_s",      NONE,          i_i,  0, BASE) \
    X(I64_EXTEND8_S,       0x00, 0xC2, "i64.extend8_s",       NONE,          l_l,  0, BASE) \
    X(I64_EXTEND16_S,      0x00, 0xC3, "i64.extend16_s",      NONE,          l_l,  0, BASE) \
    X(I64_EXTEND32_S,      0x00, 0xC4, "i64.extend32_s",      NONE,          l_l,  0, BASE) \
    X(REF_NULL,            0x00, 0xD0, "ref.null",            HEAPTYPE,      NONE, 0, BASE) \
    X(REF_IS_NULL,         0x00, 0xD1, "ref.is_null",         NONE,          NONE, 0, BASE) \
    X(REF_FUNC,            0x00, 0xD2, "ref.func",            FUNC,          NONE, 0, BASE)

/* 3.0's one-byte opcodes: exception handling, typed function references, ref.eq (GC). */
#define WASM_OPCODES_30(X) \
    X(THROW,               0x00, 0x08, "throw",               TAG,           NONE, 0, EXCEPTIONS) \
    X(THROW_REF,           0x00, 0x0A, "throw_ref",           NONE,          NONE, 0, EXCEPTIONS) \
    X(CALL_REF,            0x00, 0x14, "call_ref",            TYPE,          NONE, 0, FUNC_REFS) \
    X(RETURN_CALL_REF,     0x00, 0x15, "return_call_ref",     TYPE,          NONE, 0, FUNC_REFS) \
    X(TRY_TABLE,           0x00, 0x1F, "try_table",           TRY_TABLE,     NONE, 0, EXCEPTIONS) \
    X(REF_EQ,              0x00, 0xD3, "ref.eq",              NONE,          NONE, 0, GC) \
    X(REF_AS_NON_NULL,     0x00, 0xD4, "ref.as_non_null",     NONE,          NONE, 0, FUNC_REFS) \
    X(BR_ON_NULL,          0x00, 0xD5, "br_on_null",          LABEL,         NONE, 0, FUNC_REFS) \
    X(BR_ON_NON_NULL,      0x00, 0xD6, "br_on_non_null",      LABEL,         NONE, 0, FUNC_REFS)

/* GC (0xFB). */
#define WASM_OPCODES_GC(X) \
    X(STRUCT_NEW,          0xFB, 0x00, "struct.new",          TYPE,          NONE, 0, GC) \
    X(STRUCT_NEW_DEFAULT,  0xFB, 0x01, "struct.new_default",  TYPE,          NONE, 0, GC) \
    X(STRUCT_GET,          0xFB, 0x02, "struct.get",          TYPE_FIELD,    NONE, 0, GC) \
    X(STRUCT_GET_S,        0xFB, 0x03, "struct.get_s",        TYPE_FIELD,    NONE, 0, GC) \
    X(STRUCT_GET_U,        0xFB, 0x04, "struct.get_u",        TYPE_FIELD,    NONE, 0, GC) \
    X(STRUCT_SET,          0xFB, 0x05, "struct.set",          TYPE_FIELD,    NONE, 0, GC) \
    X(ARRAY_NEW,           0xFB, 0x06, "array.new",           TYPE,          NONE, 0, GC) \
    X(ARRAY_NEW_DEFAULT,   0xFB, 0x07, "array.new_default",   TYPE,          NONE, 0, GC) \
    X(ARRAY_NEW_FIXED,     0xFB, 0x08, "array.new_fixed",     TYPE_COUNT,    NONE, 0, GC) \
    X(ARRAY_NEW_DATA,      0xFB, 0x09, "array.new_data",      TYPE_DATA,     NONE, 0, GC) \
    X(ARRAY_NEW_ELEM,      0xFB, 0x0A, "array.new_elem",      TYPE_ELEM,     NONE, 0, GC) \
    X(ARRAY_GET,           0xFB, 0x0B, "array.get",           TYPE,          NONE, 0, GC) \
    X(ARRAY_GET_S,         0xFB, 0x0C, "array.get_s",         TYPE,          NONE, 0, GC) \
    X(ARRAY_GET_U,         0xFB, 0x0D, "array.get_u",         TYPE,          NONE, 0, GC) \
    X(ARRAY_SET,           0xFB, 0x0E, "array.set",           TYPE,          NONE, 0, GC) \
    X(ARRAY_LEN,           0xFB, 0x0F, "array.len",           NONE,          NONE, 0, GC) \
    X(ARRAY_FILL,          0xFB, 0x10, "array.fill",          TYPE,          NONE, 0, GC) \
    X(ARRAY_COPY,          0xFB, 0x11, "array.copy",          TYPE_TYPE,     NONE, 0, GC) \
    X(ARRAY_INIT_DATA,     0xFB, 0x12, "array.init_data",     TYPE_DATA,     NONE, 0, GC) \
    X(ARRAY_INIT_ELEM,     0xFB, 0x13, "array.init_elem",     TYPE_ELEM,     NONE, 0, GC) \
    X(REF_TEST,            0xFB, 0x14, "ref.test",            HEAPTYPE,      NONE, 0, GC) \
    X(REF_TEST_NULL,       0xFB, 0x15, "ref.test",            HEAPTYPE,      NONE, 0, GC) \
    X(REF_CAST,            0xFB, 0x16, "ref.cast",            HEAPTYPE,      NONE, 0, GC) \
    X(REF_CAST_NULL,       0xFB, 0x17, "ref.cast",            HEAPTYPE,      NONE, 0, GC) \
    X(BR_ON_CAST,          0xFB, 0x18, "br_on_cast",          BR_ON_CAST,    NONE, 0, GC) \
    X(BR_ON_CAST_FAIL,     0xFB, 0x19, "br_on_cast_fail",     BR_ON_CAST,    NONE, 0, GC) \
    X(ANY_CONVERT_EXTERN,  0xFB, 0x1A, "any.convert_extern",  NONE,          NONE, 0, GC) \
    X(EXTERN_CONVERT_ANY,  0xFB, 0x1B, "extern.convert_any",  NONE,          NONE, 0, GC) \
    X(REF_I31,             0xFB, 0x1C, "ref.i31",             NONE,          NONE, 0, GC) \
    X(I31_GET_S,           0xFB, 0x1D, "i31.get_s",           NONE,          NONE, 0, GC) \
    X(I31_GET_U,           0xFB, 0x1E, "i31.get_u",           NONE,          NONE, 0, GC)

#define WASM_OPCODES_FC(X) \
    X(I32_TRUNC_SAT_F32_S, 0xFC, 0x00, "i32.trunc_sat_f32_s", NONE,          f_i,   0, BASE) \
    X(I32_TRUNC_SAT_F32_U, 0xFC, 0x01, "i32.trunc_sat_f32_u", NONE,          f_i,   0, BASE) \
    X(I32_TRUNC_SAT_F64_S, 0xFC, 0x02, "i32.trunc_sat_f64_s", NONE,          d_i,   0, BASE) \
    X(I32_TRUNC_SAT_F64_U, 0xFC, 0x03, "i32.trunc_sat_f64_u", NONE,          d_i,   0, BASE) \
    X(I64_TRUNC_SAT_F32_S, 0xFC, 0x04, "i64.trunc_sat_f32_s", NONE,          f_l,   0, BASE) \
    X(I64_TRUNC_SAT_F32_U, 0xFC, 0x05, "i64.trunc_sat_f32_u", NONE,          f_l,   0, BASE) \
    X(I64_TRUNC_SAT_F64_S, 0xFC, 0x06, "i64.trunc_sat_f64_s", NONE,          d_l,   0, BASE) \
    X(I64_TRUNC_SAT_F64_U, 0xFC, 0x07, "i64.trunc_sat_f64_u", NONE,          d_l,   0, BASE) \
    X(MEMORY_INIT,         0xFC, 0x08, "memory.init",         DATA_MEM,      iii_0, 0, BASE) \
    X(DATA_DROP,           0xFC, 0x09, "data.drop",           DATA,          0_0,   0, BASE) \
    X(MEMORY_COPY,         0xFC, 0x0A, "memory.copy",         MEM_MEM,       iii_0, 0, BASE) \
    X(MEMORY_FILL,         0xFC, 0x0B, "memory.fill",         MEMIDX,        iii_0, 0, BASE) \
    X(TABLE_INIT,          0xFC, 0x0C, "table.init",          ELEM_TABLE,    iii_0, 0, BASE) \
    X(ELEM_DROP,           0xFC, 0x0D, "elem.drop",           ELEM,          0_0,   0, BASE) \
    X(TABLE_COPY,          0xFC, 0x0E, "table.copy",          TABLE_TABLE,   iii_0, 0, BASE) \
    X(TABLE_GROW,          0xFC, 0x0F, "table.grow",          TABLE,         NONE,  0, BASE) \
    X(TABLE_SIZE,          0xFC, 0x10, "table.size",          TABLE,         0_i,   0, BASE) \
    X(TABLE_FILL,          0xFC, 0x11, "table.fill",          TABLE,         NONE,  0, BASE)

#define WASM_OPCODES_SIMD(X) \
    X(V128_LOAD,                      0xFD, 0x00, "v128.load",                      MEMARG,       i_v,   4, SIMD) \
    X(V128_LOAD8X8_S,                 0xFD, 0x01, "v128.load8x8_s",                 MEMARG,       i_v,   3, SIMD) \
    X(V128_LOAD8X8_U,                 0xFD, 0x02, "v128.load8x8_u",                 MEMARG,       i_v,   3, SIMD) \
    X(V128_LOAD16X4_S,                0xFD, 0x03, "v128.load16x4_s",                MEMARG,       i_v,   3, SIMD) \
    X(V128_LOAD16X4_U,                0xFD, 0x04, "v128.load16x4_u",                MEMARG,       i_v,   3, SIMD) \
    X(V128_LOAD32X2_S,                0xFD, 0x05, "v128.load32x2_s",                MEMARG,       i_v,   3, SIMD) \
    X(V128_LOAD32X2_U,                0xFD, 0x06, "v128.load32x2_u",                MEMARG,       i_v,   3, SIMD) \
    X(V128_LOAD8_SPLAT,               0xFD, 0x07, "v128.load8_splat",               MEMARG,       i_v,   0, SIMD) \
    X(V128_LOAD16_SPLAT,              0xFD, 0x08, "v128.load16_splat",              MEMARG,       i_v,   1, SIMD) \
    X(V128_LOAD32_SPLAT,              0xFD, 0x09, "v128.load32_splat",              MEMARG,       i_v,   2, SIMD) \
    X(V128_LOAD64_SPLAT,              0xFD, 0x0A, "v128.load64_splat",              MEMARG,       i_v,   3, SIMD) \
    X(V128_STORE,                     0xFD, 0x0B, "v128.store",                     MEMARG,       iv_0,  4, SIMD) \
    X(V128_CONST,                     0xFD, 0x0C, "v128.const",                     V128,         0_v,   0, SIMD) \
    X(I8X16_SHUFFLE,                  0xFD, 0x0D, "i8x16.shuffle",                  SHUFFLE,      vv_v,  0, SIMD) \
    X(I8X16_SWIZZLE,                  0xFD, 0x0E, "i8x16.swizzle",                  NONE,         vv_v,  0, SIMD) \
    X(I8X16_SPLAT,                    0xFD, 0x0F, "i8x16.splat",                    NONE,         i_v,   0, SIMD) \
    X(I16X8_SPLAT,                    0xFD, 0x10, "i16x8.splat",                    NONE,         i_v,   0, SIMD) \
    X(I32X4_SPLAT,                    0xFD, 0x11, "i32x4.splat",                    NONE,         i_v,   0, SIMD) \
    X(I64X2_SPLAT,                    0xFD, 0x12, "i64x2.splat",                    NONE,         l_v,   0, SIMD) \
    X(F32X4_SPLAT,                    0xFD, 0x13, "f32x4.splat",                    NONE,         f_v,   0, SIMD) \
    X(F64X2_SPLAT,                    0xFD, 0x14, "f64x2.splat",                    NONE,         d_v,   0, SIMD) \
    X(I8X16_EXTRACT_LANE_S,           0xFD, 0x15, "i8x16.extract_lane_s",           LANE,         v_i,  16, SIMD) \
    X(I8X16_EXTRACT_LANE_U,           0xFD, 0x16, "i8x16.extract_lane_u",           LANE,         v_i,  16, SIMD) \
    X(I8X16_REPLACE_LANE,             0xFD, 0x17, "i8x16.replace_lane",             LANE,         vi_v, 16, SIMD) \
    X(I16X8_EXTRACT_LANE_S,           0xFD, 0x18, "i16x8.extract_lane_s",           LANE,         v_i,   8, SIMD) \
    X(I16X8_EXTRACT_LANE_U,           0xFD, 0x19, "i16x8.extract_lane_u",           LANE,         v_i,   8, SIMD) \
    X(I16X8_REPLACE_LANE,             0xFD, 0x1A, "i16x8.replace_lane",             LANE,         vi_v,  8, SIMD) \
    X(I32X4_EXTRACT_LANE,             0xFD, 0x1B, "i32x4.extract_lane",             LANE,         v_i,   4, SIMD) \
    X(I32X4_REPLACE_LANE,             0xFD, 0x1C, "i32x4.replace_lane",             LANE,         vi_v,  4, SIMD) \
    X(I64X2_EXTRACT_LANE,             0xFD, 0x1D, "i64x2.extract_lane",             LANE,         v_l,   2, SIMD) \
    X(I64X2_REPLACE_LANE,             0xFD, 0x1E, "i64x2.replace_lane",             LANE,         vl_v,  2, SIMD) \
    X(F32X4_EXTRACT_LANE,             0xFD, 0x1F, "f32x4.extract_lane",             LANE,         v_f,   4, SIMD) \
    X(F32X4_REPLACE_LANE,             0xFD, 0x20, "f32x4.replace_lane",             LANE,         vf_v,  4, SIMD) \
    X(F64X2_EXTRACT_LANE,             0xFD, 0x21, "f64x2.extract_lane",             LANE,         v_d,   2, SIMD) \
    X(F64X2_REPLACE_LANE,             0xFD, 0x22, "f64x2.replace_lane",             LANE,         vd_v,  2, SIMD) \
    X(I8X16_EQ,                       0xFD, 0x23, "i8x16.eq",                       NONE,         vv_v,  0, SIMD) \
    X(I8X16_NE,                       0xFD, 0x24, "i8x16.ne",                       NONE,         vv_v,  0, SIMD) \
    X(I8X16_LT_S,                     0xFD, 0x25, "i8x16.lt_s",                     NONE,         vv_v,  0, SIMD) \
    X(I8X16_LT_U,                     0xFD, 0x26, "i8x16.lt_u",                     NONE,         vv_v,  0, SIMD) \
    X(I8X16_GT_S,                     0xFD, 0x27, "i8x16.gt_s",                     NONE,         vv_v,  0, SIMD) \
    X(I8X16_GT_U,                     0xFD, 0x28, "i8x16.gt_u",                     NONE,         vv_v,  0, SIMD) \
    X(I8X16_LE_S,                     0xFD, 0x29, "i8x16.le_s",                     NONE,         vv_v,  0, SIMD) \
    X(I8X16_LE_U,                     0xFD, 0x2A, "i8x16.le_u",                     NONE,         vv_v,  0, SIMD) \
    X(I8X16_GE_S,                     0xFD, 0x2B, "i8x16.ge_s",                     NONE,         vv_v,  0, SIMD) \
    X(I8X16_GE_U,                     0xFD, 0x2C, "i8x16.ge_u",                     NONE,         vv_v,  0, SIMD) \
    X(I16X8_EQ,                       0xFD, 0x2D, "i16x8.eq",                       NONE,         vv_v,  0, SIMD) \
    X(I16X8_NE,                       0xFD, 0x2E, "i16x8.ne",                       NONE,         vv_v,  0, SIMD) \
    X(I16X8_LT_S,                     0xFD, 0x2F, "i16x8.lt_s",                     NONE,         vv_v,  0, SIMD) \
    X(I16X8_LT_U,                     0xFD, 0x30, "i16x8.lt_u",                     NONE,         vv_v,  0, SIMD) \
    X(I16X8_GT_S,                     0xFD, 0x31, "i16x8.gt_s",                     NONE,         vv_v,  0, SIMD) \
    X(I16X8_GT_U,                     0xFD, 0x32, "i16x8.gt_u",                     NONE,         vv_v,  0, SIMD) \
    X(I16X8_LE_S,                     0xFD, 0x33, "i16x8.le_s",                     NONE,         vv_v,  0, SIMD) \
    X(I16X8_LE_U,                     0xFD, 0x34, "i16x8.le_u",                     NONE,         vv_v,  0, SIMD) \
    X(I16X8_GE_S,                     0xFD, 0x35, "i16x8.ge_s",                     NONE,         vv_v,  0, SIMD) \
    X(I16X8_GE_U,                     0xFD, 0x36, "i16x8.ge_u",                     NONE,         vv_v,  0, SIMD) \
    X(I32X4_EQ,                       0xFD, 0x37, "i32x4.eq",                       NONE,         vv_v,  0, SIMD) \
    X(I32X4_NE,                       0xFD, 0x38, "i32x4.ne",                       NONE,         vv_v,  0, SIMD) \
    X(I32X4_LT_S,                     0xFD, 0x39, "i32x4.lt_s",                     NONE,         vv_v,  0, SIMD) \
    X(I32X4_LT_U,                     0xFD, 0x3A, "i32x4.lt_u",                     NONE,         vv_v,  0, SIMD) \
    X(I32X4_GT_S,                     0xFD, 0x3B, "i32x4.gt_s",                     NONE,         vv_v,  0, SIMD) \
    X(I32X4_GT_U,                     0xFD, 0x3C, "i32x4.gt_u",                     NONE,         vv_v,  0, SIMD) \
    X(I32X4_LE_S,                     0xFD, 0x3D, "i32x4.le_s",                     NONE,         vv_v,  0, SIMD) \
    X(I32X4_LE_U,                     0xFD, 0x3E, "i32x4.le_u",                     NONE,         vv_v,  0, SIMD) \
    X(I32X4_GE_S,                     0xFD, 0x3F, "i32x4.ge_s",                     NONE,         vv_v,  0, SIMD) \
    X(I32X4_GE_U,                     0xFD, 0x40, "i32x4.ge_u",                     NONE,         vv_v,  0, SIMD) \
    X(F32X4_EQ,                       0xFD, 0x41, "f32x4.eq",                       NONE,         vv_v,  0, SIMD) \
    X(F32X4_NE,                       0xFD, 0x42, "f32x4.ne",                       NONE,         vv_v,  0, SIMD) \
    X(F32X4_LT,                       0xFD, 0x43, "f32x4.lt",                       NONE,         vv_v,  0, SIMD) \
    X(F32X4_GT,                       0xFD, 0x44, "f32x4.gt",                       NONE,         vv_v,  0, SIMD) \
    X(F32X4_LE,                       0xFD, 0x45, "f32x4.le",                       NONE,         vv_v,  0, SIMD) \
    X(F32X4_GE,                       0xFD, 0x46, "f32x4.ge",                       NONE,         vv_v,  0, SIMD) \
    X(F64X2_EQ,                       0xFD, 0x47, "f64x2.eq",                       NONE,         vv_v,  0, SIMD) \
    X(F64X2_NE,                       0xFD, 0x48, "f64x2.ne",                       NONE,         vv_v,  0, SIMD) \
    X(F64X2_LT,                       0xFD, 0x49, "f64x2.lt",                       NONE,         vv_v,  0, SIMD) \
    X(F64X2_GT,                       0xFD, 0x4A, "f64x2.gt",                       NONE,         vv_v,  0, SIMD) \
    X(F64X2_LE,                       0xFD, 0x4B, "f64x2.le",                       NONE,         vv_v,  0, SIMD) \
    X(F64X2_GE,                       0xFD, 0x4C, "f64x2.ge",                       NONE,         vv_v,  0, SIMD) \
    X(V128_NOT,                       0xFD, 0x4D, "v128.not",                       NONE,         v_v,   0, SIMD) \
    X(V128_AND,                       0xFD, 0x4E, "v128.and",                       NONE,         vv_v,  0, SIMD) \
    X(V128_ANDNOT,                    0xFD, 0x4F, "v128.andnot",                    NONE,         vv_v,  0, SIMD) \
    X(V128_OR,                        0xFD, 0x50, "v128.or",                        NONE,         vv_v,  0, SIMD) \
    X(V128_XOR,                       0xFD, 0x51, "v128.xor",                       NONE,         vv_v,  0, SIMD) \
    X(V128_BITSELECT,                 0xFD, 0x52, "v128.bitselect",                 NONE,         vvv_v, 0, SIMD) \
    X(V128_ANY_TRUE,                  0xFD, 0x53, "v128.any_true",                  NONE,         v_i,   0, SIMD) \
    X(V128_LOAD8_LANE,                0xFD, 0x54, "v128.load8_lane",                MEMARG_LANE,  iv_v,  0, SIMD) \
    X(V128_LOAD16_LANE,               0xFD, 0x55, "v128.load16_lane",               MEMARG_LANE,  iv_v,  1, SIMD) \
    X(V128_LOAD32_LANE,               0xFD, 0x56, "v128.load32_lane",               MEMARG_LANE,  iv_v,  2, SIMD) \
    X(V128_LOAD64_LANE,               0xFD, 0x57, "v128.load64_lane",               MEMARG_LANE,  iv_v,  3, SIMD) \
    X(V128_STORE8_LANE,               0xFD, 0x58, "v128.store8_lane",               MEMARG_LANE,  iv_0,  0, SIMD) \
    X(V128_STORE16_LANE,              0xFD, 0x59, "v128.store16_lane",              MEMARG_LANE,  iv_0,  1, SIMD) \
    X(V128_STORE32_LANE,              0xFD, 0x5A, "v128.store32_lane",              MEMARG_LANE,  iv_0,  2, SIMD) \
    X(V128_STORE64_LANE,              0xFD, 0x5B, "v128.store64_lane",              MEMARG_LANE,  iv_0,  3, SIMD) \
    X(V128_LOAD32_ZERO,               0xFD, 0x5C, "v128.load32_zero",               MEMARG,       i_v,   2, SIMD) \
    X(V128_LOAD64_ZERO,               0xFD, 0x5D, "v128.load64_zero",               MEMARG,       i_v,   3, SIMD) \
    X(F32X4_DEMOTE_F64X2_ZERO,        0xFD, 0x5E, "f32x4.demote_f64x2_zero",        NONE,         v_v,   0, SIMD) \
    X(F64X2_PROMOTE_LOW_F32X4,        0xFD, 0x5F, "f64x2.promote_low_f32x4",        NONE,         v_v,   0, SIMD) \
    X(I8X16_ABS,                      0xFD, 0x60, "i8x16.abs",                      NONE,         v_v,   0, SIMD) \
    X(I8X16_NEG,                      0xFD, 0x61, "i8x16.neg",                      NONE,         v_v,   0, SIMD) \
    X(I8X16_POPCNT,                   0xFD, 0x62, "i8x16.popcnt",                   NONE,         v_v,   0, SIMD) \
    X(I8X16_ALL_TRUE,                 0xFD, 0x63, "i8x16.all_true",                 NONE,         v_i,   0, SIMD) \
    X(I8X16_BITMASK,                  0xFD, 0x64, "i8x16.bitmask",                  NONE,         v_i,   0, SIMD) \
    X(I8X16_NARROW_I16X8_S,           0xFD, 0x65, "i8x16.narrow_i16x8_s",           NONE,         vv_v,  0, SIMD) \
    X(I8X16_NARROW_I16X8_U,           0xFD, 0x66, "i8x16.narrow_i16x8_u",           NONE,         vv_v,  0, SIMD) \
    X(F32X4_CEIL,                     0xFD, 0x67, "f32x4.ceil",                     NONE,         v_v,   0, SIMD) \
    X(F32X4_FLOOR,                    0xFD, 0x68, "f32x4.floor",                    NONE,         v_v,   0, SIMD) \
    X(F32X4_TRUNC,                    0xFD, 0x69, "f32x4.trunc",                    NONE,         v_v,   0, SIMD) \
    X(F32X4_NEAREST,                  0xFD, 0x6A, "f32x4.nearest",                  NONE,         v_v,   0, SIMD) \
    X(I8X16_SHL,                      0xFD, 0x6B, "i8x16.shl",                      NONE,         vi_v,  0, SIMD) \
    X(I8X16_SHR_S,                    0xFD, 0x6C, "i8x16.shr_s",                    NONE,         vi_v,  0, SIMD) \
    X(I8X16_SHR_U,                    0xFD, 0x6D, "i8x16.shr_u",                    NONE,         vi_v,  0, SIMD) \
    X(I8X16_ADD,                      0xFD, 0x6E, "i8x16.add",                      NONE,         vv_v,  0, SIMD) \
    X(I8X16_ADD_SAT_S,                0xFD, 0x6F, "i8x16.add_sat_s",                NONE,         vv_v,  0, SIMD) \
    X(I8X16_ADD_SAT_U,                0xFD, 0x70, "i8x16.add_sat_u",                NONE,         vv_v,  0, SIMD) \
    X(I8X16_SUB,                      0xFD, 0x71, "i8x16.sub",                      NONE,         vv_v,  0, SIMD) \
    X(I8X16_SUB_SAT_S,                0xFD, 0x72, "i8x16.sub_sat_s",                NONE,         vv_v,  0, SIMD) \
    X(I8X16_SUB_SAT_U,                0xFD, 0x73, "i8x16.sub_sat_u",                NONE,         vv_v,  0, SIMD) \
    X(F64X2_CEIL,                     0xFD, 0x74, "f64x2.ceil",                     NONE,         v_v,   0, SIMD) \
    X(F64X2_FLOOR,                    0xFD, 0x75, "f64x2.floor",                    NONE,         v_v,   0, SIMD) \
    X(I8X16_MIN_S,                    0xFD, 0x76, "i8x16.min_s",                    NONE,         vv_v,  0, SIMD) \
    X(I8X16_MIN_U,                    0xFD, 0x77, "i8x16.min_u",                    NONE,         vv_v,  0, SIMD) \
    X(I8X16_MAX_S,                    0xFD, 0x78, "i8x16.max_s",                    NONE,         vv_v,  0, SIMD) \
    X(I8X16_MAX_U,                    0xFD, 0x79, "i8x16.max_u",                    NONE,         vv_v,  0, SIMD) \
    X(F64X2_TRUNC,                    0xFD, 0x7A, "f64x2.trunc",                    NONE,         v_v,   0, SIMD) \
    X(I8X16_AVGR_U,                   0xFD, 0x7B, "i8x16.avgr_u",                   NONE,         vv_v,  0, SIMD) \
    X(I16X8_EXTADD_PAIRWISE_I8X16_S,  0xFD, 0x7C, "i16x8.extadd_pairwise_i8x16_s",  NONE,         v_v,   0, SIMD) \
    X(I16X8_EXTADD_PAIRWISE_I8X16_U,  0xFD, 0x7D, "i16x8.extadd_pairwise_i8x16_u",  NONE,         v_v,   0, SIMD) \
    X(I32X4_EXTADD_PAIRWISE_I16X8_S,  0xFD, 0x7E, "i32x4.extadd_pairwise_i16x8_s",  NONE,         v_v,   0, SIMD) \
    X(I32X4_EXTADD_PAIRWISE_I16X8_U,  0xFD, 0x7F, "i32x4.extadd_pairwise_i16x8_u",  NONE,         v_v,   0, SIMD) \
    X(I16X8_ABS,                      0xFD, 0x80, "i16x8.abs",                      NONE,         v_v,   0, SIMD) \
    X(I16X8_NEG,                      0xFD, 0x81, "i16x8.neg",                      NONE,         v_v,   0, SIMD) \
    X(I16X8_Q15MULR_SAT_S,            0xFD, 0x82, "i16x8.q15mulr_sat_s",            NONE,         vv_v,  0, SIMD) \
    X(I16X8_ALL_TRUE,                 0xFD, 0x83, "i16x8.all_true",                 NONE,         v_i,   0, SIMD) \
    X(I16X8_BITMASK,                  0xFD, 0x84, "i16x8.bitmask",                  NONE,         v_i,   0, SIMD) \
    X(I16X8_NARROW_I32X4_S,           0xFD, 0x85, "i16x8.narrow_i32x4_s",           NONE,         vv_v,  0, SIMD) \
    X(I16X8_NARROW_I32X4_U,           0xFD, 0x86, "i16x8.narrow_i32x4_u",           NONE,         vv_v,  0, SIMD) \
    X(I16X8_EXTEND_LOW_I8X16_S,       0xFD, 0x87, "i16x8.extend_low_i8x16_s",       NONE,         v_v,   0, SIMD) \
    X(I16X8_EXTEND_HIGH_I8X16_S,      0xFD, 0x88, "i16x8.extend_high_i8x16_s",      NONE,         v_v,   0, SIMD) \
    X(I16X8_EXTEND_LOW_I8X16_U,       0xFD, 0x89, "i16x8.extend_low_i8x16_u",       NONE,         v_v,   0, SIMD) \
    X(I16X8_EXTEND_HIGH_I8X16_U,      0xFD, 0x8A, "i16x8.extend_high_i8x16_u",      NONE,         v_v,   0, SIMD) \
    X(I16X8_SHL,                      0xFD, 0x8B, "i16x8.shl",                      NONE,         vi_v,  0, SIMD) \
    X(I16X8_SHR_S,                    0xFD, 0x8C, "i16x8.shr_s",                    NONE,         vi_v,  0, SIMD) \
    X(I16X8_SHR_U,                    0xFD, 0x8D, "i16x8.shr_u",                    NONE,         vi_v,  0, SIMD) \
    X(I16X8_ADD,                      0xFD, 0x8E, "i16x8.add",                      NONE,         vv_v,  0, SIMD) \
    X(I16X8_ADD_SAT_S,                0xFD, 0x8F, "i16x8.add_sat_s",                NONE,         vv_v,  0, SIMD) \
    X(I16X8_ADD_SAT_U,                0xFD, 0x90, "i16x8.add_sat_u",                NONE,         vv_v,  0, SIMD) \
    X(I16X8_SUB,                      0xFD, 0x91, "i16x8.sub",                      NONE,         vv_v,  0, SIMD) \
    X(I16X8_SUB_SAT_S,                0xFD, 0x92, "i16x8.sub_sat_s",                NONE,         vv_v,  0, SIMD) \
    X(I16X8_SUB_SAT_U,                0xFD, 0x93, "i16x8.sub_sat_u",                NONE,         vv_v,  0, SIMD) \
    X(F64X2_NEAREST,                  0xFD, 0x94, "f64x2.nearest",                  NONE,         v_v,   0, SIMD) \
    X(I16X8_MUL,                      0xFD, 0x95, "i16x8.mul",                      NONE,         vv_v,  0, SIMD) \
    X(I16X8_MIN_S,                    0xFD, 0x96, "i16x8.min_s",                    NONE,         vv_v,  0, SIMD) \
    X(I16X8_MIN_U,                    0xFD, 0x97, "i16x8.min_u",                    NONE,         vv_v,  0, SIMD) \
    X(I16X8_MAX_S,                    0xFD, 0x98, "i16x8.max_s",                    NONE,         vv_v,  0, SIMD) \
    X(I16X8_MAX_U,                    0xFD, 0x99, "i16x8.max_u",                    NONE,         vv_v,  0, SIMD) \
    X(I16X8_AVGR_U,                   0xFD, 0x9B, "i16x8.avgr_u",                   NONE,         vv_v,  0, SIMD) \
    X(I16X8_EXTMUL_LOW_I8X16_S,       0xFD, 0x9C, "i16x8.extmul_low_i8x16_s",       NONE,         vv_v,  0, SIMD) \
    X(I16X8_EXTMUL_HIGH_I8X16_S,      0xFD, 0x9D, "i16x8.extmul_high_i8x16_s",      NONE,         vv_v,  0, SIMD) \
    X(I16X8_EXTMUL_LOW_I8X16_U,       0xFD, 0x9E, "i16x8.extmul_low_i8x16_u",       NONE,         vv_v,  0, SIMD) \
    X(I16X8_EXTMUL_HIGH_I8X16_U,      0xFD, 0x9F, "i16x8.extmul_high_i8x16_u",      NONE,         vv_v,  0, SIMD) \
    X(I32X4_ABS,                      0xFD, 0xA0, "i32x4.abs",                      NONE,         v_v,   0, SIMD) \
    X(I32X4_NEG,                      0xFD, 0xA1, "i32x4.neg",                      NONE,         v_v,   0, SIMD) \
    X(I32X4_ALL_TRUE,                 0xFD, 0xA3, "i32x4.all_true",                 NONE,         v_i,   0, SIMD) \
    X(I32X4_BITMASK,                  0xFD, 0xA4, "i32x4.bitmask",                  NONE,         v_i,   0, SIMD) \
    X(I32X4_EXTEND_LOW_I16X8_S,       0xFD, 0xA7, "i32x4.extend_low_i16x8_s",       NONE,         v_v,   0, SIMD) \
    X(I32X4_EXTEND_HIGH_I16X8_S,      0xFD, 0xA8, "i32x4.extend_high_i16x8_s",      NONE,         v_v,   0, SIMD) \
    X(I32X4_EXTEND_LOW_I16X8_U,       0xFD, 0xA9, "i32x4.extend_low_i16x8_u",       NONE,         v_v,   0, SIMD) \
    X(I32X4_EXTEND_HIGH_I16X8_U,      0xFD, 0xAA, "i32x4.extend_high_i16x8_u",      NONE,         v_v,   0, SIMD) \
    X(I32X4_SHL,                      0xFD, 0xAB, "i32x4.shl",                      NONE,         vi_v,  0, SIMD) \
    X(I32X4_SHR_S,                    0xFD, 0xAC, "i32x4.shr_s",                    NONE,         vi_v,  0, SIMD) \
    X(I32X4_SHR_U,                    0xFD, 0xAD, "i32x4.shr_u",                    NONE,         vi_v,  0, SIMD) \
    X(I32X4_ADD,                      0xFD, 0xAE, "i32x4.add",                      NONE,         vv_v,  0, SIMD) \
    X(I32X4_SUB,                      0xFD, 0xB1, "i32x4.sub",                      NONE,         vv_v,  0, SIMD) \
    X(I32X4_MUL,                      0xFD, 0xB5, "i32x4.mul",                      NONE,         vv_v,  0, SIMD) \
    X(I32X4_MIN_S,                    0xFD, 0xB6, "i32x4.min_s",                    NONE,         vv_v,  0, SIMD) \
    X(I32X4_MIN_U,                    0xFD, 0xB7, "i32x4.min_u",                    NONE,         vv_v,  0, SIMD) \
    X(I32X4_MAX_S,                    0xFD, 0xB8, "i32x4.max_s",                    NONE,         vv_v,  0, SIMD) \
    X(I32X4_MAX_U,                    0xFD, 0xB9, "i32x4.max_u",                    NONE,         vv_v,  0, SIMD) \
    X(I32X4_DOT_I16X8_S,              0xFD, 0xBA, "i32x4.dot_i16x8_s",              NONE,         vv_v,  0, SIMD) \
    X(I32X4_EXTMUL_LOW_I16X8_S,       0xFD, 0xBC, "i32x4.extmul_low_i16x8_s",       NONE,         vv_v,  0, SIMD) \
    X(I32X4_EXTMUL_HIGH_I16X8_S,      0xFD, 0xBD, "i32x4.extmul_high_i16x8_s",      NONE,         vv_v,  0, SIMD) \
    X(I32X4_EXTMUL_LOW_I16X8_U,       0xFD, 0xBE, "i32x4.extmul_low_i16x8_u",       NONE,         vv_v,  0, SIMD) \
    X(I32X4_EXTMUL_HIGH_I16X8_U,      0xFD, 0xBF, "i32x4.extmul_high_i16x8_u",      NONE,         vv_v,  0, SIMD) \
    X(I64X2_ABS,                      0xFD, 0xC0, "i64x2.abs",                      NONE,         v_v,   0, SIMD) \
    X(I64X2_NEG,                      0xFD, 0xC1, "i64x2.neg",                      NONE,         v_v,   0, SIMD) \
    X(I64X2_ALL_TRUE,                 0xFD, 0xC3, "i64x2.all_true",                 NONE,         v_i,   0, SIMD) \
    X(I64X2_BITMASK,                  0xFD, 0xC4, "i64x2.bitmask",                  NONE,         v_i,   0, SIMD) \
    X(I64X2_EXTEND_LOW_I32X4_S,       0xFD, 0xC7, "i64x2.extend_low_i32x4_s",       NONE,         v_v,   0, SIMD) \
    X(I64X2_EXTEND_HIGH_I32X4_S,      0xFD, 0xC8, "i64x2.extend_high_i32x4_s",      NONE,         v_v,   0, SIMD) \
    X(I64X2_EXTEND_LOW_I32X4_U,       0xFD, 0xC9, "i64x2.extend_low_i32x4_u",       NONE,         v_v,   0, SIMD) \
    X(I64X2_EXTEND_HIGH_I32X4_U,      0xFD, 0xCA, "i64x2.extend_high_i32x4_u",      NONE,         v_v,   0, SIMD) \
    X(I64X2_SHL,                      0xFD, 0xCB, "i64x2.shl",                      NONE,         vi_v,  0, SIMD) \
    X(I64X2_SHR_S,                    0xFD, 0xCC, "i64x2.shr_s",                    NONE,         vi_v,  0, SIMD) \
    X(I64X2_SHR_U,                    0xFD, 0xCD, "i64x2.shr_u",                    NONE,         vi_v,  0, SIMD) \
    X(I64X2_ADD,                      0xFD, 0xCE, "i64x2.add",                      NONE,         vv_v,  0, SIMD) \
    X(I64X2_SUB,                      0xFD, 0xD1, "i64x2.sub",                      NONE,         vv_v,  0, SIMD) \
    X(I64X2_MUL,                      0xFD, 0xD5, "i64x2.mul",                      NONE,         vv_v,  0, SIMD) \
    X(I64X2_EQ,                       0xFD, 0xD6, "i64x2.eq",                       NONE,         vv_v,  0, SIMD) \
    X(I64X2_NE,                       0xFD, 0xD7, "i64x2.ne",                       NONE,         vv_v,  0, SIMD) \
    X(I64X2_LT_S,                     0xFD, 0xD8, "i64x2.lt_s",                     NONE,         vv_v,  0, SIMD) \
    X(I64X2_GT_S,                     0xFD, 0xD9, "i64x2.gt_s",                     NONE,         vv_v,  0, SIMD) \
    X(I64X2_LE_S,                     0xFD, 0xDA, "i64x2.le_s",                     NONE,         vv_v,  0, SIMD) \
    X(I64X2_GE_S,                     0xFD, 0xDB, "i64x2.ge_s",                     NONE,         vv_v,  0, SIMD) \
    X(I64X2_EXTMUL_LOW_I32X4_S,       0xFD, 0xDC, "i64x2.extmul_low_i32x4_s",       NONE,         vv_v,  0, SIMD) \
    X(I64X2_EXTMUL_HIGH_I32X4_S,      0xFD, 0xDD, "i64x2.extmul_high_i32x4_s",      NONE,         vv_v,  0, SIMD) \
    X(I64X2_EXTMUL_LOW_I32X4_U,       0xFD, 0xDE, "i64x2.extmul_low_i32x4_u",       NONE,         vv_v,  0, SIMD) \
    X(I64X2_EXTMUL_HIGH_I32X4_U,      0xFD, 0xDF, "i64x2.extmul_high_i32x4_u",      NONE,         vv_v,  0, SIMD) \
    X(F32X4_ABS,                      0xFD, 0xE0, "f32x4.abs",                      NONE,         v_v,   0, SIMD) \
    X(F32X4_NEG,                      0xFD, 0xE1, "f32x4.neg",                      NONE,         v_v,   0, SIMD) \
    X(F32X4_SQRT,                     0xFD, 0xE3, "f32x4.sqrt",                     NONE,         v_v,   0, SIMD) \
    X(F32X4_ADD,                      0xFD, 0xE4, "f32x4.add",                      NONE,         vv_v,  0, SIMD) \
    X(F32X4_SUB,                      0xFD, 0xE5, "f32x4.sub",                      NONE,         vv_v,  0, SIMD) \
    X(F32X4_MUL,                      0xFD, 0xE6, "f32x4.mul",                      NONE,         vv_v,  0, SIMD) \
    X(F32X4_DIV,                      0xFD, 0xE7, "f32x4.div",                      NONE,         vv_v,  0, SIMD) \
    X(F32X4_MIN,                      0xFD, 0xE8, "f32x4.min",                      NONE,         vv_v,  0, SIMD) \
    X(F32X4_MAX,                      0xFD, 0xE9, "f32x4.max",                      NONE,         vv_v,  0, SIMD) \
    X(F32X4_PMIN,                     0xFD, 0xEA, "f32x4.pmin",                     NONE,         vv_v,  0, SIMD) \
    X(F32X4_PMAX,                     0xFD, 0xEB, "f32x4.pmax",                     NONE,         vv_v,  0, SIMD) \
    X(F64X2_ABS,                      0xFD, 0xEC, "f64x2.abs",                      NONE,         v_v,   0, SIMD) \
    X(F64X2_NEG,                      0xFD, 0xED, "f64x2.neg",                      NONE,         v_v,   0, SIMD) \
    X(F64X2_SQRT,                     0xFD, 0xEF, "f64x2.sqrt",                     NONE,         v_v,   0, SIMD) \
    X(F64X2_ADD,                      0xFD, 0xF0, "f64x2.add",                      NONE,         vv_v,  0, SIMD) \
    X(F64X2_SUB,                      0xFD, 0xF1, "f64x2.sub",                      NONE,         vv_v,  0, SIMD) \
    X(F64X2_MUL,                      0xFD, 0xF2, "f64x2.mul",                      NONE,         vv_v,  0, SIMD) \
    X(F64X2_DIV,                      0xFD, 0xF3, "f64x2.div",                      NONE,         vv_v,  0, SIMD) \
    X(F64X2_MIN,                      0xFD, 0xF4, "f64x2.min",                      NONE,         vv_v,  0, SIMD) \
    X(F64X2_MAX,                      0xFD, 0xF5, "f64x2.max",                      NONE,         vv_v,  0, SIMD) \
    X(F64X2_PMIN,                     0xFD, 0xF6, "f64x2.pmin",                     NONE,         vv_v,  0, SIMD) \
    X(F64X2_PMAX,                     0xFD, 0xF7, "f64x2.pmax",                     NONE,         vv_v,  0, SIMD) \
    X(I32X4_TRUNC_SAT_F32X4_S,        0xFD, 0xF8, "i32x4.trunc_sat_f32x4_s",        NONE,         v_v,   0, SIMD) \
    X(I32X4_TRUNC_SAT_F32X4_U,        0xFD, 0xF9, "i32x4.trunc_sat_f32x4_u",        NONE,         v_v,   0, SIMD) \
    X(F32X4_CONVERT_I32X4_S,          0xFD, 0xFA, "f32x4.convert_i32x4_s",          NONE,         v_v,   0, SIMD) \
    X(F32X4_CONVERT_I32X4_U,          0xFD, 0xFB, "f32x4.convert_i32x4_u",          NONE,         v_v,   0, SIMD) \
    X(I32X4_TRUNC_SAT_F64X2_S_ZERO,   0xFD, 0xFC, "i32x4.trunc_sat_f64x2_s_zero",   NONE,         v_v,   0, SIMD) \
    X(I32X4_TRUNC_SAT_F64X2_U_ZERO,   0xFD, 0xFD, "i32x4.trunc_sat_f64x2_u_zero",   NONE,         v_v,   0, SIMD) \
    X(F64X2_CONVERT_LOW_I32X4_S,      0xFD, 0xFE, "f64x2.convert_low_i32x4_s",      NONE,         v_v,   0, SIMD) \
    X(F64X2_CONVERT_LOW_I32X4_U,      0xFD, 0xFF, "f64x2.convert_low_i32x4_u",      NONE,         v_v,   0, SIMD)

/* Relaxed SIMD (0xFD 0x100-0x113). sbx implements the spec's deterministic profile (every
 * relaxed choice its first: appendix "Profiles"), the same on every host and in both tiers:
 * these behave exactly as the 2.0 instruction sbx__wasm_relaxed_as names ... */
#define WASM_OPCODES_RELAXED_ALIAS(X) \
    X(I8X16_RELAXED_SWIZZLE,             0xFD, 0x100, "i8x16.relaxed_swizzle",               NONE, vv_v,  0, RELAXED_SIMD) \
    X(I32X4_RELAXED_TRUNC_F32X4_S,       0xFD, 0x101, "i32x4.relaxed_trunc_f32x4_s",         NONE, v_v,   0, RELAXED_SIMD) \
    X(I32X4_RELAXED_TRUNC_F32X4_U,       0xFD, 0x102, "i32x4.relaxed_trunc_f32x4_u",         NONE, v_v,   0, RELAXED_SIMD) \
    X(I32X4_RELAXED_TRUNC_F64X2_S_ZERO,  0xFD, 0x103, "i32x4.relaxed_trunc_f64x2_s_zero",    NONE, v_v,   0, RELAXED_SIMD) \
    X(I32X4_RELAXED_TRUNC_F64X2_U_ZERO,  0xFD, 0x104, "i32x4.relaxed_trunc_f64x2_u_zero",    NONE, v_v,   0, RELAXED_SIMD) \
    X(I8X16_RELAXED_LANESELECT,          0xFD, 0x109, "i8x16.relaxed_laneselect",            NONE, vvv_v, 0, RELAXED_SIMD) \
    X(I16X8_RELAXED_LANESELECT,          0xFD, 0x10A, "i16x8.relaxed_laneselect",            NONE, vvv_v, 0, RELAXED_SIMD) \
    X(I32X4_RELAXED_LANESELECT,          0xFD, 0x10B, "i32x4.relaxed_laneselect",            NONE, vvv_v, 0, RELAXED_SIMD) \
    X(I64X2_RELAXED_LANESELECT,          0xFD, 0x10C, "i64x2.relaxed_laneselect",            NONE, vvv_v, 0, RELAXED_SIMD) \
    X(F32X4_RELAXED_MIN,                 0xFD, 0x10D, "f32x4.relaxed_min",                   NONE, vv_v,  0, RELAXED_SIMD) \
    X(F32X4_RELAXED_MAX,                 0xFD, 0x10E, "f32x4.relaxed_max",                   NONE, vv_v,  0, RELAXED_SIMD) \
    X(F64X2_RELAXED_MIN,                 0xFD, 0x10F, "f64x2.relaxed_min",                   NONE, vv_v,  0, RELAXED_SIMD) \
    X(F64X2_RELAXED_MAX,                 0xFD, 0x110, "f64x2.relaxed_max",                   NONE, vv_v,  0, RELAXED_SIMD) \
    X(I16X8_RELAXED_Q15MULR_S,           0xFD, 0x111, "i16x8.relaxed_q15mulr_s",             NONE, vv_v,  0, RELAXED_SIMD)
/* ... and these have their own handlers: madd/nmadd round twice (a*b, then + c: not fused),
 * the dots treat their second operand as signed and saturate the i16 pair sums. */
#define WASM_OPCODES_RELAXED_OWN(X) \
    X(F32X4_RELAXED_MADD,                0xFD, 0x105, "f32x4.relaxed_madd",                  NONE, vvv_v, 0, RELAXED_SIMD) \
    X(F32X4_RELAXED_NMADD,               0xFD, 0x106, "f32x4.relaxed_nmadd",                 NONE, vvv_v, 0, RELAXED_SIMD) \
    X(F64X2_RELAXED_MADD,                0xFD, 0x107, "f64x2.relaxed_madd",                  NONE, vvv_v, 0, RELAXED_SIMD) \
    X(F64X2_RELAXED_NMADD,               0xFD, 0x108, "f64x2.relaxed_nmadd",                 NONE, vvv_v, 0, RELAXED_SIMD) \
    X(I16X8_RELAXED_DOT_I8X16_I7X16_S,   0xFD, 0x112, "i16x8.relaxed_dot_i8x16_i7x16_s",     NONE, vv_v,  0, RELAXED_SIMD) \
    X(I32X4_RELAXED_DOT_I8X16_I7X16_ADD_S, 0xFD, 0x113, "i32x4.relaxed_dot_i8x16_i7x16_add_s", NONE, vvv_v, 0, RELAXED_SIMD)
/* clang-format on */

#define WASM_OPCODES(X)                                                                            \
    WASM_OPCODES_MVP(X)                                                                            \
    WASM_OPCODES_FC(X)                                                                             \
    WASM_OPCODES_SIMD(X)                                                                           \
    WASM_OPCODES_RELAXED_ALIAS(X) WASM_OPCODES_RELAXED_OWN(X) WASM_OPCODES_30(X) WASM_OPCODES_GC(X)

/* An opcode's dense id: (space << 8) | (code & 0xFF), space 0 = one byte, 1 = 0xFC, 2 = 0xFD
 * below 0x100, 3 = 0xFD from 0x100 (relaxed SIMD), 4 = 0xFB (GC). Every prefixed code of 3.0
 * fits its space's 8 bits, so ids index a WASM_OP_SPACE entry table. */
#define WASM_OP_ID(prefix, code)                                                                   \
    ((((prefix) == 0xFC   ? 1u                                                                     \
       : (prefix) == 0xFD ? ((unsigned)(code) >= 0x100 ? 3u : 2u)                                  \
       : (prefix) == 0xFB ? 4u                                                                     \
                          : 0u)                                                                    \
      << 8) |                                                                                      \
     ((unsigned)(code)&0xFFu))
#define WASM_OP_SPACE 0x500u
/* The largest prefixed sub-opcode any space holds: 0xFD's second space ends at 0x1FF. */
#define WASM_OP_MAX_SUB 0x1FFu

enum wasm_op {
#define WASM_OP_ENUM(name, prefix, code, text, imm, sig, arg, feat)                                \
    WASM_OP_##name = WASM_OP_ID(prefix, code),
    WASM_OPCODES(WASM_OP_ENUM)
#undef WASM_OP_ENUM
};

/* One opcode's facts, indexed by its dense id; text == NULL for ids no opcode uses. */
struct wasm_opinfo {
    const char *text;
    uint8_t imm; /* enum wasm_imm_kind */
    uint8_t sig; /* enum wasm_sig */
    uint8_t arg; /* alignment log2 or lane count, see above */
    uint8_t prefix;
    uint8_t feature; /* enum wasm_feature */
    uint16_t code;   /* the code after the prefix (or the opcode byte) */
};

/* A fixed signature's types, indexed by enum wasm_sig. */
struct wasm_siginfo {
    uint8_t param_count;
    uint8_t result_count;
    uint8_t params[3];
    uint8_t result;
};

extern const struct wasm_opinfo sbx__wasm_opinfo[WASM_OP_SPACE];
extern const struct wasm_siginfo sbx__wasm_siginfo[WASM_SIG_COUNT];

#endif

/* wasm/opcodes.c: the opcode, signature and feature tables expanded from opcodes.h, indexed by
 * dense opcode id, by enum wasm_sig and by enum wasm_feature. */
#include "wasm/opcodes.h"

const struct wasm_opinfo sbx__wasm_opinfo[WASM_OP_SPACE] = {
#define WASM_OPINFO_ROW(name, prefix_, code_, text_, imm_, sig_, arg_, feat_)                      \
    [WASM_OP_##name] = {.text = text_,                                                             \
                        .imm = WASM_IMM_##imm_,                                                    \
                        .sig = WASM_SIG_##sig_,                                                    \
                        .arg = arg_,                                                               \
                        .prefix = prefix_,                                                         \
                        .feature = WASM_FEAT_##feat_,                                              \
                        .code = code_},
    WASM_OPCODES(WASM_OPINFO_ROW)
#undef WASM_OPINFO_ROW
};

const struct wasm_siginfo sbx__wasm_siginfo[WASM_SIG_COUNT] = {
#define WASM_SIGINFO_ROW(name, np, p1, p2, p3, nr, r1)                                             \
    [WASM_SIG_##name] = {                                                                          \
        .param_count = np,                                                                         \
        .result_count = nr,                                                                        \
        .params = {p1, p2, p3},                                                                    \
        .result = r1,                                                                              \
    },
    WASM_SIGS(WASM_SIGINFO_ROW)
#undef WASM_SIGINFO_ROW
};

static const char *const feature_texts[WASM_FEAT_COUNT] = {
#define WASM_FEATURE_TEXT(name, text) [WASM_FEAT_##name] = text,
    WASM_FEATURES(WASM_FEATURE_TEXT)
#undef WASM_FEATURE_TEXT
};

const char *sbx__wasm_feature_text(unsigned feature)
{
    return feature < WASM_FEAT_COUNT ? feature_texts[feature] : "an unknown feature";
}

bool sbx__wasm_feature_on(unsigned feature)
{
    (void)feature;
    return true;
}

uint16_t sbx__wasm_relaxed_as(uint16_t op)
{
    switch (op) {
    case WASM_OP_I8X16_RELAXED_SWIZZLE:
        return WASM_OP_I8X16_SWIZZLE;
    case WASM_OP_I32X4_RELAXED_TRUNC_F32X4_S:
        return WASM_OP_I32X4_TRUNC_SAT_F32X4_S;
    case WASM_OP_I32X4_RELAXED_TRUNC_F32X4_U:
        return WASM_OP_I32X4_TRUNC_SAT_F32X4_U;
    case WASM_OP_I32X4_RELAXED_TRUNC_F64X2_S_ZERO:
        return WASM_OP_I32X4_TRUNC_SAT_F64X2_S_ZERO;
    case WASM_OP_I32X4_RELAXED_TRUNC_F64X2_U_ZERO:
        return WASM_OP_I32X4_TRUNC_SAT_F64X2_U_ZERO;
    case WASM_OP_I8X16_RELAXED_LANESELECT:
    case WASM_OP_I16X8_RELAXED_LANESELECT:
    case WASM_OP_I32X4_RELAXED_LANESELECT:
    case WASM_OP_I64X2_RELAXED_LANESELECT:
        return WASM_OP_V128_BITSELECT;
    case WASM_OP_F32X4_RELAXED_MIN:
        return WASM_OP_F32X4_MIN;
    case WASM_OP_F32X4_RELAXED_MAX:
        return WASM_OP_F32X4_MAX;
    case WASM_OP_F64X2_RELAXED_MIN:
        return WASM_OP_F64X2_MIN;
    case WASM_OP_F64X2_RELAXED_MAX:
        return WASM_OP_F64X2_MAX;
    case WASM_OP_I16X8_RELAXED_Q15MULR_S:
        return WASM_OP_I16X8_Q15MULR_SAT_S;
    default:
        return 0;
    }
}

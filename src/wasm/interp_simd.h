/* wasm/interp_simd.h: the fixed-width SIMD handlers, included inside interp.c's dispatch loop
 * (they are labels of that function). One handler per 0xFD opcode, named op_simd_<NAME> after
 * opcodes.h. A v128 operand is two adjacent slots; lanes are little-endian, as in memory.
 * Formats follow the opcode's signature: [h][dst][operands...][immediates...]. */

/* clang-format off */
#define VIN(k, arr)  memcpy((arr), fp + ip[k], 16)
#define VOUT(arr)    memcpy(fp + ip[1], (arr), 16)
#define VMASK(T, c)  ((T) - (T)((c) ? 1 : 0))
#define VUN(name, TA, NA, TR, NR, body)                                                            \
    op_simd_##name : {                                                                             \
        TA a[NA];                                                                                  \
        TR r[NR];                                                                                  \
        VIN(2, a);                                                                                 \
        for (unsigned i = 0; i < (NR); i++) { body; }                                              \
        VOUT(r);                                                                                   \
        ip += 3;                                                                                   \
        NEXT();                                                                                    \
    }
#define VBIN(name, TA, NA, TR, NR, body)                                                           \
    op_simd_##name : {                                                                             \
        TA a[NA], b[NA];                                                                           \
        TR r[NR];                                                                                  \
        VIN(2, a);                                                                                 \
        VIN(3, b);                                                                                 \
        for (unsigned i = 0; i < (NR); i++) { body; }                                              \
        VOUT(r);                                                                                   \
        ip += 4;                                                                                   \
        NEXT();                                                                                    \
    }
/* Shifts [h][dst][a][count]: the count is taken modulo the lane width. */
#define VSHIFT(name, T, N, body)                                                                   \
    op_simd_##name : {                                                                             \
        T a[N], r[N];                                                                              \
        VIN(2, a);                                                                                 \
        unsigned s = U32(3) & (sizeof(T) * 8 - 1);                                                 \
        for (unsigned i = 0; i < (N); i++) { body; }                                               \
        VOUT(r);                                                                                   \
        ip += 4;                                                                                   \
        NEXT();                                                                                    \
    }
#define VCMP(name, T, N, TR, op) VBIN(name, T, N, TR, N, r[i] = VMASK(TR, a[i] op b[i]))
#define VCMPS(P, T, U, N)                                                                          \
    VCMP(P##_EQ, U, N, U, ==) VCMP(P##_NE, U, N, U, !=) VCMP(P##_LT_S, T, N, U, <)                 \
    VCMP(P##_LT_U, U, N, U, <) VCMP(P##_GT_S, T, N, U, >) VCMP(P##_GT_U, U, N, U, >)              \
    VCMP(P##_LE_S, T, N, U, <=) VCMP(P##_LE_U, U, N, U, <=) VCMP(P##_GE_S, T, N, U, >=)            \
    VCMP(P##_GE_U, U, N, U, >=)
#define VFCMPS(P, T, U, N)                                                                         \
    VCMP(P##_EQ, T, N, U, ==) VCMP(P##_NE, T, N, U, !=) VCMP(P##_LT, T, N, U, <)                   \
    VCMP(P##_GT, T, N, U, >) VCMP(P##_LE, T, N, U, <=) VCMP(P##_GE, T, N, U, >=)
/* Loads [h][dst][addr][offset] of n bytes into a temporary m, then body fills r. */
#define VLOAD(name, n, TM, NM, TR, NR, body)                                                       \
    op_simd_##name : {                                                                             \
        uint64_t ea = (uint64_t)U32(2) + ip[3];                                                    \
        if (UNLIKELY(ea + (n) > msize))                                                            \
            TRAP(WASM_TRAP_MEMORY_OOB);                                                            \
        TM m[NM];                                                                                  \
        TR r[NR];                                                                                  \
        memcpy(m, mbase + ea, (n));                                                                \
        for (unsigned i = 0; i < (NR); i++) { body; }                                              \
        VOUT(r);                                                                                   \
        ip += 4;                                                                                   \
        NEXT();                                                                                    \
    }
/* load_lane [h][dst][addr][v][offset][lane]; store_lane [h][addr][v][offset][lane] */
#define VLOAD_LANE(name, T)                                                                        \
    op_simd_##name : {                                                                             \
        uint64_t ea = (uint64_t)U32(2) + ip[4];                                                    \
        if (UNLIKELY(ea + sizeof(T) > msize))                                                      \
            TRAP(WASM_TRAP_MEMORY_OOB);                                                            \
        T r[16 / sizeof(T)];                                                                       \
        VIN(3, r);                                                                                 \
        memcpy(&r[ip[5]], mbase + ea, sizeof(T));                                                  \
        VOUT(r);                                                                                   \
        ip += 6;                                                                                   \
        NEXT();                                                                                    \
    }
#define VSTORE_LANE(name, T)                                                                       \
    op_simd_##name : {                                                                             \
        uint64_t ea = (uint64_t)U32(1) + ip[3];                                                    \
        if (UNLIKELY(ea + sizeof(T) > msize))                                                      \
            TRAP(WASM_TRAP_MEMORY_OOB);                                                            \
        T a[16 / sizeof(T)];                                                                       \
        VIN(2, a);                                                                                 \
        memcpy(mbase + ea, &a[ip[4]], sizeof(T));                                                  \
        ip += 5;                                                                                   \
        NEXT();                                                                                    \
    }
/* extract [h][dst][a][lane]; replace [h][dst][a][x][lane]; splat [h][dst][x] */
#define VEXTRACT(name, T, conv)                                                                    \
    op_simd_##name : {                                                                             \
        T a[16 / sizeof(T)];                                                                       \
        VIN(2, a);                                                                                 \
        S(1) = (uint64_t)(conv);                                                                            \
        ip += 4;                                                                                   \
        NEXT();                                                                                    \
    }
#define VREPLACE(name, T)                                                                          \
    op_simd_##name : {                                                                             \
        T r[16 / sizeof(T)];                                                                       \
        VIN(2, r);                                                                                 \
        r[ip[4]] = (T)S(3);                                                                        \
        VOUT(r);                                                                                   \
        ip += 5;                                                                                   \
        NEXT();                                                                                    \
    }
#define VSPLAT(name, T)                                                                            \
    op_simd_##name : {                                                                             \
        T r[16 / sizeof(T)];                                                                       \
        for (unsigned i = 0; i < 16 / sizeof(T); i++)                                              \
            r[i] = (T)S(2);                                                                        \
        VOUT(r);                                                                                   \
        ip += 3;                                                                                   \
        NEXT();                                                                                    \
    }
/* Reductions to an i32: [h][dst][a] */
#define VREDUCE(name, T, N, init, body)                                                            \
    op_simd_##name : {                                                                             \
        T a[N];                                                                                    \
        VIN(2, a);                                                                                 \
        uint32_t v = (init);                                                                       \
        for (unsigned i = 0; i < (N); i++) { body; }                                               \
        S(1) = v;                                                                                  \
        ip += 3;                                                                                   \
        NEXT();                                                                                    \
    }
/* clang-format on */

/* --- memory --- */
VLOAD(V128_LOAD, 16, uint8_t, 16, uint8_t, 16, r[i] = m[i])
VLOAD(V128_LOAD8X8_S, 8, int8_t, 8, uint16_t, 8, r[i] = (uint16_t)m[i])
VLOAD(V128_LOAD8X8_U, 8, uint8_t, 8, uint16_t, 8, r[i] = m[i])
VLOAD(V128_LOAD16X4_S, 8, int16_t, 4, uint32_t, 4, r[i] = (uint32_t)m[i])
VLOAD(V128_LOAD16X4_U, 8, uint16_t, 4, uint32_t, 4, r[i] = m[i])
VLOAD(V128_LOAD32X2_S, 8, int32_t, 2, uint64_t, 2, r[i] = (uint64_t)(int64_t)m[i])
VLOAD(V128_LOAD32X2_U, 8, uint32_t, 2, uint64_t, 2, r[i] = m[i])
VLOAD(V128_LOAD8_SPLAT, 1, uint8_t, 1, uint8_t, 16, r[i] = m[0])
VLOAD(V128_LOAD16_SPLAT, 2, uint16_t, 1, uint16_t, 8, r[i] = m[0])
VLOAD(V128_LOAD32_SPLAT, 4, uint32_t, 1, uint32_t, 4, r[i] = m[0])
VLOAD(V128_LOAD64_SPLAT, 8, uint64_t, 1, uint64_t, 2, r[i] = m[0])
VLOAD(V128_LOAD32_ZERO, 4, uint32_t, 1, uint32_t, 4, r[i] = i == 0 ? m[0] : 0)
VLOAD(V128_LOAD64_ZERO, 8, uint64_t, 1, uint64_t, 2, r[i] = i == 0 ? m[0] : 0)
VLOAD_LANE(V128_LOAD8_LANE, uint8_t)
VLOAD_LANE(V128_LOAD16_LANE, uint16_t)
VLOAD_LANE(V128_LOAD32_LANE, uint32_t)
VLOAD_LANE(V128_LOAD64_LANE, uint64_t)
VSTORE_LANE(V128_STORE8_LANE, uint8_t)
VSTORE_LANE(V128_STORE16_LANE, uint16_t)
VSTORE_LANE(V128_STORE32_LANE, uint32_t)
VSTORE_LANE(V128_STORE64_LANE, uint64_t)
/* [h][addr][v][offset] */
op_simd_V128_STORE:
{
    uint64_t ea = (uint64_t)U32(1) + ip[3];
    if (UNLIKELY(ea + 16 > msize))
        TRAP(WASM_TRAP_MEMORY_OOB);
    memcpy(mbase + ea, fp + ip[2], 16);
    ip += 4;
    NEXT();
}
/* [h][dst][16 bytes in 4 words] */
op_simd_V128_CONST:
{
    uint32_t k[4] = {W(2), W(3), W(4), W(5)};
    memcpy(fp + ip[1], k, 16);
    ip += 6;
    NEXT();
}
/* [h][dst][a][b][16 lane indices in 4 words] */
op_simd_I8X16_SHUFFLE:
{
    uint8_t ab[32], idx[16], r[16];
    uint32_t k[4] = {W(4), W(5), W(6), W(7)};
    memcpy(ab, fp + ip[2], 16);
    memcpy(ab + 16, fp + ip[3], 16);
    memcpy(idx, k, 16);
    for (unsigned i = 0; i < 16; i++)
        r[i] = ab[idx[i] & 31];
    VOUT(r);
    ip += 8;
    NEXT();
}
VBIN(I8X16_SWIZZLE, uint8_t, 16, uint8_t, 16, r[i] = b[i] < 16 ? a[b[i]] : 0)

/* --- lanes --- */
VSPLAT(I8X16_SPLAT, uint8_t)
VSPLAT(I16X8_SPLAT, uint16_t)
VSPLAT(I32X4_SPLAT, uint32_t)
VSPLAT(I64X2_SPLAT, uint64_t)
VSPLAT(F32X4_SPLAT, uint32_t)
VSPLAT(F64X2_SPLAT, uint64_t)
VEXTRACT(I8X16_EXTRACT_LANE_S, int8_t, (uint32_t)(int32_t)a[ip[3]])
VEXTRACT(I8X16_EXTRACT_LANE_U, uint8_t, a[ip[3]])
VEXTRACT(I16X8_EXTRACT_LANE_S, int16_t, (uint32_t)(int32_t)a[ip[3]])
VEXTRACT(I16X8_EXTRACT_LANE_U, uint16_t, a[ip[3]])
VEXTRACT(I32X4_EXTRACT_LANE, uint32_t, a[ip[3]])
VEXTRACT(I64X2_EXTRACT_LANE, uint64_t, a[ip[3]])
VEXTRACT(F32X4_EXTRACT_LANE, uint32_t, a[ip[3]])
VEXTRACT(F64X2_EXTRACT_LANE, uint64_t, a[ip[3]])
VREPLACE(I8X16_REPLACE_LANE, uint8_t)
VREPLACE(I16X8_REPLACE_LANE, uint16_t)
VREPLACE(I32X4_REPLACE_LANE, uint32_t)
VREPLACE(I64X2_REPLACE_LANE, uint64_t)
VREPLACE(F32X4_REPLACE_LANE, uint32_t)
VREPLACE(F64X2_REPLACE_LANE, uint64_t)

/* --- comparisons --- */
VCMPS(I8X16, int8_t, uint8_t, 16)
VCMPS(I16X8, int16_t, uint16_t, 8)
VCMPS(I32X4, int32_t, uint32_t, 4)
VCMP(I64X2_EQ, uint64_t, 2, uint64_t, ==)
VCMP(I64X2_NE, uint64_t, 2, uint64_t, !=)
VCMP(I64X2_LT_S, int64_t, 2, uint64_t, <)
VCMP(I64X2_GT_S, int64_t, 2, uint64_t, >)
VCMP(I64X2_LE_S, int64_t, 2, uint64_t, <=)
VCMP(I64X2_GE_S, int64_t, 2, uint64_t, >=)
VFCMPS(F32X4, float, uint32_t, 4)
VFCMPS(F64X2, double, uint64_t, 2)

/* --- bitwise --- */
VUN(V128_NOT, uint64_t, 2, uint64_t, 2, r[i] = ~a[i])
VBIN(V128_AND, uint64_t, 2, uint64_t, 2, r[i] = a[i] & b[i])
VBIN(V128_ANDNOT, uint64_t, 2, uint64_t, 2, r[i] = a[i] & ~b[i])
VBIN(V128_OR, uint64_t, 2, uint64_t, 2, r[i] = a[i] | b[i])
VBIN(V128_XOR, uint64_t, 2, uint64_t, 2, r[i] = a[i] ^ b[i])
/* [h][dst][v1][v2][mask] */
op_simd_V128_BITSELECT:
{
    uint64_t a[2], b[2], m[2], r[2];
    VIN(2, a);
    VIN(3, b);
    VIN(4, m);
    for (unsigned i = 0; i < 2; i++)
        r[i] = (a[i] & m[i]) | (b[i] & ~m[i]);
    VOUT(r);
    ip += 5;
    NEXT();
}
VREDUCE(V128_ANY_TRUE, uint64_t, 2, 0, v |= (uint32_t)(a[i] != 0))
VREDUCE(I8X16_ALL_TRUE, uint8_t, 16, 1, v &= (uint32_t)(a[i] != 0))
VREDUCE(I16X8_ALL_TRUE, uint16_t, 8, 1, v &= (uint32_t)(a[i] != 0))
VREDUCE(I32X4_ALL_TRUE, uint32_t, 4, 1, v &= (uint32_t)(a[i] != 0))
VREDUCE(I64X2_ALL_TRUE, uint64_t, 2, 1, v &= (uint32_t)(a[i] != 0))
VREDUCE(I8X16_BITMASK, uint8_t, 16, 0, v |= (uint32_t)(a[i] >> 7) << i)
VREDUCE(I16X8_BITMASK, uint16_t, 8, 0, v |= (uint32_t)(a[i] >> 15) << i)
VREDUCE(I32X4_BITMASK, uint32_t, 4, 0, v |= (a[i] >> 31) << i)
VREDUCE(I64X2_BITMASK, uint64_t, 2, 0, v |= (uint32_t)(a[i] >> 63) << i)

/* --- integer arithmetic --- */
VUN(I8X16_ABS, int8_t, 16, uint8_t, 16, r[i] = (uint8_t)(a[i] < 0 ? -a[i] : a[i]))
VUN(I16X8_ABS, int16_t, 8, uint16_t, 8, r[i] = (uint16_t)(a[i] < 0 ? -a[i] : a[i]))
VUN(I32X4_ABS, int32_t, 4, uint32_t, 4, r[i] = a[i] < 0 ? 0u - (uint32_t)a[i] : (uint32_t)a[i])
VUN(I64X2_ABS, int64_t, 2, uint64_t, 2, r[i] = a[i] < 0 ? 0u - (uint64_t)a[i] : (uint64_t)a[i])
VUN(I8X16_NEG, uint8_t, 16, uint8_t, 16, r[i] = (uint8_t)(0u - a[i]))
VUN(I16X8_NEG, uint16_t, 8, uint16_t, 8, r[i] = (uint16_t)(0u - a[i]))
VUN(I32X4_NEG, uint32_t, 4, uint32_t, 4, r[i] = 0u - a[i])
VUN(I64X2_NEG, uint64_t, 2, uint64_t, 2, r[i] = 0u - a[i])
VUN(I8X16_POPCNT, uint8_t, 16, uint8_t, 16, r[i] = (uint8_t)__builtin_popcount(a[i]))
VBIN(I8X16_NARROW_I16X8_S, int16_t, 8, int8_t, 16, r[i] = sat_s8(i < 8 ? a[i] : b[i - 8]))
VBIN(I8X16_NARROW_I16X8_U, int16_t, 8, uint8_t, 16, r[i] = sat_u8(i < 8 ? a[i] : b[i - 8]))
VBIN(I16X8_NARROW_I32X4_S, int32_t, 4, int16_t, 8, r[i] = sat_s16(i < 4 ? a[i] : b[i - 4]))
VBIN(I16X8_NARROW_I32X4_U, int32_t, 4, uint16_t, 8, r[i] = sat_u16(i < 4 ? a[i] : b[i - 4]))
VSHIFT(I8X16_SHL, uint8_t, 16, r[i] = (uint8_t)(a[i] << s))
VSHIFT(I8X16_SHR_S, uint8_t, 16, r[i] = (uint8_t)((int8_t)a[i] >> s))
VSHIFT(I8X16_SHR_U, uint8_t, 16, r[i] = (uint8_t)(a[i] >> s))
VSHIFT(I16X8_SHL, uint16_t, 8, r[i] = (uint16_t)(a[i] << s))
VSHIFT(I16X8_SHR_S, uint16_t, 8, r[i] = (uint16_t)((int16_t)a[i] >> s))
VSHIFT(I16X8_SHR_U, uint16_t, 8, r[i] = (uint16_t)(a[i] >> s))
VSHIFT(I32X4_SHL, uint32_t, 4, r[i] = a[i] << s)
VSHIFT(I32X4_SHR_S, uint32_t, 4, r[i] = (uint32_t)((int32_t)a[i] >> s))
VSHIFT(I32X4_SHR_U, uint32_t, 4, r[i] = a[i] >> s)
VSHIFT(I64X2_SHL, uint64_t, 2, r[i] = a[i] << s)
VSHIFT(I64X2_SHR_S, uint64_t, 2, r[i] = (uint64_t)((int64_t)a[i] >> s))
VSHIFT(I64X2_SHR_U, uint64_t, 2, r[i] = a[i] >> s)
VBIN(I8X16_ADD, uint8_t, 16, uint8_t, 16, r[i] = (uint8_t)(a[i] + b[i]))
VBIN(I8X16_SUB, uint8_t, 16, uint8_t, 16, r[i] = (uint8_t)(a[i] - b[i]))
VBIN(I8X16_ADD_SAT_S, int8_t, 16, int8_t, 16, r[i] = sat_s8(a[i] + b[i]))
VBIN(I8X16_ADD_SAT_U, uint8_t, 16, uint8_t, 16, r[i] = sat_u8(a[i] + b[i]))
VBIN(I8X16_SUB_SAT_S, int8_t, 16, int8_t, 16, r[i] = sat_s8(a[i] - b[i]))
VBIN(I8X16_SUB_SAT_U, uint8_t, 16, uint8_t, 16, r[i] = sat_u8(a[i] - b[i]))
VBIN(I16X8_ADD, uint16_t, 8, uint16_t, 8, r[i] = (uint16_t)(a[i] + b[i]))
VBIN(I16X8_SUB, uint16_t, 8, uint16_t, 8, r[i] = (uint16_t)(a[i] - b[i]))
VBIN(I16X8_MUL, uint16_t, 8, uint16_t, 8, r[i] = (uint16_t)((uint32_t)a[i] * b[i]))
VBIN(I16X8_ADD_SAT_S, int16_t, 8, int16_t, 8, r[i] = sat_s16(a[i] + b[i]))
VBIN(I16X8_ADD_SAT_U, uint16_t, 8, uint16_t, 8, r[i] = sat_u16(a[i] + b[i]))
VBIN(I16X8_SUB_SAT_S, int16_t, 8, int16_t, 8, r[i] = sat_s16(a[i] - b[i]))
VBIN(I16X8_SUB_SAT_U, uint16_t, 8, uint16_t, 8, r[i] = sat_u16(a[i] - b[i]))
VBIN(I32X4_ADD, uint32_t, 4, uint32_t, 4, r[i] = a[i] + b[i])
VBIN(I32X4_SUB, uint32_t, 4, uint32_t, 4, r[i] = a[i] - b[i])
VBIN(I32X4_MUL, uint32_t, 4, uint32_t, 4, r[i] = a[i] * b[i])
VBIN(I64X2_ADD, uint64_t, 2, uint64_t, 2, r[i] = a[i] + b[i])
VBIN(I64X2_SUB, uint64_t, 2, uint64_t, 2, r[i] = a[i] - b[i])
VBIN(I64X2_MUL, uint64_t, 2, uint64_t, 2, r[i] = a[i] * b[i])
VBIN(I8X16_MIN_S, int8_t, 16, int8_t, 16, r[i] = a[i] < b[i] ? a[i] : b[i])
VBIN(I8X16_MIN_U, uint8_t, 16, uint8_t, 16, r[i] = a[i] < b[i] ? a[i] : b[i])
VBIN(I8X16_MAX_S, int8_t, 16, int8_t, 16, r[i] = a[i] > b[i] ? a[i] : b[i])
VBIN(I8X16_MAX_U, uint8_t, 16, uint8_t, 16, r[i] = a[i] > b[i] ? a[i] : b[i])
VBIN(I16X8_MIN_S, int16_t, 8, int16_t, 8, r[i] = a[i] < b[i] ? a[i] : b[i])
VBIN(I16X8_MIN_U, uint16_t, 8, uint16_t, 8, r[i] = a[i] < b[i] ? a[i] : b[i])
VBIN(I16X8_MAX_S, int16_t, 8, int16_t, 8, r[i] = a[i] > b[i] ? a[i] : b[i])
VBIN(I16X8_MAX_U, uint16_t, 8, uint16_t, 8, r[i] = a[i] > b[i] ? a[i] : b[i])
VBIN(I32X4_MIN_S, int32_t, 4, int32_t, 4, r[i] = a[i] < b[i] ? a[i] : b[i])
VBIN(I32X4_MIN_U, uint32_t, 4, uint32_t, 4, r[i] = a[i] < b[i] ? a[i] : b[i])
VBIN(I32X4_MAX_S, int32_t, 4, int32_t, 4, r[i] = a[i] > b[i] ? a[i] : b[i])
VBIN(I32X4_MAX_U, uint32_t, 4, uint32_t, 4, r[i] = a[i] > b[i] ? a[i] : b[i])
VBIN(I8X16_AVGR_U, uint8_t, 16, uint8_t, 16, r[i] = (uint8_t)((a[i] + b[i] + 1u) >> 1))
VBIN(I16X8_AVGR_U, uint16_t, 8, uint16_t, 8, r[i] = (uint16_t)((a[i] + b[i] + 1u) >> 1))
VUN(I16X8_EXTADD_PAIRWISE_I8X16_S, int8_t, 16, uint16_t, 8,
    r[i] = (uint16_t)(a[2 * i] + a[2 * i + 1]))
VUN(I16X8_EXTADD_PAIRWISE_I8X16_U, uint8_t, 16, uint16_t, 8,
    r[i] = (uint16_t)(a[2 * i] + a[2 * i + 1]))
VUN(I32X4_EXTADD_PAIRWISE_I16X8_S, int16_t, 8, uint32_t, 4,
    r[i] = (uint32_t)(a[2 * i] + a[2 * i + 1]))
VUN(I32X4_EXTADD_PAIRWISE_I16X8_U, uint16_t, 8, uint32_t, 4,
    r[i] = (uint32_t)(a[2 * i] + a[2 * i + 1]))
VBIN(I16X8_Q15MULR_SAT_S, int16_t, 8, int16_t, 8,
     r[i] = sat_s16((int32_t)(((int32_t)a[i] * b[i] + 0x4000) >> 15)))
VUN(I16X8_EXTEND_LOW_I8X16_S, int8_t, 16, uint16_t, 8, r[i] = (uint16_t)a[i])
VUN(I16X8_EXTEND_HIGH_I8X16_S, int8_t, 16, uint16_t, 8, r[i] = (uint16_t)a[i + 8])
VUN(I16X8_EXTEND_LOW_I8X16_U, uint8_t, 16, uint16_t, 8, r[i] = a[i])
VUN(I16X8_EXTEND_HIGH_I8X16_U, uint8_t, 16, uint16_t, 8, r[i] = a[i + 8])
VUN(I32X4_EXTEND_LOW_I16X8_S, int16_t, 8, uint32_t, 4, r[i] = (uint32_t)a[i])
VUN(I32X4_EXTEND_HIGH_I16X8_S, int16_t, 8, uint32_t, 4, r[i] = (uint32_t)a[i + 4])
VUN(I32X4_EXTEND_LOW_I16X8_U, uint16_t, 8, uint32_t, 4, r[i] = a[i])
VUN(I32X4_EXTEND_HIGH_I16X8_U, uint16_t, 8, uint32_t, 4, r[i] = a[i + 4])
VUN(I64X2_EXTEND_LOW_I32X4_S, int32_t, 4, uint64_t, 2, r[i] = (uint64_t)(int64_t)a[i])
VUN(I64X2_EXTEND_HIGH_I32X4_S, int32_t, 4, uint64_t, 2, r[i] = (uint64_t)(int64_t)a[i + 2])
VUN(I64X2_EXTEND_LOW_I32X4_U, uint32_t, 4, uint64_t, 2, r[i] = a[i])
VUN(I64X2_EXTEND_HIGH_I32X4_U, uint32_t, 4, uint64_t, 2, r[i] = a[i + 2])
VBIN(I32X4_DOT_I16X8_S, int16_t, 8, uint32_t, 4,
     r[i] = (uint32_t)((int32_t)a[2 * i] * b[2 * i]) +
            (uint32_t)((int32_t)a[2 * i + 1] * b[2 * i + 1]))
VBIN(I16X8_EXTMUL_LOW_I8X16_S, int8_t, 16, uint16_t, 8, r[i] = (uint16_t)(a[i] * b[i]))
VBIN(I16X8_EXTMUL_HIGH_I8X16_S, int8_t, 16, uint16_t, 8, r[i] = (uint16_t)(a[i + 8] * b[i + 8]))
VBIN(I16X8_EXTMUL_LOW_I8X16_U, uint8_t, 16, uint16_t, 8, r[i] = (uint16_t)(a[i] * b[i]))
VBIN(I16X8_EXTMUL_HIGH_I8X16_U, uint8_t, 16, uint16_t, 8, r[i] = (uint16_t)(a[i + 8] * b[i + 8]))
VBIN(I32X4_EXTMUL_LOW_I16X8_S, int16_t, 8, uint32_t, 4, r[i] = (uint32_t)(a[i] * b[i]))
VBIN(I32X4_EXTMUL_HIGH_I16X8_S, int16_t, 8, uint32_t, 4, r[i] = (uint32_t)(a[i + 4] * b[i + 4]))
VBIN(I32X4_EXTMUL_LOW_I16X8_U, uint16_t, 8, uint32_t, 4, r[i] = (uint32_t)a[i] * b[i])
VBIN(I32X4_EXTMUL_HIGH_I16X8_U, uint16_t, 8, uint32_t, 4, r[i] = (uint32_t)a[i + 4] * b[i + 4])
VBIN(I64X2_EXTMUL_LOW_I32X4_S, int32_t, 4, uint64_t, 2, r[i] = (uint64_t)((int64_t)a[i] * b[i]))
VBIN(I64X2_EXTMUL_HIGH_I32X4_S, int32_t, 4, uint64_t, 2,
     r[i] = (uint64_t)((int64_t)a[i + 2] * b[i + 2]))
VBIN(I64X2_EXTMUL_LOW_I32X4_U, uint32_t, 4, uint64_t, 2, r[i] = (uint64_t)a[i] * b[i])
VBIN(I64X2_EXTMUL_HIGH_I32X4_U, uint32_t, 4, uint64_t, 2, r[i] = (uint64_t)a[i + 2] * b[i + 2])

/* --- floating point --- */
VUN(F32X4_ABS, uint32_t, 4, uint32_t, 4, r[i] = a[i] & 0x7FFFFFFFu)
VUN(F32X4_NEG, uint32_t, 4, uint32_t, 4, r[i] = a[i] ^ 0x80000000u)
VUN(F64X2_ABS, uint64_t, 2, uint64_t, 2, r[i] = a[i] & 0x7FFFFFFFFFFFFFFFu)
VUN(F64X2_NEG, uint64_t, 2, uint64_t, 2, r[i] = a[i] ^ 0x8000000000000000u)
VUN(F32X4_SQRT, float, 4, float, 4, r[i] = __builtin_sqrtf(a[i]))
VUN(F64X2_SQRT, double, 2, double, 2, r[i] = __builtin_sqrt(a[i]))
VUN(F32X4_CEIL, float, 4, float, 4, r[i] = a[i] != a[i] ? a[i] + a[i] : ceilf(a[i]))
VUN(F32X4_FLOOR, float, 4, float, 4, r[i] = a[i] != a[i] ? a[i] + a[i] : floorf(a[i]))
VUN(F32X4_TRUNC, float, 4, float, 4, r[i] = a[i] != a[i] ? a[i] + a[i] : truncf(a[i]))
VUN(F32X4_NEAREST, float, 4, float, 4, r[i] = a[i] != a[i] ? a[i] + a[i] : nearbyintf(a[i]))
VUN(F64X2_CEIL, double, 2, double, 2, r[i] = a[i] != a[i] ? a[i] + a[i] : ceil(a[i]))
VUN(F64X2_FLOOR, double, 2, double, 2, r[i] = a[i] != a[i] ? a[i] + a[i] : floor(a[i]))
VUN(F64X2_TRUNC, double, 2, double, 2, r[i] = a[i] != a[i] ? a[i] + a[i] : trunc(a[i]))
VUN(F64X2_NEAREST, double, 2, double, 2, r[i] = a[i] != a[i] ? a[i] + a[i] : nearbyint(a[i]))
VBIN(F32X4_ADD, float, 4, float, 4, r[i] = a[i] + b[i])
VBIN(F32X4_SUB, float, 4, float, 4, r[i] = a[i] - b[i])
VBIN(F32X4_MUL, float, 4, float, 4, r[i] = a[i] * b[i])
VBIN(F32X4_DIV, float, 4, float, 4, r[i] = a[i] / b[i])
VBIN(F32X4_MIN, float, 4, float, 4, r[i] = f32_min(a[i], b[i]))
VBIN(F32X4_MAX, float, 4, float, 4, r[i] = f32_max(a[i], b[i]))
VBIN(F32X4_PMIN, float, 4, float, 4, r[i] = b[i] < a[i] ? b[i] : a[i])
VBIN(F32X4_PMAX, float, 4, float, 4, r[i] = a[i] < b[i] ? b[i] : a[i])
VBIN(F64X2_ADD, double, 2, double, 2, r[i] = a[i] + b[i])
VBIN(F64X2_SUB, double, 2, double, 2, r[i] = a[i] - b[i])
VBIN(F64X2_MUL, double, 2, double, 2, r[i] = a[i] * b[i])
VBIN(F64X2_DIV, double, 2, double, 2, r[i] = a[i] / b[i])
VBIN(F64X2_MIN, double, 2, double, 2, r[i] = f64_min(a[i], b[i]))
VBIN(F64X2_MAX, double, 2, double, 2, r[i] = f64_max(a[i], b[i]))
VBIN(F64X2_PMIN, double, 2, double, 2, r[i] = b[i] < a[i] ? b[i] : a[i])
VBIN(F64X2_PMAX, double, 2, double, 2, r[i] = a[i] < b[i] ? b[i] : a[i])
VUN(F32X4_DEMOTE_F64X2_ZERO, double, 2, float, 4, r[i] = i < 2 ? (float)a[i] : 0.0f)
VUN(F64X2_PROMOTE_LOW_F32X4, float, 4, double, 2, r[i] = (double)a[i])
VUN(I32X4_TRUNC_SAT_F32X4_S, float, 4, uint32_t, 4, r[i] = sat_i32((double)a[i]))
VUN(I32X4_TRUNC_SAT_F32X4_U, float, 4, uint32_t, 4, r[i] = sat_u32((double)a[i]))
VUN(F32X4_CONVERT_I32X4_S, int32_t, 4, float, 4, r[i] = (float)a[i])
VUN(F32X4_CONVERT_I32X4_U, uint32_t, 4, float, 4, r[i] = (float)a[i])
VUN(I32X4_TRUNC_SAT_F64X2_S_ZERO, double, 2, uint32_t, 4, r[i] = i < 2 ? sat_i32(a[i]) : 0)
VUN(I32X4_TRUNC_SAT_F64X2_U_ZERO, double, 2, uint32_t, 4, r[i] = i < 2 ? sat_u32(a[i]) : 0)
VUN(F64X2_CONVERT_LOW_I32X4_S, int32_t, 4, double, 2, r[i] = (double)a[i])
VUN(F64X2_CONVERT_LOW_I32X4_U, uint32_t, 4, double, 2, r[i] = (double)a[i])

/* --- v128 helpers the translator needs outside the 0xFD space --- */
/* [h][dst][a][b][cond] */
op_select2:
{
    uint64_t lo = U32(4) ? fp[ip[2]] : fp[ip[3]], hi = U32(4) ? fp[ip[2] + 1] : fp[ip[3] + 1];
    fp[ip[1]] = lo;
    fp[ip[1] + 1] = hi;
    ip += 5;
    NEXT();
}
/* [h][dst][global] / [h][global][src] */
op_global_get2 : memcpy(fp + ip[1], globals[ip[2]]->value.v128, 16);
ip += 3;
NEXT();
op_global_set2 : memcpy(globals[ip[1]]->value.v128, fp + ip[2], 16);
ip += 3;
NEXT();

/* --- relaxed SIMD, the deterministic profile (opcodes.h): the rest run their 2.0 twins --- */
/* [h][dst][a][b][c]: a * b + c rounded twice (two statements: never contracted to an FMA) */
#define VMADD(name, T, N, neg)                                                                     \
    op_simd_##name:                                                                                \
    {                                                                                              \
        T a[N], b[N], c[N], r[N];                                                                  \
        VIN(2, a);                                                                                 \
        VIN(3, b);                                                                                 \
        VIN(4, c);                                                                                 \
        for (unsigned i = 0; i < (N); i++) {                                                       \
            T p = (neg a[i]) * b[i];                                                               \
            r[i] = p + c[i];                                                                       \
        }                                                                                          \
        VOUT(r);                                                                                   \
        ip += 5;                                                                                   \
        NEXT();                                                                                    \
    }
VMADD(F32X4_RELAXED_MADD, float, 4, +)
VMADD(F32X4_RELAXED_NMADD, float, 4, -)
VMADD(F64X2_RELAXED_MADD, double, 2, +)
VMADD(F64X2_RELAXED_NMADD, double, 2, -)
/* i16 lane k: a[2k]*b[2k] + a[2k+1]*b[2k+1], both operands signed, the sum saturated */
VBIN(I16X8_RELAXED_DOT_I8X16_I7X16_S, int8_t, 16, int16_t, 8,
     r[i] = sat_s16((int32_t)a[2 * i] * b[2 * i] + (int32_t)a[2 * i + 1] * b[2 * i + 1]))
/* [h][dst][a][b][c]: i32 lane k: the two i16 dots of lanes 2k, 2k+1, added, then + c[k] */
op_simd_I32X4_RELAXED_DOT_I8X16_I7X16_ADD_S:
{
    int8_t a[16], b[16];
    int32_t c[4], r[4];
    VIN(2, a);
    VIN(3, b);
    VIN(4, c);
    for (unsigned i = 0; i < 4; i++) {
        int32_t d0 = sat_s16((int32_t)a[4 * i] * b[4 * i] + (int32_t)a[4 * i + 1] * b[4 * i + 1]);
        int32_t d1 =
            sat_s16((int32_t)a[4 * i + 2] * b[4 * i + 2] + (int32_t)a[4 * i + 3] * b[4 * i + 3]);
        r[i] = (int32_t)((uint32_t)d0 + (uint32_t)d1 + (uint32_t)c[i]);
    }
    VOUT(r);
    ip += 5;
    NEXT();
}

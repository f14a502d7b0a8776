/* wasm/interp_num.h: numeric helpers of the interpreter with the spec's exact semantics
 * (WebAssembly 2.0 section 4.3): NaN handling in min/max, signed zeros, range checks of the
 * trapping and saturating float-to-int conversions. Floats travel as their bit patterns. */
#ifndef SBX_WASM_INTERP_NUM_H
#define SBX_WASM_INTERP_NUM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float f32_of(uint64_t slot)
{
    uint32_t u = (uint32_t)slot;
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static inline double f64_of(uint64_t slot)
{
    double d;
    memcpy(&d, &slot, sizeof(d));
    return d;
}

static inline uint64_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof(u));
    return u;
}

/* Identity conversions so integer ops share the float ops' macros. */
typedef uint32_t u32_t;
typedef uint64_t u64_t;

static inline uint32_t u32_of(uint64_t slot)
{
    return (uint32_t)slot;
}

static inline uint64_t u32_bits(uint32_t v)
{
    return v;
}

static inline uint64_t u64_of(uint64_t slot)
{
    return slot;
}

static inline uint64_t u64_bits(uint64_t v)
{
    return v;
}

/* min/max: a NaN operand gives a NaN (a + b propagates it quieted); -0 is below +0. */
static inline float f32_min(float a, float b)
{
    if (a != a || b != b)
        return a + b;
    if (a == b)
        return signbit(a) ? a : b;
    return a < b ? a : b;
}

static inline float f32_max(float a, float b)
{
    if (a != a || b != b)
        return a + b;
    if (a == b)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}

static inline double f64_min(double a, double b)
{
    if (a != a || b != b)
        return a + b;
    if (a == b)
        return signbit(a) ? a : b;
    return a < b ? a : b;
}

static inline double f64_max(double a, double b)
{
    if (a != a || b != b)
        return a + b;
    if (a == b)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}

/* Range checks for trunc: true when x truncates into the target range (false for NaN). */
static inline int f_fits_i32(double x)
{
    return x > -2147483649.0 && x < 2147483648.0;
}

static inline int f_fits_u32(double x)
{
    return x > -1.0 && x < 4294967296.0;
}

static inline int f_fits_i64(double x)
{
    return x >= -9223372036854775808.0 && x < 9223372036854775808.0;
}

static inline int f_fits_u64(double x)
{
    return x > -1.0 && x < 18446744073709551616.0;
}

static inline uint32_t sat_i32(double x)
{
    if (x != x)
        return 0;
    if (x <= -2147483648.0)
        return 0x80000000u;
    if (x >= 2147483647.0)
        return 0x7FFFFFFFu;
    return (uint32_t)(int32_t)x;
}

static inline uint32_t sat_u32(double x)
{
    if (x != x || x <= 0.0)
        return 0;
    if (x >= 4294967295.0)
        return 0xFFFFFFFFu;
    return (uint32_t)x;
}

static inline uint64_t sat_i64(double x)
{
    if (x != x)
        return 0;
    if (x <= -9223372036854775808.0)
        return 0x8000000000000000u;
    if (x >= 9223372036854775808.0)
        return 0x7FFFFFFFFFFFFFFFu;
    return (uint64_t)(int64_t)x;
}

static inline uint64_t sat_u64(double x)
{
    if (x != x || x <= 0.0)
        return 0;
    if (x >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)x;
}

/* Saturating narrowings for the SIMD lanes. */
static inline int8_t sat_s8(int v)
{
    return (int8_t)(v < INT8_MIN ? INT8_MIN : v > INT8_MAX ? INT8_MAX : v);
}

static inline uint8_t sat_u8(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > UINT8_MAX ? UINT8_MAX : v);
}

static inline int16_t sat_s16(int v)
{
    return (int16_t)(v < INT16_MIN ? INT16_MIN : v > INT16_MAX ? INT16_MAX : v);
}

static inline uint16_t sat_u16(int v)
{
    return (uint16_t)(v < 0 ? 0 : v > UINT16_MAX ? UINT16_MAX : v);
}

static inline uint32_t rotl32(uint32_t a, uint32_t b)
{
    b &= 31;
    return (a << b) | (a >> ((32 - b) & 31));
}

static inline uint32_t rotr32(uint32_t a, uint32_t b)
{
    b &= 31;
    return (a >> b) | (a << ((32 - b) & 31));
}

static inline uint64_t rotl64(uint64_t a, uint64_t b)
{
    b &= 63;
    return (a << b) | (a >> ((64 - b) & 63));
}

static inline uint64_t rotr64(uint64_t a, uint64_t b)
{
    b &= 63;
    return (a >> b) | (a << ((64 - b) & 63));
}

#endif

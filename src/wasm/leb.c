/* wasm/leb.c: LEB128 decoding. One generic loop per signedness, parameterised by bit width;
 * the one-byte case, by far the most common, returns early. */
#include "wasm/leb.h"

static enum wasm_leb_status read_unsigned(const uint8_t **pp, const uint8_t *end, unsigned bits,
                                          uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t value = 0;
    unsigned shift = 0;
    for (;;) {
        if (p >= end) {
            *pp = p;
            return WASM_LEB_END;
        }
        uint8_t byte = *p;
        unsigned left = bits - shift; /* bits still to fill, > 0 */
        if (left < 7) {
            /* The last byte: bits above `left` must be zero (checked first, as the
             * reference interpreter does), and no continuation. */
            if ((byte & 0x7F) >> left) {
                *pp = p;
                return WASM_LEB_TOO_LARGE;
            }
            if (byte & 0x80) {
                *pp = p;
                return WASM_LEB_TOO_LONG;
            }
        }
        value |= (uint64_t)(byte & 0x7F) << shift;
        p++;
        if (!(byte & 0x80))
            break;
        shift += 7;
        if (shift >= bits) {
            *pp = p;
            return WASM_LEB_TOO_LONG;
        }
    }
    *pp = p;
    *out = value;
    return WASM_LEB_OK;
}

static enum wasm_leb_status read_signed(const uint8_t **pp, const uint8_t *end, unsigned bits,
                                        int64_t *out)
{
    const uint8_t *p = *pp;
    /* One or two bytes (every width here holds 14 bits): sign-extended from bit 6 or 13. */
    if (p < end && p[0] < 0x80) {
        *out = (int64_t)((p[0] ^ 0x40u)) - 0x40;
        *pp = p + 1;
        return WASM_LEB_OK;
    }
    if (end - p >= 2 && p[1] < 0x80) {
        *out = (int64_t)(((p[0] & 0x7Fu) | (uint32_t)p[1] << 7) ^ 0x2000u) - 0x2000;
        *pp = p + 2;
        return WASM_LEB_OK;
    }
    uint64_t value = 0;
    unsigned shift = 0;
    uint8_t byte;
    for (;;) {
        if (p >= end) {
            *pp = p;
            return WASM_LEB_END;
        }
        byte = *p;
        unsigned left = bits - shift;
        if (left < 7) {
            /* The last byte: bits from `left - 1` up (the sign bit and the unused bits
             * above it) must be all zeros or all ones. */
            uint8_t top = (uint8_t)((byte & 0x7F) >> (left - 1));
            if (top != 0 && top != (0x7F >> (left - 1))) {
                *pp = p;
                return WASM_LEB_TOO_LARGE;
            }
            if (byte & 0x80) {
                *pp = p;
                return WASM_LEB_TOO_LONG;
            }
        }
        value |= (uint64_t)(byte & 0x7F) << shift;
        shift += 7;
        p++;
        if (!(byte & 0x80))
            break;
        if (shift >= bits) {
            *pp = p;
            return WASM_LEB_TOO_LONG;
        }
    }
    if (shift < 64 && (byte & 0x40))
        value |= ~(uint64_t)0 << shift; /* sign-extend */
    *pp = p;
    *out = (int64_t)value;
    return WASM_LEB_OK;
}

enum wasm_leb_status sbx__wasm_leb_u32(const uint8_t **pp, const uint8_t *end, uint32_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        *out = *p;
        *pp = p + 1;
        return WASM_LEB_OK;
    }
    if (end - p >= 2 && p[1] < 0x80) {
        *out = (p[0] & 0x7Fu) | (uint32_t)p[1] << 7;
        *pp = p + 2;
        return WASM_LEB_OK;
    }
    uint64_t v = 0;
    enum wasm_leb_status st = read_unsigned(pp, end, 32, &v);
    if (st == WASM_LEB_OK)
        *out = (uint32_t)v;
    return st;
}

enum wasm_leb_status sbx__wasm_leb_u64(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        *out = *p;
        *pp = p + 1;
        return WASM_LEB_OK;
    }
    return read_unsigned(pp, end, 64, out);
}

enum wasm_leb_status sbx__wasm_leb_s32(const uint8_t **pp, const uint8_t *end, int32_t *out)
{
    int64_t v = 0;
    enum wasm_leb_status st = read_signed(pp, end, 32, &v);
    if (st == WASM_LEB_OK)
        *out = (int32_t)v;
    return st;
}

enum wasm_leb_status sbx__wasm_leb_s33(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
    return read_signed(pp, end, 33, out);
}

enum wasm_leb_status sbx__wasm_leb_s64(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
    return read_signed(pp, end, 64, out);
}

const char *sbx__wasm_leb_text(enum wasm_leb_status st)
{
    switch (st) {
    case WASM_LEB_OK:
        return "ok";
    case WASM_LEB_END:
        return "unexpected end";
    case WASM_LEB_TOO_LONG:
        return "integer representation too long";
    case WASM_LEB_TOO_LARGE:
        return "integer too large";
    }
    return "bad integer";
}

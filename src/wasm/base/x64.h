/* wasm/base/x64.h: the few x86-64 encodings the baseline tier emits, into a growable buffer.
 * Memory operands are [base + index * scale + disp]; every emitted sequence is position-
 * independent (rel32 branches inside one function only), so code is built here and copied. */
#ifndef SBX_WASM_BASE_X64_H
#define SBX_WASM_BASE_X64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/alloc.h"

enum x64_reg { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };
#define X64_NO_INDEX (-1)

/* Condition codes (the low nibble of jcc / setcc / cmovcc). */
enum x64_cc {
    CC_B = 2,
    CC_AE = 3,
    CC_E = 4,
    CC_NE = 5,
    CC_BE = 6,
    CC_A = 7,
    CC_S = 8,
    CC_L = 0xC,
    CC_GE = 0xD,
    CC_LE = 0xE,
    CC_G = 0xF
};

struct x64_buf {
    uint8_t *p;
    size_t len, cap;
    bool has_failed; /* out of memory: everything after is dropped */
};

static inline bool x64_reserve(struct x64_buf *b, size_t n)
{
    if (b->has_failed)
        return false;
    if (b->len + n <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->len + n)
        cap *= 2;
    uint8_t *p = sbx__reallocn(b->p, cap, 1);
    if (!p) {
        b->has_failed = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

static inline void x64_u8(struct x64_buf *b, uint8_t v)
{
    if (x64_reserve(b, 1))
        b->p[b->len++] = v;
}

static inline void x64_u32(struct x64_buf *b, uint32_t v)
{
    if (x64_reserve(b, 4)) {
        memcpy(b->p + b->len, &v, 4);
        b->len += 4;
    }
}

static inline void x64_u64(struct x64_buf *b, uint64_t v)
{
    if (x64_reserve(b, 8)) {
        memcpy(b->p + b->len, &v, 8);
        b->len += 8;
    }
}

static inline void x64_patch32(struct x64_buf *b, size_t at, uint32_t v)
{
    if (!b->has_failed)
        memcpy(b->p + at, &v, 4);
}

/* Opcode: up to two bytes (0x0F escapes: 0x0FB6), with an optional 0x66 prefix. REX is emitted
 * when w, an extended register, or force (byte access to sil/dil...: unused here) needs it. */
static inline void x64_head(struct x64_buf *b, bool w, unsigned op, unsigned reg, int index,
                            unsigned base, bool is_16)
{
    if (is_16)
        x64_u8(b, 0x66);
    unsigned rex = (w ? 8u : 0u) | ((reg >> 3) & 1u) << 2 |
                   (index >= 0 ? ((unsigned)index >> 3) & 1u : 0u) << 1 | ((base >> 3) & 1u);
    if (rex)
        x64_u8(b, (uint8_t)(0x40 | rex));
    if (op > 0xFF)
        x64_u8(b, (uint8_t)(op >> 8));
    x64_u8(b, (uint8_t)op);
}

/* op reg, [base + index * (1 << scale) + disp] */
static inline void x64_mem(struct x64_buf *b, bool w, unsigned op, unsigned reg, unsigned base,
                           int index, unsigned scale, int32_t disp, bool is_16)
{
    x64_head(b, w, op, reg, index, base, is_16);
    unsigned mod = disp == 0 && (base & 7) != RBP ? 0 : disp >= -128 && disp <= 127 ? 1 : 2;
    if (index >= 0 || (base & 7) == RSP) {
        x64_u8(b, (uint8_t)(mod << 6 | (reg & 7) << 3 | 4));
        unsigned idx = index >= 0 ? (unsigned)index & 7 : 4;
        x64_u8(b, (uint8_t)(scale << 6 | idx << 3 | (base & 7)));
    } else {
        x64_u8(b, (uint8_t)(mod << 6 | (reg & 7) << 3 | (base & 7)));
    }
    if (mod == 1)
        x64_u8(b, (uint8_t)(int8_t)disp);
    else if (mod == 2)
        x64_u32(b, (uint32_t)disp);
}

/* op reg, rm (both registers) */
static inline void x64_rr(struct x64_buf *b, bool w, unsigned op, unsigned reg, unsigned rm)
{
    x64_head(b, w, op, reg, X64_NO_INDEX, rm, false);
    x64_u8(b, (uint8_t)(0xC0 | (reg & 7) << 3 | (rm & 7)));
}

/* mov r32, imm32 (zero-extends) / mov r64, imm64 */
static inline void x64_mov_ri32(struct x64_buf *b, unsigned r, uint32_t imm)
{
    if (r >= 8)
        x64_u8(b, 0x41);
    x64_u8(b, (uint8_t)(0xB8 + (r & 7)));
    x64_u32(b, imm);
}

static inline void x64_mov_ri64(struct x64_buf *b, unsigned r, uint64_t imm)
{
    if (imm <= UINT32_MAX) {
        x64_mov_ri32(b, r, (uint32_t)imm);
        return;
    }
    x64_u8(b, (uint8_t)(0x48 | (r >> 3)));
    x64_u8(b, (uint8_t)(0xB8 + (r & 7)));
    x64_u64(b, imm);
}

/* Group-1 ALU with an immediate: ext 0 add, 1 or, 4 and, 5 sub, 6 xor, 7 cmp. */
static inline void x64_alu_ri(struct x64_buf *b, bool w, unsigned ext, unsigned r, int32_t imm)
{
    if (imm >= -128 && imm <= 127) {
        x64_rr(b, w, 0x83, ext, r);
        x64_u8(b, (uint8_t)(int8_t)imm);
    } else {
        x64_rr(b, w, 0x81, ext, r);
        x64_u32(b, (uint32_t)imm);
    }
}

/* jcc / jmp rel32 to be patched: returns the offset of the rel32 field. */
static inline size_t x64_jcc(struct x64_buf *b, unsigned cc)
{
    x64_u8(b, 0x0F);
    x64_u8(b, (uint8_t)(0x80 | cc));
    x64_u32(b, 0);
    return b->len - 4;
}

static inline size_t x64_jmp(struct x64_buf *b)
{
    x64_u8(b, 0xE9);
    x64_u32(b, 0);
    return b->len - 4;
}

/* Points the rel32 field at 'at' to native offset 'to'. */
static inline void x64_link(struct x64_buf *b, size_t at, size_t to)
{
    x64_patch32(b, at, (uint32_t)(int32_t)((int64_t)to - (int64_t)(at + 4)));
}

#endif

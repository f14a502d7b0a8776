/* wasm/decode_instr.c: reads one instruction (opcode + immediates) into struct wasm_instr,
 * driven by the immediate kind of its opcodes.h row. Checks only the binary format; typing
 * and index ranges are the validator's. */
#include <string.h>

#include "wasm/decode.h"
#include "wasm/leb.h"

/* One-byte fast paths of the reader's byte and u32 reads: most immediates are small. */
static inline bool read_u32(struct wasm_reader *r, uint32_t *out)
{
    if (r->p < r->end && *r->p < 0x80 && !r->is_failed) {
        *out = *r->p++;
        return true;
    }
    return sbx__wasm_rd_u32(r, out);
}

static bool read_fixed(struct wasm_reader *r, void *dst, size_t n)
{
    if (r->is_failed)
        return false;
    if ((size_t)(r->end - r->p) < n) {
        r->p = r->end;
        uint8_t dummy;
        return sbx__wasm_rd_byte(r, &dummy); /* records the right "unexpected end" text */
    }
    memcpy(dst, r->p, n);
    r->p += n;
    return true;
}

static bool read_blocktype(struct wasm_reader *r, struct wasm_instr *in)
{
    if (r->p < r->end) {
        uint8_t b = *r->p;
        if (b == 0x40) {
            r->p++;
            in->bt_kind = WASM_BT_EMPTY;
            return true;
        }
        /* One-byte negative s33s (0x40-0x7F) are value types or malformed; (ref null ht) and
         * (ref ht) start with 0x63/0x64. */
        if (b >= 0x40 && b <= 0x7F) {
            in->bt_kind = WASM_BT_VALTYPE;
            return sbx__wasm_rd_valtype(r, &in->valtype);
        }
    }
    const uint8_t *at = r->p;
    int64_t v = 0;
    enum wasm_leb_status st = sbx__wasm_leb_s33(&r->p, r->end, &v);
    if (st == WASM_LEB_END) {
        uint8_t dummy;
        return sbx__wasm_rd_byte(r, &dummy);
    }
    if (st != WASM_LEB_OK)
        return sbx__wasm_rd_fail(r, r->p, "%s", sbx__wasm_leb_text(st));
    if (v < 0)
        return sbx__wasm_rd_fail(r, at, "malformed block type");
    in->bt_kind = WASM_BT_TYPEIDX;
    in->idx = (uint32_t)v;
    return true;
}

/* memarg (3.0): flags below 0x80, the alignment exponent in bits 0-5, bit 6 set when a
 * memory index follows (multiple memories); then a u64 offset, whose range for 32-bit memories
 * is validation's. */
static bool read_memarg(struct wasm_reader *r, struct wasm_instr *in)
{
    const uint8_t *at = r->p;
    uint32_t flags;
    if (!read_u32(r, &flags))
        return false;
    if (flags >= 0x80)
        return sbx__wasm_rd_fail(r, at, "malformed memop flags");
    in->align = flags & 0x3F;
    in->idx = 0;
    if ((flags & 0x40) && !read_u32(r, &in->idx))
        return false;
    if (r->p < r->end && *r->p < 0x80 && !r->is_failed) {
        in->offset = *r->p++;
        return true;
    }
    return sbx__wasm_rd_u64(r, &in->offset);
}

static bool read_br_table(struct wasm_reader *r, struct wasm_instr *in)
{
    if (!sbx__wasm_rd_count(r, 1, &in->count))
        return false;
    in->targets = r->p;
    for (uint32_t i = 0; i < in->count; i++) {
        uint32_t label;
        if (!read_u32(r, &label))
            return false;
    }
    return read_u32(r, &in->idx);
}

static bool read_select_t(struct wasm_reader *r, struct wasm_instr *in)
{
    if (!sbx__wasm_rd_count(r, 1, &in->count))
        return false;
    in->valtype = 0;
    for (uint32_t i = 0; i < in->count; i++) {
        wasm_vtype t;
        if (!sbx__wasm_rd_valtype(r, &t))
            return false;
        if (i == 0)
            in->valtype = t;
    }
    return true;
}

/* br_on_cast's flags (bit 0: the source type is nullable, bit 1: the target), label and two
 * heap types. */
static bool read_br_on_cast(struct wasm_reader *r, struct wasm_instr *in)
{
    const uint8_t *at = r->p;
    uint8_t flags;
    uint32_t ht1, ht2;
    if (!sbx__wasm_rd_byte(r, &flags))
        return false;
    if (flags > 3)
        return sbx__wasm_rd_fail(r, at, "malformed br_on_cast flags");
    if (!read_u32(r, &in->idx) || !sbx__wasm_rd_heaptype(r, &ht1) ||
        !sbx__wasm_rd_heaptype(r, &ht2))
        return false;
    in->valtype = WASM_REF(flags & 1, ht1);
    in->valtype2 = WASM_REF(flags & 2, ht2);
    return true;
}

/* One catch clause: kind byte, a tag for catch/catch_ref, a label. */
static bool read_catch(struct wasm_reader *r, struct wasm_catch *c)
{
    const uint8_t *at = r->p;
    if (!sbx__wasm_rd_byte(r, &c->kind))
        return false;
    if (c->kind > WASM_CATCH_ALL_REF)
        return sbx__wasm_rd_fail(r, at, "malformed catch clause");
    c->tag = 0;
    if (c->kind <= WASM_CATCH_REF && !read_u32(r, &c->tag))
        return false;
    return read_u32(r, &c->label);
}

static bool read_try_table(struct wasm_reader *r, struct wasm_instr *in)
{
    if (!read_blocktype(r, in) || !sbx__wasm_rd_count(r, 2, &in->count))
        return false;
    in->targets = r->p;
    for (uint32_t i = 0; i < in->count; i++) {
        struct wasm_catch c;
        if (!read_catch(r, &c))
            return false;
    }
    return true;
}

struct wasm_catch sbx__wasm_catch_next(const struct wasm_instr *in, const uint8_t **cursor)
{
    struct wasm_catch c = {0};
    if (*cursor == NULL)
        *cursor = in->targets;
    /* read_try_table found count well-formed clauses there */
    c.kind = *(*cursor)++;
    if (c.kind <= WASM_CATCH_REF)
        sbx__wasm_leb_u32(cursor, *cursor + 5, &c.tag);
    sbx__wasm_leb_u32(cursor, *cursor + 5, &c.label);
    return c;
}

static bool read_float(struct wasm_reader *r, struct wasm_instr *in, size_t n)
{
    uint8_t b[8];
    if (!read_fixed(r, b, n))
        return false;
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = (v << 8) | b[i]; /* little-endian */
    in->value = v;
    return true;
}

static bool read_imm(struct wasm_reader *r, struct wasm_instr *in, uint8_t kind)
{
    int32_t s32;
    int64_t s64;
    switch (kind) {
    case WASM_IMM_NONE:
        return true;
    case WASM_IMM_BLOCK:
        return read_blocktype(r, in);
    case WASM_IMM_LABEL:
    case WASM_IMM_FUNC:
    case WASM_IMM_LOCAL:
    case WASM_IMM_GLOBAL:
    case WASM_IMM_TABLE:
    case WASM_IMM_DATA:
    case WASM_IMM_ELEM:
        return read_u32(r, &in->idx);
    case WASM_IMM_BR_TABLE:
        return read_br_table(r, in);
    case WASM_IMM_CALL_INDIRECT:
    case WASM_IMM_ELEM_TABLE:
    case WASM_IMM_TABLE_TABLE:
        return read_u32(r, &in->idx) && read_u32(r, &in->idx2);
    case WASM_IMM_MEMARG:
        return read_memarg(r, in);
    case WASM_IMM_MEMIDX:
        return read_u32(r, &in->idx);
    case WASM_IMM_I32:
        if (!sbx__wasm_rd_s32(r, &s32))
            return false;
        in->value = (uint64_t)(int64_t)s32;
        return true;
    case WASM_IMM_I64:
        if (!sbx__wasm_rd_s64(r, &s64))
            return false;
        in->value = (uint64_t)s64;
        return true;
    case WASM_IMM_F32:
        return read_float(r, in, 4);
    case WASM_IMM_F64:
        return read_float(r, in, 8);
    case WASM_IMM_V128:
    case WASM_IMM_SHUFFLE:
        return read_fixed(r, in->bytes, 16);
    case WASM_IMM_SELECT_T:
        return read_select_t(r, in);
    case WASM_IMM_HEAPTYPE: {
        uint32_t ht;
        if (!sbx__wasm_rd_heaptype(r, &ht))
            return false;
        in->valtype = WASM_REF(1, ht);
        return true;
    }
    case WASM_IMM_TYPE:
    case WASM_IMM_TAG:
        return read_u32(r, &in->idx);
    case WASM_IMM_TYPE_FIELD:
    case WASM_IMM_TYPE_COUNT:
    case WASM_IMM_TYPE_DATA:
    case WASM_IMM_TYPE_ELEM:
    case WASM_IMM_TYPE_TYPE:
        return read_u32(r, &in->idx) && read_u32(r, &in->idx2);
    case WASM_IMM_BR_ON_CAST:
        return read_br_on_cast(r, in);
    case WASM_IMM_TRY_TABLE:
        return read_try_table(r, in);
    case WASM_IMM_DATA_MEM:
        return read_u32(r, &in->idx) && read_u32(r, &in->idx2);
    case WASM_IMM_MEM_MEM:
        return read_u32(r, &in->idx) && read_u32(r, &in->idx2);
    case WASM_IMM_LANE:
        return sbx__wasm_rd_byte(r, &in->lane);
    case WASM_IMM_MEMARG_LANE:
        return read_memarg(r, in) && sbx__wasm_rd_byte(r, &in->lane);
    default:
        return sbx__wasm_rd_fail(r, r->p, "illegal opcode");
    }
}

bool sbx__wasm_read_instr_slow(struct wasm_reader *r, struct wasm_instr *in)
{
    const uint8_t *at = r->p;
    uint8_t b;
    if (r->p < r->end && !r->is_failed)
        b = *r->p++;
    else if (!sbx__wasm_rd_byte(r, &b))
        return false;
    uint32_t id = b;
    if (b == 0xFB || b == 0xFC || b == 0xFD) {
        uint32_t sub;
        if (!sbx__wasm_rd_u32(r, &sub))
            return false;
        if (sub > (b == 0xFD ? WASM_OP_MAX_SUB : 0xFFu))
            return sbx__wasm_rd_fail(r, at, "illegal opcode");
        id = WASM_OP_ID(b, sub);
    }
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[id];
    if (info->text == NULL)
        return sbx__wasm_rd_fail(r, at, "illegal opcode");
    in->op = (uint16_t)id;
    in->offset_in_module = (uint32_t)(at - r->base);
    return info->imm == WASM_IMM_NONE || read_imm(r, in, info->imm);
}

uint32_t sbx__wasm_br_label(const struct wasm_instr *in, const uint8_t **cursor)
{
    uint32_t depth = 0;
    if (*cursor == NULL)
        *cursor = in->targets;
    /* read_br_table found count well-formed labels ending at or before the default's bytes */
    sbx__wasm_leb_u32(cursor, *cursor + 5, &depth);
    return depth;
}

void sbx__wasm_local_types(const struct wasm_func_def *def, wasm_vtype *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < def->run_count; i++)
        for (; k < def->local_runs[i].end; k++)
            out[k] = def->local_runs[i].type;
}

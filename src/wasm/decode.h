/* wasm/decode.h: the binary reader shared by the decoder, the validator and the compiler:
 * a bounded cursor that records the first error as "malformed: <reason> at offset N", and
 * an instruction reader driven by opcodes.h. Not visible outside src/wasm/. */
#ifndef SBX_WASM_DECODE_H
#define SBX_WASM_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sbx/error.h>

#include "wasm/module.h"
#include "wasm/opcodes.h"

/* A cursor over [p, end) inside the module [base, file_end). The first failure is written to
 * err; is_failed stays set so later calls are no-ops that return false. */
struct wasm_reader {
    const uint8_t *base;
    const uint8_t *file_end;
    const uint8_t *p;
    const uint8_t *end;
    char *err;
    size_t errlen;
    bool is_failed;
    bool is_in_section; /* running out of bytes is then "unexpected end of section ..." */
    const struct wasm_load_guard *guard; /* polled by sbx__wasm_rd_room; NULL = none */
    uint32_t ticks; /* work left before the guard's next poll (sbx__wasm_guard_poll) */
};

/* guard.c: work between two looks at the clock and the stop flag (a power of two). */
#define GUARD_PERIOD 4096u
/* Returns SBX_OK, SBX_E_TIMEOUT past the deadline, or the stop flag's code. g may be NULL. */
sbx_err sbx__wasm_guard_check(const struct wasm_load_guard *g);
/* Counts one unit of work down in *left (start it at GUARD_PERIOD); when a period is used up,
 * true if the load must stop. Inline, and *left best a local: the validator and compiler call
 * it once per instruction, where it costs a decrement and a branch. */
static inline bool sbx__wasm_guard_poll(const struct wasm_load_guard *g, uint32_t *left)
{
    if (__builtin_expect(--*left != 0, 1))
        return false;
    *left = GUARD_PERIOD;
    return g != NULL && sbx__wasm_guard_check(g) != SBX_OK;
}

/* Records "malformed: <fmt> at offset <at - base>" unless an error is already recorded.
 * Returns false so callers can `return sbx__wasm_rd_fail(...)`. */
bool sbx__wasm_rd_fail(struct wasm_reader *r, const uint8_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with the "invalid: " prefix (and no offset when at is NULL). */
bool sbx__wasm_rd_invalid(struct wasm_reader *r, const uint8_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same with the "implementation limit: " prefix (a limit of limits.h was exceeded). */
bool sbx__wasm_rd_limit(struct wasm_reader *r, const uint8_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Any prefix ("unsupported", ...); returns false. */
bool sbx__wasm_rd_record(struct wasm_reader *r, const char *prefix, const uint8_t *at,
                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "unsupported: <what> needs <feature> (WebAssembly 3.0), not supported yet": a module using a
 * 3.0 proposal sbx does not run yet (sbx__wasm_feature_on). */
bool sbx__wasm_rd_unsupported(struct wasm_reader *r, const uint8_t *at, unsigned feature,
                              const char *what);

bool sbx__wasm_rd_byte(struct wasm_reader *r, uint8_t *out);
bool sbx__wasm_rd_u32(struct wasm_reader *r, uint32_t *out);
bool sbx__wasm_rd_s32(struct wasm_reader *r, int32_t *out);
bool sbx__wasm_rd_s64(struct wasm_reader *r, int64_t *out);
bool sbx__wasm_rd_u64(struct wasm_reader *r, uint64_t *out);
/* Reads a vector length and checks that count elements of at least min_size bytes each can
 * fit in what is left. */
bool sbx__wasm_rd_count(struct wasm_reader *r, uint32_t min_size, uint32_t *out);
/* Reads a vector length *count; *cap is how many elements the caller may need room for:
 * count, or fewer when count elements of at least min_size bytes cannot fit in what is left
 * (reading them then fails before element *cap). So no count allocates more than the input
 * justifies, while the error is still found where the spec's decoder finds it. */
bool sbx__wasm_rd_vec(struct wasm_reader *r, uint32_t min_size, uint32_t *count, uint32_t *cap);
/* Fails with "unexpected end ..." when element i would pass the room *cap gave, and when the
 * reader's guard says stop. */
bool sbx__wasm_rd_room(struct wasm_reader *r, uint32_t i, uint32_t cap);
/* Reads a name (u32 length + UTF-8 bytes); *out points into the input. */
bool sbx__wasm_rd_name(struct wasm_reader *r, const uint8_t **out, uint32_t *len);
/* Value, reference and heap types in their 3.0 encodings; a type index is not range-checked
 * (validation's "unknown type"). */
bool sbx__wasm_rd_valtype(struct wasm_reader *r, wasm_vtype *out);
bool sbx__wasm_rd_reftype(struct wasm_reader *r, wasm_vtype *out);
bool sbx__wasm_rd_heaptype(struct wasm_reader *r, uint32_t *out);
/* Returns true if [s, s + len) is well-formed UTF-8 (no overlongs, surrogates, > U+10FFFF). */
bool sbx__wasm_utf8_valid(const uint8_t *s, size_t len);

/* Block types: empty, one value type, or a type index. */
enum wasm_blocktype_kind { WASM_BT_EMPTY = 0, WASM_BT_VALTYPE, WASM_BT_TYPEIDX };

/* One decoded instruction. Fields used depend on sbx__wasm_opinfo[op].imm:
 *   LABEL/FUNC/LOCAL/GLOBAL/TABLE/DATA/ELEM: idx;  CALL_INDIRECT: idx = type, idx2 = table
 *   ELEM_TABLE: idx = elem, idx2 = table;  TABLE_TABLE: idx = dst, idx2 = src
 *   DATA_MEM: idx = data, idx2 = memory;  MEM_MEM: idx = destination memory, idx2 = source
 *   MEMIDX: idx = memory;  BLOCK: bt_kind, and valtype or idx (type index)
 *   BR_TABLE: count labels at targets (LEB u32s, then the default label in idx)
 *   MEMARG: align, offset, idx = memory;  MEMARG_LANE: the same and lane;  LANE: lane
 *   I32/I64: value (sign-extended into 64 bits);  F32/F64: value holds the raw bits
 *   V128/SHUFFLE: bytes;  SELECT_T: count types, the first in valtype
 *   HEAPTYPE: valtype = (ref null ht);  TYPE/TAG: idx;  TYPE_FIELD/COUNT/DATA/ELEM/TYPE: idx =
 *   type, idx2 = field, count, data, elem or source type;  BR_ON_CAST: idx = label, valtype and
 *   valtype2 the two reference types (nullability from the flags);  TRY_TABLE: the block type
 *   as BLOCK, count catch clauses at targets (sbx__wasm_catch_next) */
struct wasm_instr {
    uint16_t op; /* enum wasm_op */
    uint8_t bt_kind;
    uint8_t lane;
    wasm_vtype valtype;
    wasm_vtype valtype2;
    uint32_t offset_in_module; /* where the opcode starts */
    uint32_t idx;
    uint32_t idx2;
    uint32_t align;
    uint64_t offset;
    uint32_t count;
    const uint8_t *targets;
    uint64_t value;
    uint8_t bytes[16];
};

/* Reads one instruction at r->p. Returns false with a malformed message on a bad opcode or
 * immediate ("illegal opcode", "zero byte expected", "malformed memop flags", ...). The only
 * reader of instruction immediates: the validator, both translators and the local scan use it.
 * Inline for the one-byte opcodes without immediates (most of any body). */
bool sbx__wasm_read_instr_slow(struct wasm_reader *r, struct wasm_instr *in);
static inline bool sbx__wasm_read_instr(struct wasm_reader *r, struct wasm_instr *in)
{
    if (__builtin_expect(r->p < r->end && !r->is_failed, 1)) {
        uint8_t b = r->p[0];
        const struct wasm_opinfo *info = &sbx__wasm_opinfo[b];
        if (__builtin_expect(info->text == NULL, 0))
            return sbx__wasm_read_instr_slow(r, in);
        in->op = b;
        in->offset_in_module = (uint32_t)(r->p - r->base);
        if (info->imm == WASM_IMM_NONE) {
            r->p++;
            return true;
        }
        /* One-byte index and constant immediates: the LEB is its byte (sign-extended for i32). */
        if (r->end - r->p >= 2 && r->p[1] < 0x80) {
            uint8_t k = r->p[1];
            switch (info->imm) {
            case WASM_IMM_LOCAL:
            case WASM_IMM_LABEL:
            case WASM_IMM_GLOBAL:
            case WASM_IMM_FUNC:
                in->idx = k;
                r->p += 2;
                return true;
            case WASM_IMM_I32:
            case WASM_IMM_I64:
                in->value = (uint64_t)((int64_t)(int8_t)(uint8_t)(k << 1) / 2); /* exact */
                r->p += 2;
                return true;
            default:
                break;
            }
        }
    }
    return sbx__wasm_read_instr_slow(r, in);
}

/* Returns the next label of a br_table read by sbx__wasm_read_instr (its in->count labels,
 * then in->idx is the default). *cursor starts NULL and is advanced by each call. */
uint32_t sbx__wasm_br_label(const struct wasm_instr *in, const uint8_t **cursor);

/* try_table's catch clauses: kind (enum wasm_catch_kind), tag (catch, catch_ref) and label. */
enum wasm_catch_kind { WASM_CATCH = 0, WASM_CATCH_REF, WASM_CATCH_ALL, WASM_CATCH_ALL_REF };
struct wasm_catch {
    uint8_t kind;
    uint32_t tag;
    uint32_t label;
};
/* Returns the next catch clause of a try_table read by sbx__wasm_read_instr (in->count of
 * them); *cursor starts NULL and is advanced by each call. */
struct wasm_catch sbx__wasm_catch_next(const struct wasm_instr *in, const uint8_t **cursor);

/* Decodes m->bytes (m->len) into m. On failure returns SBX_E_WASM_INVALID_MODULE (message in
 * err) or SBX_E_NOMEM; m then holds partial state that sbx__wasm_module_clear() frees. */
sbx_err sbx__wasm_decode(struct wasm_module *m, char *err, size_t errlen);

/* Validates a decoded module (2.0 typing rules), fills m->func_is_declared. */
sbx_err sbx__wasm_validate(struct wasm_module *m, char *err, size_t errlen);

/* Writes the types of def's declared locals (local_count of them) to out. */
void sbx__wasm_local_types(const struct wasm_func_def *def, wasm_vtype *out);

/* Frees everything the decoder and validator allocated in m (not m->bytes or m itself). */
void sbx__wasm_module_clear(struct wasm_module *m);

#endif

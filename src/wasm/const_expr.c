/* wasm/const_expr.c: constant expressions longer than one instruction (3.0's extended
 * constant expressions: i32/i64 add, sub and mul over constants and globals), kept as their
 * code (WASM_INIT_EXPR): type-checked by a small stack checker at validation and evaluated by
 * a small stack machine at instantiation. One-instruction expressions, nearly all of them,
 * keep their pre-decoded forms (decode_segs.c). Reads instructions only through the decoder. */
#include <string.h>

#include "util/alloc.h"
#include "wasm/const_expr.h"
#include "wasm/gc_ops.h"

#define CONST_DEPTH 64 /* operand stack of one expression; deeper ones are refused */

bool sbx__wasm_const_instr(uint16_t op)
{
    switch (op) {
    case WASM_OP_I32_CONST:
    case WASM_OP_I64_CONST:
    case WASM_OP_F32_CONST:
    case WASM_OP_F64_CONST:
    case WASM_OP_V128_CONST:
    case WASM_OP_GLOBAL_GET:
    case WASM_OP_REF_NULL:
    case WASM_OP_REF_FUNC:
    case WASM_OP_I32_ADD:
    case WASM_OP_I32_SUB:
    case WASM_OP_I32_MUL:
    case WASM_OP_I64_ADD:
    case WASM_OP_I64_SUB:
    case WASM_OP_I64_MUL:
    case WASM_OP_STRUCT_NEW: /* GC */
    case WASM_OP_STRUCT_NEW_DEFAULT:
    case WASM_OP_ARRAY_NEW:
    case WASM_OP_ARRAY_NEW_DEFAULT:
    case WASM_OP_ARRAY_NEW_FIXED:
    case WASM_OP_REF_I31:
    case WASM_OP_ANY_CONVERT_EXTERN:
    case WASM_OP_EXTERN_CONVERT_ANY:
        return true;
    default:
        return false;
    }
}

static struct wasm_reader reader_of(const struct wasm_module *m, const struct wasm_init *e)
{
    return (struct wasm_reader){.base = m->bytes,
                                .file_end = m->bytes + m->len,
                                .p = e->code,
                                .end = e->code + e->code_len};
}

/* Pops want (or a subtype) from t[*n]; false when it is not there. */
static bool pop_one(const struct wasm_module *m, const wasm_vtype *t, uint32_t *n, wasm_vtype want)
{
    if (*n == 0)
        return false;
    wasm_vtype have = t[*n - 1];
    if (have != want &&
        !(wasm_vtype_is_ref(have) && wasm_vtype_is_ref(want) && sbx__wasm_vtype_sub(m, have, want)))
        return false;
    (*n)--;
    return true;
}

static wasm_vtype unpacked(wasm_vtype t)
{
    return t == WASM_PACKED_I8 || t == WASM_PACKED_I16 ? WASM_I32 : t;
}

/* The GC constant instructions: the type pushed, or 0. */
static wasm_vtype check_gc(const struct wasm_module *m, const struct wasm_instr *in, wasm_vtype *t,
                           uint32_t *n, const char **why)
{
    bool nullable = false;
    if (in->op == WASM_OP_REF_I31)
        return pop_one(m, t, n, WASM_I32) ? WASM_REF(0, WASM_HT_I31) : 0;
    if (in->op == WASM_OP_ANY_CONVERT_EXTERN || in->op == WASM_OP_EXTERN_CONVERT_ANY) {
        bool to_any = in->op == WASM_OP_ANY_CONVERT_EXTERN;
        if (*n == 0)
            return 0;
        nullable = wasm_vtype_is_nullable(t[*n - 1]);
        if (!pop_one(m, t, n, WASM_REF(1, to_any ? WASM_HT_EXTERN : WASM_HT_ANY)))
            return 0;
        return WASM_REF(nullable, to_any ? WASM_HT_ANY : WASM_HT_EXTERN);
    }
    uint8_t kind = in->op == WASM_OP_STRUCT_NEW || in->op == WASM_OP_STRUCT_NEW_DEFAULT
                       ? WASM_COMP_STRUCT
                       : WASM_COMP_ARRAY;
    if (in->idx >= m->type_count || m->typedefs[in->idx].kind != kind) {
        *why = "unknown type";
        return 0;
    }
    const struct wasm_typedef *td = &m->typedefs[in->idx];
    switch (in->op) {
    case WASM_OP_STRUCT_NEW:
        for (uint32_t i = td->field_count; i-- > 0;)
            if (!pop_one(m, t, n, unpacked(td->fields[i].type)))
                return 0;
        break;
    case WASM_OP_ARRAY_NEW:
        if (!pop_one(m, t, n, WASM_I32) || !pop_one(m, t, n, unpacked(td->fields[0].type)))
            return 0;
        break;
    case WASM_OP_ARRAY_NEW_DEFAULT:
        if (!pop_one(m, t, n, WASM_I32))
            return 0;
        break;
    case WASM_OP_ARRAY_NEW_FIXED:
        for (uint32_t i = 0; i < in->idx2; i++)
            if (!pop_one(m, t, n, unpacked(td->fields[0].type)))
                return 0;
        break;
    default: /* STRUCT_NEW_DEFAULT */
        break;
    }
    if (in->op == WASM_OP_STRUCT_NEW_DEFAULT || in->op == WASM_OP_ARRAY_NEW_DEFAULT) {
        for (uint32_t i = 0; i < td->field_count; i++) {
            wasm_vtype ft = td->fields[i].type;
            if (wasm_vtype_is_ref(ft) && !wasm_vtype_is_nullable(ft))
                return 0;
        }
    }
    return WASM_REF(0, in->idx);
}

/* The type an instruction pushes, popping its operands from t[*n]; 0 when it does not fit. */
static wasm_vtype check_one(const struct wasm_module *m, const struct wasm_instr *in, wasm_vtype *t,
                            uint32_t *n, uint32_t max_global, const char **why)
{
    const struct wasm_siginfo *sig = &sbx__wasm_siginfo[sbx__wasm_opinfo[in->op].sig];
    switch (in->op) {
    case WASM_OP_GLOBAL_GET:
        if (in->idx >= max_global) {
            *why = "unknown global";
            return 0;
        }
        if (m->globals[in->idx].is_mutable) {
            *why = "constant expression required";
            return 0;
        }
        return m->globals[in->idx].type;
    case WASM_OP_REF_NULL:
        if (!wasm_heap_is_abstract(wasm_vtype_heap(in->valtype)) &&
            wasm_vtype_heap(in->valtype) >= m->type_count) {
            *why = "unknown type";
            return 0;
        }
        return in->valtype;
    case WASM_OP_REF_FUNC:
        if (in->idx >= m->func_count) {
            *why = "unknown function";
            return 0;
        }
        return WASM_REF(0, m->func_type_idx[in->idx]);
    default: /* constants and binary operators: the table's signature */
        if (sbx__wasm_opinfo[in->op].feature == WASM_FEAT_GC)
            return check_gc(m, in, t, n, why);
        if (*n < sig->param_count)
            return 0;
        for (uint32_t i = 0; i < sig->param_count; i++)
            if (t[*n - sig->param_count + i] != sig->params[i])
                return 0;
        *n -= sig->param_count;
        return sig->result;
    }
}

bool sbx__wasm_const_validate(const struct wasm_module *m, const struct wasm_init *e,
                              uint32_t max_global, wasm_vtype *type, const char **why)
{
    struct wasm_reader r = reader_of(m, e);
    wasm_vtype t[CONST_DEPTH];
    uint32_t n = 0;
    struct wasm_instr in;
    *why = "type mismatch";
    while (r.p < r.end) {
        if (!sbx__wasm_read_instr(&r, &in)) /* decoded once already */
            return false;
        if (!sbx__wasm_const_instr(in.op)) {
            *why = "constant expression required";
            return false;
        }
        wasm_vtype out = check_one(m, &in, t, &n, max_global, why);
        if (out == 0)
            return false;
        if (n == CONST_DEPTH) {
            *why = "implementation limit: constant expression too deep";
            return false;
        }
        t[n++] = out;
    }
    if (n != 1)
        return false;
    *type = t[0];
    return true;
}

void sbx__wasm_const_refs(const struct wasm_module *m, const struct wasm_init *e, bool *declared)
{
    struct wasm_reader r = reader_of(m, e);
    struct wasm_instr in;
    while (r.p < r.end && sbx__wasm_read_instr(&r, &in))
        if (in.op == WASM_OP_REF_FUNC && in.idx < m->func_count)
            declared[in.idx] = true;
}

/* Values v[0..count) as 64-bit slots (two for a v128, per storage type st or types[i]). */
static uint32_t to_slots(const wasm_value *v, uint32_t count, const wasm_vtype *types, bool same,
                         uint64_t *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < count; i++) {
        wasm_vtype t = types[same ? 0 : i];
        memcpy(out + k, &v[i], t == WASM_V128 ? 16 : 8);
        k += t == WASM_V128 ? 2 : 1;
    }
    return k;
}

/* The GC constant instructions (allocation may fail: *tk). */
static wasm_value eval_gc(const struct wasm_instance *inst, const struct wasm_instr *in,
                          wasm_value *v, uint32_t *n, enum wasm_trap_kind *tk)
{
    struct wasm_store *s = inst->store;
    wasm_value r;
    memset(&r, 0, sizeof(r));
    uint64_t slots[2 * CONST_DEPTH], out = 0;
    enum wasm_trap_kind k = WASM_TRAP_NONE;
    const struct wasm_rtt *rtt =
        in->idx < inst->module->type_count ? inst->module->rtts[in->idx] : NULL;
    switch (in->op) {
    case WASM_OP_REF_I31:
        r.i64 = ((uint64_t)(v[--*n].i32 & 0x7FFFFFFFu) << 1) | 1u;
        return r;
    case WASM_OP_ANY_CONVERT_EXTERN:
        r.i64 = sbx__wasm_gc_internalize(s, v[--*n].i64, &k);
        break;
    case WASM_OP_EXTERN_CONVERT_ANY:
        r.i64 = sbx__wasm_gc_externalize(s, v[--*n].i64, &k);
        break;
    case WASM_OP_STRUCT_NEW:
        *n -= rtt->field_count;
        to_slots(v + *n, rtt->field_count, rtt->types, false, slots);
        k = sbx__wasm_gc_struct_new(s, rtt, slots, &out);
        break;
    case WASM_OP_STRUCT_NEW_DEFAULT:
        k = sbx__wasm_gc_struct_new(s, rtt, NULL, &out);
        break;
    case WASM_OP_ARRAY_NEW:
        *n -= 2;
        to_slots(v + *n, 1, rtt->types, true, slots);
        k = sbx__wasm_gc_array_new(s, rtt, slots, v[*n + 1].i32, &out);
        break;
    case WASM_OP_ARRAY_NEW_DEFAULT:
        k = sbx__wasm_gc_array_new(s, rtt, NULL, v[--*n].i32, &out);
        break;
    default: /* ARRAY_NEW_FIXED */
        *n -= in->idx2;
        to_slots(v + *n, in->idx2, rtt->types, true, slots);
        k = sbx__wasm_gc_array_new_fixed(s, rtt, slots, in->idx2, &out);
        break;
    }
    if (in->op != WASM_OP_ANY_CONVERT_EXTERN && in->op != WASM_OP_EXTERN_CONVERT_ANY)
        r.i64 = out;
    if (k != WASM_TRAP_NONE)
        *tk = k;
    return r;
}

/* Applies one validated instruction to the value stack v[*n]. */
static void eval_one(const struct wasm_instance *inst, const struct wasm_instr *in, wasm_value *v,
                     uint32_t *n, enum wasm_trap_kind *tk)
{
    wasm_value r;
    memset(&r, 0, sizeof(r));
    if (sbx__wasm_opinfo[in->op].feature == WASM_FEAT_GC) {
        r = eval_gc(inst, in, v, n, tk);
        v[(*n)++] = r;
        return;
    }
    wasm_value *a = *n >= 2 ? &v[*n - 2] : v, *b = *n >= 1 ? &v[*n - 1] : v;
    switch (in->op) {
    case WASM_OP_I32_CONST:
    case WASM_OP_F32_CONST:
        r.i32 = (uint32_t)in->value;
        break;
    case WASM_OP_I64_CONST:
    case WASM_OP_F64_CONST:
        r.i64 = in->value;
        break;
    case WASM_OP_V128_CONST:
        memcpy(r.v128, in->bytes, 16);
        break;
    case WASM_OP_GLOBAL_GET:
        r = inst->globals[in->idx]->value;
        break;
    case WASM_OP_REF_FUNC:
        r.ref = inst->funcs[in->idx];
        break;
    case WASM_OP_REF_NULL:
        break;
    default: { /* the binary operators: integers wrap, as their instructions do */
        uint64_t x = a->i64, y = b->i64;
        bool is32 = in->op <= WASM_OP_I32_MUL;
        uint64_t z = in->op == WASM_OP_I32_ADD || in->op == WASM_OP_I64_ADD   ? x + y
                     : in->op == WASM_OP_I32_SUB || in->op == WASM_OP_I64_SUB ? x - y
                                                                              : x * y;
        *n -= 2;
        if (is32)
            r.i32 = (uint32_t)z;
        else
            r.i64 = z;
        break;
    }
    }
    v[(*n)++] = r;
}

wasm_value sbx__wasm_const_eval(const struct wasm_instance *inst, const struct wasm_init *e,
                                enum wasm_trap_kind *tk)
{
    struct wasm_reader r = reader_of(inst->module, e);
    wasm_value v[CONST_DEPTH];
    uint32_t n = 0;
    struct wasm_instr in;
    memset(v, 0, sizeof(v));
    while (r.p < r.end && n < CONST_DEPTH && *tk == WASM_TRAP_NONE && sbx__wasm_read_instr(&r, &in))
        eval_one(inst, &in, v, &n, tk);
    return v[0];
}

/* wasm/validate_gc.c: type checking of the GC instructions (3.0 "Aggregate reference
 * instructions", "Reference instructions"): structs, arrays, casts and br_on_cast*, i31,
 * any/extern conversions, ref.eq. Heap types are the module's (type indices or WASM_HT_*). */
#include "wasm/opcodes.h"
#include "wasm/validate_internal.h"

/* Type index x defines a composite type of kind; else "unknown type" / a mismatch. */
static const struct wasm_typedef *type_of(struct vfunc *v, uint32_t x, uint8_t kind)
{
    if (x >= v->m->type_count) {
        sbx__wasm_v_fail_idx(v, "type", x);
        return NULL;
    }
    if (v->m->typedefs[x].kind != kind) {
        sbx__wasm_v_fail(v, "type mismatch");
        return NULL;
    }
    return &v->m->typedefs[x];
}

static wasm_vtype unpacked(wasm_vtype t)
{
    return t == WASM_PACKED_I8 || t == WASM_PACKED_I16 ? WASM_I32 : t;
}

static bool is_packed(wasm_vtype t)
{
    return t == WASM_PACKED_I8 || t == WASM_PACKED_I16;
}

/* A field may be read by get (is_signed ignored) or get_s/get_u (has_sign): packed fields
 * need the sign, others must not have it. */
static bool check_get(struct vfunc *v, wasm_vtype st, bool has_sign)
{
    return is_packed(st) == has_sign || sbx__wasm_v_fail(v, "type mismatch");
}

static bool defaultable(const struct wasm_typedef *td)
{
    for (uint32_t i = 0; i < td->field_count; i++) {
        wasm_vtype t = td->fields[i].type;
        if (wasm_vtype_is_ref(t) && !wasm_vtype_is_nullable(t))
            return false;
    }
    return true;
}

/* The top of the hierarchy of one of the module's heap types. */
static uint32_t heap_top(const struct wasm_module *m, uint32_t ht)
{
    if (!wasm_heap_is_abstract(ht))
        return m->typedefs[ht].kind == WASM_COMP_FUNC ? WASM_HT_FUNC : WASM_HT_ANY;
    return sbx__wasm_cheap_top(ht);
}

/* Pops a reference of the hierarchy whose top is top (any value of it fits a cast). */
static bool pop_in(struct vfunc *v, uint32_t top, wasm_vtype *out)
{
    if (!sbx__wasm_v_pop_any(v, out))
        return false;
    if (*out == VAL_UNKNOWN) {
        *out = WASM_REF(1, WASM_HT_BOT);
        return true;
    }
    return (wasm_vtype_is_ref(*out) && vsub(v, *out, WASM_REF(1, top))) ||
           sbx__wasm_v_fail(v, "type mismatch");
}

static bool need_data(struct vfunc *v, uint32_t idx)
{
    if (!v->m->has_data_count_section)
        return sbx__wasm_v_fail(v, "data count section required");
    return idx < v->m->data_count || sbx__wasm_v_fail_idx(v, "data segment", idx);
}

/* Element segment idx's type fits an array of element storage type st. */
static bool elem_fits(struct vfunc *v, uint32_t idx, wasm_vtype st)
{
    if (idx >= v->m->elem_count)
        return sbx__wasm_v_fail_idx(v, "elem segment", idx);
    return vsub(v, v->m->elems[idx].elem_type, st) || sbx__wasm_v_fail(v, "type mismatch");
}

static bool op_struct(struct vfunc *v, const struct wasm_instr *in)
{
    const struct wasm_typedef *td = type_of(v, in->idx, WASM_COMP_STRUCT);
    if (!td)
        return false;
    wasm_vtype self = WASM_REF(1, in->idx);
    switch (in->op) {
    case WASM_OP_STRUCT_NEW:
        for (uint32_t i = td->field_count; i-- > 0;) {
            if (!vpop(v, unpacked(td->fields[i].type)))
                return false;
        }
        return vpush(v, WASM_REF(0, in->idx));
    case WASM_OP_STRUCT_NEW_DEFAULT:
        if (!defaultable(td))
            return sbx__wasm_v_fail(v, "type mismatch");
        return vpush(v, WASM_REF(0, in->idx));
    default:
        break;
    }
    if (in->idx2 >= td->field_count)
        return sbx__wasm_v_fail_idx(v, "field", in->idx2);
    const struct wasm_field *f = &td->fields[in->idx2];
    if (in->op == WASM_OP_STRUCT_SET) {
        if (!f->is_mutable)
            return sbx__wasm_v_fail(v, "field is immutable");
        return vpop(v, unpacked(f->type)) && vpop(v, self);
    }
    return check_get(v, f->type, in->op != WASM_OP_STRUCT_GET) && vpop(v, self) &&
           vpush(v, unpacked(f->type));
}

/* array.new*: the operands after the type. */
static bool op_array_new(struct vfunc *v, const struct wasm_instr *in,
                         const struct wasm_typedef *td)
{
    wasm_vtype st = td->fields[0].type;
    switch (in->op) {
    case WASM_OP_ARRAY_NEW:
        if (!vpop(v, WASM_I32) || !vpop(v, unpacked(st)))
            return false;
        break;
    case WASM_OP_ARRAY_NEW_DEFAULT:
        if (!defaultable(td))
            return sbx__wasm_v_fail(v, "type mismatch");
        if (!vpop(v, WASM_I32))
            return false;
        break;
    case WASM_OP_ARRAY_NEW_FIXED:
        for (uint32_t i = 0; i < in->idx2; i++) {
            if (!vpop(v, unpacked(st)))
                return false;
        }
        break;
    case WASM_OP_ARRAY_NEW_DATA:
        if (wasm_vtype_is_ref(st))
            return sbx__wasm_v_fail(v, "array type is not numeric or vector");
        if (!need_data(v, in->idx2) || !vpop(v, WASM_I32) || !vpop(v, WASM_I32))
            return false;
        break;
    default: /* ARRAY_NEW_ELEM */
        if (!elem_fits(v, in->idx2, st) || !vpop(v, WASM_I32) || !vpop(v, WASM_I32))
            return false;
        break;
    }
    return vpush(v, WASM_REF(0, in->idx));
}

/* The array instructions that change an array need a mutable one. */
static bool mutable_array(struct vfunc *v, const struct wasm_typedef *td)
{
    return td->fields[0].is_mutable || sbx__wasm_v_fail(v, "array is immutable");
}

static bool op_array_copy(struct vfunc *v, const struct wasm_instr *in,
                          const struct wasm_typedef *dt)
{
    const struct wasm_typedef *st = type_of(v, in->idx2, WASM_COMP_ARRAY);
    if (!st || !mutable_array(v, dt))
        return false;
    wasm_vtype a = st->fields[0].type, b = dt->fields[0].type;
    bool fits = is_packed(a) || is_packed(b) ? a == b : vsub(v, a, b);
    if (!fits)
        return sbx__wasm_v_fail(v, "type mismatch");
    return vpop(v, WASM_I32) && vpop(v, WASM_I32) && vpop(v, WASM_REF(1, in->idx2)) &&
           vpop(v, WASM_I32) && vpop(v, WASM_REF(1, in->idx));
}

static bool op_array(struct vfunc *v, const struct wasm_instr *in)
{
    if (in->op == WASM_OP_ARRAY_LEN)
        return vpop(v, WASM_REF(1, WASM_HT_ARRAY)) && vpush(v, WASM_I32);
    const struct wasm_typedef *td = type_of(v, in->idx, WASM_COMP_ARRAY);
    if (!td)
        return false;
    wasm_vtype st = td->fields[0].type, self = WASM_REF(1, in->idx);
    switch (in->op) {
    case WASM_OP_ARRAY_GET:
    case WASM_OP_ARRAY_GET_S:
    case WASM_OP_ARRAY_GET_U:
        return check_get(v, st, in->op != WASM_OP_ARRAY_GET) && vpop(v, WASM_I32) &&
               vpop(v, self) && vpush(v, unpacked(st));
    case WASM_OP_ARRAY_SET:
        return mutable_array(v, td) && vpop(v, unpacked(st)) && vpop(v, WASM_I32) && vpop(v, self);
    case WASM_OP_ARRAY_FILL:
        return mutable_array(v, td) && vpop(v, WASM_I32) && vpop(v, unpacked(st)) &&
               vpop(v, WASM_I32) && vpop(v, self);
    case WASM_OP_ARRAY_COPY:
        return op_array_copy(v, in, td);
    case WASM_OP_ARRAY_INIT_DATA:
        if (wasm_vtype_is_ref(st))
            return sbx__wasm_v_fail(v, "array type is not numeric or vector");
        return mutable_array(v, td) && need_data(v, in->idx2) && vpop(v, WASM_I32) &&
               vpop(v, WASM_I32) && vpop(v, WASM_I32) && vpop(v, self);
    case WASM_OP_ARRAY_INIT_ELEM:
        return mutable_array(v, td) && elem_fits(v, in->idx2, st) && vpop(v, WASM_I32) &&
               vpop(v, WASM_I32) && vpop(v, WASM_I32) && vpop(v, self);
    default:
        return op_array_new(v, in, td);
    }
}

/* ref.test / ref.cast (nullable forms from the opcode; the decoder's valtype is nullable). */
static bool op_cast(struct vfunc *v, const struct wasm_instr *in)
{
    uint32_t ht = wasm_vtype_heap(in->valtype);
    if (!sbx__wasm_v_check_heap(v->r, v->m, ht, v->at))
        return false;
    wasm_vtype got;
    if (!pop_in(v, heap_top(v->m, ht), &got))
        return false;
    bool is_null = in->op == WASM_OP_REF_TEST_NULL || in->op == WASM_OP_REF_CAST_NULL;
    if (in->op == WASM_OP_REF_TEST || in->op == WASM_OP_REF_TEST_NULL)
        return vpush(v, WASM_I32);
    return vpush(v, WASM_REF(is_null, ht));
}

/* br_on_cast / br_on_cast_fail l rt1 rt2: rt2 <: rt1; the label takes rt2 (or rt1 minus rt2),
 * the fallthrough the other. */
static bool op_br_on_cast(struct vfunc *v, const struct wasm_instr *in)
{
    wasm_vtype rt1 = in->valtype, rt2 = in->valtype2;
    if (!sbx__wasm_v_check_type(v->r, v->m, rt1, v->at) ||
        !sbx__wasm_v_check_type(v->r, v->m, rt2, v->at))
        return false;
    if (!vsub(v, rt2, rt1))
        return sbx__wasm_v_fail(v, "type mismatch");
    wasm_vtype diff =
        WASM_REF(wasm_vtype_is_nullable(rt1) && !wasm_vtype_is_nullable(rt2), wasm_vtype_heap(rt1));
    bool on_fail = in->op == WASM_OP_BR_ON_CAST_FAIL;
    wasm_vtype to_label = on_fail ? diff : rt2, to_next = on_fail ? rt2 : diff;
    uint32_t n;
    const wasm_vtype *types;
    if (!sbx__wasm_v_label(v, in->idx, &n, &types))
        return false;
    if (n == 0 || !vsub(v, to_label, types[n - 1]))
        return sbx__wasm_v_fail(v, "type mismatch");
    return vpop(v, rt1) && sbx__wasm_v_pop_n(v, types, n - 1) &&
           sbx__wasm_v_push_n(v, types, n - 1) && vpush(v, to_next);
}

/* any.convert_extern / extern.convert_any: nullability carries over. */
static bool op_convert(struct vfunc *v, bool to_any)
{
    wasm_vtype got;
    if (!pop_in(v, to_any ? WASM_HT_EXTERN : WASM_HT_ANY, &got))
        return false;
    bool nullable = got == WASM_REF(1, WASM_HT_BOT) || wasm_vtype_is_nullable(got);
    return vpush(v, WASM_REF(nullable, to_any ? WASM_HT_ANY : WASM_HT_EXTERN));
}

bool sbx__wasm_v_gc(struct vfunc *v, const struct wasm_instr *in)
{
    switch (in->op) {
    case WASM_OP_STRUCT_NEW:
    case WASM_OP_STRUCT_NEW_DEFAULT:
    case WASM_OP_STRUCT_GET:
    case WASM_OP_STRUCT_GET_S:
    case WASM_OP_STRUCT_GET_U:
    case WASM_OP_STRUCT_SET:
        return op_struct(v, in);
    case WASM_OP_REF_TEST:
    case WASM_OP_REF_TEST_NULL:
    case WASM_OP_REF_CAST:
    case WASM_OP_REF_CAST_NULL:
        return op_cast(v, in);
    case WASM_OP_BR_ON_CAST:
    case WASM_OP_BR_ON_CAST_FAIL:
        return op_br_on_cast(v, in);
    case WASM_OP_ANY_CONVERT_EXTERN:
        return op_convert(v, true);
    case WASM_OP_EXTERN_CONVERT_ANY:
        return op_convert(v, false);
    case WASM_OP_REF_I31:
        return vpop(v, WASM_I32) && vpush(v, WASM_REF(0, WASM_HT_I31));
    case WASM_OP_I31_GET_S:
    case WASM_OP_I31_GET_U:
        return vpop(v, WASM_REF(1, WASM_HT_I31)) && vpush(v, WASM_I32);
    case WASM_OP_REF_EQ:
        return vpop(v, WASM_REF(1, WASM_HT_EQ)) && vpop(v, WASM_REF(1, WASM_HT_EQ)) &&
               vpush(v, WASM_I32);
    default:
        return op_array(v, in);
    }
}

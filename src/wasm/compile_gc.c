/* wasm/compile_gc.c: translation of the GC instructions to interp_gc.h's handlers. Field and
 * element access sizes come from the canonical types' layouts (types.h), known at translation. */
#include "wasm/compile_impl.h"
#include "wasm/gc.h"

/* Pops n operands (the first popped last) into out as slots. */
static void pop_slots(struct compiler *c, uint32_t *out, uint32_t n)
{
    struct centry es[5];
    for (uint32_t i = n; i-- > 0;)
        es[i] = sbx__wasm_c_pop(c);
    for (uint32_t i = 0; i < n; i++)
        out[i] = sbx__wasm_c_operand(c, &es[i]);
}

/* Emits op's words (operands and immediates in order) after popping what it takes. */
static void effect(struct compiler *c, enum wasm_iop op, const uint32_t *words, uint32_t n)
{
    sbx__wasm_c_op(c, op);
    for (uint32_t i = 0; i < n; i++)
        sbx__wasm_c_emit(c, words[i]);
}

/* The top n values in consecutive slots, popped; returns the first one's slot. */
static uint32_t take_run(struct compiler *c, uint32_t n)
{
    if (c->sp < n) {
        sbx__wasm_c_fail(c, SBX_E_WASM_INVALID_MODULE, "operand stack underflow");
        return c->slot_top;
    }
    sbx__wasm_c_flush_top(c, n);
    uint32_t base = n ? c->st[c->sp - n].slot : c->slot_top;
    c->sp -= n;
    c->slot_top = base;
    return base;
}

static wasm_vtype unpacked(wasm_vtype t)
{
    return t == WASM_PACKED_I8 || t == WASM_PACKED_I16 ? WASM_I32 : t;
}

/* The get handler for storage type st (sign for packed ones), the set handler. */
static enum wasm_iop get_op(wasm_vtype st, bool is_signed, bool is_array)
{
    enum wasm_iop base = is_array ? IOP_array_get32 : IOP_struct_get32;
    switch (st) { /* the order of WASM_GC_IOPS: get32 get64 get128 i8s i8u i16s i16u */
    case WASM_PACKED_I8:
        return (enum wasm_iop)(base + (is_signed ? 3 : 4));
    case WASM_PACKED_I16:
        return (enum wasm_iop)(base + (is_signed ? 5 : 6));
    case WASM_I32:
    case WASM_F32:
        return base;
    case WASM_V128:
        return (enum wasm_iop)(base + 2);
    default:
        return (enum wasm_iop)(base + 1);
    }
}

static enum wasm_iop set_op(wasm_vtype st, bool is_array)
{
    enum wasm_iop base = is_array ? IOP_array_set8 : IOP_struct_set8;
    switch (sbx__wasm_storage_size(st)) { /* set8 set16 set32 set64 set128 */
    case 1:
        return base;
    case 2:
        return (enum wasm_iop)(base + 1);
    case 4:
        return (enum wasm_iop)(base + 2);
    case 8:
        return (enum wasm_iop)(base + 3);
    default:
        return (enum wasm_iop)(base + 4);
    }
}

static void do_struct(struct compiler *c, const struct wasm_instr *in)
{
    const struct wasm_rtt *t = c->m->rtts[in->idx];
    uint32_t w[3];
    switch (in->op) {
    case WASM_OP_STRUCT_NEW:
        w[0] = in->idx;
        w[1] = take_run(c, t->field_count);
        sbx__wasm_c_result(c, IOP_struct_new, WASM_REF(0, in->idx), w, 2);
        return;
    case WASM_OP_STRUCT_NEW_DEFAULT:
        w[0] = in->idx;
        sbx__wasm_c_result(c, IOP_struct_new_default, WASM_REF(0, in->idx), w, 1);
        return;
    case WASM_OP_STRUCT_SET:
        pop_slots(c, w, 2);
        w[2] = t->offsets[in->idx2];
        effect(c, set_op(t->types[in->idx2], false), w, 3);
        return;
    default: {
        wasm_vtype st = c->m->typedefs[in->idx].fields[in->idx2].type;
        pop_slots(c, w, 1);
        w[1] = t->offsets[in->idx2];
        sbx__wasm_c_result(c, get_op(st, in->op == WASM_OP_STRUCT_GET_S, false), unpacked(st), w,
                           2);
        return;
    }
    }
}

static void do_array(struct compiler *c, const struct wasm_instr *in)
{
    uint32_t w[6];
    if (in->op == WASM_OP_ARRAY_LEN) {
        pop_slots(c, w, 1);
        sbx__wasm_c_result(c, IOP_array_len, WASM_I32, w, 1);
        return;
    }
    const struct wasm_rtt *t = c->m->rtts[in->idx];
    wasm_vtype st = c->m->typedefs[in->idx].fields[0].type, ref = WASM_REF(0, in->idx);
    w[0] = in->idx;
    switch (in->op) {
    case WASM_OP_ARRAY_NEW: /* init len */
        pop_slots(c, w + 1, 2);
        sbx__wasm_c_result(c, IOP_array_new, ref, w, 3);
        return;
    case WASM_OP_ARRAY_NEW_DEFAULT:
        pop_slots(c, w + 1, 1);
        sbx__wasm_c_result(c, IOP_array_new_default, ref, w, 2);
        return;
    case WASM_OP_ARRAY_NEW_FIXED:
        w[1] = take_run(c, in->idx2);
        w[2] = in->idx2;
        sbx__wasm_c_result(c, IOP_array_new_fixed, ref, w, 3);
        return;
    case WASM_OP_ARRAY_NEW_DATA:
    case WASM_OP_ARRAY_NEW_ELEM: /* offset n */
        w[1] = in->idx2;
        pop_slots(c, w + 2, 2);
        sbx__wasm_c_result(
            c, in->op == WASM_OP_ARRAY_NEW_DATA ? IOP_array_new_data : IOP_array_new_elem, ref, w,
            4);
        return;
    case WASM_OP_ARRAY_GET:
    case WASM_OP_ARRAY_GET_S:
    case WASM_OP_ARRAY_GET_U: /* ref index */
        pop_slots(c, w, 2);
        sbx__wasm_c_result(c, get_op(st, in->op == WASM_OP_ARRAY_GET_S, true), unpacked(st), w, 2);
        return;
    case WASM_OP_ARRAY_SET: /* ref index value */
        pop_slots(c, w, 3);
        effect(c, set_op(st, true), w, 3);
        return;
    case WASM_OP_ARRAY_FILL: /* ref offset value n */
        pop_slots(c, w, 4);
        effect(c, IOP_array_fill, w, 4);
        return;
    case WASM_OP_ARRAY_COPY: /* dst doff src soff n */
        pop_slots(c, w, 5);
        effect(c, IOP_array_copy, w, 5);
        return;
    default: /* ARRAY_INIT_DATA / ELEM: ref d s n, then the segment */
        pop_slots(c, w, 4);
        w[4] = in->idx2;
        effect(c, in->op == WASM_OP_ARRAY_INIT_DATA ? IOP_array_init_data : IOP_array_init_elem, w,
               5);
        (void)t;
        return;
    }
}

bool sbx__wasm_c_gc(struct compiler *c, const struct wasm_instr *in)
{
    uint32_t w[3];
    switch (in->op) {
    case WASM_OP_STRUCT_NEW:
    case WASM_OP_STRUCT_NEW_DEFAULT:
    case WASM_OP_STRUCT_GET:
    case WASM_OP_STRUCT_GET_S:
    case WASM_OP_STRUCT_GET_U:
    case WASM_OP_STRUCT_SET:
        do_struct(c, in);
        return true;
    case WASM_OP_REF_TEST:
    case WASM_OP_REF_TEST_NULL:
    case WASM_OP_REF_CAST:
    case WASM_OP_REF_CAST_NULL: {
        bool is_null = in->op == WASM_OP_REF_TEST_NULL || in->op == WASM_OP_REF_CAST_NULL;
        bool is_test = in->op == WASM_OP_REF_TEST || in->op == WASM_OP_REF_TEST_NULL;
        uint32_t ht = wasm_vtype_heap(in->valtype);
        pop_slots(c, w, 1);
        w[1] = ht;
        w[2] = is_null;
        sbx__wasm_c_result(c, is_test ? IOP_ref_test : IOP_ref_cast,
                           is_test ? WASM_I32 : WASM_REF(is_null, ht), w, 3);
        return true;
    }
    case WASM_OP_REF_I31:
    case WASM_OP_I31_GET_S:
    case WASM_OP_I31_GET_U:
    case WASM_OP_ANY_CONVERT_EXTERN:
    case WASM_OP_EXTERN_CONVERT_ANY: {
        static const struct {
            uint16_t op;
            enum wasm_iop iop;
            wasm_vtype type;
        } unary[] = {
            {WASM_OP_REF_I31, IOP_ref_i31, WASM_REF(0, WASM_HT_I31)},
            {WASM_OP_I31_GET_S, IOP_i31_get_s, WASM_I32},
            {WASM_OP_I31_GET_U, IOP_i31_get_u, WASM_I32},
            {WASM_OP_ANY_CONVERT_EXTERN, IOP_any_convert_extern, WASM_REF(1, WASM_HT_ANY)},
            {WASM_OP_EXTERN_CONVERT_ANY, IOP_extern_convert_any, WASM_REF(1, WASM_HT_EXTERN)},
        };
        unsigned k = 0;
        while (unary[k].op != in->op)
            k++;
        pop_slots(c, w, 1);
        sbx__wasm_c_result(c, unary[k].iop, unary[k].type, w, 1);
        return true;
    }
    case WASM_OP_REF_EQ:
        pop_slots(c, w, 2);
        sbx__wasm_c_result(c, IOP_ref_eq, WASM_I32, w, 2);
        return true;
    default:
        do_array(c, in);
        return true;
    }
}

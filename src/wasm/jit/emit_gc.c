/* wasm/jit/emit_gc.c: the GC instructions (3.0): field and element accesses, array.len, i31
 * and ref.eq inline (the object layouts of types.h, known at translation from the canonical
 * types, so the code is the same for every instance); allocation, bulk array operations,
 * casts and the any/extern conversions call rt_gc.c, which shares gc_ops.c with the
 * interpreter. References are pointers (an i31ref an odd integer in one, gc.h). Compiled
 * frames need no stack maps: the collector scans the native stack conservatively and never
 * moves an object (docs/wasm.md "Garbage collection"). */
#include <stddef.h>

#include "util/alloc.h"
#include "wasm/code.h"
#include "wasm/gc.h"
#include "wasm/jit/emit.h"
#include "wasm/jit/rt.h"

static bool is_packed(wasm_vtype t)
{
    return t == WASM_PACKED_I8 || t == WASM_PACKED_I16;
}

static wasm_vtype unpacked(wasm_vtype t)
{
    return is_packed(t) ? WASM_I32 : t;
}

/* The LLVM type a field of storage type st is kept in. */
static LLVMTypeRef storage_type(struct jit_mod *jm, wasm_vtype st)
{
    if (st == WASM_PACKED_I8)
        return jm->t_i8;
    return st == WASM_PACKED_I16 ? jm->t_i16 : sbx__jit_type(jm, st);
}

static LLVMValueRef byte_ptr(struct jit_func *f, LLVMValueRef base, LLVMValueRef off)
{
    return L(BuildGEP2)(f->b, f->jm->t_i8, base, &off, 1, "");
}

/* Loads a field of storage type st at p; packed ones widen to i32 (sign-extended when
 * is_signed). */
static LLVMValueRef load_field(struct jit_func *f, LLVMValueRef p, wasm_vtype st, bool is_signed)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef v = L(BuildLoad2)(f->b, storage_type(jm, st), p, "");
    if (st == WASM_V128)
        L(SetAlignment)(v, 16);
    if (!is_packed(st))
        return v;
    return is_signed ? L(BuildSExt)(f->b, v, jm->t_i32, "") : L(BuildZExt)(f->b, v, jm->t_i32, "");
}

static void store_field(struct jit_func *f, LLVMValueRef p, wasm_vtype st, LLVMValueRef v)
{
    struct jit_mod *jm = f->jm;
    if (is_packed(st))
        v = L(BuildTrunc)(f->b, v, storage_type(jm, st), "");
    LLVMValueRef s = L(BuildStore)(f->b, v, p);
    if (st == WASM_V128)
        L(SetAlignment)(s, 16);
    sbx__jit_visible_store(jm, s); /* in order with guest accesses that may fault */
}

/* The reference as a 64-bit value, for the helpers. */
static LLVMValueRef as_i64(struct jit_func *f, LLVMValueRef ref)
{
    return L(BuildPtrToInt)(f->b, ref, f->jm->t_i64, "");
}

static void null_check(struct jit_func *f, LLVMValueRef ref, enum wasm_trap_kind kind)
{
    sbx__jit_trap_if(f, L(BuildIsNull)(f->b, ref, ""), kind);
}

/* Calls a helper that writes a reference to *out and returns a trap kind; pushes the
 * reference. args[n - 1] is left for the out pointer. */
static void call_new(struct jit_func *f, enum jit_rt rt, LLVMTypeRef *p, LLVMValueRef *a,
                     unsigned n)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef out = sbx__jit_alloca(f, jm->t_i64);
    p[n - 1] = jm->t_ptr;
    a[n - 1] = out;
    sbx__jit_trap_if_kind(f, sbx__jit_call_c(f, rt, jm->t_i32, p, a, n));
    sbx__jit_push(f, L(BuildLoad2)(f->b, jm->t_ptr, out, ""));
}

/* Pops n values of the given storage types (unpacked) into an [x i64] slot array. */
static LLVMValueRef pop_slots(struct jit_func *f, const wasm_vtype *st, uint32_t n, bool same)
{
    LLVMValueRef small[16] = {0}, *vals = n <= 16 ? small : sbx__mallocn(n, sizeof(*vals));
    wasm_vtype tsmall[16] = {0}, *types = n <= 16 ? tsmall : sbx__mallocn(n, sizeof(*types));
    if (!vals || !types) {
        f->is_nomem = true;
        if (vals != small)
            sbx__free(vals);
        if (types != tsmall)
            sbx__free(types);
        return NULL;
    }
    uint32_t room = 0;
    for (uint32_t i = n; i-- > 0;) {
        vals[i] = sbx__jit_pop(f);
        types[i] = unpacked(st[same ? 0 : i]);
    }
    for (uint32_t i = 0; i < n; i++)
        room += sbx__wasm_type_slots(types[i]);
    LLVMValueRef slots = sbx__jit_pack(f, vals, types, n, room);
    if (vals != small)
        sbx__free(vals);
    if (types != tsmall)
        sbx__free(types);
    return slots;
}

static LLVMValueRef rtt_of(struct jit_func *f, uint32_t type_idx)
{
    return sbx__jit_sym(f->jm, JIT_SYM_TYPE, type_idx);
}

static bool op_struct(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    const struct wasm_typedef *td = &f->m->typedefs[in->idx];
    const struct wasm_rtt *rtt = f->m->rtts[in->idx];
    if (in->op == WASM_OP_STRUCT_NEW || in->op == WASM_OP_STRUCT_NEW_DEFAULT) {
        LLVMValueRef vals = L(ConstPointerNull)(jm->t_ptr);
        if (in->op == WASM_OP_STRUCT_NEW && td->field_count > 0) {
            wasm_vtype *types = sbx__mallocn(td->field_count, sizeof(*types));
            if (!types)
                return false;
            for (uint32_t i = 0; i < td->field_count; i++)
                types[i] = td->fields[i].type;
            vals = pop_slots(f, types, td->field_count, false);
            sbx__free(types);
            if (!vals)
                return false;
        }
        LLVMTypeRef p[4] = {jm->t_ptr, jm->t_ptr, jm->t_ptr};
        LLVMValueRef a[4] = {sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0), rtt_of(f, in->idx), vals};
        call_new(f, JIT_RT_GC_STRUCT_NEW, p, a, 4);
        return true;
    }
    wasm_vtype st = td->fields[in->idx2].type;
    LLVMValueRef off = sbx__jit_i64(jm, rtt->offsets[in->idx2]);
    if (in->op == WASM_OP_STRUCT_SET) {
        LLVMValueRef v = sbx__jit_pop(f), ref = sbx__jit_pop(f);
        null_check(f, ref, WASM_TRAP_NULL_STRUCT_REF);
        store_field(f, byte_ptr(f, ref, off), st, v);
        return true;
    }
    LLVMValueRef ref = sbx__jit_pop(f);
    null_check(f, ref, WASM_TRAP_NULL_STRUCT_REF);
    sbx__jit_push(f, load_field(f, byte_ptr(f, ref, off), st, in->op == WASM_OP_STRUCT_GET_S));
    return true;
}

/* The address of element i of array ref (elements of sz bytes) after the null and bounds
 * checks. */
static LLVMValueRef element(struct jit_func *f, LLVMValueRef ref, LLVMValueRef i, uint32_t sz)
{
    struct jit_mod *jm = f->jm;
    null_check(f, ref, WASM_TRAP_NULL_ARRAY_REF);
    LLVMValueRef len = L(BuildLoad2)(
        f->b, jm->t_i32, byte_ptr(f, ref, sbx__jit_i64(jm, offsetof(struct wasm_gc_obj, len))), "");
    sbx__jit_trap_if(f, L(BuildICmp)(f->b, LLVMIntUGE, i, len, ""), WASM_TRAP_ARRAY_OOB);
    LLVMValueRef off = L(BuildBinOp)(f->b, LLVMMul, L(BuildZExt)(f->b, i, jm->t_i64, ""),
                                     sbx__jit_i64(jm, sz), "");
    off = L(BuildAdd)(f->b, off, sbx__jit_i64(jm, WASM_GC_HEADER), "");
    return byte_ptr(f, ref, off);
}

static bool op_array_new(struct jit_func *f, const struct wasm_instr *in, wasm_vtype st)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef inst = sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0), rtt = rtt_of(f, in->idx);
    LLVMTypeRef p[8] = {jm->t_ptr, jm->t_ptr, jm->t_ptr, jm->t_i32};
    LLVMValueRef a[8] = {inst, rtt};
    switch (in->op) {
    case WASM_OP_ARRAY_NEW:
    case WASM_OP_ARRAY_NEW_DEFAULT: {
        LLVMValueRef n = sbx__jit_pop(f), init = L(ConstPointerNull)(jm->t_ptr);
        if (in->op == WASM_OP_ARRAY_NEW && !(init = pop_slots(f, &st, 1, true)))
            return false;
        a[2] = init, a[3] = n;
        call_new(f, JIT_RT_GC_ARRAY_NEW, p, a, 5);
        return true;
    }
    case WASM_OP_ARRAY_NEW_FIXED: {
        LLVMValueRef vals =
            in->idx2 ? pop_slots(f, &st, in->idx2, true) : L(ConstPointerNull)(jm->t_ptr);
        if (!vals)
            return false;
        a[2] = vals, a[3] = sbx__jit_i32(jm, in->idx2);
        call_new(f, JIT_RT_GC_ARRAY_NEW_FIXED, p, a, 5);
        return true;
    }
    default: { /* ARRAY_NEW_DATA / ELEM: offset n */
        LLVMValueRef n = sbx__jit_pop(f), off = sbx__jit_pop(f);
        p[2] = p[3] = p[4] = p[5] = jm->t_i32;
        a[2] = sbx__jit_i32(jm, in->op == WASM_OP_ARRAY_NEW_ELEM);
        a[3] = sbx__jit_i32(jm, in->idx2), a[4] = off, a[5] = n;
        call_new(f, JIT_RT_GC_ARRAY_NEW_SEG, p, a, 7);
        return true;
    }
    }
}

/* array.fill, array.copy, array.init_data / init_elem: one helper each. */
static bool op_array_bulk(struct jit_func *f, const struct wasm_instr *in, wasm_vtype st)
{
    struct jit_mod *jm = f->jm;
    LLVMTypeRef i32 = jm->t_i32, i64 = jm->t_i64;
    if (in->op == WASM_OP_ARRAY_FILL) {
        LLVMValueRef n = sbx__jit_pop(f), val = pop_slots(f, &st, 1, true);
        if (!val)
            return false;
        LLVMValueRef d = sbx__jit_pop(f), ref = as_i64(f, sbx__jit_pop(f));
        LLVMTypeRef p[] = {i64, i32, jm->t_ptr, i32};
        LLVMValueRef a[] = {ref, d, val, n};
        sbx__jit_trap_if_kind(f, sbx__jit_call_c(f, JIT_RT_GC_ARRAY_FILL, i32, p, a, 4));
        return true;
    }
    LLVMValueRef n = sbx__jit_pop(f), s = sbx__jit_pop(f);
    if (in->op == WASM_OP_ARRAY_COPY) {
        LLVMValueRef sref = as_i64(f, sbx__jit_pop(f)), d = sbx__jit_pop(f);
        LLVMValueRef dref = as_i64(f, sbx__jit_pop(f));
        LLVMTypeRef p[] = {i64, i32, i64, i32, i32};
        LLVMValueRef a[] = {dref, d, sref, s, n};
        sbx__jit_trap_if_kind(f, sbx__jit_call_c(f, JIT_RT_GC_ARRAY_COPY, i32, p, a, 5));
        return true;
    }
    LLVMValueRef d = sbx__jit_pop(f), ref = as_i64(f, sbx__jit_pop(f));
    LLVMTypeRef p[] = {jm->t_ptr, i32, i32, i64, i32, i32, i32};
    LLVMValueRef a[] = {sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0),
                        sbx__jit_i32(jm, in->op == WASM_OP_ARRAY_INIT_ELEM),
                        sbx__jit_i32(jm, in->idx2),
                        ref,
                        d,
                        s,
                        n};
    sbx__jit_trap_if_kind(f, sbx__jit_call_c(f, JIT_RT_GC_ARRAY_INIT, i32, p, a, 7));
    return true;
}

static bool op_array(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    if (in->op == WASM_OP_ARRAY_LEN) {
        LLVMValueRef ref = sbx__jit_pop(f);
        null_check(f, ref, WASM_TRAP_NULL_ARRAY_REF);
        LLVMValueRef at = byte_ptr(f, ref, sbx__jit_i64(jm, offsetof(struct wasm_gc_obj, len)));
        sbx__jit_push(f, L(BuildLoad2)(f->b, jm->t_i32, at, ""));
        return true;
    }
    wasm_vtype st = f->m->typedefs[in->idx].fields[0].type;
    uint32_t sz = f->m->rtts[in->idx]->elem_size;
    switch (in->op) {
    case WASM_OP_ARRAY_GET:
    case WASM_OP_ARRAY_GET_S:
    case WASM_OP_ARRAY_GET_U: {
        LLVMValueRef i = sbx__jit_pop(f), ref = sbx__jit_pop(f);
        sbx__jit_push(f, load_field(f, element(f, ref, i, sz), st, in->op == WASM_OP_ARRAY_GET_S));
        return true;
    }
    case WASM_OP_ARRAY_SET: {
        LLVMValueRef v = sbx__jit_pop(f), i = sbx__jit_pop(f), ref = sbx__jit_pop(f);
        store_field(f, element(f, ref, i, sz), st, v);
        return true;
    }
    case WASM_OP_ARRAY_FILL:
    case WASM_OP_ARRAY_COPY:
    case WASM_OP_ARRAY_INIT_DATA:
    case WASM_OP_ARRAY_INIT_ELEM:
        return op_array_bulk(f, in, st);
    default:
        return op_array_new(f, in, st);
    }
}

/* The helper's answer (an i1) to whether ref is of type rt. */
static LLVMValueRef test_slow(struct jit_func *f, LLVMValueRef ref, wasm_vtype rt)
{
    struct jit_mod *jm = f->jm;
    uint32_t ht = wasm_vtype_heap(rt);
    bool is_abs = wasm_heap_is_abstract(ht);
    LLVMTypeRef p[] = {jm->t_i64, jm->t_i32, jm->t_ptr, jm->t_i32};
    LLVMValueRef a[] = {as_i64(f, ref), sbx__jit_i32(jm, is_abs ? ht : 0),
                        is_abs ? L(ConstPointerNull)(jm->t_ptr) : rtt_of(f, ht),
                        sbx__jit_i32(jm, wasm_vtype_is_nullable(rt))};
    LLVMValueRef r = sbx__jit_call_c(f, JIT_RT_GC_TEST, jm->t_i32, p, a, 4);
    return L(BuildICmp)(f->b, LLVMIntNE, r, sbx__jit_i32(jm, 0), "");
}

/* Whether ref is of type (ref null? ht) (an i1). For a struct or array type, an object whose
 * header names exactly that rtt answers inline (a null test, the i31 bit, a load, a compare);
 * anything else (a subtype, null, i31, a box) asks the helper. */
static LLVMValueRef test(struct jit_func *f, LLVMValueRef ref, wasm_vtype rt)
{
    struct jit_mod *jm = f->jm;
    uint32_t ht = wasm_vtype_heap(rt);
    if (wasm_heap_is_abstract(ht) || f->m->typedefs[ht].kind == WASM_COMP_FUNC)
        return test_slow(f, ref, rt);
    LLVMBasicBlockRef load = sbx__jit_block(f, "cast_load"), slow = sbx__jit_block(f, "cast_slow");
    LLVMBasicBlockRef done = sbx__jit_block(f, "cast_done");
    LLVMValueRef bits = as_i64(f, ref);
    LLVMValueRef low = L(BuildAnd)(f->b, bits, sbx__jit_i64(jm, 1), "");
    LLVMValueRef is_obj =
        L(BuildAnd)(f->b, L(BuildICmp)(f->b, LLVMIntNE, bits, sbx__jit_i64(jm, 0), ""),
                    L(BuildICmp)(f->b, LLVMIntEQ, low, sbx__jit_i64(jm, 0), ""), "");
    L(BuildCondBr)(f->b, is_obj, load, slow);
    L(PositionBuilderAtEnd)(f->b, load);
    LLVMValueRef type = L(BuildLoad2)(f->b, jm->t_ptr, ref, ""); /* wasm_gc_obj.type */
    LLVMValueRef same = L(BuildICmp)(f->b, LLVMIntEQ, type, rtt_of(f, ht), "");
    L(BuildCondBr)(f->b, same, done, slow);
    L(PositionBuilderAtEnd)(f->b, slow);
    LLVMValueRef answer = test_slow(f, ref, rt);
    LLVMBasicBlockRef from_slow = L(GetInsertBlock)(f->b);
    L(BuildBr)(f->b, done);
    L(PositionBuilderAtEnd)(f->b, done);
    LLVMValueRef phi = L(BuildPhi)(f->b, jm->t_i1, "");
    LLVMValueRef vals[] = {L(ConstInt)(jm->t_i1, 1, 0), answer};
    LLVMBasicBlockRef froms[] = {load, from_slow};
    L(AddIncoming)(phi, vals, froms, 2);
    return phi;
}

static bool op_cast(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    bool is_null = in->op == WASM_OP_REF_TEST_NULL || in->op == WASM_OP_REF_CAST_NULL;
    wasm_vtype rt = WASM_REF(is_null, wasm_vtype_heap(in->valtype));
    LLVMValueRef ref = sbx__jit_pop(f), ok = test(f, ref, rt);
    if (in->op == WASM_OP_REF_TEST || in->op == WASM_OP_REF_TEST_NULL) {
        sbx__jit_push(f, L(BuildZExt)(f->b, ok, jm->t_i32, ""));
        return true;
    }
    sbx__jit_trap_if(f, L(BuildNot)(f->b, ok, ""), WASM_TRAP_CAST);
    sbx__jit_push(f, ref);
    return true;
}

/* br_on_cast / br_on_cast_fail: the reference stays on the stack either way. */
static bool op_br_on_cast(struct jit_func *f, const struct wasm_instr *in)
{
    LLVMValueRef ref = sbx__jit_pop(f);
    sbx__jit_push(f, ref);
    LLVMValueRef ok = test(f, ref, in->valtype2);
    LLVMBasicBlockRef taken = sbx__jit_block(f, "br_cast"), cont = sbx__jit_block(f, "cont");
    bool on_fail = in->op == WASM_OP_BR_ON_CAST_FAIL;
    L(BuildCondBr)(f->b, ok, on_fail ? cont : taken, on_fail ? taken : cont);
    L(PositionBuilderAtEnd)(f->b, taken);
    sbx__jit_branch(f, in->idx);
    L(PositionBuilderAtEnd)(f->b, cont);
    return true;
}

static bool op_i31(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef v = sbx__jit_pop(f);
    if (in->op == WASM_OP_REF_I31) { /* (value << 1) | 1, never null */
        LLVMValueRef w = L(BuildZExt)(f->b, v, jm->t_i64, "");
        w = L(BuildAnd)(f->b, w, sbx__jit_i64(jm, 0x7FFFFFFFu), "");
        w = L(BuildOr)(f->b, L(BuildBinOp)(f->b, LLVMShl, w, sbx__jit_i64(jm, 1), ""),
                       sbx__jit_i64(jm, 1), "");
        sbx__jit_push(f, L(BuildIntToPtr)(f->b, w, jm->t_ptr, ""));
        return true;
    }
    null_check(f, v, WASM_TRAP_NULL_I31_REF);
    LLVMValueRef w = L(BuildTrunc)(f->b, as_i64(f, v), jm->t_i32, "");
    LLVMValueRef one = sbx__jit_i32(jm, 1);
    sbx__jit_push(f, in->op == WASM_OP_I31_GET_S ? L(BuildBinOp)(f->b, LLVMAShr, w, one, "")
                                                 : L(BuildBinOp)(f->b, LLVMLShr, w, one, ""));
    return true;
}

static bool op_convert(struct jit_func *f, bool to_any)
{
    struct jit_mod *jm = f->jm;
    LLVMTypeRef p[4] = {jm->t_ptr, jm->t_i64, jm->t_i32};
    LLVMValueRef a[4] = {sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0), as_i64(f, sbx__jit_pop(f)),
                         sbx__jit_i32(jm, to_any)};
    call_new(f, JIT_RT_GC_CONVERT, p, a, 4);
    return true;
}

bool sbx__jit_emit_gc(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    if (sbx__wasm_opinfo[in->op].feature != WASM_FEAT_GC)
        return false;
    switch (in->op) {
    case WASM_OP_STRUCT_NEW:
    case WASM_OP_STRUCT_NEW_DEFAULT:
    case WASM_OP_STRUCT_GET:
    case WASM_OP_STRUCT_GET_S:
    case WASM_OP_STRUCT_GET_U:
    case WASM_OP_STRUCT_SET:
        *ok = op_struct(f, in);
        return true;
    case WASM_OP_REF_TEST:
    case WASM_OP_REF_TEST_NULL:
    case WASM_OP_REF_CAST:
    case WASM_OP_REF_CAST_NULL:
        *ok = op_cast(f, in);
        return true;
    case WASM_OP_BR_ON_CAST:
    case WASM_OP_BR_ON_CAST_FAIL:
        *ok = op_br_on_cast(f, in);
        return true;
    case WASM_OP_REF_I31:
    case WASM_OP_I31_GET_S:
    case WASM_OP_I31_GET_U:
        *ok = op_i31(f, in);
        return true;
    case WASM_OP_ANY_CONVERT_EXTERN:
    case WASM_OP_EXTERN_CONVERT_ANY:
        *ok = op_convert(f, in->op == WASM_OP_ANY_CONVERT_EXTERN);
        return true;
    case WASM_OP_REF_EQ: {
        LLVMValueRef b = sbx__jit_pop(f), a = sbx__jit_pop(f);
        LLVMValueRef eq = L(BuildICmp)(f->b, LLVMIntEQ, as_i64(f, a), as_i64(f, b), "");
        sbx__jit_push(f, L(BuildZExt)(f->b, eq, f->jm->t_i32, ""));
        return true;
    }
    default:
        *ok = op_array(f, in);
        return true;
    }
}

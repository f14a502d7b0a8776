/* wasm/gc_ops.c: the GC instructions that allocate or move many values (struct.new, array.new*,
 * array.fill/copy/init_*): one implementation for the interpreter's handlers (interp_gc.h)
 * and the compiled tier's runtime calls (jit/rt.c). Values come and go in 64-bit slots, a v128
 * in two, as the interpreter keeps them. */
#include <string.h>

#include "wasm/gc_ops.h"
#include "wasm/runtime.h"

void sbx__wasm_gc_put(uint8_t *p, wasm_vtype st, const uint64_t *slot)
{
    switch (st) {
    case WASM_PACKED_I8:
        *p = (uint8_t)slot[0];
        break;
    case WASM_PACKED_I16: {
        uint16_t v = (uint16_t)slot[0];
        memcpy(p, &v, 2);
        break;
    }
    case WASM_I32:
    case WASM_F32: {
        uint32_t v = (uint32_t)slot[0];
        memcpy(p, &v, 4);
        break;
    }
    case WASM_V128:
        memcpy(p, slot, 16);
        break;
    default:
        memcpy(p, slot, 8);
        break;
    }
}

static uint32_t slots_of(wasm_vtype t)
{
    return t == WASM_V128 ? 2 : 1;
}

enum wasm_trap_kind sbx__wasm_gc_struct_new(struct wasm_store *s, const struct wasm_rtt *rtt,
                                            const uint64_t *vals, uint64_t *out)
{
    enum wasm_trap_kind tk = WASM_TRAP_NONE;
    struct wasm_gc_obj *o = sbx__wasm_gc_new(s, rtt, 0, &tk);
    if (!o)
        return tk;
    for (uint32_t i = 0, k = 0; vals && i < rtt->field_count; k += slots_of(rtt->types[i++]))
        sbx__wasm_gc_put((uint8_t *)o + rtt->offsets[i], rtt->types[i], vals + k);
    *out = (uintptr_t)o;
    return WASM_TRAP_NONE;
}

/* Whether the elements of size sz in [0, len) fill with one byte pattern: zero bits do. */
static bool is_zero(const uint64_t *v, uint32_t sz)
{
    return v[0] == 0 && (sz < 16 || v[1] == 0);
}

enum wasm_trap_kind sbx__wasm_gc_array_new(struct wasm_store *s, const struct wasm_rtt *rtt,
                                           const uint64_t *init, uint32_t len, uint64_t *out)
{
    enum wasm_trap_kind tk = WASM_TRAP_NONE;
    struct wasm_gc_obj *o = sbx__wasm_gc_new(s, rtt, len, &tk);
    if (!o)
        return tk;
    uint32_t sz = rtt->elem_size;
    if (init && !is_zero(init, sz)) {
        uint8_t *p = (uint8_t *)o + WASM_GC_HEADER;
        for (uint32_t i = 0; i < len; i++)
            sbx__wasm_gc_put(p + (size_t)i * sz, rtt->types[0], init);
    }
    *out = (uintptr_t)o;
    return WASM_TRAP_NONE;
}

enum wasm_trap_kind sbx__wasm_gc_array_new_fixed(struct wasm_store *s, const struct wasm_rtt *rtt,
                                                 const uint64_t *vals, uint32_t n, uint64_t *out)
{
    enum wasm_trap_kind tk = WASM_TRAP_NONE;
    struct wasm_gc_obj *o = sbx__wasm_gc_new(s, rtt, n, &tk);
    if (!o)
        return tk;
    uint8_t *p = (uint8_t *)o + WASM_GC_HEADER;
    uint32_t k = slots_of(rtt->types[0]);
    for (uint32_t i = 0; i < n; i++)
        sbx__wasm_gc_put(p + (size_t)i * rtt->elem_size, rtt->types[0], vals + (size_t)i * k);
    *out = (uintptr_t)o;
    return WASM_TRAP_NONE;
}

/* Copies n elements from a data segment's bytes at s into o at d (elements of size sz,
 * little-endian as memory is): the caller checked both ranges. */
static void copy_data(struct wasm_gc_obj *o, uint32_t d, const uint8_t *bytes, uint32_t n,
                      uint32_t sz)
{
    if (n)
        memcpy((uint8_t *)o + WASM_GC_HEADER + (size_t)d * sz, bytes, (size_t)n * sz);
}

/* Segment idx's bytes and length (0 once dropped). */
static const uint8_t *data_of(const struct wasm_instance *inst, uint32_t idx, uint32_t *len)
{
    const struct wasm_data_seg *seg = &inst->module->datas[idx];
    *len = inst->data_dropped[idx] ? 0 : seg->len;
    return seg->bytes;
}

enum wasm_trap_kind sbx__wasm_gc_array_new_data(struct wasm_store *s, const struct wasm_rtt *rtt,
                                                const struct wasm_instance *inst, uint32_t idx,
                                                uint32_t off, uint32_t n, uint64_t *out)
{
    uint32_t len, sz = rtt->elem_size;
    const uint8_t *bytes = data_of(inst, idx, &len);
    if ((uint64_t)off + (uint64_t)n * sz > len)
        return WASM_TRAP_MEMORY_OOB;
    enum wasm_trap_kind tk = WASM_TRAP_NONE;
    struct wasm_gc_obj *o = sbx__wasm_gc_new(s, rtt, n, &tk);
    if (!o)
        return tk;
    copy_data(o, 0, bytes + off, n, sz);
    *out = (uintptr_t)o;
    return WASM_TRAP_NONE;
}

enum wasm_trap_kind sbx__wasm_gc_array_new_elem(struct wasm_store *s, const struct wasm_rtt *rtt,
                                                const struct wasm_instance *inst, uint32_t idx,
                                                uint32_t off, uint32_t n, uint64_t *out)
{
    if ((uint64_t)off + n > inst->elem_sizes[idx])
        return WASM_TRAP_TABLE_OOB;
    enum wasm_trap_kind tk = WASM_TRAP_NONE;
    struct wasm_gc_obj *o = sbx__wasm_gc_new(s, rtt, n, &tk);
    if (!o)
        return tk;
    /* re-read after the allocation: a collection does not move segments, but be plain */
    if (n)
        memcpy((uint8_t *)o + WASM_GC_HEADER, inst->elem_refs[idx] + off, (size_t)n * 8);
    *out = (uintptr_t)o;
    return WASM_TRAP_NONE;
}

/* An array reference's object, or the null trap's kind. */
static enum wasm_trap_kind array_of(uint64_t ref, struct wasm_gc_obj **o)
{
    *o = (struct wasm_gc_obj *)(uintptr_t)ref;
    return ref ? WASM_TRAP_NONE : WASM_TRAP_NULL_ARRAY_REF;
}

enum wasm_trap_kind sbx__wasm_gc_array_fill(uint64_t ref, uint32_t d, const uint64_t *val,
                                            uint32_t n)
{
    struct wasm_gc_obj *o;
    enum wasm_trap_kind tk = array_of(ref, &o);
    if (tk != WASM_TRAP_NONE)
        return tk;
    if ((uint64_t)d + n > o->len)
        return WASM_TRAP_ARRAY_OOB;
    const struct wasm_rtt *rtt = o->type;
    uint8_t *p = (uint8_t *)o + WASM_GC_HEADER + (size_t)d * rtt->elem_size;
    for (uint32_t i = 0; i < n; i++)
        sbx__wasm_gc_put(p + (size_t)i * rtt->elem_size, rtt->types[0], val);
    return WASM_TRAP_NONE;
}

enum wasm_trap_kind sbx__wasm_gc_array_copy(uint64_t dref, uint32_t d, uint64_t sref, uint32_t s,
                                            uint32_t n)
{
    struct wasm_gc_obj *dst, *src;
    enum wasm_trap_kind tk = array_of(dref, &dst);
    if (tk == WASM_TRAP_NONE)
        tk = array_of(sref, &src);
    if (tk != WASM_TRAP_NONE)
        return tk;
    if ((uint64_t)d + n > dst->len || (uint64_t)s + n > src->len)
        return WASM_TRAP_ARRAY_OOB;
    uint32_t sz = ((const struct wasm_rtt *)dst->type)->elem_size;
    if (n)
        memmove((uint8_t *)dst + WASM_GC_HEADER + (size_t)d * sz,
                (uint8_t *)src + WASM_GC_HEADER + (size_t)s * sz, (size_t)n * sz);
    return WASM_TRAP_NONE;
}

enum wasm_trap_kind sbx__wasm_gc_array_init_data(uint64_t ref, const struct wasm_instance *inst,
                                                 uint32_t idx, uint32_t d, uint32_t s, uint32_t n)
{
    struct wasm_gc_obj *o;
    enum wasm_trap_kind tk = array_of(ref, &o);
    if (tk != WASM_TRAP_NONE)
        return tk;
    uint32_t len, sz = ((const struct wasm_rtt *)o->type)->elem_size;
    const uint8_t *bytes = data_of(inst, idx, &len);
    if ((uint64_t)d + n > o->len)
        return WASM_TRAP_ARRAY_OOB;
    if ((uint64_t)s + (uint64_t)n * sz > len)
        return WASM_TRAP_MEMORY_OOB;
    copy_data(o, d, bytes + s, n, sz);
    return WASM_TRAP_NONE;
}

enum wasm_trap_kind sbx__wasm_gc_array_init_elem(uint64_t ref, const struct wasm_instance *inst,
                                                 uint32_t idx, uint32_t d, uint32_t s, uint32_t n)
{
    struct wasm_gc_obj *o;
    enum wasm_trap_kind tk = array_of(ref, &o);
    if (tk != WASM_TRAP_NONE)
        return tk;
    if ((uint64_t)d + n > o->len)
        return WASM_TRAP_ARRAY_OOB;
    if ((uint64_t)s + n > inst->elem_sizes[idx])
        return WASM_TRAP_TABLE_OOB;
    if (n)
        memcpy((uint8_t *)o + WASM_GC_HEADER + (size_t)d * 8, inst->elem_refs[idx] + s,
               (size_t)n * 8);
    return WASM_TRAP_NONE;
}

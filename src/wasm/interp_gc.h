/* wasm/interp_gc.h: the GC instructions' handlers, included into interp.c's run() (its locals
 * and macros). Field accesses and tests are inline; what allocates or moves many values calls
 * gc_ops.c with the frame's slots in use published (ex->sp), the stack the collector scans.
 * Formats next to each; "ref" is a slot holding a reference, offsets are bytes from the
 * object's start (types.h layouts), heap types are the module's (a type index or WASM_HT_*). */

/* The object of a non-null reference in slot k, or a trap of kind. */
#define GC_OBJ(k, kind)                                                                            \
    ({                                                                                             \
        uint64_t r_ = S(k);                                                                        \
        if (UNLIKELY(r_ == 0))                                                                     \
            TRAP(kind);                                                                            \
        (uint8_t *)(uintptr_t)r_;                                                                  \
    })
/* Calls a gc_ops.c function with the slots published; traps with what it returns. */
#define GC_CALL(expr)                                                                              \
    do {                                                                                           \
        ex->sp = fp + code->frame_slots;                                                           \
        tk = (expr);                                                                               \
        if (UNLIKELY(tk != WASM_TRAP_NONE))                                                        \
            goto trap;                                                                             \
    } while (0)
#define GC_RTT(k) (inst->module->rtts[ip[k]])
/* The i31ref in slot k ((value << 1) | 1), or the null trap. */
#define GC_I31(k)                                                                                  \
    ({                                                                                             \
        uint64_t r_ = S(k);                                                                        \
        if (UNLIKELY(r_ == 0))                                                                     \
            TRAP(WASM_TRAP_NULL_I31_REF);                                                          \
        (uint32_t) r_;                                                                             \
    })

/* [h][dst][type][first field slot] / [h][dst][type] */
op_struct_new : GC_CALL(sbx__wasm_gc_struct_new(store, GC_RTT(2), fp + ip[3], &S(1)));
ip += 4;
NEXT();
op_struct_new_default : GC_CALL(sbx__wasm_gc_struct_new(store, GC_RTT(2), NULL, &S(1)));
ip += 3;
NEXT();

/* [h][dst][ref][offset] */
#define STRUCT_GET(name, ctype, conv)                                                              \
    op_struct_get##name:                                                                           \
    {                                                                                              \
        uint8_t *o_ = GC_OBJ(2, WASM_TRAP_NULL_STRUCT_REF);                                        \
        ctype v_;                                                                                  \
        memcpy(&v_, o_ + ip[3], sizeof(v_));                                                       \
        S(1) = conv;                                                                               \
        ip += 4;                                                                                   \
        NEXT();                                                                                    \
    }
STRUCT_GET(32, uint32_t, v_)
STRUCT_GET(64, uint64_t, v_)
STRUCT_GET(_i8s, int8_t, (uint64_t)(uint32_t)(int32_t)v_)
STRUCT_GET(_i8u, uint8_t, (uint32_t)v_)
STRUCT_GET(_i16s, int16_t, (uint64_t)(uint32_t)(int32_t)v_)
STRUCT_GET(_i16u, uint16_t, (uint32_t)v_)
op_struct_get128:
{
    uint8_t *o = GC_OBJ(2, WASM_TRAP_NULL_STRUCT_REF);
    memcpy(&S(1), o + ip[3], 16); /* dst and dst + 1 */
    ip += 4;
    NEXT();
}
/* [h][ref][value][offset] */
#define STRUCT_SET(name, ctype)                                                                    \
    op_struct_set##name:                                                                           \
    {                                                                                              \
        uint8_t *o_ = GC_OBJ(1, WASM_TRAP_NULL_STRUCT_REF);                                        \
        ctype v_ = (ctype)S(2);                                                                    \
        memcpy(o_ + ip[3], &v_, sizeof(v_));                                                       \
        ip += 4;                                                                                   \
        NEXT();                                                                                    \
    }
STRUCT_SET(8, uint8_t)
STRUCT_SET(16, uint16_t)
STRUCT_SET(32, uint32_t)
STRUCT_SET(64, uint64_t)
op_struct_set128:
{
    uint8_t *o = GC_OBJ(1, WASM_TRAP_NULL_STRUCT_REF);
    memcpy(o + ip[3], &S(2), 16);
    ip += 4;
    NEXT();
}

/* [h][dst][type][init][len], [h][dst][type][len], [h][dst][type][first][n],
 * [h][dst][type][segment][offset][n] (data and elem) */
op_array_new : GC_CALL(sbx__wasm_gc_array_new(store, GC_RTT(2), fp + ip[3], U32(4), &S(1)));
ip += 5;
NEXT();
op_array_new_default : GC_CALL(sbx__wasm_gc_array_new(store, GC_RTT(2), NULL, U32(3), &S(1)));
ip += 4;
NEXT();
op_array_new_fixed
    : GC_CALL(sbx__wasm_gc_array_new_fixed(store, GC_RTT(2), fp + ip[3], W(4), &S(1)));
ip += 5;
NEXT();
op_array_new_data
    : GC_CALL(sbx__wasm_gc_array_new_data(store, GC_RTT(2), inst, W(3), U32(4), U32(5), &S(1)));
ip += 6;
NEXT();
op_array_new_elem
    : GC_CALL(sbx__wasm_gc_array_new_elem(store, GC_RTT(2), inst, W(3), U32(4), U32(5), &S(1)));
ip += 6;
NEXT();

/* [h][dst][ref][index] */
#define ARRAY_AT(k, i, sz)                                                                         \
    ({                                                                                             \
        uint8_t *a_ = GC_OBJ(k, WASM_TRAP_NULL_ARRAY_REF);                                         \
        uint32_t i_ = (i);                                                                         \
        if (UNLIKELY(i_ >= ((const struct wasm_gc_obj *)a_)->len))                                 \
            TRAP(WASM_TRAP_ARRAY_OOB);                                                             \
        a_ + WASM_GC_HEADER + (size_t)i_ *(sz);                                                    \
    })
#define ARRAY_GET(name, ctype, conv)                                                               \
    op_array_get##name:                                                                            \
    {                                                                                              \
        ctype v_;                                                                                  \
        memcpy(&v_, ARRAY_AT(2, U32(3), sizeof(ctype)), sizeof(v_));                               \
        S(1) = conv;                                                                               \
        ip += 4;                                                                                   \
        NEXT();                                                                                    \
    }
ARRAY_GET(32, uint32_t, v_)
ARRAY_GET(64, uint64_t, v_)
ARRAY_GET(_i8s, int8_t, (uint64_t)(uint32_t)(int32_t)v_)
ARRAY_GET(_i8u, uint8_t, (uint32_t)v_)
ARRAY_GET(_i16s, int16_t, (uint64_t)(uint32_t)(int32_t)v_)
ARRAY_GET(_i16u, uint16_t, (uint32_t)v_)
op_array_get128 : memcpy(&S(1), ARRAY_AT(2, U32(3), 16), 16);
ip += 4;
NEXT();
/* [h][ref][index][value] */
#define ARRAY_SET(name, ctype)                                                                     \
    op_array_set##name:                                                                            \
    {                                                                                              \
        ctype v_ = (ctype)S(3);                                                                    \
        memcpy(ARRAY_AT(1, U32(2), sizeof(ctype)), &v_, sizeof(v_));                               \
        ip += 4;                                                                                   \
        NEXT();                                                                                    \
    }
ARRAY_SET(8, uint8_t)
ARRAY_SET(16, uint16_t)
ARRAY_SET(32, uint32_t)
ARRAY_SET(64, uint64_t)
op_array_set128 : memcpy(ARRAY_AT(1, U32(2), 16), &S(3), 16);
ip += 4;
NEXT();
/* [h][dst][ref] */
op_array_len : S(1) = ((const struct wasm_gc_obj *)GC_OBJ(2, WASM_TRAP_NULL_ARRAY_REF))->len;
ip += 3;
NEXT();
/* [h][ref][offset][value][n] */
op_array_fill : GC_CALL(sbx__wasm_gc_array_fill(S(1), U32(2), fp + ip[3], U32(4)));
ip += 5;
NEXT();
/* [h][dst ref][dst offset][src ref][src offset][n] */
op_array_copy : GC_CALL(sbx__wasm_gc_array_copy(S(1), U32(2), S(3), U32(4), U32(5)));
ip += 6;
NEXT();
/* [h][ref][dst offset][src offset][n][segment] */
op_array_init_data
    : GC_CALL(sbx__wasm_gc_array_init_data(S(1), inst, W(5), U32(2), U32(3), U32(4)));
ip += 6;
NEXT();
op_array_init_elem
    : GC_CALL(sbx__wasm_gc_array_init_elem(S(1), inst, W(5), U32(2), U32(3), U32(4)));
ip += 6;
NEXT();

/* [h][dst][ref][heap type][nullable] */
#define GC_TEST(k, h, n)                                                                           \
    sbx__wasm_gc_test(S(k), W(h), wasm_heap_is_abstract(W(h)) ? NULL : GC_RTT(h), W(n) != 0)
op_ref_test : S(1) = GC_TEST(2, 3, 4);
ip += 5;
NEXT();
op_ref_cast : if (UNLIKELY(!GC_TEST(2, 3, 4))) TRAP(WASM_TRAP_CAST);
S(1) = S(2);
ip += 5;
NEXT();
/* [h][ref][heap type][nullable][target]: jumps when the test holds (br_on_cast) or not */
op_br_on_cast : ip = GC_TEST(1, 2, 3) ? TARGET(4) : ip + 5;
NEXT();
op_br_on_cast_fail : ip = GC_TEST(1, 2, 3) ? ip + 5 : TARGET(4);
NEXT();

/* [h][dst][src] */
op_ref_i31 : S(1) = ((S(2) & 0x7FFFFFFFu) << 1) | 1u;
ip += 3;
NEXT();
op_i31_get_s : S(1) = (uint32_t)((int32_t)GC_I31(2) >> 1);
ip += 3;
NEXT();
op_i31_get_u : S(1) = GC_I31(2) >> 1;
ip += 3;
NEXT();
op_any_convert_extern : ex->sp = fp + code->frame_slots;
tk = WASM_TRAP_NONE;
S(1) = sbx__wasm_gc_internalize(store, S(2), &tk);
if (UNLIKELY(tk != WASM_TRAP_NONE))
    goto trap;
ip += 3;
NEXT();
op_extern_convert_any : ex->sp = fp + code->frame_slots;
tk = WASM_TRAP_NONE;
S(1) = sbx__wasm_gc_externalize(store, S(2), &tk);
if (UNLIKELY(tk != WASM_TRAP_NONE))
    goto trap;
ip += 3;
NEXT();
/* [h][dst][a][b] */
op_ref_eq : S(1) = B(S(2) == S(3));
ip += 4;
NEXT();

/* fuzz/wasmgen_gc.c: the GC instructions of the generated bodies. The type section starts with
 * seven fixed GC types (a subtype chain base <- mid <- leaf, a sibling of mid, arrays of i32, i8
 * and base references); each body has five more locals (a base struct, an i32 array, a
 * reference array, an eqref, a loop counter) that start null and carry objects from one GC
 * step to the next. Every step is an island that leaves at most one i32 or i64 on the
 * generator's stack (a field read back, a length, a test's answer), so references never reach
 * the generic stack machine and every GC result reaches the values the target compares. Null
 * dereferences, failed casts and out-of-bounds indices trap mostly only in an if's arm; the
 * allocation loop (one budget unit per iteration) makes enough garbage over a module's calls
 * for collections in both tiers, while a reference array keeps part of it alive. */
#include "wasm/opcodes.h"
#include "wasmgen_impl.h"

enum { T_BASE, T_MID, T_LEAF, T_SIB, T_ARR, T_BYTES, T_REFS };
enum { L_S, L_A, L_R, L_E, L_I }; /* offsets from g->gc_local */
enum { HT_ANY = 0x6e, HT_EQ = 0x6d, HT_I31 = 0x6c, HT_STRUCT = 0x6b, HT_ARRAY = 0x6a };
enum { HT_NONE = 0x71, REF_NULL = 0x63, REF = 0x64, BT_EMPTY = 0x40 };

/* The type section's first entries, in order (a supertype before its subtypes). */
static const uint8_t gc_types[] = {
    0x50, 0x00,     0x5f,   0x01, 0x7f, 0x01,                   /* base: sub (mut i32) */
    0x50, 0x01,     T_BASE, 0x5f, 0x02, 0x7f, 0x01, 0x7e, 0x01, /* mid: + (mut i64) */
    0x4f, 0x01,     T_MID,  0x5f, 0x04, 0x7f, 0x01, 0x7e, 0x01, 0x78, 0x01, 0x77, 0x00, /* leaf */
    0x4f, 0x01,     T_BASE, 0x5f, 0x02, 0x7f, 0x01, 0x7d, 0x01, /* sib: (mut i32) (mut f32) */
    0x5e, 0x7f,     0x01,                                       /* arr: (mut i32) */
    0x5e, 0x78,     0x01,                                       /* bytes: (mut i8) */
    0x5e, REF_NULL, T_BASE, 0x01,                               /* refs: (mut (ref null base)) */
};

void gengc_types(struct buf *s)
{
    buf_bytes(s, gc_types, sizeof(gc_types));
}

void gengc_locals(struct gen *g, struct buf *code)
{
    static const uint8_t decl[] = {1,        REF_NULL, T_BASE, 1,     REF_NULL, T_ARR,   1,
                                   REF_NULL, T_REFS,   1,      HT_EQ, 1,        WGEN_I32};
    g->gc_local = g->local_count;
    buf_bytes(code, decl, sizeof(decl));
}

static void get(struct gen *g, uint32_t l)
{
    gen3_op_idx(g, WASM_OP_LOCAL_GET, g->gc_local + l);
}

static void set(struct gen *g, uint32_t l)
{
    gen3_op_idx(g, WASM_OP_LOCAL_SET, g->gc_local + l);
}

static void i32c(struct gen *g, uint32_t v)
{
    gen3_const(g, WGEN_I32, v);
}

/* A fresh value of type t emitted (not left on the generator's stack). */
static void fresh(struct gen *g, uint8_t t)
{
    gen3_fresh(g, t);
    g->sp--;
}

static void op2(struct gen *g, uint16_t id, uint32_t a, uint32_t b)
{
    gen3_op_idx(g, id, a);
    buf_uleb(g->code, b);
}

/* Whether a step may trap: mostly in an if's arm, rarely elsewhere (a trap ends the call). */
static bool may_trap(struct gen *g)
{
    return gen3_is_conditional(g) ? gen_pick(g, 3) == 0 : gen_pick(g, 24) == 0;
}

/* An array index: mostly one of the first elements, sometimes past any length made here. */
static void arr_index(struct gen *g)
{
    uint32_t c = gen_pick(g, 16);
    if (c < 13)
        i32c(g, gen_pick(g, 3));
    else if (c < 15)
        i32c(g, gen_pick(g, 12));
    else
        fresh(g, WGEN_I32);
}

static void length(struct gen *g)
{
    if (gen_pick(g, 32))
        i32c(g, 1 + gen_pick(g, 8));
    else
        fresh(g, WGEN_I32); /* may be huge: the heap-full trap */
}

/* block (result t) block <ref local> br_on_null 0 <use> br 1 end <const> end: the use sees a
 * non-null reference (or the plain local when trapping is allowed, then null traps). */
static void guarded_open(struct gen *g, uint8_t t, uint32_t l, bool may_null)
{
    gen3_op(g, WASM_OP_BLOCK);
    buf_byte(g->code, t ? t : BT_EMPTY);
    gen3_op(g, WASM_OP_BLOCK);
    buf_byte(g->code, BT_EMPTY);
    get(g, l);
    if (!may_null)
        gen3_op_idx(g, WASM_OP_BR_ON_NULL, 0);
}

static void guarded_close(struct gen *g, uint8_t t)
{
    if (t)
        gen3_op_idx(g, WASM_OP_BR, 1);
    gen3_op(g, WASM_OP_END);
    if (t)
        gen3_const(g, t, gen_bits(g, t));
    gen3_op(g, WASM_OP_END);
    if (t)
        gen3_push(g, t);
}

/* struct.new or struct.new_default of one of the four struct types, kept in L_S (and
 * sometimes L_E as well). */
static void struct_new(struct gen *g)
{
    static const uint8_t fields[4][4] = {{WGEN_I32},
                                         {WGEN_I32, WGEN_I64},
                                         {WGEN_I32, WGEN_I64, WGEN_I32, WGEN_I32},
                                         {WGEN_I32, WGEN_F32}};
    static const uint8_t count[4] = {1, 2, 4, 2};
    uint32_t t = gen_pick(g, 4);
    if (gen_pick(g, 4)) {
        for (uint32_t i = 0; i < count[t]; i++)
            fresh(g, fields[t][i]);
        gen3_op_idx(g, WASM_OP_STRUCT_NEW, t);
    } else {
        gen3_op_idx(g, WASM_OP_STRUCT_NEW_DEFAULT, t);
    }
    uint32_t c = gen_pick(g, 4);
    if (c == 0) {
        gen3_op_idx(g, WASM_OP_LOCAL_TEE, g->gc_local + L_S);
        set(g, L_E);
    } else { /* a field read back at once */
        uint32_t field = gen_pick(g, count[t]);
        bool is_packed = t == T_LEAF && field >= 2;
        gen3_op_idx(g, WASM_OP_LOCAL_TEE, g->gc_local + L_S); /* typed (ref null base): */
        gen3_op_idx(g, gen_pick(g, 2) ? WASM_OP_REF_CAST : WASM_OP_REF_CAST_NULL, t); /* holds */
        op2(g,
            !is_packed       ? WASM_OP_STRUCT_GET
            : gen_pick(g, 2) ? WASM_OP_STRUCT_GET_S
                             : WASM_OP_STRUCT_GET_U,
            t, field);
        gen3_push(g, fields[t][field]);
    }
}

/* block i64 (block (ref mid) L_S br_on_cast 0 drop const br 1 end struct.get mid 1 end */
static void get_mid(struct gen *g)
{
    gen3_op(g, WASM_OP_BLOCK);
    buf_byte(g->code, WGEN_I64);
    gen3_op(g, WASM_OP_BLOCK);
    buf_bytes(g->code, (uint8_t[]){REF, T_MID}, 2);
    get(g, L_S);
    op2(g, WASM_OP_BR_ON_CAST, 0x01, 0); /* flags: source nullable, target not */
    buf_bytes(g->code, (uint8_t[]){T_BASE, T_MID}, 2);
    gen3_op(g, WASM_OP_DROP);
    gen3_const(g, WGEN_I64, gen_bits(g, WGEN_I64));
    gen3_op_idx(g, WASM_OP_BR, 1);
    gen3_op(g, WASM_OP_END);
    op2(g, WASM_OP_STRUCT_GET, T_MID, 1);
    gen3_op(g, WASM_OP_END);
    gen3_push(g, WGEN_I64);
}

/* block i32 (block (ref null base) L_S br_on_cast_fail 0 struct.get sib 0 br 1 end
 * ref.is_null end */
static void get_sib(struct gen *g)
{
    gen3_op(g, WASM_OP_BLOCK);
    buf_byte(g->code, WGEN_I32);
    gen3_op(g, WASM_OP_BLOCK);
    buf_bytes(g->code, (uint8_t[]){REF_NULL, T_BASE}, 2);
    get(g, L_S);
    op2(g, WASM_OP_BR_ON_CAST_FAIL, 0x01, 0);
    buf_bytes(g->code, (uint8_t[]){T_BASE, T_SIB}, 2);
    op2(g, WASM_OP_STRUCT_GET, T_SIB, 0);
    gen3_op_idx(g, WASM_OP_BR, 1);
    gen3_op(g, WASM_OP_END);
    gen3_op(g, WASM_OP_REF_IS_NULL);
    gen3_op(g, WASM_OP_END);
    gen3_push(g, WGEN_I32);
}

/* A field of L_S read back: base's i32 (null-guarded), mid's i64 through br_on_cast, leaf's
 * packed fields behind ref.test, sib's i32 through br_on_cast_fail, or an unguarded cast. */
static void struct_get(struct gen *g)
{
    uint32_t c = gen_pick(g, 5);
    bool trap = may_trap(g);
    if (c == 0) {
        guarded_open(g, WGEN_I32, L_S, trap);
        op2(g, WASM_OP_STRUCT_GET, T_BASE, 0);
        guarded_close(g, WGEN_I32);
    } else if (c == 1) {
        get_mid(g);
    } else if (c == 2) { /* ref.test (ref leaf) if (result i32) ... cast get_s/u else const */
        get(g, L_S);
        gen3_op_idx(g, WASM_OP_REF_TEST, T_LEAF);
        gen3_op(g, WASM_OP_IF);
        buf_byte(g->code, WGEN_I32);
        get(g, L_S);
        gen3_op_idx(g, WASM_OP_REF_CAST, T_LEAF);
        op2(g, gen_pick(g, 2) ? WASM_OP_STRUCT_GET_S : WASM_OP_STRUCT_GET_U, T_LEAF,
            2 + gen_pick(g, 2));
        gen3_op(g, WASM_OP_ELSE);
        i32c(g, (uint32_t)gen_bits(g, WGEN_I32));
        gen3_op(g, WASM_OP_END);
        gen3_push(g, WGEN_I32);
    } else if (c == 3) {
        get_sib(g);
    } else if (trap) { /* a failed cast or a null traps */
        uint32_t field = gen_pick(g, 2);
        get(g, L_S);
        gen3_op_idx(g, gen_pick(g, 2) ? WASM_OP_REF_CAST : WASM_OP_REF_CAST_NULL, T_MID);
        op2(g, WASM_OP_STRUCT_GET, T_MID, field);
        gen3_push(g, field ? WGEN_I64 : WGEN_I32);
    }
}

/* struct.set of base's field (null-guarded), or of mid's i64 / leaf's i8 behind ref.test. */
static void struct_set(struct gen *g)
{
    if (gen_pick(g, 2)) {
        guarded_open(g, 0, L_S, may_trap(g));
        fresh(g, WGEN_I32);
        op2(g, WASM_OP_STRUCT_SET, T_BASE, 0);
        guarded_close(g, 0);
        return;
    }
    bool is_leaf = gen_pick(g, 2);
    uint32_t t = is_leaf ? T_LEAF : T_MID;
    get(g, L_S);
    gen3_op_idx(g, WASM_OP_REF_TEST, t);
    gen3_op(g, WASM_OP_IF);
    buf_byte(g->code, BT_EMPTY);
    get(g, L_S);
    gen3_op_idx(g, WASM_OP_REF_CAST, t);
    fresh(g, is_leaf ? WGEN_I32 : WGEN_I64);
    op2(g, WASM_OP_STRUCT_SET, t, is_leaf ? 2 : 1);
    gen3_op(g, WASM_OP_END);
}

/* A new i32 array in L_A (array.new, new_default or new_fixed), a reference array in L_R, or an
 * i8 array made and read at once (array.get_s/u). */
static void array_new(struct gen *g)
{
    uint32_t c = gen_pick(g, 6);
    if (c == 0) {
        fresh(g, WGEN_I32);
        length(g);
        gen3_op_idx(g, WASM_OP_ARRAY_NEW, T_ARR);
        set(g, L_A);
    } else if (c == 1) {
        length(g);
        gen3_op_idx(g, WASM_OP_ARRAY_NEW_DEFAULT, T_ARR);
        set(g, L_A);
    } else if (c == 2) {
        uint32_t n = gen_pick(g, 5);
        for (uint32_t i = 0; i < n; i++)
            fresh(g, WGEN_I32);
        op2(g, WASM_OP_ARRAY_NEW_FIXED, T_ARR, n);
        set(g, L_A);
    } else if (c == 3) {
        length(g);
        gen3_op_idx(g, WASM_OP_ARRAY_NEW_DEFAULT, T_REFS);
        set(g, L_R);
    } else if (c == 4) {
        get(g, L_S);
        get(g, L_S);
        op2(g, WASM_OP_ARRAY_NEW_FIXED, T_REFS, 2);
        set(g, L_R);
    } else {
        uint32_t n = 1 + gen_pick(g, 4);
        for (uint32_t i = 0; i < n; i++)
            fresh(g, WGEN_I32);
        op2(g, WASM_OP_ARRAY_NEW_FIXED, T_BYTES, n);
        arr_index(g);
        gen3_op_idx(g, gen_pick(g, 2) ? WASM_OP_ARRAY_GET_S : WASM_OP_ARRAY_GET_U, T_BYTES);
        gen3_push(g, WGEN_I32);
    }
}

/* array.get/set/len/fill/copy on L_A (null-guarded unless trapping is allowed), or a
 * reference moved between L_S and L_R. */
static void array_access(struct gen *g)
{
    uint32_t c = gen_pick(g, 7);
    bool trap = may_trap(g);
    if (c == 0) {
        guarded_open(g, WGEN_I32, L_A, trap);
        arr_index(g);
        gen3_op_idx(g, WASM_OP_ARRAY_GET, T_ARR);
        guarded_close(g, WGEN_I32);
    } else if (c == 1) {
        guarded_open(g, 0, L_A, trap);
        arr_index(g);
        fresh(g, WGEN_I32);
        gen3_op_idx(g, WASM_OP_ARRAY_SET, T_ARR);
        guarded_close(g, 0);
    } else if (c == 2) {
        guarded_open(g, WGEN_I32, L_A, trap);
        gen3_op(g, WASM_OP_ARRAY_LEN);
        guarded_close(g, WGEN_I32);
    } else if (c == 3) {
        guarded_open(g, 0, L_A, trap);
        arr_index(g);
        fresh(g, WGEN_I32);
        i32c(g, gen_pick(g, 4));
        gen3_op_idx(g, WASM_OP_ARRAY_FILL, T_ARR);
        guarded_close(g, 0);
    } else if (c == 4) { /* an overlapping copy within L_A */
        guarded_open(g, 0, L_A, trap);
        arr_index(g);
        get(g, L_A);
        arr_index(g);
        i32c(g, gen_pick(g, 4));
        op2(g, WASM_OP_ARRAY_COPY, T_ARR, T_ARR);
        guarded_close(g, 0);
    } else if (c == 5) { /* L_R[i] = L_S */
        guarded_open(g, 0, L_R, trap);
        arr_index(g);
        get(g, L_S);
        gen3_op_idx(g, WASM_OP_ARRAY_SET, T_REFS);
        guarded_close(g, 0);
    } else { /* L_S = L_R[i] */
        guarded_open(g, 0, L_R, trap);
        arr_index(g);
        gen3_op_idx(g, WASM_OP_ARRAY_GET, T_REFS);
        set(g, L_S);
        guarded_close(g, 0);
    }
}

/* i31 references: made and read at once, kept in L_E, or read back from L_E by br_on_cast. */
static void i31(struct gen *g)
{
    uint32_t c = gen_pick(g, 3);
    if (c == 0) {
        fresh(g, WGEN_I32);
        gen3_op(g, WASM_OP_REF_I31);
        gen3_op(g, gen_pick(g, 2) ? WASM_OP_I31_GET_S : WASM_OP_I31_GET_U);
        gen3_push(g, WGEN_I32);
    } else if (c == 1) {
        fresh(g, WGEN_I32);
        gen3_op(g, WASM_OP_REF_I31);
        set(g, L_E);
    } else {
        gen3_op(g, WASM_OP_BLOCK);
        buf_byte(g->code, WGEN_I32);
        gen3_op(g, WASM_OP_BLOCK);
        buf_bytes(g->code, (uint8_t[]){REF, HT_I31}, 2);
        get(g, L_E);
        op2(g, WASM_OP_BR_ON_CAST, 0x01, 0);
        buf_bytes(g->code, (uint8_t[]){HT_EQ, HT_I31}, 2);
        gen3_op(g, WASM_OP_DROP);
        i32c(g, (uint32_t)gen_bits(g, WGEN_I32));
        gen3_op_idx(g, WASM_OP_BR, 1);
        gen3_op(g, WASM_OP_END);
        gen3_op(g, gen_pick(g, 2) ? WASM_OP_I31_GET_S : WASM_OP_I31_GET_U);
        gen3_op(g, WASM_OP_END);
        gen3_push(g, WGEN_I32);
    }
}

/* One of the reference locals, or an i31 or null made here (all in the eq hierarchy). */
static void eq_value(struct gen *g)
{
    uint32_t c = gen_pick(g, 6);
    if (c < 4) {
        get(g, c); /* L_S, L_A, L_R, L_E */
    } else if (c == 4) {
        fresh(g, WGEN_I32);
        gen3_op(g, WASM_OP_REF_I31);
    } else {
        buf_byte(g->code, WASM_OP_REF_NULL);
        buf_byte(g->code, HT_NONE);
    }
}

static void heap_type(struct gen *g)
{
    static const uint8_t abstract[] = {HT_ANY, HT_EQ, HT_I31, HT_STRUCT, HT_ARRAY, HT_NONE};
    uint32_t c = gen_pick(g, 7 + sizeof(abstract));
    buf_byte(g->code, c < 7 ? (uint8_t)c : abstract[c - 7]);
}

/* ref.test / ref.cast of any type, ref.eq, and the round trip through extern. */
static void casts(struct gen *g)
{
    uint32_t c = gen_pick(g, 5);
    if (c == 0) {
        eq_value(g);
        gen3_op(g, gen_pick(g, 2) ? WASM_OP_REF_TEST : WASM_OP_REF_TEST_NULL);
        heap_type(g);
    } else if (c == 1) {
        eq_value(g);
        eq_value(g);
        gen3_op(g, WASM_OP_REF_EQ);
    } else if (c == 2) { /* any -> extern -> any, then a test or (may trap) a cast */
        eq_value(g);
        gen3_op(g, WASM_OP_EXTERN_CONVERT_ANY);
        if (gen_pick(g, 4) == 0) {
            gen3_op(g, WASM_OP_REF_IS_NULL);
            gen3_push(g, WGEN_I32);
            return;
        }
        gen3_op(g, WASM_OP_ANY_CONVERT_EXTERN);
        if (gen_pick(g, 2)) {
            gen3_op(g, WASM_OP_REF_CAST_NULL);
            buf_byte(g->code, HT_EQ);
            set(g, L_E);
            return;
        }
        gen3_op(g, WASM_OP_REF_TEST_NULL);
        heap_type(g);
    } else if (c == 3 && may_trap(g)) {
        eq_value(g);
        gen3_op(g, gen_pick(g, 2) ? WASM_OP_REF_CAST : WASM_OP_REF_CAST_NULL);
        heap_type(g);
        gen3_op(g, WASM_OP_REF_IS_NULL);
    } else { /* L_E = L_S or L_A (an upcast) */
        get(g, gen_pick(g, 2) ? L_S : L_A);
        set(g, L_E);
        return;
    }
    gen3_push(g, WGEN_I32);
}

/* A loop that allocates (a mid or leaf struct into L_S and L_R[i % k], an i32 array of up to
 * 7,168 elements, 28 KiB, into L_A) for n iterations, each costing a budget unit, then reads one of
 * L_R's structs back (it must have survived any collection). */
static void alloc_loop(struct gen *g)
{
    uint32_t k = 1 + gen_pick(g, 16), n = 16 + gen_pick(g, 240), t = T_MID + gen_pick(g, 2);
    i32c(g, k);
    gen3_op_idx(g, WASM_OP_ARRAY_NEW_DEFAULT, T_REFS);
    set(g, L_R);
    i32c(g, n);
    set(g, L_I);
    gen3_op(g, WASM_OP_LOOP);
    buf_byte(g->code, BT_EMPTY);
    gen3_budget_check(g);
    get(g, L_I);
    fresh(g, WGEN_I64);
    if (t == T_LEAF) {
        get(g, L_I);
        fresh(g, WGEN_I32);
    }
    gen3_op_idx(g, WASM_OP_STRUCT_NEW, t);
    set(g, L_S);
    get(g, L_R);
    get(g, L_I);
    i32c(g, k);
    gen3_op(g, WASM_OP_I32_REM_U);
    get(g, L_S);
    gen3_op_idx(g, WASM_OP_ARRAY_SET, T_REFS);
    get(g, L_I);
    i32c(g, 7);
    gen3_op(g, WASM_OP_I32_AND);
    i32c(g, 10);
    gen3_op(g, WASM_OP_I32_SHL);
    gen3_op_idx(g, WASM_OP_ARRAY_NEW_DEFAULT, T_ARR);
    set(g, L_A);
    get(g, L_I);
    i32c(g, 1);
    gen3_op(g, WASM_OP_I32_SUB);
    gen3_op_idx(g, WASM_OP_LOCAL_TEE, g->gc_local + L_I);
    gen3_op_idx(g, WASM_OP_BR_IF, 0);
    gen3_op(g, WASM_OP_END);
    guarded_open(g, WGEN_I64, L_R, true); /* L_R is not null here */
    i32c(g, gen_pick(g, k));
    gen3_op_idx(g, WASM_OP_ARRAY_GET, T_REFS);
    gen3_op_idx(g, WASM_OP_BR_ON_NULL, 0);
    gen3_op_idx(g, WASM_OP_REF_CAST, T_MID);
    op2(g, WASM_OP_STRUCT_GET, T_MID, 1);
    guarded_close(g, WGEN_I64);
}

void gengc_step(struct gen *g)
{
    static void (*const steps[])(struct gen *) = {
        struct_new,   struct_new,   struct_get, struct_get, struct_set, array_new, array_new,
        array_access, array_access, i31,        casts,      casts,      alloc_loop};
    steps[gen_pick(g, sizeof(steps) / sizeof(steps[0]))](g);
}

/* fuzz/wasmgen.c: the module around the generated bodies: one host import (env.h), up to four
 * functions calling each other, a funcref table (active and passive segments), memory 0 (active
 * and passive data) and a 64-bit memory 1, two exception tags, globals (g0 = the termination
 * budget, g1 = the sink of values the bodies would drop; some initialised by extended constant
 * expressions), every entity but memory 1 and the tags exported. */
#include <stdlib.h>
#include <string.h>

#include "wasm/opcodes.h"
#include "wasmgen_impl.h"

uint8_t gen_u8(struct gen *g)
{
    if (!g->in_left)
        return 0;
    g->in_left--;
    return *g->in++;
}

uint32_t gen_pick(struct gen *g, uint32_t n)
{
    return n ? gen_u8(g) % n : 0;
}

uint64_t gen_u64(struct gen *g)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | gen_u8(g);
    return v;
}

void buf_byte(struct buf *b, uint8_t v)
{
    if (b->len == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->is_bad = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    b->p[b->len++] = v;
}

void buf_uleb(struct buf *b, uint64_t v)
{
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        buf_byte(b, (uint8_t)(byte | (v ? 0x80 : 0)));
    } while (v);
}

void buf_sleb(struct buf *b, int64_t v)
{
    for (;;) {
        uint8_t byte = v & 0x7f;
        v >>= 7; /* arithmetic shift: gcc and clang define it */
        bool done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
        buf_byte(b, (uint8_t)(byte | (done ? 0 : 0x80)));
        if (done)
            return;
    }
}

void buf_bytes(struct buf *b, const void *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf_byte(b, ((const uint8_t *)p)[i]);
}

static void buf_name(struct buf *b, char prefix, uint32_t i)
{
    buf_uleb(b, i < 10 ? 2 : 3);
    buf_byte(b, (uint8_t)prefix);
    if (i >= 10)
        buf_byte(b, (uint8_t)('0' + i / 10));
    buf_byte(b, (uint8_t)('0' + i % 10));
}

/* Appends section id with the bytes of body, then empties body. */
static void buf_section(struct buf *b, uint8_t id, struct buf *body)
{
    buf_byte(b, id);
    buf_uleb(b, body->len);
    buf_bytes(b, body->p, body->len);
    b->is_bad |= body->is_bad;
    body->len = 0;
}

uint32_t gen_type(struct gen *g, const struct wgen_sig *sig)
{
    for (uint32_t i = WGEN_GC_TYPES; i < g->type_count; i++)
        if (!memcmp(&g->types[i], sig, sizeof(*sig)))
            return i;
    if (g->type_count == MAX_TYPES)
        return UINT32_MAX;
    g->types[g->type_count] = *sig;
    return g->type_count++;
}

static const uint32_t i32_bits[] = {0,          1,          2,      0xffffffff, 0x80000000,
                                    0x7fffffff, 31,         32,     0xffff,     0x10000,
                                    0xfffc,     0xfffffff0, 0x8000, 7,          65533};
static const uint64_t i64_bits[] = {
    0,  1,  ~0ull,      0x8000000000000000ull, 0x7fffffffffffffffull,
    63, 64, 0xffffffff, 0x100000000ull,        0x80000000ull};
static const uint32_t f32_bits[] = {0,          0x80000000, 0x3f800000, 0xbf800000, 0x7f800000,
                                    0xff800000, 0x7fc00000, 0xffc00000, 0x7fa00000, 0x7fc12345,
                                    0x4f000000, 0xcf000000, 0x4f800000, 0x4effffff, 0x5f000000,
                                    0xdf000000, 0x00000001, 0x3f000000, 0x3fc00000, 0x7f7fffff};
static const uint64_t f64_bits[] = {0,
                                    0x8000000000000000ull,
                                    0x3ff0000000000000ull,
                                    0xbff0000000000000ull,
                                    0x7ff0000000000000ull,
                                    0xfff0000000000000ull,
                                    0x7ff8000000000000ull,
                                    0xfff8000000000000ull,
                                    0x7ff4000000000000ull,
                                    0x7ff8000000012345ull,
                                    0x41e0000000000000ull,
                                    0xc1e0000000000000ull,
                                    0x41f0000000000000ull,
                                    0x41dfffffffc00000ull,
                                    0x43e0000000000000ull,
                                    0xc3e0000000000000ull,
                                    0x0000000000000001ull,
                                    0x3fe0000000000000ull,
                                    0x3ff8000000000000ull,
                                    0xc1e0000000200000ull};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

uint64_t gen_bits(struct gen *g, uint8_t t)
{
    uint32_t c = gen_u8(g);
    bool is_random = c >= 224; /* else an interesting value */
    switch (t) {
    case WGEN_I32:
        return is_random ? (uint32_t)gen_u64(g) : c < 128 ? i32_bits[c % COUNT(i32_bits)] : c - 128;
    case WGEN_I64:
        return is_random ? gen_u64(g) : c < 128 ? i64_bits[c % COUNT(i64_bits)] : (uint64_t)c - 160;
    case WGEN_F32:
        return is_random ? (uint32_t)gen_u64(g) : f32_bits[c % COUNT(f32_bits)];
    default:
        return is_random ? gen_u64(g) : f64_bits[c % COUNT(f64_bits)];
    }
}

static uint8_t gen_numtype(struct gen *g)
{
    static const uint8_t t[] = {WGEN_I32, WGEN_I64, WGEN_F32, WGEN_F64};
    return t[gen_pick(g, 4)];
}

static void gen_sig(struct gen *g, struct wgen_sig *sig)
{
    memset(sig, 0, sizeof(*sig));
    sig->param_count = (uint8_t)gen_pick(g, WGEN_MAX_PARAMS + 1);
    sig->result_count = (uint8_t)gen_pick(g, WGEN_MAX_RESULTS + 1);
    for (uint32_t i = 0; i < sig->param_count; i++)
        sig->params[i] = gen_numtype(g);
    for (uint32_t i = 0; i < sig->result_count; i++)
        sig->results[i] = gen_numtype(g);
}

/* The entities the bodies may use: function types, globals, memory, table, segments. */
static void gen_layout(struct gen *g)
{
    struct wgen_sig host = {2, 1, {WGEN_I32, WGEN_I32}, {WGEN_I32}};
    g->func_type[0] = gen_type(g, &host);
    g->func_count = 2 + gen_pick(g, MAX_FUNCS);
    for (uint32_t i = 1; i < g->func_count; i++) {
        struct wgen_sig sig;
        gen_sig(g, &sig);
        g->func_type[i] = gen_type(g, &sig);
    }
    g->global_count = 2 + gen_pick(g, MAX_GLOBALS - 1);
    g->global_type[0] = WGEN_I32;
    g->global_is_mut[0] = true;
    g->global_type[1] = WGEN_I64;
    g->global_is_mut[1] = true;
    for (uint32_t i = 2; i < g->global_count; i++) {
        g->global_type[i] = gen_numtype(g);
        g->global_is_mut[i] = gen_pick(g, 4) != 0;
    }
    for (uint32_t i = 0; i < WGEN_TAGS; i++) {
        struct wgen_sig tag = {.param_count = (uint8_t)gen_pick(g, 3)};
        for (uint32_t k = 0; k < tag.param_count; k++)
            tag.params[k] = gen_numtype(g);
        g->tag_type[i] = gen_type(g, &tag);
    }
    g->mem_pages = gen_pick(g, 8) ? 1 : gen_pick(g, 3);
    g->table_min = 1 + gen_pick(g, 8);
    g->passive_data_len = gen_pick(g, 32);
    g->passive_elem_len = gen_pick(g, 6);
}

static void emit_types(struct gen *g, struct buf *out, struct buf *s)
{
    buf_uleb(s, g->type_count);
    gengc_types(s);
    for (uint32_t i = WGEN_GC_TYPES; i < g->type_count; i++) {
        const struct wgen_sig *t = &g->types[i];
        buf_byte(s, 0x60);
        buf_uleb(s, t->param_count);
        buf_bytes(s, t->params, t->param_count);
        buf_uleb(s, t->result_count);
        buf_bytes(s, t->results, t->result_count);
    }
    buf_section(out, 1, s);
}

static void emit_const(struct buf *s, uint8_t t, uint64_t bits)
{
    static const uint8_t op[] = {[WGEN_I32 - WGEN_F64] = WASM_OP_I32_CONST,
                                 [WGEN_I64 - WGEN_F64] = WASM_OP_I64_CONST,
                                 [WGEN_F32 - WGEN_F64] = WASM_OP_F32_CONST,
                                 [0] = WASM_OP_F64_CONST};
    buf_byte(s, op[t - WGEN_F64]);
    if (t == WGEN_I32)
        buf_sleb(s, (int32_t)(uint32_t)bits);
    else if (t == WGEN_I64)
        buf_sleb(s, (int64_t)bits);
    else
        for (int i = 0; i < (t == WGEN_F32 ? 4 : 8); i++)
            buf_byte(s, (uint8_t)(bits >> (8 * i)));
}

/* Import, function, table, memory and global sections. */
static void emit_entities(struct gen *g, struct buf *out, struct buf *s)
{
    buf_uleb(s, 1);
    buf_bytes(s,
              "\x03"
              "env"
              "\x01"
              "h"
              "\x00",
              7);
    buf_uleb(s, g->func_type[0]);
    buf_section(out, 2, s);
    buf_uleb(s, g->func_count - 1);
    for (uint32_t i = 1; i < g->func_count; i++)
        buf_uleb(s, g->func_type[i]);
    buf_section(out, 3, s);
    buf_bytes(s, "\x01\x70\x01", 3); /* one funcref table with a maximum */
    buf_uleb(s, g->table_min);
    buf_uleb(s, g->table_min + gen_pick(g, 4));
    buf_section(out, 4, s);
    buf_bytes(s, "\x02\x01", 2); /* memory 0 with a maximum, */
    buf_uleb(s, g->mem_pages);
    buf_uleb(s, g->mem_pages + gen_pick(g, 3));
    buf_bytes(s, "\x05\x01\x01", 3); /* memory 1: 64-bit, one page (wasmgen_3.c) */
    buf_section(out, 5, s);
    buf_uleb(s, WGEN_TAGS);
    for (uint32_t i = 0; i < WGEN_TAGS; i++) {
        buf_byte(s, 0x00);
        buf_uleb(s, g->tag_type[i]);
    }
    buf_section(out, 13, s); /* tags: after memory, before globals */
    buf_uleb(s, g->global_count);
    for (uint32_t i = 0; i < g->global_count; i++) {
        uint8_t t = g->global_type[i];
        buf_byte(s, t);
        buf_byte(s, g->global_is_mut[i]);
        emit_const(s, t, i > 1 ? gen_bits(g, t) : 0);
        if (i > 1 && (t == WGEN_I32 || t == WGEN_I64) && !gen_pick(g, 3)) { /* extended const */
            static const uint8_t ops[2][3] = {{WASM_OP_I32_ADD, WASM_OP_I32_SUB, WASM_OP_I32_MUL},
                                              {WASM_OP_I64_ADD, WASM_OP_I64_SUB, WASM_OP_I64_MUL}};
            emit_const(s, t, gen_bits(g, t));
            buf_byte(s, ops[t == WGEN_I64][gen_pick(g, 3)]);
        }
        buf_byte(s, WASM_OP_END);
    }
    buf_section(out, 6, s);
}

static void emit_exports(struct gen *g, struct buf *out, struct buf *s)
{
    buf_uleb(s, g->func_count - 1 + g->global_count + 2);
    for (uint32_t i = 1; i < g->func_count; i++) {
        buf_name(s, 'f', i - 1);
        buf_byte(s, 0x00);
        buf_uleb(s, i);
    }
    for (uint32_t i = 0; i < g->global_count; i++) {
        buf_name(s, 'g', i);
        buf_byte(s, 0x03);
        buf_uleb(s, i);
    }
    buf_bytes(s, "\x03mem\x02\x00\x03tab\x01\x00", 12);
    buf_section(out, 7, s);
}

/* An active segment at table offset 0 and a passive one, both of function indices. */
static void emit_elems(struct gen *g, struct buf *out, struct buf *s)
{
    uint32_t active = gen_pick(g, g->table_min + 1);
    buf_uleb(s, 2);
    buf_bytes(s, "\x00\x41\x00\x0b", 4);
    buf_uleb(s, active);
    for (uint32_t i = 0; i < active; i++)
        buf_uleb(s, gen_pick(g, g->func_count));
    buf_bytes(s, "\x01\x00", 2);
    buf_uleb(s, g->passive_elem_len);
    for (uint32_t i = 0; i < g->passive_elem_len; i++)
        buf_uleb(s, gen_pick(g, g->func_count));
    buf_section(out, 9, s);
}

/* An active segment (when the memory has a page) and a passive one. */
static void emit_data(struct gen *g, struct buf *out, struct buf *s)
{
    uint32_t active = g->mem_pages ? gen_pick(g, 24) : 0;
    buf_uleb(s, 2);
    buf_byte(s, 0x00); /* active, memory 0 */
    buf_byte(s, WASM_OP_I32_CONST);
    buf_sleb(s, gen_pick(g, 64));
    buf_byte(s, WASM_OP_END);
    buf_uleb(s, active);
    for (uint32_t i = 0; i < active; i++)
        buf_byte(s, gen_u8(g));
    buf_byte(s, 0x01);
    buf_uleb(s, g->passive_data_len);
    for (uint32_t i = 0; i < g->passive_data_len; i++)
        buf_byte(s, gen_u8(g));
    buf_section(out, 11, s);
}

static void gen_call_args(struct gen *g, struct wgen_call *c, uint32_t func)
{
    const struct wgen_sig *t = &g->types[g->func_type[func + 1]];
    c->func = func;
    for (uint32_t k = 0; k < t->param_count; k++)
        c->args[k] = gen_bits(g, t->params[k]);
}

/* Up to eight calls chosen by the input, then a sweep: every function again and again with
 * arguments from a generator seeded by the input. Compiling costs far more than calling, so
 * many calls per module find a wrong result in code that few arguments would pass. */
static void gen_plan(struct gen *g, struct wgen_module *out)
{
    out->budget = 16 + gen_u8(g);
    uint32_t chosen = 1 + gen_pick(g, 8);
    for (uint32_t i = 0; i < chosen; i++)
        gen_call_args(g, &out->calls[i], gen_pick(g, g->func_count - 1));
    uint8_t noise[1024];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < g->in_left; i++)
        x = (x ^ g->in[i]) * 0x100000001b3ull;
    for (size_t i = 0; i < sizeof(noise); i++) { /* xorshift64 */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        noise[i] = (uint8_t)x;
    }
    const uint8_t *in = g->in;
    size_t in_left = g->in_left;
    g->in = noise;
    g->in_left = sizeof(noise);
    for (out->call_count = chosen; out->call_count < WGEN_MAX_CALLS; out->call_count++)
        gen_call_args(g, &out->calls[out->call_count], out->call_count % (g->func_count - 1));
    g->in = in;
    g->in_left = in_left;
}

bool wgen_generate(const uint8_t *data, size_t size, struct wgen_module *out)
{
    struct gen *g = calloc(1, sizeof(*g));
    struct buf mod = {0}, s = {0}, code = {0}, body = {0};
    memset(out, 0, sizeof(*out));
    if (!g)
        return false;
    g->in = data;
    g->in_left = size;
    g->type_count = WGEN_GC_TYPES;
    gen_layout(g);
    /* The plan before the bodies, which may exhaust the input (then it would read as zeros: one
     * call of f0 with zero arguments and a budget too small to run any loop). */
    gen_plan(g, out);
    /* Bodies before the type section: block types add to it. */
    buf_uleb(&code, g->func_count - 1);
    for (uint32_t i = 1; i < g->func_count; i++) {
        gen_body(g, i, &body);
        buf_uleb(&code, body.len);
        buf_bytes(&code, body.p, body.len);
        code.is_bad |= body.is_bad;
        body.len = 0;
    }
    buf_bytes(&mod, "\0asm\1\0\0\0", 8);
    emit_types(g, &mod, &s);
    emit_entities(g, &mod, &s);
    emit_exports(g, &mod, &s);
    emit_elems(g, &mod, &s);
    buf_uleb(&s, 2); /* data count: memory.init and data.drop need it */
    buf_section(&mod, 12, &s);
    buf_section(&mod, 10, &code);
    emit_data(g, &mod, &s);
    out->func_count = g->func_count - 1;
    out->global_count = g->global_count;
    bool is_ok = !mod.is_bad && !s.is_bad;
    free(s.p);
    free(code.p);
    free(body.p);
    free(g);
    out->wasm = mod.p;
    out->len = mod.len;
    if (!is_ok)
        wgen_free(out);
    return is_ok;
}

void wgen_free(struct wgen_module *m)
{
    free(m->wasm);
    m->wasm = NULL;
    m->len = 0;
}

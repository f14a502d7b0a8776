/* plugin/encode.c: a minimal WebAssembly binary encoder for the conformance probes (function
 * imports, one memory, functions, function exports, active data). Value types are letters:
 * 'i' i32, 'I' i64. Sections go out in the order of the spec (5.5.2) with u32 LEB sizes. */
#include <string.h>

#include "plugin/plugin.h"
#include "util/alloc.h"

#define ENC_LIMIT (1u << 20) /* probes are tiny; the cap only bounds a bug */

static void put(struct sbx__enc *e, struct sbx__buf *b, const void *data, size_t len)
{
    if (!sbx__buf_append(b, data, len) || b->is_truncated)
        e->is_oom = true;
}

static void put_byte(struct sbx__enc *e, struct sbx__buf *b, uint8_t byte)
{
    put(e, b, &byte, 1);
}

static void put_uleb(struct sbx__enc *e, struct sbx__buf *b, uint32_t v)
{
    do {
        uint8_t byte = (uint8_t)(v & 0x7f);
        v >>= 7;
        put_byte(e, b, (uint8_t)(byte | (v ? 0x80 : 0)));
    } while (v);
}

static void put_name(struct sbx__enc *e, struct sbx__buf *b, const char *s)
{
    put_uleb(e, b, (uint32_t)strlen(s));
    put(e, b, s, strlen(s));
}

static void put_valtypes(struct sbx__enc *e, struct sbx__buf *b, const char *letters)
{
    put_uleb(e, b, (uint32_t)strlen(letters));
    for (const char *p = letters; *p; p++)
        put_byte(e, b, *p == 'I' ? WASM_I64 : WASM_I32);
}

void sbx__enc_init(struct sbx__enc *e)
{
    memset(e, 0, sizeof(*e));
    sbx__buf_init(&e->types, ENC_LIMIT);
    sbx__buf_init(&e->imports, ENC_LIMIT);
    sbx__buf_init(&e->funcs, ENC_LIMIT);
    sbx__buf_init(&e->exports, ENC_LIMIT);
    sbx__buf_init(&e->code, ENC_LIMIT);
    sbx__buf_init(&e->data, ENC_LIMIT);
}

void sbx__enc_free(struct sbx__enc *e)
{
    sbx__buf_free(&e->types);
    sbx__buf_free(&e->imports);
    sbx__buf_free(&e->funcs);
    sbx__buf_free(&e->exports);
    sbx__buf_free(&e->code);
    sbx__buf_free(&e->data);
}

uint32_t sbx__enc_type(struct sbx__enc *e, const char *params, const char *results)
{
    put_byte(e, &e->types, 0x60);
    put_valtypes(e, &e->types, params);
    put_valtypes(e, &e->types, results);
    return e->type_count++;
}

uint32_t sbx__enc_import(struct sbx__enc *e, const char *module, const char *name, uint32_t type)
{
    if (e->func_count)
        e->is_oom = true; /* imports come first in the function index space */
    put_name(e, &e->imports, module);
    put_name(e, &e->imports, name);
    put_byte(e, &e->imports, 0x00);
    put_uleb(e, &e->imports, type);
    return e->import_count++;
}

uint32_t sbx__enc_func(struct sbx__enc *e, uint32_t type, const uint8_t *body, size_t len)
{
    put_uleb(e, &e->funcs, type);
    /* body: no locals, then the instructions (which end with `end`). */
    put_uleb(e, &e->code, (uint32_t)len + 1);
    put_byte(e, &e->code, 0);
    put(e, &e->code, body, len);
    return e->import_count + e->func_count++;
}

void sbx__enc_memory(struct sbx__enc *e, uint32_t min_pages)
{
    e->has_memory = true;
    e->mem_pages = min_pages;
}

void sbx__enc_export_func(struct sbx__enc *e, const char *name, uint32_t func)
{
    put_name(e, &e->exports, name);
    put_byte(e, &e->exports, 0x00);
    put_uleb(e, &e->exports, func);
    e->export_count++;
}

void sbx__enc_data(struct sbx__enc *e, uint32_t offset, const void *bytes, size_t len)
{
    put_byte(e, &e->data, 0x00);
    put_byte(e, &e->data, 0x41); /* i32.const offset; end */
    /* Signed LEB: offsets stay below 2^20 here, so the unsigned form plus a clear sign bit. */
    uint32_t v = offset;
    for (;;) {
        uint8_t byte = (uint8_t)(v & 0x7f);
        v >>= 7;
        bool is_done = v == 0 && !(byte & 0x40);
        put_byte(e, &e->data, (uint8_t)(byte | (is_done ? 0 : 0x80)));
        if (is_done)
            break;
    }
    put_byte(e, &e->data, 0x0b);
    put_uleb(e, &e->data, (uint32_t)len);
    put(e, &e->data, bytes, len);
    e->data_count++;
}

static void section(struct sbx__enc *e, struct sbx__buf *out, uint8_t id, uint32_t count,
                    const struct sbx__buf *body)
{
    struct sbx__buf head;
    sbx__buf_init(&head, 16);
    put_uleb(e, &head, count);
    put_byte(e, out, id);
    put_uleb(e, out, (uint32_t)(head.len + body->len));
    put(e, out, head.data, head.len);
    put(e, out, body->data, body->len);
    sbx__buf_free(&head);
}

uint8_t *sbx__enc_finish(struct sbx__enc *e, size_t *len)
{
    static const uint8_t header[8] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
    struct sbx__buf out;
    sbx__buf_init(&out, ENC_LIMIT);
    put(e, &out, header, sizeof(header));
    section(e, &out, 1, e->type_count, &e->types);
    if (e->import_count)
        section(e, &out, 2, e->import_count, &e->imports);
    section(e, &out, 3, e->func_count, &e->funcs);
    if (e->has_memory) {
        struct sbx__buf mem;
        sbx__buf_init(&mem, 16);
        put_byte(e, &mem, 0x00); /* no maximum */
        put_uleb(e, &mem, e->mem_pages);
        section(e, &out, 5, 1, &mem);
        sbx__buf_free(&mem);
    }
    section(e, &out, 7, e->export_count, &e->exports);
    section(e, &out, 10, e->func_count, &e->code);
    if (e->data_count)
        section(e, &out, 11, e->data_count, &e->data);
    if (e->is_oom) {
        sbx__buf_free(&out);
        return NULL;
    }
    return (uint8_t *)sbx__buf_take(&out, len);
}

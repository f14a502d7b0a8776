/* wasm_builder.c: the test fixture encoder (binary format, WebAssembly 2.0 spec chapter 5).
 * Sections are buffered separately and emitted in the order the spec requires, each with its
 * byte size as a u32 LEB128 prefix. */
#include "wasm_builder.h"

#include <stdlib.h>
#include <string.h>

#define MAX_TYPES 64

struct wb_type {
    char params[17], results[17];
};

struct wb {
    struct wb_type types[MAX_TYPES];
    uint32_t type_count;
    struct wb_bytes imports, funcs, exports, code, data, names;
    uint32_t import_count, func_count, export_count, data_count, name_count;
    bool has_memory, has_max, has_start;
    uint32_t mem_min, mem_max, start;
    bool is_bad; /* misuse (too many types, import after function) or NOMEM */
};

void wb_bytes_put(struct wb_bytes *b, const void *data, size_t len)
{
    if (b->is_oom)
        return;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        while (cap < b->len + len)
            cap *= 2;
        uint8_t *p = realloc(b->data, cap);
        if (!p) {
            b->is_oom = true;
            return;
        }
        b->data = p;
        b->cap = cap;
    }
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
}

void wb_bytes_byte(struct wb_bytes *b, uint8_t byte)
{
    wb_bytes_put(b, &byte, 1);
}

void wb_bytes_uleb(struct wb_bytes *b, uint64_t v)
{
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        wb_bytes_byte(b, (uint8_t)(byte | (v ? 0x80 : 0)));
    } while (v);
}

void wb_bytes_sleb(struct wb_bytes *b, int64_t v)
{
    for (;;) {
        uint8_t byte = (uint8_t)(v & 0x7f);
        v >>= 7; /* arithmetic shift: gcc and clang on every Linux target */
        bool is_done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
        wb_bytes_byte(b, (uint8_t)(byte | (is_done ? 0 : 0x80)));
        if (is_done)
            return;
    }
}

void wb_bytes_free(struct wb_bytes *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

void wbc_op(struct wb_bytes *c, uint8_t opcode)
{
    wb_bytes_byte(c, opcode);
}

void wbc_i32_const(struct wb_bytes *c, int32_t v)
{
    wb_bytes_byte(c, 0x41);
    wb_bytes_sleb(c, v);
}

void wbc_i64_const(struct wb_bytes *c, int64_t v)
{
    wb_bytes_byte(c, 0x42);
    wb_bytes_sleb(c, v);
}

void wbc_call(struct wb_bytes *c, uint32_t func)
{
    wb_bytes_byte(c, 0x10);
    wb_bytes_uleb(c, func);
}

void wbc_local_get(struct wb_bytes *c, uint32_t idx)
{
    wb_bytes_byte(c, 0x20);
    wb_bytes_uleb(c, idx);
}

void wbc_local_set(struct wb_bytes *c, uint32_t idx)
{
    wb_bytes_byte(c, 0x21);
    wb_bytes_uleb(c, idx);
}

void wbc_local_tee(struct wb_bytes *c, uint32_t idx)
{
    wb_bytes_byte(c, 0x22);
    wb_bytes_uleb(c, idx);
}

void wbc_block(struct wb_bytes *c, uint8_t opcode)
{
    wb_bytes_byte(c, opcode);
    wb_bytes_byte(c, WB_BLOCKTYPE_VOID);
}

static void memarg(struct wb_bytes *c, uint8_t op, uint32_t align)
{
    wb_bytes_byte(c, op);
    wb_bytes_uleb(c, align);
    wb_bytes_uleb(c, 0);
}

void wbc_i32_load(struct wb_bytes *c)
{
    memarg(c, 0x28, 2);
}

void wbc_i32_store(struct wb_bytes *c)
{
    memarg(c, 0x36, 2);
}

void wbc_i64_load(struct wb_bytes *c)
{
    memarg(c, 0x29, 3);
}

void wbc_end(struct wb_bytes *c)
{
    wb_bytes_byte(c, 0x0b);
}

void wbc_spin(struct wb_bytes *c)
{
    wb_bytes_byte(c, WB_OP_LOOP);
    wb_bytes_byte(c, WB_BLOCKTYPE_VOID);
    wb_bytes_byte(c, WB_OP_BR);
    wb_bytes_uleb(c, 0);
    wbc_end(c);
}

struct wb *wb_new(void)
{
    return calloc(1, sizeof(struct wb));
}

void wb_free(struct wb *w)
{
    if (!w)
        return;
    wb_bytes_free(&w->imports);
    wb_bytes_free(&w->funcs);
    wb_bytes_free(&w->exports);
    wb_bytes_free(&w->code);
    wb_bytes_free(&w->data);
    wb_bytes_free(&w->names);
    free(w);
}

static uint8_t valtype(char c)
{
    switch (c) {
    case 'I':
        return 0x7e;
    case 'f':
        return 0x7d;
    case 'F':
        return 0x7c;
    default:
        return 0x7f;
    }
}

static void put_types(struct wb_bytes *b, const char *letters)
{
    wb_bytes_uleb(b, strlen(letters));
    for (const char *p = letters; *p; p++)
        wb_bytes_byte(b, valtype(*p));
}

static void put_name(struct wb_bytes *b, const char *name)
{
    wb_bytes_uleb(b, strlen(name));
    wb_bytes_put(b, name, strlen(name));
}

uint32_t wb_type(struct wb *w, const char *params, const char *results)
{
    for (uint32_t i = 0; i < w->type_count; i++)
        if (!strcmp(w->types[i].params, params) && !strcmp(w->types[i].results, results))
            return i;
    if (w->type_count == MAX_TYPES || strlen(params) > 16 || strlen(results) > 16) {
        w->is_bad = true;
        return 0;
    }
    struct wb_type *t = &w->types[w->type_count];
    memcpy(t->params, params, strlen(params) + 1);
    memcpy(t->results, results, strlen(results) + 1);
    return w->type_count++;
}

uint32_t wb_import_func(struct wb *w, const char *module, const char *name, const char *params,
                        const char *results)
{
    if (w->func_count)
        w->is_bad = true;
    uint32_t type = wb_type(w, params, results);
    put_name(&w->imports, module);
    put_name(&w->imports, name);
    wb_bytes_byte(&w->imports, 0x00); /* importdesc: func */
    wb_bytes_uleb(&w->imports, type);
    return w->import_count++;
}

uint32_t wb_func(struct wb *w, const char *params, const char *results, const char *locals,
                 const struct wb_bytes *body)
{
    wb_bytes_uleb(&w->funcs, wb_type(w, params, results));
    /* One local entry per declared local keeps the encoder trivial (count 1 each). */
    struct wb_bytes fn = {0};
    wb_bytes_uleb(&fn, strlen(locals));
    for (const char *p = locals; *p; p++) {
        wb_bytes_uleb(&fn, 1);
        wb_bytes_byte(&fn, valtype(*p));
    }
    wb_bytes_put(&fn, body->data, body->len);
    if (fn.is_oom || body->is_oom)
        w->is_bad = true;
    wb_bytes_uleb(&w->code, fn.len);
    wb_bytes_put(&w->code, fn.data, fn.len);
    wb_bytes_free(&fn);
    return w->import_count + w->func_count++;
}

uint32_t wb_func_sum(struct wb *w)
{
    struct wb_bytes b = {0};
    /* local 1 = acc; loop: acc += n; n -= 1; br_if n != 0 */
    wbc_op(&b, WB_OP_LOOP), wbc_op(&b, WB_BLOCKTYPE_VOID);
    wbc_local_get(&b, 1), wbc_local_get(&b, 0), wbc_op(&b, WB_OP_I32_ADD), wbc_local_set(&b, 1);
    wbc_local_get(&b, 0), wbc_i32_const(&b, 1), wbc_op(&b, WB_OP_I32_SUB), wbc_local_set(&b, 0);
    wbc_local_get(&b, 0), wbc_op(&b, WB_OP_BR_IF), wb_bytes_uleb(&b, 0), wbc_end(&b);
    wbc_local_get(&b, 1), wbc_end(&b);
    uint32_t idx = wb_func(w, "i", "i", "i", &b);
    wb_bytes_free(&b);
    return idx;
}

uint32_t wb_func_padding(struct wb *w, uint32_t count, uint32_t adds)
{
    uint32_t first = w->import_count + w->func_count;
    struct wb_bytes b = {0};
    for (uint32_t k = 0; k < count; k++) {
        b.len = 0;
        wbc_local_get(&b, 0);
        for (uint32_t j = 0; j < adds; j++)
            wbc_i32_const(&b, (int32_t)(64 + (k * 7 + j) % 8000)), wbc_op(&b, WB_OP_I32_ADD);
        wbc_end(&b);
        wb_func(w, "i", "i", "", &b);
    }
    wb_bytes_free(&b);
    return first;
}

void wb_func_name(struct wb *w, uint32_t func, const char *name)
{
    wb_bytes_uleb(&w->names, func);
    put_name(&w->names, name);
    w->name_count++;
}

void wb_memory(struct wb *w, uint32_t min_pages, int64_t max_pages)
{
    w->has_memory = true;
    w->mem_min = min_pages;
    w->has_max = max_pages >= 0;
    w->mem_max = max_pages >= 0 ? (uint32_t)max_pages : 0;
}

static void add_export(struct wb *w, const char *name, uint8_t kind, uint32_t idx)
{
    put_name(&w->exports, name);
    wb_bytes_byte(&w->exports, kind);
    wb_bytes_uleb(&w->exports, idx);
    w->export_count++;
}

void wb_export_func(struct wb *w, const char *name, uint32_t func)
{
    add_export(w, name, 0x00, func);
}

void wb_export_memory(struct wb *w, const char *name)
{
    add_export(w, name, 0x02, 0);
}

void wb_start(struct wb *w, uint32_t func)
{
    w->has_start = true;
    w->start = func;
}

void wb_data(struct wb *w, uint32_t offset, const void *bytes, size_t len)
{
    wb_bytes_byte(&w->data, 0x00); /* active, memory 0 */
    wbc_i32_const(&w->data, (int32_t)offset);
    wbc_end(&w->data);
    wb_bytes_uleb(&w->data, len);
    wb_bytes_put(&w->data, bytes, len);
    w->data_count++;
}

/* Appends section id with a vector of count items whose encoding is in body. */
static void section(struct wb_bytes *out, uint8_t id, uint32_t count, const struct wb_bytes *body)
{
    struct wb_bytes s = {0};
    wb_bytes_uleb(&s, count);
    wb_bytes_put(&s, body->data, body->len);
    wb_bytes_byte(out, id);
    wb_bytes_uleb(out, s.len);
    wb_bytes_put(out, s.data, s.len);
    if (s.is_oom)
        out->is_oom = true;
    wb_bytes_free(&s);
}

/* The "name" custom section (spec 7.4) with its function names subsection (id 1). */
static void name_section(struct wb *w, struct wb_bytes *out)
{
    struct wb_bytes map = {0}, b = {0};
    wb_bytes_uleb(&map, w->name_count);
    wb_bytes_put(&map, w->names.data, w->names.len);
    put_name(&b, "name");
    wb_bytes_byte(&b, 1);
    wb_bytes_uleb(&b, map.len);
    wb_bytes_put(&b, map.data, map.len);
    wb_bytes_byte(out, 0);
    wb_bytes_uleb(out, b.len);
    wb_bytes_put(out, b.data, b.len);
    if (map.is_oom || b.is_oom)
        out->is_oom = true;
    wb_bytes_free(&map);
    wb_bytes_free(&b);
}

static void type_section(struct wb *w, struct wb_bytes *out)
{
    struct wb_bytes b = {0};
    for (uint32_t i = 0; i < w->type_count; i++) {
        wb_bytes_byte(&b, 0x60);
        put_types(&b, w->types[i].params);
        put_types(&b, w->types[i].results);
    }
    section(out, 1, w->type_count, &b);
    wb_bytes_free(&b);
}

static void memory_section(struct wb *w, struct wb_bytes *out)
{
    struct wb_bytes b = {0};
    wb_bytes_byte(&b, w->has_max ? 0x01 : 0x00);
    wb_bytes_uleb(&b, w->mem_min);
    if (w->has_max)
        wb_bytes_uleb(&b, w->mem_max);
    section(out, 5, 1, &b);
    wb_bytes_free(&b);
}

uint8_t *wb_finish(struct wb *w, size_t *len)
{
    static const uint8_t header[8] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
    struct wb_bytes out = {0};
    wb_bytes_put(&out, header, sizeof(header));
    if (w->type_count)
        type_section(w, &out);
    if (w->import_count)
        section(&out, 2, w->import_count, &w->imports);
    if (w->func_count)
        section(&out, 3, w->func_count, &w->funcs);
    if (w->has_memory)
        memory_section(w, &out);
    if (w->export_count)
        section(&out, 7, w->export_count, &w->exports);
    if (w->has_start) {
        wb_bytes_byte(&out, 8);
        struct wb_bytes s = {0};
        wb_bytes_uleb(&s, w->start);
        wb_bytes_uleb(&out, s.len);
        wb_bytes_put(&out, s.data, s.len);
        wb_bytes_free(&s);
    }
    if (w->func_count)
        section(&out, 10, w->func_count, &w->code);
    if (w->data_count)
        section(&out, 11, w->data_count, &w->data);
    if (w->name_count)
        name_section(w, &out);
    bool is_bad = w->is_bad || out.is_oom || w->imports.is_oom || w->funcs.is_oom ||
                  w->exports.is_oom || w->code.is_oom || w->data.is_oom || w->names.is_oom;
    if (is_bad) {
        wb_bytes_free(&out);
        return NULL;
    }
    *len = out.len;
    return out.data;
}

uint8_t *wb_finish_export(struct wb *w, const char *name, const char *params, const char *results,
                          struct wb_bytes *body, size_t *len)
{
    wb_export_func(w, name, wb_func(w, params, results, "", body));
    wb_bytes_free(body);
    uint8_t *bytes = wb_finish(w, len);
    wb_free(w);
    return bytes;
}

/* ---- fixtures ---------------------------------------------------------------------------- */

uint8_t *wb_fixture_print_exit(const char *text, uint32_t fd, int code, size_t *len)
{
    struct wb *w = wb_new();
    if (!w)
        return NULL;
    uint32_t fd_write = wb_import_func(w, "wasi_snapshot_preview1", "fd_write", "iiii", "i");
    uint32_t proc_exit = wb_import_func(w, "wasi_snapshot_preview1", "proc_exit", "i", "");
    wb_memory(w, 1, -1);
    wb_export_memory(w, "memory");
    /* iovec {buf = 16, len} at 0; the text at 16; nwritten at 8. */
    uint32_t iov[2] = {16, (uint32_t)strlen(text)};
    wb_data(w, 0, iov, sizeof(iov));
    wb_data(w, 16, text, strlen(text));
    struct wb_bytes c = {0};
    wbc_i32_const(&c, (int32_t)fd);
    wbc_i32_const(&c, 0);
    wbc_i32_const(&c, 1);
    wbc_i32_const(&c, 8);
    wbc_call(&c, fd_write);
    wbc_op(&c, WB_OP_DROP);
    if (code >= 0) {
        wbc_i32_const(&c, code);
        wbc_call(&c, proc_exit);
    }
    wbc_end(&c);
    return wb_finish_export(w, "_start", "", "", &c, len);
}

uint8_t *wb_fixture_spin(size_t *len)
{
    struct wb *w = wb_new();
    if (!w)
        return NULL;
    struct wb_bytes c = {0};
    wbc_spin(&c);
    wbc_end(&c);
    return wb_finish_export(w, "_start", "", "", &c, len);
}

uint8_t *wb_fixture_trap(size_t *len)
{
    struct wb *w = wb_new();
    if (!w)
        return NULL;
    struct wb_bytes c = {0};
    wbc_op(&c, WB_OP_UNREACHABLE);
    wbc_end(&c);
    return wb_finish_export(w, "_start", "", "", &c, len);
}

static uint32_t binop_func(struct wb *w, uint8_t op)
{
    struct wb_bytes c = {0};
    wbc_local_get(&c, 0);
    wbc_local_get(&c, 1);
    wbc_op(&c, op);
    wbc_end(&c);
    uint32_t f = wb_func(w, "ii", "i", "", &c);
    wb_bytes_free(&c);
    return f;
}

uint8_t *wb_fixture_reactor(size_t *len)
{
    struct wb *w = wb_new();
    if (!w)
        return NULL;
    wb_memory(w, 1, 2);
    wb_export_memory(w, "memory");
    wb_export_func(w, "add", binop_func(w, WB_OP_I32_ADD));
    wb_export_func(w, "div", binop_func(w, WB_OP_I32_DIV_S));
    struct wb_bytes c = {0};
    wbc_i32_const(&c, 0);
    wbc_i32_const(&c, 42);
    wbc_i32_store(&c);
    wbc_end(&c);
    wb_export_func(w, "_initialize", wb_func(w, "", "", "", &c));
    c.len = 0;
    wbc_i32_const(&c, 0);
    wbc_i32_load(&c);
    wbc_end(&c);
    return wb_finish_export(w, "get", "", "i", &c, len);
}

uint8_t *wb_fixture_cap_caller(const char *module, const char *name, size_t *len)
{
    struct wb *w = wb_new();
    if (!w)
        return NULL;
    uint32_t imp = wb_import_func(w, module, name, "", "i");
    struct wb_bytes c = {0};
    wbc_call(&c, imp);
    wbc_end(&c);
    return wb_finish_export(w, "call", "", "i", &c, len);
}

uint8_t *wb_fixture_quick_sum(int32_t k, size_t *len)
{
    struct wb *w = wb_new();
    uint32_t work = wb_func_sum(w);
    struct wb_bytes q = {0};
    wbc_i32_const(&q, k), wbc_call(&q, work), wbc_end(&q);
    return wb_finish_export(w, "quick", "", "i", &q, len);
}

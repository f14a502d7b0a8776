/* wasm/decode_segs.c: constant expressions, element/data segments (all 2.0 encodings), the
 * code section's bodies and locals, custom sections and the "name" section, and the merge of
 * imported and defined index spaces. A malformed "name" section is ignored, never fatal. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/const_expr.h"
#include "wasm/decode_internal.h"
#include "wasm/limits.h"
#include "wasm/types.h"

void sbx__wasm_dec_defer_invalid(struct wasm_dec *d, const uint8_t *at, const char *msg)
{
    if (d->has_invalid)
        return;
    d->has_invalid = true;
    snprintf(d->invalid, sizeof d->invalid, "invalid: %s at offset %zu", msg,
             (size_t)(at - d->r.base));
}

/* Records the one constant instruction; false if `in` is not constant (spec 3.3.10). */
static bool set_init(struct wasm_init *out, const struct wasm_instr *in)
{
    memset(out, 0, sizeof *out);
    switch (in->op) {
    case WASM_OP_I32_CONST:
        out->type = WASM_I32, out->value.i32 = (uint32_t)in->value;
        return true;
    case WASM_OP_I64_CONST:
        out->type = WASM_I64, out->value.i64 = in->value;
        return true;
    case WASM_OP_F32_CONST:
        out->type = WASM_F32, out->value.f32 = (uint32_t)in->value;
        return true;
    case WASM_OP_F64_CONST:
        out->type = WASM_F64, out->value.f64 = in->value;
        return true;
    case WASM_OP_V128_CONST:
        out->type = WASM_V128;
        memcpy(out->value.v128, in->bytes, 16);
        return true;
    case WASM_OP_GLOBAL_GET:
        out->op = WASM_INIT_GLOBAL_GET, out->index = in->idx; /* type set by the validator */
        return true;
    case WASM_OP_REF_NULL:
        out->op = WASM_INIT_REF_NULL, out->type = in->valtype;
        return true;
    case WASM_OP_REF_FUNC:
        out->op = WASM_INIT_REF_FUNC, out->type = WASM_FUNCREF, out->index = in->idx;
        return true;
    default:
        return false;
    }
}

/* One instruction is pre-decoded; more (extended constant expressions) are kept as code for
 * const_expr.c. A non-constant instruction is invalid, reported once the rest decodes. */
bool sbx__wasm_dec_const_expr(struct wasm_dec *d, struct wasm_init *out)
{
    struct wasm_reader *r = &d->r;
    const uint8_t *start = r->p, *last = r->p;
    struct wasm_instr in;
    uint32_t count = 0, depth = 0;
    bool is_const = true, is_pre = false;
    memset(out, 0, sizeof *out);
    for (;;) {
        const uint8_t *at = r->p;
        if (!sbx__wasm_read_instr(r, &in))
            return false;
        if (in.op == WASM_OP_END) {
            if (depth == 0)
                break;
            depth--;
        } else if (in.op == WASM_OP_BLOCK || in.op == WASM_OP_LOOP || in.op == WASM_OP_IF) {
            depth++;
        }
        if (!sbx__wasm_const_instr(in.op) && is_const) {
            is_const = false;
            sbx__wasm_dec_defer_invalid(d, at, "constant expression required");
        }
        if (count++ == 0)
            is_pre = set_init(out, &in);
        last = r->p;
    }
    /* One instruction set_init does not pre-decode (struct.new_default ...) is kept as code. */
    if (is_const && (count != 1 || !is_pre)) {
        memset(out, 0, sizeof *out);
        out->op = WASM_INIT_EXPR;
        out->code = start;
        out->code_len = (uint32_t)(last - start);
    }
    return true;
}

static bool read_elem_items(struct wasm_dec *d, struct wasm_elem_seg *seg, bool is_expr)
{
    struct wasm_reader *r = &d->r;
    uint32_t n, cap;
    if (!sbx__wasm_rd_vec(r, 1, &n, &cap))
        return false;
    seg->items = sbx__wasm_dec_alloc(d, cap, sizeof *seg->items);
    if (seg->items == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(r, i, cap))
            return false;
        seg->count = i + 1;
        struct wasm_init *it = &seg->items[i];
        if (is_expr) {
            if (!sbx__wasm_dec_const_expr(d, it))
                return false;
        } else {
            it->op = WASM_INIT_REF_FUNC;
            it->type = WASM_FUNCREF;
            if (!sbx__wasm_rd_u32(r, &it->index))
                return false;
        }
    }
    return true;
}

/* Flags (spec 5.5.12): bit 0 = passive or declarative, bit 1 = explicit table index (active)
 * or declarative (not active), bit 2 = items are expressions. */
static bool read_elem(struct wasm_dec *d, struct wasm_elem_seg *seg)
{
    struct wasm_reader *r = &d->r;
    const uint8_t *at = r->p;
    uint32_t flags;
    if (!sbx__wasm_rd_u32(r, &flags))
        return false;
    if (flags > 7)
        return sbx__wasm_rd_fail(r, at, "malformed elements segment kind");
    bool is_expr = (flags & 4) != 0;
    /* 3.0: function indices make (ref func) elements, expressions default to funcref */
    seg->elem_type = is_expr ? WASM_FUNCREF : WASM_REF(0, WASM_HT_FUNC);
    if (flags & 1) {
        seg->mode = (flags & 2) ? WASM_SEG_DECLARATIVE : WASM_SEG_PASSIVE;
    } else {
        seg->mode = WASM_SEG_ACTIVE;
        if ((flags & 2) && !sbx__wasm_rd_u32(r, &seg->table_index))
            return false;
        if (!sbx__wasm_dec_const_expr(d, &seg->offset))
            return false;
    }
    if (flags & 3) {
        at = r->p;
        if (is_expr) {
            if (!sbx__wasm_rd_reftype(r, &seg->elem_type))
                return false;
        } else {
            uint8_t kind;
            if (!sbx__wasm_rd_byte(r, &kind))
                return false;
            if (kind != 0)
                return sbx__wasm_rd_fail(r, at, "malformed element kind");
        }
    }
    return read_elem_items(d, seg, is_expr);
}

bool sbx__wasm_dec_elem_section(struct wasm_dec *d)
{
    struct wasm_module *m = d->m;
    const uint8_t *at = d->r.p;
    uint32_t n, cap;
    if (!sbx__wasm_rd_vec(&d->r, 2, &n, &cap) ||
        !sbx__wasm_dec_at_most(d, at, n, cap, WASM_MAX_ELEM_SEGMENTS, "element segments"))
        return false;
    m->elems = sbx__wasm_dec_alloc(d, cap, sizeof *m->elems);
    if (m->elems == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(&d->r, i, cap))
            return false;
        m->elem_count = i + 1;
        if (!read_elem(d, &m->elems[i]))
            return false;
    }
    return true;
}

static bool read_data(struct wasm_dec *d, struct wasm_data_seg *seg)
{
    struct wasm_reader *r = &d->r;
    const uint8_t *at = r->p;
    uint32_t flags;
    if (!sbx__wasm_rd_u32(r, &flags))
        return false;
    if (flags > 2)
        return sbx__wasm_rd_fail(r, at, "malformed data segment kind");
    seg->mode = flags == 1 ? WASM_SEG_PASSIVE : WASM_SEG_ACTIVE;
    if (flags == 2 && !sbx__wasm_rd_u32(r, &seg->mem_index))
        return false;
    if (flags != 1 && !sbx__wasm_dec_const_expr(d, &seg->offset))
        return false;
    if (!sbx__wasm_rd_u32(r, &seg->len))
        return false;
    if (seg->len > (size_t)(r->end - r->p)) {
        r->p = r->end;
        uint8_t dummy;
        return sbx__wasm_rd_byte(r, &dummy); /* "unexpected end ..." */
    }
    seg->bytes = r->p;
    r->p += seg->len;
    return true;
}

bool sbx__wasm_dec_data_section(struct wasm_dec *d)
{
    struct wasm_module *m = d->m;
    const uint8_t *at = d->r.p;
    uint32_t n, cap;
    if (!sbx__wasm_rd_vec(&d->r, 2, &n, &cap) ||
        !sbx__wasm_dec_at_most(d, at, n, cap, WASM_MAX_DATA_SEGMENTS, "data segments"))
        return false;
    m->datas = sbx__wasm_dec_alloc(d, cap, sizeof *m->datas);
    if (m->datas == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(&d->r, i, cap))
            return false;
        m->data_count = i + 1;
        if (!read_data(d, &m->datas[i]))
            return false;
    }
    return true;
}

/* Reads the local declarations twice: once to check and count, once to keep them as runs
 * (four bytes per local would make the module-wide limit cost 64 MB of host memory). */
static bool read_locals(struct wasm_dec *d, struct wasm_func_def *f)
{
    struct wasm_reader *r = &d->r;
    uint32_t groups;
    if (!sbx__wasm_rd_u32(r, &groups))
        return false;
    const uint8_t *first = r->p;
    uint64_t total = 0;
    /* All groups are read before the limit applies: a sum past 2^32 is malformed (spec
     * 5.5.13), which must win over the implementation limit. Each group takes >= 2 bytes. */
    for (uint32_t i = 0; i < groups; i++) {
        uint32_t n;
        wasm_vtype t;
        const uint8_t *at = r->p;
        if (!sbx__wasm_rd_u32(r, &n) || !sbx__wasm_rd_valtype(r, &t))
            return false;
        total += n;
        if (total > UINT32_MAX)
            return sbx__wasm_rd_fail(r, at, "too many locals");
    }
    if (total > WASM_MAX_LOCALS)
        return sbx__wasm_rd_limit(r, first, "%" PRIu64 " locals, more than %u", total,
                                  WASM_MAX_LOCALS);
    d->local_total += total;
    if (d->local_total > WASM_MAX_MODULE_LOCALS)
        return sbx__wasm_rd_limit(r, first, "%" PRIu64 " locals in the module, more than %u",
                                  d->local_total, WASM_MAX_MODULE_LOCALS);
    f->local_count = (uint32_t)total;
    f->local_runs = sbx__wasm_dec_alloc(d, groups ? groups : 1, sizeof(*f->local_runs));
    if (f->local_runs == NULL)
        return false;
    const uint8_t *after = r->p;
    r->p = first;
    uint32_t k = 0;
    for (uint32_t i = 0; i < groups; i++) {
        uint32_t n;
        wasm_vtype t;
        if (!sbx__wasm_rd_u32(r, &n) || !sbx__wasm_rd_valtype(r, &t))
            return false;
        k += n;
        f->local_runs[f->run_count++] = (struct wasm_local_run){.end = k, .type = t};
    }
    r->p = after;
    return true;
}

static bool read_body(struct wasm_dec *d, struct wasm_func_def *f)
{
    struct wasm_reader *r = &d->r;
    uint32_t size;
    if (!sbx__wasm_rd_u32(r, &size))
        return false;
    if (size > (size_t)(r->end - r->p))
        return sbx__wasm_rd_fail(r, r->p, "length out of bounds");
    if (size > WASM_MAX_BODY_BYTES)
        return sbx__wasm_rd_limit(r, r->p, "function body of %" PRIu32 " bytes, more than %u", size,
                                  WASM_MAX_BODY_BYTES);
    const uint8_t *sec_end = r->end;
    const uint8_t *body_end = r->p + size;
    r->end = body_end;
    if (!read_locals(d, f))
        return false;
    f->code = r->p;
    f->code_len = (uint32_t)(body_end - r->p);
    f->code_offset = (uint32_t)(r->p - r->base);
    r->p = body_end;
    r->end = sec_end;
    return true;
}

bool sbx__wasm_dec_code_section(struct wasm_dec *d)
{
    struct wasm_module *m = d->m;
    const uint8_t *at = d->r.p;
    uint32_t n;
    if (!sbx__wasm_rd_u32(&d->r, &n))
        return false;
    /* Fewer bodies than functions is found at the end (check_counts), as the spec does. */
    if (n > m->func_def_count)
        return sbx__wasm_rd_fail(&d->r, at, "function and code section have inconsistent lengths");
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(&d->r, i, n) || !read_body(d, &m->funcs[i]))
            return false;
    }
    d->code_count = n;
    return true;
}

bool sbx__wasm_dec_custom(struct wasm_dec *d)
{
    struct wasm_module *m = d->m;
    struct wasm_reader *r = &d->r;
    const uint8_t *s;
    uint32_t len;
    if (!sbx__wasm_rd_name(r, &s, &len))
        return false;
    if (m->custom_count == d->custom_cap) {
        uint32_t cap = d->custom_cap ? d->custom_cap * 2 : 4; /* each is >= 2 bytes: no overflow */
        struct wasm_custom_section *grown = sbx__reallocn(m->customs, cap, sizeof *grown);
        if (grown == NULL) {
            d->is_nomem = true;
            return sbx__wasm_rd_fail(r, r->p, "out of memory");
        }
        m->customs = grown;
        d->custom_cap = cap;
    }
    struct wasm_custom_section *cs = &m->customs[m->custom_count];
    memset(cs, 0, sizeof *cs);
    m->custom_count++;
    if (!(cs->name = sbx__wasm_dec_strndup(d, s, len)))
        return false;
    cs->data = r->p;
    cs->len = (uint32_t)(r->end - r->p);
    r->p = r->end;
    return true;
}

/* Reads the function-names subsection (id 1) of a "name" section; stops quietly at the first
 * problem, keeping the names read so far. */
static void read_func_names(struct wasm_module *m, const uint8_t *p, const uint8_t *end)
{
    struct wasm_reader r = {.base = m->bytes, .file_end = end, .p = p, .end = end};
    uint32_t n;
    if (!sbx__wasm_rd_u32(&r, &n) || m->func_count == 0)
        return;
    if (m->func_names == NULL && !(m->func_names = sbx__calloc(m->func_count, sizeof(char *))))
        return;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx, len;
        const uint8_t *s;
        if (!sbx__wasm_rd_u32(&r, &idx) || !sbx__wasm_rd_name(&r, &s, &len))
            return;
        if (idx < m->func_count && m->func_names[idx] == NULL)
            m->func_names[idx] = sbx__strndup((const char *)s, len);
    }
}

static void read_name_section(struct wasm_module *m, const struct wasm_custom_section *cs)
{
    struct wasm_reader r = {
        .base = m->bytes, .file_end = cs->data + cs->len, .p = cs->data, .end = cs->data + cs->len};
    while (r.p < r.end && !r.is_failed) {
        uint8_t id;
        uint32_t size;
        if (!sbx__wasm_rd_byte(&r, &id) || !sbx__wasm_rd_u32(&r, &size) ||
            size > (size_t)(r.end - r.p))
            return;
        if (id == 1) {
            read_func_names(m, r.p, r.p + size);
            return;
        }
        r.p += size;
    }
}

/* Concatenates imported and defined entities into one index space. */
static void *merge(struct wasm_dec *d, size_t elem_size, uint32_t nimp, uint32_t ndef,
                   const void *defs, uint32_t *total)
{
    uint8_t *all = sbx__wasm_dec_alloc(d, (size_t)nimp + ndef, elem_size);
    if (all == NULL)
        return NULL;
    if (ndef > 0)
        memcpy(all + (size_t)nimp * elem_size, defs, (size_t)ndef * elem_size);
    *total = nimp + ndef;
    return all;
}

static void fill_imports(struct wasm_module *m)
{
    uint32_t f = 0, t = 0, mm = 0, g = 0, tg = 0;
    for (uint32_t i = 0; i < m->import_count; i++) {
        const struct wasm_import *imp = &m->imports[i];
        if (imp->kind == WASM_EXTERN_FUNC)
            m->func_type_idx[f++] = imp->u.func_type;
        else if (imp->kind == WASM_EXTERN_TABLE)
            m->tables[t++] = imp->u.table;
        else if (imp->kind == WASM_EXTERN_MEMORY)
            m->mems[mm++] = imp->u.mem;
        else if (imp->kind == WASM_EXTERN_GLOBAL)
            m->globals[g++] = imp->u.global;
        else
            m->tag_types[tg++] = imp->u.tag_type;
    }
}

bool sbx__wasm_dec_finish(struct wasm_dec *d)
{
    struct wasm_module *m = d->m;
    if ((uint64_t)m->func_import_count + m->func_def_count > UINT32_MAX)
        return sbx__wasm_rd_fail(&d->r, d->r.p, "too many functions");
    m->func_count = m->func_import_count + m->func_def_count;
    m->func_type_idx = sbx__wasm_dec_alloc(d, m->func_count, sizeof *m->func_type_idx);
    m->tables = merge(d, sizeof *m->tables, m->table_import_count, d->table_def_count,
                      d->table_defs, &m->table_count);
    m->mems = merge(d, sizeof *m->mems, m->mem_import_count, d->mem_def_count, d->mem_defs,
                    &m->mem_count);
    m->globals = merge(d, sizeof *m->globals, m->global_import_count, d->global_def_count,
                       d->global_defs, &m->global_count);
    m->tag_types = merge(d, sizeof *m->tag_types, m->tag_import_count, d->tag_def_count,
                         d->tag_defs, &m->tag_count);
    if (m->func_type_idx == NULL || m->tables == NULL || m->mems == NULL || m->globals == NULL ||
        m->tag_types == NULL)
        return false;
    fill_imports(m);
    for (uint32_t i = 0; i < m->func_def_count; i++)
        m->func_type_idx[m->func_import_count + i] = m->funcs[i].type_index;
    for (uint32_t i = 0; i < m->custom_count; i++) {
        if (strcmp(m->customs[i].name, "name") == 0) {
            read_name_section(m, &m->customs[i]);
            break;
        }
    }
    return true;
}

void sbx__wasm_dec_release(struct wasm_dec *d)
{
    sbx__free(d->table_defs);
    sbx__free(d->mem_defs);
    sbx__free(d->global_defs);
    sbx__free(d->tag_defs);
}

static void free_init_list(struct wasm_elem_seg *e)
{
    sbx__free(e->items);
}

void sbx__wasm_module_clear(struct wasm_module *m)
{
    sbx__wasm_types_release(m);
    for (uint32_t i = 0; i < m->type_count; i++) {
        sbx__free(m->types[i].types);
        sbx__free(m->typedefs[i].fields);
    }
    sbx__free(m->types);
    sbx__free(m->typedefs);
    for (uint32_t i = 0; i < m->import_count; i++) {
        sbx__free(m->imports[i].module);
        sbx__free(m->imports[i].name);
    }
    sbx__free(m->imports);
    sbx__free(m->func_type_idx);
    if (m->funcs != NULL) {
        for (uint32_t i = 0; i < m->func_def_count; i++) {
            sbx__free(m->funcs[i].local_runs);
            sbx__free(m->funcs[i].local_zeroed);
        }
    }
    sbx__free(m->funcs);
    sbx__free(m->tables);
    sbx__free(m->mems);
    sbx__free(m->globals);
    sbx__free(m->global_inits);
    sbx__free(m->table_inits);
    sbx__free(m->tag_types);
    for (uint32_t i = 0; i < m->export_count; i++)
        sbx__free(m->exports[i].name);
    sbx__free(m->exports);
    for (uint32_t i = 0; i < m->elem_count; i++)
        free_init_list(&m->elems[i]);
    sbx__free(m->elems);
    sbx__free(m->datas);
    for (uint32_t i = 0; i < m->custom_count; i++)
        sbx__free(m->customs[i].name);
    sbx__free(m->customs);
    if (m->func_names != NULL) {
        for (uint32_t i = 0; i < m->func_count; i++)
            sbx__free(m->func_names[i]);
    }
    sbx__free(m->func_names);
    sbx__free(m->func_is_declared);
}

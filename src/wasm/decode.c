/* wasm/decode.c: the binary module decoder (spec 5.5): header, section order and sizes, and
 * the sections that declare things (types, imports, functions, tables, memories, globals,
 * exports, start). Segments, code and custom sections are in decode_segs.c. Every count is
 * checked against the bytes left before anything is allocated. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/decode_internal.h"
#include "wasm/limits.h"

void *sbx__wasm_dec_alloc(struct wasm_dec *d, size_t count, size_t size)
{
    void *p = sbx__calloc(count, size);
    if (p == NULL) {
        d->is_nomem = true;
        sbx__wasm_rd_fail(&d->r, d->r.p, "out of memory");
    }
    return p;
}

bool sbx__wasm_dec_at_most(struct wasm_dec *d, const uint8_t *at, uint64_t n, uint64_t room,
                           uint32_t limit, const char *what)
{
    /* A count the bytes cannot hold fails as malformed while reading (the spec's verdict). */
    if (n <= limit || room <= limit)
        return true;
    return sbx__wasm_rd_limit(&d->r, at, "%" PRIu64 " %s, more than %" PRIu32, n, what, limit);
}

char *sbx__wasm_dec_strndup(struct wasm_dec *d, const uint8_t *s, uint32_t len)
{
    char *p = sbx__strndup((const char *)s, len);
    if (p == NULL) {
        d->is_nomem = true;
        sbx__wasm_rd_fail(&d->r, d->r.p, "out of memory");
    }
    return p;
}

/* Reads a type-list length; the limit is checked before the length is trusted. */
static bool read_arity(struct wasm_reader *r, const uint8_t *at, const char *what, uint32_t *n)
{
    if (!sbx__wasm_rd_u32(r, n))
        return false;
    if (*n > WASM_MAX_FUNC_ARITY)
        return sbx__wasm_rd_limit(r, at, "%" PRIu32 " %s, more than %u", *n, what,
                                  WASM_MAX_FUNC_ARITY);
    if (*n > (size_t)(r->end - r->p)) {
        r->p = r->end;
        uint8_t dummy;
        return sbx__wasm_rd_byte(r, &dummy); /* "unexpected end ..." */
    }
    return true;
}

/* Reads count value types (skipped when out is NULL). */
static bool read_valtypes(struct wasm_reader *r, uint32_t count, wasm_vtype *out)
{
    for (uint32_t i = 0; i < count; i++) {
        wasm_vtype t;
        if (!sbx__wasm_rd_valtype(r, &t))
            return false;
        if (out)
            out[i] = t;
    }
    return true;
}

/* A function type's params and results, after its 0x60. */
static bool read_functype(struct wasm_dec *d, struct wasm_functype *ft, const uint8_t *at)
{
    struct wasm_reader *r = &d->r;
    uint32_t np, nr;
    /* Types may take several bytes: read once to count, then again into the array. */
    if (!read_arity(r, at, "parameters", &np))
        return false;
    const uint8_t *params = r->p;
    if (!read_valtypes(r, np, NULL) || !read_arity(r, at, "results", &nr))
        return false;
    const uint8_t *results = r->p;
    if (!read_valtypes(r, nr, NULL))
        return false;
    const uint8_t *end = r->p;
    ft->types = sbx__wasm_dec_alloc(d, (size_t)np + nr, sizeof(*ft->types));
    if (ft->types == NULL)
        return false;
    ft->param_count = np;
    ft->result_count = nr;
    r->p = params;
    read_valtypes(r, np, ft->types);
    r->p = results;
    read_valtypes(r, nr, ft->types + np);
    r->p = end;
    return true;
}

/* A field: storage type (a value type or packed i8/i16) and mutability. */
static bool read_field(struct wasm_reader *r, struct wasm_field *f)
{
    uint8_t mut;
    if (r->p < r->end && !r->is_failed && (*r->p == WASM_PACKED_I8 || *r->p == WASM_PACKED_I16))
        f->type = *r->p++;
    else if (!sbx__wasm_rd_valtype(r, &f->type))
        return false;
    const uint8_t *at = r->p;
    if (!sbx__wasm_rd_byte(r, &mut))
        return false;
    if (mut > 1)
        return sbx__wasm_rd_fail(r, at, "malformed mutability");
    f->is_mutable = mut == 1;
    return true;
}

/* A composite type (3.0): func 0x60, struct 0x5F vec(field), array 0x5E field. */
static bool read_comptype(struct wasm_dec *d, uint32_t idx)
{
    struct wasm_reader *r = &d->r;
    struct wasm_typedef *td = &d->m->typedefs[idx];
    const uint8_t *at = r->p;
    uint8_t form;
    uint32_t n, cap;
    if (!sbx__wasm_rd_byte(r, &form))
        return false;
    if (form & 0x80) /* the form is an s7 in the spec's grammar */
        return sbx__wasm_rd_fail(r, at, "integer representation too long");
    switch (form) {
    case 0x60:
        td->kind = WASM_COMP_FUNC;
        return read_functype(d, &d->m->types[idx], at);
    case 0x5F:
        td->kind = WASM_COMP_STRUCT;
        if (!sbx__wasm_rd_vec(r, 2, &n, &cap))
            return false;
        break;
    case 0x5E:
        td->kind = WASM_COMP_ARRAY;
        n = cap = 1;
        break;
    default:
        return sbx__wasm_rd_fail(r, at, "malformed function type");
    }
    td->fields = sbx__wasm_dec_alloc(d, cap ? cap : 1, sizeof *td->fields);
    if (td->fields == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(r, i, cap))
            return false;
        td->field_count = i + 1;
        if (!read_field(r, &td->fields[i]))
            return false;
    }
    return true;
}

/* A sub type: (sub final? x? comptype) as 0x4F/0x50 vec(typeidx) comptype, or a bare comptype
 * (final, no supertype). More than one supertype is invalid (3.0). */
static bool read_subtype(struct wasm_dec *d, uint32_t idx, uint32_t rec_start, uint32_t rec_len)
{
    struct wasm_reader *r = &d->r;
    struct wasm_typedef *td = &d->m->typedefs[idx];
    td->rec_start = rec_start;
    td->rec_len = rec_len;
    td->is_final = true;
    td->super = WASM_NO_SUPER;
    if (r->p < r->end && !r->is_failed && (*r->p == 0x4F || *r->p == 0x50)) {
        const uint8_t *at = r->p;
        td->is_final = *r->p++ == 0x4F;
        uint32_t n, x;
        if (!sbx__wasm_rd_count(r, 1, &n))
            return false;
        for (uint32_t i = 0; i < n; i++) {
            if (!sbx__wasm_rd_u32(r, &x))
                return false;
            if (i == 0)
                td->super = x;
        }
        if (n > 1)
            sbx__wasm_dec_defer_invalid(d, at, "multiple supertypes");
    }
    return read_comptype(d, idx);
}

/* Makes room for need types in m->types and m->typedefs (zeroed). */
static bool grow_types(struct wasm_dec *d, uint32_t need)
{
    struct wasm_module *m = d->m;
    if (need <= d->type_cap)
        return true;
    uint32_t n = d->type_cap ? d->type_cap : 8;
    while (n < need)
        n *= 2;
    struct wasm_functype *t = sbx__reallocn(m->types, n, sizeof *t);
    if (t != NULL)
        m->types = t;
    struct wasm_typedef *td = t ? sbx__reallocn(m->typedefs, n, sizeof *td) : NULL;
    if (td == NULL) {
        d->is_nomem = true;
        return sbx__wasm_rd_fail(&d->r, d->r.p, "out of memory");
    }
    m->typedefs = td;
    memset(m->types + d->type_cap, 0, (size_t)(n - d->type_cap) * sizeof *t);
    memset(m->typedefs + d->type_cap, 0, (size_t)(n - d->type_cap) * sizeof *td);
    d->type_cap = n;
    return true;
}

/* The type section (3.0): a vector of recursion groups, each 0x4E vec(subtype) or one sub
 * type alone. Type indices count the sub types of all groups in order. */
static bool read_type_section(struct wasm_dec *d)
{
    struct wasm_module *m = d->m;
    struct wasm_reader *r = &d->r;
    const uint8_t *at = r->p;
    uint32_t n, cap;
    if (!sbx__wasm_rd_vec(r, 2, &n, &cap) ||
        !sbx__wasm_dec_at_most(d, at, n, cap, WASM_MAX_TYPES, "types"))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(r, i, cap))
            return false;
        uint32_t k = 1, start = m->type_count;
        const uint8_t *gat = r->p;
        if (r->p < r->end && !r->is_failed && *r->p == 0x4E) {
            r->p++;
            if (!sbx__wasm_rd_count(r, 2, &k))
                return false;
        }
        if ((uint64_t)start + k > WASM_MAX_TYPES)
            return sbx__wasm_rd_limit(r, gat, "more than %u types", WASM_MAX_TYPES);
        if (!grow_types(d, start + k))
            return false;
        for (uint32_t j = 0; j < k; j++) {
            m->type_count = start + j + 1;
            if (!read_subtype(d, start + j, start, k))
                return false;
        }
    }
    return true;
}

/* Limits (spec 5.3.7, 3.0): a flags byte (bit 0: a maximum follows, bit 2: 64-bit addresses;
 * others malformed), then u64 bounds, whose ranges validation checks. */
bool sbx__wasm_dec_limits(struct wasm_dec *d, struct wasm_limits *lim, bool *is64)
{
    struct wasm_reader *r = &d->r;
    const uint8_t *at = r->p;
    uint8_t flags;
    if (!sbx__wasm_rd_byte(r, &flags))
        return false;
    if (flags & 0xFA)
        return sbx__wasm_rd_fail(r, at, "malformed limits flags");
    lim->has_max = (flags & 1) != 0;
    *is64 = (flags & 4) != 0;
    if (!sbx__wasm_rd_u64(r, &lim->min))
        return false;
    return !lim->has_max || sbx__wasm_rd_u64(r, &lim->max);
}

static bool read_tabletype(struct wasm_dec *d, struct wasm_tabletype *t)
{
    return sbx__wasm_rd_reftype(&d->r, &t->elem_type) &&
           sbx__wasm_dec_limits(d, &t->limits, &t->is64);
}

static bool read_globaltype(struct wasm_dec *d, struct wasm_globaltype *g)
{
    uint8_t mut;
    if (!sbx__wasm_rd_valtype(&d->r, &g->type))
        return false;
    const uint8_t *at = d->r.p;
    if (!sbx__wasm_rd_byte(&d->r, &mut))
        return false;
    if (mut > 1)
        return sbx__wasm_rd_fail(&d->r, at, "malformed mutability");
    g->is_mutable = mut == 1;
    return true;
}

/* Tags (exception handling): 0x00 and a type index each. */
static bool read_tagtype(struct wasm_reader *r, uint32_t *type)
{
    const uint8_t *at = r->p;
    uint8_t attr;
    if (!sbx__wasm_rd_byte(r, &attr))
        return false;
    if (attr != 0)
        return sbx__wasm_rd_fail(r, at, "malformed tag attribute");
    return sbx__wasm_rd_u32(r, type);
}

static bool read_import(struct wasm_dec *d, struct wasm_import *imp)
{
    struct wasm_reader *r = &d->r;
    const uint8_t *s;
    if (!sbx__wasm_rd_name(r, &s, &imp->module_len) ||
        !(imp->module = sbx__wasm_dec_strndup(d, s, imp->module_len)))
        return false;
    if (!sbx__wasm_rd_name(r, &s, &imp->name_len) ||
        !(imp->name = sbx__wasm_dec_strndup(d, s, imp->name_len)))
        return false;
    const uint8_t *at = r->p;
    if (!sbx__wasm_rd_byte(r, &imp->kind))
        return false;
    switch (imp->kind) {
    case WASM_EXTERN_FUNC:
        d->m->func_import_count++;
        return sbx__wasm_rd_u32(r, &imp->u.func_type);
    case WASM_EXTERN_TABLE:
        d->m->table_import_count++;
        return read_tabletype(d, &imp->u.table);
    case WASM_EXTERN_MEMORY:
        d->m->mem_import_count++;
        return sbx__wasm_dec_limits(d, &imp->u.mem.limits, &imp->u.mem.is64);
    case WASM_EXTERN_GLOBAL:
        d->m->global_import_count++;
        return read_globaltype(d, &imp->u.global);
    case WASM_EXTERN_TAG:
        d->m->tag_import_count++;
        return read_tagtype(r, &imp->u.tag_type);
    default:
        return sbx__wasm_rd_fail(r, at, "malformed import kind");
    }
}

static bool read_import_section(struct wasm_dec *d)
{
    struct wasm_module *m = d->m;
    const uint8_t *at = d->r.p;
    uint32_t n, cap;
    if (!sbx__wasm_rd_vec(&d->r, 4, &n, &cap) ||
        !sbx__wasm_dec_at_most(d, at, n, cap, WASM_MAX_IMPORTS, "imports"))
        return false;
    m->imports = sbx__wasm_dec_alloc(d, cap, sizeof *m->imports);
    if (m->imports == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(&d->r, i, cap))
            return false;
        m->import_count = i + 1;
        if (!read_import(d, &m->imports[i]))
            return false;
    }
    return true;
}

static bool read_function_section(struct wasm_dec *d)
{
    struct wasm_module *m = d->m;
    const uint8_t *at = d->r.p;
    uint32_t n, cap, nimp = m->func_import_count;
    if (!sbx__wasm_rd_vec(&d->r, 1, &n, &cap) ||
        !sbx__wasm_dec_at_most(d, at, (uint64_t)nimp + n, (uint64_t)nimp + cap, WASM_MAX_FUNCTIONS,
                               "functions"))
        return false;
    m->funcs = sbx__wasm_dec_alloc(d, cap, sizeof *m->funcs);
    if (m->funcs == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(&d->r, i, cap))
            return false;
        m->func_def_count = i + 1;
        if (!sbx__wasm_rd_u32(&d->r, &m->funcs[i].type_index))
            return false;
    }
    return true;
}

/* Tables (3.0): a table type, or 0x40 0x00, a table type and the initial element's constant
 * expression; without one every element starts null. */
static bool read_table_section(struct wasm_dec *d)
{
    struct wasm_reader *r = &d->r;
    const uint8_t *at = r->p;
    uint32_t n, cap, nimp = d->m->table_import_count;
    if (!sbx__wasm_rd_vec(r, 2, &n, &cap) ||
        !sbx__wasm_dec_at_most(d, at, (uint64_t)nimp + n, (uint64_t)nimp + cap, WASM_MAX_TABLES,
                               "tables"))
        return false;
    d->table_defs = sbx__wasm_dec_alloc(d, cap, sizeof *d->table_defs);
    d->m->table_inits = sbx__wasm_dec_alloc(d, cap, sizeof *d->m->table_inits);
    if (d->table_defs == NULL || d->m->table_inits == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(r, i, cap))
            return false;
        d->table_def_count = i + 1;
        struct wasm_init *init = &d->m->table_inits[i];
        bool has_init = r->p < r->end && !r->is_failed && *r->p == 0x40;
        if (has_init) {
            const uint8_t *zat = ++r->p;
            uint8_t zero;
            if (!sbx__wasm_rd_byte(r, &zero))
                return false;
            if (zero != 0)
                return sbx__wasm_rd_fail(r, zat, "malformed table type");
        }
        if (!read_tabletype(d, &d->table_defs[i]))
            return false;
        if (has_init) {
            if (!sbx__wasm_dec_const_expr(d, init))
                return false;
        } else {
            memset(init, 0, sizeof *init);
            init->op = WASM_INIT_REF_NULL;
            init->type = WASM_REF(1, wasm_vtype_heap(d->table_defs[i].elem_type));
        }
    }
    return true;
}

static bool read_tag_section(struct wasm_dec *d)
{
    uint32_t n, cap;
    if (!sbx__wasm_rd_vec(&d->r, 2, &n, &cap))
        return false;
    d->tag_defs = sbx__wasm_dec_alloc(d, cap, sizeof *d->tag_defs);
    if (d->tag_defs == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(&d->r, i, cap))
            return false;
        d->tag_def_count = i + 1;
        if (!read_tagtype(&d->r, &d->tag_defs[i]))
            return false;
    }
    return true;
}

static bool read_memory_section(struct wasm_dec *d)
{
    uint32_t n, cap;
    if (!sbx__wasm_rd_vec(&d->r, 2, &n, &cap))
        return false;
    d->mem_defs = sbx__wasm_dec_alloc(d, cap, sizeof *d->mem_defs);
    if (d->mem_defs == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(&d->r, i, cap))
            return false;
        d->mem_def_count = i + 1;
        if (!sbx__wasm_dec_limits(d, &d->mem_defs[i].limits, &d->mem_defs[i].is64))
            return false;
    }
    return true;
}

static bool read_global_section(struct wasm_dec *d)
{
    const uint8_t *at = d->r.p;
    uint32_t n, cap, nimp = d->m->global_import_count;
    if (!sbx__wasm_rd_vec(&d->r, 3, &n, &cap) ||
        !sbx__wasm_dec_at_most(d, at, (uint64_t)nimp + n, (uint64_t)nimp + cap, WASM_MAX_GLOBALS,
                               "globals"))
        return false;
    d->global_defs = sbx__wasm_dec_alloc(d, cap, sizeof *d->global_defs);
    d->m->global_inits = sbx__wasm_dec_alloc(d, cap, sizeof *d->m->global_inits);
    if (d->global_defs == NULL || d->m->global_inits == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(&d->r, i, cap))
            return false;
        d->global_def_count = i + 1;
        if (!read_globaltype(d, &d->global_defs[i]) ||
            !sbx__wasm_dec_const_expr(d, &d->m->global_inits[i]))
            return false;
    }
    return true;
}

static bool read_export_section(struct wasm_dec *d)
{
    struct wasm_module *m = d->m;
    struct wasm_reader *r = &d->r;
    const uint8_t *at0 = r->p;
    uint32_t n, cap;
    if (!sbx__wasm_rd_vec(r, 3, &n, &cap) ||
        !sbx__wasm_dec_at_most(d, at0, n, cap, WASM_MAX_EXPORTS, "exports"))
        return false;
    m->exports = sbx__wasm_dec_alloc(d, cap, sizeof *m->exports);
    if (m->exports == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!sbx__wasm_rd_room(r, i, cap))
            return false;
        struct wasm_export *e = &m->exports[i];
        const uint8_t *s;
        m->export_count = i + 1;
        if (!sbx__wasm_rd_name(r, &s, &e->name_len) ||
            !(e->name = sbx__wasm_dec_strndup(d, s, e->name_len)))
            return false;
        const uint8_t *at = r->p;
        if (!sbx__wasm_rd_byte(r, &e->kind))
            return false;
        if (e->kind > WASM_EXTERN_TAG)
            return sbx__wasm_rd_fail(r, at, "malformed export kind");
        if (!sbx__wasm_rd_u32(r, &e->index))
            return false;
    }
    return true;
}

static bool read_start_section(struct wasm_dec *d)
{
    d->m->has_start = true;
    return sbx__wasm_rd_u32(&d->r, &d->m->start_func);
}

static bool read_datacount_section(struct wasm_dec *d)
{
    d->m->has_data_count_section = true;
    return sbx__wasm_rd_u32(&d->r, &d->data_count_value);
}

/* Section order rank by id (spec 5.5.2): data count (12) sits between element and code, tag
 * (13) between memory and global. */
static const uint8_t section_rank[14] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 11, 6};

static bool read_section_body(struct wasm_dec *d, uint8_t id)
{
    switch (id) {
    case 0:
        return sbx__wasm_dec_custom(d);
    case 1:
        return read_type_section(d);
    case 2:
        return read_import_section(d);
    case 3:
        d->has_func_section = true;
        return read_function_section(d);
    case 4:
        return read_table_section(d);
    case 5:
        return read_memory_section(d);
    case 6:
        return read_global_section(d);
    case 7:
        return read_export_section(d);
    case 8:
        return read_start_section(d);
    case 9:
        return sbx__wasm_dec_elem_section(d);
    case 10:
        return sbx__wasm_dec_code_section(d);
    case 11:
        return sbx__wasm_dec_data_section(d);
    case 13:
        return read_tag_section(d);
    default:
        return read_datacount_section(d);
    }
}

static bool read_section(struct wasm_dec *d, uint8_t *last_rank)
{
    struct wasm_reader *r = &d->r;
    const uint8_t *at = r->p;
    uint8_t id;
    uint32_t size;
    if (!sbx__wasm_rd_byte(r, &id))
        return false;
    if (id > 13)
        return sbx__wasm_rd_fail(r, at, "malformed section id");
    if (id != 0) {
        if (section_rank[id] <= *last_rank)
            return sbx__wasm_rd_fail(r, at, "unexpected content after last section");
        *last_rank = section_rank[id];
    }
    if (!sbx__wasm_rd_u32(r, &size))
        return false;
    if (size > (size_t)(r->file_end - r->p))
        return sbx__wasm_rd_fail(r, r->p, "length out of bounds");
    const uint8_t *sec_end = r->p + size;
    r->end = sec_end;
    r->is_in_section = true;
    if (!read_section_body(d, id))
        return false;
    if (r->p != sec_end)
        return sbx__wasm_rd_fail(r, r->p, "section size mismatch");
    r->end = r->file_end;
    r->is_in_section = false;
    return true;
}

static bool read_header(struct wasm_reader *r)
{
    static const uint8_t magic[4] = {0x00, 0x61, 0x73, 0x6D};
    static const uint8_t version[4] = {0x01, 0x00, 0x00, 0x00};
    /* Each field is read whole before it is compared, as the spec's decoder does. */
    size_t len = (size_t)(r->file_end - r->p);
    if (len < 4)
        return sbx__wasm_rd_fail(r, r->file_end, "unexpected end");
    if (memcmp(r->p, magic, 4) != 0)
        return sbx__wasm_rd_fail(r, r->p, "magic header not detected");
    if (len < 8)
        return sbx__wasm_rd_fail(r, r->file_end, "unexpected end");
    if (memcmp(r->p + 4, version, 4) != 0)
        return sbx__wasm_rd_fail(r, r->p + 4, "unknown binary version");
    r->p += 8;
    return true;
}

/* Cross-section counts the spec checks at the end of decoding (5.5.16). */
static bool check_counts(struct wasm_dec *d)
{
    struct wasm_module *m = d->m;
    struct wasm_reader *r = &d->r;
    if (m->func_def_count != d->code_count)
        return sbx__wasm_rd_fail(r, r->p, "function and code section have inconsistent lengths");
    if (m->has_data_count_section && d->data_count_value != m->data_count)
        return sbx__wasm_rd_fail(r, r->p, "data count and data section have inconsistent lengths");
    return true;
}

static bool decode_all(struct wasm_dec *d)
{
    struct wasm_reader *r = &d->r;
    uint8_t last_rank = 0;
    if (!read_header(r))
        return false;
    while (r->p < r->file_end) {
        if (!read_section(d, &last_rank))
            return false;
    }
    return check_counts(d) && sbx__wasm_dec_finish(d);
}

sbx_err sbx__wasm_decode(struct wasm_module *m, char *err, size_t errlen)
{
    struct wasm_dec d;
    memset(&d, 0, sizeof d);
    d.m = m;
    d.r.base = m->bytes;
    d.r.p = m->bytes;
    d.r.end = m->bytes + m->len;
    d.r.file_end = d.r.end;
    d.r.err = err;
    d.r.errlen = errlen;
    d.r.guard = m->guard;
    d.r.ticks = GUARD_PERIOD;
    bool ok = decode_all(&d);
    sbx__wasm_dec_release(&d);
    if (ok && d.has_invalid) {
        /* Deferred so a later malformation wins, as in the spec's decode-then-validate. */
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "%s", d.invalid);
        return SBX_E_WASM_INVALID_MODULE;
    }
    if (ok)
        return SBX_OK;
    return d.is_nomem ? SBX_E_NOMEM : SBX_E_WASM_INVALID_MODULE;
}

/* wasm/validate.c: module-level validation (spec 3.4): index ranges, limits, constant
 * expressions, segments, start, exports, C.refs (func_is_declared), then every function body
 * (validate_code.c). Messages use the spec's texts: "invalid: unknown global 3 ...". */
#include <inttypes.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/const_expr.h"
#include "wasm/limits.h"
#include "wasm/validate_internal.h"

/* The ranges of limits (spec 3.2.1-3.2.3, 3.0): pages of a memory (2^16 for i32 addresses,
 * 2^48 for i64), elements of a table (2^32 - 1 for i32 indices, any u64 for i64). */
static bool check_limits(struct wasm_reader *r, const struct wasm_limits *l, uint64_t range,
                         const char *what)
{
    if (l->min > range || (l->has_max && l->max > range)) {
        if (range == WASM_MAX_MEMORY_PAGES)
            return sbx__wasm_rd_invalid(r, NULL, "memory size must be at most 65536 pages (4GiB)");
        return sbx__wasm_rd_invalid(r, NULL, "%s size must be at most %" PRIu64, what, range);
    }
    if (l->has_max && l->min > l->max)
        return sbx__wasm_rd_invalid(r, NULL, "size minimum must not be greater than maximum");
    return true;
}

/* Validates a constant expression of the expected type (or a subtype). global.get may name an
 * immutable global below max_global: a global's own initializer sees the imported and the
 * previously defined ones (spec 3.0, 3.4.9), segments every global. */
static bool check_const(struct wasm_reader *r, const struct wasm_module *m, struct wasm_init *e,
                        wasm_vtype want, uint32_t max_global, const char *where, uint32_t idx)
{
    const char *why = NULL;
    switch (e->op) {
    case WASM_INIT_EXPR:
        if (!sbx__wasm_const_validate(m, e, max_global, &e->type, &why))
            return sbx__wasm_rd_invalid(r, NULL, "%s in %s %u", why, where, idx);
        break;
    case WASM_INIT_GLOBAL_GET:
        if (e->index >= max_global)
            return sbx__wasm_rd_invalid(r, NULL, "unknown global %u in %s %u", e->index, where,
                                        idx);
        if (m->globals[e->index].is_mutable)
            return sbx__wasm_rd_invalid(r, NULL, "constant expression required in %s %u", where,
                                        idx);
        e->type = m->globals[e->index].type;
        break;
    case WASM_INIT_REF_FUNC:
        if (e->index >= m->func_count)
            return sbx__wasm_rd_invalid(r, NULL, "unknown function %u in %s %u", e->index, where,
                                        idx);
        e->type = WASM_REF(0, m->func_type_idx[e->index]);
        break;
    case WASM_INIT_REF_NULL:
        if (!sbx__wasm_v_check_type(r, m, e->type, NULL))
            return false;
        break;
    default:
        break;
    }
    if (e->type != want && !(wasm_vtype_is_ref(e->type) && wasm_vtype_is_ref(want) &&
                             sbx__wasm_vtype_sub(m, e->type, want)))
        return sbx__wasm_rd_invalid(r, NULL, "type mismatch in %s %u", where, idx);
    return true;
}

/* The proposal an abstract heap type belongs to. */
static unsigned heap_feature(uint32_t ht)
{
    switch (ht) {
    case WASM_HT_FUNC:
    case WASM_HT_NOFUNC:
    case WASM_HT_EXTERN:
    case WASM_HT_NOEXTERN:
        return WASM_FEAT_BASE;
    case WASM_HT_EXN:
    case WASM_HT_NOEXN:
        return WASM_FEAT_EXCEPTIONS;
    default:
        return WASM_FEAT_GC;
    }
}

bool sbx__wasm_v_check_heap(struct wasm_reader *r, const struct wasm_module *m, uint32_t ht,
                            const uint8_t *at)
{
    if (!wasm_heap_is_abstract(ht))
        return ht < m->type_count || sbx__wasm_rd_invalid(r, at, "unknown type %u", ht);
    unsigned f = heap_feature(ht);
    return sbx__wasm_feature_on(f) || sbx__wasm_rd_unsupported(r, at, f, "an abstract heap type");
}

bool sbx__wasm_v_check_type(struct wasm_reader *r, const struct wasm_module *m, wasm_vtype t,
                            const uint8_t *at)
{
    return !wasm_vtype_is_ref(t) || sbx__wasm_v_check_heap(r, m, wasm_vtype_heap(t), at);
}

/* Type index x names a function type. */
static bool is_functype(const struct wasm_module *m, uint32_t x)
{
    return x < m->type_count && m->typedefs[x].kind == WASM_COMP_FUNC;
}

/* The type section: canonical types (types.c), and what sbx runs of what it defines. */
static bool check_types(struct wasm_reader *r, struct wasm_module *m, bool *nomem)
{
    if (!sbx__wasm_types_canon(r, m, nomem))
        return false;
    for (uint32_t i = 0; i < m->type_count; i++) {
        const struct wasm_typedef *td = &m->typedefs[i];
        if (td->kind != WASM_COMP_FUNC) {
            if (!sbx__wasm_feature_on(WASM_FEAT_GC))
                return sbx__wasm_rd_unsupported(r, NULL, WASM_FEAT_GC, "a struct or array type");
            for (uint32_t k = 0; k < td->field_count; k++) {
                if (!sbx__wasm_v_check_type(r, m, td->fields[k].type, NULL))
                    return false;
            }
            continue;
        }
        const struct wasm_functype *ft = &m->types[i];
        for (uint32_t k = 0; k < ft->param_count + ft->result_count; k++) {
            if (!sbx__wasm_v_check_type(r, m, ft->types[k], NULL))
                return false;
        }
    }
    return true;
}

/* A tag's type: a function type without results. */
static bool check_tag(struct wasm_reader *r, const struct wasm_module *m, uint32_t x)
{
    if (!sbx__wasm_feature_on(WASM_FEAT_EXCEPTIONS))
        return sbx__wasm_rd_unsupported(r, NULL, WASM_FEAT_EXCEPTIONS, "a tag");
    if (!is_functype(m, x))
        return sbx__wasm_rd_invalid(r, NULL, "unknown type %u in tag", x);
    if (m->types[x].result_count != 0)
        return sbx__wasm_rd_invalid(r, NULL, "non-empty tag result type");
    return true;
}

static bool check_imports_and_types(struct wasm_reader *r, const struct wasm_module *m)
{
    for (uint32_t i = 0; i < m->import_count; i++) {
        const struct wasm_import *imp = &m->imports[i];
        if (imp->kind == WASM_EXTERN_FUNC && !is_functype(m, imp->u.func_type))
            return sbx__wasm_rd_invalid(r, NULL, "unknown type %u in import %u", imp->u.func_type,
                                        i);
        if (imp->kind == WASM_EXTERN_TAG && !check_tag(r, m, imp->u.tag_type))
            return false;
    }
    for (uint32_t i = 0; i < m->func_def_count; i++) {
        if (!is_functype(m, m->funcs[i].type_index))
            return sbx__wasm_rd_invalid(r, NULL, "unknown type %u in function %u",
                                        m->funcs[i].type_index, m->func_import_count + i);
    }
    for (uint32_t i = m->tag_import_count; i < m->tag_count; i++) {
        if (!check_tag(r, m, m->tag_types[i]))
            return false;
    }
    for (uint32_t i = 0; i < m->global_count; i++) {
        if (!sbx__wasm_v_check_type(r, m, m->globals[i].type, NULL))
            return false;
    }
    for (uint32_t i = 0; i < m->table_count; i++) {
        const struct wasm_tabletype *t = &m->tables[i];
        if (!sbx__wasm_v_check_type(r, m, t->elem_type, NULL))
            return false;
        /* The initial size is a resource, bounded where the table is made (the store's
         * max_table_elems), not a validity rule: 3.0 defines tables of 2^64 - 1 elements. */
        if (!check_limits(r, &t->limits, t->is64 ? UINT64_MAX : UINT32_MAX, "table"))
            return false;
    }
    for (uint32_t i = 0; i < m->mem_count; i++) {
        const struct wasm_memtype *t = &m->mems[i];
        if (!check_limits(r, &t->limits, t->is64 ? WASM_MAX_MEMORY64_PAGES : WASM_MAX_MEMORY_PAGES,
                          "memory"))
            return false;
    }
    return true;
}

static bool check_globals(struct wasm_reader *r, struct wasm_module *m)
{
    uint32_t ndef = m->global_count - m->global_import_count;
    for (uint32_t i = 0; i < ndef; i++) {
        const struct wasm_globaltype *g = &m->globals[m->global_import_count + i];
        if (!check_const(r, m, &m->global_inits[i], g->type, m->global_import_count + i, "global",
                         m->global_import_count + i))
            return false;
    }
    /* A table's initial element (3.0); without an expression null, so a table of a non-null
     * element type must have one. It sees the imported globals only. */
    for (uint32_t i = m->table_import_count; i < m->table_count; i++) {
        if (!check_const(r, m, &m->table_inits[i - m->table_import_count], m->tables[i].elem_type,
                         m->global_import_count, "table", i))
            return false;
    }
    return true;
}

static bool check_elem(struct wasm_reader *r, struct wasm_module *m, struct wasm_elem_seg *e,
                       uint32_t idx)
{
    if (e->mode == WASM_SEG_ACTIVE) {
        if (e->table_index >= m->table_count)
            return sbx__wasm_rd_invalid(r, NULL, "unknown table %u in element segment %u",
                                        e->table_index, idx);
        if (!sbx__wasm_vtype_sub(m, e->elem_type, m->tables[e->table_index].elem_type))
            return sbx__wasm_rd_invalid(r, NULL, "type mismatch in element segment %u", idx);
        if (!check_const(r, m, &e->offset, m->tables[e->table_index].is64 ? WASM_I64 : WASM_I32,
                         m->global_count, "element segment", idx))
            return false;
    }
    if (!sbx__wasm_v_check_type(r, m, e->elem_type, NULL))
        return false;
    for (uint32_t i = 0; i < e->count; i++) {
        if (!check_const(r, m, &e->items[i], e->elem_type, m->global_count, "element segment", idx))
            return false;
    }
    return true;
}

static bool check_segments(struct wasm_reader *r, struct wasm_module *m)
{
    for (uint32_t i = 0; i < m->elem_count; i++) {
        if (!check_elem(r, m, &m->elems[i], i))
            return false;
    }
    for (uint32_t i = 0; i < m->data_count; i++) {
        struct wasm_data_seg *s = &m->datas[i];
        if (s->mode != WASM_SEG_ACTIVE)
            continue;
        if (s->mem_index >= m->mem_count)
            return sbx__wasm_rd_invalid(r, NULL, "unknown memory %u in data segment %u",
                                        s->mem_index, i);
        if (!check_const(r, m, &s->offset, m->mems[s->mem_index].is64 ? WASM_I64 : WASM_I32,
                         m->global_count, "data segment", i))
            return false;
    }
    return true;
}

static bool check_start(struct wasm_reader *r, const struct wasm_module *m)
{
    if (!m->has_start)
        return true;
    if (m->start_func >= m->func_count)
        return sbx__wasm_rd_invalid(r, NULL, "unknown function %u as start", m->start_func);
    const struct wasm_functype *t = &m->types[m->func_type_idx[m->start_func]];
    if (t->param_count != 0 || t->result_count != 0)
        return sbx__wasm_rd_invalid(r, NULL, "start function must have type [] -> []");
    return true;
}

static uint32_t hash_name(const char *s, uint32_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (uint32_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

/* Export names must be unique (spec 3.4.10): an open-addressing set of export indices. */
static bool check_export_names(struct wasm_reader *r, const struct wasm_module *m, bool *nomem)
{
    size_t cap = 16;
    while (cap < (size_t)m->export_count * 2)
        cap *= 2;
    uint32_t *slots = sbx__calloc(cap, sizeof *slots); /* export index + 1, 0 = empty */
    if (slots == NULL) {
        *nomem = true;
        return sbx__wasm_rd_invalid(r, NULL, "out of memory");
    }
    bool ok = true;
    for (uint32_t i = 0; i < m->export_count && ok; i++) {
        const struct wasm_export *e = &m->exports[i];
        size_t k = hash_name(e->name, e->name_len) & (cap - 1);
        for (; slots[k] != 0; k = (k + 1) & (cap - 1)) {
            const struct wasm_export *o = &m->exports[slots[k] - 1];
            if (o->name_len == e->name_len && memcmp(o->name, e->name, e->name_len) == 0) {
                ok = sbx__wasm_rd_invalid(r, NULL, "duplicate export name");
                break;
            }
        }
        slots[k] = i + 1;
    }
    sbx__free(slots);
    return ok;
}

static bool check_exports(struct wasm_reader *r, const struct wasm_module *m, bool *nomem)
{
    static const char *const kind_names[5] = {"function", "table", "memory", "global", "tag"};
    for (uint32_t i = 0; i < m->export_count; i++) {
        const struct wasm_export *e = &m->exports[i];
        uint32_t limit = e->kind == WASM_EXTERN_FUNC     ? m->func_count
                         : e->kind == WASM_EXTERN_TABLE  ? m->table_count
                         : e->kind == WASM_EXTERN_MEMORY ? m->mem_count
                         : e->kind == WASM_EXTERN_TAG    ? m->tag_count
                                                         : m->global_count;
        if (e->index >= limit)
            return sbx__wasm_rd_invalid(r, NULL, "unknown %s %u in export", kind_names[e->kind],
                                        e->index);
    }
    return check_export_names(r, m, nomem);
}

static void mark_refs(const struct wasm_module *m, bool *declared, const struct wasm_init *e,
                      uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (e[i].op == WASM_INIT_REF_FUNC)
            declared[e[i].index] = true;
        else if (e[i].op == WASM_INIT_EXPR)
            sbx__wasm_const_refs(m, &e[i], declared);
    }
}

/* C.refs: functions named outside function bodies (spec 3.4.10). Runs after the checks above,
 * so every index is in range. */
static bool fill_declared(struct wasm_reader *r, struct wasm_module *m, bool *nomem)
{
    m->func_is_declared = sbx__calloc(m->func_count, sizeof *m->func_is_declared);
    if (m->func_is_declared == NULL) {
        *nomem = true;
        return sbx__wasm_rd_invalid(r, NULL, "out of memory");
    }
    for (uint32_t i = 0; i < m->export_count; i++) {
        if (m->exports[i].kind == WASM_EXTERN_FUNC)
            m->func_is_declared[m->exports[i].index] = true;
    }
    mark_refs(m, m->func_is_declared, m->global_inits, m->global_count - m->global_import_count);
    for (uint32_t i = 0; i < m->elem_count; i++)
        mark_refs(m, m->func_is_declared, m->elems[i].items, m->elems[i].count);
    return true;
}

sbx_err sbx__wasm_validate(struct wasm_module *m, char *err, size_t errlen)
{
    struct wasm_reader r = {.base = m->bytes,
                            .file_end = m->bytes + m->len,
                            .p = m->bytes,
                            .end = m->bytes + m->len,
                            .err = err,
                            .errlen = errlen,
                            .guard = m->guard,
                            .ticks = GUARD_PERIOD};
    bool nomem = false;
    bool ok = check_types(&r, m, &nomem) && check_imports_and_types(&r, m) &&
              check_globals(&r, m) && check_segments(&r, m) && check_start(&r, m) &&
              check_exports(&r, m, &nomem) && fill_declared(&r, m, &nomem);
    if (ok)
        ok = sbx__wasm_validate_code(&r, m, &nomem);
    if (ok)
        return SBX_OK;
    return nomem ? SBX_E_NOMEM : SBX_E_WASM_INVALID_MODULE;
}

/* wasm/instance.c: instantiation (spec 4.5.4) and export lookup. An instance joins its store's
 * list as soon as it exists and lives until the store is destroyed, even when instantiation
 * fails later: segments already written may have put its functions into imported tables. */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/const_expr.h"
#include "wasm/gc.h"
#include "wasm/instance.h"
#include "wasm/jit/cache.h"
#include "wasm/jit/jit.h"
#include "wasm/runtime.h"
#include "wasm/types.h"

static void set_err(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

/* Evaluates a constant expression; validation guarantees the indices are in range. */
static wasm_value eval_init(const struct wasm_instance *inst, const struct wasm_init *e)
{
    wasm_value v;
    memset(&v, 0, sizeof(v));
    switch (e->op) {
    case WASM_INIT_CONST:
        return e->value;
    case WASM_INIT_GLOBAL_GET:
        return inst->globals[e->index]->value;
    case WASM_INIT_REF_FUNC:
        v.ref = inst->funcs[e->index];
        return v;
    case WASM_INIT_EXPR: /* GC allocation may fail: reported once the state is built */
        return sbx__wasm_const_eval(inst, e, &((struct wasm_instance *)inst)->init_trap);
    default: /* WASM_INIT_REF_NULL */
        return v;
    }
}

static struct wasm_instance *instance_alloc(struct wasm_store *store, const struct wasm_module *m)
{
    struct wasm_instance *inst = sbx__calloc(1, sizeof(*inst));
    if (!inst)
        return NULL;
    inst->module = m;
    inst->store = store;
    inst->next = store->instances;
    store->instances = inst; /* from here on the store frees it */
    inst->funcs = sbx__calloc(m->func_count, sizeof(*inst->funcs));
    inst->tables = sbx__calloc(m->table_count, sizeof(*inst->tables));
    inst->mems = sbx__calloc(m->mem_count, sizeof(*inst->mems));
    inst->globals = sbx__calloc(m->global_count, sizeof(*inst->globals));
    inst->tags = sbx__calloc(m->tag_count, sizeof(*inst->tags));
    inst->elem_refs = sbx__calloc(m->elem_count, sizeof(*inst->elem_refs));
    inst->elem_sizes = sbx__calloc(m->elem_count, sizeof(*inst->elem_sizes));
    inst->data_dropped = sbx__calloc(m->data_count, sizeof(*inst->data_dropped));
    if (!inst->funcs || !inst->tables || !inst->mems || !inst->globals || !inst->tags ||
        !inst->elem_refs || !inst->elem_sizes || !inst->data_dropped)
        return NULL;
    return inst;
}

/* Puts the resolved imports into the index spaces, imports first as the spec numbers them. */
static void bind_imports(struct wasm_instance *inst, const struct wasm_extern *ext)
{
    const struct wasm_module *m = inst->module;
    uint32_t nf = 0, nt = 0, nm = 0, ng = 0, ntag = 0;
    for (uint32_t i = 0; i < m->import_count; i++) {
        switch (ext[i].kind) {
        case WASM_EXTERN_FUNC:
            inst->funcs[nf++] = ext[i].u.func;
            break;
        case WASM_EXTERN_TABLE:
            inst->tables[nt++] = ext[i].u.table;
            break;
        case WASM_EXTERN_MEMORY:
            inst->mems[nm++] = ext[i].u.memory;
            break;
        case WASM_EXTERN_TAG:
            inst->tags[ntag++] = ext[i].u.tag;
            break;
        default:
            inst->globals[ng++] = ext[i].u.global;
            break;
        }
    }
}

/* Defined tags: a new identity each, per instance (exception handling). */
static bool create_tags(struct wasm_instance *inst)
{
    const struct wasm_module *m = inst->module;
    uint32_t n = m->tag_count - m->tag_import_count;
    if (n == 0)
        return true;
    struct wasm_tag *defs = sbx__calloc(n, sizeof(*defs));
    if (!defs || !sbx__wasm_store_own(inst->store, defs, sbx__free)) {
        sbx__free(defs);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx = m->tag_import_count + i;
        defs[i].type = &m->types[m->tag_types[idx]];
        defs[i].rtt = m->rtts[m->tag_types[idx]];
        defs[i].index = idx;
        defs[i].inst = inst;
        inst->tags[idx] = &defs[i];
    }
    return true;
}

/* Charges what the instance itself holds per function (its records, its index space) and per
 * element, which a module of a few MB can make large. */
static bool charge_instance(struct wasm_instance *inst)
{
    const struct wasm_module *m = inst->module;
    uint64_t bytes = (uint64_t)m->func_def_count * sizeof(struct wasm_func) +
                     (uint64_t)m->func_count * sizeof(void *);
    for (uint32_t i = 0; i < m->elem_count; i++)
        bytes += (uint64_t)m->elems[i].count * sizeof(void *);
    return sbx__wasm_store_charge(inst->store, bytes);
}

static bool create_funcs(struct wasm_instance *inst)
{
    const struct wasm_module *m = inst->module;
    if (m->func_def_count == 0)
        return true;
    struct wasm_func *defs = sbx__calloc(m->func_def_count, sizeof(*defs));
    if (!defs || !sbx__wasm_store_own(inst->store, defs, sbx__free)) {
        sbx__free(defs);
        return false;
    }
    for (uint32_t i = 0; i < m->func_def_count; i++) {
        uint32_t idx = m->func_import_count + i;
        defs[i].type = &m->types[m->func_type_idx[idx]];
        defs[i].rtt = m->rtts[m->func_type_idx[idx]];
        defs[i].inst = inst;
        defs[i].def_index = i;
        inst->funcs[idx] = &defs[i];
    }
    return true;
}

static sbx_err over_budget(const struct wasm_store *store, const char *what, uint32_t i,
                           uint64_t bytes, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen,
                 "%s %u needs %llu bytes, more than is left of the store's %llu (memoryBytes)",
                 what, i, (unsigned long long)bytes, (unsigned long long)store->limits.max_bytes);
    return SBX_E_MEMORY_LIMIT;
}

/* Creates defined globals, tables and memories. Returns SBX_OK, SBX_E_NOMEM, or
 * SBX_E_MEMORY_LIMIT when a minimum size exceeds the store's limits. */
static sbx_err create_state(struct wasm_instance *inst, char *err, size_t errlen)
{
    const struct wasm_module *m = inst->module;
    struct wasm_store *store = inst->store;
    /* Runtime objects keep canonical types (types.h), comparable across modules. */
    for (uint32_t i = m->global_import_count; i < m->global_count; i++) {
        wasm_value v = eval_init(inst, &m->global_inits[i - m->global_import_count]);
        struct wasm_globaltype gt = m->globals[i];
        gt.type = sbx__wasm_ctype(m, gt.type);
        if (!(inst->globals[i] = sbx__wasm_global_new(store, &gt, v)))
            return SBX_E_NOMEM;
    }
    for (uint32_t i = m->table_import_count; i < m->table_count; i++) {
        if (m->tables[i].limits.min > store->limits.max_table_elems) {
            set_err(err, errlen, "table minimum exceeds the store's element limit");
            return SBX_E_MEMORY_LIMIT;
        }
        uint64_t bytes = (uint64_t)m->tables[i].limits.min * sizeof(void *);
        if (!sbx__wasm_store_fits(store, bytes))
            return over_budget(store, "table", i, bytes, err, errlen);
        struct wasm_tabletype tt = m->tables[i];
        tt.elem_type = sbx__wasm_ctype(m, tt.elem_type);
        wasm_value init = eval_init(inst, &m->table_inits[i - m->table_import_count]);
        if (!(inst->tables[i] = sbx__wasm_table_new(store, &tt, init)))
            return SBX_E_NOMEM;
    }
    for (uint32_t i = m->mem_import_count; i < m->mem_count; i++) {
        if (m->mems[i].limits.min > store->limits.max_memory_pages) {
            set_err(err, errlen, "memory minimum exceeds the store's page limit");
            return SBX_E_MEMORY_LIMIT;
        }
        uint64_t bytes = (uint64_t)m->mems[i].limits.min * WASM_PAGE_SIZE;
        if (!sbx__wasm_store_fits(store, bytes))
            return over_budget(store, "memory", i, bytes, err, errlen);
        if (!(inst->mems[i] = sbx__wasm_memory_new(store, &m->mems[i])))
            return SBX_E_NOMEM;
    }
    inst->mem0 = m->mem_count ? inst->mems[0] : NULL;
    return SBX_OK;
}

/* Evaluates every element segment's items into references (spec 4.5.4 step 9). */
static bool eval_elems(struct wasm_instance *inst)
{
    const struct wasm_module *m = inst->module;
    for (uint32_t i = 0; i < m->elem_count; i++) {
        const struct wasm_elem_seg *seg = &m->elems[i];
        inst->elem_refs[i] = sbx__calloc(seg->count, sizeof(void *));
        if (!inst->elem_refs[i])
            return false;
        for (uint32_t j = 0; j < seg->count; j++)
            inst->elem_refs[i][j] = eval_init(inst, &seg->items[j]).ref;
        inst->elem_sizes[i] = seg->count;
        if (sbx__wasm_ctype_is_gc(sbx__wasm_ctype(m, seg->elem_type)) &&
            !sbx__wasm_gc_add_root(inst->store, WASM_GC_ROOT_ELEMS, inst, i))
            return false;
    }
    return true;
}

/* Runs table.init then elem.drop for active segments and elem.drop for declarative ones, in
 * order; stops at the first out-of-bounds segment, keeping earlier writes (spec 2.0). */
static bool apply_elems(struct wasm_instance *inst, char *err, size_t errlen)
{
    const struct wasm_module *m = inst->module;
    for (uint32_t i = 0; i < m->elem_count; i++) {
        const struct wasm_elem_seg *seg = &m->elems[i];
        if (seg->mode == WASM_SEG_PASSIVE)
            continue;
        if (seg->mode == WASM_SEG_ACTIVE) {
            struct wasm_table *t = inst->tables[seg->table_index];
            wasm_value v = eval_init(inst, &seg->offset);
            uint64_t off = t->type.is64 ? v.i64 : v.i32; /* tables are < 2^32: no overflow */
            uint32_t n = inst->elem_sizes[i];
            if (off > t->size || off + n > t->size) {
                if (err && errlen)
                    snprintf(err, errlen, "out of bounds table access (element segment %u)", i);
                return false;
            }
            if (n)
                memcpy(t->elems + off, inst->elem_refs[i], (size_t)n * sizeof(void *));
        }
        inst->elem_sizes[i] = 0;
    }
    return true;
}

/* Runs memory.init then data.drop for active data segments, in order (spec 2.0). */
static bool apply_datas(struct wasm_instance *inst, char *err, size_t errlen)
{
    const struct wasm_module *m = inst->module;
    for (uint32_t i = 0; i < m->data_count; i++) {
        const struct wasm_data_seg *seg = &m->datas[i];
        if (seg->mode != WASM_SEG_ACTIVE)
            continue;
        struct wasm_memory *mem = inst->mems[seg->mem_index];
        wasm_value v = eval_init(inst, &seg->offset);
        uint64_t off = mem->type.is64 ? v.i64 : v.i32;
        uint8_t *dst = off <= mem->size && seg->len <= mem->size - off ? mem->data + off : NULL;
        if (!dst) {
            if (err && errlen)
                snprintf(err, errlen, "out of bounds memory access (data segment %u)", i);
            return false;
        }
        if (seg->len)
            memcpy(dst, seg->bytes, seg->len);
        inst->data_dropped[i] = true;
    }
    return true;
}

/* Builds the instance's state up to, not including, the start function. */
static sbx_err build(struct wasm_instance *inst, const struct wasm_extern *imports, char *err,
                     size_t errlen)
{
    bind_imports(inst, imports);
    if (!charge_instance(inst)) {
        set_err(err, errlen,
                "the instance's functions and element segments need more than is "
                "left of the store's memoryBytes");
        return SBX_E_MEMORY_LIMIT;
    }
    /* The store keeps the module's canonical types alive while its objects point at them. */
    struct wasm_typeset *ts = sbx__wasm_typeset_ref(inst->module->typeset);
    if (ts && !sbx__wasm_store_own(inst->store, ts, sbx__wasm_typeset_release)) {
        sbx__wasm_typeset_release(ts);
        return SBX_E_NOMEM;
    }
    if (!create_funcs(inst) || !create_tags(inst))
        return SBX_E_NOMEM;
    sbx_err rc = create_state(inst, err, errlen);
    if (rc != SBX_OK)
        return rc;
    if (!eval_elems(inst))
        return SBX_E_NOMEM;
    if (inst->init_trap != WASM_TRAP_NONE) {
        set_err(err, errlen,
                "the GC objects of the constant expressions need more than is left "
                "of the store's memoryBytes");
        return SBX_E_MEMORY_LIMIT;
    }
    if (!apply_elems(inst, err, errlen) || !apply_datas(inst, err, errlen))
        return SBX_E_WASM_INSTANTIATE;
    return SBX_OK;
}

static sbx_err run_start(struct wasm_instance *inst, struct wasm_trap *trap, char *err,
                         size_t errlen)
{
    struct wasm_trap local;
    if (!trap)
        trap = &local;
    memset(trap, 0, sizeof(*trap));
    wasm_value none[1];
    memset(none, 0, sizeof(none));
    struct wasm_func *f = inst->funcs[inst->module->start_func];
    sbx_err rc = sbx__wasm_func_call(inst->store, f, none, none, trap);
    if (rc == SBX_E_WASM_TRAP)
        set_err(err, errlen, trap->message);
    return rc;
}

sbx_err sbx__wasm_instantiate(struct wasm_store *store, const struct wasm_module *m,
                              wasm_resolve_fn resolve, void *user, struct wasm_instance **out,
                              struct wasm_trap *trap, char *err, size_t errlen)
{
    return sbx__wasm_instantiate_guarded(store, m, resolve, user, NULL, out, trap, err, errlen);
}

sbx_err sbx__wasm_instantiate_guarded(struct wasm_store *store, const struct wasm_module *m,
                                      wasm_resolve_fn resolve, void *user,
                                      const struct wasm_load_guard *guard,
                                      struct wasm_instance **out, struct wasm_trap *trap, char *err,
                                      size_t errlen)
{
    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    struct wasm_extern *imports = sbx__calloc(m->import_count, sizeof(*imports));
    if (!imports)
        return SBX_E_NOMEM;
    sbx_err rc = sbx__wasm_link_imports(m, resolve, user, imports, err, errlen);
    if (rc == SBX_OK) {
        struct wasm_instance *inst = instance_alloc(store, m);
        rc = inst ? build(inst, imports, err, errlen) : SBX_E_NOMEM;
        if (rc == SBX_OK && store->limits.tier == WASM_TIER_COMPILED)
            rc = sbx__wasm_jit_instance_cached(inst, guard, err, errlen);
        if (rc == SBX_OK && m->has_start)
            rc = run_start(inst, trap, err, errlen);
        if (rc == SBX_OK || rc == SBX_E_WASM_TRAP)
            *out = inst;
    }
    sbx__free(imports);
    return rc;
}

bool sbx__wasm_instance_export(const struct wasm_instance *inst, const char *name, size_t name_len,
                               struct wasm_extern *out)
{
    const struct wasm_module *m = inst->module;
    for (uint32_t i = 0; i < m->export_count; i++) {
        const struct wasm_export *e = &m->exports[i];
        if (e->name_len != name_len || (name_len && memcmp(e->name, name, name_len) != 0))
            continue;
        out->kind = e->kind;
        switch (e->kind) {
        case WASM_EXTERN_FUNC:
            out->u.func = inst->funcs[e->index];
            break;
        case WASM_EXTERN_TABLE:
            out->u.table = inst->tables[e->index];
            break;
        case WASM_EXTERN_MEMORY:
            out->u.memory = inst->mems[e->index];
            break;
        case WASM_EXTERN_TAG:
            out->u.tag = inst->tags[e->index];
            break;
        default:
            out->u.global = inst->globals[e->index];
            break;
        }
        return true;
    }
    return false;
}

const struct wasm_module *sbx__wasm_instance_module(const struct wasm_instance *inst)
{
    return inst->module;
}

struct wasm_memory *sbx__wasm_instance_memory(const struct wasm_instance *inst, uint32_t idx)
{
    return idx < inst->module->mem_count ? inst->mems[idx] : NULL;
}

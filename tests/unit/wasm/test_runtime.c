/* Unit tests for the wasm runtime objects: store, memory, table, global and instantiation,
 * on modules built by hand so they run without the decoder. */
#include <check.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "wasm/code.h"
#include "wasm/runtime.h"
#include "wasm/types.h"
#include "sbx_test.h"

#define PAGE WASM_PAGE_SIZE

static struct wasm_store *new_store(uint32_t max_pages, uint32_t max_elems)
{
    struct wasm_store_limits l = {.max_memory_pages = max_pages, .max_table_elems = max_elems};
    struct wasm_store *s = NULL;
    ck_assert_int_eq(sbx__wasm_store_create(&l, &s), SBX_OK);
    ck_assert_ptr_nonnull(s);
    return s;
}

static struct wasm_memtype memtype(uint32_t min, bool has_max, uint32_t max)
{
    struct wasm_memtype t = {.limits = {.min = min, .max = max, .has_max = has_max}};
    return t;
}

static struct wasm_tabletype tabtype(wasm_vtype elem, uint32_t min, bool has_max, uint32_t max)
{
    struct wasm_tabletype t = {.elem_type = elem, .limits = {min, max, has_max}};
    return t;
}

START_TEST(store_defaults_and_flags)
{
    struct wasm_store *s = NULL;
    ck_assert_int_eq(sbx__wasm_store_create(NULL, &s), SBX_OK);
    ck_assert_uint_eq(s->limits.max_memory_pages, 65536);
    ck_assert_uint_eq(s->limits.max_table_elems, 10000000);
    ck_assert_uint_gt(s->limits.max_call_depth, 0);
    ck_assert_uint_gt(s->limits.max_stack_bytes, 0);
    ck_assert(!s->is_metered);
    ck_assert_uint_eq(sbx__wasm_store_fuel(s), UINT64_MAX);
    sbx__wasm_store_set_fuel(s, 1234);
    ck_assert(s->is_metered);
    ck_assert_uint_eq(sbx__wasm_store_fuel(s), 1234);
    sbx__wasm_store_set_fuel(s, 0);
    ck_assert(!s->is_metered);
    ck_assert(!atomic_load(&s->is_interrupted));
    sbx__wasm_store_interrupt(s);
    ck_assert(atomic_load(&s->is_interrupted));
    sbx__wasm_store_clear_interrupt(s);
    ck_assert(!atomic_load(&s->is_interrupted));
    sbx__wasm_store_destroy(s);
    sbx__wasm_store_destroy(NULL);

    struct wasm_store_limits l = {.max_memory_pages = 70000, .fuel = 7};
    ck_assert_int_eq(sbx__wasm_store_create(&l, &s), SBX_OK);
    ck_assert_uint_eq(s->limits.max_memory_pages, 65536);
    ck_assert_uint_eq(sbx__wasm_store_fuel(s), 7);
    sbx__wasm_store_destroy(s);
}
END_TEST

/* max_bytes covers stacks (charged at creation), memories, tables and their growth; a grow the
 * store's limits refuse is flagged, one the type's own maximum refuses is not. */
START_TEST(store_byte_budget)
{
    struct wasm_store_limits l = {.max_bytes = 1000};
    struct wasm_store *s = NULL;
    ck_assert_int_eq(sbx__wasm_store_create(&l, &s), SBX_E_MEMORY_LIMIT); /* no room for stacks */
    ck_assert_ptr_null(s);
    l.max_stack_bytes = 8192;
    l.max_call_depth = 100;
    uint64_t stacks = sbx__wasm_exec_bytes(&l);
    ck_assert_uint_eq(stacks, 8192 + 101 * sizeof(struct wasm_frame));
    l.max_bytes = stacks + 2 * PAGE + 800; /* two pages and 100 table elements */
    ck_assert_int_eq(sbx__wasm_store_create(&l, &s), SBX_OK);
    ck_assert_uint_eq(sbx__wasm_store_bytes_used(s), stacks);
    struct wasm_memtype mt = memtype(1, true, 3);
    struct wasm_memory *m = sbx__wasm_memory_new(s, &mt);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(sbx__wasm_memory_grow(m, 1), 1);
    ck_assert(!sbx__wasm_store_was_refused(s));
    ck_assert_int_eq(sbx__wasm_memory_grow(m, 1), -1); /* the budget, under the type's max */
    ck_assert(sbx__wasm_store_was_refused(s));
    sbx__wasm_store_clear_refused(s);
    ck_assert_int_eq(sbx__wasm_memory_grow(m, 5), -1); /* past the type's max: not the store's */
    ck_assert(!sbx__wasm_store_was_refused(s));
    struct wasm_tabletype tt = tabtype(WASM_FUNCREF, 50, true, 200);
    wasm_value null_ref = {.ref = NULL};
    struct wasm_table *t = sbx__wasm_table_new(s, &tt, null_ref);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(sbx__wasm_table_grow(t, 50, null_ref), 50);
    ck_assert_int_eq(sbx__wasm_table_grow(t, 1, null_ref), -1);
    ck_assert(sbx__wasm_store_was_refused(s));
    sbx__wasm_store_clear_refused(s);
    ck_assert_int_eq(sbx__wasm_table_grow(t, 150, null_ref), -1); /* the type's max */
    ck_assert(!sbx__wasm_store_was_refused(s));
    struct wasm_tabletype big = tabtype(WASM_FUNCREF, 1, false, 0);
    ck_assert_ptr_null(sbx__wasm_table_new(s, &big, null_ref)); /* no byte left */
    ck_assert_uint_eq(sbx__wasm_store_bytes_used(s), l.max_bytes);
    sbx__wasm_store_destroy(s);
}
END_TEST

START_TEST(memory_grow_and_span)
{
    struct wasm_store *s = new_store(0, 0);
    struct wasm_memtype t = memtype(1, true, 3);
    struct wasm_memory *m = sbx__wasm_memory_new(s, &t);
    ck_assert_ptr_nonnull(m);
    uint8_t *base = m->data;
    ck_assert_uint_eq(sbx__wasm_memory_size(m), PAGE);
    ck_assert_ptr_eq(sbx__wasm_memory_span(m, 0, PAGE), base);
    ck_assert_ptr_eq(sbx__wasm_memory_span(m, PAGE, 0), base + PAGE);
    ck_assert_ptr_null(sbx__wasm_memory_span(m, PAGE - 1, 2));
    ck_assert_ptr_null(sbx__wasm_memory_span(m, UINT32_MAX, 2)); /* would wrap in 32 bits */
    ck_assert_ptr_null(sbx__wasm_memory_span(m, 1, UINT32_MAX));
    base[PAGE - 1] = 0x5a;
    ck_assert_int_eq(sbx__wasm_memory_grow(m, 1), 1);
    ck_assert_ptr_eq(m->data, base); /* never moves */
    ck_assert_uint_eq(sbx__wasm_memory_size(m), 2 * PAGE);
    ck_assert_uint_eq(sbx__wasm_memory_type(m)->limits.min, 2);
    ck_assert_uint_eq(base[PAGE - 1], 0x5a);
    for (uint32_t i = PAGE; i < 2 * PAGE; i++)
        ck_assert_uint_eq(base[i], 0);
    base[2 * PAGE - 1] = 1;
    ck_assert_int_eq(sbx__wasm_memory_grow(m, 2), -1); /* past the type's max of 3 */
    ck_assert_int_eq(sbx__wasm_memory_grow(m, UINT32_MAX), -1);
    ck_assert_int_eq(sbx__wasm_memory_grow(m, 1), 2);
    ck_assert_int_eq(sbx__wasm_memory_grow(m, 0), 3);
    ck_assert_int_eq(sbx__wasm_memory_grow(m, 1), -1);
    ck_assert_ptr_nonnull(sbx__wasm_memory_span(m, 3 * PAGE - 4, 4));
    sbx__wasm_store_destroy(s);
}
END_TEST

START_TEST(memory_store_cap)
{
    struct wasm_store *s = new_store(2, 0);
    struct wasm_memtype t = memtype(1, false, 0);
    struct wasm_memory *m = sbx__wasm_memory_new(s, &t);
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(m->max_pages, 2);
    ck_assert_int_eq(sbx__wasm_memory_grow(m, 1), 1);
    ck_assert_int_eq(sbx__wasm_memory_grow(m, 1), -1);
    struct wasm_memtype big = memtype(3, false, 0);
    ck_assert_ptr_null(sbx__wasm_memory_new(s, &big));
    struct wasm_memtype zero = memtype(0, true, 0);
    struct wasm_memory *z = sbx__wasm_memory_new(s, &zero);
    ck_assert_ptr_nonnull(z);
    ck_assert_ptr_nonnull(sbx__wasm_memory_span(z, 0, 0));
    ck_assert_ptr_null(sbx__wasm_memory_span(z, 0, 1));
    ck_assert_int_eq(sbx__wasm_memory_grow(z, 1), -1);
    sbx__wasm_store_destroy(s);
}
END_TEST

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
    siglongjmp(fault_jmp, sig);
}

/* Whether writing *p faults. Our own handler, so the check also works under ASan. */
static bool write_faults(volatile uint8_t *p)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fault;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old);
    bool faulted = true;
    if (sigsetjmp(fault_jmp, 1) == 0) {
        *p = 1;
        faulted = false;
    }
    sigaction(SIGSEGV, &old, NULL);
    return faulted;
}

/* A byte past the current size is not mapped writable: an engine bug faults, it cannot leak. */
START_TEST(memory_past_size_faults)
{
    struct wasm_store *s = new_store(0, 0);
    struct wasm_memtype t = memtype(1, false, 0);
    struct wasm_memory *m = sbx__wasm_memory_new(s, &t);
    ck_assert_ptr_nonnull(m);
    ck_assert(!write_faults(m->data + PAGE - 1));
    ck_assert(write_faults(m->data + PAGE));
    ck_assert(write_faults(m->data + 7 * PAGE));
    ck_assert_int_eq(sbx__wasm_memory_grow(m, 1), 1);
    ck_assert(!write_faults(m->data + PAGE));
    ck_assert(write_faults(m->data + 2 * PAGE));
    sbx__wasm_store_destroy(s);
}
END_TEST

START_TEST(memory_many_unbounded)
{
    /* A spec run holds hundreds of unbounded memories: each reserves 4 GiB of address space (8
     * GiB and a page with the compiled tier's guard region: new_store's tier is AUTO) but
     * commits only what it uses. */
    struct wasm_store *s = new_store(0, 0);
    struct wasm_memtype t = memtype(1, false, 0);
    for (int i = 0; i < 300; i++) {
        struct wasm_memory *m = sbx__wasm_memory_new(s, &t);
        ck_assert_ptr_nonnull(m);
        ck_assert(m->is_guarded);
        ck_assert_uint_eq(m->reserved, WASM_GUARD_RESERVE);
        m->data[0] = 1;
    }
    sbx__wasm_store_destroy(s);
}
END_TEST

START_TEST(table_ops)
{
    struct wasm_store *s = new_store(0, 5);
    int a, b;
    struct wasm_tabletype tt = tabtype(WASM_EXTERNREF, 2, true, 4);
    struct wasm_table *t = sbx__wasm_table_new(s, &tt, (wasm_value){.ref = &a});
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(sbx__wasm_table_size(t), 2);
    wasm_value v;
    ck_assert(sbx__wasm_table_get(t, 1, &v));
    ck_assert_ptr_eq(v.ref, &a);
    ck_assert(!sbx__wasm_table_get(t, 2, &v));
    ck_assert(sbx__wasm_table_set(t, 0, (wasm_value){.ref = &b}));
    ck_assert(!sbx__wasm_table_set(t, 2, (wasm_value){.ref = &b}));
    ck_assert_int_eq(sbx__wasm_table_grow(t, 3, (wasm_value){.ref = NULL}), -1);
    ck_assert_int_eq(sbx__wasm_table_grow(t, 2, (wasm_value){.ref = &b}), 2);
    ck_assert_uint_eq(sbx__wasm_table_type(t)->limits.min, 4);
    ck_assert(sbx__wasm_table_get(t, 0, &v) && v.ref == &b);
    ck_assert(sbx__wasm_table_get(t, 1, &v) && v.ref == &a);
    ck_assert(sbx__wasm_table_get(t, 3, &v) && v.ref == &b);
    ck_assert_int_eq(sbx__wasm_table_grow(t, 0, (wasm_value){.ref = NULL}), 4);
    ck_assert_int_eq(sbx__wasm_table_grow(t, 1, (wasm_value){.ref = NULL}), -1);

    struct wasm_tabletype open = tabtype(WASM_FUNCREF, 0, false, 0);
    struct wasm_table *u = sbx__wasm_table_new(s, &open, (wasm_value){.ref = NULL});
    ck_assert_ptr_nonnull(u);
    ck_assert_int_eq(sbx__wasm_table_grow(u, 5, (wasm_value){.ref = NULL}), 0);
    ck_assert_int_eq(sbx__wasm_table_grow(u, 1, (wasm_value){.ref = NULL}), -1); /* store cap */
    struct wasm_tabletype big = tabtype(WASM_FUNCREF, 6, false, 0);
    ck_assert_ptr_null(sbx__wasm_table_new(s, &big, (wasm_value){.ref = NULL}));
    sbx__wasm_store_destroy(s);
}
END_TEST

START_TEST(global_ops)
{
    struct wasm_store *s = new_store(0, 0);
    struct wasm_globaltype gt = {.type = WASM_I64, .is_mutable = true};
    struct wasm_global *g = sbx__wasm_global_new(s, &gt, (wasm_value){.i64 = 5});
    ck_assert_ptr_nonnull(g);
    ck_assert_uint_eq(sbx__wasm_global_get(g).i64, 5);
    sbx__wasm_global_set(g, (wasm_value){.i64 = UINT64_MAX});
    ck_assert_uint_eq(sbx__wasm_global_get(g).i64, UINT64_MAX);
    ck_assert_uint_eq(sbx__wasm_global_type(g)->type, WASM_I64);
    ck_assert(sbx__wasm_global_type(g)->is_mutable);
    sbx__wasm_store_destroy(s);
}
END_TEST

/* ---- hand-built modules ------------------------------------------------------------------- */

static wasm_vtype types_i32_i32[] = {WASM_I32, WASM_I32};
static struct wasm_functype ftypes[] = {
    {0, 0, NULL},          /* [] -> [] */
    {1, 1, types_i32_i32}, /* [i32] -> [i32] */
};
/* Their definitions and canonical types (types.h), as validation gives a decoded module: each
 * a final function type of its own recursion group, the canonical type a host function of it
 * gets too. Made once, kept for the process. */
static struct wasm_typedef ftype_defs[2];
static const struct wasm_rtt *ftype_rtts[2];

static void ensure_ftype_rtts(void)
{
    for (uint32_t i = 0; i < 2 && !ftype_rtts[i]; i++) {
        ftype_defs[i] = (struct wasm_typedef){.kind = WASM_COMP_FUNC,
                                              .is_final = true,
                                              .super = WASM_NO_SUPER,
                                              .rec_start = i,
                                              .rec_len = 1};
        ftype_rtts[i] = sbx__wasm_rtt_of_functype(&ftypes[i]);
        ck_assert_ptr_nonnull(ftype_rtts[i]);
    }
}

static void set_types(struct wasm_module *m)
{
    ensure_ftype_rtts();
    m->types = ftypes;
    m->typedefs = ftype_defs;
    m->rtts = ftype_rtts;
    m->type_count = 2;
}

static struct wasm_init const_i32(uint32_t v)
{
    struct wasm_init e = {.op = WASM_INIT_CONST, .type = WASM_I32, .value.i32 = v};
    return e;
}

static struct wasm_init ref_func(uint32_t idx)
{
    struct wasm_init e = {.op = WASM_INIT_REF_FUNC, .type = WASM_FUNCREF, .index = idx};
    return e;
}

static void name(char **p, uint32_t *len, const char *s)
{
    *p = (char *)s;
    *len = (uint32_t)strlen(s);
}

/* The main test module: 2 defined functions, a 1-page memory, a 3-slot funcref table, an i32
 * global of 42, active+passive data and active+passive+declarative element segments. */
struct fixture {
    struct wasm_module m;
    uint32_t func_type_idx[2];
    struct wasm_func_def funcs[2];
    struct wasm_tabletype tables[1];
    struct wasm_init table_inits[1];
    struct wasm_memtype mems[1];
    struct wasm_globaltype globals[1];
    struct wasm_init global_inits[1];
    struct wasm_export exports[5];
    struct wasm_data_seg datas[2];
    struct wasm_elem_seg elems[3];
    struct wasm_init items[2];
};

static void fixture_init(struct fixture *f)
{
    memset(f, 0, sizeof(*f));
    struct wasm_module *m = &f->m;
    set_types(m);
    f->func_type_idx[0] = 0;
    f->func_type_idx[1] = 1;
    f->funcs[0].type_index = 0;
    f->funcs[1].type_index = 1;
    m->func_type_idx = f->func_type_idx;
    m->funcs = f->funcs;
    m->func_count = m->func_def_count = 2;
    f->tables[0] = tabtype(WASM_FUNCREF, 3, false, 0);
    f->table_inits[0] = (struct wasm_init){.op = WASM_INIT_REF_NULL, .type = WASM_FUNCREF};
    m->tables = f->tables;
    m->table_inits = f->table_inits;
    m->table_count = 1;
    f->mems[0] = memtype(1, true, 2);
    m->mems = f->mems;
    m->mem_count = 1;
    f->globals[0] = (struct wasm_globaltype){WASM_I32, false};
    f->global_inits[0] = const_i32(42);
    m->globals = f->globals;
    m->global_inits = f->global_inits;
    m->global_count = 1;
    const char *names[] = {"f0", "f1", "mem", "tab", "g"};
    uint8_t kinds[] = {WASM_EXTERN_FUNC, WASM_EXTERN_FUNC, WASM_EXTERN_MEMORY, WASM_EXTERN_TABLE,
                       WASM_EXTERN_GLOBAL};
    uint32_t idx[] = {0, 1, 0, 0, 0};
    for (int i = 0; i < 5; i++) {
        name(&f->exports[i].name, &f->exports[i].name_len, names[i]);
        f->exports[i].kind = kinds[i];
        f->exports[i].index = idx[i];
    }
    m->exports = f->exports;
    m->export_count = 5;
    f->datas[0] = (struct wasm_data_seg){WASM_SEG_ACTIVE, 0, const_i32(10), (uint8_t *)"abc", 3};
    f->datas[1] = (struct wasm_data_seg){WASM_SEG_PASSIVE, 0, {0}, (uint8_t *)"zz", 2};
    m->datas = f->datas;
    m->data_count = 2;
    f->items[0] = ref_func(1);
    f->items[1] = ref_func(0);
    f->elems[0] =
        (struct wasm_elem_seg){WASM_SEG_ACTIVE, WASM_FUNCREF, 0, const_i32(1), 2, f->items};
    f->elems[1] = (struct wasm_elem_seg){WASM_SEG_PASSIVE, WASM_FUNCREF, 0, {0}, 2, f->items};
    f->elems[2] = (struct wasm_elem_seg){WASM_SEG_DECLARATIVE, WASM_FUNCREF, 0, {0}, 1, f->items};
    m->elems = f->elems;
    m->elem_count = 3;
}

static sbx_err instantiate(struct wasm_store *s, const struct wasm_module *m, wasm_resolve_fn r,
                           void *user, struct wasm_instance **out, char *err)
{
    struct wasm_trap trap;
    return sbx__wasm_instantiate(s, m, r, user, out, &trap, err, 256);
}

START_TEST(instantiate_segments_and_exports)
{
    struct fixture f;
    fixture_init(&f);
    struct wasm_store *s = new_store(0, 0);
    struct wasm_instance *inst = NULL;
    char err[256];
    ck_assert_int_eq(instantiate(s, &f.m, NULL, NULL, &inst, err), SBX_OK);
    ck_assert_ptr_nonnull(inst);
    ck_assert_ptr_eq(sbx__wasm_instance_module(inst), &f.m);

    struct wasm_memory *mem = sbx__wasm_instance_memory(inst, 0);
    ck_assert_ptr_eq(mem, inst->mem0);
    ck_assert_ptr_null(sbx__wasm_instance_memory(inst, 1));
    ck_assert_mem_eq(sbx__wasm_memory_span(mem, 10, 3), "abc", 3);
    ck_assert_uint_eq(mem->data[9], 0);
    ck_assert_uint_eq(mem->data[13], 0);
    ck_assert(inst->data_dropped[0]);
    ck_assert(!inst->data_dropped[1]);

    struct wasm_extern e;
    ck_assert(sbx__wasm_instance_export(inst, "tab", 3, &e));
    ck_assert_uint_eq(e.kind, WASM_EXTERN_TABLE);
    struct wasm_table *t = e.u.table;
    ck_assert_ptr_null(t->elems[0]);
    ck_assert_ptr_eq(t->elems[1], inst->funcs[1]);
    ck_assert_ptr_eq(t->elems[2], inst->funcs[0]);
    ck_assert_uint_eq(inst->elem_sizes[0], 0); /* active: dropped */
    ck_assert_uint_eq(inst->elem_sizes[1], 2); /* passive: kept for table.init */
    ck_assert_uint_eq(inst->elem_sizes[2], 0); /* declarative: dropped */
    ck_assert_ptr_eq(inst->elem_refs[1][0], inst->funcs[1]);

    ck_assert(sbx__wasm_instance_export(inst, "f1", 2, &e));
    ck_assert_uint_eq(e.kind, WASM_EXTERN_FUNC);
    ck_assert_ptr_eq(e.u.func->inst, inst);
    ck_assert_uint_eq(e.u.func->def_index, 1);
    ck_assert_ptr_eq(e.u.func->type, &ftypes[1]);
    ck_assert(sbx__wasm_instance_export(inst, "mem", 3, &e) && e.u.memory == mem);
    ck_assert(sbx__wasm_instance_export(inst, "g", 1, &e));
    ck_assert_uint_eq(sbx__wasm_global_get(e.u.global).i32, 42);
    ck_assert(!sbx__wasm_instance_export(inst, "f", 1, &e));
    ck_assert(!sbx__wasm_instance_export(inst, "f0x", 3, &e));
    sbx__wasm_store_destroy(s);
}
END_TEST

/* ---- imports ------------------------------------------------------------------------------ */

/* A resolver over a fixed list of externs, matched by field name only. */
struct provider {
    const char *names[8];
    struct wasm_extern ext[8];
    int count;
    int calls;
};

static bool provide(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    struct provider *p = user;
    p->calls++;
    for (int i = 0; i < p->count; i++) {
        if (strlen(p->names[i]) == imp->name_len &&
            !memcmp(p->names[i], imp->name, imp->name_len)) {
            *out = p->ext[i];
            return true;
        }
    }
    return false;
}

static void provider_add(struct provider *p, const char *n, uint8_t kind, void *obj)
{
    p->names[p->count] = n;
    p->ext[p->count].kind = kind;
    p->ext[p->count].u.func = obj; /* all union members are pointers */
    if (kind == WASM_EXTERN_TABLE)
        p->ext[p->count].u.table = obj;
    else if (kind == WASM_EXTERN_MEMORY)
        p->ext[p->count].u.memory = obj;
    else if (kind == WASM_EXTERN_GLOBAL)
        p->ext[p->count].u.global = obj;
    p->count++;
}

/* A module that imports one extern "x" of the given import description, and nothing else. */
struct import_module {
    struct wasm_module m;
    struct wasm_import imp;
    uint32_t func_type_idx[1];
    struct wasm_tabletype table;
    struct wasm_memtype mem;
    struct wasm_globaltype global;
};

static void import_module_init(struct import_module *im, const struct wasm_import *imp)
{
    memset(im, 0, sizeof(*im));
    im->imp = *imp;
    name(&im->imp.module, &im->imp.module_len, "env");
    name(&im->imp.name, &im->imp.name_len, "x");
    struct wasm_module *m = &im->m;
    set_types(m);
    m->imports = &im->imp;
    m->import_count = 1;
    switch (imp->kind) {
    case WASM_EXTERN_FUNC:
        im->func_type_idx[0] = imp->u.func_type;
        m->func_type_idx = im->func_type_idx;
        m->func_count = m->func_import_count = 1;
        break;
    case WASM_EXTERN_TABLE:
        im->table = imp->u.table;
        m->tables = &im->table;
        m->table_count = m->table_import_count = 1;
        break;
    case WASM_EXTERN_MEMORY:
        im->mem = imp->u.mem;
        m->mems = &im->mem;
        m->mem_count = m->mem_import_count = 1;
        break;
    default:
        im->global = imp->u.global;
        m->globals = &im->global;
        m->global_count = m->global_import_count = 1;
        break;
    }
}

/* Instantiates a module importing `imp` as "x" from a provider of `kind` object obj; returns
 * the result code and checks the message names the failure. */
static sbx_err link_one(const struct wasm_import *imp, uint8_t kind, void *obj)
{
    struct import_module im;
    import_module_init(&im, imp);
    struct provider p = {.count = 0};
    provider_add(&p, "x", kind, obj);
    struct wasm_store *s = new_store(0, 0);
    struct wasm_instance *inst = NULL;
    char err[256];
    sbx_err rc = instantiate(s, &im.m, provide, &p, &inst, err);
    if (rc == SBX_E_WASM_LINK) {
        ck_assert_ptr_null(inst);
        ck_assert_msg(strstr(err, "incompatible import type") != NULL, "err: %s", err);
        ck_assert_msg(strstr(err, "\"env\".\"x\"") != NULL, "err: %s", err);
    } else if (rc == SBX_OK) {
        ck_assert_ptr_nonnull(inst);
    }
    sbx__wasm_store_destroy(s);
    return rc;
}

static struct wasm_import imp_table(wasm_vtype elem, uint32_t min, bool has_max, uint32_t max)
{
    struct wasm_import i = {.kind = WASM_EXTERN_TABLE};
    i.u.table = tabtype(elem, min, has_max, max);
    return i;
}

static struct wasm_import imp_mem(uint32_t min, bool has_max, uint32_t max)
{
    struct wasm_import i = {.kind = WASM_EXTERN_MEMORY};
    i.u.mem = memtype(min, has_max, max);
    return i;
}

START_TEST(import_table_and_memory_limits)
{
    struct wasm_store *hs = new_store(0, 0);
    struct wasm_tabletype tt = tabtype(WASM_FUNCREF, 10, true, 20);
    struct wasm_table *t = sbx__wasm_table_new(hs, &tt, (wasm_value){.ref = NULL});
    struct wasm_memtype mt = memtype(1, true, 2);
    struct wasm_memory *mem = sbx__wasm_memory_new(hs, &mt);
    struct wasm_import i;
    static const struct {
        uint32_t min;
        bool has_max;
        uint32_t max;
        bool ok;
    } tcases[] = {{10, false, 0, true},  {5, true, 20, true},   {10, true, 25, true},
                  {11, false, 0, false}, {10, true, 19, false}, {0, true, 10, false}},
      mcases[] = {{1, false, 0, true},  {0, true, 2, true},  {1, true, 3, true},
                  {2, false, 0, false}, {1, true, 1, false}, {0, true, 0, false}};
    for (size_t k = 0; k < sizeof(tcases) / sizeof(tcases[0]); k++) {
        i = imp_table(WASM_FUNCREF, tcases[k].min, tcases[k].has_max, tcases[k].max);
        ck_assert_int_eq(link_one(&i, WASM_EXTERN_TABLE, t),
                         tcases[k].ok ? SBX_OK : SBX_E_WASM_LINK);
    }
    i = imp_table(WASM_EXTERNREF, 10, false, 0);
    ck_assert_int_eq(link_one(&i, WASM_EXTERN_TABLE, t), SBX_E_WASM_LINK);
    for (size_t k = 0; k < sizeof(mcases) / sizeof(mcases[0]); k++) {
        i = imp_mem(mcases[k].min, mcases[k].has_max, mcases[k].max);
        ck_assert_int_eq(link_one(&i, WASM_EXTERN_MEMORY, mem),
                         mcases[k].ok ? SBX_OK : SBX_E_WASM_LINK);
    }
    /* After growth the memory's current size is its minimum: an import of min 2 now matches. */
    i = imp_mem(2, false, 0);
    ck_assert_int_eq(sbx__wasm_memory_grow(mem, 1), 1);
    ck_assert_int_eq(link_one(&i, WASM_EXTERN_MEMORY, mem), SBX_OK);
    ck_assert_int_eq(sbx__wasm_table_grow(t, 1, (wasm_value){.ref = NULL}), 10);
    i = imp_table(WASM_FUNCREF, 11, false, 0);
    ck_assert_int_eq(link_one(&i, WASM_EXTERN_TABLE, t), SBX_OK);
    /* A memory where a table is wanted. */
    i = imp_table(WASM_FUNCREF, 0, false, 0);
    ck_assert_int_eq(link_one(&i, WASM_EXTERN_MEMORY, mem), SBX_E_WASM_LINK);
    sbx__wasm_store_destroy(hs);
}
END_TEST

START_TEST(import_func_and_global_types)
{
    ensure_ftype_rtts();
    struct wasm_func fn = {.type = &ftypes[1], .rtt = ftype_rtts[1]};
    struct wasm_import i = {.kind = WASM_EXTERN_FUNC, .u.func_type = 1};
    ck_assert_int_eq(link_one(&i, WASM_EXTERN_FUNC, &fn), SBX_OK);
    i.u.func_type = 0;
    ck_assert_int_eq(link_one(&i, WASM_EXTERN_FUNC, &fn), SBX_E_WASM_LINK);
    /* Same arity, different value type. */
    wasm_vtype types_i64_i32[] = {WASM_I64, WASM_I32};
    struct wasm_functype other = {1, 1, types_i64_i32};
    struct wasm_func fn2 = {.type = &other, .rtt = sbx__wasm_rtt_of_functype(&other)};
    i.u.func_type = 1;
    ck_assert_int_eq(link_one(&i, WASM_EXTERN_FUNC, &fn2), SBX_E_WASM_LINK);
    sbx__wasm_rtt_release(fn2.rtt);

    struct wasm_global g = {.type = {WASM_I32, false}};
    struct wasm_import gi = {.kind = WASM_EXTERN_GLOBAL, .u.global = {WASM_I32, false}};
    ck_assert_int_eq(link_one(&gi, WASM_EXTERN_GLOBAL, &g), SBX_OK);
    gi.u.global.is_mutable = true;
    ck_assert_int_eq(link_one(&gi, WASM_EXTERN_GLOBAL, &g), SBX_E_WASM_LINK);
    gi.u.global = (struct wasm_globaltype){WASM_I64, false};
    ck_assert_int_eq(link_one(&gi, WASM_EXTERN_GLOBAL, &g), SBX_E_WASM_LINK);
    g.type.is_mutable = true;
    gi.u.global = (struct wasm_globaltype){WASM_I32, false};
    ck_assert_int_eq(link_one(&gi, WASM_EXTERN_GLOBAL, &g), SBX_E_WASM_LINK);
    ck_assert_int_eq(link_one(&gi, WASM_EXTERN_FUNC, &fn), SBX_E_WASM_LINK);
}
END_TEST

START_TEST(import_unknown)
{
    struct wasm_import i = {.kind = WASM_EXTERN_FUNC, .u.func_type = 0};
    struct import_module im;
    import_module_init(&im, &i);
    struct provider p = {.count = 0};
    provider_add(&p, "y", WASM_EXTERN_FUNC, NULL);
    struct wasm_store *s = new_store(0, 0);
    struct wasm_instance *inst = NULL;
    char err[256];
    ck_assert_int_eq(instantiate(s, &im.m, provide, &p, &inst, err), SBX_E_WASM_LINK);
    ck_assert_ptr_null(inst);
    ck_assert_str_eq(err, "unknown import \"env\".\"x\"");
    ck_assert_int_eq(p.calls, 1);
    /* An extern with a NULL object is no extern. */
    provider_add(&p, "x", WASM_EXTERN_FUNC, NULL);
    ck_assert_int_eq(instantiate(s, &im.m, provide, &p, &inst, err), SBX_E_WASM_LINK);
    ck_assert_ptr_nonnull(strstr(err, "unknown import"));
    ck_assert_int_eq(instantiate(s, &im.m, NULL, NULL, &inst, err), SBX_E_WASM_LINK);
    sbx__wasm_store_destroy(s);
}
END_TEST

/* A module importing memory "mem", table "tab" and i32 global "off", with one defined function,
 * a defined global initialised from "off", and segments the test case fills in. */
struct seg_module {
    struct wasm_module m;
    struct wasm_import imps[3];
    uint32_t func_type_idx[1];
    struct wasm_func_def funcs[1];
    struct wasm_tabletype tables[1];
    struct wasm_memtype mems[1];
    struct wasm_globaltype globals[2];
    struct wasm_init global_inits[1];
    struct wasm_elem_seg elems[2];
    struct wasm_data_seg datas[2];
    struct wasm_init items[2];
};

static void seg_module_init(struct seg_module *sm)
{
    memset(sm, 0, sizeof(*sm));
    struct wasm_module *m = &sm->m;
    set_types(m);
    sm->imps[0] = imp_mem(1, false, 0);
    sm->imps[1] = imp_table(WASM_FUNCREF, 10, false, 0);
    sm->imps[2] = (struct wasm_import){.kind = WASM_EXTERN_GLOBAL, .u.global = {WASM_I32, false}};
    const char *names[] = {"mem", "tab", "off"};
    for (int i = 0; i < 3; i++) {
        name(&sm->imps[i].module, &sm->imps[i].module_len, "env");
        name(&sm->imps[i].name, &sm->imps[i].name_len, names[i]);
    }
    m->imports = sm->imps;
    m->import_count = 3;
    m->func_type_idx = sm->func_type_idx;
    m->funcs = sm->funcs;
    m->func_count = m->func_def_count = 1;
    sm->mems[0] = sm->imps[0].u.mem;
    m->mems = sm->mems;
    m->mem_count = m->mem_import_count = 1;
    sm->tables[0] = sm->imps[1].u.table;
    m->tables = sm->tables;
    m->table_count = m->table_import_count = 1;
    sm->globals[0] = sm->globals[1] = (struct wasm_globaltype){WASM_I32, false};
    sm->global_inits[0] = (struct wasm_init){.op = WASM_INIT_GLOBAL_GET, .type = WASM_I32};
    m->globals = sm->globals;
    m->global_inits = sm->global_inits;
    m->global_count = 2;
    m->global_import_count = 1;
    m->elems = sm->elems;
    m->datas = sm->datas;
    sm->items[0] = ref_func(0);
    sm->items[1] = (struct wasm_init){.op = WASM_INIT_REF_NULL, .type = WASM_FUNCREF};
}

struct env {
    struct wasm_store *store;
    struct wasm_memory *mem;
    struct wasm_table *tab;
    struct wasm_global *off;
    struct provider p;
};

static void env_init(struct env *e, uint32_t off)
{
    memset(e, 0, sizeof(*e));
    e->store = new_store(0, 0);
    struct wasm_memtype mt = memtype(1, false, 0);
    struct wasm_tabletype tt = tabtype(WASM_FUNCREF, 10, false, 0);
    struct wasm_globaltype gt = {WASM_I32, false};
    e->mem = sbx__wasm_memory_new(e->store, &mt);
    e->tab = sbx__wasm_table_new(e->store, &tt, (wasm_value){.ref = NULL});
    e->off = sbx__wasm_global_new(e->store, &gt, (wasm_value){.i32 = off});
    ck_assert(e->mem && e->tab && e->off);
    provider_add(&e->p, "mem", WASM_EXTERN_MEMORY, e->mem);
    provider_add(&e->p, "tab", WASM_EXTERN_TABLE, e->tab);
    provider_add(&e->p, "off", WASM_EXTERN_GLOBAL, e->off);
}

START_TEST(segments_from_imported_global)
{
    struct seg_module sm;
    seg_module_init(&sm);
    struct wasm_init at_off = {.op = WASM_INIT_GLOBAL_GET, .type = WASM_I32, .index = 0};
    sm.elems[0] = (struct wasm_elem_seg){WASM_SEG_ACTIVE, WASM_FUNCREF, 0, at_off, 2, sm.items};
    sm.datas[0] = (struct wasm_data_seg){WASM_SEG_ACTIVE, 0, at_off, (uint8_t *)"hi", 2};
    sm.m.elem_count = sm.m.data_count = 1;
    struct env e;
    env_init(&e, 5);
    e.tab->elems[6] = e.tab; /* any non-null marker: the null item must overwrite it */
    struct wasm_instance *inst = NULL;
    char err[256];
    ck_assert_int_eq(instantiate(e.store, &sm.m, provide, &e.p, &inst, err), SBX_OK);
    ck_assert_ptr_eq(inst->mems[0], e.mem);
    ck_assert_ptr_eq(inst->tables[0], e.tab);
    ck_assert_ptr_eq(inst->globals[0], e.off);
    ck_assert_uint_eq(inst->globals[1]->value.i32, 5);
    ck_assert_ptr_eq(e.tab->elems[5], inst->funcs[0]);
    ck_assert_ptr_null(e.tab->elems[6]);
    ck_assert_mem_eq(e.mem->data + 5, "hi", 2);
    sbx__wasm_store_destroy(e.store);
}
END_TEST

/* Spec 2.0: segments apply in order, elements before data; the first out-of-bounds one fails
 * instantiation and the writes before it stay. */
START_TEST(segment_oob_keeps_earlier_writes)
{
    struct seg_module sm;
    seg_module_init(&sm);
    sm.elems[0] =
        (struct wasm_elem_seg){WASM_SEG_ACTIVE, WASM_FUNCREF, 0, const_i32(0), 1, sm.items};
    sm.elems[1] =
        (struct wasm_elem_seg){WASM_SEG_ACTIVE, WASM_FUNCREF, 0, const_i32(9), 2, sm.items};
    sm.datas[0] = (struct wasm_data_seg){WASM_SEG_ACTIVE, 0, const_i32(0), (uint8_t *)"hi", 2};
    sm.datas[1] =
        (struct wasm_data_seg){WASM_SEG_ACTIVE, 0, const_i32(PAGE - 1), (uint8_t *)"xy", 2};
    sm.m.elem_count = 2;
    sm.m.data_count = 2;
    struct env e;
    env_init(&e, 0);
    struct wasm_instance *inst = (struct wasm_instance *)&e;
    char err[256];
    ck_assert_int_eq(instantiate(e.store, &sm.m, provide, &e.p, &inst, err),
                     SBX_E_WASM_INSTANTIATE);
    ck_assert_ptr_null(inst);
    ck_assert_msg(strncmp(err, "out of bounds table access", 26) == 0, "err: %s", err);
    struct wasm_func *f = e.tab->elems[0];
    ck_assert_ptr_nonnull(f); /* the failed instance's function stays reachable */
    ck_assert_ptr_eq(f->inst->module, &sm.m);
    ck_assert_ptr_null(e.tab->elems[9]);  /* no partial write of the failing segment */
    ck_assert_uint_eq(e.mem->data[0], 0); /* data comes after elements */

    sm.elems[1].offset = const_i32(8); /* now fits exactly: elems 8 and 9 */
    ck_assert_int_eq(instantiate(e.store, &sm.m, provide, &e.p, &inst, err),
                     SBX_E_WASM_INSTANTIATE);
    ck_assert_msg(strncmp(err, "out of bounds memory access", 27) == 0, "err: %s", err);
    ck_assert_ptr_nonnull(e.tab->elems[8]);
    ck_assert_mem_eq(e.mem->data, "hi", 2);
    ck_assert_uint_eq(e.mem->data[PAGE - 1], 0);

    /* A zero-length segment at exactly the end is in bounds; one past the end is not. */
    sm.datas[1] = (struct wasm_data_seg){WASM_SEG_ACTIVE, 0, const_i32(PAGE), (uint8_t *)"", 0};
    ck_assert_int_eq(instantiate(e.store, &sm.m, provide, &e.p, &inst, err), SBX_OK);
    sm.datas[1].offset = const_i32(PAGE + 1);
    ck_assert_int_eq(instantiate(e.store, &sm.m, provide, &e.p, &inst, err),
                     SBX_E_WASM_INSTANTIATE);
    sm.datas[1].offset = const_i32(UINT32_MAX); /* offset + len must not wrap */
    sm.datas[1].len = 2;
    ck_assert_int_eq(instantiate(e.store, &sm.m, provide, &e.p, &inst, err),
                     SBX_E_WASM_INSTANTIATE);
    sbx__wasm_store_destroy(e.store);
}
END_TEST

START_TEST(memory_minimum_over_store_limit)
{
    struct fixture f;
    fixture_init(&f);
    f.mems[0] = memtype(3, false, 0);
    struct wasm_store *s = new_store(2, 0);
    struct wasm_instance *inst = NULL;
    char err[256];
    ck_assert_int_eq(instantiate(s, &f.m, NULL, NULL, &inst, err), SBX_E_MEMORY_LIMIT);
    ck_assert_ptr_null(inst);
    sbx__wasm_store_destroy(s);
    s = new_store(0, 2);
    ck_assert_int_eq(instantiate(s, &f.m, NULL, NULL, &inst, err), SBX_E_MEMORY_LIMIT);
    sbx__wasm_store_destroy(s);
}
END_TEST

static int start_calls;

static int start_host(struct wasm_call *call, void *user, const wasm_value *args,
                      wasm_value *results)
{
    (void)args;
    (void)results;
    start_calls++;
    if (user) {
        sbx__wasm_call_trap(call, WASM_TRAP_HOST, "start refused");
        return -1;
    }
    return 0;
}

/* The start function runs after the segments; a trap in it still returns the instance. */
START_TEST(start_function)
{
    struct wasm_import i = {.kind = WASM_EXTERN_FUNC, .u.func_type = 0};
    struct import_module im;
    import_module_init(&im, &i);
    im.m.has_start = true;
    im.m.start_func = 0;
    struct wasm_store *s = new_store(0, 0);
    struct wasm_func *ok = sbx__wasm_func_new_host(s, &ftypes[0], start_host, NULL);
    struct wasm_func *bad = sbx__wasm_func_new_host(s, &ftypes[0], start_host, s);
    ck_assert(ok && bad);
    struct provider p = {.count = 0};
    provider_add(&p, "x", WASM_EXTERN_FUNC, ok);
    struct wasm_instance *inst = NULL;
    struct wasm_trap trap;
    char err[256];
    start_calls = 0;
    ck_assert_int_eq(sbx__wasm_instantiate(s, &im.m, provide, &p, &inst, &trap, err, sizeof(err)),
                     SBX_OK);
    ck_assert_int_eq(start_calls, 1);
    p.ext[0].u.func = bad;
    inst = NULL;
    ck_assert_int_eq(sbx__wasm_instantiate(s, &im.m, provide, &p, &inst, &trap, err, sizeof(err)),
                     SBX_E_WASM_TRAP);
    ck_assert_int_eq(start_calls, 2);
    ck_assert_ptr_nonnull(inst);
    ck_assert_int_eq(trap.kind, WASM_TRAP_HOST);
    ck_assert_msg(strstr(err, "start refused") != NULL, "err: %s", err);
    sbx__wasm_store_destroy(s);
}
END_TEST

/* Failing each allocation in turn never crashes or leaks (ASan checks the leaks): the result is
 * SBX_OK or SBX_E_NOMEM, and the store always cleans up. */
START_TEST(alloc_failure_torture)
{
    struct fixture f;
    fixture_init(&f);
    bool saw_ok = false;
    for (unsigned long n = 1; n < 200 && !saw_ok; n++) {
        struct wasm_store *s = NULL;
        sbx__alloc_fail_at(n);
        if (sbx__wasm_store_create(NULL, &s) != SBX_OK) {
            sbx__alloc_fail_at(0);
            continue;
        }
        struct wasm_instance *inst = NULL;
        char err[256];
        sbx_err rc = instantiate(s, &f.m, NULL, NULL, &inst, err);
        sbx__alloc_fail_at(0);
        ck_assert_msg(rc == SBX_OK || rc == SBX_E_NOMEM, "n=%lu rc=%d", n, rc);
        ck_assert(rc == SBX_OK ? inst != NULL : inst == NULL);
        saw_ok = rc == SBX_OK;
        sbx__wasm_store_destroy(s);
    }
    ck_assert(saw_ok);
}
END_TEST

/* (module (func (export "spin") (loop (br 0)))) */
static const uint8_t spin_wasm[] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04,
                                    0x01, 0x60, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00, 0x07, 0x08,
                                    0x01, 0x04, 's',  'p',  'i',  'n',  0x00, 0x00, 0x0a, 0x09,
                                    0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b};

/* The CPU time a thread has used (its clock: pthread_getcpuclockid). */
static uint64_t cpu_ns(clockid_t clock)
{
    struct timespec ts;
    ck_assert_int_eq(clock_gettime(clock, &ts), 0);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct interrupter {
    struct wasm_store *store;
    clockid_t spinner;  /* the CPU clock of the thread running the guest */
    uint64_t at_cpu_ns; /* the spinner's CPU time when the interrupt was set */
};

static void *interrupt_later(void *arg)
{
    struct interrupter *it = arg;
    struct timespec d = {0, 30 * 1000 * 1000};
    nanosleep(&d, NULL);
    sbx__wasm_store_interrupt(it->store);
    it->at_cpu_ns = cpu_ns(it->spinner); /* read after: it cannot count time before the set */
    return NULL;
}

/* End to end through the decoder and interpreter: fuel stops a spinning guest, an interrupt
 * from another thread stops it promptly and stays set until cleared. */
START_TEST(fuel_and_interrupt_stop_a_loop)
{
    struct wasm_module *m = NULL;
    char err[256];
    ck_assert_int_eq(sbx__wasm_module_load(spin_wasm, sizeof(spin_wasm), &m, err, sizeof(err)),
                     SBX_OK);
    struct wasm_store *s = new_store(0, 0);
    struct wasm_instance *inst = NULL;
    ck_assert_int_eq(instantiate(s, m, NULL, NULL, &inst, err), SBX_OK);
    struct wasm_extern e;
    ck_assert(sbx__wasm_instance_export(inst, "spin", 4, &e));
    wasm_value none[1];
    struct wasm_trap trap;

    sbx__wasm_store_set_fuel(s, 100000);
    ck_assert_int_eq(sbx__wasm_func_call(s, e.u.func, none, none, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_FUEL_EXHAUSTED);
    ck_assert_uint_lt(sbx__wasm_store_fuel(s), 100000);

    sbx__wasm_store_set_fuel(s, 0);
    struct interrupter it = {.store = s};
    ck_assert_int_eq(pthread_getcpuclockid(pthread_self(), &it.spinner), 0);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, interrupt_later, &it), 0);
    ck_assert_int_eq(sbx__wasm_func_call(s, e.u.func, none, none, &trap), SBX_E_WASM_TRAP);
    uint64_t stopped = cpu_ns(it.spinner);
    pthread_join(th, NULL);
    ck_assert_int_eq(trap.kind, WASM_TRAP_INTERRUPTED);
    /* The engine promises 1 ms; allow a loaded CI machine 50. Counted in the guest thread's CPU
     * time: wall time also counted the time a loaded host did not run that thread at all. (The
     * interrupter reads that clock just after the set; if it runs late, the guest may be back
     * already: nothing left to count.) */
    uint64_t after = stopped > it.at_cpu_ns ? stopped - it.at_cpu_ns : 0;
    ck_assert_uint_lt(after, 50u * 1000 * 1000);

    ck_assert_int_eq(sbx__wasm_func_call(s, e.u.func, none, none, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_INTERRUPTED); /* sticky */
    sbx__wasm_store_clear_interrupt(s);
    sbx__wasm_store_set_fuel(s, 1000);
    ck_assert_int_eq(sbx__wasm_func_call(s, e.u.func, none, none, &trap), SBX_E_WASM_TRAP);
    ck_assert_int_eq(trap.kind, WASM_TRAP_FUEL_EXHAUSTED);
    sbx__wasm_store_destroy(s);
    sbx__wasm_module_destroy(m);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("wasm_runtime");
    TCase *tc = tcase_create("objects");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, store_defaults_and_flags);
    tcase_add_test(tc, store_byte_budget);
    tcase_add_test(tc, memory_grow_and_span);
    tcase_add_test(tc, memory_store_cap);
    tcase_add_test(tc, memory_past_size_faults);
    tcase_add_test(tc, memory_many_unbounded);
    tcase_add_test(tc, table_ops);
    tcase_add_test(tc, global_ops);
    suite_add_tcase(su, tc);
    TCase *ti = tcase_create("instantiate");
    tcase_set_timeout(ti, 10);
    tcase_add_test(ti, instantiate_segments_and_exports);
    tcase_add_test(ti, import_table_and_memory_limits);
    tcase_add_test(ti, import_func_and_global_types);
    tcase_add_test(ti, import_unknown);
    tcase_add_test(ti, segments_from_imported_global);
    tcase_add_test(ti, segment_oob_keeps_earlier_writes);
    tcase_add_test(ti, memory_minimum_over_store_limit);
    tcase_add_test(ti, start_function);
    tcase_add_test(ti, alloc_failure_torture);
    tcase_add_test(ti, fuel_and_interrupt_stop_a_loop);
    suite_add_tcase(su, ti);
    return sbx_test_main(su);
}

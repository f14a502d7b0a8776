/* test_limits.c: the engine's implementation limits (wasm/limits.h): a module one past each
 * limit is rejected with a message naming it, one at the limit loads; block nesting compiles in
 * linear time; the load guard stops each stage at its deadline or stop flag. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sbx_test.h"
#include "wasm/limits.h"
#include "wasm/wasm.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- a growable module writer (the modules here run to megabytes) ------------------------ */

struct gb {
    uint8_t *p;
    size_t len, cap;
};

static void gb_put(struct gb *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    memcpy(b->p + b->len, d, n);
    b->len += n;
}

static void gb_byte(struct gb *b, uint8_t v)
{
    gb_put(b, &v, 1);
}

static void gb_uleb(struct gb *b, uint32_t v)
{
    do {
        uint8_t byte = v & 0x7F;
        v >>= 7;
        gb_byte(b, (uint8_t)(byte | (v ? 0x80 : 0)));
    } while (v);
}

static void gb_fill(struct gb *b, const char *bytes, size_t n, uint32_t times)
{
    for (uint32_t i = 0; i < times; i++)
        gb_put(b, bytes, n);
}

/* Appends section id with content c (freed). */
static void gb_section(struct gb *m, uint8_t id, struct gb *c)
{
    gb_byte(m, id);
    gb_uleb(m, (uint32_t)c->len);
    gb_put(m, c->p, c->len);
    free(c->p);
    memset(c, 0, sizeof(*c));
}

/* Appends section id holding a vector of n copies of elem (elem_len bytes). */
static void gb_vec_section(struct gb *m, uint8_t id, const char *elem, size_t elem_len, uint32_t n)
{
    struct gb c = {0};
    gb_uleb(&c, n);
    gb_fill(&c, elem, elem_len, n);
    gb_section(m, id, &c);
}

static void gb_header(struct gb *m)
{
    gb_put(m, "\0asm\1\0\0\0", 8);
}

/* One type section holding `() -> ()`. */
static void sec_void_type(struct gb *m)
{
    struct gb c = {0};
    gb_put(&c, "\x01\x60\x00\x00", 4);
    gb_section(m, 1, &c);
}

/* A function section of n functions of type 0 and a code section with their bodies. */
static void sec_funcs(struct gb *m, uint32_t n, const struct gb *body)
{
    gb_vec_section(m, 3, "\x00", 1, n);
    struct gb c = {0};
    gb_uleb(&c, n);
    for (uint32_t i = 0; i < n; i++) {
        gb_uleb(&c, (uint32_t)body->len);
        gb_put(&c, body->p, body->len);
    }
    gb_section(m, 10, &c);
}

/* ---- one generator per limit: a module with n of the limited thing ----------------------- */

static void gen_types(struct gb *m, uint32_t n)
{
    gb_vec_section(m, 1, "\x60\x00\x00", 3, n);
}

static void gen_functions(struct gb *m, uint32_t n)
{
    sec_void_type(m);
    gb_vec_section(m, 3, "\x00", 1, n);
}

static void gen_imports(struct gb *m, uint32_t n)
{
    sec_void_type(m);
    gb_vec_section(m, 2,
                   "\x01m\x01"
                   "f\x00\x00",
                   6, n); /* import "m" "f": func type 0 */
}

static void gen_exports(struct gb *m, uint32_t n)
{
    sec_void_type(m);
    struct gb c = {0};
    gb_uleb(&c, n);
    for (uint32_t i = 0; i < n; i++) { /* names must differ: the index in base 75, ASCII */
        char name[4] = {3, (char)('0' + i % 75), (char)('0' + i / 75 % 75),
                        (char)('0' + i / 5625 % 75)};
        gb_put(&c, name, 4);
        gb_put(&c, "\x03\x00", 2); /* global 0 */
    }
    struct gb g = {0};
    gb_put(&g, "\x01\x7f\x00\x41\x00\x0b", 6);
    gb_section(m, 6, &g);
    gb_section(m, 7, &c);
}

static void gen_globals(struct gb *m, uint32_t n)
{
    gb_vec_section(m, 6, "\x7f\x00\x41\x00\x0b", 5, n);
}

static void gen_tables(struct gb *m, uint32_t n)
{
    gb_vec_section(m, 4, "\x70\x00\x00", 3, n);
}

static void gen_table_size(struct gb *m, uint32_t n)
{
    struct gb c = {0};
    gb_put(&c, "\x01\x70\x00", 3);
    gb_uleb(&c, n);
    gb_section(m, 4, &c);
}

static void gen_elems(struct gb *m, uint32_t n)
{
    gb_vec_section(m, 9, "\x01\x00\x00", 3, n); /* passive, funcref, no items */
}

static void gen_datas(struct gb *m, uint32_t n)
{
    struct gb c = {0};
    gb_put(&c, "\x01\x00\x01", 3); /* one memory of 1 page */
    gb_section(m, 5, &c);
    gb_vec_section(m, 11, "\x01\x00", 2, n); /* passive, empty */
}

static void gen_arity(struct gb *m, uint32_t n, bool is_results)
{
    struct gb c = {0};
    gb_put(&c, "\x01\x60", 2);
    gb_uleb(&c, is_results ? 0 : n);
    gb_fill(&c, "\x7f", 1, is_results ? 0 : n);
    gb_uleb(&c, is_results ? n : 0);
    gb_fill(&c, "\x7f", 1, is_results ? n : 0);
    gb_section(m, 1, &c);
}

static void gen_params(struct gb *m, uint32_t n)
{
    gen_arity(m, n, false);
}

static void gen_results(struct gb *m, uint32_t n)
{
    gen_arity(m, n, true);
}

static void gen_locals(struct gb *m, uint32_t n)
{
    sec_void_type(m);
    struct gb body = {0};
    gb_put(&body, "\x02", 1); /* two groups: the sum is what counts */
    gb_uleb(&body, n - 1);
    gb_put(&body, "\x7f\x01\x7e\x0b", 4);
    sec_funcs(m, 1, &body);
    free(body.p);
}

/* n declared locals in all, in functions of at most WASM_MAX_LOCALS each (3 bytes a body). */
static void gen_module_locals(struct gb *m, uint32_t n)
{
    sec_void_type(m);
    uint32_t count = (n + WASM_MAX_LOCALS - 1) / WASM_MAX_LOCALS;
    gb_vec_section(m, 3, "\x00", 1, count);
    struct gb c = {0};
    gb_uleb(&c, count);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t k = i + 1 < count ? WASM_MAX_LOCALS : n - i * WASM_MAX_LOCALS;
        struct gb body = {0};
        gb_put(&body, "\x01", 1);
        gb_uleb(&body, k);
        gb_put(&body, "\x7f\x0b", 2);
        gb_uleb(&c, (uint32_t)body.len);
        gb_put(&c, body.p, body.len);
        free(body.p);
    }
    gb_section(m, 10, &c);
}

/* A body of exactly n bytes: no locals, nops, end. */
static void gen_body(struct gb *m, uint32_t n)
{
    sec_void_type(m);
    struct gb body = {0};
    gb_byte(&body, 0);
    gb_fill(&body, "\x01", 1, n - 2);
    gb_byte(&body, 0x0b);
    sec_funcs(m, 1, &body);
    free(body.p);
}

/* n nested empty blocks (or loops) in one function: the attack of issue 10. */
static void gen_nesting_of(struct gb *m, uint32_t n, uint8_t op)
{
    sec_void_type(m);
    struct gb body = {0};
    gb_byte(&body, 0);
    char open[2] = {(char)op, 0x40};
    gb_fill(&body, open, 2, n);
    gb_fill(&body, "\x0b", 1, n + 1);
    sec_funcs(m, 1, &body);
    free(body.p);
}

static void gen_nesting(struct gb *m, uint32_t n)
{
    gen_nesting_of(m, n, 0x02);
}

static void gen_pages(struct gb *m, uint32_t n)
{
    struct gb c = {0};
    gb_put(&c, "\x01\x00", 2);
    gb_uleb(&c, n);
    gb_section(m, 5, &c);
}

struct limit_case {
    const char *name;
    void (*gen)(struct gb *m, uint32_t n);
    uint32_t limit;
    const char *message; /* in the error for limit + 1 */
    bool is_under_cheap; /* a module at the limit is quick to load */
};

static const struct limit_case cases[] = {
    {"types", gen_types, WASM_MAX_TYPES, "implementation limit: 1000001 types, more than 1000000",
     true},
    {"functions", gen_functions, WASM_MAX_FUNCTIONS,
     "implementation limit: 1000001 functions, more than 1000000", false},
    {"imports", gen_imports, WASM_MAX_IMPORTS,
     "implementation limit: 100001 imports, more than 100000", true},
    {"exports", gen_exports, WASM_MAX_EXPORTS,
     "implementation limit: 100001 exports, more than 100000", true},
    {"globals", gen_globals, WASM_MAX_GLOBALS,
     "implementation limit: 1000001 globals, more than 1000000", true},
    {"tables", gen_tables, WASM_MAX_TABLES, "implementation limit: 100001 tables, more than 100000",
     true},
    {"element segments", gen_elems, WASM_MAX_ELEM_SEGMENTS,
     "implementation limit: 100001 element segments, more than 100000", true},
    {"data segments", gen_datas, WASM_MAX_DATA_SEGMENTS,
     "implementation limit: 100001 data segments, more than 100000", true},
    {"params", gen_params, WASM_MAX_FUNC_ARITY,
     "implementation limit: 1001 parameters, more than 1000", true},
    {"results", gen_results, WASM_MAX_FUNC_ARITY,
     "implementation limit: 1001 results, more than 1000", true},
    {"locals", gen_locals, WASM_MAX_LOCALS, "implementation limit: 50001 locals, more than 50000",
     true},
    {"locals in the module", gen_module_locals, WASM_MAX_MODULE_LOCALS,
     "implementation limit: 16777217 locals in the module, more than 16777216", true},
    {"body size", gen_body, WASM_MAX_BODY_BYTES,
     "implementation limit: function body of 7654322 bytes, more than 7654321", true},
    {"nesting", gen_nesting, WASM_MAX_NESTING,
     "implementation limit: blocks nested deeper than 65536 in function 0", true},
    {"memory pages", gen_pages, WASM_MAX_MEMORY_PAGES,
     "invalid: memory size must be at most 65536 pages", true},
};

static sbx_err load(const struct gb *m, const struct wasm_load_guard *g, char *err, size_t errlen)
{
    struct wasm_module *mod = NULL;
    sbx_err rc = sbx__wasm_module_load_guarded(m->p, m->len, g, &mod, err, errlen);
    sbx__wasm_module_destroy(mod);
    return rc;
}

START_TEST(limit_is_enforced)
{
    const struct limit_case *lc = &cases[_i];
    struct gb m = {0};
    gb_header(&m);
    lc->gen(&m, lc->limit + 1);
    char err[512] = "";
    ck_assert_int_eq(load(&m, NULL, err, sizeof(err)), SBX_E_WASM_INVALID_MODULE);
    ck_assert_msg(strstr(err, lc->message) != NULL, "%s: got \"%s\"", lc->name, err);
    free(m.p);
    if (!lc->is_under_cheap)
        return;
    memset(&m, 0, sizeof(m));
    gb_header(&m);
    lc->gen(&m, lc->limit);
    ck_assert_msg(load(&m, NULL, err, sizeof(err)) == SBX_OK, "%s at the limit: %s", lc->name, err);
    free(m.p);
}
END_TEST

/* A count the bytes cannot hold stays malformed (the spec's verdict), limit or not. */
/* A table's initial size is a resource, checked where it is allocated: the module is valid
 * (3.0's table64.wast defines one of 2^64 - 1 elements), its instantiation is refused. */
START_TEST(table_size_is_an_instantiation_limit)
{
    struct gb m = {0};
    gb_header(&m);
    gen_table_size(&m, WASM_MAX_TABLE_SIZE + 1);
    struct wasm_module *mod = NULL;
    char err[512] = "";
    ck_assert_int_eq(sbx__wasm_module_load(m.p, m.len, &mod, err, sizeof(err)), SBX_OK);
    struct wasm_store *s = NULL;
    struct wasm_store_limits l = {.tier = WASM_TIER_INTERP};
    ck_assert_int_eq(sbx__wasm_store_create(&l, &s), SBX_OK);
    struct wasm_instance *inst = NULL;
    ck_assert_int_eq(sbx__wasm_instantiate(s, mod, NULL, NULL, &inst, NULL, err, sizeof(err)),
                     SBX_E_MEMORY_LIMIT);
    ck_assert_msg(strstr(err, "table minimum exceeds the store's element limit"), "%s", err);
    sbx__wasm_store_destroy(s);
    sbx__wasm_module_destroy(mod);
    free(m.p);
}
END_TEST

START_TEST(truncated_count_is_malformed)
{
    struct gb m = {0}, c = {0};
    gb_header(&m);
    gb_uleb(&c, 0xFFFFFFFFu); /* 4 billion types in a 5-byte section */
    gb_section(&m, 1, &c);
    char err[512] = "";
    ck_assert_int_eq(load(&m, NULL, err, sizeof(err)), SBX_E_WASM_INVALID_MODULE);
    ck_assert_msg(strncmp(err, "malformed: unexpected end", 25) == 0, "%s", err);
    free(m.p);
}
END_TEST

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Issue 10: 160,000 nested blocks took 20 s to compile (quadratic in open_block); 65,536, the
 * limit, took 2.5 s. Linear work is about 10 ms, so a 1 s CPU bound is generous either way;
 * the bomb itself is refused at once. */
START_TEST(nesting_compiles_in_linear_time)
{
    static const uint8_t ops[] = {0x02, 0x03};
    for (size_t i = 0; i < COUNT(ops); i++) {
        struct gb m = {0};
        gb_header(&m);
        gen_nesting_of(&m, WASM_MAX_NESTING, ops[i]);
        char err[512] = "";
        double t0 = thread_cpu_s();
        ck_assert_msg(load(&m, NULL, err, sizeof(err)) == SBX_OK, "%s", err);
        double spent = thread_cpu_s() - t0;
        ck_assert_msg(spent < 1.0, "65536 nested %s took %.2f s of CPU",
                      ops[i] == 0x02 ? "blocks" : "loops", spent);
        free(m.p);
    }
    struct gb bomb = {0};
    gb_header(&bomb);
    gen_nesting(&bomb, 160000);
    char err[512] = "";
    double t0 = thread_cpu_s();
    ck_assert_int_eq(load(&bomb, NULL, err, sizeof(err)), SBX_E_WASM_INVALID_MODULE);
    ck_assert_double_lt(thread_cpu_s() - t0, 1.0);
    free(bomb.p);
}
END_TEST

/* Every stage polls the guard: a stop flag raised before loading is seen by the first poll of
 * whichever stage does the work (each module below has more units of work in that stage than
 * one poll period, and fewer in the stages before it). */
static void gen_validate_heavy(struct gb *m, uint32_t n)
{
    gen_body(m, n);
}

START_TEST(guard_stops_every_stage)
{
    static const struct {
        const char *stage;
        void (*gen)(struct gb *m, uint32_t n);
        uint32_t n;
    } stages[] = {
        {"decode (types)", gen_types, 5000},
        {"decode (globals)", gen_globals, 5000},
        {"validate (a body of nops)", gen_validate_heavy, 10000},
    };
    for (size_t i = 0; i < COUNT(stages); i++) {
        struct gb m = {0};
        gb_header(&m);
        stages[i].gen(&m, stages[i].n);
        char err[512] = "";
        ck_assert_msg(load(&m, NULL, err, sizeof(err)) == SBX_OK, "%s", err); /* control */
        _Atomic int stop = SBX_E_ABORTED;
        struct wasm_load_guard g = {.stop = &stop};
        ck_assert_msg(load(&m, &g, err, sizeof(err)) == SBX_E_ABORTED, "%s: %s", stages[i].stage,
                      err);
        ck_assert_str_eq(err, "run was aborted by the host while loading the module");
        struct wasm_load_guard past = {.deadline_ns = 1};
        ck_assert_int_eq(load(&m, &past, err, sizeof(err)), SBX_E_TIMEOUT);
        ck_assert_str_eq(err, "time limit reached while loading the module");
        free(m.p);
    }
}
END_TEST

/* The compiler checks the guard per function: many functions with many locals each are cheap to
 * decode and validate but not to translate. */
START_TEST(guard_stops_compile)
{
    struct gb m = {0}, body = {0};
    gb_header(&m);
    sec_void_type(&m);
    gb_put(&body, "\x01", 1);
    gb_uleb(&body, WASM_MAX_LOCALS);
    gb_put(&body, "\x7f\x0b", 2);
    sec_funcs(&m, 3, &body);
    free(body.p);
    struct wasm_module *mod = NULL;
    char err[512] = "";
    _Atomic int stop = SBX_E_ABORTED;
    struct wasm_load_guard g = {.stop = &stop};
    ck_assert_int_eq(sbx__wasm_module_load_guarded(m.p, m.len, &g, &mod, err, sizeof(err)),
                     SBX_E_ABORTED);
    ck_assert_ptr_null(mod);
    free(m.p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wasm_limits");
    TCase *tc = tcase_create("limits");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, limit_is_enforced, 0, (int)COUNT(cases));
    tcase_add_test(tc, table_size_is_an_instantiation_limit);
    tcase_add_test(tc, truncated_count_is_malformed);
    tcase_add_test(tc, nesting_compiles_in_linear_time);
    tcase_add_test(tc, guard_stops_every_stage);
    tcase_add_test(tc, guard_stops_compile);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

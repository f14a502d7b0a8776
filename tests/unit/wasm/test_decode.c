/* Decoder tests: LEB128 limits, a table of malformed binaries with the spec's messages, a valid
 * module using every section, the lenient name section, and allocation failure at every step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_test.h"
#include "util/alloc.h"
#include "wasm/decode.h"
#include "wasm/leb.h"
#include "wasm/wasm.h"
#include "wasm_bytes.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define LIT(s)   (const uint8_t *)(s), sizeof(s) - 1

/* ---- LEB128 ------------------------------------------------------------------------------ */

enum leb_kind { U32, S32, S33, S64 };

struct leb_case {
    enum leb_kind kind;
    const char *bytes;
    size_t len;
    enum wasm_leb_status want;
    int64_t value;
    size_t used;
};

#define LEB(k, s, st, v)                                                                           \
    {                                                                                              \
        k, s, sizeof(s) - 1, st, v, sizeof(s) - 1                                                  \
    }
#define LEBX(k, s, st)                                                                             \
    {                                                                                              \
        k, s, sizeof(s) - 1, st, 0, 0                                                              \
    }

static const struct leb_case leb_cases[] = {
    LEB(U32, "\x00", WASM_LEB_OK, 0),
    LEB(U32, "\x7f", WASM_LEB_OK, 127),
    LEB(U32, "\x80\x01", WASM_LEB_OK, 128),
    LEB(U32, "\x80\x80\x80\x80\x00", WASM_LEB_OK, 0), /* padded zero: 5 bytes is allowed */
    LEB(U32, "\xff\xff\xff\xff\x0f", WASM_LEB_OK, 0xFFFFFFFF),
    LEBX(U32, "\xff\xff\xff\xff\x1f", WASM_LEB_TOO_LARGE),
    LEBX(U32, "\xff\xff\xff\xff\x7f", WASM_LEB_TOO_LARGE),
    LEBX(U32, "\x80\x80\x80\x80\x80\x00", WASM_LEB_TOO_LONG),
    LEBX(U32, "\x80", WASM_LEB_END),
    LEBX(U32, "", WASM_LEB_END),
    LEB(S32, "\x7f", WASM_LEB_OK, -1),
    LEB(S32, "\x3f", WASM_LEB_OK, 63),
    LEB(S32, "\x40", WASM_LEB_OK, -64),
    LEB(S32, "\xff\xff\xff\xff\x07", WASM_LEB_OK, 0x7FFFFFFF),
    LEB(S32, "\x80\x80\x80\x80\x78", WASM_LEB_OK, INT32_MIN),
    LEB(S32, "\xff\xff\xff\xff\x7f", WASM_LEB_OK, -1), /* sign bits all set: allowed */
    LEBX(S32, "\xff\xff\xff\xff\x0f", WASM_LEB_TOO_LARGE),
    LEBX(S32, "\x80\x80\x80\x80\x70", WASM_LEB_TOO_LARGE),
    LEBX(S32, "\x80\x80\x80\x80\x80\x00", WASM_LEB_TOO_LONG),
    LEB(S33, "\xff\xff\xff\xff\x0f", WASM_LEB_OK, 0xFFFFFFFF),
    LEBX(S33, "\xff\xff\xff\xff\x1f", WASM_LEB_TOO_LARGE),
    LEB(S33, "\x80\x80\x80\x80\x70", WASM_LEB_OK, -4294967296LL),
    LEB(S64, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x7f", WASM_LEB_OK, INT64_MIN),
    LEB(S64, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00", WASM_LEB_OK, INT64_MAX),
    LEBX(S64, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", WASM_LEB_TOO_LARGE),
    LEBX(S64, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", WASM_LEB_TOO_LONG),
};

START_TEST(leb_limits)
{
    const struct leb_case *c = &leb_cases[_i];
    const uint8_t *p = (const uint8_t *)c->bytes, *end = p + c->len;
    int64_t v = 0;
    enum wasm_leb_status st;
    if (c->kind == U32) {
        uint32_t u = 0;
        st = sbx__wasm_leb_u32(&p, end, &u);
        v = u;
    } else if (c->kind == S32) {
        int32_t s = 0;
        st = sbx__wasm_leb_s32(&p, end, &s);
        v = s;
    } else {
        st = c->kind == S33 ? sbx__wasm_leb_s33(&p, end, &v) : sbx__wasm_leb_s64(&p, end, &v);
    }
    ck_assert_msg(st == c->want, "case %d: status %d, want %d", _i, st, c->want);
    if (st == WASM_LEB_OK) {
        ck_assert_int_eq(v, c->value);
        ck_assert_uint_eq((size_t)(p - (const uint8_t *)c->bytes), c->used);
    }
}
END_TEST

/* ---- malformed binaries -------------------------------------------------------------------- */

/* A module of type () -> (), one function with the given body (locals + code), and memory 0
 * when with_mem. */
static size_t body_module(struct tb *out, const uint8_t *body, size_t len, bool with_mem)
{
    struct tb s = {0};
    out->len = 0;
    tb_put(out, WASM_HDR, 8);
    tb_put(&s, "\x01\x60\x00\x00", 4);
    tb_section(out, 1, &s);
    s.len = 0;
    tb_put(&s, "\x01\x00", 2);
    tb_section(out, 3, &s);
    if (with_mem) {
        s.len = 0;
        tb_put(&s, "\x01\x00\x01", 3);
        tb_section(out, 5, &s);
    }
    s.len = 0;
    tb_byte(&s, 1);
    tb_uleb(&s, (uint32_t)len);
    tb_put(&s, body, len);
    tb_section(out, 10, &s);
    return out->len;
}

enum shape { RAW, BODY, BODY_MEM };

struct bad_case {
    const char *name;
    enum shape shape;
    const uint8_t *bytes;
    size_t len;
    const char *want; /* message prefix */
};

static const struct bad_case bad_cases[] = {
    {"empty", RAW, LIT(""), "malformed: unexpected end"},
    {"short magic", RAW, LIT("\x00\x61\x73"), "malformed: unexpected end"},
    {"bad magic", RAW, LIT("\x00\x61\x73\x6e\x01\x00\x00\x00"), "malformed: magic header"},
    {"version 2", RAW, LIT("\x00\x61\x73\x6d\x02\x00\x00\x00"), "malformed: unknown binary ver"},
    {"short version", RAW, LIT("\x00\x61\x73\x6d\x01\x00"), "malformed: unexpected end"},
    {"section id 14", RAW, LIT(WASM_HDR "\x0e\x00"), "malformed: malformed section id"},
    {"section too long", RAW, LIT(WASM_HDR "\x01\x05\x01"), "malformed: length out of bounds"},
    {"section size mismatch", RAW, LIT(WASM_HDR "\x01\x05\x01\x60\x00\x00\x00"),
     "malformed: section size mismatch"},
    {"section order", RAW, LIT(WASM_HDR "\x03\x01\x00\x01\x01\x00"),
     "malformed: unexpected content after last section"},
    {"duplicate section", RAW, LIT(WASM_HDR "\x01\x01\x00\x01\x01\x00"),
     "malformed: unexpected content after last section"},
    {"datacount after code", RAW, LIT(WASM_HDR "\x0a\x01\x00\x0c\x01\x00"),
     "malformed: unexpected content after last section"},
    {"size too long", RAW, LIT(WASM_HDR "\x01\x80\x80\x80\x80\x80\x00"),
     "malformed: integer representation too long"},
    {"size too large", RAW, LIT(WASM_HDR "\x01\x80\x80\x80\x80\x10"),
     "malformed: integer too large"},
    {"huge type count", RAW, LIT(WASM_HDR "\x01\x05\xff\xff\xff\xff\x0f"),
     "malformed: unexpected end of section or function"},
    {"huge import count", RAW, LIT(WASM_HDR "\x02\x06\xff\xff\xff\xff\x0f\x00"),
     "malformed: unexpected end of section or function"},
    {"functions without code", RAW, LIT(WASM_HDR "\x01\x04\x01\x60\x00\x00\x03\x02\x01\x00"),
     "malformed: function and code section have inconsistent lengths"},
    {"code without functions", RAW, LIT(WASM_HDR "\x0a\x04\x01\x02\x00\x0b"),
     "malformed: function and code section have inconsistent lengths"},
    {"data count mismatch", RAW, LIT(WASM_HDR "\x0c\x01\x01"),
     "malformed: data count and data section have inconsistent lengths"},
    {"bad functype form", RAW, LIT(WASM_HDR "\x01\x04\x01\x61\x00\x00"),
     "malformed: malformed function type"},
    {"1001 params", RAW, LIT(WASM_HDR "\x01\x06\x01\x60\xe9\x07\x7f\x00"),
     "implementation limit: 1001 parameters, more than 1000"},
    {"bad value type", RAW, LIT(WASM_HDR "\x01\x05\x01\x60\x01\x7a\x00"),
     "malformed: malformed value type"},
    {"import kind 5", RAW, LIT(WASM_HDR "\x02\x05\x01\x00\x00\x05\x00"),
     "malformed: malformed import kind"},
    {"mutability 2", RAW, LIT(WASM_HDR "\x06\x06\x01\x7f\x02\x41\x00\x0b"),
     "malformed: malformed mutability"},
    /* 3.0: bits 0 (a maximum) and 2 (64-bit addresses) only; 2 would be threads' shared */
    {"limits flag 2", RAW, LIT(WASM_HDR "\x05\x03\x01\x02\x00"),
     "malformed: malformed limits flags"},
    {"limits flag as LEB", RAW, LIT(WASM_HDR "\x05\x04\x01\x81\x00\x00"),
     "malformed: malformed limits flags"},
    {"export kind 5", RAW, LIT(WASM_HDR "\x07\x04\x01\x00\x05\x00"),
     "malformed: malformed export kind"},
    {"elem kind 8", RAW, LIT(WASM_HDR "\x09\x03\x01\x08\x00"),
     "malformed: malformed elements segment kind"},
    {"elem kind byte", RAW, LIT(WASM_HDR "\x09\x04\x01\x01\x01\x00"),
     "malformed: malformed element kind"},
    {"elem reftype", RAW, LIT(WASM_HDR "\x09\x07\x01\x05\x7f\x01\xd2\x00\x0b"),
     "malformed: malformed reference type"},
    {"data kind 3", RAW, LIT(WASM_HDR "\x0b\x03\x01\x03\x00"),
     "malformed: malformed data segment kind"},
    {"data bytes past section", RAW, LIT(WASM_HDR "\x0b\x04\x01\x01\x05\x61\x00"),
     "malformed: unexpected end of section or function"},
    {"custom name bad utf8", RAW, LIT(WASM_HDR "\x00\x02\x01\xff"),
     "malformed: malformed UTF-8 encoding"},
    {"utf8 overlong", RAW, LIT(WASM_HDR "\x00\x03\x02\xc0\x80"),
     "malformed: malformed UTF-8 encoding"},
    {"utf8 surrogate", RAW, LIT(WASM_HDR "\x00\x04\x03\xed\xa0\x80"),
     "malformed: malformed UTF-8 encoding"},
    {"utf8 above max", RAW, LIT(WASM_HDR "\x00\x05\x04\xf4\x90\x80\x80"),
     "malformed: malformed UTF-8 encoding"},
    {"utf8 truncated", RAW, LIT(WASM_HDR "\x00\x03\x02\xe2\x82"),
     "malformed: malformed UTF-8 encoding"},
    {"import name past end", RAW, LIT(WASM_HDR "\x02\x04\x01\x10\x00\x00"),
     "malformed: length out of bounds"},
    /* 3.0 (multiple memories): these bytes are memory indices, unknown with one memory */
    {"memory.size index", BODY_MEM, LIT("\x00\x3f\x01\x1a\x0b"), "invalid: unknown memory 1"},
    {"memory.copy index", BODY_MEM, LIT("\x00\x41\x00\x41\x00\x41\x00\xfc\x0a\x00\x01\x0b"),
     "invalid: unknown memory 1"},
    {"too many locals", BODY, LIT("\x02\xff\xff\xff\xff\x0f\x7f\x02\x7e\x0b"),
     "malformed: too many locals"},
    {"locals over limit", BODY, LIT("\x01\x80\x80\x80\x80\x01\x7f\x0b"),
     "implementation limit: 268435456 locals, more than 50000"},
    {"illegal opcode", BODY, LIT("\x00\xff\x0b"), "malformed: illegal opcode"},
    {"illegal 0xfc opcode", BODY, LIT("\x00\xfc\x12\x0b"), "malformed: illegal opcode"},
    {"illegal simd opcode", BODY, LIT("\x00\xfd\x9a\x01\x0b"), "malformed: illegal opcode"},
    /* flags 0x40: a memory index follows (here 0, then offset 0x1a): the value is then left */
    {"memop flags 0x80", BODY_MEM, LIT("\x00\x41\x00\x28\x80\x01\x00\x1a\x0b"),
     "malformed: malformed memop flags"},
    {"ref.null type", BODY, LIT("\x00\xd0\x7f\x1a\x0b"), "malformed: malformed heap type"},
    {"i32.const too long", BODY, LIT("\x00\x41\x80\x80\x80\x80\x80\x00\x1a\x0b"),
     "malformed: integer representation too long"},
    {"i32.const too large", BODY, LIT("\x00\x41\xff\xff\xff\xff\x0f\x1a\x0b"),
     "malformed: integer too large"},
    {"no final end", BODY, LIT("\x00\x01"), "malformed: END opcode expected"},
    {"code after end", BODY, LIT("\x00\x0b\x01"), "malformed: section size mismatch"},
    {"f64.const cut", BODY, LIT("\x00\x44\x00\x00"),
     "malformed: unexpected end of section or function"},
    {"else without if", BODY, LIT("\x00\x05\x0b"), "malformed: else without matching if"},
};

START_TEST(malformed_rejected)
{
    const struct bad_case *c = &bad_cases[_i];
    struct tb b;
    const uint8_t *bytes = c->bytes;
    size_t len = c->len;
    if (c->shape != RAW) {
        len = body_module(&b, c->bytes, c->len, c->shape == BODY_MEM);
        bytes = b.data;
    }
    struct wasm_module *m = NULL;
    char err[256] = "";
    sbx_err rc = sbx__wasm_module_load(bytes, len, &m, err, sizeof err);
    ck_assert_msg(rc == SBX_E_WASM_INVALID_MODULE, "%s: rc %d (%s)", c->name, rc, err);
    ck_assert_ptr_null(m);
    ck_assert_msg(strncmp(err, c->want, strlen(c->want)) == 0, "%s: got \"%s\", want \"%s...\"",
                  c->name, err, c->want);
    ck_assert_msg(strstr(err, " at offset ") != NULL, "%s: no offset in \"%s\"", c->name, err);
}
END_TEST

/* ---- a valid module with every section ------------------------------------------------------ */

static const uint8_t full_module[] = WASM_HDR
    /* types: 0 = () -> (), 1 = (i32) -> (i32) */
    "\x01\x09\x02\x60\x00\x00\x60\x01\x7f\x01\x7f"
    /* custom "hello" between sections */
    "\x00\x06\x05\x68\x65\x6c\x6c\x6f"
    /* import env.f: func type 1 */
    "\x02\x09\x01\x03\x65\x6e\x76\x01\x66\x00\x01"
    /* functions 1 (type 0) and 2 (type 1) */
    "\x03\x03\x02\x00\x01"
    /* table funcref 1..2 */
    "\x04\x05\x01\x70\x01\x01\x02"
    /* memory 1..1 */
    "\x05\x04\x01\x01\x01\x01"
    /* global (mut i32) = 42 */
    "\x06\x06\x01\x7f\x01\x41\x2a\x0b"
    /* exports "run" = func 2, "mem" = memory 0 */
    "\x07\x0d\x02\x03\x72\x75\x6e\x00\x02\x03\x6d\x65\x6d\x02\x00"
    /* start = func 1 */
    "\x08\x01\x01"
    /* elems: active at 0 [func 2]; declarative [func 1] */
    "\x09\x0b\x02\x00\x41\x00\x0b\x01\x02\x03\x00\x01\x01"
    /* data count 2 */
    "\x0c\x01\x02"
    /* code: func 1 has one i64 local; func 2 returns param + 1 */
    "\x0a\x0e\x02\x04\x01\x01\x7e\x0b\x07\x00\x20\x00\x41\x01\x6a\x0b"
    /* data: active "hi" at 0, passive "x" */
    "\x0b\x0b\x02\x00\x41\x00\x0b\x02\x68\x69\x01\x01\x78"
    /* name section: func 1 "init", func 2 "add" */
    "\x00\x13\x04\x6e\x61\x6d\x65\x01\x0c\x02\x01\x04\x69\x6e\x69\x74\x02\x03\x61\x64\x64";

START_TEST(every_section_decodes)
{
    struct wasm_module *m = NULL;
    char err[256] = "";
    sbx_err rc = sbx__wasm_module_load(full_module, sizeof full_module - 1, &m, err, sizeof err);
    ck_assert_msg(rc == SBX_OK, "%s", err);
    ck_assert_uint_eq(m->type_count, 2);
    ck_assert_uint_eq(m->types[1].param_count, 1);
    ck_assert_uint_eq(m->types[1].types[1], WASM_I32);
    ck_assert_uint_eq(m->import_count, 1);
    ck_assert_str_eq(m->imports[0].module, "env");
    ck_assert_str_eq(m->imports[0].name, "f");
    ck_assert_uint_eq(m->func_import_count, 1);
    ck_assert_uint_eq(m->func_count, 3);
    ck_assert_uint_eq(m->func_def_count, 2);
    ck_assert_uint_eq(m->func_type_idx[0], 1);
    ck_assert_uint_eq(m->func_type_idx[1], 0);
    ck_assert_uint_eq(m->funcs[0].local_count, 1);
    ck_assert_uint_eq(m->funcs[0].local_runs[0].type, WASM_I64);
    ck_assert_uint_eq(m->funcs[1].code_len, 6);
    ck_assert_uint_eq(m->funcs[1].code[m->funcs[1].code_len - 1], 0x0b);
    ck_assert_uint_eq(m->table_count, 1);
    ck_assert(m->tables[0].limits.has_max);
    ck_assert_uint_eq(m->tables[0].limits.max, 2);
    ck_assert_uint_eq(m->mem_count, 1);
    ck_assert_uint_eq(m->global_count, 1);
    ck_assert(m->globals[0].is_mutable);
    ck_assert_uint_eq(m->global_inits[0].value.i32, 42);
    ck_assert_uint_eq(m->export_count, 2);
    ck_assert_str_eq(m->exports[1].name, "mem");
    ck_assert(m->has_start);
    ck_assert_uint_eq(m->start_func, 1);
    ck_assert_uint_eq(m->elem_count, 2);
    ck_assert_uint_eq(m->elems[0].mode, WASM_SEG_ACTIVE);
    ck_assert_uint_eq(m->elems[1].mode, WASM_SEG_DECLARATIVE);
    ck_assert_uint_eq(m->elems[1].items[0].index, 1);
    ck_assert(m->has_data_count_section);
    ck_assert_uint_eq(m->data_count, 2);
    ck_assert_uint_eq(m->datas[0].len, 2);
    ck_assert_mem_eq(m->datas[0].bytes, "hi", 2);
    ck_assert_uint_eq(m->datas[1].mode, WASM_SEG_PASSIVE);
    ck_assert_uint_eq(m->custom_count, 2);
    ck_assert_str_eq(m->customs[0].name, "hello");
    ck_assert_uint_eq(m->customs[0].len, 0);
    ck_assert_ptr_nonnull(m->func_names);
    ck_assert_ptr_null(m->func_names[0]);
    ck_assert_str_eq(m->func_names[1], "init");
    ck_assert_str_eq(m->func_names[2], "add");
    ck_assert(!m->func_is_declared[0]);
    ck_assert(m->func_is_declared[1]);
    ck_assert(m->func_is_declared[2]);
    sbx__wasm_module_destroy(m);
}
END_TEST

/* A broken name section loses the names, never the module (spec 7.4: custom sections). */
START_TEST(bad_name_section_ignored)
{
    static const uint8_t mod[] =
        WASM_HDR "\x01\x04\x01\x60\x00\x00\x03\x02\x01\x00"
                 "\x0a\x04\x01\x02\x00\x0b"
                 /* "name", subsection 1 claims 9 names, has one */
                 "\x00\x0c\x04\x6e\x61\x6d\x65\x01\x05\x09\x00\x02\x61\x62";
    struct wasm_module *m = NULL;
    char err[256] = "";
    ck_assert_msg(sbx__wasm_module_load(mod, sizeof mod - 1, &m, err, sizeof err) == SBX_OK, "%s",
                  err);
    ck_assert_ptr_nonnull(m->func_names);
    ck_assert_str_eq(m->func_names[0], "ab");
    sbx__wasm_module_destroy(m);
}
END_TEST

/* Every allocation of a full decode can fail: the result is NOMEM or success, never a crash or
 * a leak (ASan checks the latter in `make SAN=1`). */
START_TEST(allocation_failures)
{
    int nomem = 0;
    for (unsigned long n = 1; n < 200; n++) {
        struct wasm_module *m = NULL;
        char err[256] = "";
        sbx__alloc_fail_at(n);
        sbx_err rc =
            sbx__wasm_module_load(full_module, sizeof full_module - 1, &m, err, sizeof err);
        sbx__alloc_fail_at(0);
        ck_assert_msg(rc == SBX_OK || rc == SBX_E_NOMEM, "n=%lu rc=%d %s", n, rc, err);
        if (rc == SBX_E_NOMEM)
            nomem++;
        sbx__wasm_module_destroy(m);
    }
    ck_assert_int_gt(nomem, 10);
}
END_TEST

/* Custom sections are kept in order, however many there are (the array grows by doubling). */
START_TEST(many_custom_sections)
{
    enum { N = 100000 };
    size_t len = 8 + (size_t)N * 4;
    uint8_t *mod = malloc(len);
    ck_assert_ptr_nonnull(mod);
    memcpy(mod, WASM_HDR, 8);
    for (size_t i = 0; i < N; i++)
        memcpy(mod + 8 + i * 4, i == N - 1 ? "\x00\x02\x01\x7a" : "\x00\x02\x01\x79", 4);
    struct wasm_module *m = NULL;
    char err[256] = "";
    ck_assert_msg(sbx__wasm_module_load(mod, len, &m, err, sizeof err) == SBX_OK, "%s", err);
    ck_assert_uint_eq(m->custom_count, N);
    ck_assert_str_eq(m->customs[0].name, "y");
    ck_assert_str_eq(m->customs[N - 1].name, "z");
    sbx__wasm_module_destroy(m);
    free(mod);
}
END_TEST

START_TEST(instruction_reader)
{
    /* br_table 2 [0 1] default 0; i64.const -1; f32.const 1.0; v128 shuffle */
    static const uint8_t code[] = "\x0e\x02\x00\x01\x00\x42\x7f\x43\x00\x00\x80\x3f"
                                  "\xfd\x0d\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"
                                  "\x0d\x0e\x1f\xfc\x0e\x01\x02";
    struct wasm_reader r = {.base = code, .file_end = code + sizeof code - 1};
    r.p = code, r.end = r.file_end;
    struct wasm_instr in;
    ck_assert(sbx__wasm_read_instr(&r, &in));
    ck_assert_uint_eq(in.op, WASM_OP_BR_TABLE);
    ck_assert_uint_eq(in.count, 2);
    ck_assert_uint_eq(in.idx, 0);
    ck_assert_ptr_eq(in.targets, code + 2);
    ck_assert(sbx__wasm_read_instr(&r, &in));
    ck_assert_uint_eq(in.op, WASM_OP_I64_CONST);
    ck_assert_uint_eq(in.value, UINT64_MAX);
    ck_assert(sbx__wasm_read_instr(&r, &in));
    ck_assert_uint_eq(in.op, WASM_OP_F32_CONST);
    ck_assert_uint_eq(in.value, 0x3f800000);
    ck_assert(sbx__wasm_read_instr(&r, &in));
    ck_assert_uint_eq(in.op, WASM_OP_I8X16_SHUFFLE);
    ck_assert_uint_eq(in.bytes[15], 0x1f);
    ck_assert_uint_eq(in.offset_in_module, 12);
    ck_assert(sbx__wasm_read_instr(&r, &in));
    ck_assert_uint_eq(in.op, WASM_OP_TABLE_COPY);
    ck_assert_uint_eq(in.idx, 1);
    ck_assert_uint_eq(in.idx2, 2);
    ck_assert_ptr_eq(r.p, r.end);
    ck_assert(!sbx__wasm_read_instr(&r, &in));
}
END_TEST

/* The table's text names and rows agree with the dense id scheme. */
START_TEST(opcode_table_consistent)
{
    unsigned n = 0;
    for (unsigned id = 0; id < WASM_OP_SPACE; id++) {
        const struct wasm_opinfo *info = &sbx__wasm_opinfo[id];
        if (info->text == NULL)
            continue;
        n += info->feature == WASM_FEAT_BASE || info->feature == WASM_FEAT_SIMD;
        ck_assert_uint_eq(WASM_OP_ID(info->prefix, info->code), id);
        ck_assert(info->sig < WASM_SIG_COUNT);
        ck_assert(info->feature < WASM_FEAT_COUNT);
    }
    ck_assert_uint_eq(n, 437); /* 2.0: 183 one-byte, 18 0xFC, 236 SIMD */
    ck_assert_str_eq(sbx__wasm_opinfo[WASM_OP_I32_ADD].text, "i32.add");
    ck_assert_uint_eq(sbx__wasm_opinfo[WASM_OP_I64_LOAD].arg, 3);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wasm_decode");
    TCase *tc = tcase_create("decode");
    tcase_set_timeout(tc, 20);
    tcase_add_loop_test(tc, leb_limits, 0, (int)COUNT(leb_cases));
    tcase_add_loop_test(tc, malformed_rejected, 0, (int)COUNT(bad_cases));
    tcase_add_test(tc, every_section_decodes);
    tcase_add_test(tc, bad_name_section_ignored);
    tcase_add_test(tc, allocation_failures);
    tcase_add_test(tc, many_custom_sections);
    tcase_add_test(tc, instruction_reader);
    tcase_add_test(tc, opcode_table_consistent);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

/* Validator tests: function bodies built around a small fixed module (accepted ones and
 * rejected ones with the spec's message), and module-level rules on hand-written binaries. */
#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_test.h"
#include "wasm/decode.h"
#include "wasm/wasm.h"
#include "wasm_bytes.h"

#define COUNT(a)   (sizeof(a) / sizeof((a)[0]))
#define LIT(s)     (const uint8_t *)(s), sizeof(s) - 1
#define Z16        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
#define V128_CONST "\xfd\x0c" Z16

enum {
    F_MEM = 1,           /* memory 0 */
    F_TABLE = 2,         /* table 0: funcref */
    F_DECL = 4,          /* a declarative segment names function 0 */
    F_DATA = 8,          /* data count 1 and one passive data segment */
    F_EXTERN_TABLE = 16, /* table 1: externref (with F_TABLE) */
    F_ELEM = 32,         /* elem 0: passive funcref [function 1] */
    F_DATA_NO_COUNT = 64 /* a data segment but no data count section */
};

struct vcase {
    const char *name;
    const char *params, *results, *locals;
    unsigned flags;
    const uint8_t *body; /* code after the locals, including the final end */
    size_t len;
    const char *want; /* NULL = valid, else the message prefix */
};

/* Types: 0 = the case's, 1 = () -> (), 2 = (i32) -> (i32 i32). Function 0 has the case's body,
 * function 1 is an empty () -> (). Globals: 0 immutable i32, 1 mutable i64. */
static size_t build(struct tb *out, const struct vcase *c)
{
    struct tb s = {0};
    out->len = 0;
    tb_put(out, WASM_HDR, 8);
    tb_byte(&s, 3);
    tb_functype(&s, c->params, c->results);
    tb_functype(&s, "", "");
    tb_functype(&s, "i", "ii");
    tb_section(out, 1, &s);
    s.len = 0;
    tb_put(&s, "\x02\x00\x01", 3);
    tb_section(out, 3, &s);
    if (c->flags & F_TABLE) {
        s.len = 0;
        tb_byte(&s, (c->flags & F_EXTERN_TABLE) ? 2 : 1);
        tb_put(&s, "\x70\x00\x01", 3);
        if (c->flags & F_EXTERN_TABLE)
            tb_put(&s, "\x6f\x00\x01", 3);
        tb_section(out, 4, &s);
    }
    if (c->flags & F_MEM) {
        s.len = 0;
        tb_put(&s, "\x01\x00\x01", 3);
        tb_section(out, 5, &s);
    }
    s.len = 0;
    tb_put(&s, "\x02\x7f\x00\x41\x00\x0b\x7e\x01\x42\x00\x0b", 11);
    tb_section(out, 6, &s);
    if (c->flags & (F_DECL | F_ELEM)) {
        s.len = 0;
        tb_byte(&s, (c->flags & F_DECL) && (c->flags & F_ELEM) ? 2 : 1);
        if (c->flags & F_ELEM)
            tb_put(&s, "\x01\x00\x01\x01", 4);
        if (c->flags & F_DECL)
            tb_put(&s, "\x03\x00\x01\x00", 4);
        tb_section(out, 9, &s);
    }
    if (c->flags & F_DATA) {
        s.len = 0;
        tb_byte(&s, 1);
        tb_section(out, 12, &s);
    }
    s.len = 0;
    tb_byte(&s, 2);
    struct tb body = {0};
    size_t nl = strlen(c->locals);
    tb_uleb(&body, (uint32_t)nl);
    for (size_t i = 0; i < nl; i++) {
        tb_byte(&body, 1);
        tb_byte(&body, tb_valtype(c->locals[i]));
    }
    tb_put(&body, c->body, c->len);
    tb_uleb(&s, (uint32_t)body.len);
    tb_put(&s, body.data, body.len);
    tb_put(&s, "\x02\x00\x0b", 3);
    tb_section(out, 10, &s);
    if (c->flags & (F_DATA | F_DATA_NO_COUNT)) {
        s.len = 0;
        tb_put(&s, "\x01\x01\x00", 3);
        tb_section(out, 11, &s);
    }
    return out->len;
}

static const struct vcase code_cases[] = {
    /* accepted */
    {"empty", "", "", "", 0, LIT("\x0b"), NULL},
    {"add params", "ii", "i", "", 0, LIT("\x20\x00\x20\x01\x6a\x0b"), NULL},
    {"locals", "i", "I", "fI", 0, LIT("\x20\x02\x0b"), NULL},
    {"unreachable is polymorphic", "", "i", "", 0, LIT("\x00\x6a\x0b"), NULL},
    {"select after unreachable", "", "i", "", 0, LIT("\x00\x1b\x0b"), NULL},
    {"block result", "", "i", "", 0, LIT("\x02\x7f\x41\x01\x0b\x0b"), NULL},
    {"multi-value block", "", "ii", "", 0, LIT("\x41\x01\x02\x02\x41\x02\x0b\x0b"), NULL},
    {"loop label is params", "", "", "", 0, LIT("\x41\x01\x03\x02\x0c\x00\x0b\x1a\x1a\x0b"), NULL},
    {"if else", "", "i", "", 0, LIT("\x41\x01\x04\x7f\x41\x02\x05\x41\x03\x0b\x0b"), NULL},
    {"br_if passes values", "", "i", "", 0, LIT("\x02\x7f\x41\x01\x41\x00\x0d\x00\x0b\x0b"), NULL},
    {"return mid-body", "", "i", "", 0, LIT("\x41\x01\x0f\x0b"), NULL},
    {"br_table same arity", "", "i", "", 0,
     LIT("\x02\x7f\x02\x7f\x41\x01\x41\x00\x0e\x01\x00\x01\x0b\x0b\x0b"), NULL},
    {"global.set mutable", "", "", "", 0, LIT("\x42\x00\x24\x01\x0b"), NULL},
    {"ref.func declared", "", "r", "", F_DECL, LIT("\xd2\x00\x0b"), NULL},
    {"typed select of refs", "", "r", "", 0, LIT("\xd0\x70\xd0\x70\x41\x01\x1c\x01\x70\x0b"), NULL},
    {"load", "", "", "", F_MEM, LIT("\x41\x00\x28\x02\x00\x1a\x0b"), NULL},
    {"memory.init and data.drop", "", "", "", F_MEM | F_DATA,
     LIT("\x41\x00\x41\x00\x41\x00\xfc\x08\x00\x00\xfc\x09\x00\x0b"), NULL},
    {"table.init and elem.drop", "", "", "", F_TABLE | F_ELEM,
     LIT("\x41\x00\x41\x00\x41\x01\xfc\x0c\x00\x00\xfc\x0d\x00\x0b"), NULL},
    {"call_indirect", "", "", "", F_TABLE, LIT("\x41\x00\x11\x01\x00\x0b"), NULL},
    {"simd add", "", "v", "", 0, LIT(V128_CONST V128_CONST "\xfd\x6e\x0b"), NULL},
    {"simd extract lane 15", "", "i", "", 0, LIT(V128_CONST "\xfd\x15\x0f\x0b"), NULL},
    {"simd load lane", "", "v", "", F_MEM, LIT("\x41\x00" V128_CONST "\xfd\x55\x01\x00\x07\x0b"),
     NULL},
    /* rejected */
    {"i32.add of i64", "", "", "", 0, LIT("\x41\x00\x42\x00\x6a\x1a\x0b"),
     "invalid: type mismatch"},
    {"missing result", "", "i", "", 0, LIT("\x0b"), "invalid: type mismatch"},
    {"extra value", "", "", "", 0, LIT("\x41\x00\x0b"), "invalid: type mismatch"},
    {"block leaves extra", "", "", "", 0, LIT("\x02\x40\x41\x00\x0b\x0b"),
     "invalid: type mismatch"},
    {"if without else changes type", "", "i", "", 0, LIT("\x41\x01\x04\x7f\x41\x02\x0b\x0b"),
     "invalid: type mismatch"},
    {"br_table arity", "", "", "", 0,
     LIT("\x02\x40\x02\x7f\x41\x00\x41\x00\x0e\x01\x00\x01\x0b\x1a\x0b\x0b"),
     "invalid: type mismatch"},
    {"untyped select of refs", "", "", "", 0, LIT("\xd0\x70\xd0\x70\x41\x01\x1b\x1a\x0b"),
     "invalid: type mismatch"},
    {"typed select arity", "", "", "", 0, LIT("\x41\x01\x41\x01\x41\x01\x1c\x02\x7f\x7f\x1a\x0b"),
     "invalid: invalid result arity"},
    {"ref.is_null of i32", "", "", "", 0, LIT("\x41\x00\xd1\x1a\x0b"), "invalid: type mismatch"},
    {"simd operand not v128", "", "v", "", 0, LIT("\x41\x00\xfd\x6e\x0b"),
     "invalid: type mismatch"},
    {"unknown local", "i", "", "i", 0, LIT("\x20\x02\x1a\x0b"), "invalid: unknown local"},
    {"unknown label", "", "", "", 0, LIT("\x0c\x01\x0b"), "invalid: unknown label"},
    {"unknown global", "", "", "", 0, LIT("\x23\x07\x1a\x0b"), "invalid: unknown global"},
    {"immutable global", "", "", "", 0, LIT("\x41\x00\x24\x00\x0b"),
     "invalid: global is immutable"},
    {"unknown function", "", "", "", 0, LIT("\x10\x09\x0b"), "invalid: unknown function"},
    {"unknown block type", "", "", "", 0, LIT("\x02\x09\x0b\x0b"), "invalid: unknown type"},
    {"load without memory", "", "", "", 0, LIT("\x41\x00\x28\x02\x00\x1a\x0b"),
     "invalid: unknown memory"},
    {"memory.grow without memory", "", "", "", 0, LIT("\x41\x00\x40\x00\x1a\x0b"),
     "invalid: unknown memory"},
    {"over-aligned load", "", "", "", F_MEM, LIT("\x41\x00\x28\x03\x00\x1a\x0b"),
     "invalid: alignment must not be larger than natural"},
    {"lane index 16", "", "i", "", 0, LIT(V128_CONST "\xfd\x15\x10\x0b"),
     "invalid: invalid lane index"},
    {"shuffle lane 32", "", "v", "", 0,
     LIT(V128_CONST V128_CONST "\xfd\x0d"
                               "\x20\x00\x00\x00\x00\x00\x00\x00"
                               "\x00\x00\x00\x00\x00\x00\x00\x00\x0b"),
     "invalid: invalid lane index"},
    {"load lane index", "", "v", "", F_MEM, LIT("\x41\x00" V128_CONST "\xfd\x55\x01\x00\x08\x0b"),
     "invalid: invalid lane index"},
    {"undeclared ref.func", "", "r", "", 0, LIT("\xd2\x00\x0b"),
     "invalid: undeclared function reference"},
    {"call_indirect without table", "", "", "", 0, LIT("\x41\x00\x11\x01\x00\x0b"),
     "invalid: unknown table"},
    {"data.drop without data", "", "", "", 0, LIT("\xfc\x09\x00\x0b"),
     "invalid: unknown data segment"},
    {"data.drop without data count", "", "", "", F_DATA_NO_COUNT, LIT("\xfc\x09\x00\x0b"),
     "malformed: data count section required"},
    {"elem.drop unknown", "", "", "", 0, LIT("\xfc\x0d\x03\x0b"), "invalid: unknown elem segment"},
    {"table.init into externref", "", "", "", F_TABLE | F_EXTERN_TABLE | F_ELEM,
     LIT("\x41\x00\x41\x00\x41\x00\xfc\x0c\x00\x01\x0b"), "invalid: type mismatch"},
};

/* Decodes and validates only: translation (compile.c) is not under test here. */
static sbx_err check(const uint8_t *bytes, size_t len, char *err, size_t errlen)
{
    struct wasm_module m;
    memset(&m, 0, sizeof m);
    m.bytes = (uint8_t *)bytes;
    m.len = len;
    sbx_err rc = sbx__wasm_decode(&m, err, errlen);
    if (rc == SBX_OK)
        rc = sbx__wasm_validate(&m, err, errlen);
    sbx__wasm_module_clear(&m);
    return rc;
}

START_TEST(code_rules)
{
    const struct vcase *c = &code_cases[_i];
    struct tb b;
    size_t len = build(&b, c);
    char err[256] = "";
    sbx_err rc = check(b.data, len, err, sizeof err);
    if (c->want == NULL) {
        ck_assert_msg(rc == SBX_OK, "%s: %s", c->name, err);
    } else {
        ck_assert_msg(rc == SBX_E_WASM_INVALID_MODULE, "%s: accepted", c->name);
        ck_assert_msg(strncmp(err, c->want, strlen(c->want)) == 0, "%s: got \"%s\", want \"%s\"",
                      c->name, err, c->want);
        if (strncmp(c->want, "invalid", 7) == 0)
            ck_assert_msg(strstr(err, "in function 0 at offset") != NULL, "%s: \"%s\"", c->name,
                          err);
    }
}
END_TEST

struct mcase {
    const char *name;
    const uint8_t *bytes;
    size_t len;
    const char *want;
};

static const struct mcase module_cases[] = {
    /* 3.0 has multiple memories: the index must name one */
    {"data for memory 1 of 1",
     LIT(WASM_HDR "\x05\x03\x01\x00\x01\x0b\x07\x01\x02\x01\x41\x00\x0b\x00"),
     "invalid: unknown memory 1"},
    {"memory max 65537", LIT(WASM_HDR "\x05\x06\x01\x01\x00\x81\x80\x04"),
     "invalid: memory size must be at most 65536 pages (4GiB)"},
    {"memory min 65537", LIT(WASM_HDR "\x05\x05\x01\x00\x81\x80\x04"),
     "invalid: memory size must be at most 65536 pages (4GiB)"},
    {"table min > max", LIT(WASM_HDR "\x04\x05\x01\x70\x01\x02\x01"),
     "invalid: size minimum must not be greater than maximum"},
    {"duplicate export",
     LIT(WASM_HDR "\x05\x03\x01\x00\x01\x07\x09\x02\x01\x61\x02\x00\x01\x61"
                  "\x02\x00"),
     "invalid: duplicate export name"},
    {"start with params",
     LIT(WASM_HDR "\x01\x05\x01\x60\x01\x7f\x00\x03\x02\x01\x00\x08\x01\x00"
                  "\x0a\x04\x01\x02\x00\x0b"),
     "invalid: start function"},
    /* 3.0's extended constant expressions have i32.add, not i32.div_s */
    {"non-constant global", LIT(WASM_HDR "\x06\x09\x01\x7f\x00\x41\x00\x41\x01\x6d\x0b"),
     "invalid: constant expression required"},
    {"global init type", LIT(WASM_HDR "\x06\x06\x01\x7f\x00\x42\x00\x0b"),
     "invalid: type mismatch"},
    {"global init two values", LIT(WASM_HDR "\x06\x08\x01\x7f\x00\x41\x00\x41\x00\x0b"),
     "invalid: type mismatch"},
    {"global init empty", LIT(WASM_HDR "\x06\x04\x01\x7f\x00\x0b"), "invalid: type mismatch"},
    /* 3.0: an initializer sees the globals defined before it, not after */
    {"global.get of a later global",
     LIT(WASM_HDR "\x06\x0b\x02\x7f\x00\x23\x01\x0b\x7f\x00\x41\x00\x0b"),
     "invalid: unknown global"},
    {"global.get of mutable import",
     LIT(WASM_HDR "\x02\x07\x01\x00\x01\x67\x03\x7f\x01\x06\x06\x01\x7f\x00\x23\x00\x0b"),
     "invalid: constant expression required"},
    {"elem without table", LIT(WASM_HDR "\x09\x07\x01\x00\x41\x00\x0b\x01\x00"),
     "invalid: unknown table"},
    {"data without memory", LIT(WASM_HDR "\x0b\x07\x01\x00\x41\x00\x0b\x01\x61"),
     "invalid: unknown memory"},
    {"export unknown function", LIT(WASM_HDR "\x07\x05\x01\x01\x66\x00\x05"),
     "invalid: unknown function"},
    {"function of unknown type", LIT(WASM_HDR "\x03\x02\x01\x03\x0a\x04\x01\x02\x00\x0b"),
     "invalid: unknown type"},
    {"import of unknown type", LIT(WASM_HDR "\x02\x05\x01\x00\x00\x00\x00"),
     "invalid: unknown type"},
};

START_TEST(module_rules)
{
    const struct mcase *c = &module_cases[_i];
    char err[256] = "";
    sbx_err rc = check(c->bytes, c->len, err, sizeof err);
    ck_assert_msg(rc == SBX_E_WASM_INVALID_MODULE, "%s: rc %d", c->name, rc);
    ck_assert_msg(strncmp(err, c->want, strlen(c->want)) == 0, "%s: got \"%s\", want \"%s\"",
                  c->name, err, c->want);
}
END_TEST

/* A function referenced by a global initializer may be named by ref.func in code (C.refs). */
START_TEST(refs_from_globals)
{
    static const uint8_t mod[] = WASM_HDR "\x01\x05\x01\x60\x00\x01\x70" /* () -> funcref */
                                          "\x03\x02\x01\x00"
                                          "\x06\x06\x01\x70\x00\xd2\x00\x0b"
                                          "\x0a\x06\x01\x04\x00\xd2\x00\x0b";
    struct wasm_module *m = NULL;
    char err[256] = "";
    ck_assert_msg(sbx__wasm_module_load(mod, sizeof mod - 1, &m, err, sizeof err) == SBX_OK, "%s",
                  err);
    ck_assert(m->func_is_declared[0]);
    sbx__wasm_module_destroy(m);
}
END_TEST

/* ---- the spec suite's verdicts ----------------------------------------------------------- */

struct tally {
    unsigned pass[3], fail[3];
};

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    unsigned char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL)
            *len = fread(buf, 1, (size_t)n, f);
    }
    fclose(f);
    return buf;
}

/* Checks one JSON script's binary module, assert_malformed and assert_invalid commands. */
static void run_script(const char *path, struct tally *t)
{
    json_error_t je;
    json_t *root = json_load_file(path, JSON_ALLOW_NUL, &je);
    ck_assert_msg(root != NULL, "%s: %s", path, je.text);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    size_t i;
    json_t *cmd;
    json_array_foreach(json_object_get(root, "commands"), i, cmd)
    {
        const char *type = json_string_value(json_object_get(cmd, "type"));
        const char *mt = json_string_value(json_object_get(cmd, "module_type"));
        int kind = strcmp(type, "module") == 0             ? 0
                   : strcmp(type, "assert_malformed") == 0 ? 1
                   : strcmp(type, "assert_invalid") == 0   ? 2
                                                           : -1;
        if (kind < 0 || (mt != NULL && strcmp(mt, "binary") != 0))
            continue;
        char file[8192];
        snprintf(file, sizeof file, "%s/%s", dir,
                 json_string_value(json_object_get(cmd, "filename")));
        size_t len = 0;
        unsigned char *bytes = slurp(file, &len);
        ck_assert_msg(bytes != NULL, "cannot read %s", file);
        char err[256] = "";
        sbx_err rc = check(bytes, len, err, sizeof err);
        const char *want = kind == 1 ? "malformed: " : "invalid: ";
        bool ok = kind == 0
                      ? rc == SBX_OK
                      : rc == SBX_E_WASM_INVALID_MODULE && strncmp(err, want, strlen(want)) == 0;
        if (ok) {
            t->pass[kind]++;
        } else {
            t->fail[kind]++;
            printf("%s line %lld: %s, got \"%s\"\n", path,
                   (long long)json_integer_value(json_object_get(cmd, "line")), type, err);
        }
        free(bytes);
    }
    json_decref(root);
}

/* Every binary module of the 3.0 suite's groups (SPECTEST_GROUPS plus SIMD and GC, less the
 * scripts that wait for a proposal) decodes and validates, and every
 * assert_malformed/assert_invalid is rejected in the right category. */
static const char *const groups[] = {
    "core",       "bulk-memory", "memory64",     "multi-memory",
    "tail-call",  "simd",        "relaxed-simd", "function-references",
    "exceptions", "gc"};

/* Whether path's script is on mk/spectest.mk's SPECTEST_WAITING list (group/name words, passed
 * in SBX_SPECTEST_WAITING joined by ':'). */
static bool is_waiting(const char *path)
{
    const char *w = getenv("SBX_SPECTEST_WAITING");
    const char *name = strrchr(path, '/'), *group = name;
    while (group > path && group[-1] != '/')
        group--;
    if (!w || name == NULL)
        return false;
    char key[512];
    snprintf(key, sizeof key, "%.*s", (int)(strlen(group) - strlen(".json")), group);
    size_t n = strlen(key);
    for (const char *p = w; (p = strstr(p, key)) != NULL; p += n)
        if ((p == w || p[-1] == ':') && (p[n] == ':' || p[n] == '\0'))
            return true;
    return false;
}

START_TEST(spec_suite_verdicts)
{
    const char *dir = getenv("SBX_WASM_TESTSUITE");
    if (dir == NULL)
        dir = "../shared/wasm3-testsuite";
    char pattern[4096];
    struct tally t = {0};
    for (size_t pass = 0; pass < COUNT(groups); pass++) {
        glob_t g;
        snprintf(pattern, sizeof pattern, "%s/%s/*.json", dir, groups[pass]);
        ck_assert_msg(glob(pattern, 0, NULL, &g) == 0, "no spec scripts at %s", pattern);
        for (size_t i = 0; i < g.gl_pathc; i++)
            if (!is_waiting(g.gl_pathv[i]))
                run_script(g.gl_pathv[i], &t);
        globfree(&g);
    }
    printf("spec verdicts: module %u/%u, assert_malformed %u/%u, assert_invalid %u/%u\n", t.pass[0],
           t.pass[0] + t.fail[0], t.pass[1], t.pass[1] + t.fail[1], t.pass[2],
           t.pass[2] + t.fail[2]);
    ck_assert_uint_eq(t.fail[0] + t.fail[1] + t.fail[2], 0);
    ck_assert_uint_gt(t.pass[0], 1000);
    ck_assert_uint_gt(t.pass[1], 500);
    ck_assert_uint_gt(t.pass[2], 2000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wasm_validate");
    TCase *tc = tcase_create("validate");
    tcase_set_timeout(tc, 20);
    tcase_add_loop_test(tc, code_rules, 0, (int)COUNT(code_cases));
    tcase_add_loop_test(tc, module_rules, 0, (int)COUNT(module_cases));
    tcase_add_test(tc, refs_from_globals);
    suite_add_tcase(s, tc);
    TCase *spec = tcase_create("spec");
    tcase_set_timeout(spec, 120);
    tcase_add_test(spec, spec_suite_verdicts);
    suite_add_tcase(s, spec);
    return sbx_test_main(s);
}

/* test_builder.c: the fixture builder emits valid modules: pinned header bytes, LEB128 per the
 * spec's examples, and every fixture accepted by the engine's decoder and validator. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "wasm/wasm.h"
#include "wasm_builder.h"
#include "sbx_test.h"

static struct wasm_module *load_ok(const uint8_t *bytes, size_t len)
{
    char err[256] = "";
    struct wasm_module *m = NULL;
    sbx_err rc = sbx__wasm_module_load(bytes, len, &m, err, sizeof(err));
    ck_assert_msg(rc == SBX_OK, "module rejected: %s", err);
    return m;
}

START_TEST(header_is_pinned)
{
    size_t len = 0;
    uint8_t *bytes = wb_fixture_trap(&len);
    ck_assert_ptr_nonnull(bytes);
    static const uint8_t want[8] = {0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00};
    ck_assert_uint_ge(len, 8);
    ck_assert_mem_eq(bytes, want, 8);
    /* The type section follows at once: id 1. */
    ck_assert_uint_eq(bytes[8], 1);
    free(bytes);
}
END_TEST

START_TEST(leb128_matches_spec_examples)
{
    struct wb_bytes b = {0};
    wb_bytes_uleb(&b, 624485); /* the DWARF / spec example: e5 8e 26 */
    wb_bytes_sleb(&b, -123456);
    wb_bytes_sleb(&b, 63);
    wb_bytes_sleb(&b, 64);
    wb_bytes_sleb(&b, -64);
    wb_bytes_sleb(&b, -65);
    static const uint8_t want[] = {0xe5, 0x8e, 0x26, 0xc0, 0xbb, 0x78,
                                   0x3f, 0xc0, 0x00, 0x40, 0xbf, 0x7f};
    ck_assert_uint_eq(b.len, sizeof(want));
    ck_assert_mem_eq(b.data, want, sizeof(want));
    wb_bytes_free(&b);
}
END_TEST

static uint8_t *fixture(int i, size_t *len)
{
    switch (i) {
    case 0:
        return wb_fixture_print_exit("hello\n", 1, 0, len);
    case 1:
        return wb_fixture_spin(len);
    case 2:
        return wb_fixture_trap(len);
    case 3:
        return wb_fixture_reactor(len);
    default:
        return wb_fixture_cap_caller("host", "answer", len);
    }
}

START_TEST(fixtures_validate)
{
    size_t len = 0;
    uint8_t *bytes = fixture(_i, &len);
    ck_assert_ptr_nonnull(bytes);
    struct wasm_module *m = load_ok(bytes, len);
    bool has_start = false;
    for (uint32_t e = 0; e < m->export_count; e++)
        if (!strcmp(m->exports[e].name, "_start") || !strcmp(m->exports[e].name, "call") ||
            !strcmp(m->exports[e].name, "_initialize"))
            has_start = true;
    ck_assert(has_start);
    sbx__wasm_module_destroy(m);
    free(bytes);
}
END_TEST

START_TEST(wasi_imports_are_decoded_as_built)
{
    size_t len = 0;
    uint8_t *bytes = wb_fixture_print_exit("x", 2, 7, &len);
    struct wasm_module *m = load_ok(bytes, len);
    ck_assert_uint_eq(m->import_count, 2);
    ck_assert_str_eq(m->imports[0].module, "wasi_snapshot_preview1");
    ck_assert_str_eq(m->imports[0].name, "fd_write");
    ck_assert_str_eq(m->imports[1].name, "proc_exit");
    const struct wasm_functype *t = &m->types[m->imports[0].u.func_type];
    ck_assert_uint_eq(t->param_count, 4);
    ck_assert_uint_eq(t->result_count, 1);
    ck_assert_uint_eq(t->types[0], WASM_I32);
    ck_assert_uint_eq(m->mem_count, 1);
    ck_assert_uint_eq(m->data_count, 2);
    sbx__wasm_module_destroy(m);
    free(bytes);
}
END_TEST

START_TEST(types_are_deduplicated_and_typed)
{
    struct wb *w = wb_new();
    ck_assert_uint_eq(wb_type(w, "iI", "F"), 0);
    ck_assert_uint_eq(wb_type(w, "", ""), 1);
    ck_assert_uint_eq(wb_type(w, "iI", "F"), 0);
    struct wb_bytes c = {0};
    wbc_local_get(&c, 1);
    wbc_op(&c, 0xb9); /* f64.convert_i64_s */
    wbc_end(&c);
    wb_export_func(w, "f", wb_func(w, "iI", "F", "f", &c));
    wb_bytes_free(&c);
    size_t len = 0;
    uint8_t *bytes = wb_finish(w, &len);
    wb_free(w);
    struct wasm_module *m = load_ok(bytes, len);
    ck_assert_uint_eq(m->type_count, 2);
    ck_assert_uint_eq(m->types[0].types[1], WASM_I64);
    ck_assert_uint_eq(m->types[0].types[2], WASM_F64);
    ck_assert_uint_eq(m->funcs[0].local_count, 1);
    ck_assert_uint_eq(m->funcs[0].local_runs[0].type, WASM_F32);
    sbx__wasm_module_destroy(m);
    free(bytes);
}
END_TEST

START_TEST(misuse_yields_null)
{
    struct wb *w = wb_new();
    struct wb_bytes c = {0};
    wbc_end(&c);
    wb_func(w, "", "", "", &c);
    wb_import_func(w, "m", "late", "", ""); /* imports must come first */
    size_t len = 0;
    ck_assert_ptr_null(wb_finish(w, &len));
    wb_bytes_free(&c);
    wb_free(w);
}
END_TEST

START_TEST(broken_body_is_rejected_by_validator)
{
    struct wb *w = wb_new();
    struct wb_bytes c = {0};
    wbc_op(&c, WB_OP_I32_ADD); /* nothing on the stack */
    wbc_end(&c);
    wb_export_func(w, "f", wb_func(w, "", "i", "", &c));
    wb_bytes_free(&c);
    size_t len = 0;
    uint8_t *bytes = wb_finish(w, &len);
    wb_free(w);
    char err[256];
    struct wasm_module *m = NULL;
    ck_assert_int_eq(sbx__wasm_module_load(bytes, len, &m, err, sizeof(err)),
                     SBX_E_WASM_INVALID_MODULE);
    free(bytes);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plugin_builder");
    TCase *tc = tcase_create("builder");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, header_is_pinned);
    tcase_add_test(tc, leb128_matches_spec_examples);
    tcase_add_loop_test(tc, fixtures_validate, 0, 5);
    tcase_add_test(tc, wasi_imports_are_decoded_as_built);
    tcase_add_test(tc, types_are_deduplicated_and_typed);
    tcase_add_test(tc, misuse_yields_null);
    tcase_add_test(tc, broken_body_is_rejected_by_validator);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

/* The error registry: values and names are stable, unique, and look-ups are total. */
#include <string.h>

#include <sbx.h>

#include "sbx_test.h"

struct pinned {
    sbx_err code;
    int value;
    const char *name;
};

/* Append-only: a change here is a breaking change for every user. */
static const struct pinned pins[] = {
    {SBX_OK, 0, "OK"},
    {SBX_E_TIMEOUT, 1, "SANDBOX_TIMEOUT"},
    {SBX_E_ABORTED, 2, "SANDBOX_ABORTED"},
    {SBX_E_INVALID_OPTIONS, 3, "SANDBOX_INVALID_OPTIONS"},
    {SBX_E_EXECUTION_FAILED, 4, "SANDBOX_EXECUTION_FAILED"},
    {SBX_E_DISPOSED, 5, "SANDBOX_DISPOSED"},
    {SBX_E_MEMORY_LIMIT, 6, "SANDBOX_MEMORY_LIMIT"},
    {SBX_E_OUTPUT_LIMIT, 7, "SANDBOX_OUTPUT_LIMIT"},
    {SBX_E_UNAVAILABLE, 8, "SANDBOX_UNAVAILABLE"},
    {SBX_E_PIDS_LIMIT, 9, "SANDBOX_PIDS_LIMIT"},
    {SBX_E_NOMEM, 10, "SANDBOX_HOST_NOMEM"},
    {SBX_E_IO, 11, "SANDBOX_HOST_IO"},
    {SBX_E_INVALID_ARGUMENT, 12, "SANDBOX_INVALID_ARGUMENT"},
    {SBX_E_RUNNER_DIED, 13, "SANDBOX_RUNNER_DIED"},
    {SBX_E_WASM_INVALID_MODULE, 100, "SAND_WASM_INVALID_MODULE"},
    {SBX_E_WASM_LINK, 101, "SAND_WASM_LINK_ERROR"},
    {SBX_E_WASM_TRAP, 102, "SAND_WASM_TRAP"},
    {SBX_E_WASM_PERMISSION_DENIED, 103, "SAND_WASM_PERMISSION_DENIED"},
    {SBX_E_WASM_FUEL_EXHAUSTED, 104, "SAND_WASM_FUEL_EXHAUSTED"},
    {SBX_E_WASM_DISPOSED, 105, "SAND_WASM_DISPOSED"},
    {SBX_E_WASM_NO_EXPORT, 106, "SAND_WASM_EXPORT_NOT_FOUND"},
    {SBX_E_WASM_INSTANTIATE, 107, "SAND_WASM_INSTANTIATION_FAILED"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const sbx_err all[] = {
#define SBX_ERR_ALL(id, val, name, msg) id,
    SBX_ERRORS(SBX_ERR_ALL)
#undef SBX_ERR_ALL
};

START_TEST(table_shape_is_pinned)
{
    ck_assert_uint_eq(COUNT(all), COUNT(pins));
    for (size_t i = 0; i < COUNT(pins); i++) {
        ck_assert_int_eq((int)pins[i].code, pins[i].value);
        ck_assert_str_eq(sbx_err_name(pins[i].code), pins[i].name);
        sbx_err back;
        ck_assert_int_eq(sbx_err_from_name(pins[i].name, &back), 0);
        ck_assert_int_eq(back, pins[i].code);
    }
}
END_TEST

START_TEST(names_and_values_unique)
{
    for (size_t i = 0; i < COUNT(all); i++) {
        ck_assert(strlen(sbx_err_message(all[i])) > 0);
        for (size_t j = i + 1; j < COUNT(all); j++) {
            ck_assert_int_ne(all[i], all[j]);
            ck_assert_str_ne(sbx_err_name(all[i]), sbx_err_name(all[j]));
        }
    }
}
END_TEST

START_TEST(unknown_codes_are_total)
{
    ck_assert_str_eq(sbx_err_name((sbx_err)9999), "SANDBOX_UNKNOWN_ERROR");
    ck_assert_str_eq(sbx_err_message((sbx_err)-1), "unknown error code");
    ck_assert_int_eq(sbx_err_from_name("NOPE", NULL), -1);
    ck_assert_int_eq(sbx_err_from_name(NULL, NULL), -1);
    ck_assert_str_eq(sbx_version(), SBX_VERSION);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("errors");
    TCase *tc = tcase_create("errors");
    tcase_set_timeout(tc, 5);
    tcase_add_test(tc, table_shape_is_pinned);
    tcase_add_test(tc, names_and_values_unique);
    tcase_add_test(tc, unknown_codes_are_total);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

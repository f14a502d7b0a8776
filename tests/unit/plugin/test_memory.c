/* test_memory.c: memoryBytes covers everything the wasm tier allocates for a guest: tables and
 * their growth count with linear memory and the stacks (issue 10: 40 tables of 10M elements took
 * 3 GB under a 256 KiB cap, table.grow on 16 tables 1.25 GB). Each attack checks the host's RSS,
 * and a control under a large cap shows the same tables really allocate. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sbx.h>

#include "wasm_builder.h"
#include "sbx_test.h"

#define MIB       (1024.0 * 1024.0)
#define SMALL_CAP "{\"memoryBytes\": 262144}"
#define LARGE_CAP "{\"memoryBytes\": 268435456}"

/* Resident set size of this process (Check forks one per test), in bytes. */
static double rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    ck_assert_ptr_nonnull(f);
    unsigned long size = 0, resident = 0;
    ck_assert_int_eq(fscanf(f, "%lu %lu", &size, &resident), 2);
    fclose(f);
    return (double)resident * (double)sysconf(_SC_PAGESIZE);
}

static void section(struct wb_bytes *m, uint8_t id, struct wb_bytes *c)
{
    wb_bytes_byte(m, id);
    wb_bytes_uleb(m, c->len);
    wb_bytes_put(m, c->data, c->len);
    wb_bytes_free(c);
}

/* A reactor with `count` funcref tables of `min` elements (no maximum) exporting
 * grow(delta) -> the sum of table.grow(ref.null, delta) over every table, and an empty _start. */
static uint8_t *tables_module(uint32_t count, uint32_t min, size_t *len)
{
    struct wb_bytes m = {0}, c = {0};
    wb_bytes_put(&m, "\0asm\1\0\0\0", 8);
    wb_bytes_put(&c, "\x02\x60\x01\x7f\x01\x7f\x60\x00\x00", 9); /* (i32) -> i32, () -> () */
    section(&m, 1, &c);
    wb_bytes_put(&c, "\x02\x00\x01", 3);
    section(&m, 3, &c);
    wb_bytes_uleb(&c, count);
    for (uint32_t i = 0; i < count; i++) {
        wb_bytes_put(&c, "\x70\x00", 2);
        wb_bytes_uleb(&c, min);
    }
    section(&m, 4, &c);
    wb_bytes_put(&c, "\x02\x04grow\x00\x00\x06_start\x00\x01", 17);
    section(&m, 7, &c);
    struct wb_bytes body = {0};
    wb_bytes_put(&body, "\x00\x41\x00", 3); /* no locals; i32.const 0 */
    for (uint32_t i = 0; i < count; i++) {
        wb_bytes_put(&body, "\xd0\x70\x20\x00\xfc\x0f", 6); /* ref.null; local.get 0; table.grow */
        wb_bytes_uleb(&body, i);
        wbc_op(&body, WB_OP_I32_ADD);
    }
    wbc_end(&body);
    wb_bytes_put(&c, "\x02", 1);
    wb_bytes_uleb(&c, body.len);
    wb_bytes_put(&c, body.data, body.len);
    wb_bytes_put(&c, "\x02\x00\x0b", 3);
    wb_bytes_free(&body);
    section(&m, 10, &c);
    ck_assert(!m.is_oom);
    *len = m.len;
    return m.data;
}

static sbx_err create(const char *json, const uint8_t *bytes, size_t len, sbx_wasm_sandbox **sb,
                      char *err, size_t errlen)
{
    sbx_policy *p = sbx_test_policy(json);
    sbx_err rc = sbx_wasm_sandbox_create(bytes, len, p, NULL, sb, err, errlen);
    sbx_policy_destroy(p);
    return rc;
}

/* The bomb: 40 tables of 10,000,000 elements under a 256 KiB cap. */
START_TEST(tables_at_instantiation_count)
{
    size_t len;
    uint8_t *bytes = tables_module(40, 10000000, &len);
    sbx_wasm_sandbox *sb = NULL;
    char err[256] = "";
    double before = rss_bytes();
    ck_assert_int_eq(create(SMALL_CAP, bytes, len, &sb, err, sizeof(err)), SBX_E_MEMORY_LIMIT);
    double grown = rss_bytes() - before;
    ck_assert_ptr_null(sb);
    ck_assert_msg(strstr(err, "table 0 needs 80000000 bytes") && strstr(err, "memoryBytes"), "%s",
                  err);
    ck_assert_msg(grown < 16 * MIB, "RSS grew by %.0f MiB", grown / MIB);

    /* Through sbx_sandbox_run() it is the run's outcome. */
    sbx_run_input in = {.module = bytes, .module_len = len};
    sbx_result r;
    ck_assert_int_eq(sbx_test_run_once(SBX_BACKEND_WASM, SMALL_CAP, &in, &r), SBX_OK);
    ck_assert_int_eq(r.error, SBX_E_MEMORY_LIMIT);
    ck_assert_int_eq(r.limit, SBX_LIMIT_MEMORY);
    sbx_result_free(&r);
    free(bytes);
}
END_TEST

/* Control: under a 256 MiB cap two such tables are created and really take 160 MB. */
START_TEST(tables_allocate_under_a_large_cap)
{
    size_t len;
    uint8_t *bytes = tables_module(2, 10000000, &len);
    sbx_wasm_sandbox *sb = NULL;
    char err[256] = "";
    double before = rss_bytes();
    ck_assert_msg(create(LARGE_CAP, bytes, len, &sb, err, sizeof(err)) == SBX_OK, "%s", err);
    double grown = rss_bytes() - before;
    ck_assert_msg(grown > 150 * MIB, "RSS grew by only %.0f MiB", grown / MIB);
    sbx_wasm_sandbox_destroy(sb);
    free(bytes);
}
END_TEST

static int32_t grow_all(sbx_wasm_sandbox *sb, int32_t delta, sbx_result *r)
{
    sbx_wasm_value arg = {.type = SBX_WASM_I32, .of.i32 = delta}, res;
    ck_assert_int_eq(sbx_wasm_sandbox_call(sb, "grow", &arg, 1, &res, 1, r), SBX_OK);
    ck_assert_msg(r->ok, "%s", r->error_message);
    return res.of.i32;
}

/* The second bomb: table.grow by 10M elements on each of 16 tables. */
START_TEST(table_grow_counts)
{
    size_t len;
    uint8_t *bytes = tables_module(16, 0, &len);
    sbx_wasm_sandbox *sb = NULL;
    char err[256] = "";
    ck_assert_msg(create(SMALL_CAP, bytes, len, &sb, err, sizeof(err)) == SBX_OK, "%s", err);
    sbx_result r;
    double before = rss_bytes();
    ck_assert_int_eq(grow_all(sb, 10000000, &r), -16); /* every grow returns -1 */
    double grown = rss_bytes() - before;
    ck_assert_int_eq(r.limit, SBX_LIMIT_MEMORY);
    sbx_result_free(&r);
    ck_assert_msg(grown < 16 * MIB, "RSS grew by %.0f MiB", grown / MIB);
    /* Small growth still fits, and the next call's outcome starts clean. */
    ck_assert_int_eq(grow_all(sb, 10, &r), 0);
    ck_assert_int_eq(r.limit, SBX_LIMIT_NONE);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
    free(bytes);
}
END_TEST

/* Control: under 256 MiB, 16 grows of 1M elements succeed and take 128 MB; 16 more of 9M
 * (1.15 GB) succeed only while the cap lasts. */
START_TEST(table_grow_allocates_under_a_large_cap)
{
    size_t len;
    uint8_t *bytes = tables_module(16, 0, &len);
    sbx_wasm_sandbox *sb = NULL;
    char err[256] = "";
    ck_assert_msg(create(LARGE_CAP, bytes, len, &sb, err, sizeof(err)) == SBX_OK, "%s", err);
    sbx_result r;
    double before = rss_bytes();
    ck_assert_int_eq(grow_all(sb, 1000000, &r), 0); /* each returns its old size, 0 */
    double grown = rss_bytes() - before;
    ck_assert_int_eq(r.limit, SBX_LIMIT_NONE);
    sbx_result_free(&r);
    ck_assert_msg(grown > 100 * MIB, "RSS grew by only %.0f MiB", grown / MIB);
    int32_t sum = grow_all(sb, 9000000, &r);
    /* Each success returns 1M (the old size), each refusal -1: what is left of 256 MiB after
     * the stacks (8.3 MiB) and 128 MB holds one more grow of 72 MB. */
    ck_assert_int_eq(sum, 1000000 - 15);
    ck_assert_int_eq(r.limit, SBX_LIMIT_MEMORY);
    sbx_result_free(&r);
    sbx_wasm_sandbox_destroy(sb);
    free(bytes);
}
END_TEST

/* A command whose _start exits with memory.grow(pages) + 1. */
static uint8_t *grow_command(int32_t pages, size_t *len)
{
    struct wb *w = wb_new();
    uint32_t ex = wb_import_func(w, "wasi_snapshot_preview1", "proc_exit", "i", "");
    wb_memory(w, 1, -1);
    struct wb_bytes c = {0};
    wbc_i32_const(&c, pages);
    wbc_op(&c, WB_OP_MEMORY_GROW);
    wb_bytes_byte(&c, 0);
    wbc_i32_const(&c, 1);
    wbc_op(&c, WB_OP_I32_ADD);
    wbc_call(&c, ex);
    wbc_end(&c);
    return wb_finish_export(w, "_start", "", "", &c, len);
}

/* Issue 10: a memory.grow the policy refused left no trace in the result of the run. */
START_TEST(refused_memory_grow_is_the_runs_outcome)
{
    static const struct {
        const char *policy;
        int32_t pages;
        int exit_code;
        sbx_limit limit;
    } runs[] = {
        {SMALL_CAP, 4, 0, SBX_LIMIT_MEMORY}, /* 256 KiB holds 3 pages */
        {SMALL_CAP, 2, 2, SBX_LIMIT_NONE},
        {"{}", 2000, 0, SBX_LIMIT_MEMORY}, /* 64 MiB by default */
        {LARGE_CAP, 2000, 2, SBX_LIMIT_NONE},
        {"{}", 70000, 0, SBX_LIMIT_NONE}, /* past 4 GiB: the spec's refusal, not the policy's */
    };
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        size_t len;
        uint8_t *bytes = grow_command(runs[i].pages, &len);
        sbx_run_input in = {.module = bytes, .module_len = len};
        sbx_result r;
        ck_assert_int_eq(sbx_test_run_once(SBX_BACKEND_WASM, runs[i].policy, &in, &r), SBX_OK);
        ck_assert_int_eq(r.exit_code, runs[i].exit_code);
        ck_assert_msg(r.limit == runs[i].limit, "run %zu: limit %d", i, (int)r.limit);
        sbx_result_free(&r);
        free(bytes);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plugin_memory");
    TCase *tc = tcase_create("memory");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, tables_at_instantiation_count);
    tcase_add_test(tc, tables_allocate_under_a_large_cap);
    tcase_add_test(tc, table_grow_counts);
    tcase_add_test(tc, table_grow_allocates_under_a_large_cap);
    tcase_add_test(tc, refused_memory_grow_is_the_runs_outcome);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

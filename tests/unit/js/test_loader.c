/* tests/unit/js/test_loader.c: the engine module (src/js/loader.c) is loaded on first use; a
 * missing or broken module fails the run with SANDBOX_UNAVAILABLE naming the path and dlerror(),
 * never a crash. Each case runs in its own forked process (Check's default), so each loads
 * afresh. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <sbx.h>

#include "js/module.h"

static sbx_result run_worker(const char *code)
{
    sbx_policy *p = NULL;
    ck_assert_int_eq(sbx_policy_parse("{}", 2, &p, NULL, 0), SBX_OK);
    sbx_sandbox *sb = NULL;
    ck_assert_int_eq(sbx_sandbox_create(SBX_BACKEND_WORKER, p, &sb), SBX_OK);
    sbx_policy_destroy(p);
    sbx_run_input in = {.code = code, .code_len = strlen(code)};
    sbx_result r;
    ck_assert_int_eq(sbx_sandbox_run(sb, &in, &r), SBX_OK);
    sbx_sandbox_destroy(sb);
    return r;
}

static void expect_unavailable(const char *path, const char *why)
{
    sbx__engine_test_module_path(path);
    sbx_result r = run_worker("return 1");
    ck_assert(!r.ok);
    ck_assert_int_eq(r.error, SBX_E_UNAVAILABLE);
    ck_assert_ptr_nonnull(r.error_message);
    ck_assert_msg(strstr(r.error_message, path), "%s", r.error_message);
    ck_assert_msg(strstr(r.error_message, why), "%s", r.error_message);
    sbx_result_free(&r);
    char err[512];
    ck_assert(!sbx__js_module_load(err, sizeof(err)));
    ck_assert(strstr(err, path));
}

START_TEST(missing_module)
{
    expect_unavailable("/nonexistent/sbx/libsbx-js.so", "No such file");
}
END_TEST

START_TEST(not_a_library)
{
    char path[] = "/tmp/sbx-js-bad-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    char junk[256];
    memset(junk, 'x', sizeof(junk));
    ck_assert_int_eq(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
    close(fd);
    expect_unavailable(path, "ELF");
    unlink(path);
}
END_TEST

START_TEST(library_without_the_entry)
{
    expect_unavailable("libm.so.6", "not this libsbx's");
}
END_TEST

/* A module where group or others could replace it is never a candidate; the same file in a
 * directory only its owner can write is (the control). */
START_TEST(writable_module_untrusted)
{
    char dir[] = "/tmp/sbx-js-dir-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char file[64];
    snprintf(file, sizeof(file), "%s/libsbx-js.so", dir);
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(chmod(dir, 0755), 0);
    ck_assert_int_eq(chmod(file, 0644), 0);
    ck_assert(sbx__engine_module_is_trusted(file));
    ck_assert_int_eq(chmod(dir, 0777), 0);
    ck_assert(!sbx__engine_module_is_trusted(file));
    ck_assert_int_eq(chmod(dir, 01777), 0); /* sticky like /tmp: others still add files */
    ck_assert(!sbx__engine_module_is_trusted(file));
    ck_assert_int_eq(chmod(dir, 0755), 0);
    ck_assert_int_eq(chmod(file, 0666), 0);
    ck_assert(!sbx__engine_module_is_trusted(file));
    ck_assert_int_eq(chmod(file, 0620), 0);
    ck_assert(!sbx__engine_module_is_trusted(file));
    ck_assert_int_eq(chmod(file, 0644), 0);
    if (geteuid() == 0 && chown(file, 1234, 1234) == 0) /* another user's file */
        ck_assert(!sbx__engine_module_is_trusted(file));
    ck_assert(!sbx__engine_module_is_trusted(dir));            /* not a regular file */
    ck_assert(!sbx__engine_module_is_trusted("libsbx-js.so")); /* never relative to the cwd */
    unlink(file);
    rmdir(dir);
}
END_TEST

/* The control: the module this build made is found and runs code. */
START_TEST(built_module_loads)
{
    char err[512] = "";
    ck_assert_msg(sbx__js_module_load(err, sizeof(err)), "%s", err);
    ck_assert(strstr(sbx__engine_module_path(), "/lib/sbx/libsbx-js.so"));
    sbx_result r = run_worker("return 6 * 7");
    ck_assert_msg(r.ok, "%s", r.error_message ? r.error_message : "");
    ck_assert_str_eq(r.value_json, "42");
    sbx_result_free(&r);
}
END_TEST

/* The control for the stencil cases: the built module decodes the stencil file the build
 * wrote beside it. */
START_TEST(built_stencil_used)
{
    sbx_result r = run_worker("return [1, 2].map(x => x * 2)");
    ck_assert_msg(r.ok, "%s", r.error_message ? r.error_message : "");
    ck_assert_str_eq(r.value_json, "[2,4]");
    sbx_result_free(&r);
    ck_assert_str_eq(sbx__js_test_self_hosted_status(), "stencil file");
}
END_TEST

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_gt(n, 0);
    rewind(f);
    char *data = malloc((size_t)n);
    ck_assert_ptr_nonnull(data);
    ck_assert_int_eq(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return data;
}

static void spill(const char *path, const char *data, size_t len, mode_t mode)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(chmod(path, mode), 0);
}

enum damage { INTACT, TRUNCATED, GARBLED, OTHER_BUILD, NOT_OURS, WRITABLE };

/* A copy of the built module beside a damaged copy of its stencil: the engine still starts and
 * runs (parsing its self-hosted code instead), and says why the file was not used. */
static void expect_stencil(enum damage d, const char *status)
{
    char dir[] = "/tmp/sbx-js-stencil-XXXXXX", mod[64], stencil[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chmod(dir, 0755), 0);
    snprintf(mod, sizeof(mod), "%s/libsbx-js.so", dir);
    snprintf(stencil, sizeof(stencil), "%s/" SBX_JS_STENCIL_NAME, dir);
    size_t mod_len, len;
    char *m = slurp(sbx__engine_module_path(), &mod_len);
    char built[4096];
    snprintf(built, sizeof(built), "%s", sbx__engine_module_path());
    snprintf(strrchr(built, '/') + 1, sizeof(built) - (size_t)(strrchr(built, '/') + 1 - built),
             SBX_JS_STENCIL_NAME);
    char *st = slurp(built, &len);
    spill(mod, m, mod_len, 0755);
    if (d == TRUNCATED)
        len -= len / 3;
    if (d == GARBLED)
        st[len - 1000] ^= 0x5a; /* inside the engine's payload, past every header */
    if (d == OTHER_BUILD)
        st[40] ^= 1; /* inside the build id, which follows the 32-byte header */
    if (d == NOT_OURS)
        st[0] = 'X';
    spill(stencil, st, len, d == WRITABLE ? 0666 : 0644);
    sbx__engine_test_module_path(mod);
    sbx_result r = run_worker("return [1, 2].map(x => x * 2)");
    ck_assert_msg(r.ok, "%s", r.error_message ? r.error_message : "");
    ck_assert_str_eq(r.value_json, "[2,4]");
    sbx_result_free(&r);
    ck_assert_str_eq(sbx__js_test_self_hosted_status(), status);
    unlink(stencil);
    unlink(mod);
    rmdir(dir);
    free(st);
    free(m);
}

START_TEST(stencil_copy_used)
{
    expect_stencil(INTACT, "stencil file");
}
END_TEST

START_TEST(stencil_truncated)
{
    expect_stencil(TRUNCATED, "parsed: truncated");
}
END_TEST

START_TEST(stencil_garbled)
{
    expect_stencil(GARBLED, "parsed: checksum mismatch");
}
END_TEST

START_TEST(stencil_other_build)
{
    expect_stencil(OTHER_BUILD, "parsed: built for another libmozjs or sbx");
}
END_TEST

START_TEST(stencil_not_ours)
{
    expect_stencil(NOT_OURS, "parsed: not a stencil file");
}
END_TEST

START_TEST(stencil_writable_untrusted)
{
    expect_stencil(WRITABLE, "parsed: no stencil file");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("js/loader");
    TCase *tc = tcase_create("loader");
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, missing_module);
    tcase_add_test(tc, not_a_library);
    tcase_add_test(tc, library_without_the_entry);
    tcase_add_test(tc, writable_module_untrusted);
    tcase_add_test(tc, built_module_loads);
    tcase_add_test(tc, built_stencil_used);
    tcase_add_test(tc, stencil_copy_used);
    tcase_add_test(tc, stencil_truncated);
    tcase_add_test(tc, stencil_garbled);
    tcase_add_test(tc, stencil_other_build);
    tcase_add_test(tc, stencil_not_ours);
    tcase_add_test(tc, stencil_writable_untrusted);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* tests/unit/wasm/test_cache_tier.c: the cache in the compiled tier (src/wasm/jit/cache_tier.c).
 * A hit in a fresh process never loads libLLVM and runs native code with the right result, in
 * the COMPILED tier and in AUTO's tier-up (a hot-only store's too); a damaged entry (checksum, or a
 * valid checksum over bytes that do not decode) is replaced and the run is right; use_cache off
 * writes nothing. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sbx_test.h"
#include "util/alloc.h"
#include "wasm/jit/cache.h"
#include "wasm/jit/image.h"
#include "wasm/jit/jit.h"
#include "wasm_builder.h"
#include "wasm_env.h"

static char dir[PATH_MAX];

static void setup(void)
{
    wenv_cache_dir_make(dir, sizeof(dir), "cache-tier");
}

static void teardown(void)
{
    wenv_cache_dir_remove(dir);
}

/* quick() = work(100) = 5050 by a loop; run() = work(100) + wait() + work(100). */
static uint8_t *build(size_t *len)
{
    struct wb *w = wb_new();
    uint32_t wait = wb_import_func(w, "t", "wait", "", "i");
    uint32_t work = wb_func_sum(w);
    struct wb_bytes q = {0};
    wbc_i32_const(&q, 100), wbc_call(&q, work), wbc_end(&q);
    wb_export_func(w, "quick", wb_func(w, "", "i", "", &q));
    wb_bytes_free(&q);
    struct wb_bytes r = {0};
    wbc_i32_const(&r, 100), wbc_call(&r, work), wbc_call(&r, wait), wbc_op(&r, WB_OP_I32_ADD);
    wbc_i32_const(&r, 100), wbc_call(&r, work), wbc_op(&r, WB_OP_I32_ADD), wbc_end(&r);
    wb_export_func(w, "run", wb_func(w, "", "i", "", &r));
    wb_bytes_free(&r);
    uint8_t *bytes = wb_finish(w, len);
    wb_free(w);
    ck_assert_ptr_nonnull(bytes);
    return bytes;
}

/* The "wait" in run() blocks until the tier-up is over (1 when it reached NATIVE). */
static void env_open_hot(struct wenv *e, uint8_t tier, bool use_cache, uint8_t hot_only)
{
    size_t len;
    uint8_t *bytes = build(&len);
    struct wasm_store_limits l = {
        .tier = tier, .tierup_ms = 1, .use_cache = use_cache, .hot_only = hot_only};
    wenv_open(e, bytes, len, &l);
    free(bytes);
    e->wait_for = WASM_TIERUP_NATIVE;
    wenv_instantiate(e, wenv_resolve_wait, e);
}

static void env_open(struct wenv *e, uint8_t tier, bool use_cache)
{
    env_open_hot(e, tier, use_cache, WASM_HOT_DEFAULT);
}

static uint32_t call(struct wenv *e, const char *name)
{
    return wenv_call_i32(e, name, NULL);
}

/* The cache's key for build()'s module. */
static void module_key(uint8_t key[SBX__SHA256_LEN])
{
    size_t n;
    uint8_t *bytes = build(&n);
    sbx__jit_cache_key(bytes, n, SBX__JIT_CACHE_OPTS_GUARDED, key);
    free(bytes);
}

/* Fills the cache with the module's entry from a child, so that this process has not loaded
 * LLVM. */
static void fill_in_child(void)
{
    size_t len;
    uint8_t *bytes = build(&len);
    struct wasm_module *m = wenv_module(bytes, len);
    free(bytes);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char path[PATH_MAX + 128];
        char err[256] = "";
        bool was_cached = false;
        sbx_err rc = sbx__jit_cache_fill(m, path, sizeof(path), &was_cached, err, sizeof(err));
        if (rc != SBX_OK)
            fprintf(stderr, "filling the cache: %s\n", err);
        _exit(rc == SBX_OK ? 0 : 1);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "filling the cache failed");
    sbx__wasm_module_destroy(m);
}

static void entry_path(char *path, size_t len)
{
    uint8_t key[SBX__SHA256_LEN];
    module_key(key);
    snprintf(path, len, "%s/", dir);
    char hex[2 * SBX__SHA256_LEN + 1];
    sbx__sha256_hex(key, hex);
    strncat(path, hex, len - strlen(path) - 1);
    strncat(path, ".sbxc", len - strlen(path) - 1);
}

/* Filled by another process: this one instantiates from the entry with LLVM never loaded. */
START_TEST(compiled_hit_skips_llvm)
{
    fill_in_child();
    struct wenv e;
    env_open(&e, WASM_TIER_COMPILED, true);
    ck_assert(!sbx__jit_llvm_is_loaded());
    ck_assert_int_eq(call(&e, "quick"), 5050);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(e.store), 1);
    ck_assert(!sbx__jit_llvm_is_loaded());
    wenv_close(&e);
}
END_TEST

/* AUTO's tier-up finds the entry too: native code without LLVM. */
START_TEST(tierup_hit_skips_llvm)
{
    fill_in_child();
    struct wenv e;
    env_open(&e, WASM_TIER_AUTO, true);
    ck_assert_int_eq(call(&e, "run"), 5050 + 1 + 5050);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_NATIVE);
    ck_assert_uint_ge(sbx__wasm_store_native_entries(e.store), 1);
    ck_assert(!sbx__jit_llvm_is_loaded());
    wenv_close(&e);
}
END_TEST

/* A hot-only store (the mode of modules of 512 KiB of code and more) links the whole image of
 * `sbx compile` when there is one, as a whole-module tier-up does: no batch, no LLVM. */
START_TEST(hot_only_hit_links_whole_image)
{
    fill_in_child();
    struct wenv e;
    env_open_hot(&e, WASM_TIER_AUTO, true, WASM_HOT_ON);
    ck_assert_int_eq(call(&e, "run"), 5050 + 1 + 5050);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_NATIVE);
    ck_assert_uint_ge(sbx__wasm_store_native_entries(e.store), 1);
    ck_assert_uint_eq(sbx__wasm_store_lazy_compiled(e.store), 0);
    ck_assert(!sbx__jit_llvm_is_loaded());
    wenv_close(&e);
}
END_TEST

/* The control: with no entry the same store stays hot-only, and its hot function (work(), by
 * its loop) gets a batch of its own instead. */
START_TEST(hot_only_miss_stays_lazy)
{
    struct wenv e;
    env_open_hot(&e, WASM_TIER_AUTO, true, WASM_HOT_ON);
    e.wait_for = WASM_TIERUP_IDLE; /* "wait" returns 0 at once */
    for (double end = wenv_now_s() + WENV_WAIT_S;
         sbx__wasm_store_lazy_compiled(e.store) == 0 && wenv_now_s() < end;)
        ck_assert_int_eq(call(&e, "run"), 5050 + 0 + 5050);
    ck_assert_uint_ge(sbx__wasm_store_lazy_compiled(e.store), 1);
    ck_assert_int_eq(call(&e, "run"), 5050 + 0 + 5050);
    ck_assert_uint_eq(sbx__wasm_store_tierup_state(e.store), WASM_TIERUP_LAZY);
    wenv_close(&e);
}
END_TEST

static void flip_byte(const char *path, off_t off)
{
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    uint8_t b;
    ck_assert_int_eq(pread(fd, &b, 1, off), 1);
    b ^= 1;
    ck_assert_int_eq(pwrite(fd, &b, 1, off), 1);
    close(fd);
}

/* Verifies: the entry at path loads and decodes. */
static bool entry_is_good(void)
{
    uint8_t key[SBX__SHA256_LEN], *buf = NULL;
    module_key(key);
    struct sbx__jit_cache c;
    char err[512];
    ck_assert_int_eq(sbx__jit_cache_open(&c, NULL, 0, err, sizeof(err)), SBX_OK);
    size_t len = 0;
    struct sbx__jit_image *im = NULL;
    bool is_good = sbx__jit_cache_load(&c, key, &buf, &len, err, sizeof(err)) == SBX_OK &&
                   sbx__jit_image_decode(buf, len, &im, err, sizeof(err)) == SBX_OK;
    sbx__jit_image_free(im);
    sbx__free(buf);
    sbx__jit_cache_close(&c);
    return is_good;
}

/* A flipped payload byte: refused, recompiled, stored afresh; the result is right. */
START_TEST(corrupt_entry_replaced)
{
    fill_in_child();
    char path[PATH_MAX + 128];
    entry_path(path, sizeof(path));
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    flip_byte(path, st.st_size / 2);
    struct wenv e;
    env_open(&e, WASM_TIER_COMPILED, true);
    ck_assert(sbx__jit_llvm_is_loaded()); /* recompiled */
    ck_assert_int_eq(call(&e, "quick"), 5050);
    wenv_close(&e);
    ck_assert(entry_is_good());
}
END_TEST

/* An entry whose checksum is right but whose bytes are no image (written through the store,
 * so only decode can tell): removed, recompiled, replaced. */
START_TEST(undecodable_entry_replaced)
{
    fill_in_child();
    uint8_t key[SBX__SHA256_LEN];
    module_key(key);
    struct sbx__jit_cache c;
    char err[512];
    ck_assert_int_eq(sbx__jit_cache_open(&c, NULL, 0, err, sizeof(err)), SBX_OK);
    static const uint8_t junk[64] = "not an image";
    ck_assert_int_eq(sbx__jit_cache_store(&c, key, junk, sizeof(junk), NULL, 0), SBX_OK);
    sbx__jit_cache_close(&c);
    ck_assert(!entry_is_good());
    struct wenv e;
    env_open(&e, WASM_TIER_COMPILED, true);
    ck_assert_int_eq(call(&e, "quick"), 5050);
    wenv_close(&e);
    ck_assert(entry_is_good());
}
END_TEST

/* Control for all of the above: without use_cache nothing is read or written. */
START_TEST(no_cache_writes_nothing)
{
    char path[PATH_MAX + 128];
    entry_path(path, sizeof(path));
    struct wenv e;
    env_open(&e, WASM_TIER_COMPILED, false);
    ck_assert_int_eq(call(&e, "quick"), 5050);
    wenv_close(&e);
    ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wasm.cache_tier");
    TCase *tc = tcase_create("cache_tier");
    tcase_set_timeout(tc, 2 * WENV_WAIT_S + 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, compiled_hit_skips_llvm);
    tcase_add_test(tc, tierup_hit_skips_llvm);
    tcase_add_test(tc, hot_only_hit_links_whole_image);
    tcase_add_test(tc, hot_only_miss_stays_lazy);
    tcase_add_test(tc, corrupt_entry_replaced);
    tcase_add_test(tc, undecodable_entry_replaced);
    tcase_add_test(tc, no_cache_writes_nothing);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

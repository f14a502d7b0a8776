/* tests/unit/wasm/test_cache_mem.c: the process's images in memory (src/wasm/jit/cache_mem.c,
 * issue 28). Stores made from the same module bytes in one process (loaded again, as a binding or
 * a runner does) compile the module once: the second links the first's image from memory, also
 * when the cache directory is refused (so the hit can only be the in-memory one); without
 * use_cache neither cache is used; the in-memory cache keeps at most $SBX_CACHE_MEM_BYTES of
 * images, the least recently used out first, and an image a caller still holds outlives its
 * eviction. Each test runs in its own forked process (check's default), so counts start at 0. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "wasm/jit/cache.h"
#include "wasm/jit/image.h"
#include "wasm/jit/jit.h"
#include "wasm_builder.h"
#include "wasm_env.h"

static char dir[PATH_MAX];

static void setup(void)
{
    wenv_cache_dir_make(dir, sizeof(dir), "cache-mem");
}

static void teardown(void)
{
    wenv_cache_dir_remove(dir);
}

/* The library's hook: where 1 is one LLVM compile (parts.c). */
static int compiles;

void sbx__jit_test_pause(int where)
{
    compiles += where == 1;
}

/* A compiled-tier store of module k, loaded from its bytes again; quick() runs native code. */
static void compiled_store(int32_t k, bool use_cache)
{
    size_t len;
    uint8_t *bytes = wb_fixture_quick_sum(k, &len);
    ck_assert_ptr_nonnull(bytes);
    struct wasm_store_limits l = {.tier = WASM_TIER_COMPILED, .use_cache = use_cache};
    struct wenv e;
    wenv_open(&e, bytes, len, &l);
    free(bytes);
    wenv_instantiate(&e, NULL, NULL);
    ck_assert(__atomic_load_n(&e.inst->funcs[0]->jit_entry, __ATOMIC_ACQUIRE) != NULL);
    ck_assert_int_eq(wenv_call_i32(&e, "quick", NULL), k * (k + 1) / 2);
    wenv_close(&e);
}

/* The directory is refused (group-writable: nothing read or written there), so a second store
 * that compiles nothing linked the first's image from memory. Controls: another module compiles;
 * with the images forgotten the same module compiles again. */
START_TEST(stores_share_images_in_memory)
{
    ck_assert_int_eq(chmod(dir, 0777), 0);
    compiled_store(100, true);
    ck_assert_int_eq(compiles, 1);
    compiled_store(100, true);
    ck_assert_int_eq(compiles, 1);
    compiled_store(101, true); /* one byte changed: a miss */
    ck_assert_int_eq(compiles, 2);
    sbx__jit_mem_clear();
    compiled_store(100, true);
    ck_assert_int_eq(compiles, 3);
}
END_TEST

/* With a usable directory the entry a first store wrote is read once, then kept in memory: the
 * third store links with the directory's entry gone. */
START_TEST(directory_hit_is_kept_in_memory)
{
    compiled_store(100, true);
    ck_assert_int_eq(compiles, 1);
    sbx__jit_mem_clear();
    compiled_store(100, true); /* from the directory, now in memory too */
    ck_assert_int_eq(compiles, 1);
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'/*", dir);
    ck_assert_int_eq(system(cmd), 0);
    compiled_store(100, true);
    ck_assert_int_eq(compiles, 1);
}
END_TEST

/* use_cache off (`--no-cache`, the policy's wasm.cache false): every store compiles, and nothing
 * is kept for a later store that uses the cache. */
START_TEST(no_cache_uses_neither)
{
    compiled_store(100, false);
    compiled_store(100, false);
    ck_assert_int_eq(compiles, 2);
    ck_assert_int_eq(chmod(dir, 0777), 0);
    compiled_store(100, true);
    ck_assert_int_eq(compiles, 3);
}
END_TEST

/* Three images, of three modules, under a bound that holds two. */
static struct sbx__jit_image *small_image(int32_t k)
{
    size_t len;
    uint8_t *bytes = wb_fixture_quick_sum(k, &len);
    ck_assert_ptr_nonnull(bytes);
    struct wasm_module *m = wenv_module(bytes, len);
    free(bytes);
    struct sbx__jit_image *im = NULL;
    char err[256] = "";
    ck_assert_int_eq(sbx__jit_image_build(m, false, NULL, &im, err, sizeof(err)), SBX_OK);
    sbx__wasm_module_destroy(m);
    return im;
}

START_TEST(memory_cache_evicts_least_recent)
{
    struct sbx__jit_image *im[3];
    size_t most = 0;
    for (int i = 0; i < 3; i++) {
        im[i] = small_image(i);
        size_t n = sbx__jit_image_bytes(im[i]);
        most = n > most ? n : most;
    }
    char bound[32];
    snprintf(bound, sizeof(bound), "%zu", 2 * most + most / 2); /* two of them, not three */
    setenv("SBX_CACHE_MEM_BYTES", bound, 1); /* read once, at the first use in this process */
    uint8_t key[3][SBX__SHA256_LEN];
    for (int i = 0; i < 3; i++)
        memset(key[i], i + 1, SBX__SHA256_LEN);
    sbx__jit_mem_put(key[0], im[0]);
    sbx__jit_mem_put(key[1], im[1]);
    struct sbx__jit_image *got = sbx__jit_mem_get(key[0]); /* 0 is now more recent than 1 */
    ck_assert_ptr_eq(got, im[0]);
    sbx__jit_image_free(got);
    sbx__jit_mem_put(key[2], im[2]); /* over the bound: 1 goes */
    struct sbx__jit_image *g[3];
    for (int i = 0; i < 3; i++)
        g[i] = sbx__jit_mem_get(key[i]);
    ck_assert(g[0] == im[0] && g[1] == NULL && g[2] == im[2]);
    for (int i = 0; i < 3; i++) {
        sbx__jit_image_free(g[i]);
        sbx__jit_image_free(im[i]); /* 1's last reference (under SAN: no double free) */
    }
    sbx__jit_mem_clear();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wasm.cache_mem");
    TCase *tc = tcase_create("cache_mem");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, stores_share_images_in_memory);
    tcase_add_test(tc, directory_hit_is_kept_in_memory);
    tcase_add_test(tc, no_cache_uses_neither);
    tcase_add_test(tc, memory_cache_evicts_least_recent);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}

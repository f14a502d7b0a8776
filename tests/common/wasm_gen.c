/* tests/common/wasm_gen.c: hand-written wasm binaries for tests (wasm_gen.h). */
#include <string.h>

#include <check.h>

#include "wasm/jit/jit.h"
#include "wasm/runtime.h"
#include "wasm/wasm.h"
#include "wasm_gen.h"
#include "wasm_env.h"

void wbytes_section(struct wb_bytes *m, uint8_t id, const struct wb_bytes *s)
{
    wb_bytes_byte(m, id);
    wb_bytes_uleb(m, (uint32_t)s->len);
    wb_bytes_put(m, s->data, s->len);
}

struct wb_bytes wbytes_i32_module(uint32_t n, const char *const names[3], const uint32_t idx[3],
                                  wbytes_body_fn *body, void *user)
{
    static const uint8_t magic[] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
    static const uint8_t type[] = {0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f};
    struct wb_bytes m = {0}, types = {0}, funcs = {0}, exports = {0}, code = {0};
    wb_bytes_put(&m, magic, sizeof(magic));
    wb_bytes_put(&types, type, sizeof(type));
    wbytes_section(&m, 1, &types);
    wb_bytes_uleb(&funcs, n);
    for (uint32_t k = 0; k < n; k++)
        wb_bytes_byte(&funcs, 0x00);
    wbytes_section(&m, 3, &funcs);
    wb_bytes_uleb(&exports, 3);
    for (int i = 0; i < 3; i++) {
        wb_bytes_uleb(&exports, (uint32_t)strlen(names[i]));
        wb_bytes_put(&exports, names[i], strlen(names[i]));
        wb_bytes_byte(&exports, 0x00);
        wb_bytes_uleb(&exports, idx[i]);
    }
    wbytes_section(&m, 7, &exports);
    wb_bytes_uleb(&code, n);
    for (uint32_t k = 0; k < n; k++)
        body(&code, k, n, user);
    wbytes_section(&m, 10, &code);
    ck_assert(!m.is_oom && !code.is_oom);
    wb_bytes_free(&types);
    wb_bytes_free(&funcs);
    wb_bytes_free(&exports);
    wb_bytes_free(&code);
    return m;
}

static uint32_t call(struct wasm_store *s, struct wasm_instance *i, const char *name, uint32_t x)
{
    wasm_value a = {.i32 = x};
    return wenv_func_i32(s, i, name, &a);
}

void wbytes_compiled_matches_interp(const struct wasm_module *m, const char *const names[3])
{
    struct wasm_store_limits li = {.tier = WASM_TIER_INTERP}, lc = {.tier = WASM_TIER_COMPILED};
    struct wasm_store *si = NULL, *sc = NULL;
    ck_assert_int_eq(sbx__wasm_store_create(&li, &si), SBX_OK);
    ck_assert_int_eq(sbx__wasm_store_create(&lc, &sc), SBX_OK);
    struct wasm_instance *ii = wenv_instance(si, m, NULL, NULL),
                         *ic = wenv_instance(sc, m, NULL, NULL);
    for (uint32_t k = 0; k < m->func_def_count; k++)
        ck_assert_ptr_nonnull(ic->funcs[m->func_import_count + k]->jit_entry);
    const uint32_t xs[] = {0, 1, 7, 12345, 0x80000000u, 0xffffffffu};
    uint64_t before = sbx__wasm_store_native_entries(sc);
    for (size_t i = 0; i < 3; i++) {
        for (size_t j = 0; j < sizeof(xs) / sizeof(xs[0]); j++)
            ck_assert_uint_eq(call(sc, ic, names[i], xs[j]), call(si, ii, names[i], xs[j]));
    }
    ck_assert_uint_eq(sbx__wasm_store_native_entries(sc) - before, 18); /* it ran native code */
    sbx__wasm_store_destroy(si);
    sbx__wasm_store_destroy(sc);
}

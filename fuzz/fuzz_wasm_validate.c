/* fuzz/fuzz_wasm_validate.c: libFuzzer target: decode and validate arbitrary bytes, and check
 * what validation promises the compiler and runtime (every index in range). Any crash, over-read,
 * leak, sanitizer report or broken promise is a bug; rejection is an ordinary outcome. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wasm/decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An export's index is within the space of its kind. */
static bool export_in_range(const struct wasm_module *m, const struct wasm_export *e)
{
    switch (e->kind) {
    case WASM_EXTERN_FUNC:
        return e->index < m->func_count;
    case WASM_EXTERN_TABLE:
        return e->index < m->table_count;
    case WASM_EXTERN_MEMORY:
        return e->index < m->mem_count;
    case WASM_EXTERN_GLOBAL:
        return e->index < m->global_count;
    case WASM_EXTERN_TAG:
        return e->index < m->tag_count;
    default:
        return false;
    }
}

/* Multi-memory (3.0) allows any number of memories: each index must name one. */
static void check_promises(const struct wasm_module *m)
{
    if (m->func_count != m->func_import_count + m->func_def_count)
        abort();
    for (uint32_t i = 0; i < m->func_count; i++) {
        if (m->func_type_idx[i] >= m->type_count)
            abort();
    }
    for (uint32_t i = 0; i < m->export_count; i++) {
        if (!export_in_range(m, &m->exports[i]))
            abort();
    }
    for (uint32_t i = 0; i < m->data_count; i++) {
        if (m->datas[i].mode == WASM_SEG_ACTIVE && m->datas[i].mem_index >= m->mem_count)
            abort();
    }
    for (uint32_t i = 0; i < m->elem_count; i++) {
        const struct wasm_elem_seg *s = &m->elems[i];
        if (s->mode == WASM_SEG_ACTIVE && s->table_index >= m->table_count)
            abort();
        for (uint32_t k = 0; k < s->count; k++) {
            if (s->items[k].op == WASM_INIT_REF_FUNC && s->items[k].index >= m->func_count)
                abort();
        }
    }
    if (m->has_start && m->start_func >= m->func_count)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wasm_module m;
    memset(&m, 0, sizeof m);
    m.bytes = malloc(size ? size : 1);
    if (m.bytes == NULL)
        return 0;
    if (size > 0)
        memcpy(m.bytes, data, size);
    m.len = size;
    char err[256];
    if (sbx__wasm_decode(&m, err, sizeof err) == SBX_OK &&
        sbx__wasm_validate(&m, err, sizeof err) == SBX_OK)
        check_promises(&m);
    sbx__wasm_module_clear(&m);
    free(m.bytes);
    return 0;
}

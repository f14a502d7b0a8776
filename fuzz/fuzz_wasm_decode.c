/* fuzz/fuzz_wasm_decode.c: libFuzzer target: decode arbitrary bytes as a module, then walk every
 * function body with the instruction reader (the decoder itself stores bodies unread). Any
 * crash, over-read, leak or sanitizer report is a bug; rejection is an ordinary outcome. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wasm/decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk_bodies(const struct wasm_module *m)
{
    for (uint32_t i = 0; i < m->func_def_count; i++) {
        const struct wasm_func_def *f = &m->funcs[i];
        struct wasm_reader r = {.base = m->bytes,
                                .file_end = m->bytes + m->len,
                                .p = f->code,
                                .end = f->code + f->code_len};
        struct wasm_instr in;
        while (r.p < r.end && sbx__wasm_read_instr(&r, &in)) {
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wasm_module m;
    memset(&m, 0, sizeof m);
    /* An exact-size heap copy, so ASan sees any read past the end. */
    m.bytes = malloc(size ? size : 1);
    if (m.bytes == NULL)
        return 0;
    if (size > 0)
        memcpy(m.bytes, data, size);
    m.len = size;
    char err[256];
    if (sbx__wasm_decode(&m, err, sizeof err) == SBX_OK)
        walk_bodies(&m);
    sbx__wasm_module_clear(&m);
    free(m.bytes);
    return 0;
}

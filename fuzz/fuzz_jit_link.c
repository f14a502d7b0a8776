/* fuzz/fuzz_jit_link.c: libFuzzer target: arbitrary bytes as an encoded image of the compiled
 * tier (src/wasm/jit/image.h), decoded and linked by our loader (link.c) into an instance of a
 * fixed module, as a cache file would be. The code is never run: the loader's checks are what
 * is fuzzed. Any crash, over-read, leak or sanitizer report is a bug; rejection is an ordinary
 * outcome. Seeded with a real image of that module (fuzz/corpus/fuzz_jit_link/). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/unit/wasm/jit_image_mods.h"
#include "wasm/jit/image.h"
#include "wasm/wasm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool no_imports(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    (void)user, (void)imp, (void)out;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct wasm_module *m;
    char err[256];
    if (!m && sbx__wasm_module_load(mod_self, sizeof(mod_self), &m, err, sizeof(err)) != SBX_OK)
        abort();
    /* An exact-size heap copy, so ASan sees any read past the end. */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    struct wasm_store_limits l = {.tier = WASM_TIER_INTERP};
    struct wasm_store *s = NULL;
    struct wasm_instance *inst = NULL;
    struct sbx__jit_image *im = NULL;
    if (sbx__wasm_store_create(&l, &s) == SBX_OK &&
        sbx__wasm_instantiate(s, m, no_imports, NULL, &inst, NULL, err, sizeof(err)) == SBX_OK &&
        sbx__jit_image_decode(copy, size, &im, err, sizeof(err)) == SBX_OK)
        sbx__jit_image_link(im, inst, err, sizeof(err));
    sbx__jit_image_free(im);
    sbx__wasm_store_destroy(s);
    free(copy);
    return 0;
}

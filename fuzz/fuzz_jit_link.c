/* fuzz/fuzz_jit_link.c: libFuzzer target: arbitrary bytes as an encoded image of the compiled
 * tier (src/wasm/jit/image.h), decoded and linked by our loader (link.c) into an instance of a
 * fixed module, as a cache file would be. The code is never run: the loader's checks are what
 * is fuzzed. Any crash, over-read, leak or sanitizer report is a bug; rejection is an ordinary
 * outcome. Seeded with a real image of that module, which the target writes itself when
 * FUZZ_JIT_LINK_SEED names a file that does not exist yet (mk/fuzz.mk does): machine code is
 * built, never committed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/unit/wasm/jit_image_mods.h"
#include "util/alloc.h"
#include "wasm/jit/image.h"
#include "wasm/wasm.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool no_imports(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    (void)user, (void)imp, (void)out;
    return false;
}

static void write_seed(const char *path)
{
    char err[256] = "";
    struct wasm_module *m = NULL;
    struct sbx__jit_image *im = NULL;
    uint8_t *buf = NULL;
    size_t len = 0;
    FILE *f = NULL;
    if (sbx__wasm_module_load(mod_self, sizeof(mod_self), &m, err, sizeof(err)) != SBX_OK ||
        sbx__jit_image_build(m, false, NULL, &im, err, sizeof(err)) != SBX_OK ||
        sbx__jit_image_encode(im, &buf, &len) != SBX_OK || !(f = fopen(path, "wb")) ||
        fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "fuzz_jit_link: cannot write the seed %s: %s\n", path, err);
        abort();
    }
    sbx__free(buf);
    sbx__jit_image_free(im);
    sbx__wasm_module_destroy(m);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *seed = getenv("FUZZ_JIT_LINK_SEED");
    FILE *f = seed ? fopen(seed, "rb") : NULL;
    if (f)
        fclose(f);
    else if (seed)
        write_seed(seed);
    return 0;
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

/* wasm/jit/image.c: the compiled code of a module (image.h). STUB: the API is fixed first so
 * that the on-disk cache can be built against it; the bodies follow. */
#include <stdio.h>

#include "wasm/jit/image.h"

static sbx_err not_yet(char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "compiled tier: images are not implemented yet");
    return SBX_E_UNAVAILABLE;
}

sbx_err sbx__jit_image_build(const struct wasm_module *m, const atomic_bool *cancel,
                             struct sbx__jit_image **out, char *err, size_t errlen)
{
    (void)m;
    (void)cancel;
    *out = NULL;
    return not_yet(err, errlen);
}

sbx_err sbx__jit_image_encode(const struct sbx__jit_image *im, uint8_t **buf, size_t *len)
{
    (void)im;
    *buf = NULL;
    *len = 0;
    return SBX_E_UNAVAILABLE;
}

sbx_err sbx__jit_image_decode(const uint8_t *buf, size_t len, struct sbx__jit_image **out,
                              char *err, size_t errlen)
{
    (void)buf;
    (void)len;
    *out = NULL;
    return not_yet(err, errlen);
}

sbx_err sbx__jit_image_link(const struct sbx__jit_image *im, struct wasm_instance *inst, char *err,
                            size_t errlen)
{
    (void)im;
    (void)inst;
    return not_yet(err, errlen);
}

void sbx__jit_image_free(struct sbx__jit_image *im)
{
    (void)im;
}

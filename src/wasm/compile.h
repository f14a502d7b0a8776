/* wasm/compile.h: translation of validated function bodies into the interpreter's form. */
#ifndef SBX_WASM_COMPILE_H
#define SBX_WASM_COMPILE_H

#include <stddef.h>

#include <sbx/error.h>

#include "wasm/module.h"

/* Translates every defined function of a validated module into m->compiled. Called once by
 * sbx__wasm_module_load() after validation. Returns SBX_OK, SBX_E_NOMEM, or
 * SBX_E_WASM_INVALID_MODULE (an implementation limit, message in err). */
sbx_err sbx__wasm_compile(struct wasm_module *m, char *err, size_t errlen);

/* Frees m->compiled (NULL-safe). */
void sbx__wasm_compile_free(struct wasm_module *m);

#endif

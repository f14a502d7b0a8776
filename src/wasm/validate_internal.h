/* wasm/validate_internal.h: the seam between module-level validation (validate.c) and the
 * function-body type checker (validate_code.c). */
#ifndef SBX_WASM_VALIDATE_INTERNAL_H
#define SBX_WASM_VALIDATE_INTERNAL_H

#include "wasm/decode.h"

/* Type-checks every defined function body of m (spec 3.3, appendix algorithm). Sets *nomem
 * when an allocation failed. The error goes to r's buffer. */
bool sbx__wasm_validate_code(struct wasm_reader *r, const struct wasm_module *m, bool *nomem);

#endif

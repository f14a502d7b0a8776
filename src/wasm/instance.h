/* wasm/instance.h: helpers shared by the files that instantiate modules. */
#ifndef SBX_WASM_INSTANCE_H
#define SBX_WASM_INSTANCE_H

#include "wasm/wasm.h"

/* Resolves every import of m through resolve and checks its type; out gets import_count
 * externs. Returns SBX_E_WASM_LINK with "unknown import ..." or "incompatible import type ..."
 * in err. */
sbx_err sbx__wasm_link_imports(const struct wasm_module *m, wasm_resolve_fn resolve, void *user,
                               struct wasm_extern *out, char *err, size_t errlen);

#endif

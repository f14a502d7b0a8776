/* sbx/wasm.h: the WebAssembly plugin host (docs/wasm-plugins.md). */
#ifndef SBX_WASM_H
#define SBX_WASM_H

#include "error.h"
#include "policy.h"
#include "sandbox.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbx_wasm_sandbox sbx_wasm_sandbox;

#ifdef __cplusplus
}
#endif
#endif

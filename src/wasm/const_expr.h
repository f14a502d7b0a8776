/* wasm/const_expr.h: constant expressions of more than one instruction (WASM_INIT_EXPR):
 * which instructions may appear, their validation, the functions they reference, their value. */
#ifndef SBX_WASM_CONST_EXPR_H
#define SBX_WASM_CONST_EXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "wasm/decode.h"
#include "wasm/runtime.h"

/* Whether op may appear in a constant expression (spec 3.0, 3.3.11). */
bool sbx__wasm_const_instr(uint16_t op);
/* Type-checks e (WASM_INIT_EXPR) in m: global.get may name globals below max_global, and only
 * immutable ones. On success *type is the one value's type; else *why is the spec's text. */
bool sbx__wasm_const_validate(const struct wasm_module *m, const struct wasm_init *e,
                              uint32_t max_global, wasm_vtype *type, const char **why);
/* Sets declared[f] for every ref.func f in e (C.refs, spec 3.4.10). */
void sbx__wasm_const_refs(const struct wasm_module *m, const struct wasm_init *e, bool *declared);
/* e's value in inst (validated; the globals it reads are already set). GC instructions allocate:
 * when that fails, *tk (WASM_TRAP_NONE on entry) says why and the value is null. */
wasm_value sbx__wasm_const_eval(const struct wasm_instance *inst, const struct wasm_init *e,
                                enum wasm_trap_kind *tk);

#endif

/* wasm/validate_internal.h: the seam between module-level validation (validate.c) and the
 * function-body type checker (validate_code.c). */
#ifndef SBX_WASM_VALIDATE_INTERNAL_H
#define SBX_WASM_VALIDATE_INTERNAL_H

#include "wasm/decode.h"

/* validate_locals.c: the declared locals a call must zero, learnt while validating a body:
 * zeroed[x] (x counted from the first declared local) is set when some local.get may read
 * local x before a write has certainly happened. */
struct wasm_lscan {
    uint8_t *is_set; /* per declared local: certainly written at this point */
    uint32_t set_cap;
    uint32_t *journal; /* locals in the order they became certain */
    uint32_t jlen, jcap;
    uint32_t *marks; /* per open block: journal length at its start, loop in the low bit */
    uint32_t nmarks, mcap;
    uint8_t *zeroed; /* the function's result; NULL: no declared locals */
    uint32_t nparams, nlocals;
    bool prev_zero; /* the last instruction pushed a constant whose bits are 0 */
    bool is_nomem;
};
/* Starts a body of nparams params and nlocals declared locals (zeroed has nlocals bytes,
 * cleared, or is NULL when there are none). false on NOMEM. */
bool sbx__wasm_lscan_func(struct wasm_lscan *s, uint32_t nparams, uint32_t nlocals,
                          uint8_t *zeroed);
void sbx__wasm_lscan_open(struct wasm_lscan *s, bool is_loop); /* block, loop, if */
void sbx__wasm_lscan_else(struct wasm_lscan *s);
void sbx__wasm_lscan_end(struct wasm_lscan *s);
/* local.get (is_get) or local.set/tee of local x (params counted); prev_zero: the value set
 * is a constant 0 just pushed. */
void sbx__wasm_lscan_local(struct wasm_lscan *s, bool is_get, uint32_t x, bool prev_zero);
void sbx__wasm_lscan_free(struct wasm_lscan *s);

/* Type-checks every defined function body of m (spec 3.3, appendix algorithm). Sets *nomem
 * when an allocation failed. The error goes to r's buffer. */
bool sbx__wasm_validate_code(struct wasm_reader *r, struct wasm_module *m, bool *nomem);

#endif

/* jail/guest.h: what the process tier runs: a script staged in a per-run directory and started
 * by a named interpreter, or sbx's own JavaScript engine (`sbx __js-guest`), which enters the
 * jail only as a sealed memfd and answers on fd 3 with length-prefixed records. */
#ifndef SBX_JAIL_GUEST_H
#define SBX_JAIL_GUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/backend.h"
#include "util/buf.h"

/* Returns a sealed, close-on-exec memfd holding the sbx binary found through $SBX_GUEST_BINARY,
 * the running program when it is sbx, or SBX_BINDIR/sbx; -1 if none is usable. */
int sbx__jail_guest_binary(void);

/* True when interpreter names sbx's own engine (NULL, "" or "sbx-js"). */
bool sbx__jail_guest_is_js(const char *interpreter);

/* Writes the code (and for sbx-js the policy) into dir, which the jail shows at /sbx, and sets
 * argv (NULL-terminated, static strings and one owned string in *owned) for the guest. */
sbx_err sbx__jail_guest_stage(const char *dir, const struct sbx__run *run, const char *argv[8],
                              char *err, size_t errlen);

/* Removes what sbx__jail_guest_stage() wrote, then dir itself. */
void sbx__jail_guest_unstage(const char *dir);

/* Applies the sbx-js guest's records (ok, error, message, value, truncation) to out. Returns
 * false if the records are missing or malformed. */
bool sbx__jail_guest_apply_result(const char *data, size_t len, sbx_result *out);

#endif

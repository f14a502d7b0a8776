/* wasm/jit/link.h: our loader of compiled code, in place of a JIT linker (so that loading
 * needs no libLLVM): ELF64 x86-64 relocatable objects as engine.c's target machine emits them
 * (position-independent, small code model). Their loadable sections go into one fresh mapping
 * with a GOT and PLT stubs for the external symbols (sym.h), an explicit list of relocation
 * types is applied, then the pages become read+exec (code) or read-only (data), never
 * writable and executable at once. The input is untrusted (it may come from a cache file):
 * every offset, size, index and section number is checked. */
#ifndef SBX_WASM_JIT_LINK_H
#define SBX_WASM_JIT_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "wasm/jit/jit.h"
#include "wasm/runtime.h"

/* Links objs together for inst into a mapping its store owns (freed by
 * sbx__wasm_jit_store_free) and sets the jit_entry of every defined function (sbx_w<i>).
 * SBX_E_UNAVAILABLE with err ("compiled tier: ...") on a malformed object, an unsupported
 * relocation or an unknown symbol; nothing is set then. SBX_E_NOMEM. */
sbx_err sbx__jit_link(const struct sbx__jit_obj *objs, uint32_t n, struct wasm_instance *inst,
                      char *err, size_t errlen);
/* The same for a hot-only batch: the objects define some of the functions, and only those get
 * their entries (published with release, each jit_entry after its osr_entry: the store's
 * thread may be reading them). */
sbx_err sbx__jit_link_some(const struct sbx__jit_obj *objs, uint32_t n, struct wasm_instance *inst,
                           char *err, size_t errlen);

/* Which of ndefs defined functions objs would give entries to, read as the link reads them
 * (untrusted; nothing is mapped): only[i] is SBX__JIT_ONLY_OSR for one with an OSR entry,
 * SBX__JIT_ONLY_FUNC for one without, 0 for none (the `only` of sbx__jit_compile_set that
 * compiles the same set again). SBX_E_UNAVAILABLE with err on a malformed object; SBX_E_NOMEM. */
sbx_err sbx__jit_objs_defs(const struct sbx__jit_obj *objs, uint32_t n, uint32_t ndefs,
                           uint8_t *only, char *err, size_t errlen);

/* The instance whose code, linked in js, contains pc, or NULL. Async-signal-safe (fault.c). */
const struct wasm_instance *sbx__jit_code_instance(const struct wasm_jit_store *js, uintptr_t pc);

/* The store's compiled-tier state, created on first use. */
sbx_err sbx__jit_store(struct wasm_store *store, struct wasm_jit_store **out);

#endif

/* wasm/jit/image.h: the compiled code of one module, independent of any instance: the
 * relocatable objects of its parts and what linking them needs. Code refers to an instance's
 * runtime objects only through external symbols named by kind and index (sbx_k_mem_data0,
 * sbx_k_func12, ...), resolved per instance by our own loader (link.h), so an image is a
 * function of the module bytes, the tier options and the CPU, and may be stored on disk.
 * build needs libLLVM-16; decode and link never load it. */
#ifndef SBX_WASM_JIT_IMAGE_H
#define SBX_WASM_JIT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "wasm/decode.h"
#include "wasm/jit/jit.h"
#include "wasm/runtime.h"

struct sbx__jit_image;
struct sbx__jit_image_entry;

/* The variant of compiled code inst needs: guarded (no bounds checks) when its memory has the
 * guard region (or it has no memory), checked otherwise. */
bool sbx__jit_wants_guard(const struct wasm_instance *inst);
/* Compiles m in the given variant (loads LLVM). SBX_E_UNAVAILABLE with err when LLVM is missing
 * or the module uses a feature the tier does not compile; SBX_E_ABORTED or SBX_E_TIMEOUT when
 * stop (may be NULL) ends it (sbx__jit_stop_check); SBX_E_NOMEM. */
sbx_err sbx__jit_image_build(const struct wasm_module *m, bool is_guarded,
                             const struct sbx__jit_stop *stop, struct sbx__jit_image **out,
                             char *err, size_t errlen);
/* What stops a compile for store s (jit.h): its destruction, and for a compiled-tier store its
 * interrupt and guard (the instantiating run's deadline and abort; may be NULL). */
void sbx__jit_stop_for(const struct wasm_store *s, const struct wasm_load_guard *guard,
                       struct sbx__jit_stop *out);
/* The image as bytes (a versioned header, then the parts' objects). The caller frees *buf with
 * sbx__free. */
sbx_err sbx__jit_image_encode(const struct sbx__jit_image *im, uint8_t **buf, size_t *len);
/* Reads bytes made by encode, with structural checks only (the header, counts, sizes; the
 * objects are checked in depth when linked). Never needs LLVM. SBX_E_UNAVAILABLE with err on
 * bad bytes (a cache treats it as a miss). */
sbx_err sbx__jit_image_decode(const uint8_t *buf, size_t len, struct sbx__jit_image **out,
                              char *err, size_t errlen);
/* Loads the image's code for inst (its store owns the mapping) and sets every defined
 * function's jit_entry. im must be an image of inst's module, and checked code unless inst's
 * memory is guarded. Never needs LLVM. Returns SBX_E_UNAVAILABLE with err when it is not, the
 * objects are malformed or refer to something the loader does not resolve; SBX_E_NOMEM. */
sbx_err sbx__jit_image_link(const struct sbx__jit_image *im, struct wasm_instance *inst, char *err,
                            size_t errlen);
/* A partial image (hot-only batches: image.c's F_PARTIAL) of m's variant: prev's objects (may be
 * NULL) then the n batch objects objs, copied. SBX_E_UNAVAILABLE when they would be more than
 * SBX__JIT_MAX_PARTS; SBX_E_NOMEM. Linking it gives the functions of its batches their entries. */
sbx_err sbx__jit_image_partial(const struct sbx__jit_image *prev, const struct wasm_module *m,
                               bool is_guarded, const struct sbx__jit_obj *objs, uint32_t n,
                               struct sbx__jit_image **out);
/* The same with its cache_hot.c facts: whether the objects are all one hot set at the hot-set
 * level (is_upgraded: prev's objects then must be none), and the busy time credited so far. */
sbx_err sbx__jit_image_hot(const struct sbx__jit_image *prev, const struct wasm_module *m,
                           bool is_guarded, bool is_upgraded, uint64_t credit_ns,
                           const struct sbx__jit_obj *objs, uint32_t n,
                           struct sbx__jit_image **out);
/* The functions a partial image of m gives entries to, as sbx__jit_objs_defs (link.h) says:
 * only has m->func_def_count bytes. SBX_E_UNAVAILABLE with err for another module's image or a
 * malformed object; SBX_E_NOMEM. */
sbx_err sbx__jit_image_defs(const struct sbx__jit_image *im, const struct wasm_module *m,
                            uint8_t *only, char *err, size_t errlen);
bool sbx__jit_image_is_partial(const struct sbx__jit_image *im);
bool sbx__jit_image_is_upgraded(const struct sbx__jit_image *im);
uint64_t sbx__jit_image_credit(const struct sbx__jit_image *im);
/* Its credit as it will be encoded: metadata, not code, so set on a shared image. */
void sbx__jit_image_set_credit(struct sbx__jit_image *im, uint64_t credit_ns);
/* The bytes an image holds (its objects and record). */
size_t sbx__jit_image_bytes(const struct sbx__jit_image *im);
/* Images are shared by reference: ref adds one (returns im, accepts NULL), free drops one and
 * frees the image with the last. Accepts NULL. */
struct sbx__jit_image *sbx__jit_image_ref(struct sbx__jit_image *im);
void sbx__jit_image_free(struct sbx__jit_image *im);

/* Frees a store's images (link.c's sbx__wasm_jit_store_free). Accepts NULL. */
void sbx__jit_images_free(struct sbx__jit_image_entry *e);

#endif

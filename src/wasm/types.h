/* wasm/types.h: the process-wide registry of canonical types (3.0's iso-recursive type
 * equivalence) and subtyping.
 *
 * Each recursion group of a module's type section is interned in one registry shared by every
 * module of the process: two groups that are the same once their references to earlier types
 * name those types' canonical forms are one entry, so equivalent types in any two modules get
 * the same struct wasm_rtt (runtime type), and type equivalence is pointer equality. An rtt
 * records its declared supertypes as a display (supers[0..depth], root first, itself last), so
 * "a is a subtype of b" is two loads and a compare (sbx__wasm_rtt_sub): call_indirect's
 * signature check, ref.test/ref.cast and import matching use it.
 *
 * Canonical value types (ctype) are wasm_vtype whose concrete heap types are rtt ids (unique
 * among live rtts) instead of a module's type indices; runtime objects (tables, globals) keep
 * canonical types so that they compare across modules. */
#ifndef SBX_WASM_TYPES_H
#define SBX_WASM_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "wasm/decode.h"
#include "wasm/module.h"

/* Supertype chains deeper than this are an implementation limit (as in V8). */
#define WASM_MAX_SUBTYPE_DEPTH 63u

/* A GC object's header size: fields start after it (gc.h). */
#define WASM_GC_HEADER 16u

struct wasm_rtt {
    uint32_t id;  /* the canonical heap type */
    uint8_t kind; /* enum wasm_comp_kind */
    bool is_final;
    uint16_t depth;                       /* declared supertypes above it */
    const struct wasm_rtt *const *supers; /* depth + 1 entries: root first, itself last */
    uint32_t param_count, result_count;   /* function types */
    uint32_t field_count;                 /* struct: fields, array: 1 */
    const wasm_vtype *types;              /* params then results, or fields' storage types */
    const uint8_t *muts;                  /* fields' mutability */
    struct wasm_recgroup *group;
    /* The layout of a GC object of this type (gc.h): a struct's field offsets from the object's
     * start and its size (header included), an array's element size; the offsets of the fields
     * that may hold GC references (any, extern and exn hierarchies), or for an array whether its
     * elements may. */
    const uint32_t *offsets;
    uint32_t size;
    const uint32_t *ref_offsets;
    uint32_t ref_count;
    uint8_t elem_size;
    bool elem_is_ref;
};

/* Bytes a field of storage type t takes in a GC object: 1, 2, 4, 8 or 16. */
uint32_t sbx__wasm_storage_size(wasm_vtype t);

/* Whether canonical value type t is a reference a GC heap object may be behind (its
 * hierarchy is any, extern or exn: not func, not a number). */
bool sbx__wasm_ctype_is_gc(wasm_vtype t);

/* Whether a is b or declares it, directly or not, as a supertype. */
static inline bool sbx__wasm_rtt_sub(const struct wasm_rtt *a, const struct wasm_rtt *b)
{
    return a == b || (a->depth > b->depth && a->supers[b->depth] == b);
}

/* Validates m's type section (type indices in range and backward, supertypes declared before,
 * not final and matching, at most WASM_MAX_SUBTYPE_DEPTH deep) and interns its groups: fills
 * m->rtts and m->typeset. false with r's error set (and *nomem on an allocation failure). */
bool sbx__wasm_types_canon(struct wasm_reader *r, struct wasm_module *m, bool *nomem);
/* Drops m's references (m->rtts, m->typeset); safe on a module that has none. */
void sbx__wasm_types_release(struct wasm_module *m);

/* A reference-counted set of groups a module holds; a store takes one per instance so that
 * the rtts its objects point to outlive the module if need be. */
struct wasm_typeset *sbx__wasm_typeset_ref(struct wasm_typeset *ts);
void sbx__wasm_typeset_release(void *ts);

/* The rtt of a function type whose reference types are all abstract (a host function's), a
 * final type of its own group: the rtt a module gets for the same type. NULL on NOMEM; the
 * caller releases it. */
const struct wasm_rtt *sbx__wasm_rtt_of_functype(const struct wasm_functype *ft);
void sbx__wasm_rtt_release(const struct wasm_rtt *rtt);

/* The rtt of canonical heap type id (a live rtt's). */
const struct wasm_rtt *sbx__wasm_rtt_by_id(uint32_t id);

/* m's type t as a canonical type (needs m->rtts). */
static inline wasm_vtype sbx__wasm_ctype(const struct wasm_module *m, wasm_vtype t)
{
    if (!wasm_vtype_is_ref(t) || wasm_heap_is_abstract(wasm_vtype_heap(t)))
        return t;
    return (t & 0xFFu) | (m->rtts[wasm_vtype_heap(t)]->id << 8);
}

/* Subtyping of canonical heap and value types (3.0 "Matching"). */
bool sbx__wasm_cheap_sub(uint32_t a, uint32_t b);
bool sbx__wasm_ctype_sub(wasm_vtype a, wasm_vtype b);
/* The same for two of m's types: a == b, or their canonical forms match. */
static inline bool sbx__wasm_vtype_sub(const struct wasm_module *m, wasm_vtype a, wasm_vtype b)
{
    return a == b || sbx__wasm_ctype_sub(sbx__wasm_ctype(m, a), sbx__wasm_ctype(m, b));
}

/* The top of a canonical heap type's hierarchy (any, func, extern or exn) and its bottom
 * (none, nofunc, noextern, noexn). */
uint32_t sbx__wasm_cheap_top(uint32_t ht);
uint32_t sbx__wasm_cheap_bottom(uint32_t ht);

#endif

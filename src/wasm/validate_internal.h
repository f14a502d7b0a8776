/* wasm/validate_internal.h: the seam between module-level validation (validate.c) and the
 * function-body type checker (validate_code.c). */
#ifndef SBX_WASM_VALIDATE_INTERNAL_H
#define SBX_WASM_VALIDATE_INTERNAL_H

#include "wasm/decode.h"
#include "wasm/types.h"

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

/* --- the body checker's state, shared by validate_code.c (control, calls, locals, the
 * driver) and validate_mem.c (memories and tables) --- */

#define VAL_UNKNOWN 0u         /* the bottom type an unreachable (polymorphic) stack yields */
#define VAL_MAX     (1u << 22) /* implementation limit on operand stack depth */

struct ctl {
    uint16_t op; /* WASM_OP_BLOCK, _LOOP, _IF, or _ELSE once the else arm started */
    bool is_unreachable;
    uint32_t br_table_mark; /* the last br_table that checked this label */
    uint32_t height;
    uint32_t init_height; /* the locals initialized when the block began (vfunc.inits) */
    uint32_t nparams, nresults;
    const wasm_vtype *params, *results; /* results NULL: the one type in single */
    wasm_vtype single;
};

struct vfunc {
    const struct wasm_module *m;
    struct wasm_reader *r;
    uint32_t func_idx;
    const uint8_t *at; /* the current instruction, for messages */
    const struct wasm_functype *type;
    struct wasm_func_def *def;
    wasm_vtype *vals;
    uint32_t nvals, cap_vals;
    struct ctl *ctls;
    uint32_t nctls, cap_ctls;
    wasm_vtype *tmp;
    uint32_t cap_tmp;
    wasm_vtype *locals; /* the function's params and declared locals */
    uint32_t nlocals, cap_locals;
    /* 3.0: a local of a non-defaultable type (a non-null reference) may be read only where it
     * is certainly set: per local, whether it is (params and defaultable locals always), and
     * the stack of those set since the function began, unwound at the end of each block. */
    uint8_t *local_init;
    uint32_t cap_init;
    uint32_t *inits;
    uint32_t ninits, cap_inits;
    uint32_t br_table_serial;
    bool *nomem;
    struct wasm_lscan ls; /* the locals a call must zero (validate_locals.c) */
};

/* "invalid: <msg> in function N"; returns false. */
bool sbx__wasm_v_fail(struct vfunc *v, const char *msg);
/* "invalid: unknown <what> <idx> in function N"; returns false. */
bool sbx__wasm_v_fail_idx(struct vfunc *v, const char *what, uint32_t idx);
/* Makes room for need elements of elem bytes in *buf (VAL_MAX at most); false on failure. */
bool sbx__wasm_v_grow(struct vfunc *v, void **buf, uint32_t *cap, size_t elem, uint32_t need);
bool sbx__wasm_v_push_n(struct vfunc *v, const wasm_vtype *types, uint32_t n);
bool sbx__wasm_v_pop_any(struct vfunc *v, wasm_vtype *out);
bool sbx__wasm_v_pop_n(struct vfunc *v, const wasm_vtype *types, uint32_t n);

static inline bool vpush(struct vfunc *v, wasm_vtype t)
{
    if (v->nvals == v->cap_vals &&
        !sbx__wasm_v_grow(v, (void **)&v->vals, &v->cap_vals, sizeof(*v->vals), v->nvals + 1))
        return false;
    v->vals[v->nvals++] = t;
    return true;
}

/* Whether a value of type t (VAL_UNKNOWN: the bottom type) may be used where want is expected:
 * the same type, or a subtype (3.0 reference types). */
static inline bool vsub(const struct vfunc *v, wasm_vtype t, wasm_vtype want)
{
    return t == want || t == VAL_UNKNOWN ||
           (wasm_vtype_is_ref(t) && wasm_vtype_is_ref(want) && sbx__wasm_vtype_sub(v->m, t, want));
}

static inline bool vpop(struct vfunc *v, wasm_vtype want)
{
    const struct ctl *c = &v->ctls[v->nctls - 1];
    if (v->nvals == c->height)
        return c->is_unreachable || sbx__wasm_v_fail(v, "type mismatch");
    wasm_vtype t = v->vals[--v->nvals];
    return vsub(v, t, want) || sbx__wasm_v_fail(v, "type mismatch");
}

/* Checks a value type the module uses (a type index in range) and that sbx runs its feature;
 * at NULL for module-level types. */
bool sbx__wasm_v_check_type(struct wasm_reader *r, const struct wasm_module *m, wasm_vtype t,
                            const uint8_t *at);
/* The same for a heap type. */
bool sbx__wasm_v_check_heap(struct wasm_reader *r, const struct wasm_module *m, uint32_t ht,
                            const uint8_t *at);

/* The types a branch to label depth takes (a loop's params, else its results). */
bool sbx__wasm_v_label(struct vfunc *v, uint32_t depth, uint32_t *n, const wasm_vtype **types);

/* validate_gc.c: the GC instructions (structs, arrays, casts, i31, conversions, ref.eq). */
bool sbx__wasm_v_gc(struct vfunc *v, const struct wasm_instr *in);

/* validate_mem.c: the memory and table instructions (immediates and stack effects), and the
 * element type of table idx. */
bool sbx__wasm_v_memory(struct vfunc *v, const struct wasm_instr *in);
bool sbx__wasm_v_table(struct vfunc *v, const struct wasm_instr *in);
bool sbx__wasm_v_table_type(struct vfunc *v, uint32_t idx, wasm_vtype *out, bool *is64);

/* Type-checks every defined function body of m (spec 3.3, appendix algorithm). Sets *nomem
 * when an allocation failed. The error goes to r's buffer. */
bool sbx__wasm_validate_code(struct wasm_reader *r, struct wasm_module *m, bool *nomem);

#endif

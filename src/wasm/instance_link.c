/* wasm/instance_link.c: import resolution and the spec's extern subtyping (3.0 import
 * matching: limits min >=, max <=; a function's type a subtype of the import's; equal table
 * element types; equal global mutability, and types equal (mutable) or matching). */
#include <stdio.h>
#include <string.h>

#include "wasm/code.h"
#include "wasm/instance.h"
#include "wasm/runtime.h"
#include "wasm/types.h"

/* Whether a value of limits `have` may stand in for the import's `want`. */
static bool limits_match(const struct wasm_limits *have, const struct wasm_limits *want)
{
    if (have->min < want->min)
        return false;
    if (!want->has_max)
        return true;
    return have->has_max && have->max <= want->max;
}

static bool import_matches(const struct wasm_module *m, const struct wasm_import *imp,
                           const struct wasm_extern *ext)
{
    switch (imp->kind) {
    case WASM_EXTERN_FUNC: /* its type a subtype of the import's */
        return sbx__wasm_rtt_sub(ext->u.func->rtt, m->rtts[imp->u.func_type]);
    case WASM_EXTERN_TABLE: { /* runtime objects hold canonical types: equal ones */
        const struct wasm_tabletype *t = &ext->u.table->type;
        return t->elem_type == sbx__wasm_ctype(m, imp->u.table.elem_type) &&
               t->is64 == imp->u.table.is64 && limits_match(&t->limits, &imp->u.table.limits);
    }
    case WASM_EXTERN_MEMORY:
        return ext->u.memory->type.is64 == imp->u.mem.is64 &&
               limits_match(&ext->u.memory->type.limits, &imp->u.mem.limits);
    case WASM_EXTERN_GLOBAL: {
        /* a mutable global's type must equal the import's, an immutable one's match it */
        const struct wasm_globaltype *g = &ext->u.global->type;
        wasm_vtype want = sbx__wasm_ctype(m, imp->u.global.type);
        if (g->is_mutable != imp->u.global.is_mutable)
            return false;
        return g->is_mutable ? g->type == want : sbx__wasm_ctype_sub(g->type, want);
    }
    case WASM_EXTERN_TAG: /* equivalent types: the same canonical type */
        return ext->u.tag->rtt == m->rtts[imp->u.tag_type];
    default:
        return false;
    }
}

/* An extern whose object pointer is NULL counts as no extern at all. */
static bool extern_present(const struct wasm_extern *ext)
{
    switch (ext->kind) {
    case WASM_EXTERN_FUNC:
        return ext->u.func != NULL;
    case WASM_EXTERN_TABLE:
        return ext->u.table != NULL;
    case WASM_EXTERN_MEMORY:
        return ext->u.memory != NULL;
    case WASM_EXTERN_GLOBAL:
        return ext->u.global != NULL;
    case WASM_EXTERN_TAG:
        return ext->u.tag != NULL;
    default:
        return false;
    }
}

/* Names may hold NUL or any UTF-8; print them bounded and with %.*s. */
static void import_error(char *err, size_t errlen, const char *what, const struct wasm_import *imp)
{
    if (err && errlen)
        snprintf(err, errlen, "%s \"%.*s\".\"%.*s\"", what, (int)imp->module_len, imp->module,
                 (int)imp->name_len, imp->name);
}

sbx_err sbx__wasm_link_imports(const struct wasm_module *m, wasm_resolve_fn resolve, void *user,
                               struct wasm_extern *out, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < m->import_count; i++) {
        const struct wasm_import *imp = &m->imports[i];
        struct wasm_extern ext;
        memset(&ext, 0, sizeof(ext));
        if (!resolve || !resolve(user, imp, &ext) || !extern_present(&ext)) {
            import_error(err, errlen, "unknown import", imp);
            return SBX_E_WASM_LINK;
        }
        if (ext.kind != imp->kind || !import_matches(m, imp, &ext)) {
            import_error(err, errlen, "incompatible import type for", imp);
            return SBX_E_WASM_LINK;
        }
        out[i] = ext;
    }
    return SBX_OK;
}

/* plugin/imports.c: sbx_wasm_module_imports(), the capability imports a module asks for, with
 * their types and a signature string in the form sbx_wasm_host_func takes. A host (or a
 * binding) uses it to register functions typed as the module imports them, and to show an
 * operator what a plugin wants before it runs. */
#include <stdio.h>
#include <string.h>

#include <sbx/plugin.h>

#include "plugin/plugin.h"
#include "util/alloc.h"

#define SIG_MAX 16

static const struct {
    wasm_vtype wasm;
    sbx_wasm_valtype pub;
    const char *name;
} valtypes[] = {{WASM_I32, SBX_WASM_I32, "i32"},
                {WASM_I64, SBX_WASM_I64, "i64"},
                {WASM_F32, SBX_WASM_F32, "f32"},
                {WASM_F64, SBX_WASM_F64, "f64"}};

static int find_type(wasm_vtype t)
{
    for (size_t i = 0; i < sizeof(valtypes) / sizeof(valtypes[0]); i++)
        if (valtypes[i].wasm == t)
            return (int)i;
    return -1;
}

/* Appends "(t, t)" for n types to buf at *o; false if a type has no public form. */
static bool put_list(char *buf, size_t cap, size_t *o, const wasm_vtype *types, uint32_t n,
                     sbx_wasm_valtype *out)
{
    *o += (size_t)snprintf(buf + *o, cap - *o, "(");
    for (uint32_t i = 0; i < n; i++) {
        int k = find_type(types[i]);
        if (k < 0)
            return false;
        out[i] = valtypes[k].pub;
        *o += (size_t)snprintf(buf + *o, cap - *o, "%s%s", i ? ", " : "", valtypes[k].name);
    }
    *o += (size_t)snprintf(buf + *o, cap - *o, ")");
    return true;
}

/* Fills one entry from a function import; false on NOMEM. */
static bool describe(const struct wasm_import *imp, const struct wasm_functype *ft,
                     sbx_wasm_import *e)
{
    char name[256], sig[2 * SIG_MAX * 5 + 16];
    sbx__plugin_import_name(imp, name, sizeof(name));
    e->name = sbx__strdup(name);
    if (!e->name)
        return false;
    if (ft->param_count > SIG_MAX || ft->result_count > SIG_MAX)
        return true; /* no signature: no host function can serve it */
    size_t o = 0;
    bool is_ok = put_list(sig, sizeof(sig), &o, ft->types, ft->param_count, e->params);
    o += (size_t)snprintf(sig + o, sizeof(sig) - o, " -> ");
    is_ok = is_ok && put_list(sig, sizeof(sig), &o, ft->types + ft->param_count, ft->result_count,
                              e->results);
    if (!is_ok)
        return true;
    e->param_count = ft->param_count;
    e->result_count = ft->result_count;
    e->signature = sbx__strdup(sig);
    return e->signature != NULL;
}

void sbx_wasm_imports_free(sbx_wasm_import *list, size_t count)
{
    if (!list)
        return;
    for (size_t i = 0; i < count; i++) {
        sbx__free(list[i].name);
        sbx__free(list[i].signature);
    }
    sbx__free(list);
}

static bool is_capability(const struct wasm_import *imp)
{
    static const char wasi[] = "wasi_snapshot_preview1";
    return imp->kind == WASM_EXTERN_FUNC && !(imp->module_len == sizeof(wasi) - 1 &&
                                              memcmp(imp->module, wasi, sizeof(wasi) - 1) == 0);
}

sbx_err sbx_wasm_module_imports(const uint8_t *bytes, size_t len, sbx_wasm_import **out,
                                size_t *count, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!bytes || !out || !count)
        return SBX_E_INVALID_ARGUMENT;
    *out = NULL;
    *count = 0;
    struct wasm_module *m;
    sbx_err rc = sbx__wasm_module_load(bytes, len, &m, err, errlen);
    if (rc != SBX_OK)
        return rc;
    sbx_wasm_import *list = sbx__calloc(m->import_count ? m->import_count : 1, sizeof(*list));
    size_t n = 0;
    for (uint32_t i = 0; list && i < m->import_count; i++) {
        const struct wasm_import *imp = &m->imports[i];
        if (!is_capability(imp))
            continue;
        if (!describe(imp, &m->types[imp->u.func_type], &list[n++])) {
            sbx_wasm_imports_free(list, n);
            list = NULL;
        }
    }
    sbx__wasm_module_destroy(m);
    if (!list)
        return SBX_E_NOMEM;
    if (n == 0) {
        sbx__free(list);
        list = NULL;
    }
    *out = list;
    *count = n;
    return SBX_OK;
}

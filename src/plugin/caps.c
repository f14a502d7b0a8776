/* plugin/caps.c: capability imports. Every function import outside wasi_snapshot_preview1 is a
 * capability named "module.name"; it links to the embedder's function only when the policy
 * says allow and the embedder registered it. Anything else is denied: a typed stub that counts
 * the denial and returns SBX_WASM_DENIED, or a create failure with deny_at_create. */
#include <stdio.h>
#include <string.h>

#include "plugin/plugin.h"
#include "util/alloc.h"

#define MAX_SIG_VALUES 16

static const char WASI_MODULE[] = "wasi_snapshot_preview1";

static const struct {
    const char *name;
    wasm_vtype type;
} valtypes[] = {{"i32", WASM_I32}, {"i64", WASM_I64}, {"f32", WASM_F32}, {"f64", WASM_F64}};

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Parses one value type at *s into *out; advances *s. */
static bool parse_valtype(const char **s, wasm_vtype *out)
{
    for (size_t i = 0; i < sizeof(valtypes) / sizeof(valtypes[0]); i++) {
        if (strncmp(*s, valtypes[i].name, 3) == 0) {
            *out = valtypes[i].type;
            *s += 3;
            return true;
        }
    }
    return false;
}

/* Parses "(t, t ...)" (commas or blanks between) or a bare "t" into types; returns the count
 * or -1. */
static int parse_list(const char **s, wasm_vtype *types)
{
    const char *p = skip_space(*s);
    int n = 0;
    if (*p != '(') {
        if (!parse_valtype(&p, &types[0]))
            return -1;
        *s = p;
        return 1;
    }
    p = skip_space(p + 1);
    if (*p == ')') {
        *s = p + 1;
        return 0;
    }
    for (;;) {
        if (n == MAX_SIG_VALUES || !parse_valtype(&p, &types[n++]))
            return -1;
        const char *q = skip_space(p);
        if (*q == ')') {
            *s = q + 1;
            return n;
        }
        if (*q == ',')
            p = skip_space(q + 1);
        else if (q != p)
            p = q;
        else
            return -1;
    }
}

bool sbx__plugin_parse_signature(const char *sig, struct wasm_functype *out)
{
    wasm_vtype params[MAX_SIG_VALUES], results[MAX_SIG_VALUES];
    memset(out, 0, sizeof(*out));
    if (!sig)
        return false;
    const char *p = sig;
    int np = parse_list(&p, params);
    if (np < 0)
        return false;
    p = skip_space(p);
    if (strncmp(p, "->", 2) != 0)
        return false;
    p += 2;
    int nr = parse_list(&p, results);
    if (nr < 0 || *skip_space(p) != '\0')
        return false;
    out->types = sbx__mallocn((size_t)np + (size_t)nr + 1, sizeof(*out->types));
    if (!out->types)
        return false;
    memcpy(out->types, params, (size_t)np * sizeof(*params));
    memcpy(out->types + np, results, (size_t)nr * sizeof(*results));
    out->param_count = (uint32_t)np;
    out->result_count = (uint32_t)nr;
    return true;
}

void sbx__plugin_import_name(const struct wasm_import *imp, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s.%.*s", (int)imp->module_len, imp->module, (int)imp->name_len,
             imp->name);
}

static bool is_wasi(const struct wasm_import *imp)
{
    return imp->module_len == sizeof(WASI_MODULE) - 1 &&
           memcmp(imp->module, WASI_MODULE, sizeof(WASI_MODULE) - 1) == 0;
}

static struct sbx__cap_func *find_func(const struct sbx__caps *caps, const char *name)
{
    for (size_t i = 0; i < caps->func_count; i++)
        if (strcmp(caps->funcs[i].name, name) == 0)
            return &caps->funcs[i];
    return NULL;
}

static sbx_err add_func(struct sbx__caps *caps, struct sbx_wasm_sandbox *sb,
                        const struct sbx_policy *policy, const sbx_wasm_host_func *hf, char *err,
                        size_t errlen)
{
    if (!hf->name || !strchr(hf->name, '.') || !hf->fn) {
        snprintf(err, errlen, "host function %s: needs a \"module.name\" and a callback",
                 hf->name ? hf->name : "(null)");
        return SBX_E_INVALID_OPTIONS;
    }
    if (find_func(caps, hf->name)) {
        snprintf(err, errlen, "host function %s: registered twice", hf->name);
        return SBX_E_INVALID_OPTIONS;
    }
    struct sbx__cap_func *f = &caps->funcs[caps->func_count];
    if (!sbx__plugin_parse_signature(hf->signature, &f->type)) {
        snprintf(err, errlen, "host function %s: bad signature \"%s\" (want \"(i32, i64) -> i32\")",
                 hf->name, hf->signature ? hf->signature : "(null)");
        return SBX_E_INVALID_OPTIONS;
    }
    f->name = sbx__strdup(hf->name);
    if (!f->name) {
        sbx__free(f->type.types);
        return SBX_E_NOMEM;
    }
    f->fn = hf->fn;
    f->user = hf->user;
    f->sb = sb;
    f->is_allowed = sbx__policy_capability(policy, hf->name) == SBX_CAP_ALLOW;
    caps->func_count++;
    return SBX_OK;
}

sbx_err sbx__plugin_caps_init(struct sbx__caps *caps, struct sbx_wasm_sandbox *sb,
                              const struct sbx_policy *policy, const sbx_wasm_options *opt,
                              const struct wasm_module *m, char *err, size_t errlen)
{
    memset(caps, 0, sizeof(*caps));
    caps->sb = sb;
    caps->policy = policy;
    size_t n = opt ? opt->host_func_count : 0;
    if (n && !opt->host_funcs) {
        snprintf(err, errlen, "host_func_count is %zu but host_funcs is NULL", n);
        return SBX_E_INVALID_OPTIONS;
    }
    caps->funcs = sbx__calloc(n ? n : 1, sizeof(*caps->funcs));
    caps->stubs = sbx__calloc(m->import_count ? m->import_count : 1, sizeof(*caps->stubs));
    if (!caps->funcs || !caps->stubs)
        return SBX_E_NOMEM;
    caps->stub_count = m->import_count;
    for (size_t i = 0; i < n; i++) {
        sbx_err e = add_func(caps, sb, policy, &opt->host_funcs[i], err, errlen);
        if (e != SBX_OK)
            return e;
    }
    return SBX_OK;
}

/* Decides one non-WASI function import: the registered function when allowed, else NULL.
 * *is_denied is false only for an allowed capability. */
static struct sbx__cap_func *decide(const struct sbx__caps *caps, const struct sbx_policy *policy,
                                    const char *name, bool *is_denied)
{
    struct sbx__cap_func *f = find_func(caps, name);
    bool is_allowed = f ? f->is_allowed : sbx__policy_capability(policy, name) == SBX_CAP_ALLOW;
    *is_denied = !is_allowed;
    return is_allowed ? f : NULL;
}

const struct wasm_import *sbx__plugin_caps_first_denied(const struct sbx__caps *caps,
                                                        const struct sbx_policy *policy,
                                                        const struct wasm_module *m)
{
    char name[256];
    for (uint32_t i = 0; i < m->import_count; i++) {
        const struct wasm_import *imp = &m->imports[i];
        if (imp->kind != WASM_EXTERN_FUNC || is_wasi(imp))
            continue;
        sbx__plugin_import_name(imp, name, sizeof(name));
        bool is_denied;
        decide(caps, policy, name, &is_denied);
        if (is_denied)
            return imp;
    }
    return NULL;
}

static int call_allowed(struct wasm_call *call, void *user, const wasm_value *args,
                        wasm_value *results)
{
    return sbx__plugin_call_host(user, call, args, results);
}

static int call_denied(struct wasm_call *call, void *user, const wasm_value *args,
                       wasm_value *results)
{
    (void)call;
    (void)args;
    struct sbx__cap_stub *s = user;
    char label[300];
    snprintf(label, sizeof(label), "cap:%s", s->name);
    sbx__plugin_denied(s->sb, label);
    for (uint32_t i = 0; i < s->type->result_count; i++) {
        wasm_vtype t = s->type->types[s->type->param_count + i];
        memset(&results[i], 0, sizeof(results[i]));
        if (t == WASM_I32)
            results[i].i32 = (uint32_t)SBX_WASM_DENIED;
        else if (t == WASM_I64)
            results[i].i64 = (uint64_t)(int64_t)SBX_WASM_DENIED;
    }
    return 0;
}

static bool link_stub(struct sbx__caps *caps, struct wasm_store *store, const struct wasm_module *m,
                      const struct wasm_import *imp, const char *name, struct wasm_extern *out)
{
    size_t idx = (size_t)(imp - m->imports);
    if (idx >= caps->stub_count)
        return false;
    struct sbx__cap_stub *s = &caps->stubs[idx];
    if (!s->name && !(s->name = sbx__strdup(name)))
        return false;
    s->type = &m->types[imp->u.func_type];
    s->sb = caps->sb;
    out->kind = WASM_EXTERN_FUNC;
    out->u.func = sbx__wasm_func_new_host(store, s->type, call_denied, s);
    return out->u.func != NULL;
}

bool sbx__plugin_caps_resolve(struct sbx__caps *caps, struct wasm_store *store,
                              const struct wasm_module *m, const struct wasm_import *imp,
                              struct wasm_extern *out)
{
    if (imp->kind != WASM_EXTERN_FUNC || is_wasi(imp))
        return false;
    char name[256];
    sbx__plugin_import_name(imp, name, sizeof(name));
    bool is_denied;
    struct sbx__cap_func *f = decide(caps, caps->policy, name, &is_denied);
    if (is_denied)
        return link_stub(caps, store, m, imp, name, out);
    if (!f)
        return false; /* allowed, but the embedder offers no such function: a link error */
    out->kind = WASM_EXTERN_FUNC;
    out->u.func = sbx__wasm_func_new_host(store, &f->type, call_allowed, f);
    return out->u.func != NULL;
}

void sbx__plugin_caps_free(struct sbx__caps *caps)
{
    for (size_t i = 0; i < caps->func_count; i++) {
        sbx__free(caps->funcs[i].name);
        sbx__free(caps->funcs[i].type.types);
    }
    for (size_t i = 0; i < caps->stub_count; i++)
        sbx__free(caps->stubs[i].name);
    sbx__free(caps->funcs);
    sbx__free(caps->stubs);
    memset(caps, 0, sizeof(*caps));
}

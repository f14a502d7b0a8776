/* wasi/ctx.c: a WASI context: creation from the config and policy, the import table the
 * engine links against, denials and interruption. One row per host function: name, wasm
 * signature, implementation; the engine checks an import's type against the row's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "wasi/internal.h"

struct wasi_row {
    const char *name;
    const char *params; /* 'i' = i32, 'I' = i64 */
    bool has_result;    /* an i32 errno */
    wasi_fn fn;
};

struct wasi_binding {
    struct sbx__wasi *w;
    const struct wasi_row *row;
};

#define ROW(n, p)                                                                                  \
    {                                                                                              \
#n, p, true, sbx__wasi_##n                                                                 \
    }
static const struct wasi_row rows[] = {
    ROW(args_get, "ii"),
    ROW(args_sizes_get, "ii"),
    ROW(environ_get, "ii"),
    ROW(environ_sizes_get, "ii"),
    ROW(clock_res_get, "ii"),
    ROW(clock_time_get, "iIi"),
    ROW(fd_advise, "iIIi"),
    ROW(fd_allocate, "iII"),
    ROW(fd_close, "i"),
    ROW(fd_datasync, "i"),
    ROW(fd_fdstat_get, "ii"),
    ROW(fd_fdstat_set_flags, "ii"),
    ROW(fd_fdstat_set_rights, "iII"),
    ROW(fd_filestat_get, "ii"),
    ROW(fd_filestat_set_size, "iI"),
    ROW(fd_filestat_set_times, "iIIi"),
    ROW(fd_pread, "iiiIi"),
    ROW(fd_prestat_get, "ii"),
    ROW(fd_prestat_dir_name, "iii"),
    ROW(fd_pwrite, "iiiIi"),
    ROW(fd_read, "iiii"),
    ROW(fd_readdir, "iiiIi"),
    ROW(fd_renumber, "ii"),
    ROW(fd_seek, "iIii"),
    ROW(fd_sync, "i"),
    ROW(fd_tell, "ii"),
    ROW(fd_write, "iiii"),
    ROW(path_create_directory, "iii"),
    ROW(path_filestat_get, "iiiii"),
    ROW(path_filestat_set_times, "iiiiIIi"),
    ROW(path_link, "iiiiiii"),
    ROW(path_open, "iiiiiIIii"),
    ROW(path_readlink, "iiiiii"),
    ROW(path_remove_directory, "iii"),
    ROW(path_rename, "iiiiii"),
    ROW(path_symlink, "iiiii"),
    ROW(path_unlink_file, "iii"),
    ROW(poll_oneoff, "iiii"),
    {"proc_exit", "i", false, sbx__wasi_proc_exit},
    ROW(proc_raise, "i"),
    ROW(sched_yield, ""),
    ROW(random_get, "ii"),
    ROW(sock_accept, "iii"),
    ROW(sock_recv, "iiiiii"),
    ROW(sock_send, "iiiii"),
    ROW(sock_shutdown, "ii"),
    /* the socket extension, in the shape of WasmEdge's */
    {"sock_accept", "ii", true, sbx__wasi_sock_accept_v1},
    ROW(sock_open, "iii"),
    ROW(sock_bind, "iii"),
    ROW(sock_listen, "ii"),
    ROW(sock_connect, "iii"),
    ROW(sock_addr_resolve, "iiiiii"),
    ROW(sock_getlocaladdr, "iii"),
    ROW(sock_getpeeraddr, "iii"),
    ROW(sock_setsockopt, "iiiii"),
    ROW(sock_getsockopt, "iiiii"),
};
#undef ROW
#define ROW_COUNT (sizeof(rows) / sizeof(rows[0]))

void sbx__wasi_deny(struct sbx__wasi *w, const char *capability)
{
    atomic_fetch_add(&w->denied, 1);
    if (w->on_denied)
        w->on_denied(w->user, capability);
}

void sbx__wasi_take_denials(struct sbx__wasi *w, sbx_result *out)
{
    sbx__denials_move(&w->net_denials, out);
}

uint64_t sbx__wasi_denied_count(const struct sbx__wasi *w)
{
    return atomic_load(&((struct sbx__wasi *)w)->denied);
}

void sbx__wasi_interrupt(struct sbx__wasi *w)
{
    if (!w)
        return;
    atomic_store(&w->is_interrupted, true);
    uint64_t one = 1;
    if (w->wake_fd >= 0 && write(w->wake_fd, &one, sizeof(one)) < 0) {
        /* the counter is already non-zero: the fd stays readable */
    }
}

void sbx__wasi_clear_interrupt(struct sbx__wasi *w)
{
    if (!w)
        return;
    uint64_t n;
    if (w->wake_fd >= 0 && read(w->wake_fd, &n, sizeof(n)) < 0) {
        /* EAGAIN: nothing was pending */
    }
    atomic_store(&w->is_interrupted, false);
}

static int host_entry(struct wasm_call *call, void *user, const wasm_value *args,
                      wasm_value *results)
{
    const struct wasi_binding *b = user;
    struct wasi_env e = {.w = b->w, .call = call, .mem = sbx__wasm_call_memory(call)};
    uint32_t r = b->row->fn(&e, args);
    if (r == WASI_TRAPPED)
        return -1;
    if (b->row->has_result)
        results[0].i32 = r;
    return 0;
}

static const struct wasi_row *find_row(const struct wasm_module *m, const struct wasm_import *imp)
{
    static const char modname[] = "wasi_snapshot_preview1";
    if (imp->kind != WASM_EXTERN_FUNC || imp->module_len != sizeof(modname) - 1 ||
        memcmp(imp->module, modname, sizeof(modname) - 1) != 0)
        return NULL;
    uint32_t want_params = UINT32_MAX;
    if (m && imp->u.func_type < m->type_count)
        want_params = m->types[imp->u.func_type].param_count;
    const struct wasi_row *first = NULL;
    for (size_t i = 0; i < ROW_COUNT; i++) {
        if (strlen(rows[i].name) != imp->name_len ||
            memcmp(rows[i].name, imp->name, imp->name_len) != 0)
            continue;
        if (strlen(rows[i].params) == want_params)
            return &rows[i];
        if (!first)
            first = &rows[i];
    }
    return first; /* a type mismatch: the engine reports it */
}

bool sbx__wasi_resolve(struct sbx__wasi *w, struct wasm_store *store, const struct wasm_module *m,
                       const struct wasm_import *imp, struct wasm_extern *out)
{
    const struct wasi_row *row = find_row(m, imp);
    if (!row)
        return false;
    wasm_vtype types[16];
    uint32_t np = (uint32_t)strlen(row->params);
    for (uint32_t i = 0; i < np; i++)
        types[i] = row->params[i] == 'I' ? WASM_I64 : WASM_I32;
    types[np] = WASM_I32;
    struct wasm_functype ft = {
        .param_count = np, .result_count = row->has_result ? 1u : 0u, .types = types};
    struct wasi_binding *b = &w->bindings[row - rows];
    b->w = w;
    b->row = row;
    struct wasm_func *f = sbx__wasm_func_new_host(store, &ft, host_entry, b);
    if (!f)
        return false;
    out->kind = WASM_EXTERN_FUNC;
    out->u.func = f;
    return true;
}

static char **copy_strings(const char *const *src, size_t n)
{
    char **dst = sbx__calloc(n + 1, sizeof(*dst));
    for (size_t i = 0; dst && i < n; i++) {
        dst[i] = sbx__strdup(src[i] ? src[i] : "");
        if (!dst[i]) {
            for (size_t k = 0; k < i; k++)
                sbx__free(dst[k]);
            sbx__free(dst);
            return NULL;
        }
    }
    return dst;
}

static void free_strings(char **s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        sbx__free(s[i]);
    sbx__free(s);
}

/* The guest environment: cfg->envp, else policy.env as "K=V". */
static bool setup_env(struct sbx__wasi *w, const struct sbx__wasi_config *cfg)
{
    if (cfg->envp || !cfg->policy) {
        w->envc = (uint32_t)cfg->envc;
        w->env = copy_strings(cfg->envp, cfg->envp ? cfg->envc : 0);
        return w->env != NULL;
    }
    size_t n = cfg->policy->env_count;
    w->env = sbx__calloc(n + 1, sizeof(char *));
    if (!w->env)
        return false;
    for (size_t i = 0; i < n; i++) {
        const struct sbx__env_var *v = &cfg->policy->env[i];
        size_t kl = strlen(v->name), vl = strlen(v->value);
        char *s = sbx__mallocn(kl + vl + 2, 1);
        if (!s)
            return false;
        memcpy(s, v->name, kl);
        s[kl] = '=';
        memcpy(s + kl + 1, v->value, vl + 1);
        w->env[w->envc++] = s;
    }
    return true;
}

static uint32_t add_fd(struct sbx__wasi *w, struct wasi_fd **out)
{
    uint32_t num = 0, err = WASI_EBADF;
    *out = sbx__wasi_fd_alloc(w, &num, &err);
    return *out ? WASI_ESUCCESS : err;
}

/* Slots 0-2 exist before any preopen, so fill them in place. */
static void setup_stdio(struct sbx__wasi *w, const struct sbx__wasi_config *cfg)
{
    for (int i = 0; i < 3; i++) {
        struct wasi_fd *f = &w->fds[i];
        memset(f, 0, sizeof(*f));
        f->host_fd = -1;
        if (cfg->inherit_stdio) {
            struct stat st;
            f->kind = FDK_HOST;
            f->host_fd = i;
            f->is_borrowed = true;
            f->filetype = isatty(i)            ? (uint8_t)FT_CHAR
                          : fstat(i, &st) == 0 ? sbx__wasi_filetype_of_mode(st.st_mode)
                                               : (uint8_t)FT_UNKNOWN;
        } else {
            f->kind = i == 0 ? FDK_STDIN_BUF : FDK_OUT_BUF;
            f->out = i == 1 ? cfg->stdout_buf : i == 2 ? cfg->stderr_buf : NULL;
            f->filetype = FT_UNKNOWN;
        }
        sbx__wasi_rights_for(f->filetype, false, &f->base, &f->inheriting);
        f->base &= ~(uint64_t)(i == 0 ? R_FD_WRITE : R_FD_READ);
        if (i > 0 && f->filetype != FT_REG)
            f->fdflags = FDF_APPEND;
    }
}

static sbx_err open_preopen(struct sbx__wasi *w, const sbx_preopen *p, char *err, size_t errlen)
{
    int fd;
    sbx_err rc = sbx__wasi_preopen_open(p, &fd, err, errlen);
    if (rc)
        return rc;
    struct wasi_fd *f;
    if (add_fd(w, &f) != WASI_ESUCCESS) {
        close(fd);
        return SBX_E_NOMEM;
    }
    f->kind = FDK_HOST;
    f->host_fd = fd;
    f->filetype = FT_DIR;
    f->is_read_only = !p->is_writable;
    f->preopen_name = sbx__strdup(p->guest_path);
    sbx__wasi_rights_for(FT_DIR, f->is_read_only, &f->base, &f->inheriting);
    return f->preopen_name ? SBX_OK : SBX_E_NOMEM;
}

static sbx_err setup_preopens(struct sbx__wasi *w, const struct sbx_policy *policy, char *err,
                              size_t errlen)
{
    sbx_preopen *list;
    size_t count;
    sbx_err rc = sbx__wasi_preopens_build(policy, &list, &count);
    for (size_t i = 0; rc == SBX_OK && i < count; i++)
        rc = open_preopen(w, &list[i], err, errlen);
    sbx__wasi_preopens_free(list, count);
    return rc;
}

static bool use_outbound(struct sbx__wasi *w, const struct sbx_policy *policy)
{
    if (!policy)
        return true;
    w->net_loopback = policy->net_loopback;
    w->outbound = policy->outbound;
    w->outbound_count = policy->outbound_count;
    return true;
}

static sbx_err create_parts(struct sbx__wasi *w, const struct sbx__wasi_config *cfg, char *err,
                            size_t errlen)
{
    w->argc = (uint32_t)(cfg->argv ? cfg->argc : 0);
    w->args = copy_strings(cfg->argv, w->argc);
    if (!w->args || !setup_env(w, cfg) || !use_outbound(w, cfg->policy))
        return SBX_E_NOMEM;
    w->bindings = sbx__calloc(ROW_COUNT, sizeof(*w->bindings));
    w->fds = sbx__calloc(16, sizeof(*w->fds));
    if (!w->bindings || !w->fds)
        return SBX_E_NOMEM;
    w->fd_cap = 16;
    for (uint32_t i = 0; i < w->fd_cap; i++)
        w->fds[i].host_fd = -1;
    setup_stdio(w, cfg);
    if (cfg->stdin_len) {
        w->stdin_data = sbx__mallocn(cfg->stdin_len, 1);
        if (!w->stdin_data)
            return SBX_E_NOMEM;
        memcpy(w->stdin_data, cfg->stdin_data, cfg->stdin_len);
        w->stdin_len = cfg->stdin_len;
    }
    return setup_preopens(w, cfg->policy, err, errlen);
}

sbx_err sbx__wasi_create(const struct sbx__wasi_config *cfg, struct sbx__wasi **out, char *err,
                         size_t errlen)
{
    *out = NULL;
    if (errlen)
        err[0] = '\0';
    struct sbx__wasi *w = sbx__calloc(1, sizeof(*w));
    if (!w) {
        if (errlen)
            snprintf(err, errlen, "out of memory");
        return SBX_E_NOMEM;
    }
    w->on_denied = cfg->on_denied;
    w->user = cfg->user;
    w->resolver = cfg->resolver;
    w->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    sbx_err rc = w->wake_fd < 0 ? SBX_E_IO : create_parts(w, cfg, err, errlen);
    if (rc != SBX_OK) {
        if (rc == SBX_E_NOMEM && errlen && !err[0])
            snprintf(err, errlen, "out of memory");
        sbx__wasi_destroy(w);
        return rc;
    }
    *out = w;
    return SBX_OK;
}

void sbx__wasi_destroy(struct sbx__wasi *w)
{
    if (!w)
        return;
    sbx__wasi_fd_table_free(w);
    free_strings(w->args, w->argc);
    free_strings(w->env, w->envc);
    sbx__wasi_sock_names_free(w);
    sbx__denials_free(&w->net_denials);
    sbx__free(w->stdin_data);
    sbx__free(w->bindings);
    if (w->wake_fd >= 0)
        close(w->wake_fd);
    sbx__free(w);
}

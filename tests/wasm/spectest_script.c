/* tests/wasm/spectest_script.c: runs one wast2json script in one store: modules (named and
 * registered for linking), actions and every assertion kind. Each command is watched by an
 * interval timer that interrupts the store, so a runaway guest fails one command, not the run. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "file.h"
#include "spectest.h"
#include "wasm/gc.h"
#include "wasm/jit/jit.h"

struct binding {
    char *name;
    size_t name_len;
    struct wasm_instance *inst;
    const struct wasm_module *mod; /* definitions only */
};

struct script {
    const struct script_opts *opts;
    const struct script_sink *sink;
    char dir[PATH_MAX];
    struct wasm_store *store;
    struct spectest_host host;
    struct wasm_module **mods; /* destroyed after the store */
    size_t mod_count;
    struct binding *names; /* "$name" of module commands */
    size_t name_count;
    struct binding *regs; /* `register`ed names, for imports */
    size_t reg_count;
    struct binding *defs; /* "$name" of module_definition commands ("" for none) */
    size_t def_count;
    struct wasm_instance *current;
    enum owner current_owner; /* who broke the last module, when current is NULL */
    unsigned passed, failed, skipped;
};

/* The outcome of one command. */
struct outcome {
    bool ok;
    enum owner owner;
    char why[640];
};

static struct wasm_store *volatile watched_store;
static volatile sig_atomic_t alarm_count;

static void on_alarm(int sig)
{
    (void)sig;
    if (++alarm_count > 1) {
        static const char msg[] = "sbx-spectest: a command ignored its interrupt; giving up\n";
        ssize_t rc = write(2, msg, sizeof(msg) - 1);
        (void)rc;
        _exit(3);
    }
    if (watched_store)
        sbx__wasm_store_interrupt(watched_store);
}

/* Interrupts the store after secs, and ends the process if the command still runs 5 s later
 * (a host-side hang, e.g. in the decoder, cannot be interrupted). */
static void watch(struct script *sc, bool on)
{
    struct itimerval it;
    memset(&it, 0, sizeof(it));
    if (on) {
        alarm_count = 0;
        watched_store = sc->store;
        it.it_value.tv_sec = sc->opts->command_timeout_s;
        it.it_interval.tv_sec = 5;
    }
    setitimer(ITIMER_REAL, &it, NULL);
    if (!on)
        sbx__wasm_store_clear_interrupt(sc->store);
}

static void fail(struct outcome *o, enum owner owner, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(struct outcome *o, enum owner owner, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    o->ok = false;
    o->owner = owner;
    vsnprintf(o->why, sizeof(o->why), fmt, ap);
    va_end(ap);
}

static bool push_binding(struct binding **arr, size_t *count, const char *name, size_t len,
                         struct wasm_instance *inst)
{
    struct binding *b = realloc(*arr, (*count + 1) * sizeof(**arr));
    if (!b)
        return false;
    *arr = b;
    b[*count].name = malloc(len + 1);
    if (!b[*count].name)
        return false;
    memcpy(b[*count].name, name, len);
    b[*count].name[len] = '\0';
    b[*count].name_len = len;
    b[*count].inst = inst;
    b[*count].mod = NULL;
    (*count)++;
    return true;
}

/* The latest binding wins: scripts may reuse a name. */
static struct wasm_instance *find_binding(const struct binding *arr, size_t count, const char *name,
                                          size_t len)
{
    for (size_t i = count; i-- > 0;) {
        if (arr[i].name_len == len && memcmp(arr[i].name, name, len) == 0)
            return arr[i].inst;
    }
    return NULL;
}

static bool resolve(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    struct script *sc = user;
    if (imp->module_len == 8 && memcmp(imp->module, "spectest", 8) == 0)
        return spectest_host_lookup(&sc->host, imp->name, imp->name_len, out);
    struct wasm_instance *inst =
        find_binding(sc->regs, sc->reg_count, imp->module, imp->module_len);
    return inst && sbx__wasm_instance_export(inst, imp->name, imp->name_len, out);
}

/* Loads cmd's module file. On success the module is kept until the script ends. */
static sbx_err load(struct script *sc, json_t *cmd, struct wasm_module **out, char *err,
                    size_t errlen)
{
    const char *file = json_string_value(json_object_get(cmd, "filename"));
    char path[PATH_MAX + 256];
    uint8_t *bytes;
    size_t len;
    *out = NULL;
    snprintf(path, sizeof(path), "%s/%s", sc->dir, file ? file : "");
    if (!file || !(bytes = sbx_test_read_file(path, &len))) {
        snprintf(err, errlen, "cannot read %.400s", path);
        return SBX_E_IO;
    }
    sbx_err rc = sbx__wasm_module_load(bytes, len, out, err, errlen);
    free(bytes);
    if (rc != SBX_OK)
        return rc;
    struct wasm_module **mods = realloc(sc->mods, (sc->mod_count + 1) * sizeof(*mods));
    if (!mods) {
        sbx__wasm_module_destroy(*out);
        *out = NULL;
        snprintf(err, errlen, "out of memory");
        return SBX_E_NOMEM;
    }
    sc->mods = mods;
    sc->mods[sc->mod_count++] = *out;
    return SBX_OK;
}

/* Copies a name for messages: at most 60 bytes, unprintable bytes as '?'. */
static const char *printable(char *dst, size_t dstlen, const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; s && i < len && i < 60 && n + 1 < dstlen; i++)
        dst[n++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    dst[n] = '\0';
    return dst;
}

struct call_result {
    sbx_err rc;
    struct wasm_trap trap;
    uint32_t count;
    const wasm_vtype *types;
    wasm_value *vals;
};

static struct wasm_instance *action_instance(struct script *sc, json_t *action, struct outcome *o)
{
    json_t *mod = json_object_get(action, "module");
    struct wasm_instance *inst = sc->current;
    char buf[64];
    if (mod)
        inst = find_binding(sc->names, sc->name_count, json_string_value(mod),
                            json_string_length(mod));
    if (!inst)
        fail(o, sc->current_owner, "no instance of module %s (it failed earlier)",
             mod ? printable(buf, sizeof(buf), json_string_value(mod), json_string_length(mod))
                 : "(current)");
    return inst;
}

static bool parse_args(struct script *sc, json_t *args, const struct wasm_functype *ft,
                       wasm_value *argv, struct outcome *o)
{
    if (json_array_size(args) != ft->param_count) {
        fail(o, OWNER_UNKNOWN, "%zu arguments given, the function takes %u", json_array_size(args),
             ft->param_count);
        return false;
    }
    for (uint32_t i = 0; i < ft->param_count; i++) {
        wasm_vtype type;
        if (!spectest_parse_value(json_array_get(args, i), &type, &argv[i], o->why,
                                  sizeof(o->why))) {
            fail(o, OWNER_UNKNOWN, "argument %u: %s", i, o->why);
            return false;
        }
        /* a reference fits any reference parameter: the scripts pass the right kinds */
        if (type == WASM_REF(1, WASM_HT_ANY) && argv[i].ref) { /* ref.host N: boxed, as */
            enum wasm_trap_kind tk = WASM_TRAP_NONE;           /* any.convert_extern does */
            argv[i].i64 = sbx__wasm_gc_internalize(sc->store, argv[i].i64, &tk);
        }
        if (type != ft->types[i] && !(wasm_vtype_is_ref(type) && wasm_vtype_is_ref(ft->types[i]))) {
            fail(o, OWNER_RUNTIME, "argument %u is a %s, the function takes a %s", i,
                 spectest_type_name(type), spectest_type_name(ft->types[i]));
            return false;
        }
    }
    return true;
}

static bool invoke(struct script *sc, struct wasm_instance *inst, json_t *action,
                   struct call_result *r, struct outcome *o)
{
    json_t *field = json_object_get(action, "field");
    struct wasm_extern ext;
    char buf[64];
    if (!sbx__wasm_instance_export(inst, json_string_value(field), json_string_length(field),
                                   &ext) ||
        ext.kind != WASM_EXTERN_FUNC) {
        fail(o, OWNER_RUNTIME, "no exported function \"%s\"",
             printable(buf, sizeof(buf), json_string_value(field), json_string_length(field)));
        return false;
    }
    const struct wasm_functype *ft = sbx__wasm_func_type(ext.u.func);
    wasm_value *argv = calloc((size_t)ft->param_count + 1, sizeof(*argv));
    r->vals = calloc((size_t)ft->result_count + 1, sizeof(*r->vals));
    bool ok = argv && r->vals && parse_args(sc, json_object_get(action, "args"), ft, argv, o);
    if (ok) {
        watch(sc, true);
        r->rc = sbx__wasm_func_call(sc->store, ext.u.func, argv, r->vals, &r->trap);
        watch(sc, false);
        r->count = ft->result_count;
        r->types = ft->types + ft->param_count;
    }
    free(argv);
    return ok;
}

static bool get_global(struct wasm_instance *inst, json_t *action, struct call_result *r,
                       struct outcome *o)
{
    json_t *field = json_object_get(action, "field");
    struct wasm_extern ext;
    char buf[64];
    if (!sbx__wasm_instance_export(inst, json_string_value(field), json_string_length(field),
                                   &ext) ||
        ext.kind != WASM_EXTERN_GLOBAL) {
        fail(o, OWNER_RUNTIME, "no exported global \"%s\"",
             printable(buf, sizeof(buf), json_string_value(field), json_string_length(field)));
        return false;
    }
    r->vals = calloc(1, sizeof(*r->vals));
    if (!r->vals)
        return false;
    r->vals[0] = sbx__wasm_global_get(ext.u.global);
    r->types = &sbx__wasm_global_type(ext.u.global)->type;
    r->count = 1;
    r->rc = SBX_OK;
    return true;
}

/* Runs cmd's action; false (with o filled) if it could not be run at all. */
static bool run_action(struct script *sc, json_t *cmd, struct call_result *r, struct outcome *o)
{
    json_t *action = json_object_get(cmd, "action");
    const char *type = json_string_value(json_object_get(action, "type"));
    memset(r, 0, sizeof(*r));
    struct wasm_instance *inst = action_instance(sc, action, o);
    if (!inst)
        return false;
    if (type && strcmp(type, "invoke") == 0)
        return invoke(sc, inst, action, r, o);
    if (type && strcmp(type, "get") == 0)
        return get_global(inst, action, r, o);
    fail(o, OWNER_UNKNOWN, "unknown action type %s", type ? type : "?");
    return false;
}

static const char *call_failure(const struct call_result *r, char *buf, size_t len,
                                unsigned timeout_s)
{
    if (r->rc != SBX_E_WASM_TRAP)
        snprintf(buf, len, "call failed: %s", sbx_err_name(r->rc));
    else if (r->trap.kind == WASM_TRAP_INTERRUPTED)
        snprintf(buf, len, "timed out after %u s", timeout_s);
    else
        snprintf(buf, len, "trapped: %s", r->trap.message);
    return buf;
}

static void check_return(struct script *sc, json_t *cmd, const struct call_result *r,
                         struct outcome *o)
{
    json_t *expected = json_object_get(cmd, "expected");
    char buf[320];
    if (r->rc != SBX_OK) {
        fail(o, OWNER_INTERP, "%s", call_failure(r, buf, sizeof(buf), sc->opts->command_timeout_s));
        return;
    }
    if (json_array_size(expected) != r->count) {
        fail(o, OWNER_UNKNOWN, "%zu results expected, the function returns %u",
             json_array_size(expected), r->count);
        return;
    }
    for (uint32_t i = 0; i < r->count; i++) {
        json_t *ex = json_array_get(expected, i);
        const char *type = json_string_value(json_object_get(ex, "type"));
        json_t *alts = json_object_get(ex, "values");
        bool is_either = type && strcmp(type, "either") == 0 && json_is_array(alts);
        size_t n = is_either ? json_array_size(alts) : 1, k = 0;
        bool is_match = false;
        for (; k < n && !is_match; k++) { /* either: any one alternative may match */
            struct expect e;
            if (!spectest_parse_expect(is_either ? json_array_get(alts, k) : ex, &e, buf,
                                       sizeof(buf))) {
                fail(o, OWNER_UNKNOWN, "result %u: %s", i, buf);
                return;
            }
            is_match = spectest_match(&e, r->types[i], r->vals[i], buf, sizeof(buf));
        }
        if (!is_match) {
            fail(o, OWNER_INTERP, "result %u: %s%s", i, buf, n > 1 ? " (nor the others)" : "");
            return;
        }
    }
}

/* A trap matches when its kind's text starts the expected text ("uninitialized element 2")
 * or its message starts with the expected text. */
static bool trap_matches(const struct wasm_trap *t, const char *text)
{
    const char *kind = sbx__wasm_trap_text(t->kind);
    size_t kl = strlen(kind);
    if (!text)
        return true;
    return (kl && strncmp(text, kind, kl) == 0) || strncmp(t->message, text, strlen(text)) == 0;
}

static void check_trap(struct script *sc, json_t *cmd, const struct call_result *r,
                       struct outcome *o, bool exhaustion)
{
    const char *text = json_string_value(json_object_get(cmd, "text"));
    char buf[320];
    if (r->rc == SBX_OK) {
        fail(o, OWNER_INTERP, "returned, expected trap \"%s\"", text ? text : "");
        return;
    }
    bool ok = r->rc == SBX_E_WASM_TRAP && (exhaustion ? r->trap.kind == WASM_TRAP_STACK_EXHAUSTED
                                                      : trap_matches(&r->trap, text));
    if (!ok)
        fail(o, OWNER_INTERP, "expected trap \"%s\", %s", text ? text : "",
             call_failure(r, buf, sizeof(buf), sc->opts->command_timeout_s));
}

/* assert_exception: the call ends with an exception no handler caught. */
static void check_exception(struct script *sc, const struct call_result *r, struct outcome *o)
{
    char buf[320];
    if (r->rc == SBX_OK)
        fail(o, OWNER_INTERP, "returned, expected an uncaught exception");
    else if (r->rc != SBX_E_WASM_TRAP || r->trap.kind != WASM_TRAP_EXCEPTION)
        fail(o, OWNER_INTERP, "expected an uncaught exception, %s",
             call_failure(r, buf, sizeof(buf), sc->opts->command_timeout_s));
}

static void cmd_module(struct script *sc, json_t *cmd, struct outcome *o)
{
    char err[512] = "";
    struct wasm_module *m;
    struct wasm_instance *inst = NULL;
    struct wasm_trap trap;
    sc->current = NULL;
    watch(sc, true);
    sbx_err load_rc = load(sc, cmd, &m, err, sizeof(err)), rc = load_rc;
    if (rc == SBX_OK)
        rc = sbx__wasm_instantiate(sc->store, m, resolve, sc, &inst, &trap, err, sizeof(err));
    watch(sc, false);
    if (rc != SBX_OK) {
        enum owner owner = load_rc != SBX_OK       ? OWNER_DECODER
                           : rc == SBX_E_WASM_TRAP ? OWNER_INTERP
                                                   : OWNER_RUNTIME;
        fail(o, owner, "module %s: %s: %s", load_rc != SBX_OK ? "load" : "instantiation",
             sbx_err_name(rc), err);
        sc->current_owner = owner;
        return;
    }
    sc->current = inst;
    json_t *name = json_object_get(cmd, "name");
    if (name && !push_binding(&sc->names, &sc->name_count, json_string_value(name),
                              json_string_length(name), inst))
        fail(o, OWNER_UNKNOWN, "out of memory");
}

/* module_definition: decode and validate only; instances come from module_instance. */
static void cmd_definition(struct script *sc, json_t *cmd, struct outcome *o)
{
    char err[512] = "";
    struct wasm_module *m;
    json_t *name = json_object_get(cmd, "name");
    watch(sc, true);
    sbx_err rc = load(sc, cmd, &m, err, sizeof(err));
    watch(sc, false);
    if (rc != SBX_OK) {
        fail(o, OWNER_DECODER, "module definition: %s: %s", sbx_err_name(rc), err);
        return;
    }
    if (!push_binding(&sc->defs, &sc->def_count, name ? json_string_value(name) : "",
                      name ? json_string_length(name) : 0, NULL)) {
        fail(o, OWNER_UNKNOWN, "out of memory");
        return;
    }
    sc->defs[sc->def_count - 1].mod = m;
}

/* module_instance: instantiates a definition (the latest one when unnamed), bound to its
 * instance name, and makes it the current instance, as the reference interpreter does. */
static void cmd_instance(struct script *sc, json_t *cmd, struct outcome *o)
{
    json_t *mod = json_object_get(cmd, "module"), *name = json_object_get(cmd, "instance");
    const struct wasm_module *m = NULL;
    for (size_t i = sc->def_count; i-- > 0 && !m;)
        if (!mod || (sc->defs[i].name_len == json_string_length(mod) &&
                     memcmp(sc->defs[i].name, json_string_value(mod), sc->defs[i].name_len) == 0))
            m = sc->defs[i].mod;
    sc->current = NULL;
    if (!m) {
        fail(o, OWNER_DECODER, "module_instance: no such definition");
        return;
    }
    char err[512] = "";
    struct wasm_instance *inst = NULL;
    struct wasm_trap trap;
    watch(sc, true);
    sbx_err rc = sbx__wasm_instantiate(sc->store, m, resolve, sc, &inst, &trap, err, sizeof(err));
    watch(sc, false);
    if (rc != SBX_OK) {
        sc->current_owner = rc == SBX_E_WASM_TRAP ? OWNER_INTERP : OWNER_RUNTIME;
        fail(o, sc->current_owner, "module instance: %s: %s", sbx_err_name(rc), err);
        return;
    }
    sc->current = inst;
    if (name && !push_binding(&sc->names, &sc->name_count, json_string_value(name),
                              json_string_length(name), inst))
        fail(o, OWNER_UNKNOWN, "out of memory");
}

static void cmd_register(struct script *sc, json_t *cmd, struct outcome *o)
{
    json_t *name = json_object_get(cmd, "name"), *as = json_object_get(cmd, "as");
    struct wasm_instance *inst = sc->current;
    if (name)
        inst = find_binding(sc->names, sc->name_count, json_string_value(name),
                            json_string_length(name));
    if (!inst) {
        fail(o, sc->current_owner, "register: the module to register failed earlier");
        return;
    }
    if (!json_is_string(as) || !push_binding(&sc->regs, &sc->reg_count, json_string_value(as),
                                             json_string_length(as), inst))
        fail(o, OWNER_UNKNOWN, "register: bad \"as\" or out of memory");
}

static void cmd_action(struct script *sc, json_t *cmd, const char *type, struct outcome *o)
{
    struct call_result r;
    char buf[320];
    if (run_action(sc, cmd, &r, o)) {
        if (strcmp(type, "assert_return") == 0)
            check_return(sc, cmd, &r, o);
        else if (strcmp(type, "assert_trap") == 0)
            check_trap(sc, cmd, &r, o, false);
        else if (strcmp(type, "assert_exhaustion") == 0)
            check_trap(sc, cmd, &r, o, true);
        else if (strcmp(type, "assert_exception") == 0)
            check_exception(sc, &r, o);
        else if (r.rc != SBX_OK)
            fail(o, OWNER_INTERP, "%s",
                 call_failure(&r, buf, sizeof(buf), sc->opts->command_timeout_s));
    }
    free(r.vals);
}

/* assert_invalid / assert_malformed: loading must fail, and say which of the two it is. */
static void cmd_rejected(struct script *sc, json_t *cmd, const char *want, struct outcome *o)
{
    const char *text = json_string_value(json_object_get(cmd, "text"));
    char err[512] = "";
    struct wasm_module *m;
    watch(sc, true);
    sbx_err rc = load(sc, cmd, &m, err, sizeof(err));
    watch(sc, false);
    if (rc == SBX_OK)
        fail(o, OWNER_DECODER, "module loaded, expected %s (%s)", want, text ? text : "");
    else if (rc == SBX_E_IO)
        fail(o, OWNER_UNKNOWN, "%s", err);
    else if (strncmp(err, want, strlen(want)) != 0)
        fail(o, OWNER_DECODER, "expected %s (%s), got \"%s\"", want, text ? text : "", err);
}

/* assert_unlinkable / assert_uninstantiable (and assert_trap on a module): the module loads,
 * its instantiation fails the expected way. */
static void cmd_no_instance(struct script *sc, json_t *cmd, bool is_link, struct outcome *o)
{
    const char *text = json_string_value(json_object_get(cmd, "text"));
    char err[512] = "";
    struct wasm_module *m;
    struct wasm_instance *inst = NULL;
    struct wasm_trap trap;
    memset(&trap, 0, sizeof(trap));
    watch(sc, true);
    sbx_err rc = load(sc, cmd, &m, err, sizeof(err));
    bool loaded = rc == SBX_OK;
    if (loaded)
        rc = sbx__wasm_instantiate(sc->store, m, resolve, sc, &inst, &trap, err, sizeof(err));
    watch(sc, false);
    if (!text)
        text = "";
    bool ok;
    if (is_link)
        ok = rc == SBX_E_WASM_LINK && strncmp(err, text, strlen(text)) == 0;
    else
        ok = (rc == SBX_E_WASM_INSTANTIATE && strncmp(err, text, strlen(text)) == 0) ||
             (rc == SBX_E_WASM_TRAP && trap_matches(&trap, text));
    if (!loaded)
        fail(o, OWNER_DECODER, "module load: %s: %s", sbx_err_name(rc), err);
    else if (!ok)
        fail(o, strcmp(text, "unreachable") == 0 ? OWNER_INTERP : OWNER_RUNTIME,
             "expected \"%s\", got %s: %s", text, sbx_err_name(rc),
             rc == SBX_OK ? "instantiated" : err);
}

static void run_command(struct script *sc, json_t *cmd, const char *type, struct outcome *o)
{
    o->ok = true;
    o->why[0] = '\0';
    if (strcmp(type, "module") == 0)
        cmd_module(sc, cmd, o);
    else if (strcmp(type, "module_definition") == 0)
        cmd_definition(sc, cmd, o);
    else if (strcmp(type, "module_instance") == 0)
        cmd_instance(sc, cmd, o);
    else if (strcmp(type, "register") == 0)
        cmd_register(sc, cmd, o);
    else if (strcmp(type, "assert_invalid") == 0)
        cmd_rejected(sc, cmd, "invalid", o);
    else if (strcmp(type, "assert_malformed") == 0)
        cmd_rejected(sc, cmd, "malformed", o);
    else if (strcmp(type, "assert_unlinkable") == 0)
        cmd_no_instance(sc, cmd, true, o);
    else if (strcmp(type, "assert_uninstantiable") == 0 ||
             (strcmp(type, "assert_trap") == 0 && json_object_get(cmd, "filename")))
        cmd_no_instance(sc, cmd, false, o);
    else if (strcmp(type, "action") == 0 || strncmp(type, "assert_", 7) == 0)
        cmd_action(sc, cmd, type, o);
    else
        fail(o, OWNER_UNKNOWN, "unknown command type %s", type);
}

/* Commands on text-format modules are for text parsers; a binary engine skips them. */
static bool is_skipped(json_t *cmd)
{
    const char *mt = json_string_value(json_object_get(cmd, "module_type"));
    return mt && strcmp(mt, "text") == 0;
}

/* Whether name.json:line is on the superseded list (opts.superseded). */
static bool is_superseded(const char *list, const char *path, long line)
{
    if (!list)
        return false;
    const char *slash = strrchr(path, '/');
    char key[320];
    snprintf(key, sizeof(key), "%s:%ld\n", slash ? slash + 1 : path, line);
    for (const char *p = list; (p = strstr(p, key)) != NULL; p++)
        if (p == list || p[-1] == '\n')
            return true;
    return false;
}

static bool script_init(struct script *sc, const char *path, uint8_t tier)
{
    struct wasm_store_limits limits = {.tier = tier};
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(sc->dir, sizeof(sc->dir), "%.*s", (int)(slash - path), path);
    else
        snprintf(sc->dir, sizeof(sc->dir), ".");
    if (sbx__wasm_store_create(&limits, &sc->store) != SBX_OK)
        return false;
    return spectest_host_init(&sc->host, sc->store);
}

static void script_free(struct script *sc)
{
    watched_store = NULL;
    sbx__wasm_store_destroy(sc->store);
    for (size_t i = 0; i < sc->mod_count; i++)
        sbx__wasm_module_destroy(sc->mods[i]);
    free(sc->mods);
    for (size_t i = 0; i < sc->name_count; i++)
        free(sc->names[i].name);
    for (size_t i = 0; i < sc->reg_count; i++)
        free(sc->regs[i].name);
    for (size_t i = 0; i < sc->def_count; i++)
        free(sc->defs[i].name);
    free(sc->names);
    free(sc->regs);
    free(sc->defs);
}

bool spectest_run_script(const char *path, const struct script_opts *opts,
                         const struct script_sink *sink)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_ALLOW_NUL, &jerr);
    json_t *cmds = json_object_get(root, "commands");
    struct script sc = {.opts = opts, .sink = sink, .current_owner = OWNER_UNKNOWN};
    struct sigaction sa = {.sa_handler = on_alarm};
    sigaction(SIGALRM, &sa, NULL);
    bool ok = json_is_array(cmds) && script_init(&sc, path, opts->tier);
    for (size_t i = 0; ok && i < json_array_size(cmds); i++) {
        json_t *cmd = json_array_get(cmds, i);
        const char *type = json_string_value(json_object_get(cmd, "type"));
        long line = (long)json_integer_value(json_object_get(cmd, "line"));
        struct outcome o;
        if (is_skipped(cmd) || is_superseded(opts->superseded, path, line)) {
            sc.skipped++;
        } else {
            run_command(&sc, cmd, type ? type : "?", &o);
            if (o.ok) {
                sc.passed++;
            } else {
                sc.failed++;
                sink->fail(sink->user, o.owner, line, o.why);
            }
        }
        sink->progress(sink->user, sc.passed, sc.failed, sc.skipped, line);
    }
    if (ok && opts->is_native_only && sbx__wasm_store_interp_fallbacks(sc.store) > 0) {
        char why[96];
        snprintf(why, sizeof(why), "--native-only: %llu calls ran in the interpreter",
                 (unsigned long long)sbx__wasm_store_interp_fallbacks(sc.store));
        sc.failed++;
        sink->fail(sink->user, OWNER_UNKNOWN, 0, why);
        sink->progress(sink->user, sc.passed, sc.failed, sc.skipped, 0);
    }
    script_free(&sc);
    json_decref(root);
    return ok;
}

long spectest_count_commands(const char *path)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_ALLOW_NUL, &jerr);
    json_t *cmds = json_object_get(root, "commands");
    long n = -1;
    if (json_is_array(cmds)) {
        n = 0;
        for (size_t i = 0; i < json_array_size(cmds); i++)
            n += !is_skipped(json_array_get(cmds, i));
    }
    json_decref(root);
    return n;
}

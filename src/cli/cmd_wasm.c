/* cli/cmd_wasm.c: `sbx wasm`, in the conventions of `wasmtime run`: the guest's stdio passes
 * through; exit status is the guest's proc_exit code, 124 on timeout, 134 on a trap (message on
 * stderr), 125 when sbx itself failed (bad module, bad policy), 2 on usage errors. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"

#define EXIT_TIMEOUT 124
#define EXIT_SBX     125
#define EXIT_TRAP    134
#define MAX_ARGS     32

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sbx wasm [--policy FILE] [--dir [rw:]HOST[::GUEST]]... [--env K=V]...\n"
            "                [--allow-outbound HOST:PORT]... [--fuel N] [--timeout-ms N]\n"
            "                [--memory-bytes N] [--cpu-percent N] [--invoke NAME]\n"
            "                [--tier auto|interp|compiled] [--no-cache] MODULE.wasm [ARGS...]\n\n"
            "Runs a WASI command's _start (ARGS become its argv after MODULE), or with --invoke\n"
            "calls the export NAME with ARGS as its typed arguments and prints each result.\n"
            "Options add to the policy: --dir grants a directory (read-only unless rw:),\n"
            "--env sets a variable, --allow-outbound allows a connection pattern, --tier picks\n"
            "the engine (policy wasm.tier; compiled = LLVM native code, auto = the interpreter,\n"
            "then native code compiled in the background once a run has taken 200 ms).\n"
            "Native code is cached on disk (`sbx compile --help`), and so is what auto\n"
            "compiled of a large module's hot code; once runs have paid for it, that code is\n"
            "recompiled better after the run, at idle priority (`sbx compile --hot`).\n"
            "--no-cache compiles afresh and stores nothing (policy wasm.cache = false).\n"
            "Exit status: the guest's exit code, 124 timeout, 134 trap, 125 sbx failed,\n"
            "2 usage error.\n");
    cli_print_defaults(out);
}

struct wasm_opts {
    const char *policy_path;
    const char *invoke;
    sbx_policy *policy;
    bool is_interp; /* --tier interp: no native code, no cache */
};

/* Sets key to json (caller's, freed here); -1 to go on, else 125 after a message. */
static int set_json(struct wasm_opts *o, const char *key, char *json)
{
    int rc = json ? cli_policy_set(&o->policy, key, json) : -1;
    if (!json)
        fprintf(stderr, "sbx: wasm: out of memory\n");
    free(json);
    return rc == 0 ? -1 : EXIT_SBX;
}

/* Options edit the policy in command-line order. A value that is not a number is a usage
 * error (2, as wasmtime and sbx eval/run); one the policy rejects is 125. */
static int on_policy(void *opts, const struct cli_opt *row, const char *value)
{
    struct wasm_opts *o = opts;
    int rc = cli_opt_apply(&o->policy, row, value);
    return rc == 0 ? -1 : rc == -2 ? 2 : EXIT_SBX;
}

static int on_env(void *opts, const struct cli_opt *row, const char *value)
{
    (void)row;
    const char *eq = strchr(value, '=');
    if (!eq || eq == value)
        return cli_usage_error("wasm", "--env wants K=V, got '%s'", value);
    char *name = strndup(value, (size_t)(eq - value));
    char *k = name ? cli_json_string(name) : NULL, *v = cli_json_string(eq + 1);
    size_t len = k && v ? strlen(k) + strlen(v) + 5 : 0;
    char *json = len ? malloc(len) : NULL;
    if (json)
        snprintf(json, len, "{%s: %s}", k, v);
    free(name);
    free(k);
    free(v);
    return set_json(opts, "env", json);
}

static int on_tier(void *opts, const struct cli_opt *row, const char *value)
{
    (void)row;
    struct wasm_opts *o = opts;
    int rc = set_json(o, "wasm.tier", cli_json_string(value));
    o->is_interp = strcmp(value, "interp") == 0;
    return rc;
}

static int on_no_cache(void *opts, const struct cli_opt *row, const char *value)
{
    (void)row, (void)value;
    return set_json(opts, "wasm.cache", strdup("false"));
}

#define POLICY(name, kind, key)                                                                    \
    {                                                                                              \
        name, kind, 0, key, on_policy                                                              \
    }
#define CALL(name, kind, fn)                                                                       \
    {                                                                                              \
        name, kind, 0, NULL, fn                                                                    \
    }
static const struct cli_opt wasm_opts_table[] = {
    {"policy", CLI_OPT_TEXT, offsetof(struct wasm_opts, policy_path), NULL, NULL},
    POLICY("dir", CLI_OPT_LIST, "fs"),
    CALL("env", CLI_OPT_TEXT, on_env),
    POLICY("allow-outbound", CLI_OPT_LIST, "net.outbound"),
    POLICY("fuel", CLI_OPT_TEXT, "fuel"),
    POLICY("timeout-ms", CLI_OPT_TEXT, "timeoutMs"),
    POLICY("memory-bytes", CLI_OPT_TEXT, "memoryBytes"),
    POLICY("cpu-percent", CLI_OPT_TEXT, "cpuPercent"),
    {"invoke", CLI_OPT_TEXT, offsetof(struct wasm_opts, invoke), NULL, NULL},
    CALL("tier", CLI_OPT_TEXT, on_tier),
    CALL("no-cache", CLI_OPT_FLAG, on_no_cache),
};
#undef POLICY
#undef CALL

static const struct cli_cmd wasm_cmd = {
    "wasm", wasm_opts_table, sizeof(wasm_opts_table) / sizeof(wasm_opts_table[0]), usage};

/* Parses options up to MODULE; returns -1 to go on (optind at MODULE), else the exit status. */
static int parse_opts(int argc, char **argv, struct wasm_opts *o)
{
    /* A first pass finds --policy, so the other options edit that file's policy whatever
     * their order on the command line. */
    o->policy_path = cli_opts_last(&wasm_cmd, argc, argv, "policy");
    if (!(o->policy = cli_policy_load(o->policy_path)))
        return EXIT_SBX;
    int rc = cli_opts_parse(&wasm_cmd, argc, argv, o);
    if (rc >= 0)
        return rc;
    if (optind >= argc)
        return cli_usage_error("wasm", "expected MODULE.wasm (try --help)");
    return -1;
}

/* Says on stderr that the policy refused a grow: the guest saw only -1 (malloc's NULL) and may
 * have gone on, or failed in its own words. */
static void report_memory_limit(const sbx_result *r, const sbx_policy *policy)
{
    if (r->limit != SBX_LIMIT_MEMORY)
        return;
    uint64_t cap = sbx_policy_memory_bytes(policy);
    const char *unit = cap % (1u << 20) == 0 ? "MiB" : cap % 1024 == 0 ? "KiB" : "bytes";
    uint64_t n = cap % (1u << 20) == 0 ? cap >> 20 : cap % 1024 == 0 ? cap >> 10 : cap;
    /* A run that ended on the limit (a GC allocation, wasm/gc.h) says so in its error line. */
    const char *what =
        r->error == SBX_E_MEMORY_LIMIT ? "an allocation" : "memory.grow or table.grow";
    fprintf(stderr,
            "sbx: wasm: %s refused: the policy caps memory at %" PRIu64 " %s (memoryBytes)\n", what,
            n, unit);
}

/* Maps a finished run to the exit status, printing the failure on stderr. */
static int exit_status(const sbx_result *r, const sbx_policy *policy)
{
    report_memory_limit(r, policy);
    cli_print_denials(r);
    if (r->ok || r->error == SBX_E_EXECUTION_FAILED)
        return r->exit_code >= 0 ? r->exit_code : 0;
    fprintf(stderr, "sbx: wasm: %s: %s\n", sbx_err_name(r->error),
            r->error_message ? r->error_message : sbx_err_message(r->error));
    switch (r->error) {
    case SBX_E_TIMEOUT:
        return EXIT_TIMEOUT;
    case SBX_E_WASM_TRAP:
    case SBX_E_WASM_FUEL_EXHAUSTED:
    case SBX_E_ABORTED:
        return EXIT_TRAP;
    default:
        return EXIT_SBX;
    }
}

/* Parses ARGS by the export's parameter types. Returns 0 or -1 after a message. */
static int parse_values(const sbx_wasm_valtype *types, size_t count, char **args, size_t n,
                        sbx_wasm_value *out)
{
    if (n != count) {
        fprintf(stderr, "sbx: wasm: export takes %zu arguments, got %zu\n", count, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char *end;
        errno = 0;
        out[i].type = types[i];
        if (types[i] == SBX_WASM_I32 || types[i] == SBX_WASM_I64) {
            long long v = strtoll(args[i], &end, 0);
            if (types[i] == SBX_WASM_I32)
                out[i].of.i32 = (int32_t)v;
            else
                out[i].of.i64 = v;
        } else {
            double v = strtod(args[i], &end);
            if (types[i] == SBX_WASM_F32)
                out[i].of.f32 = (float)v;
            else
                out[i].of.f64 = v;
        }
        if (errno || end == args[i] || *end) {
            fprintf(stderr, "sbx: wasm: argument %zu: not a number: '%s'\n", i + 1, args[i]);
            return -1;
        }
    }
    return 0;
}

static void print_value(const sbx_wasm_value *v)
{
    switch (v->type) {
    case SBX_WASM_I32:
        printf("%" PRId32 "\n", v->of.i32);
        break;
    case SBX_WASM_I64:
        printf("%" PRId64 "\n", v->of.i64);
        break;
    case SBX_WASM_F32:
        printf("%.9g\n", (double)v->of.f32);
        break;
    case SBX_WASM_F64:
        printf("%.17g\n", v->of.f64);
        break;
    }
}

static int invoke(sbx_wasm_sandbox *sb, const sbx_policy *policy, const char *name, char **args,
                  size_t n)
{
    sbx_wasm_valtype pt[MAX_ARGS], rt[MAX_ARGS];
    size_t pc, rc;
    sbx_err e = sbx_wasm_sandbox_export_type(sb, name, pt, &pc, rt, &rc, MAX_ARGS);
    if (e != SBX_OK || pc > MAX_ARGS || rc > MAX_ARGS) {
        fprintf(stderr, "sbx: wasm: cannot invoke '%s': %s\n", name,
                e ? sbx_err_message(e) : "too many values");
        return EXIT_SBX;
    }
    sbx_wasm_value argv_v[MAX_ARGS], res[MAX_ARGS];
    if (parse_values(pt, pc, args, n, argv_v))
        return EXIT_SBX;
    sbx_result r;
    sbx_wasm_sandbox_call(sb, name, argv_v, pc, res, rc, &r);
    int status = exit_status(&r, policy);
    for (size_t i = 0; r.ok && i < rc; i++)
        print_value(&res[i]);
    sbx_result_free(&r);
    return status;
}

/* Says on stderr when the cache directory is refused (the library then compiles uncached
 * without a word: it never prints). */
static void check_cache(const struct wasm_opts *o)
{
    char path[4200], err[512];
    if (o->is_interp || !sbx_policy_wasm_cache(o->policy))
        return;
    if (sbx_wasm_cache_check(path, sizeof(path), err, sizeof(err)) != SBX_OK)
        fprintf(stderr, "sbx: wasm: cache not used: %s (compiling without it)\n", err);
}

static int run_module(struct wasm_opts *o, int argc, char **argv, int first)
{
    check_cache(o);
    size_t len;
    char *bytes = cli_read_file(argv[first], &len);
    if (!bytes)
        return EXIT_SBX;
    const char **guest_argv = calloc((size_t)(argc - first) + 1, sizeof(char *));
    if (!guest_argv) {
        free(bytes);
        return EXIT_SBX;
    }
    for (int i = first; i < argc; i++)
        guest_argv[i - first] = argv[i];
    sbx_wasm_options opt = {.size = sizeof(opt), .argv = guest_argv, .inherit_stdio = true};
    sbx_wasm_sandbox *sb = NULL;
    char err[512];
    sbx_err e = sbx_wasm_sandbox_create((const uint8_t *)bytes, len, o->policy, &opt, &sb, err,
                                        sizeof(err));
    int status;
    if (e != SBX_OK) {
        fprintf(stderr, "sbx: wasm: %s: %s: %s\n", argv[first], sbx_err_name(e), err);
        status = e == SBX_E_TIMEOUT                                       ? EXIT_TIMEOUT
                 : e == SBX_E_WASM_TRAP || e == SBX_E_WASM_FUEL_EXHAUSTED ? EXIT_TRAP
                                                                          : EXIT_SBX;
    } else if (o->invoke) {
        status = invoke(sb, o->policy, o->invoke, argv + first + 1, (size_t)(argc - first - 1));
    } else {
        sbx_result r;
        sbx_wasm_sandbox_run(sb, &r);
        status = exit_status(&r, o->policy);
        sbx_result_free(&r);
    }
    sbx_wasm_sandbox_destroy(sb);
    /* The run paid for its kept hot code's upgrade: done after it, never in it. */
    if (!o->is_interp && sbx_policy_wasm_cache(o->policy) && strcmp(argv[first], "-") != 0 &&
        sbx_wasm_hot_due((const uint8_t *)bytes, len)) {
        fflush(stdout);
        fflush(stderr);
        cli_upgrade_in_background(argv[first]);
    }
    free(guest_argv);
    free(bytes);
    return status;
}

int cli_wasm(int argc, char **argv)
{
    struct wasm_opts o = {0};
    int status = parse_opts(argc, argv, &o);
    if (status < 0)
        status = run_module(&o, argc, argv, optind);
    sbx_policy_destroy(o.policy);
    fflush(stdout);
    return status;
}

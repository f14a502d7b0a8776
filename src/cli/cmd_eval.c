/* cli/cmd_eval.c: `sbx eval`: one JavaScript snippet in the worker or process tier, one JSON
 * result object on stdout. Exit 0 if the guest succeeded, 1 if it failed, 2 on usage errors. */
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: sbx eval [--backend worker|process] [--interpreter NAME] [--context JSON|@FILE]\n"
        "                [--timeout-ms N] [--memory-bytes N] [--policy FILE] [--preload FILE]...\n"
        "                CODE|@FILE|-\n\n"
        "Evaluates CODE (the text of FILE, or of standard input for -) as the body of\n"
        "`function (context)` and prints one JSON object:\n"
        "{\"ok\",\"value\",\"stdout\",\"stderr\",\"stdoutTruncated\",\"stderrTruncated\","
        "\"error\",\"durationMs\",\"backend\"}.\n"
        "--preload FILE (worker tier, repeatable) runs FILE's script in the realm first.\n"
        "Exit status: 0 ok, 1 the guest failed, 2 usage error or invalid policy.\n");
    cli_print_defaults(out);
}

struct eval_opts {
    const char *backend;
    const char *interpreter;
    const char *context;
    const char *policy_path;
    const char *timeout_ms;
    const char *memory_bytes;
    struct cli_list preloads;
};

#define ROW(name, field, key)                                                                      \
    {                                                                                              \
        name, CLI_OPT_TEXT, offsetof(struct eval_opts, field), key, NULL                           \
    }
static const struct cli_opt eval_opts_table[] = {
    ROW("backend", backend, NULL),
    ROW("interpreter", interpreter, NULL),
    ROW("context", context, NULL),
    ROW("policy", policy_path, NULL),
    ROW("timeout-ms", timeout_ms, "timeoutMs"),
    ROW("memory-bytes", memory_bytes, "memoryBytes"),
    {"preload", CLI_OPT_LIST, offsetof(struct eval_opts, preloads), NULL, NULL},
};
#undef ROW

static const struct cli_cmd eval_cmd = {
    "eval", eval_opts_table, sizeof(eval_opts_table) / sizeof(eval_opts_table[0]), usage};

static int parse_opts(int argc, char **argv, struct eval_opts *o)
{
    int rc = cli_opts_parse(&eval_cmd, argc, argv, o);
    if (rc >= 0)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error("eval", "expected exactly one CODE or @FILE (try --help)");
    return -1;
}

/* CODE, @FILE, or - for standard input (as @- also reads it). */
static char *code_arg(const char *arg, size_t *len)
{
    return strcmp(arg, "-") == 0 ? cli_read_file("-", len) : cli_text_arg(arg, len);
}

/* The context is handed on as a C string: a NUL inside would silently cut it there. */
static bool context_has_nul(const char *arg, const char *ctx, size_t len)
{
    const char *nul = ctx ? memchr(ctx, '\0', len) : NULL;
    if (nul)
        cli_usage_error("eval", "--context %s has a NUL byte at offset %zu (JSON text has none)",
                        arg, (size_t)(nul - ctx));
    return nul != NULL;
}

/* Adds each --preload FILE to sb; returns -1, or the exit status after saying why not. */
static int add_preloads(sbx_sandbox *sb, const struct cli_list *files)
{
    for (size_t i = 0; i < files->count; i++) {
        size_t len = 0;
        char *text = cli_read_file(files->items[i], &len);
        if (!text)
            return 2;
        sbx_err e = sbx_sandbox_preload(sb, files->items[i], text, len);
        free(text);
        if (e) {
            fprintf(stderr, "sbx: eval: --preload %s: %s (%s)\n", files->items[i],
                    sbx_err_message(e), sbx_err_name(e));
            return e == SBX_E_INVALID_ARGUMENT ? 2 : 1;
        }
    }
    return -1;
}

static int run(sbx_backend backend, const sbx_policy *p, const sbx_run_input *in,
               const struct cli_list *preloads)
{
    sbx_sandbox *sb = NULL;
    sbx_result r = {0};
    sbx_err e = sbx_sandbox_create(backend, p, &sb);
    if (e) {
        fprintf(stderr, "sbx: eval: cannot create the %s sandbox: %s (%s)\n",
                sbx_backend_name(backend), sbx_err_message(e), sbx_err_name(e));
        return 1;
    }
    int rc = add_preloads(sb, preloads);
    if (rc >= 0) {
        sbx_sandbox_destroy(sb);
        return rc;
    }
    sbx_sandbox_run(sb, in, &r);
    char *json = sbx_result_to_json(&r);
    int status = r.ok ? 0 : 1;
    if (json)
        printf("%s\n", json);
    else
        status = 1;
    sbx_free(json);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    return status;
}

int cli_eval(int argc, char **argv)
{
    struct eval_opts o = {0};
    int rc = parse_opts(argc, argv, &o);
    if (rc >= 0)
        return rc;
    sbx_backend backend = SBX_BACKEND_WORKER;
    if (o.backend && (sbx_backend_from_name(o.backend, &backend) || backend == SBX_BACKEND_WASM))
        return cli_usage_error("eval", "--backend must be worker or process, got '%s'", o.backend);
    /* The worker tier only runs sbx's own JavaScript: another interpreter would be ignored. */
    if (backend == SBX_BACKEND_WORKER && o.interpreter && o.interpreter[0] &&
        strcmp(o.interpreter, "sbx-js") != 0)
        rc = cli_usage_error("eval", "--interpreter %s needs --backend process", o.interpreter);
    else if (backend != SBX_BACKEND_WORKER && o.preloads.count)
        rc = cli_usage_error("eval", "--preload needs the worker tier");
    if (rc >= 0) {
        cli_opts_free(&eval_cmd, &o);
        return rc;
    }
    sbx_policy *p = cli_policy_load(o.policy_path);
    if (!p || cli_opts_apply(&p, &eval_cmd, &o)) {
        sbx_policy_destroy(p);
        return 2;
    }
    size_t code_len = 0, ctx_len = 0;
    char *code = code_arg(argv[optind], &code_len);
    char *context = o.context ? cli_text_arg(o.context, &ctx_len) : NULL;
    rc = 2;
    if (code && (context || !o.context) && !context_has_nul(o.context, context, ctx_len)) {
        sbx_run_input in = {
            .code = code,
            .code_len = code_len,
            .context_json = context,
            .interpreter = o.interpreter,
        };
        rc = run(backend, p, &in, &o.preloads);
    }
    free(code);
    free(context);
    sbx_policy_destroy(p);
    cli_opts_free(&eval_cmd, &o);
    return rc;
}

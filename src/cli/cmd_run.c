/* cli/cmd_run.c: `sbx run`: one command in the process tier's jail, stdio passed through, the
 * exit status of timeout(1): the command's own, 124 on timeout, 128+N when killed by signal N,
 * 125 when sbx itself failed. --json prints the result object instead (output captured). */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"

#define EXIT_SBX_FAILED 125
#define EXIT_TIMEOUT    124

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sbx run [--policy FILE] [--timeout-ms N] [--memory-bytes N] [--pids N]\n"
            "               [--fs [rw:]HOST[::GUEST]]... [--net loopback]\n"
            "               [--allow-outbound HOST:PORT]... [--json [--stdin FILE]] -- CMD "
            "[ARGS...]\n\n"
            "Runs CMD in a Linux jail (new user, pid, mount, ipc, uts, net namespaces; seccomp,\n"
            "Landlock, cgroup or rlimit limits). Nothing of the host is visible but /usr and\n"
            "the --fs grants; --allow-outbound allows TCP connections to one destination (an IP\n"
            "literal or localhost; the supervisor makes them). Exit status: the command's own, 124 "
            "on timeout, 128+N when killed\n"
            "by signal N, 125 when sbx failed (2 for usage errors). --json prints the result\n"
            "object with stdout/stderr captured instead of passing them through; CMD's stdin is\n"
            "then empty, or the text of --stdin FILE ('-' for sbx's own stdin).\n");
    cli_print_defaults(out);
}

struct run_opts {
    const char *policy_path;
    const char *timeout_ms;
    const char *memory_bytes;
    const char *pids;
    const char *net;
    struct cli_list fs;
    struct cli_list outbound;
    const char *stdin_path;
    bool is_json;
};

/* The rows with a policy key apply in this order (apply_opts). */
#define ROW(name, kind, field, key)                                                                \
    {                                                                                              \
        name, kind, offsetof(struct run_opts, field), key, NULL                                    \
    }
static const struct cli_opt run_opts_table[] = {
    ROW("policy", CLI_OPT_TEXT, policy_path, NULL),
    ROW("timeout-ms", CLI_OPT_TEXT, timeout_ms, "timeoutMs"),
    ROW("memory-bytes", CLI_OPT_TEXT, memory_bytes, "memoryBytes"),
    ROW("pids", CLI_OPT_TEXT, pids, "pids"),
    ROW("fs", CLI_OPT_LIST, fs, "fs"),
    ROW("net", CLI_OPT_TEXT, net, NULL),
    ROW("allow-outbound", CLI_OPT_LIST, outbound, "net.outbound"),
    ROW("json", CLI_OPT_FLAG, is_json, NULL),
    ROW("stdin", CLI_OPT_TEXT, stdin_path, NULL),
};
#undef ROW

static const struct cli_cmd run_cmd = {"run", run_opts_table,
                                       sizeof(run_opts_table) / sizeof(run_opts_table[0]), usage};

/* Returns -1 to go on, else the exit status. */
static int parse_opts(int argc, char **argv, struct run_opts *o)
{
    int rc = cli_opts_parse(&run_cmd, argc, argv, o);
    if (rc >= 0)
        return rc;
    if (o->net && strcmp(o->net, "loopback") != 0)
        return cli_usage_error("run", "--net takes only 'loopback', got '%s'", o->net);
    if (optind >= argc)
        return cli_usage_error("run", "expected -- CMD [ARGS...] (try --help)");
    if (o->stdin_path && !o->is_json)
        return cli_usage_error("run",
                               "--stdin goes with --json (without it CMD reads sbx's stdin)");
    return -1;
}

static int apply_opts(sbx_policy **p, const struct run_opts *o)
{
    if (cli_opts_apply(p, &run_cmd, o) != 0)
        return -1;
    if (o->net && cli_policy_set(p, "net.loopback", "true") != 0)
        return -1;
    return 0;
}

static int exit_status(const sbx_result *r, sbx_err rc)
{
    if (rc != SBX_OK)
        return EXIT_SBX_FAILED;
    if (r->limit == SBX_LIMIT_TIMEOUT || r->error == SBX_E_TIMEOUT)
        return EXIT_TIMEOUT;
    if (r->signal > 0)
        return 128 + r->signal;
    if (r->exit_code >= 0)
        return r->exit_code;
    return EXIT_SBX_FAILED;
}

static int run_command(sbx_policy *policy, char **cmd, bool is_json, const char *stdin_path)
{
    sbx_sandbox *sb = NULL;
    sbx_err e = sbx_sandbox_create(SBX_BACKEND_PROCESS, policy, &sb);
    if (e) {
        fprintf(stderr, "sbx: run: %s: %s\n", sbx_err_name(e), sbx_err_message(e));
        return EXIT_SBX_FAILED;
    }
    sbx_run_input in = {.argv = (const char *const *)cmd, .inherit_stdio = !is_json};
    /* --json captures the command's output; its input comes from --stdin FILE, read first. */
    char *input = NULL;
    if (stdin_path) {
        size_t len;
        input = cli_read_file(stdin_path, &len);
        if (input && memchr(input, '\0', len)) {
            fprintf(stderr, "sbx: run: --stdin takes text; %s holds a NUL byte\n", stdin_path);
            free(input);
            input = NULL;
        }
        if (!input) {
            sbx_sandbox_destroy(sb);
            return EXIT_SBX_FAILED;
        }
        in.context_json = input;
    }
    sbx_result r;
    e = sbx_sandbox_run(sb, &in, &r);
    free(input);
    int status = exit_status(&r, e);
    if (is_json) {
        char *j = sbx_result_to_json(&r);
        if (j)
            printf("%s\n", j);
        sbx_free(j);
    } else if (e != SBX_OK || (r.error != SBX_OK && r.error != SBX_E_EXECUTION_FAILED &&
                               r.error != SBX_E_TIMEOUT)) {
        fprintf(stderr, "sbx: run: %s: %s\n", sbx_err_name(r.error),
                r.error_message ? r.error_message : sbx_err_message(r.error));
    } else if (r.exit_code == 126 || r.exit_code == 127) {
        fprintf(stderr, "sbx: run: %s\n", r.error_message ? r.error_message : "");
    }
    if (!is_json)
        cli_print_denials(&r);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    return status;
}

int cli_run(int argc, char **argv)
{
    struct run_opts o = {0};
    int rc = parse_opts(argc, argv, &o);
    if (rc < 0) {
        sbx_policy *policy = cli_policy_load(o.policy_path);
        if (policy && apply_opts(&policy, &o) == 0)
            rc = run_command(policy, argv + optind, o.is_json, o.stdin_path);
        else
            rc = 2;
        sbx_policy_destroy(policy);
    }
    cli_opts_free(&run_cmd, &o);
    return rc;
}

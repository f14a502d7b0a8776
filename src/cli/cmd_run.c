/* cli/cmd_run.c: `sbx run`: one command in the process tier's jail, stdio passed through, the
 * exit status of timeout(1): the command's own, 124 on timeout, 128+N when killed by signal N,
 * 125 when sbx itself failed. --json prints the result object instead (output captured). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

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
    char **fs;
    int fs_count;
    char **outbound;
    int outbound_count;
    const char *stdin_path;
    bool is_json;
};

/* Returns -1 to go on, else the exit status. */
static int parse_opts(int argc, char **argv, struct run_opts *o)
{
    static const struct option longopts[] = {
        {"policy", required_argument, NULL, 'p'},
        {"timeout-ms", required_argument, NULL, 't'},
        {"memory-bytes", required_argument, NULL, 'm'},
        {"pids", required_argument, NULL, 'n'},
        {"fs", required_argument, NULL, 'f'},
        {"net", required_argument, NULL, 'N'},
        {"allow-outbound", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},
        {"stdin", required_argument, NULL, 'i'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            o->policy_path = optarg;
            break;
        case 't':
            o->timeout_ms = optarg;
            break;
        case 'm':
            o->memory_bytes = optarg;
            break;
        case 'n':
            o->pids = optarg;
            break;
        case 'f':
            o->fs[o->fs_count++] = optarg;
            break;
        case 'N':
            o->net = optarg;
            break;
        case 'o':
            o->outbound[o->outbound_count++] = optarg;
            break;
        case 'j':
            o->is_json = true;
            break;
        case 'i':
            o->stdin_path = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            return cli_usage_error("run", "unknown or incomplete option '%s' (try --help)",
                                   argv[optind - 1]);
        }
    }
    if (o->net && strcmp(o->net, "loopback") != 0)
        return cli_usage_error("run", "--net takes only 'loopback', got '%s'", o->net);
    if (optind >= argc)
        return cli_usage_error("run", "expected -- CMD [ARGS...] (try --help)");
    if (o->stdin_path && !o->is_json)
        return cli_usage_error("run",
                               "--stdin goes with --json (without it CMD reads sbx's stdin)");
    return -1;
}

/* Adds one string to the policy's array at key; -1 after a message. */
static int add_string(sbx_policy **p, const char *key, const char *value)
{
    char *s = cli_json_string(value);
    size_t n = s ? strlen(s) + 3 : 0;
    char *arr = s ? malloc(n) : NULL;
    if (arr)
        snprintf(arr, n, "[%s]", s);
    int rc = arr ? cli_policy_set(p, key, arr) : -1;
    free(s);
    free(arr);
    return rc;
}

static int apply_opts(sbx_policy **p, const struct run_opts *o)
{
    if (cli_policy_set_number(p, "timeoutMs", "--timeout-ms", o->timeout_ms) != 0 ||
        cli_policy_set_number(p, "memoryBytes", "--memory-bytes", o->memory_bytes) != 0 ||
        cli_policy_set_number(p, "pids", "--pids", o->pids) != 0)
        return -1;
    for (int i = 0; i < o->fs_count; i++) {
        if (add_string(p, "fs", o->fs[i]) != 0)
            return -1;
    }
    for (int i = 0; i < o->outbound_count; i++) {
        if (add_string(p, "net.outbound", o->outbound[i]) != 0)
            return -1;
    }
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
    o.fs = calloc((size_t)argc + 1, sizeof(char *));
    o.outbound = calloc((size_t)argc + 1, sizeof(char *));
    int rc = o.fs && o.outbound ? parse_opts(argc, argv, &o) : EXIT_SBX_FAILED;
    if (rc >= 0) {
        free(o.fs);
        free(o.outbound);
        return rc;
    }
    sbx_policy *policy = cli_policy_load(o.policy_path);
    if (!policy || apply_opts(&policy, &o) != 0) {
        sbx_policy_destroy(policy);
        free(o.fs);
        free(o.outbound);
        return 2;
    }
    rc = run_command(policy, argv + optind, o.is_json, o.stdin_path);
    sbx_policy_destroy(policy);
    free(o.fs);
    free(o.outbound);
    return rc;
}
